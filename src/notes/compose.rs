//! The note `post-commit` attaches to a new code commit: which memory produced it, the
//! decisions, learnings and conventions recorded since the previous commit, and the open
//! checkpoint. A commit with nothing new still gets a short note, so every commit maps to the
//! memory of its time.

use super::CommitNote;
use crate::model::{fold, Body, Kind, Record};
use crate::store::{self, branch_ref, ObjectId, Store, MEMORY_REF, NOTES_REF};

/// Writes the note of the commit HEAD points at (nothing on an unborn branch).
pub fn note_head(store: &Store) -> store::Result<()> {
    let mut head = store.head_info()?;
    let Some(commit) = head.head else {
        return Ok(());
    };
    if head.branch.is_none() {
        // A rebase replays commits on a detached HEAD; they belong to the branch it rebases.
        head.branch = rebasing_branch(store);
    }
    let session_ref = branch_ref(head.branch.as_deref());
    let memory = store.ref_id(MEMORY_REF)?;
    let session = store.ref_id(&session_ref)?;
    let parent = store.commit_info(commit)?.first_parent;
    let first_note = store.ref_id(NOTES_REF)?.is_none();
    // One read of the notes tree serves the parent's note and the write.
    store.edit_notes("post-commit", |notes| {
        let previous = match parent {
            Some(p) => notes.get(p)?.map(|t| CommitNote::parse(&t)),
            None => None,
        };
        let records = new_records(store, parent, previous.as_ref(), memory)?;
        // The parent's note already names the open checkpoint of an unchanged session.
        let checkpoint = match (&previous, session) {
            (Some(prev), Some(s)) if prev.session.as_deref() == Some(s.to_string().as_str()) => {
                prev.checkpoint.clone()
            }
            (_, Some(s)) => open_checkpoint(store, &session_ref, s)?,
            (_, None) => None,
        };
        let mut note = CommitNote {
            branch: head.branch.clone(),
            memory: memory.map(|m| m.to_string()),
            session: session.map(|s| s.to_string()),
            checkpoint,
            ..CommitNote::default()
        };
        note.list_records(&records);
        // A cherry-picked commit carries the memory of the commit it was picked from, as
        // an amended one does (git copies notes only on amend and rebase).
        if let Some(picked) = cherry_picked(store).filter(|p| *p != commit) {
            if let Some(text) = notes.get(picked)? {
                let olds = CommitNote::parse_blocks(&text);
                note = super::rewrite::combined("amend", vec![note], olds);
            }
        }
        Ok(vec![(commit, note.render())])
    })?;
    // With the first note the notes ref exists: now git can copy notes on amend and rebase.
    let (key, value) = crate::memory::init::REWRITE_REF;
    if first_note && !store.config_has(key, value) {
        store.add_config(key, value)?;
    }
    Ok(())
}

/// The decisions, learnings and conventions in `memory` that the parent commit's memory (its
/// note's, or memory as of its time) did not hold.
fn new_records(
    store: &Store,
    parent: Option<ObjectId>,
    previous: Option<&CommitNote>,
    memory: Option<ObjectId>,
) -> store::Result<Vec<Record>> {
    let Some(memory) = memory else {
        return Ok(Vec::new());
    };
    let noted = previous
        .and_then(|n| n.memory.as_deref())
        .and_then(|m| ObjectId::from_hex(m.as_bytes()).ok());
    if noted == Some(memory) {
        return Ok(Vec::new());
    }
    let base = match (noted, parent) {
        (Some(m), _) if store.has_object(m) => Some(store.tip_of(MEMORY_REF, m)?),
        (Some(_), _) | (None, None) => None,
        (None, Some(_)) if previous.is_some() => None,
        (None, Some(p)) => {
            let time = store.commit_info(p).map(|c| c.time).unwrap_or(0);
            // Memory written in the parent's own second counts as new: listing a record twice
            // is better than never listing it.
            store.tip_before(MEMORY_REF, time - 1)?
        }
    };
    store.records_added(
        MEMORY_REF,
        base,
        store.tip_of(MEMORY_REF, memory)?,
        &[Kind::Decision, Kind::Convention, Kind::Learning],
    )
}

/// The open checkpoint's resume line (or what it was doing) on a branch's session state.
fn open_checkpoint(
    store: &Store,
    session_ref: &str,
    session: ObjectId,
) -> store::Result<Option<String>> {
    let tip = store.tip_of(session_ref, session)?;
    let records = store.records_of(
        session_ref,
        tip,
        &[Kind::Checkpoint, Kind::Resolve, Kind::Delete],
    )?;
    Ok(fold(records.iter())
        .open_checkpoint()
        .and_then(|c| match &c.body {
            Body::Checkpoint { resume, doing, .. } => Some(if resume.is_empty() {
                doing.clone()
            } else {
                resume.clone()
            }),
            _ => None,
        }))
}

/// The branch a rebase in progress is rebasing, from git's rebase state.
/// The commit a cherry-pick in progress is picking (`CHERRY_PICK_HEAD`, which git keeps
/// until the picked commit is made, post-commit hook included).
fn cherry_picked(store: &Store) -> Option<ObjectId> {
    let text = std::fs::read_to_string(store.git_dir().join("CHERRY_PICK_HEAD")).ok()?;
    ObjectId::from_hex(text.trim().as_bytes()).ok()
}

pub fn rebasing_branch(store: &Store) -> Option<String> {
    ["rebase-merge", "rebase-apply"].iter().find_map(|dir| {
        let name = std::fs::read_to_string(store.git_dir().join(dir).join("head-name")).ok()?;
        name.trim().strip_prefix("refs/heads/").map(str::to_owned)
    })
}
