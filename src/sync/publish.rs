//! Which notes go to a remote: a note travels with its commit. A note this clone would send
//! whose commit the remote's branches do not reach, the push being made does not send, and no
//! one published before (a commit on a branch that never left this clone) stays here: its
//! trailers carry that branch's name and open checkpoint. When some stay, the notes published
//! are a commit of their own: the remote's notes plus those that may go.

use std::collections::HashSet;

use anyhow::Result;

use crate::store::{tracking_ref, ObjectId, Store, Tip, NOTES_REF, TRACKING_PREFIX};

/// The notes commit to publish to `remote` instead of the local one, when some local notes
/// must stay here (`None`: the local notes ref goes as it is), and how many notes go out.
/// `base` is the remote's notes as last seen (the shared ref, else this clone's own).
pub(super) fn notes_to_publish(
    store: &Store,
    remote: &str,
    ours: Tip,
    base: Option<Tip>,
    own: Option<ObjectId>,
    pushing: &[String],
    sending: &[ObjectId],
) -> Result<(Option<ObjectId>, usize)> {
    let candidates = store.notes_differing(base.map(|t| t.tree), ours.tree)?;
    if candidates.is_empty() {
        return Ok((None, 0));
    }
    // Where the remote's code is, and the code being sent now.
    let mut tips: Vec<ObjectId> = store
        .refs_under(&format!("refs/remotes/{remote}/"))?
        .into_iter()
        .map(|(_, id)| id)
        .collect();
    for b in pushing {
        if let Some(id) = store.ref_id(&format!("refs/heads/{b}"))? {
            tips.push(id);
        }
    }
    tips.extend_from_slice(sending);
    // Notes some clone already published there (its own notes ref): public already.
    let published: Vec<ObjectId> = store
        .refs_under(&format!("{TRACKING_PREFIX}{remote}/clones/"))?
        .into_iter()
        .filter(|(n, _)| n.ends_with("/notes"))
        .filter_map(|(n, id)| store.tip_of(&n, id).ok().map(|t| t.tree))
        .collect();
    let mut readers = Vec::new();
    for tree in published {
        readers.push(store.notes_reader(Some(tree))?);
    }
    let mut private: HashSet<ObjectId> = HashSet::new();
    for (commit, _, theirs) in &candidates {
        if theirs.is_some() {
            continue;
        }
        let mut public = false;
        for r in readers.iter_mut() {
            if r.get(*commit)?.is_some() {
                public = true;
                break;
            }
        }
        if public {
            continue;
        }
        let reached = tips.iter().any(|tip| {
            store
                .ahead_behind(*tip, *commit)
                .is_ok_and(|ab| ab.ahead == 0)
        });
        if !reached {
            private.insert(*commit);
        }
    }
    let going = candidates.len() - private.len();
    if private.is_empty() {
        return Ok((None, going));
    }
    let notes: Vec<(ObjectId, String)> = candidates
        .into_iter()
        .filter(|(c, _, _)| !private.contains(c))
        .map(|(c, text, _)| (c, text))
        .collect();
    let mut parents: Vec<ObjectId> = base.map(|t| t.commit).into_iter().collect();
    if let Some(own) = own.filter(|o| !parents.contains(o)) {
        parents.push(own);
    }
    let id = store.write_notes_commit(
        base.map(|t| t.tree),
        &parents,
        &notes,
        &format!(
            "notes published to {remote} ({} of commits that have not left this clone stay here)",
            private.len()
        ),
    )?;
    Ok((Some(id), going))
}

/// The remote's notes as last seen: its shared notes ref, else this clone's own published one.
pub(super) fn remote_notes(store: &Store, remote: &str, own: Option<ObjectId>) -> Option<Tip> {
    let shared = store
        .ref_id(&tracking_ref(remote, NOTES_REF))
        .ok()
        .flatten();
    shared
        .or(own)
        .and_then(|id| store.tip_of(NOTES_REF, id).ok())
}
