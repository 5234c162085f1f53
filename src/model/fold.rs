//! The deterministic fold of a record set into the current memory state; no I/O.
//!
//! The fold depends only on the *set* of records, never on the order they arrived in, which
//! is what lets clones merge by set union and still agree. The rule for every field is
//! written down in docs/storage.md.

use std::collections::{HashMap, HashSet};

use super::record::{Body, Kind, Record};
pub use super::state::State;
use crate::model::kinds::{Checkpoint, Delete, Instinct, Resolve};

pub use super::kinds::instinct::{confidence as instinct_confidence, MAX_INSTINCTS};
pub use super::kinds::oracle::oracle_wins;
pub use super::kinds::task::number_tasks;

/// Folds a record set. Duplicate ids are ignored, so folding a union is safe.
pub fn fold<'a>(records: impl IntoIterator<Item = &'a Record>) -> State {
    let mut state = State::default();
    let live = live(records, &mut state.resolved);
    fold_live(live, state)
}

/// The records no edit hides and no tombstone kills, in `(ts, clock, id)` order (the input
/// of every kind's own rule); the targets of `resolve` records go into `resolved`.
fn live<'a>(
    records: impl IntoIterator<Item = &'a Record>,
    resolved: &mut HashSet<String>,
) -> Vec<&'a Record> {
    let records = records.into_iter();
    let mut by_id: HashMap<&str, &Record> = HashMap::with_capacity(records.size_hint().0);
    for r in records {
        by_id.entry(r.id.as_str()).or_insert(r);
    }

    // An edit hides what it edits, whatever became of the edit afterwards.
    let superseded: HashSet<&str> = by_id
        .values()
        .flat_map(|r| r.meta.supersedes.iter().map(String::as_str))
        .collect();
    // For each deleted id, the newest tombstone clock that names it.
    let mut deleted: HashMap<&str, u64> = HashMap::new();
    for r in by_id.values() {
        match &r.body {
            Body::Delete(Delete { targets }) => {
                for t in targets {
                    let c = deleted.entry(t.as_str()).or_insert(0);
                    *c = (*c).max(r.meta.clock);
                }
            }
            Body::Resolve(Resolve { target }) => {
                resolved.insert(target.clone());
            }
            _ => {}
        }
    }

    let mut live: Vec<&Record> = by_id
        .values()
        .copied()
        .filter(|r| !matches!(r.kind(), Kind::Delete | Kind::Resolve))
        .filter(|r| !superseded.contains(r.id.as_str()))
        .filter(|r| !killed_by_tombstone(r, &by_id, &deleted))
        .collect();
    live.sort_by(|a, b| a.order_key().cmp(&b.order_key()));
    live
}

/// Applies each kind's rule to the live records (the table in `kinds/mod.rs`).
fn fold_live(live: Vec<&Record>, mut state: State) -> State {
    super::kinds::fold_lists(&live, &mut state);
    state
}

/// A live record is killed by a tombstone naming it, or naming something it (transitively)
/// edits when the tombstone is newer: tombstones win over older edits, newer edits resurrect.
fn killed_by_tombstone(
    r: &Record,
    by_id: &HashMap<&str, &Record>,
    deleted: &HashMap<&str, u64>,
) -> bool {
    if deleted.is_empty() {
        return false;
    }
    if deleted.contains_key(r.id.as_str()) {
        return true;
    }
    let mut seen: HashSet<&str> = HashSet::new();
    let mut stack: Vec<&str> = r.meta.supersedes.iter().map(String::as_str).collect();
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        if let Some(&clock) = deleted.get(id) {
            if clock >= r.meta.clock {
                return true;
            }
        }
        if let Some(anc) = by_id.get(id) {
            stack.extend(anc.meta.supersedes.iter().map(String::as_str));
        }
    }
    false
}

/// What compacting memory history keeps of `records`: every live record (no edit hides it,
/// no tombstone kills it) that its kind's rule still uses — the winning learning of each type
/// and key, every copy of an instinct (its confidence is the highest of them), the open
/// checkpoint — and every tombstone (a clone that has not synced yet may still hold what it
/// deletes). What goes: edited, deleted and outvoted records, resolved and older checkpoints
/// and their resolutions. Folding what is kept gives the fold of `records` (tested).
pub fn kept(records: &[Record]) -> Vec<Record> {
    let mut resolved = HashSet::new();
    let live = live(records, &mut resolved);
    let state = fold_live(
        live.clone(),
        State {
            resolved,
            ..State::default()
        },
    );
    // Every kind's list but the checkpoints, of which only the open one is kept.
    let mut keep: HashSet<&str> = Kind::ALL
        .iter()
        .filter(|k| **k != Kind::Checkpoint)
        .flat_map(|k| state.of_kind(*k))
        .map(|r| r.id.as_str())
        .collect();
    keep.extend(state.open_checkpoint().map(|r| r.id.as_str()));
    let kept_ids: HashSet<String> = keep.iter().map(|s| s.to_string()).collect();
    let instincts: HashSet<String> = live
        .iter()
        .filter(|r| matches!(r.body, Body::Instinct(Instinct { .. })))
        .map(|r| r.id.clone())
        .collect();
    records
        .iter()
        .filter(|r| {
            kept_ids.contains(&r.id)
                || instincts.contains(&r.id)
                || matches!(r.body, Body::Delete(Delete { .. }))
                // A record this build cannot read: whether its kind still needs it is for
                // the build that wrote it to say; it is kept.
                || matches!(r.body, Body::Future(_))
        })
        .cloned()
        .collect()
}

/// Where each record of `records` stands in `state` (their fold): `live`; `edited` (a later
/// record supersedes it); `deleted` (a tombstone removed it); `outvoted` (a learning another
/// record of its type and key won over, as when two clones edited it); `merged` (an instinct
/// folded into another copy of its name, or evicted past the cap). Checkpoints, which stay in
/// history, are `open`, `resolved` or `superseded`; a record this build cannot read (from a
/// newer git-rune) is `newer-version`.
pub fn statuses<'a>(records: &'a [Record], state: &State) -> Vec<(&'a Record, &'static str)> {
    let shown: HashSet<&str> = state
        .lists()
        .into_iter()
        .flat_map(|l| l.iter().map(|r| r.id.as_str()))
        .collect();
    let live: HashSet<&str> = live(records, &mut HashSet::new())
        .into_iter()
        .map(|r| r.id.as_str())
        .collect();
    let superseded: HashSet<&str> = records
        .iter()
        .flat_map(|r| r.meta.supersedes.iter().map(String::as_str))
        .collect();
    let open = state.open_checkpoint().map(|r| r.id.as_str());
    records
        .iter()
        .filter(|r| {
            !matches!(
                r.body,
                Body::Delete(Delete { .. }) | Body::Resolve(Resolve { .. })
            )
        })
        .map(|r| {
            let id = r.id.as_str();
            let status = match &r.body {
                Body::Checkpoint(Checkpoint { .. }) if open == Some(id) => "open",
                Body::Checkpoint(Checkpoint { .. }) if state.resolved.contains(id) => "resolved",
                Body::Checkpoint(Checkpoint { .. }) => "superseded",
                // From a newer git-rune, of a kind (or with fields) this build cannot read:
                // kept as stored, folded into no list.
                Body::Future(_) => "newer-version",
                _ if shown.contains(id) => "live",
                // Live but not shown: folded into another copy of its name (instincts), or
                // outvoted by another version of its group (learnings, tasks, echoes, …).
                Body::Instinct(_) if live.contains(id) => "merged",
                _ if live.contains(id) => "outvoted",
                _ if superseded.contains(id) => "edited",
                _ => "deleted",
            };
            (r, status)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testing::{decision, learning, meta};
    use proptest::prelude::*;

    fn delete(clock: u64, target: &str) -> Record {
        Record::new(
            meta(clock, &[]),
            Body::Delete(Delete {
                targets: vec![target.into()],
            }),
        )
    }

    fn instinct(clock: u64, name: &str, confidence: f64) -> Record {
        Record::new(
            meta(clock, &[]),
            Body::Instinct(Instinct {
                name: name.into(),
                trigger: "t".into(),
                action: format!("a{clock}"),
                confidence,
                evidence: "e".into(),
                extra: Vec::new(),
            }),
        )
    }

    #[test]
    fn learnings_latest_winner_per_key_and_type() {
        let a = learning(1, "k", "old");
        let b = learning(2, "k", "new");
        let c = learning(1, "other", "x");
        let s = fold([&a, &b, &c]);
        let ids: Vec<_> = s.learnings.iter().map(|r| r.id.clone()).collect();
        assert_eq!(ids, vec![c.id.clone(), b.id.clone()]);
    }

    #[test]
    fn edit_hides_original_and_delete_hides_edit() {
        let a = decision(1, "A", &[]);
        let e = decision(2, "A2", &[&a.id]);
        let s = fold([&a, &e]);
        assert_eq!(s.decisions.len(), 1);
        assert_eq!(s.decisions[0].id, e.id);
        let d = delete(3, &e.id);
        assert!(fold([&a, &e, &d]).decisions.is_empty());
    }

    #[test]
    fn tombstone_wins_over_older_edit_newer_edit_resurrects() {
        let a = decision(1, "A", &[]);
        let old_edit = decision(2, "A-old", &[&a.id]);
        let t = delete(3, &a.id);
        let new_edit = decision(4, "A-new", &[&a.id]);
        assert!(fold([&a, &old_edit, &t]).decisions.is_empty());
        let s = fold([&a, &t, &new_edit]);
        assert_eq!(s.decisions.len(), 1);
        assert_eq!(s.decisions[0].id, new_edit.id);
    }

    #[test]
    fn instincts_keep_highest_confidence_newest_content_and_cap() {
        let a = instinct(1, "n", 0.9);
        let b = instinct(2, "n", 0.4);
        let s = fold([&a, &b]);
        assert_eq!(s.instincts.len(), 1);
        match &s.instincts[0].body {
            Body::Instinct(Instinct {
                action, confidence, ..
            }) => {
                assert_eq!(action, "a2");
                assert_eq!(*confidence, 0.9);
            }
            _ => unreachable!(),
        }
        let many: Vec<Record> = (0..25)
            .map(|i| instinct(i, &format!("i{i}"), 0.3 + (i as f64) * 0.02))
            .collect();
        let s = fold(&many);
        assert_eq!(s.instincts.len(), MAX_INSTINCTS);
        assert!(s
            .instincts
            .iter()
            .all(|r| instinct_confidence(r) >= 0.3 + 5.0 * 0.02 - 1e-9));
    }

    #[test]
    fn newest_unresolved_checkpoint_is_open() {
        let c1 = Record::new(
            meta(1, &[]),
            Body::Checkpoint(Checkpoint {
                doing: "one".into(),
                left: vec![],
                context: vec![],
                resume: String::new(),
                git: None,
                extra: Vec::new(),
            }),
        );
        let c2 = Record::new(
            meta(2, &[]),
            Body::Checkpoint(Checkpoint {
                doing: "two".into(),
                left: vec![],
                context: vec![],
                resume: String::new(),
                git: None,
                extra: Vec::new(),
            }),
        );
        assert_eq!(fold([&c1, &c2]).open_checkpoint().unwrap().id, c2.id);
        let r = Record::new(
            meta(3, &[]),
            Body::Resolve(Resolve {
                target: c2.id.clone(),
            }),
        );
        let s = fold([&c1, &c2, &r]);
        assert_eq!(s.open_checkpoint().unwrap().id, c1.id);
        assert_eq!(s.checkpoints.len(), 2);
    }

    fn arb_records() -> impl Strategy<Value = Vec<Record>> {
        proptest::collection::vec((0u64..6, 0usize..4, 0u8..4), 1..24).prop_map(|specs| {
            let mut out: Vec<Record> = Vec::new();
            for (clock, key, what) in specs {
                let r = match (what, out.last()) {
                    (0, Some(prev)) => delete(clock, &prev.id.clone()),
                    (1, Some(prev)) => decision(clock, &format!("e{key}"), &[&prev.id.clone()]),
                    (2, _) => instinct(clock, &format!("n{key}"), 0.3 + key as f64 / 10.0),
                    _ => learning(clock, &format!("k{key}"), &format!("v{clock}")),
                };
                out.push(r);
            }
            out
        })
    }

    fn ids(s: &State) -> Vec<Vec<String>> {
        [&s.decisions, &s.learnings, &s.instincts, &s.checkpoints]
            .iter()
            .map(|v| v.iter().map(|r| r.to_line()).collect())
            .collect()
    }

    fn checkpoint(clock: u64, doing: &str) -> Record {
        Record::new(
            meta(clock, &[]),
            Body::Checkpoint(Checkpoint {
                doing: doing.into(),
                left: vec![],
                context: vec![],
                resume: String::new(),
                git: None,
                extra: Vec::new(),
            }),
        )
    }

    /// Histories with edits of any earlier record, tombstones, learnings sharing keys,
    /// instincts sharing names, checkpoints and resolutions.
    fn arb_history() -> impl Strategy<Value = Vec<Record>> {
        proptest::collection::vec((0u64..12, 0usize..5, 0u8..7, any::<usize>()), 1..40).prop_map(
            |specs| {
                let mut out: Vec<Record> = Vec::new();
                for (clock, key, what, pick) in specs {
                    let earlier = (!out.is_empty()).then(|| out[pick % out.len()].id.clone());
                    let r = match (what, earlier) {
                        (0, Some(t)) => delete(clock, &t),
                        (1, Some(t)) => decision(clock, &format!("e{key}"), &[&t]),
                        (2, _) => instinct(clock, &format!("n{key}"), 0.3 + key as f64 / 10.0),
                        (3, _) => checkpoint(clock, &format!("c{key}")),
                        (4, Some(t)) => {
                            Record::new(meta(clock, &[]), Body::Resolve(Resolve { target: t }))
                        }
                        (5, _) => decision(clock, &format!("d{key}"), &[]),
                        _ => learning(clock, &format!("k{key}"), &format!("v{clock}")),
                    };
                    out.push(r);
                }
                out
            },
        )
    }

    /// The live state (checkpoint history aside: compaction keeps only the open one).
    fn everything(s: &State) -> Vec<Vec<String>> {
        let mut out: Vec<Vec<String>> = [&s.decisions, &s.learnings, &s.instincts]
            .iter()
            .map(|v| v.iter().map(|r| r.to_line()).collect())
            .collect();
        out.push(
            s.open_checkpoint()
                .map(|r| r.to_line())
                .into_iter()
                .collect(),
        );
        out
    }

    proptest! {
        #[test]
        fn compaction_keeps_the_fold(records in arb_history()) {
            let kept = kept(&records);
            prop_assert!(kept.len() <= records.len());
            prop_assert_eq!(everything(&fold(&records)), everything(&fold(&kept)));
            // Compacting again changes nothing.
            prop_assert_eq!(kept.len(), super::kept(&kept).len());
        }

        #[test]
        fn fold_is_order_independent_and_idempotent(records in arb_records(), seed in any::<u64>()) {
            let base = ids(&fold(&records));
            let mut shuffled = records.clone();
            // Deterministic shuffle from the seed.
            let mut x = seed | 1;
            for i in (1..shuffled.len()).rev() {
                x ^= x << 13; x ^= x >> 7; x ^= x << 17;
                shuffled.swap(i, (x % (i as u64 + 1)) as usize);
            }
            prop_assert_eq!(&base, &ids(&fold(&shuffled)));
            let doubled: Vec<&Record> = records.iter().chain(records.iter()).collect();
            prop_assert_eq!(&base, &ids(&fold(doubled)));
        }
    }
}
