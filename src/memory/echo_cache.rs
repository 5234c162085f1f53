//! The folded echoes of memory (seed 002: the live entries and the references that score
//! them), cached per pair of memory trees in `<common-dir>/rune/echoes/`, the way
//! `digest_cache` caches `load`'s digest: a tree id names its records exactly, so the echoes
//! folded once for a pair serve every later `echo search`, `echo show` and `load --role` of
//! it, and need no invalidation. Writers that fold the new trees anyway (re-rendering the
//! echoes directory after a write) store them. Local, never committed; a missing, damaged or
//! older file is made again from the whole fold.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::digest_cache::{key, prune};
use super::Snapshot;
use crate::files::write_atomic;
use crate::model::{named_lines, State};
use crate::store::{branch_ref, HeadInfo, Store, Tip, MEMORY_REF};

/// Bumped whenever what the file keeps, or its text form, changes.
const VERSION: u32 = 1;

#[derive(Serialize, Deserialize)]
struct Header {
    version: u32,
    key: String,
}

/// Echo caches (and search indexes) kept: fewer than digests, as each is megabytes at
/// 10,000 echoes; the ones a reader needs are the current trees' and the last few.
pub(super) const KEEP: usize = 4;

fn dir(store: &Store) -> PathBuf {
    store.common_dir().join("rune").join("echoes")
}

/// The text form: a header line (JSON), one `echo|ref <stored record line>` per record, in
/// the fold's order, and `end <records>` (a file cut short is no cache).
fn encode(state: &State, key: &str) -> String {
    let header = Header {
        version: VERSION,
        key: key.to_owned(),
    };
    named_lines::encode(
        &serde_json::to_string(&header).unwrap_or_default(),
        [
            ("echo", state.echoes.as_slice()),
            ("ref", state.echo_refs.as_slice()),
        ],
    )
}

/// A state holding only the echoes and references of `text`, if it is whole and for `key`.
fn decode(text: &str, key: &str) -> Option<State> {
    named_lines::decode(
        text,
        |header| {
            let header: Header = serde_json::from_str(header).ok()?;
            (header.version == VERSION && header.key == key).then(State::default)
        },
        |state, name, record| {
            match name {
                "echo" => state.echoes.push(record),
                "ref" => state.echo_refs.push(record),
                _ => return None,
            }
            Some(())
        },
    )
}

/// The cached echoes of the two trees, if they were stored and read back whole.
pub fn read(store: &Store, memory: Option<Tip>, branch: Option<Tip>) -> Option<State> {
    let key = key(memory, branch);
    let text = std::fs::read_to_string(dir(store).join(&key)).ok()?;
    decode(&text, &key)
}

/// The echoes of two memory trees of the session-state ref `branch_ref` (a state holding
/// only `echoes` and `echo_refs`, as the whole fold has them): cached, or folded (and cached).
pub fn echoes(
    store: &Store,
    head: &HeadInfo,
    branch_ref: &str,
    memory: Option<Tip>,
    branch: Option<Tip>,
) -> crate::store::Result<State> {
    if let Some(s) = read(store, memory, branch) {
        return Ok(s);
    }
    let snap = Snapshot::at_tips(store, head.clone(), branch_ref.to_owned(), memory, branch)?;
    self::store(store, memory, branch, &snap.state);
    Ok(only_echoes(snap.state))
}

/// The echoes of memory now (`echo search`, `echo show`).
pub fn current(store: &Store) -> crate::store::Result<State> {
    let head = store.head_info()?;
    let branch_ref = branch_ref(head.branch.as_deref());
    let memory = store.tip(MEMORY_REF)?;
    let branch = store.tip(&branch_ref)?;
    echoes(store, &head, &branch_ref, memory, branch)
}

/// Stores the echoes of `state` (the whole fold of the two trees). A cache that cannot be
/// written only costs the next read a full fold.
pub fn store(store: &Store, memory: Option<Tip>, branch: Option<Tip>, state: &State) {
    let key = key(memory, branch);
    let dir = dir(store);
    if std::fs::create_dir_all(&dir).is_ok()
        && write_atomic(&dir.join(&key), encode(state, &key).as_bytes()).is_ok()
    {
        prune(&dir, KEEP);
    }
}

/// Stores the echoes of a snapshot just folded, unless they are stored already (callers use
/// `echo_index::remember`, which stores the search index of them too).
pub(super) fn remember(store: &Store, snap: &Snapshot) {
    let key = key(snap.memory_tip, snap.branch_tip);
    if !dir(store).join(key).exists() {
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
    fn text_form_round_trips_and_refuses_damage() {
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
        let key = key(snap.memory_tip, snap.branch_tip);
        let text = encode(&snap.state, &key);
        let back = decode(&text, &key).unwrap();
        assert_eq!(back.echoes, snap.state.echoes);
        assert_eq!(back.echo_refs, snap.state.echo_refs);
        assert!(decode(&text, "other-key").is_none());
        assert!(decode(&text[..text.len() - 8], &key).is_none());
        assert!(decode(&text.replace("echo ", "oops "), &key).is_none());
        // The write's view refresh stored it; without it, cached on first read, and read
        // back from the file after.
        assert!(read(&store, snap.memory_tip, snap.branch_tip).is_some());
        std::fs::remove_dir_all(dir(&store)).unwrap();
        assert!(read(&store, snap.memory_tip, snap.branch_tip).is_none());
        let folded = current(&store).unwrap();
        assert_eq!(folded.echoes, snap.state.echoes);
        let cached = read(&store, snap.memory_tip, snap.branch_tip).unwrap();
        assert_eq!(cached.echoes, snap.state.echoes);
    }
}
