//! What a sync does with a push the remote did not take: the error that says why (in the
//! remote's words), whether the remote only moved (a race: another round), and the join that
//! lets a remote taking only fast-forwards keep its history under a compacted one.

use std::collections::BTreeMap;

use anyhow::Result;

use super::{while_moved, Plan};
use crate::error;
use crate::store::{ObjectId, RefusedRef, Store, NOTES_REF};

/// The error for a memory push `remote` did not take: the refs it refused and why, in the
/// remote's own words, or that it has memory this clone lacks (then a sync merges it).
pub fn push_refused(
    remote: &str,
    refs: &[RefusedRef],
    said: &[String],
    stderr: &str,
) -> anyhow::Error {
    let behind: Vec<&str> = refs
        .iter()
        .filter(|r| r.is_behind())
        .map(|r| r.name.as_str())
        .collect();
    let refused: Vec<String> = refs
        .iter()
        .filter(|r| !r.is_behind() && !r.is_collateral())
        .map(|r| format!("{} ({})", r.name, r.reason))
        .collect();
    let mut why = Vec::new();
    if !refused.is_empty() {
        why.push(format!("{remote} refused {}", refused.join(", ")));
    }
    if !behind.is_empty() {
        why.push(format!(
            "rejected {} (the remote has memory this clone lacks)",
            behind.join(", ")
        ));
    }
    if why.is_empty() {
        why.push(stderr.to_owned());
    }
    let mut message = format!("memory was not pushed to {remote}: {}", why.join("; "));
    if !said.is_empty() {
        message.push_str(&format!("; the remote said: {}", said.join(" / ")));
    }
    if refused.is_empty() {
        return error::conflict(
            message,
            "run `git rune sync` to merge the remote's memory and push again; memory is never force-pushed",
        );
    }
    // The remote's rules said no: running the command again meets the same rules, so this is
    // the surroundings (environment), not a race (conflict).
    error::environment(
        message,
        "the remote's own rules refused the memory refs: ask its administrator to allow refs/rune/*, refs/rune-clones/* and refs/notes/rune",
    )
}

/// Whether a push failed because the remote moved (a race), not because it refused.
pub(super) fn is_race(stderr: &str) -> bool {
    [
        "fetch first",
        "non-fast-forward",
        "cannot lock ref",
        "stale info",
        "failed to update ref",
    ]
    .iter()
    .any(|s| stderr.contains(s))
}

/// For the refs the remote refused by its own rules (not a race) whose push would have
/// replaced the remote's history (a lease on a commit the one sent does not contain: a
/// compacted history), joins each local ref onto the remote's history: a commit of the same
/// tree whose parents are the local tip and the refused values, so the next push is a
/// fast-forward and nothing either side holds is dropped. Returns (local ref, its commit
/// before, the join, the remote refs refused with the reason).
#[allow(clippy::type_complexity)]
pub(super) fn join_refused_replacements(
    store: &Store,
    remote: &str,
    plan: &Plan,
    refused: &[RefusedRef],
) -> Result<Vec<(String, ObjectId, ObjectId, Vec<(String, String)>)>> {
    let mut by_local: BTreeMap<&str, (Vec<ObjectId>, Vec<(String, String)>)> = BTreeMap::new();
    for r in refused
        .iter()
        .filter(|r| !r.is_race() && !r.is_collateral())
    {
        let Some(i) = plan.refs.iter().position(|(_, to, _)| *to == r.name) else {
            continue;
        };
        let (from, _, lease) = &plan.refs[i];
        let Some(theirs) = lease.filter(|l| !l.is_null()) else {
            continue;
        };
        // Only a local ref sent as it is (a notes commit made for the push never replaces).
        let local = plan.locals[i].as_str();
        if from != local {
            continue;
        }
        let replaces = store
            .ahead_behind(plan.ids[i], theirs)
            .is_ok_and(|ab| ab.ahead > 0);
        if replaces {
            let entry = by_local.entry(local).or_default();
            if !entry.0.contains(&theirs) {
                entry.0.push(theirs);
            }
            entry.1.push((r.name.clone(), r.reason.clone()));
        }
    }
    let mut out = Vec::new();
    for (local, (theirs, refused)) in by_local {
        let landed = while_moved(|| {
            // A ref deleted here meanwhile has nothing to join.
            let Some(ours) = store.tip(local)? else {
                return Ok(None);
            };
            let mut parents = vec![ours.commit];
            parents.extend(theirs.iter().copied());
            let summary =
                format!("keep {remote}'s history: it does not let {local}'s history be replaced");
            let message = if local == NOTES_REF {
                format!("{summary}\n")
            } else {
                crate::store::commit_message(&summary, 0, store.clock_at(local, ours)?)
            };
            let join =
                store.land_commit(local, Some(ours.commit), ours.tree, &parents, &message)?;
            Ok(Some((ours.commit, join)))
        })?;
        if let Some((before, join)) = landed {
            out.push((local.to_owned(), before, join, refused));
        }
    }
    Ok(out)
}
