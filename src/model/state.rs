//! The folded state of memory: the live records of each kind, as the fold (`fold.rs`) and
//! each kind's rule (`kinds/`) leave them. Pure data.

use std::collections::HashSet;

use super::record::Record;

/// The folded state: live records per kind, each list in chronological order.
#[derive(Debug, Default, Clone)]
pub struct State {
    pub decisions: Vec<Record>,
    pub conventions: Vec<Record>,
    /// Latest winner per `key`+`type`.
    pub learnings: Vec<Record>,
    /// One per name (newest content, highest confidence), at most `kinds::instinct::MAX_INSTINCTS`.
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
    /// number the task shows (see `kinds::task::number_tasks`).
    pub tasks: Vec<Record>,
    /// Record ids of tasks the fold renumbered (a number claimed twice): the next task write
    /// records the new number.
    pub renumbered: HashSet<String>,
    /// One per title (the newest), chronological.
    pub context_blocks: Vec<Record>,
    /// Oracle dispatches: one per `session_id` (see `kinds::oracle::oracle_wins`), by `dispatched_at`
    /// then session id.
    pub oracles: Vec<Record>,
    /// Echoes: one per `uid` (see `kinds::echo::echo_wins`), archived ones and knowledge
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

    /// The newest session record (the last save).
    pub fn last_session(&self) -> Option<&Record> {
        self.sessions.last()
    }
}
