//! Merging one memory ref with what a remote has: the union of the two record sets. The
//! merged tree is a pure function of the union (the tree layout is), so clones that hold the
//! same records hold the same tree, whatever order they synced in. Records written elsewhere
//! are admitted by the seal's rules first; a refused one is reported and left out, the rest
//! merges.

use std::collections::BTreeMap;

use crate::memory::seal::Sealer;
use crate::model::Record;
use crate::store::{commit_message, ObjectId, Store, StoreError, Tip};

/// How a ref came out of a merge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Both sides hold the same commit.
    UpToDate,
    /// The remote has nothing this clone lacks (this clone is ahead: the push brings it).
    Ahead,
    /// The ref moved to the remote's commit (this clone had nothing the remote lacks).
    FastForward,
    /// A merge commit joins both sides.
    Merged,
}

/// What merging one ref did.
#[derive(Debug, Clone)]
pub struct RefMerge {
    pub name: String,
    pub outcome: Outcome,
    /// Records that came in, by kind.
    pub incoming: BTreeMap<&'static str, usize>,
    /// Records the remote had that were refused, with why.
    pub refused: Vec<(String, String)>,
}

/// Merges `theirs` (a commit the remote's ref points at, fetched) into the local ref `name`,
/// compare-and-swap: when a local write moves the ref meanwhile, the merge is made again.
pub fn merge_ref(
    store: &Store,
    name: &str,
    theirs: ObjectId,
    remote: &str,
) -> anyhow::Result<RefMerge> {
    let sealer = Sealer::default();
    loop {
        match merge_once(store, &sealer, name, theirs, remote) {
            Err(e) if is_moved(&e) => continue,
            other => return other,
        }
    }
}

fn is_moved(e: &anyhow::Error) -> bool {
    matches!(
        e.downcast_ref::<StoreError>(),
        Some(StoreError::Contended { attempts: 1, .. })
    )
}

fn merge_once(
    store: &Store,
    sealer: &Sealer,
    name: &str,
    theirs: ObjectId,
    remote: &str,
) -> anyhow::Result<RefMerge> {
    let mut out = RefMerge {
        name: name.to_owned(),
        outcome: Outcome::UpToDate,
        incoming: BTreeMap::new(),
        refused: Vec::new(),
    };
    let ours = store.tip(name)?;
    let their_tip = store.tip_of(name, theirs)?;
    if ours.map(|t| t.commit) == Some(theirs) {
        return Ok(out);
    }
    // Where the two stand: `behind` counts commits only we have, `ahead` only they have.
    let (only_theirs, only_ours) = match ours {
        Some(o) => {
            let ab = store.ahead_behind(o.commit, theirs)?;
            (ab.ahead, ab.behind)
        }
        None => (1, 0),
    };
    if only_theirs == 0 {
        out.outcome = Outcome::Ahead;
        return Ok(out);
    }
    // The records they have and we lack, each admitted by the seal's rules.
    let kinds = crate::model::Kind::ALL;
    let new = store.records_added_trees(name, ours.map(|t| t.tree), their_tip.tree, &kinds)?;
    let mut admitted: Vec<Record> = Vec::with_capacity(new.len());
    for r in new {
        match sealer.admit(&r) {
            Ok(()) => {
                *out.incoming.entry(r.kind().as_str()).or_default() += 1;
                admitted.push(r);
            }
            Err(e) => out.refused.push((r.id.clone(), e.to_string())),
        }
    }
    let clean = out.refused.is_empty();
    if only_ours == 0 && clean {
        // Nothing of ours is missing there and everything of theirs is admitted.
        store.fast_forward(
            name,
            ours.map(|t| t.commit),
            theirs,
            &format!("sync from {remote}"),
        )?;
        out.outcome = Outcome::FastForward;
        return Ok(out);
    }
    let tree = store.tree_with(ours.map(|t| t.tree), &admitted)?;
    let clock = clock_of(store, name, ours)?.max(clock_of(store, name, Some(their_tip))?);
    let mut parents: Vec<ObjectId> = ours.map(|t| t.commit).into_iter().collect();
    if only_ours == 0 {
        // They are ahead but sent something refused: build on theirs without it.
        parents.clear();
    }
    parents.push(theirs);
    let message = commit_message(
        &format!("merge memory from {remote}"),
        admitted.len(),
        clock,
    );
    store.land_commit(name, ours.map(|t| t.commit), tree, &parents, &message)?;
    out.outcome = Outcome::Merged;
    Ok(out)
}

fn clock_of(store: &Store, name: &str, tip: Option<Tip>) -> anyhow::Result<u64> {
    Ok(match tip {
        Some(t) => store.clock_at(name, t)?,
        None => 0,
    })
}
