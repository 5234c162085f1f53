//! The folded echoes of memory (seed 002: the live entries and the references that score
//! them), cached per pair of memory trees in `<common-dir>/rune/cache/echoes/`, as `digest`
//! caches `load`'s digest: the echoes folded once for a pair serve every later `echo search`,
//! `echo show` and `load --role` of it. Writers that fold the new trees anyway (re-rendering the
//! echoes directory after a write) store them. Local, never committed; a missing, damaged or
//! older file is made again from the whole fold.

use super::key;
use crate::cache::Cache;
use crate::memory::{Snapshot, Tips};
use crate::model::lines::{Lines, Records};
use crate::model::State;
use crate::store::{Store, Tip};

/// The echoes and the references, as stored record lines in the fold's order. Fewer kept
/// than digests, as each is megabytes at 10,000 echoes; the ones a reader needs are the
/// current trees' and the last few.
const ECHOES: Cache<(Records, Records)> = Cache::new("echoes", 1, 4, Some("echoes"));

/// The cached echoes of the two trees, if they were stored and read back whole.
pub fn read(store: &Store, memory: Option<Tip>, branch: Option<Tip>) -> Option<State> {
    let (echoes, echo_refs) = ECHOES.get(store.common_dir(), &key(memory, branch))?;
    Some(State {
        echoes: echoes.0,
        echo_refs: echo_refs.0,
        ..State::default()
    })
}

/// The echoes of two memory trees of the session-state ref `branch_ref` (a state holding
/// only `echoes` and `echo_refs`, as the whole fold has them): cached, or folded (and cached).
pub fn echoes(store: &Store, t: &Tips) -> crate::store::Result<State> {
    if let Some(s) = read(store, t.memory, t.branch) {
        return Ok(s);
    }
    let snap = Snapshot::at_tips(store, t.clone())?;
    self::store(store, t.memory, t.branch, &snap.state);
    Ok(only_echoes(snap.state))
}

/// The echoes of memory now (`echo search`, `echo show`).
pub fn current(store: &Store) -> crate::store::Result<State> {
    echoes(store, &Tips::now(store)?)
}

/// Stores the echoes of `state` (the whole fold of the two trees). A cache that cannot be
/// written only costs the next read a full fold.
pub fn store(store: &Store, memory: Option<Tip>, branch: Option<Tip>, state: &State) {
    let stored = (Lines(&state.echoes), Lines(&state.echo_refs));
    ECHOES.put(store.common_dir(), &key(memory, branch), &stored);
}

/// Stores the echoes of a snapshot just folded, unless they are stored already (callers use
/// `echo_index::remember`, which stores the search index of them too).
pub(super) fn remember(store: &Store, snap: &Snapshot) {
    if !ECHOES.has(store.common_dir(), &key(snap.memory_tip, snap.branch_tip)) {
        self::store(store, snap.memory_tip, snap.branch_tip, &snap.state);
    }
}

/// Stores the echoes of trees `old` as those of trees `new` (see `echo_index::carry`).
pub(super) fn carry(
    store: &Store,
    old: (Option<Tip>, Option<Tip>),
    new: (Option<Tip>, Option<Tip>),
) {
    if let Some(state) = read(store, old.0, old.1) {
        self::store(store, new.0, new.1, &state);
    }
}

fn only_echoes(state: State) -> State {
    State {
        echoes: state.echoes,
        echo_refs: state.echo_refs,
        ..State::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echoes_are_cached_per_tree_pair() {
        let (_dir, store) = crate::store::scratch();
        let mut sealer = crate::memory::seal::Sealer::new(false);
        let body = crate::model::testing::echo_body(
            "reviewer",
            "Pattern: cache the parsed config",
            "2026-01-01",
            0.8,
        );
        let sealed = sealer.seal_body(body, Vec::new()).unwrap();
        crate::memory::write::append(&store, crate::model::Scope::Memory, "echo", vec![sealed])
            .unwrap();
        let snap = Snapshot::read(&store).unwrap();
        assert_eq!(snap.state.echoes.len(), 1);
        // The write's view refresh stored them; without them, cached on first read, and read
        // back from the file after.
        let cached = read(&store, snap.memory_tip, snap.branch_tip).unwrap();
        assert_eq!(cached.echoes, snap.state.echoes);
        assert_eq!(cached.echo_refs, snap.state.echo_refs);
        let key = key(snap.memory_tip, snap.branch_tip);
        ECHOES.remove(store.common_dir(), &key);
        assert!(read(&store, snap.memory_tip, snap.branch_tip).is_none());
        let folded = current(&store).unwrap();
        assert_eq!(folded.echoes, snap.state.echoes);
        let cached = read(&store, snap.memory_tip, snap.branch_tip).unwrap();
        assert_eq!(cached.echoes, snap.state.echoes);
    }
}
