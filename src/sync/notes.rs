//! Merging `refs/notes/rune` with a remote's: per annotated commit, a note only one side has
//! is taken as it is, and a commit both sides annotated differently gets the canonical join
//! of both notes (`notes::join`), so no line of either is lost and every clone ends with the
//! same text. A note past `rune.maxNoteBytes` is refused alone, and a note for a commit that
//! expired here (`gc`: on no branch, tag or remote-tracking branch) is not taken back.

use std::collections::BTreeMap;

use super::merge::Outcome;
use super::SyncReport;
use crate::notes::join::join;
use crate::store::{ObjectId, Source, Store, NOTES_REF};

/// What merging the notes did.
#[derive(Debug, Clone, Default)]
pub struct NotesMerge {
    pub outcome: Outcome,
    /// Notes that came in: new ones and joined ones.
    pub incoming: usize,
    /// Notes refused (annotated commit, why).
    pub refused: Vec<(String, String)>,
}

type Differing = Vec<(ObjectId, String, Option<String>)>;

/// The notes of remote notes tree `theirs` that local tree `ours` lacks or holds otherwise,
/// with those refused (too large) reported and those of expired commits left out; `None`
/// (reported) when the remote ref cannot be read.
fn read_notes(
    store: &Store,
    src: &Source,
    ours: Option<ObjectId>,
    theirs: ObjectId,
    m: &mut NotesMerge,
    report: &mut SyncReport,
) -> anyhow::Result<Option<(Differing, bool)>> {
    let (notes, refused) = match store.notes_incoming(ours, theirs)? {
        Ok(n) => n,
        Err(why) => {
            report.skip(src, &why);
            return Ok(None);
        }
    };
    let dirty = !refused.is_empty();
    for (commit, why) in refused {
        m.refused
            .push((commit.to_string(), format!("{why} (in {})", src.remote_ref)));
    }
    if dirty {
        report.quarantine(src);
    }
    let expired = super::gc::expired_notes(store);
    let notes = notes
        .into_iter()
        .filter(|(commit, _, _)| !expired.contains(commit))
        .collect();
    Ok(Some((notes, dirty)))
}

/// Merges the shared notes ref `src` (fetched) into refs/notes/rune, compare-and-swap.
pub fn merge_notes(
    store: &Store,
    src: &Source,
    remote: &str,
    m: &mut NotesMerge,
    report: &mut SyncReport,
) -> anyhow::Result<()> {
    let Some(their_tip) = report.readable(store, src, true)? else {
        return Ok(());
    };
    super::while_moved(|| merge_once(store, src, their_tip, remote, m, report))
}

fn merge_once(
    store: &Store,
    src: &Source,
    their_tip: crate::store::Tip,
    remote: &str,
    m: &mut NotesMerge,
    report: &mut SyncReport,
) -> anyhow::Result<()> {
    let theirs = their_tip.commit;
    let Some((ours, only_theirs, only_ours)) = super::merge::standing(store, NOTES_REF, theirs)?
    else {
        return Ok(());
    };
    if only_theirs == 0 {
        m.outcome.moved(Outcome::Ahead);
        return Ok(());
    }
    let Some((differing, dirty)) =
        read_notes(store, src, ours.map(|t| t.tree), their_tip.tree, m, report)?
    else {
        return Ok(());
    };
    m.incoming = differing.len();
    if only_ours == 0 && !dirty && differing.iter().all(|(_, _, o)| o.is_none()) {
        let all_taken = store
            .notes_differing(ours.map(|t| t.tree), their_tip.tree)?
            .len()
            == differing.len();
        if all_taken {
            store.fast_forward(
                NOTES_REF,
                ours.map(|t| t.commit),
                theirs,
                &format!("sync notes from {remote}"),
            )?;
            m.outcome.moved(Outcome::FastForward);
            return Ok(());
        }
    }
    if differing.is_empty() && dirty {
        return Ok(());
    }
    let notes: Vec<(ObjectId, String)> = differing
        .into_iter()
        .map(|(commit, text, ours)| match ours {
            Some(mine) => (commit, join(&[&mine, &text])),
            None => (commit, text),
        })
        .collect();
    // A remote tip holding refused notes is not a parent: nothing keeps them reachable.
    let mut parents: Vec<ObjectId> = ours.map(|t| t.commit).into_iter().collect();
    if !dirty {
        parents.push(theirs);
    }
    store.land_notes(
        ours,
        &parents,
        &notes,
        &format!("merge notes from {remote}"),
    )?;
    m.outcome.moved(Outcome::Merged);
    Ok(())
}

/// Absorbs the notes refs other clones publish (each moved since it was last merged): every
/// note they hold that this clone lacks or holds otherwise, joined, in one notes commit.
pub fn absorb_notes(
    store: &Store,
    sources: &[Source],
    remote: &str,
    m: &mut NotesMerge,
    report: &mut SyncReport,
) -> anyhow::Result<()> {
    if sources.is_empty() {
        return Ok(());
    }
    let start = store.tip(NOTES_REF)?;
    // Per annotated commit, every text a source has that differs from ours.
    let mut texts: BTreeMap<ObjectId, (Vec<String>, Option<String>)> = BTreeMap::new();
    let mut parents = Vec::new();
    for (src, tip) in super::moved_tips(store, start, sources, true, report)? {
        let Some((differing, dirty)) =
            read_notes(store, src, start.map(|t| t.tree), tip.tree, m, report)?
        else {
            continue;
        };
        if !dirty && !differing.is_empty() {
            parents.push(tip.commit);
        }
        for (commit, text, ours) in differing {
            let entry = texts.entry(commit).or_insert_with(|| (Vec::new(), ours));
            if !entry.0.contains(&text) {
                entry.0.push(text);
            }
        }
    }
    if texts.is_empty() {
        return Ok(());
    }
    super::while_moved(|| {
        let ours = store.tip(NOTES_REF)?;
        let mut current = store.notes_reader(ours.map(|t| t.tree))?;
        let mut notes = Vec::with_capacity(texts.len());
        for (commit, (theirs, _)) in &texts {
            let mine = current.get(*commit)?;
            let mut all: Vec<&str> = mine.iter().map(String::as_str).collect();
            all.extend(theirs.iter().map(String::as_str));
            let text = if all.len() == 1 {
                all[0].to_owned()
            } else {
                join(&all)
            };
            if mine.as_deref() != Some(text.as_str()) {
                notes.push((*commit, text));
            }
        }
        if notes.is_empty() {
            return Ok(());
        }
        let n = notes.len();
        let mut ids: Vec<ObjectId> = ours.map(|t| t.commit).into_iter().collect();
        ids.extend(parents.iter().copied());
        store.land_notes(ours, &ids, &notes, &format!("merge notes from {remote}"))?;
        m.incoming += n;
        m.outcome.moved(Outcome::Merged);
        Ok(())
    })
}
