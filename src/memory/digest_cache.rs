//! `load`'s digest of memory (`memory::load::digest`), cached per pair of memory trees in
//! `<common-dir>/rune/digest/`: a tree id names its records exactly, so a digest made once
//! for a pair serves every later read of it, by any process and worktree, and needs no
//! invalidation. Writers that fold the new trees anyway (the view refresh after a write)
//! store it, so the next `load` reads a few hundred records instead of all of them. Local,
//! never committed; a missing, damaged or older file is made again from the whole fold.

use std::path::PathBuf;

use super::load::digest::{Digest, MIN_CAP};
use super::Snapshot;
use crate::files::write_atomic;
use crate::model::State;
use crate::store::{HeadInfo, Store, Tip};

/// Digests kept; the oldest beyond this are removed when one is written.
const KEEP: usize = 16;

/// The cache key of a memory tree and a session-state tree (either may be absent).
pub fn key(memory: Option<Tip>, branch: Option<Tip>) -> String {
    let tree = |t: Option<Tip>| t.map(|t| t.tree.to_string()).unwrap_or_else(|| "-".into());
    format!("{}-{}", tree(memory), tree(branch))
}

fn dir(store: &Store) -> PathBuf {
    store.common_dir().join("rune").join("digest")
}

/// The cached digest of the two trees, if one was stored and reads back whole.
pub fn read(store: &Store, memory: Option<Tip>, branch: Option<Tip>) -> Option<Digest> {
    let key = key(memory, branch);
    let text = std::fs::read_to_string(dir(store).join(&key)).ok()?;
    Digest::decode(&text, &key)
}

/// The digest of two memory trees of the session-state ref `branch_ref`: cached, or made
/// from their whole fold (and cached).
pub fn digest(
    store: &Store,
    head: &HeadInfo,
    branch_ref: &str,
    memory: Option<Tip>,
    branch: Option<Tip>,
) -> crate::store::Result<Digest> {
    if let Some(d) = read(store, memory, branch) {
        return Ok(d);
    }
    let snap = Snapshot::at_tips(store, head.clone(), branch_ref.to_owned(), memory, branch)?;
    Ok(self::store(store, memory, branch, &snap.state, MIN_CAP))
}

/// Makes the digest of `state` (the whole fold of the two trees) for briefings of `cap`
/// characters (at least [`MIN_CAP`]) and stores it. A cache that cannot be written only
/// costs the next read a full fold.
pub fn store(
    store: &Store,
    memory: Option<Tip>,
    branch: Option<Tip>,
    state: &State,
    cap: usize,
) -> Digest {
    let digest = Digest::of(state, cap.max(MIN_CAP));
    put(store, memory, branch, &digest);
    digest
}

/// The digest of two trees made by other means (grown from another pair's digest), stored.
pub fn put(store: &Store, memory: Option<Tip>, branch: Option<Tip>, digest: &Digest) {
    let key = key(memory, branch);
    let dir = dir(store);
    if std::fs::create_dir_all(&dir).is_ok()
        && write_atomic(&dir.join(&key), digest.encode(&key).as_bytes()).is_ok()
    {
        prune(&dir, KEEP);
    }
}

/// Stores the digest of a snapshot just folded, unless one is stored already.
pub fn remember(store: &Store, snap: &Snapshot) {
    let key = key(snap.memory_tip, snap.branch_tip);
    if !dir(store).join(key).exists() {
        self::store(
            store,
            snap.memory_tip,
            snap.branch_tip,
            &snap.state,
            MIN_CAP,
        );
    }
}

/// Removes all but the `keep` newest files of a cache folder (and temporary files a killed
/// writer left).
pub(super) fn prune(dir: &std::path::Path, keep: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let now = std::time::SystemTime::now();
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = Vec::new();
    for e in entries.flatten() {
        let Some(modified) = e.metadata().ok().and_then(|m| m.modified().ok()) else {
            continue;
        };
        if e.file_name().to_string_lossy().starts_with('.') {
            // Another writer's temporary file, unless it is old enough to be a killed one's.
            if now
                .duration_since(modified)
                .is_ok_and(|age| age.as_secs() > 600)
            {
                let _ = std::fs::remove_file(e.path());
            }
            continue;
        }
        files.push((modified, e.path()));
    }
    if files.len() <= keep {
        return;
    }
    files.sort_by_key(|f| std::cmp::Reverse(f.0));
    for (_, path) in files.into_iter().skip(keep) {
        let _ = std::fs::remove_file(path);
    }
}
