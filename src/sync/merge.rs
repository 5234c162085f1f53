//! Merging one memory ref with what a remote has: the union of the two record sets. The
//! merged tree is a pure function of the union (the tree layout is), so clones that hold the
//! same records hold the same tree, whatever order they synced in. Records written elsewhere
//! are admitted by the seal's rules first; a refused one is reported and left out, the rest
//! merges, and the remote commit that held it never becomes a parent here (nothing keeps its
//! objects reachable). Two sources: the shared ref older versions write (merged as a branch,
//! so a push fast-forwards it) and the refs each clone publishes (absorbed: their new records,
//! in one commit for all of them).

use std::collections::BTreeMap;

use super::gc::compacted_from;
use super::SyncReport;
use crate::memory::seal::Sealer;
use crate::model::Record;
use crate::store::{commit_message, BadLine, ObjectId, Source, Store, Tip};

/// How a ref came out of a merge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Outcome {
    /// Both sides hold the same commit.
    #[default]
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

impl Outcome {
    /// Keeps the more telling of two outcomes (a merge over "up to date").
    pub(super) fn moved(&mut self, o: Outcome) {
        if matches!(self, Outcome::UpToDate | Outcome::Ahead) {
            *self = o;
        }
    }
}

/// What merging one ref did.
#[derive(Debug, Clone, Default)]
pub struct RefMerge {
    pub name: String,
    pub outcome: Outcome,
    /// Records that came in, by kind.
    pub incoming: BTreeMap<&'static str, usize>,
    /// Records the remote had that were refused, with why.
    pub refused: Vec<(String, String)>,
    /// The remote value the push may replace (`--force-with-lease`): set only when this
    /// clone's compacted history replaces the history it compacted.
    pub lease: Option<ObjectId>,
}

impl RefMerge {
    pub fn new(name: &str) -> RefMerge {
        RefMerge {
            name: name.to_owned(),
            ..RefMerge::default()
        }
    }
}

/// Admits the records a remote sent, counting those that came in and refusing the others
/// after its `bad` lines; whether anything was refused.
fn admit(
    sealer: &Sealer,
    src: &Source,
    bad: &[BadLine],
    records: Vec<Record>,
    out: &mut RefMerge,
) -> (Vec<Record>, bool) {
    let mut admitted = Vec::with_capacity(records.len());
    let mut dirty = !bad.is_empty();
    for b in bad {
        // The record's id or where the line is, why and where from.
        let at =
            b.id.clone()
                .unwrap_or_else(|| format!("{}:{} line {}", src.remote_ref, b.path, b.line));
        out.refused
            .push((at, format!("{} (in {})", b.why, src.remote_ref)));
    }
    for r in records {
        match sealer.admit(&r) {
            Ok(()) => {
                *out.incoming.entry(r.kind().as_str()).or_default() += 1;
                admitted.push(r);
            }
            Err(e) => {
                dirty = true;
                out.refused
                    .push((r.id.clone(), format!("{e} (in {})", src.remote_ref)));
            }
        }
    }
    (admitted, dirty)
}

/// Merges `src` (the shared ref a remote has, fetched) into the local ref it tracks,
/// compare-and-swap: when a local write moves the ref meanwhile, the merge is made again.
pub fn merge_ref(
    store: &Store,
    src: &Source,
    remote: &str,
    out: &mut RefMerge,
    report: &mut SyncReport,
) -> anyhow::Result<()> {
    let Some(their_tip) = report.readable(store, src, false)? else {
        return Ok(());
    };
    let sealer = Sealer::default();
    *out = super::while_moved(|| {
        let mut attempt = out.clone();
        merge_once(store, &sealer, src, their_tip, remote, &mut attempt, report)?;
        Ok(attempt)
    })?;
    Ok(())
}

/// Where local ref `name` stands against their commit: `None` when it is there already;
/// else our tip and how many commits only they, and only we, have.
pub(super) fn standing(
    store: &Store,
    name: &str,
    theirs: ObjectId,
) -> anyhow::Result<Option<(Option<Tip>, usize, usize)>> {
    let ours = store.tip(name)?;
    if ours.map(|t| t.commit) == Some(theirs) {
        return Ok(None);
    }
    // `behind` counts commits only we have, `ahead` only they have.
    Ok(Some(match ours {
        Some(o) => {
            let ab = store.ahead_behind(o.commit, theirs)?;
            (ours, ab.ahead, ab.behind)
        }
        None => (None, 1, 0),
    }))
}

/// Commits `records` onto our tip `ours` of `name` with `parents`, compare-and-swap.
fn land_onto(
    store: &Store,
    name: &str,
    ours: Option<Tip>,
    records: &[Record],
    parents: &[ObjectId],
    summary: &str,
) -> anyhow::Result<()> {
    let tree = store.tree_with(name, ours.map(|t| t.tree), records)?;
    let clock = clock_of(store, name, ours)?.max(max_clock(records));
    let message = commit_message(summary, records.len(), clock);
    store.land_commit(name, ours.map(|t| t.commit), tree, parents, &message)?;
    Ok(())
}

fn merge_once(
    store: &Store,
    sealer: &Sealer,
    src: &Source,
    their_tip: Tip,
    remote: &str,
    out: &mut RefMerge,
    report: &mut SyncReport,
) -> anyhow::Result<()> {
    let name = src.local.as_str();
    let theirs = their_tip.commit;
    let Some((ours, only_theirs, only_ours)) = standing(store, name, theirs)? else {
        return Ok(());
    };
    if only_theirs == 0 {
        out.outcome.moved(Outcome::Ahead);
        return Ok(());
    }
    // Histories that share no commit, one of them compacted: records move onto the
    // compacted side, and the other history is dropped (never merged, never pushed back).
    if let Some(our_tip) = ours.filter(|_| only_ours > 0) {
        if store.commits_reachable(theirs)? == only_theirs {
            // Ours compacts a history that held theirs (a `gc` after merging a remote that
            // compacted before): ours replaces it, or every second compaction would be
            // undone by its own publish.
            let ours_from = compacted_from(store, our_tip)?;
            let holds_theirs = ours_from.is_some_and(|from| {
                store
                    .ahead_behind(from, theirs)
                    .is_ok_and(|ab| ab.ahead == 0)
            });
            if !holds_theirs && compacted_from(store, their_tip)?.is_some() {
                return onto_compacted(store, name, our_tip, their_tip, remote, out);
            }
            if ours_from.is_some() {
                return keep_compacted(store, sealer, src, our_tip, their_tip, remote, out, report);
            }
        }
    }
    // The records they have and we lack, each admitted by the seal's rules.
    let incoming = match store.incoming(ours.map(|t| t.tree), their_tip.tree)? {
        Ok(i) => i,
        Err(why) => {
            report.skip(src, &why);
            return Ok(());
        }
    };
    let (admitted, dirty) = admit(sealer, src, &incoming.bad, incoming.records, out);
    if dirty {
        // Merged without what was refused, and without their commit as a parent: nothing
        // here keeps the refused objects reachable, and the push leaves that ref alone.
        report.quarantine(src);
        if admitted.is_empty() {
            return Ok(());
        }
        let parents: Vec<ObjectId> = ours.map(|t| t.commit).into_iter().collect();
        let summary = format!("merge memory from {remote} (records refused)");
        land_onto(store, name, ours, &admitted, &parents, &summary)?;
        out.outcome.moved(Outcome::Merged);
        return Ok(());
    }
    if only_ours == 0 {
        // Nothing of ours is missing there and everything of theirs is admitted.
        store.fast_forward(
            name,
            ours.map(|t| t.commit),
            theirs,
            &format!("sync from {remote}"),
        )?;
        out.outcome.moved(Outcome::FastForward);
        return Ok(());
    }
    let parents: Vec<ObjectId> = ours.map(|t| t.commit).into_iter().chain([theirs]).collect();
    let summary = format!("merge memory from {remote}");
    land_onto(store, name, ours, &admitted, &parents, &summary)?;
    out.outcome.moved(Outcome::Merged);
    Ok(())
}

/// Absorbs the refs other clones publish (`sources`, each moved since it was last merged)
/// into the local ref `name`: the records they hold that it lacks, admitted by the seal's
/// rules, in one commit whose parents are the local tip and every clean source that brought
/// something. A source that cannot be read is skipped; one with refused records gives its
/// other records but is not a parent.
pub fn absorb(
    store: &Store,
    name: &str,
    sources: &[Source],
    remote: &str,
    out: &mut RefMerge,
    report: &mut SyncReport,
) -> anyhow::Result<()> {
    if sources.is_empty() {
        return Ok(());
    }
    let sealer = Sealer::default();
    let start = store.tip(name)?;
    let mut records: BTreeMap<String, Record> = BTreeMap::new();
    let mut parents = Vec::new();
    let mut counted = RefMerge::new(name);
    for (src, tip) in super::moved_tips(store, start, sources, false, report)? {
        let incoming = match store.incoming(start.map(|t| t.tree), tip.tree)? {
            Ok(i) => i,
            Err(why) => {
                report.skip(src, &why);
                continue;
            }
        };
        let fresh: Vec<Record> = incoming
            .records
            .into_iter()
            .filter(|r| !records.contains_key(&r.id))
            .collect();
        let (admitted, dirty) = admit(&sealer, src, &incoming.bad, fresh, &mut counted);
        if dirty {
            report.quarantine(src);
        } else if !admitted.is_empty() {
            parents.push(tip);
        }
        for r in admitted {
            records.insert(r.id.clone(), r);
        }
    }
    out.refused.append(&mut counted.refused);
    if records.is_empty() {
        return Ok(());
    }
    let records: Vec<Record> = records.into_values().collect();
    super::while_moved(|| {
        let ours = store.tip(name)?;
        // A first merge from one clean source that brought everything: take its commit.
        if ours.is_none() && parents.len() == 1 && out.refused.is_empty() {
            let tree = store.tree_with(name, None, &records)?;
            if tree == parents[0].tree {
                let log = format!("sync from {remote}");
                return Ok(store.fast_forward(name, None, parents[0].commit, &log)?);
            }
        }
        let tree = store.tree_with(name, ours.map(|t| t.tree), &records)?;
        if Some(tree) == ours.map(|t| t.tree) {
            return Ok(());
        }
        let clock = clock_of(store, name, ours)?.max(max_clock(&records));
        let mut ids: Vec<ObjectId> = ours.map(|t| t.commit).into_iter().collect();
        ids.extend(parents.iter().map(|t| t.commit));
        let message = commit_message(&format!("merge memory from {remote}"), records.len(), clock);
        store.land_commit(name, ours.map(|t| t.commit), tree, &ids, &message)?;
        Ok(())
    })?;
    for (k, n) in counted.incoming {
        *out.incoming.entry(k).or_default() += n;
    }
    out.outcome.moved(Outcome::Merged);
    Ok(())
}

/// They compacted: our records they lack (those our fold still uses, and tombstones) go onto
/// their history; ours is left behind.
fn onto_compacted(
    store: &Store,
    name: &str,
    ours: Tip,
    theirs: Tip,
    remote: &str,
    out: &mut RefMerge,
) -> anyhow::Result<()> {
    let extras = still_used(store, name, theirs, ours)?;
    if extras.is_empty() {
        store.fast_forward(
            name,
            Some(ours.commit),
            theirs.commit,
            &format!("sync from {remote} (compacted)"),
        )?;
    } else {
        let tree = store.tree_with(name, Some(theirs.tree), &extras)?;
        let clock = clock_of(store, name, Some(ours))?.max(clock_of(store, name, Some(theirs))?);
        let message = commit_message(
            &format!("move unsynced memory onto the compacted history of {remote}"),
            extras.len(),
            clock,
        );
        store.land_commit(name, Some(ours.commit), tree, &[theirs.commit], &message)?;
    }
    out.outcome = Outcome::Rebased;
    Ok(())
}

/// We compacted: their records we lack (admitted) go onto our history, and the push may
/// replace theirs.
#[allow(clippy::too_many_arguments)]
fn keep_compacted(
    store: &Store,
    sealer: &Sealer,
    src: &Source,
    ours: Tip,
    theirs: Tip,
    remote: &str,
    out: &mut RefMerge,
    report: &mut SyncReport,
) -> anyhow::Result<()> {
    let name = src.local.as_str();
    let incoming = match store.incoming(Some(ours.tree), theirs.tree)? {
        Ok(i) => i,
        Err(why) => {
            report.skip(src, &why);
            return Ok(());
        }
    };
    // What the fold of both no longer uses stays behind, as compaction left it.
    let mut all: Vec<Record> = store.tip_records(name, ours)?.as_ref().clone();
    all.extend(incoming.records.iter().cloned());
    let used: std::collections::HashSet<String> = crate::model::fold::kept(&all)
        .into_iter()
        .map(|r| r.id)
        .collect();
    let fresh = incoming
        .records
        .into_iter()
        .filter(|r| used.contains(&r.id))
        .collect();
    let (admitted, _) = admit(sealer, src, &incoming.bad, fresh, out);
    if !admitted.is_empty() {
        let summary = format!("add memory from {remote} to the compacted history");
        land_onto(store, name, Some(ours), &admitted, &[ours.commit], &summary)?;
    }
    out.outcome = Outcome::Replaces;
    out.lease = Some(theirs.commit);
    Ok(())
}

/// The records of `from` that `onto` lacks and that `from`'s fold still uses (or tombstones):
/// what survives a move onto a compacted history. `from` is this clone's own history.
fn still_used(store: &Store, name: &str, onto: Tip, from: Tip) -> anyhow::Result<Vec<Record>> {
    let used: std::collections::HashSet<String> =
        crate::model::fold::kept(&store.tip_records(name, from)?)
            .into_iter()
            .map(|r| r.id)
            .collect();
    let (added, _) = store.tree_changes(name, Some(onto.tree), from.tree)?;
    Ok(added.into_iter().filter(|r| used.contains(&r.id)).collect())
}

fn max_clock(records: &[Record]) -> u64 {
    records.iter().map(|r| r.meta.clock).max().unwrap_or(0)
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
    use crate::store::{ObjectId, Store, MEMORY_REF};

    /// A scratch repository for trees (objects stay in memory: nothing is flushed).
    fn store() -> (tempfile::TempDir, Store) {
        crate::store::scratch()
    }

    /// What a merge writes: `ours` plus what `theirs` holds that `ours` lacks.
    fn merged(store: &Store, ours: &[Record], theirs: &[Record]) -> (ObjectId, Vec<Record>) {
        let base = store.tree_with(MEMORY_REF, None, ours).unwrap();
        let mine: std::collections::HashSet<&str> = ours.iter().map(|r| r.id.as_str()).collect();
        let new: Vec<Record> = theirs
            .iter()
            .filter(|r| !mine.contains(r.id.as_str()))
            .cloned()
            .collect();
        let tree = store.tree_with(MEMORY_REF, Some(base), &new).unwrap();
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
            prop_assert_eq!(aa, store.tree_with(MEMORY_REF, None, &a).unwrap());
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
        assert_eq!(ab, store.tree_with(MEMORY_REF, None, &all).unwrap());
    }
}
