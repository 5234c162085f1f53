//! Merging `refs/notes/rune` with a remote's: per annotated commit, a note only one side has
//! is taken as it is, and a commit both sides annotated differently gets the canonical join
//! of both notes (`notes::join`), so no line of either is lost and every clone ends with the
//! same text.

use crate::notes::join::join;
use crate::store::{ObjectId, Store, StoreError, NOTES_REF};

use super::merge::Outcome;

/// What merging the notes did.
#[derive(Debug, Clone)]
pub struct NotesMerge {
    pub outcome: Outcome,
    /// Notes that came in: new ones and joined ones.
    pub incoming: usize,
}

/// Merges the notes commit `theirs` (fetched) into refs/notes/rune, compare-and-swap.
pub fn merge_notes(store: &Store, theirs: ObjectId, remote: &str) -> anyhow::Result<NotesMerge> {
    loop {
        match merge_once(store, theirs, remote) {
            Err(e)
                if matches!(
                    e.downcast_ref::<StoreError>(),
                    Some(StoreError::Contended { attempts: 1, .. })
                ) =>
            {
                continue
            }
            other => return other,
        }
    }
}

fn merge_once(store: &Store, theirs: ObjectId, remote: &str) -> anyhow::Result<NotesMerge> {
    let ours = store.tip(NOTES_REF)?;
    let their_tip = store.tip_of(NOTES_REF, theirs)?;
    let mut out = NotesMerge {
        outcome: Outcome::UpToDate,
        incoming: 0,
    };
    if ours.map(|t| t.commit) == Some(theirs) {
        return Ok(out);
    }
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
    let differing = store.notes_differing(ours.map(|t| t.tree), their_tip.tree)?;
    out.incoming = differing.len();
    if only_ours == 0 {
        store.fast_forward(
            NOTES_REF,
            ours.map(|t| t.commit),
            theirs,
            &format!("sync notes from {remote}"),
        )?;
        out.outcome = Outcome::FastForward;
        return Ok(out);
    }
    let notes: Vec<(ObjectId, String)> = differing
        .into_iter()
        .map(|(commit, text, ours)| match ours {
            Some(mine) => (commit, join(&[&mine, &text])),
            None => (commit, text),
        })
        .collect();
    let parents: Vec<ObjectId> = ours.map(|t| t.commit).into_iter().chain([theirs]).collect();
    store.land_notes(
        ours.map(|t| t.commit),
        ours.map(|t| t.tree),
        &parents,
        &notes,
        &format!("merge notes from {remote}"),
    )?;
    out.outcome = Outcome::Merged;
    Ok(out)
}
