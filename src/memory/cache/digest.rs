//! `load`'s digest of memory (`memory::load::digest`), cached per pair of memory trees in
//! `<common-dir>/rune/cache/digest/`. Writers that fold the new trees anyway (the view refresh
//! after a write) store it, so the next `load` reads a few hundred records instead of all of
//! them; a missing, damaged or older file is made again from the whole fold.

use super::key;
use crate::cache::Cache;
use crate::drift::Watched;
use crate::memory::load::digest::{Digest, MIN_CAP};
use crate::memory::load::Totals;
use crate::memory::{Snapshot, Tips};
use crate::model::lines::{Lines, Records};
use crate::model::State;
use crate::store::{Store, Tip};
#[cfg(test)]
pub use testing::{encoded, round_trip};

/// A digest as its file holds it: the cap it was cut for, the totals, the renumbered task
/// ids, its lists ([`Digest::lists`]) as stored record lines, then what drift watches.
type Stored = (usize, Totals, Vec<String>, Vec<Records>, Vec<Watched>);

/// Bumped whenever what a digest keeps, or its stored form, changes; 16 digests kept.
/// Version 2: drift's records naming files as [`Watched`], not whole records.
const DIGESTS: Cache<Stored> = Cache::new("digest", 2, 16, Some("digest"));

/// The stored form of `digest`, borrowing it.
fn stored(digest: &Digest) -> impl serde::Serialize + '_ {
    let mut renumbered: Vec<&String> = digest.state.renumbered.iter().collect();
    renumbered.sort();
    let lists: Vec<Lines<'_>> = digest.lists().into_iter().map(|l| Lines(l)).collect();
    (
        digest.cap,
        digest.totals,
        renumbered,
        lists,
        &digest.watched,
    )
}

fn from_stored((cap, totals, renumbered, lists, watched): Stored) -> Option<Digest> {
    let mut digest = Digest {
        state: State {
            renumbered: renumbered.into_iter().collect(),
            ..State::default()
        },
        watched,
        totals,
        cap,
    };
    let mut slots = digest.lists_mut();
    if lists.len() != slots.len() {
        return None;
    }
    for (slot, list) in slots.iter_mut().zip(lists) {
        **slot = list.0;
    }
    Some(digest)
}

/// The cached digest of the two trees, if one was stored and reads back whole.
pub fn read(store: &Store, memory: Option<Tip>, branch: Option<Tip>) -> Option<Digest> {
    from_stored(DIGESTS.get(store.common_dir(), &key(memory, branch))?)
}

/// The digest of two memory trees of the session-state ref `branch_ref`: cached, or made
/// from their whole fold (and cached).
pub fn digest(store: &Store, t: &Tips) -> crate::store::Result<Digest> {
    if let Some(d) = read(store, t.memory, t.branch) {
        return Ok(d);
    }
    let snap = Snapshot::at_tips(store, t.clone())?;
    Ok(self::store(store, t.memory, t.branch, &snap.state, MIN_CAP))
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
    DIGESTS.put(store.common_dir(), &key(memory, branch), &stored(digest));
}

/// Stores the digest of a snapshot just folded, unless one is stored already.
pub fn remember(store: &Store, snap: &Snapshot) {
    if !DIGESTS.has(store.common_dir(), &key(snap.memory_tip, snap.branch_tip)) {
        self::store(
            store,
            snap.memory_tip,
            snap.branch_tip,
            &snap.state,
            MIN_CAP,
        );
    }
}

#[cfg(test)]
mod testing {
    use super::*;

    /// The bytes a digest is stored as (tests compare digests by them).
    pub fn encoded(digest: &Digest) -> Vec<u8> {
        postcard::to_stdvec(&stored(digest)).unwrap()
    }

    /// A digest stored and read back.
    pub fn round_trip(digest: &Digest) -> Option<Digest> {
        from_stored(postcard::from_bytes(&encoded(digest)).ok()?)
    }
}
