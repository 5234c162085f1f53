//! The deterministic fold of a record set into the current memory state; no I/O.
//!
//! The fold depends only on the *set* of records, never on the order they arrived in, which
//! is what lets clones merge by set union and still agree. The rule for every field is
//! written down in docs/storage.md.

use std::collections::{HashMap, HashSet};

use super::record::{Body, Kind, Record};
use crate::model::kinds::{
    Checkpoint, ContextBlock, Delete, Document, Echo, Instinct, Learning, Oracle, Resolve, Task,
};

/// Instincts kept in the state; the lowest-confidence ones beyond this are evicted.
pub const MAX_INSTINCTS: usize = 20;

/// The folded state: live records per kind, each list in chronological order.
#[derive(Debug, Default, Clone)]
pub struct State {
    pub decisions: Vec<Record>,
    pub conventions: Vec<Record>,
    /// Latest winner per `key`+`type`.
    pub learnings: Vec<Record>,
    /// One per name (newest content, highest confidence), at most [`MAX_INSTINCTS`].
    pub instincts: Vec<Record>,
    pub cumulative_notes: Vec<Record>,
    pub invariants: Vec<Record>,
    pub progress: Vec<Record>,
    /// Every live checkpoint; `open_checkpoint` indexes the one that is open.
    pub checkpoints: Vec<Record>,
    pub resolved: HashSet<String>,
    pub sessions: Vec<Record>,
    pub task_notes: Vec<Record>,
    /// One per task `uid` (its newest version), ordered by number; each body's `num` is the
    /// number the task shows (see [`number_tasks`]).
    pub tasks: Vec<Record>,
    /// Record ids of tasks the fold renumbered (a number claimed twice): the next task write
    /// records the new number.
    pub renumbered: HashSet<String>,
    /// One per title (the newest), chronological.
    pub context_blocks: Vec<Record>,
    /// Oracle dispatches: one per `session_id` (see [`oracle_wins`]), by `dispatched_at`
    /// then session id.
    pub oracles: Vec<Record>,
    /// Echoes: one per `uid` (see [`super::echo::echo_wins`]), archived ones and knowledge
    /// blocks included, by role, heading date, layer, title, then uid.
    pub echoes: Vec<Record>,
    /// Every reference to an echo (a union), chronological.
    pub echo_refs: Vec<Record>,
    /// Documents: one per `path` (the newest by clock, then time, then id), by path.
    pub documents: Vec<Record>,
    /// Not folded from this repository: the user-level memory's promoted instincts, which
    /// `load` reads in (`memory::user`) to show as their own section. Empty otherwise.
    pub global_instincts: Vec<Record>,
}

impl State {
    /// The newest unresolved checkpoint (by logical clock, then id).
    pub fn open_checkpoint(&self) -> Option<&Record> {
        self.checkpoints
            .iter()
            .filter(|r| !self.resolved.contains(&r.id))
            .max_by(|a, b| (a.meta.clock, &a.id).cmp(&(b.meta.clock, &b.id)))
    }

    /// The live records of one kind, chronological.
    pub fn of_kind(&self, kind: Kind) -> &[Record] {
        match kind {
            Kind::Decision => &self.decisions,
            Kind::Convention => &self.conventions,
            Kind::Learning => &self.learnings,
            Kind::Instinct => &self.instincts,
            Kind::CumulativeNote => &self.cumulative_notes,
            Kind::Invariant => &self.invariants,
            Kind::Progress => &self.progress,
            Kind::Checkpoint => &self.checkpoints,
            Kind::Session => &self.sessions,
            Kind::TaskNote => &self.task_notes,
            Kind::Task => &self.tasks,
            Kind::ContextBlock => &self.context_blocks,
            Kind::Oracle => &self.oracles,
            Kind::Echo => &self.echoes,
            Kind::EchoRef => &self.echo_refs,
            Kind::Document => &self.documents,
            Kind::Resolve | Kind::Delete => &[],
        }
    }

    /// The live records of one kind, to narrow down (a filtered view of memory); `None` for
    /// `Resolve` and `Delete`, which fold into the others.
    pub fn of_kind_mut(&mut self, kind: Kind) -> Option<&mut Vec<Record>> {
        Some(match kind {
            Kind::Decision => &mut self.decisions,
            Kind::Convention => &mut self.conventions,
            Kind::Learning => &mut self.learnings,
            Kind::Instinct => &mut self.instincts,
            Kind::CumulativeNote => &mut self.cumulative_notes,
            Kind::Invariant => &mut self.invariants,
            Kind::Progress => &mut self.progress,
            Kind::Checkpoint => &mut self.checkpoints,
            Kind::Session => &mut self.sessions,
            Kind::TaskNote => &mut self.task_notes,
            Kind::Task => &mut self.tasks,
            Kind::ContextBlock => &mut self.context_blocks,
            Kind::Oracle => &mut self.oracles,
            Kind::Echo => &mut self.echoes,
            Kind::EchoRef => &mut self.echo_refs,
            Kind::Document => &mut self.documents,
            Kind::Resolve | Kind::Delete => return None,
        })
    }

    /// The newest session record (the last save).
    pub fn last_session(&self) -> Option<&Record> {
        self.sessions.last()
    }
}

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

/// Applies each kind's rule to the live records.
fn fold_live(live: Vec<&Record>, mut state: State) -> State {
    let mut learning_winner: HashMap<(&str, &str), &Record> = HashMap::new();
    let mut instinct_groups: HashMap<&str, Vec<&Record>> = HashMap::new();
    let mut task_winner: HashMap<&str, &Record> = HashMap::new();
    let mut block_winner: HashMap<&str, &Record> = HashMap::new();
    let mut oracle_winner: HashMap<&str, &Record> = HashMap::new();
    let mut echo_winner: HashMap<&str, &Record> = HashMap::new();
    let mut document_winner: HashMap<&str, &Record> = HashMap::new();
    for r in &live {
        match &r.body {
            // The latest writer per path.
            Body::Document(Document { path, .. }) => {
                let slot = document_winner.entry(path).or_insert(r);
                if (r.meta.clock, &r.meta.ts, &r.id) > (slot.meta.clock, &slot.meta.ts, &slot.id) {
                    *slot = r;
                }
            }
            Body::Echo(Echo { uid, .. }) => {
                let slot = echo_winner.entry(uid).or_insert(r);
                if super::echo::echo_wins(r, slot) {
                    *slot = r;
                }
            }
            Body::Oracle(Oracle { session_id, .. }) => {
                let slot = oracle_winner.entry(session_id).or_insert(r);
                if oracle_wins(r, slot) {
                    *slot = r;
                }
            }
            // Concurrent edits of one task (or block): the newest by clock, then time, then id.
            Body::Task(Task { uid, .. }) => {
                let slot = task_winner.entry(uid).or_insert(r);
                if (r.meta.clock, &r.meta.ts, &r.id) > (slot.meta.clock, &slot.meta.ts, &slot.id) {
                    *slot = r;
                }
            }
            Body::ContextBlock(ContextBlock { title, .. }) => {
                let slot = block_winner.entry(title).or_insert(r);
                if (r.meta.clock, &r.meta.ts, &r.id) > (slot.meta.clock, &slot.meta.ts, &slot.id) {
                    *slot = r;
                }
            }
            Body::Learning(Learning { ltype, key, .. }) => {
                let slot = learning_winner
                    .entry((ltype.as_str(), key.as_str()))
                    .or_insert(r);
                // The seed's rule: the newest `ts` wins; the Lamport clock, then the id, break
                // ties (docs/storage.md says what a clock-skewed clone can do).
                if (&r.meta.ts, r.meta.clock, &r.id) > (&slot.meta.ts, slot.meta.clock, &slot.id) {
                    *slot = r;
                }
            }
            Body::Instinct(Instinct { name, .. }) => {
                instinct_groups.entry(name).or_default().push(r)
            }
            _ => {}
        }
    }

    for r in &live {
        let list = match r.kind() {
            Kind::Decision => &mut state.decisions,
            Kind::Convention => &mut state.conventions,
            Kind::CumulativeNote => &mut state.cumulative_notes,
            Kind::Invariant => &mut state.invariants,
            Kind::Progress => &mut state.progress,
            Kind::Checkpoint => &mut state.checkpoints,
            Kind::Session => &mut state.sessions,
            Kind::TaskNote => &mut state.task_notes,
            Kind::EchoRef => &mut state.echo_refs,
            Kind::Learning
            | Kind::Instinct
            | Kind::Task
            | Kind::ContextBlock
            | Kind::Oracle
            | Kind::Echo
            | Kind::Document
            | Kind::Resolve
            | Kind::Delete => continue,
        };
        list.push((*r).clone());
    }

    // Sorted as references, then copied: moving whole records is most of a sort's cost.
    let mut learnings: Vec<&Record> = learning_winner.into_values().collect();
    learnings.sort_by(|a, b| a.order_key().cmp(&b.order_key()));
    state.learnings = learnings.into_iter().cloned().collect();

    state.instincts = merge_instincts(instinct_groups);
    let mut documents: Vec<&Record> = document_winner.into_values().collect();
    documents.sort_by(|a, b| a.body.title().cmp(b.body.title()));
    state.documents = documents.into_iter().cloned().collect();
    let (tasks, renumbered) = number_tasks(task_winner.into_values().collect());
    state.tasks = tasks;
    state.renumbered = renumbered;
    let mut blocks: Vec<&Record> = block_winner.into_values().collect();
    blocks.sort_by(|a, b| a.order_key().cmp(&b.order_key()));
    state.context_blocks = blocks.into_iter().cloned().collect();
    // In dispatch order, which status changes do not move.
    let mut oracles: Vec<(&str, &str, &Record)> = oracle_winner
        .into_iter()
        .map(|(id, r)| match &r.body {
            Body::Oracle(Oracle { dispatched_at, .. }) => (dispatched_at.as_str(), id, r),
            _ => ("", id, r),
        })
        .collect();
    oracles.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    let oracles: Vec<&Record> = oracles.into_iter().map(|(_, _, r)| r).collect();
    state.oracles = oracles.into_iter().cloned().collect();
    let mut echoes: Vec<&Record> = echo_winner.into_values().collect();
    echoes.sort_by(|a, b| echo_order(a).cmp(&echo_order(b)));
    state.echoes = echoes.into_iter().cloned().collect();
    state
}

/// The order echoes are listed and rendered in: by role, heading date, layer (etched,
/// inscribed, traced: the seed's own order), title, then uid.
fn echo_order(r: &Record) -> (&str, &str, usize, &str, &str) {
    match &r.body {
        Body::Echo(Echo {
            role,
            date,
            layer,
            title,
            uid,
            ..
        }) => {
            let rank = super::echo::LAYERS
                .iter()
                .position(|l| l == layer)
                .unwrap_or(3);
            (role, date, rank, title, uid)
        }
        _ => ("", "", 0, "", &r.id),
    }
}

/// Whether oracle record `a` beats `b` for one session id (two clones changed it
/// concurrently, both superseding the same record): the status with the higher precedence
/// (consumed > complete > failed > orphaned > pending), then the higher Lamport clock, then
/// the greater id. Depends only on the two records, so every clone picks the same one.
pub fn oracle_wins(a: &Record, b: &Record) -> bool {
    let key = |r: &Record| {
        let p = match &r.body {
            Body::Oracle(Oracle { status, .. }) => super::oracle::precedence(status),
            _ => 0,
        };
        (p, r.meta.clock, r.id.clone())
    };
    key(a) > key(b)
}

/// The numbers tasks show. Each task keeps the number it claimed unless an earlier claim
/// (`claimed`, then `uid`) holds it: then (a number claimed twice, by two clones or two
/// processes) the later claimants, in claim order, take the numbers after the highest one
/// kept, and their old number becomes an alias. Depends only on the set of tasks.
pub fn number_tasks(mut tasks: Vec<&Record>) -> (Vec<Record>, HashSet<String>) {
    let claim = |r: &Record| match &r.body {
        Body::Task(Task {
            claimed, uid, num, ..
        }) => (claimed.clone(), uid.clone(), *num),
        _ => (String::new(), String::new(), 0),
    };
    tasks.sort_by_key(|r| claim(r));
    let mut taken: HashSet<u32> = HashSet::new();
    let mut losers = Vec::new();
    let mut out: Vec<Record> = Vec::with_capacity(tasks.len());
    for r in tasks {
        let (_, _, num) = claim(r);
        if num > 0 && taken.insert(num) {
            out.push(r.clone());
        } else {
            losers.push(r);
        }
    }
    let mut next = taken.iter().max().copied().unwrap_or(0);
    let mut renumbered = HashSet::new();
    for r in losers {
        next += 1;
        let mut moved = r.clone();
        if let Body::Task(Task { num, aliases, .. }) = &mut moved.body {
            if *num > 0 {
                let old = super::task::task_id(*num);
                if !aliases.contains(&old) {
                    aliases.push(old);
                }
            }
            *num = next;
        }
        renumbered.insert(moved.id.clone());
        out.push(moved);
    }
    out.sort_by_key(|r| match r.body {
        Body::Task(Task { num, .. }) => num,
        _ => 0,
    });
    (out, renumbered)
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
    let mut keep: HashSet<&str> = [
        &state.decisions,
        &state.conventions,
        &state.learnings,
        &state.cumulative_notes,
        &state.task_notes,
        &state.invariants,
        &state.progress,
        &state.sessions,
        &state.tasks,
        &state.context_blocks,
        &state.oracles,
        &state.echoes,
        &state.echo_refs,
    ]
    .iter()
    .flat_map(|l| l.iter().map(|r| r.id.as_str()))
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
        })
        .cloned()
        .collect()
}

/// Where each record of `records` stands in `state` (their fold): `live`; `edited` (a later
/// record supersedes it); `deleted` (a tombstone removed it); `outvoted` (a learning another
/// record of its type and key won over, as when two clones edited it); `merged` (an instinct
/// folded into another copy of its name, or evicted past the cap). Checkpoints, which stay in
/// history, are `open`, `resolved` or `superseded`.
pub fn statuses<'a>(records: &'a [Record], state: &State) -> Vec<(&'a Record, &'static str)> {
    let shown: HashSet<&str> = [
        &state.decisions,
        &state.conventions,
        &state.learnings,
        &state.instincts,
        &state.cumulative_notes,
        &state.task_notes,
        &state.invariants,
        &state.progress,
        &state.sessions,
        &state.tasks,
        &state.context_blocks,
        &state.oracles,
        &state.echoes,
        &state.echo_refs,
    ]
    .iter()
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
                _ if shown.contains(id) => "live",
                Body::Instinct(Instinct { .. }) if live.contains(id) => "merged",
                Body::Learning(Learning { .. })
                | Body::Task(Task { .. })
                | Body::ContextBlock(ContextBlock { .. })
                | Body::Oracle(Oracle { .. })
                | Body::Echo(Echo { .. })
                    if live.contains(id) =>
                {
                    "outvoted"
                }
                _ if superseded.contains(id) => "edited",
                _ => "deleted",
            };
            (r, status)
        })
        .collect()
}

/// Per instinct name: newest content wins, confidence is the highest any live copy has;
/// then the [`MAX_INSTINCTS`] most confident survive.
fn merge_instincts(groups: HashMap<&str, Vec<&Record>>) -> Vec<Record> {
    let mut merged: Vec<Record> = groups
        .into_values()
        .filter_map(|group| {
            let newest = group
                .iter()
                .max_by(|a, b| (a.meta.clock, &a.id).cmp(&(b.meta.clock, &b.id)))?;
            let best = group
                .iter()
                .filter_map(|r| match r.body {
                    Body::Instinct(Instinct { confidence, .. }) => Some(confidence),
                    _ => None,
                })
                .fold(f64::MIN, f64::max);
            let mut out = (*newest).clone();
            if let Body::Instinct(Instinct { confidence, .. }) = &mut out.body {
                *confidence = best;
            }
            Some(out)
        })
        .collect();
    merged.sort_by(|a, b| {
        instinct_confidence(b)
            .total_cmp(&instinct_confidence(a))
            .then_with(|| b.meta.clock.cmp(&a.meta.clock))
            .then_with(|| a.id.cmp(&b.id))
    });
    merged.truncate(MAX_INSTINCTS);
    merged.sort_by(|a, b| a.order_key().cmp(&b.order_key()));
    merged
}

pub fn instinct_confidence(r: &Record) -> f64 {
    match r.body {
        Body::Instinct(Instinct { confidence, .. }) => confidence,
        _ => 0.0,
    }
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
