//! A memory ref's first-parent chain, cached, so that the questions a commit note asks of
//! memory's history cost a look at an array instead of a walk over every memory commit: the
//! newest commit made at or before a time ([`Store::tip_before`]) and how many records the
//! commits after one of them added ([`Store::count_added`], from their `Rune-Records`
//! trailers). Both walk the chain themselves while the answer is near the tip, which is the
//! per-commit case; only past [`WALK_MAX`] commits (the first commit off an old parent, with
//! thousands of memory commits since) do they read the chain here.
//!
//! The cache is one of the local caches (`crate::cache`): `<common-dir>/rune/cache/chain/<XXH3-64
//! of the ref name>`, the chain root first, each commit as its id, its time and the records
//! its trailer says it adds (when it says). It stays in `store/`, beside the walks it saves,
//! as it holds git's history rather than memory's records.
//!
//! A commit's parents and message are part of its id, so an entry never goes stale: the chain
//! of a commit the file holds is the file up to it; of a descendant of its last commit, the
//! file plus the commits walked since; of anything else (a history `git rune gc` rewrote),
//! the commits walked down to the root, which replace the file. A file that does not read
//! back whole is walked afresh.

use std::path::Path;

use gix::ObjectId;

use super::objects::ReadObjects as _;
use super::{git_err, Result, Store};
use crate::cache::Cache;

/// How many commits a question walks from the tip before it takes the cached chain.
pub(super) const WALK_MAX: usize = 64;

/// A chain as its file holds it, root first: (commit id, time, records added).
type Stored = Vec<(Vec<u8>, i64, Option<u64>)>;

/// One file per memory ref (the refs of 64 branches).
const CHAINS: Cache<Stored> = Cache::new("chain", 1, 64, Some("chain"));

/// The summary of the one writer whose `Rune-Records` does not count what its commit adds to
/// its first parent: a sync that builds on the remote's tip after refusing some of its records
/// (sync/merge.rs) writes our records plus the admitted ones on top of theirs.
const REBUILT_MERGE: &str = "merge memory from ";

/// One commit of the chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Link {
    pub id: ObjectId,
    pub time: i64,
    /// The records the commit adds to its first parent (a root: holds), when its message
    /// says exactly.
    pub added: Option<u64>,
    /// Its first parent.
    pub parent: Option<ObjectId>,
}

impl Store {
    /// The commit `id` of memory ref `name` as a link of its chain.
    pub(super) fn link(&self, name: &str, id: ObjectId) -> Result<Link> {
        let commit = self
            .repo
            .read_commit(id)
            .map_err(git_err(format!("cannot read memory commit {id} on {name}")))?;
        let mut parents = commit.parent_ids().map(|p| p.detach());
        let parent = parents.next();
        let single = parents.next().is_none();
        let message = commit.message_raw_sloppy();
        let message = String::from_utf8_lossy(message.as_ref());
        let rebuilt = single && parent.is_some() && message.starts_with(REBUILT_MERGE);
        Ok(Link {
            id,
            time: commit.time().map(|t| t.seconds).unwrap_or(0),
            added: (!rebuilt)
                .then(|| records_trailer(&message))
                .flatten()
                .map(|n| n as u64),
            parent,
        })
    }

    /// The first-parent chain of commit `tip` of memory ref `name`, root first, from the
    /// cache where it holds it (kept up to date on the way).
    pub(super) fn chain(&self, name: &str, tip: ObjectId) -> Result<Vec<Link>> {
        let common_dir = self.repo.common_dir();
        let mut cached = read(common_dir, name, tip.as_bytes().len()).unwrap_or_default();
        if let Some(at) = cached.iter().rposition(|l| l.id == tip) {
            cached.truncate(at + 1);
            return Ok(cached);
        }
        let last = cached.last().map(|l| l.id);
        let mut walked = Vec::new();
        let mut next = Some(tip);
        let mut met = false;
        while let Some(id) = next {
            if Some(id) == last {
                met = true;
                break;
            }
            let link = self.link(name, id)?;
            next = link.parent;
            walked.push(link);
        }
        walked.reverse();
        let chain = if met {
            cached.extend(walked);
            cached
        } else {
            walked
        };
        // Only a cache: one that cannot be written is walked again next time.
        let stored: Vec<(&[u8], i64, Option<u64>)> = chain
            .iter()
            .map(|l| (l.id.as_bytes(), l.time, l.added))
            .collect();
        CHAINS.put(common_dir, &key(name), &stored);
        Ok(chain)
    }
}

fn key(name: &str) -> String {
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(name.as_bytes()))
}

fn read(common_dir: &Path, name: &str, id_len: usize) -> Option<Vec<Link>> {
    let stored = CHAINS.get(common_dir, &key(name))?;
    let mut out: Vec<Link> = Vec::with_capacity(stored.len());
    for (id, time, added) in stored {
        if id.len() != id_len {
            return None;
        }
        out.push(Link {
            id: ObjectId::try_from(&id[..]).ok()?,
            time,
            added,
            parent: out.last().map(|l| l.id),
        });
    }
    Some(out)
}

/// The count in a memory commit's `Rune-Records: N records` trailer.
fn records_trailer(message: &str) -> Option<usize> {
    message
        .lines()
        .find_map(|l| l.strip_prefix("Rune-Records: "))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

#[cfg(test)]
mod tests {
    use crate::model::testing::learning;
    use crate::store::{commit_message, ObjectId, Store, MEMORY_REF};

    /// Commits one learning on the memory ref on top of `parent`.
    fn add(store: &Store, parent: Option<ObjectId>, i: u64) -> ObjectId {
        let parent_tree = parent.map(|p| store.tip_of(MEMORY_REF, p).unwrap().tree);
        let tree = store
            .tree_with(
                MEMORY_REF,
                parent_tree,
                &[learning(i, &format!("k{i}"), "x")],
            )
            .unwrap();
        let parents: Vec<ObjectId> = parent.into_iter().collect();
        store
            .land_commit(
                MEMORY_REF,
                store.ref_id(MEMORY_REF).unwrap(),
                tree,
                &parents,
                &commit_message("add", 1, i),
            )
            .unwrap()
    }

    /// The cached chain is the walked one: made, extended as the ref moves, cut at an older
    /// commit, and walked afresh for a history that does not continue it (or a damaged file).
    #[test]
    fn the_cached_chain_is_the_walked_chain() {
        let (_dir, store) = crate::store::scratch();
        let walk = |tip| {
            let mut out = Vec::new();
            let mut next = Some(tip);
            while let Some(id) = next {
                let link = store.link(MEMORY_REF, id).unwrap();
                next = link.parent;
                out.push(link);
            }
            out.reverse();
            out
        };
        let mut tips: Vec<ObjectId> = Vec::new();
        for i in 0..5u64 {
            let id = add(&store, tips.last().copied(), i);
            tips.push(id);
            assert_eq!(store.chain(MEMORY_REF, id).unwrap(), walk(id));
        }
        assert_eq!(store.chain(MEMORY_REF, tips[1]).unwrap(), walk(tips[1]));
        assert!(walk(tips[4]).iter().all(|l| l.added == Some(1)));
        // A history that does not continue the cached one (a rewrite): walked afresh.
        let other = add(&store, Some(tips[1]), 9);
        let rewritten = add(&store, Some(other), 10);
        assert_eq!(store.chain(MEMORY_REF, rewritten).unwrap(), walk(rewritten));
        assert_eq!(store.chain(MEMORY_REF, tips[4]).unwrap(), walk(tips[4]));
        // A file cut short reads as none.
        let path = store
            .repo
            .common_dir()
            .join("rune/cache/chain")
            .join(super::key(MEMORY_REF));
        let data = std::fs::read(&path).unwrap();
        std::fs::write(&path, &data[..data.len() - 5]).unwrap();
        assert_eq!(store.chain(MEMORY_REF, tips[3]).unwrap(), walk(tips[3]));
    }
}
