//! What `load` needs of a folded state, and nothing more: the newest decisions, conventions
//! and notes and the most confident learnings (as many as a budget of [`Digest::cap`]
//! characters can show), the records drift checks (those naming files), the small kinds
//! whole, and how many records the big kinds hold. A briefing made from it is the one the
//! whole state gives, or says it is not ([`super::Briefing::complete`]); it is cached per
//! pair of memory trees (`memory::cache::digest`), so `load` at 100,000 learnings reads a few
//! hundred. Pure: state in, digest out.

use std::collections::HashSet;

use super::lines::{convention_line, decision_line, learning_line, note_line};
use super::sections::{learning_rank, shown_note};
use super::Totals;
use crate::drift::Watched;
use crate::integrity::gate;
use crate::model::kinds::{Convention, Decision, Learning};
use crate::model::{Body, Record, State};

/// The characters of load output a digest is made for at least: twice the default budget
/// (2,000 tokens, 4 characters each).
pub const MIN_CAP: usize = 16_000;

/// The part of a folded state `load` reads.
#[derive(Debug, Clone)]
pub struct Digest {
    /// Every list a subsequence of the whole state's, in its order: the big kinds cut to
    /// what a briefing of `cap` characters shows first, the newest progress record and
    /// session, the open checkpoint (and no `resolved` ids), every other kind whole.
    pub state: State,
    /// What drift watches of the decisions and learnings that name files, in the state's
    /// order: decisions first.
    pub watched: Vec<Watched>,
    pub totals: Totals,
    /// The budget (in characters) the cut is made for.
    pub cap: usize,
}

impl Digest {
    /// The digest of a whole folded state, for briefings of up to `cap` characters.
    pub fn of(state: &State, cap: usize) -> Digest {
        let newest = |list: &[Record], line: fn(&Record) -> String| -> Vec<Record> {
            let keep = first(list.iter().rev(), line, cap);
            let mut out: Vec<Record> = list[list.len() - keep.len()..].to_vec();
            out.shrink_to_fit();
            out
        };
        let marked = |list: &[Record], keep: &[bool]| -> Vec<Record> {
            let pairs = list.iter().zip(keep).filter(|(_, k)| **k);
            pairs.map(|(r, _)| r.clone()).collect()
        };
        let top = best_learnings(&state.learnings, cap);
        let shown_notes: Vec<usize> = (0..state.cumulative_notes.len())
            .filter(|&i| shown_note(&state.cumulative_notes[i]))
            .collect();
        let kept = first(
            shown_notes
                .iter()
                .rev()
                .map(|&i| &state.cumulative_notes[i]),
            note_line,
            cap,
        )
        .len();
        let mut kept_notes = vec![false; state.cumulative_notes.len()];
        for &i in &shown_notes[shown_notes.len() - kept..] {
            kept_notes[i] = true;
        }
        let watched = state
            .decisions
            .iter()
            .chain(&state.learnings)
            .filter_map(Watched::of)
            .collect();
        let digest = State {
            decisions: newest(&state.decisions, decision_line),
            conventions: newest(&state.conventions, convention_line),
            learnings: marked(&state.learnings, &top),
            instincts: state.instincts.clone(),
            cumulative_notes: marked(&state.cumulative_notes, &kept_notes),
            invariants: state.invariants.clone(),
            progress: state.progress.last().cloned().into_iter().collect(),
            checkpoints: state.open_checkpoint().cloned().into_iter().collect(),
            resolved: HashSet::new(),
            sessions: state.last_session().cloned().into_iter().collect(),
            task_notes: newest(&state.task_notes, note_line),
            tasks: state.tasks.clone(),
            renumbered: state.renumbered.clone(),
            context_blocks: state.context_blocks.clone(),
            oracles: state.oracles.clone(),
            // Echoes are not part of the default briefing; `load --role` reads them itself.
            echoes: Vec::new(),
            echo_refs: Vec::new(),
            // Documents are shown in the view, not in the briefing.
            documents: Vec::new(),
            // Read from the user-level memory by every load, never cached with this tree.
            global_instincts: Vec::new(),
        };
        Digest {
            state: digest,
            watched,
            totals: Totals::of(state),
            cap,
        }
    }

    /// The digest of the state this one was made from with `added` joined to their kinds'
    /// lists: plain records of the kinds a view file shows as a list, each after every
    /// record of its kind (learnings anywhere), a learning in a group of its own or taking
    /// its group's place (what `memory::cache::view_index::ViewIndex::admit` checks; a learning its
    /// group's newer winner keeps out is not passed), or of a kind no digest keeps. Exact:
    /// each cut keeps a prefix of its list's ranking (newest first, or best first for
    /// learnings, a ranking that does not depend on place), and a record joining that ranking
    /// can only take places, never give any back, so the cut of the whole grown state is the
    /// cut of this digest's lists grown.
    ///
    /// A learning of `added` at a position in `replacing` takes the place of its group's
    /// winner. That is exact when the winner it replaces is not among the learnings this
    /// digest keeps (the cut, a prefix of the best first, loses nothing it holds, so it needs
    /// nothing it lacks), or when the digest keeps every learning: `None` otherwise.
    pub fn appended(&self, added: &[Record], replacing: &[usize]) -> Option<Digest> {
        let group = |r: &Record| match &r.body {
            Body::Learning(Learning { ltype, key, .. }) => Some((*ltype, key.clone())),
            _ => None,
        };
        let replaced: Vec<_> = replacing.iter().filter_map(|&i| group(&added[i])).collect();
        let is_replaced = |r: &Record| group(r).is_some_and(|g| replaced.contains(&g));
        let mut state = self.state.clone();
        if state.learnings.iter().any(is_replaced) {
            // Exact only when this digest keeps every learning (nothing was cut).
            if state.learnings.len() != self.totals.learnings {
                return None;
            }
            state.learnings.retain(|r| !is_replaced(r));
        }
        let mut totals = self.totals;
        totals.learnings -= replaced.len();
        let (mut decisions, mut learnings): (Vec<Watched>, Vec<Watched>) = self
            .watched
            .iter()
            .filter(|w| {
                w.group()
                    .is_none_or(|(t, k)| !replaced.iter().any(|(rt, rk)| *rt == t && rk == k))
            })
            .cloned()
            .partition(Watched::is_decision);
        for r in added {
            match &r.body {
                Body::Decision(Decision { .. }) => totals.decisions += 1,
                Body::Learning(Learning { .. }) => totals.learnings += 1,
                Body::Convention(Convention { .. }) => totals.conventions += 1,
                _ => {}
            }
            match Watched::of(r) {
                Some(w) if w.is_decision() => decisions.push(w),
                Some(w) => learnings.push(w),
                None => {}
            }
            if let Some(list) = state.of_kind_mut(r.kind()) {
                list.push(r.clone());
            }
        }
        // A learning placed by time joins its list (and the watched list) where its order
        // key puts it; the lists were sorted, so these sorts find runs.
        state
            .learnings
            .sort_by(|a, b| a.order_key().cmp(&b.order_key()));
        learnings.sort_by(|a, b| a.order_key().cmp(&b.order_key()));
        let mut digest = Digest::of(&state, self.cap);
        // Echoes are not kept (see `of`).
        digest.totals = totals;
        decisions.extend(learnings);
        digest.watched = decisions;
        Some(digest)
    }

    /// Every list of records the digest keeps, in one order (the cache stores them so).
    pub fn lists(&self) -> [&Vec<Record>; 13] {
        let s = &self.state;
        [
            &s.decisions,
            &s.conventions,
            &s.learnings,
            &s.instincts,
            &s.cumulative_notes,
            &s.invariants,
            &s.progress,
            &s.checkpoints,
            &s.sessions,
            &s.task_notes,
            &s.tasks,
            &s.context_blocks,
            &s.oracles,
        ]
    }

    /// [`Digest::lists`], to fill.
    pub fn lists_mut(&mut self) -> [&mut Vec<Record>; 13] {
        let s = &mut self.state;
        [
            &mut s.decisions,
            &mut s.conventions,
            &mut s.learnings,
            &mut s.instincts,
            &mut s.cumulative_notes,
            &mut s.invariants,
            &mut s.progress,
            &mut s.checkpoints,
            &mut s.sessions,
            &mut s.task_notes,
            &mut s.tasks,
            &mut s.context_blocks,
            &mut s.oracles,
        ]
    }
}

/// The first records of `order` a briefing of `cap` characters could show: until their
/// lines (the gate's withheld ones cost nothing) pass `cap`. A line's cost is estimated
/// without its marks; a briefing that needs more than the digest holds says so.
fn first<'a>(
    order: impl Iterator<Item = &'a Record>,
    line: fn(&Record) -> String,
    cap: usize,
) -> Vec<&'a Record> {
    let mut spent = 0;
    let mut out = Vec::new();
    for r in order {
        if spent > cap {
            break;
        }
        out.push(r);
        if !gate::withheld(r) {
            spent += line(r).len() + 1;
        }
    }
    out
}

/// Which learnings (by position) a briefing of `cap` characters could show, in `load`'s
/// order: the best [`SELECT`] are picked in linear time and sorted, the rest only when
/// those do not fill `cap` (a sort of 100,000 learnings is most of a digest's cost).
fn best_learnings(learnings: &[Record], cap: usize) -> Vec<bool> {
    let mut order: Vec<usize> = (0..learnings.len()).collect();
    let rank = |a: &usize, b: &usize| learning_rank(&learnings[*a], &learnings[*b]);
    let mut sorted = order.len();
    if order.len() > SELECT {
        order.select_nth_unstable_by(SELECT, rank);
        sorted = SELECT;
    }
    order[..sorted].sort_by(rank);
    let mut kept = first(
        order[..sorted].iter().map(|&i| &learnings[i]),
        learning_line,
        cap,
    )
    .len();
    if kept == sorted && sorted < order.len() {
        // Not filled by the best ones: rank them all.
        order.sort_by(rank);
        kept = first(order.iter().map(|&i| &learnings[i]), learning_line, cap).len();
    }
    let mut keep = vec![false; learnings.len()];
    for &i in &order[..kept] {
        keep[i] = true;
    }
    keep
}

/// How many of the best learnings [`best_learnings`] sorts before it sorts them all.
const SELECT: usize = 2_000;

#[cfg(test)]
mod tests {
    use crate::model::kinds::{CumulativeNote, Delete};
    use std::collections::BTreeMap;

    use super::super::{brief, Briefing, LoadPolicy};
    use super::*;
    use crate::drift::Drift;
    use crate::memory::cache::digest::encoded;
    use crate::model::testing::{decision, learning, meta, record_at};
    use crate::model::{fold, Body, LearningType, Record};
    use crate::store::HeadInfo;

    const NOW: &str = "2026-03-01T00:00:00Z";

    /// A record whose id no longer matches its content: the gate withholds it.
    fn tampered(mut r: Record) -> Record {
        r.id = format!("{:0>64}", r.id.len() + r.meta.clock as usize);
        r
    }

    fn learning_with(clock: u64, key: &str, confidence: f64, files: bool) -> Record {
        let mut blobs = BTreeMap::new();
        if files {
            blobs.insert(format!("src/{key}.rs"), "0".repeat(40));
        }
        Record::new(
            meta(clock, &[]),
            Body::Learning(Learning {
                skill: "s".into(),
                ltype: LearningType::Insight,
                key: key.into(),
                insight: format!("insight {clock} about {key}, long enough to cost a little"),
                confidence,
                files: Vec::new(),
                file_blobs: blobs,
                extra: Vec::new(),
            }),
        )
    }

    fn note(clock: u64, section: &str) -> Record {
        let mut r = record_at(
            "2026-01-02T00:00:00Z",
            Body::CumulativeNote(CumulativeNote {
                section: section.into(),
                text: format!("note {clock}"),
            }),
        );
        r.meta.clock = clock;
        Record::new(r.meta, r.body)
    }

    /// One clone's records: learnings re-recorded under the same keys (latest wins),
    /// deleted and edited ones, withheld ones, decisions, some naming files, notes.
    fn clone_records(seed: u64, n: u64) -> Vec<Record> {
        let mut out = Vec::new();
        for i in 0..n {
            let clock = seed * 100_000 + i + 1;
            let key = format!("k{}", (i * 7 + seed) % (n / 2 + 1));
            let confidence = ((i * 13 + seed) % 10) as f64 / 10.0;
            let r = learning_with(clock, &key, confidence, i % 97 == 0);
            out.push(if i % 41 == 0 { tampered(r) } else { r });
            if i % 3 == 0 {
                let d = decision(clock, &format!("decision {seed}-{i}"), &[]);
                if i % 9 == 0 {
                    let edit =
                        decision(clock + 1, &format!("decision {seed}-{i} edited"), &[&d.id]);
                    out.push(edit);
                }
                out.push(d);
            }
            if i % 5 == 0 {
                out.push(note(
                    clock,
                    if i % 10 == 0 {
                        "Resolved"
                    } else {
                        "Active Topics"
                    },
                ));
            }
            if i % 50 == 0 {
                let victim = out[out.len() / 2].id.clone();
                out.push(Record::new(
                    meta(clock + 2, &[]),
                    Body::Delete(Delete {
                        targets: vec![victim],
                    }),
                ));
            }
        }
        out
    }

    fn head() -> HeadInfo {
        HeadInfo {
            branch: Some("main".into()),
            head: None,
            upstream: None,
        }
    }

    /// Everything a reader of a briefing sees: the text, and per section the items and
    /// counts the JSON form is made from.
    fn seen(b: &Briefing<'_>) -> String {
        let mut out = b.text();
        for s in &b.sections {
            out.push_str(&format!(
                "\n{} all={} withheld={}",
                s.key, s.all, s.withheld
            ));
            for (text, item) in &s.items {
                let id = match item {
                    crate::memory::load::Item::Record {
                        record,
                        stale,
                        suspicious,
                    } => {
                        format!("{} {stale:?} {suspicious:?}", record.id)
                    }
                    other => format!("{other:?}").chars().take(40).collect(),
                };
                out.push_str(&format!("\n  {text} | {id}"));
            }
        }
        out.push_str(&format!(
            "\n{:?} {} {:?}",
            b.omitted(),
            b.withheld,
            b.totals
        ));
        out
    }

    fn check(state: &State) {
        let drift = Drift::default();
        let head = head();
        let full_totals = Totals::of(state);
        let digest = Digest::of(state, MIN_CAP);
        // What the cache holds reads back as it was made.
        let read = crate::memory::cache::digest::round_trip(&digest).expect("round trip");
        for d in [&digest, &read] {
            assert_eq!(d.totals, full_totals);
            for budget in [1, 40, 300, 2000, 4000, 20_000, 1_000_000] {
                for policy in [
                    LoadPolicy::default(),
                    LoadPolicy {
                        trusted: vec!["*@elsewhere".into()],
                        authors: true,
                        ..LoadPolicy::default()
                    },
                ] {
                    let full = brief(&head, state, &full_totals, &drift, NOW, budget, &policy);
                    assert!(full.complete());
                    let cut = brief(&head, &d.state, &d.totals, &drift, NOW, budget, &policy);
                    if budget * 4 <= MIN_CAP {
                        assert!(cut.complete(), "budget {budget} needs the whole fold");
                    }
                    if cut.complete() {
                        assert_eq!(seen(&cut), seen(&full), "budget {budget}");
                    } else {
                        assert!(
                            state.learnings.len() > d.state.learnings.len()
                                || state.decisions.len() > d.state.decisions.len()
                                || full_totals.notes > d.state.cumulative_notes.len()
                        );
                    }
                }
            }
            // Drift reads the same records from either.
            let watched: Vec<Watched> = (state.decisions.iter())
                .chain(&state.learnings)
                .filter_map(Watched::of)
                .collect();
            assert_eq!(d.watched, watched);
            assert_eq!(
                d.state.last_session().map(|r| &r.id),
                state.last_session().map(|r| &r.id)
            );
        }
    }

    #[test]
    fn a_digest_grown_by_a_learning_replacing_its_groups_winner_is_exact_or_none() {
        let base: Vec<Record> = (1..=3000u64)
            .map(|i| learning_with(i, &format!("k{i}"), (i * 7 % 10) as f64 / 10.0, i % 5 == 0))
            .collect();
        let digest = Digest::of(&fold(&base), MIN_CAP);
        let kept: Vec<&Record> = digest.state.learnings.iter().collect();
        let outside = base
            .iter()
            .find(|r| !kept.iter().any(|k| k.id == r.id) && Watched::of(r).is_some())
            .expect("a learning the digest does not keep, naming files");
        let inside = kept[0];
        for (old, exact) in [(outside, true), (inside, false)] {
            let Body::Learning(Learning { key, .. }) = &old.body else {
                unreachable!()
            };
            let added = vec![learning_with(5000, key, 0.1, false)];
            let all: Vec<Record> = base.iter().chain(&added).cloned().collect();
            let grown = digest.appended(&added, &[0]);
            assert_eq!(grown.is_some(), exact, "{key}");
            if let Some(grown) = grown {
                let whole = Digest::of(&fold(&all), MIN_CAP);
                assert_eq!(encoded(&grown), encoded(&whole));
            }
        }
    }

    #[test]
    fn a_digest_grown_by_appended_records_is_the_digest_of_the_grown_state() {
        let base: Vec<Record> = (1..=3000u64)
            .map(|i| match i % 3 {
                0 => crate::model::testing::decision(i, &format!("d{i}"), &[]),
                _ => learning_with(i, &format!("k{i}"), (i * 7 % 10) as f64 / 10.0, i % 5 == 0),
            })
            .collect();
        let digest = Digest::of(&fold(&base), MIN_CAP);
        for added in [
            vec![learning_with(5000, "new", 1.0, true)],
            vec![learning_with(5000, "low", 0.0, false)],
            (5000..5400u64)
                .map(|i| match i % 4 {
                    0 => crate::model::testing::decision(i, &format!("d{i}"), &[]),
                    _ => learning_with(i, &format!("n{i}"), 0.9, i % 3 == 0),
                })
                .collect(),
        ] {
            let all: Vec<Record> = base.iter().chain(&added).cloned().collect();
            let whole = Digest::of(&fold(&all), MIN_CAP);
            assert_eq!(
                encoded(&digest.appended(&added, &[]).unwrap()),
                encoded(&whole)
            );
        }
    }

    #[test]
    fn briefing_from_digest_is_the_full_one() {
        for n in [0, 5, 300, 3000] {
            check(&fold(&clone_records(1, n)));
        }
    }

    #[test]
    fn briefing_from_digest_after_a_merge_is_the_full_one() {
        let a = clone_records(1, 2000);
        let b = clone_records(2, 2000);
        // Both clones also hold some of the same records (fetched earlier).
        let shared: Vec<Record> = a.iter().step_by(3).cloned().collect();
        let merged: Vec<&Record> = a.iter().chain(&b).chain(&shared).collect();
        check(&fold(merged));
    }

    #[test]
    fn best_learnings_picks_the_same_whether_it_sorts_some_or_all() {
        // More learnings than the partial selection sorts, and a cap that needs all of them.
        let records: Vec<Record> = (1..=6000)
            .map(|i| learning_with(i, &format!("k{i}"), (i * 7 % 10) as f64 / 10.0, false))
            .collect();
        let state = fold(&records);
        check(&state);
        let everything = Digest::of(&state, usize::MAX);
        assert_eq!(everything.state.learnings.len(), 6000);
    }

    #[test]
    fn digest_keeps_the_first_of_the_big_kinds_only() {
        let records: Vec<Record> = (1..=5000)
            .map(|i| learning(i, &format!("k{i}"), "i"))
            .collect();
        let state = fold(&records);
        let d = Digest::of(&state, MIN_CAP);
        assert_eq!(d.totals.learnings, 5000);
        assert!(d.state.learnings.len() < 500, "{}", d.state.learnings.len());
    }
}
