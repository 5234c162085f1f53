//! Merging one memory ref with what a remote has: the union of the two record sets. The
//! merged tree is a pure function of the union (the tree layout is), so clones that hold the
//! same records hold the same tree, whatever order they synced in. Records written elsewhere
//! are admitted by the seal's rules first; a refused one is reported and left out, the rest
//! merges. A history that holds a record refused as a secret never becomes a parent of a
//! local commit: its records come in as a commit on this clone's own history, so no local ref
//! keeps the secret reachable (and nothing is pushed to that ref until the remote's history
//! is clean: a push would have to build on it).

use std::collections::BTreeMap;

use super::gc::compacted_from;
use crate::memory::seal::{SealError, Sealer};
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
    /// The remote compacted its history: this clone's records it lacks were moved onto it.
    Rebased,
    /// This clone compacted its history: what the remote had that it lacked was added, and
    /// the push replaces the remote's history (with a lease on it).
    Replaces,
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
    /// Whether one of them was refused as a secret: the remote's history was not merged (only
    /// its admitted records were), and this ref is not pushed to the remote.
    pub secret: bool,
    /// The remote value the push may replace (`--force-with-lease`): set only when this
    /// clone's compacted history replaces the history it compacted.
    pub lease: Option<ObjectId>,
}

impl RefMerge {
    /// Whether this ref must not be pushed: the remote's history holds a secret, which a push
    /// would have to build on (a compacted history of ours replaces it instead).
    pub fn push_held(&self) -> bool {
        self.secret && self.outcome != Outcome::Replaces
    }
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
        secret: false,
        lease: None,
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
    // Histories that share no commit, one of them compacted: records move onto the
    // compacted side, and the other history is dropped (never merged, never pushed back).
    if let Some(our_tip) = ours.filter(|_| only_ours > 0) {
        if store.commits_reachable(theirs)? == only_theirs {
            if compacted_from(store, their_tip)?.is_some() {
                return onto_compacted(store, sealer, name, our_tip, their_tip, remote, out);
            }
            if compacted_from(store, our_tip)?.is_some() {
                return keep_compacted(store, sealer, name, our_tip, their_tip, remote, out);
            }
        }
    }
    // The records they have and we lack, each admitted by the seal's rules.
    let kinds = crate::model::Kind::ALL;
    let new = store.records_added_trees(name, ours.map(|t| t.tree), their_tip.tree, kinds)?;
    let admitted = admit(sealer, new, &mut out);
    if out.secret {
        return without_their_history(store, name, ours, their_tip, admitted, remote, out);
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

/// The records of `new` the seal admits, counted in `out`; the others are reported there.
fn admit(sealer: &Sealer, new: Vec<Record>, out: &mut RefMerge) -> Vec<Record> {
    let mut admitted = Vec::with_capacity(new.len());
    for r in new {
        match sealer.admit(&r) {
            Ok(()) => {
                *out.incoming.entry(r.kind().as_str()).or_default() += 1;
                admitted.push(r);
            }
            Err(e) => {
                out.secret |= matches!(e, SealError::Secret { .. });
                out.refused.push((r.id.clone(), e.to_string()));
            }
        }
    }
    admitted
}

/// Their history holds a secret: the records admitted from it are added on top of ours (a
/// root commit when this clone had none), with no parent from their side; nothing is written
/// when ours already holds them all.
fn without_their_history(
    store: &Store,
    name: &str,
    ours: Option<Tip>,
    theirs: Tip,
    admitted: Vec<Record>,
    remote: &str,
    mut out: RefMerge,
) -> anyhow::Result<RefMerge> {
    let tree = store.tree_with(ours.map(|t| t.tree), &admitted)?;
    if ours.is_some_and(|t| t.tree == tree) {
        out.incoming.clear();
        return Ok(out);
    }
    let clock = clock_of(store, name, ours)?.max(clock_of(store, name, Some(theirs))?);
    let message = commit_message(
        &format!("merge memory from {remote} (its records only: its history holds a secret)"),
        admitted.len(),
        clock,
    );
    let parents: Vec<ObjectId> = ours.map(|t| t.commit).into_iter().collect();
    store.land_commit(name, ours.map(|t| t.commit), tree, &parents, &message)?;
    out.outcome = Outcome::Merged;
    Ok(out)
}

/// They compacted: our records they lack (those our fold still uses, and tombstones) go onto
/// their history; ours is left behind. Their records we lack are admitted first: a secret
/// among them keeps their history out (see [`without_their_history`]).
fn onto_compacted(
    store: &Store,
    sealer: &Sealer,
    name: &str,
    ours: Tip,
    theirs: Tip,
    remote: &str,
    mut out: RefMerge,
) -> anyhow::Result<RefMerge> {
    let kinds = crate::model::Kind::ALL;
    let new = store.records_added_trees(name, Some(ours.tree), theirs.tree, kinds)?;
    let admitted = admit(sealer, new, &mut out);
    if out.secret {
        return without_their_history(store, name, Some(ours), theirs, admitted, remote, out);
    }
    let extras = still_used(store, name, theirs, ours)?;
    if extras.is_empty() {
        store.fast_forward(
            name,
            Some(ours.commit),
            theirs.commit,
            &format!("sync from {remote} (compacted)"),
        )?;
    } else {
        let tree = store.tree_with(Some(theirs.tree), &extras)?;
        let clock = clock_of(store, name, Some(ours))?.max(clock_of(store, name, Some(theirs))?);
        let message = commit_message(
            &format!("move unsynced memory onto the compacted history of {remote}"),
            extras.len(),
            clock,
        );
        store.land_commit(name, Some(ours.commit), tree, &[theirs.commit], &message)?;
    }
    out.outcome = Outcome::Rebased;
    Ok(out)
}

/// We compacted: their records we lack (those their fold still uses, admitted) go onto our
/// history, and the push may replace theirs.
fn keep_compacted(
    store: &Store,
    sealer: &Sealer,
    name: &str,
    ours: Tip,
    theirs: Tip,
    remote: &str,
    mut out: RefMerge,
) -> anyhow::Result<RefMerge> {
    let admitted = admit(sealer, still_used(store, name, ours, theirs)?, &mut out);
    if !admitted.is_empty() {
        let tree = store.tree_with(Some(ours.tree), &admitted)?;
        let clock = clock_of(store, name, Some(ours))?.max(clock_of(store, name, Some(theirs))?);
        let message = commit_message(
            &format!("add memory from {remote} to the compacted history"),
            admitted.len(),
            clock,
        );
        store.land_commit(name, Some(ours.commit), tree, &[ours.commit], &message)?;
    }
    out.outcome = Outcome::Replaces;
    out.lease = Some(theirs.commit);
    Ok(out)
}

/// The records of `from` that `onto` lacks and that `from`'s fold still uses (or tombstones):
/// what survives a move onto a compacted history.
fn still_used(store: &Store, name: &str, onto: Tip, from: Tip) -> anyhow::Result<Vec<Record>> {
    let used: std::collections::HashSet<String> =
        crate::model::fold::kept(&store.tip_records(name, from)?)
            .into_iter()
            .map(|r| r.id)
            .collect();
    let kinds = crate::model::Kind::ALL;
    Ok(store
        .records_added_trees(name, Some(onto.tree), from.tree, kinds)?
        .into_iter()
        .filter(|r| used.contains(&r.id))
        .collect())
}

fn clock_of(store: &Store, name: &str, tip: Option<Tip>) -> anyhow::Result<u64> {
    Ok(match tip {
        Some(t) => store.clock_at(name, t)?,
        None => 0,
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;

    use crate::model::testing::{decision, learning};
    use crate::model::Record;
    use crate::store::{ObjectId, Store};

    /// A scratch repository for trees (objects stay in memory: nothing is flushed).
    fn store() -> (tempfile::TempDir, Store) {
        crate::store::scratch()
    }

    /// What a merge writes: `ours` plus what `theirs` holds that `ours` lacks.
    fn merged(store: &Store, ours: &[Record], theirs: &[Record]) -> (ObjectId, Vec<Record>) {
        let base = store.tree_with(None, ours).unwrap();
        let mine: std::collections::HashSet<&str> = ours.iter().map(|r| r.id.as_str()).collect();
        let new: Vec<Record> = theirs
            .iter()
            .filter(|r| !mine.contains(r.id.as_str()))
            .cloned()
            .collect();
        let tree = store.tree_with(Some(base), &new).unwrap();
        let mut all: BTreeMap<String, Record> = BTreeMap::new();
        for r in ours.iter().chain(&new) {
            all.insert(r.id.clone(), r.clone());
        }
        (tree, all.into_values().collect())
    }

    fn arb_set() -> impl Strategy<Value = Vec<Record>> {
        proptest::collection::vec((0u64..40, 0usize..6, any::<bool>()), 0..30).prop_map(|specs| {
            specs
                .into_iter()
                .map(|(clock, key, is_decision)| {
                    if is_decision {
                        decision(clock, &format!("d{key}"), &[])
                    } else {
                        learning(clock, &format!("k{key}"), &format!("v{clock}"))
                    }
                })
                .collect()
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// The merged tree is a function of the union: merging is commutative, associative
        /// and idempotent, so clones converge whatever order they sync in.
        #[test]
        fn merge_is_commutative_associative_and_idempotent(
            a in arb_set(), b in arb_set(), c in arb_set()
        ) {
            let (_dir, store) = store();
            let (ab, ab_set) = merged(&store, &a, &b);
            let (ba, _) = merged(&store, &b, &a);
            prop_assert_eq!(ab, ba);
            let (ab_c, _) = merged(&store, &ab_set, &c);
            let (_, bc_set) = merged(&store, &b, &c);
            let (a_bc, _) = merged(&store, &a, &bc_set);
            prop_assert_eq!(ab_c, a_bc);
            let (aa, _) = merged(&store, &a, &a);
            prop_assert_eq!(aa, store.tree_with(None, &a).unwrap());
            let (ab_ab, _) = merged(&store, &ab_set, &ab_set);
            prop_assert_eq!(ab_ab, ab);
        }
    }

    /// Across the layout threshold (one blob per kind up to 1,024 records, shards beyond),
    /// the merged tree is still the union's.
    #[test]
    fn merges_across_the_shard_threshold_agree() {
        let (_dir, store) = store();
        let a: Vec<Record> = (0..900)
            .map(|i| learning(i, &format!("a{i}"), "x"))
            .collect();
        let b: Vec<Record> = (0..300)
            .map(|i| learning(i, &format!("b{i}"), "y"))
            .collect();
        let (ab, all) = merged(&store, &a, &b);
        let (ba, _) = merged(&store, &b, &a);
        assert_eq!(ab, ba);
        assert_eq!(ab, store.tree_with(None, &all).unwrap());
    }
}
