//! Keeping memory history bounded (`git rune gc`): a memory ref's history is replaced by one
//! root commit holding what its fold still uses (`model::fold::kept`: every live record and
//! every tombstone), marked `Rune-Compacted: <the tip it replaces>`. A sync then publishes it
//! with a lease on the remote's value, and other clones move their unsynced records onto it
//! (sync/merge.rs); the old history is never pushed back.

use crate::model::fold::kept;
use crate::store::{commit_message, ObjectId, Store, StoreError, Tip};

/// The trailer of a compacted root: the tip whose history it replaces.
pub const COMPACTED: &str = "Rune-Compacted";

/// What compacting one ref did.
#[derive(Debug, Clone)]
pub struct Compaction {
    pub name: String,
    pub records_before: usize,
    pub records_after: usize,
    pub commits_before: usize,
}

/// Compacts the history of memory ref `name`; `None` when there is nothing to compact (no
/// ref, or one root commit that already holds only what it must).
pub fn compact(store: &Store, name: &str) -> anyhow::Result<Option<Compaction>> {
    loop {
        let Some(tip) = store.tip(name)? else {
            return Ok(None);
        };
        let all = store.tip_records(name, tip)?;
        let keep = kept(&all);
        let commits_before = store.commits_reachable(tip.commit)?;
        if commits_before == 1 && keep.len() == all.len() {
            return Ok(None);
        }
        let tree = store.tree_with(None, &keep)?;
        let clock = store.clock_at(name, tip)?;
        let mut message = commit_message("compact memory history", keep.len(), clock);
        message.push_str(&format!("{COMPACTED}: {}\n", tip.commit));
        match store.land_commit(name, Some(tip.commit), tree, &[], &message) {
            Ok(_) => {
                return Ok(Some(Compaction {
                    name: name.to_owned(),
                    records_before: all.len(),
                    records_after: keep.len(),
                    commits_before,
                }))
            }
            // Written to meanwhile: compact what is there now.
            Err(StoreError::Contended { attempts: 1, .. }) => continue,
            Err(e) => return Err(e.into()),
        }
    }
}

/// The tip a compacted history replaced, if the history of `tip` starts at a compacted root
/// (following first parents, which a merge keeps on the local side).
pub fn compacted_from(store: &Store, tip: Tip) -> anyhow::Result<Option<ObjectId>> {
    let mut next = Some(tip.commit);
    let mut root = None;
    while let Some(id) = next {
        let info = store.commit_info(id)?;
        next = info.first_parent;
        root = Some(info);
    }
    Ok(root.and_then(|r| {
        r.message
            .lines()
            .find_map(|l| l.strip_prefix(COMPACTED)?.strip_prefix(": "))
            .and_then(|v| ObjectId::from_hex(v.trim().as_bytes()).ok())
    }))
}
