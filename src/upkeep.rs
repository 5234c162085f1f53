//! The writes a session start makes, as one named step: memory a plain `git fetch` brought is
//! merged, stale weak instincts are pruned and oracle dispatches pending for over a day are
//! marked orphaned (seed 000). SessionStart, the MCP server and `git rune load` run it before
//! they read, and say what it wrote; every other read writes nothing (docs/storage.md,
//! "Which commands write"). A part that fails is reported, never fatal.

use crate::memory::record::{orphan_oracles, prune_instincts};
use crate::store::Store;
use crate::sync::merge::{Outcome, RefMerge};
use crate::sync::{merge_fetched, SyncReport};

/// What the upkeep did.
#[derive(Default)]
pub struct Upkeep {
    /// Memory merged from each remote a plain `git fetch` brought it from.
    pub merged: Vec<SyncReport>,
    /// Stale weak instincts pruned (a recorded delete: history keeps them).
    pub pruned: usize,
    /// Oracle dispatches marked orphaned.
    pub orphaned: usize,
    /// Memory commits written, over all parts.
    pub commits: usize,
    /// Parts that failed, each as one line that says what was not done and why.
    pub failures: Vec<String>,
    /// What the merge refused or held back (a teammate's record holding a secret), one line
    /// each, naming the record, never its text.
    pub warnings: Vec<String>,
}

impl Upkeep {
    /// One line saying what was written, and one per failure; `None` when it wrote nothing
    /// and nothing failed (the MCP server appends it to `memory_load`'s answer).
    pub fn summary(&self) -> Option<String> {
        let mut parts = Vec::new();
        for r in &self.merged {
            let n = r.incoming().values().sum::<usize>();
            if n > 0 {
                parts.push(format!("merged {n} record(s) fetched from {}", r.remote));
            }
        }
        if self.pruned > 0 {
            parts.push(format!("pruned {} stale instinct(s)", self.pruned));
        }
        if self.orphaned > 0 {
            parts.push(format!(
                "marked {} stale oracle dispatch(es) orphaned",
                self.orphaned
            ));
        }
        let mut out = String::new();
        if !parts.is_empty() {
            out.push_str(&format!(
                "(session-start upkeep: {}; {} memory commit(s))\n",
                parts.join(", "),
                self.commits
            ));
        }
        for f in self.failures.iter().chain(&self.warnings) {
            out.push_str(&format!("(session-start upkeep: {f})\n"));
        }
        (!out.is_empty()).then_some(out)
    }
}

/// Every part, in order: the merge first, so pruning and orphaning see teammates' records.
pub fn session_start(store: &Store) -> Upkeep {
    let mut up = merge(store);
    // Memory that cannot be read is reported by the read that follows: one line, not two.
    let Ok(state) = crate::read::state_now(store) else {
        return up;
    };
    let now = store.now();
    match prune_instincts(store, &state, &now) {
        Ok(Some((_, n))) => {
            up.pruned = n;
            up.commits += 1;
        }
        Ok(None) => {}
        Err(e) => up
            .failures
            .push(format!("stale instincts were not pruned: {e:#}")),
    }
    // Pruning wrote to refs/rune/memory; the dispatches are on the branch's ref, which it did
    // not move, so the state read above still holds them.
    match orphan_oracles(store, &state, &now) {
        Ok(Some((_, n))) => {
            up.orphaned = n;
            up.commits += 1;
        }
        Ok(None) => {}
        Err(e) => up.failures.push(format!(
            "stale oracle dispatches were not marked orphaned: {e:#}"
        )),
    }
    up
}

/// Only the merge of fetched memory (what every command does as it opens the repository).
pub fn merge(store: &Store) -> Upkeep {
    let mut up = Upkeep::default();
    match merge_fetched(store) {
        Ok(reports) => {
            // Every outcome but these wrote a commit.
            let wrote = |m: &&RefMerge| !matches!(m.outcome, Outcome::UpToDate | Outcome::Ahead);
            up.commits += reports.iter().flat_map(|r| &r.refs).filter(wrote).count();
            up.warnings = reports.iter().flat_map(SyncReport::warnings).collect();
            up.merged = reports;
        }
        Err(e) => up.failures.push(format!(
            "memory fetched from a remote was not merged: {e:#} (run `git rune sync`)"
        )),
    }
    up
}
