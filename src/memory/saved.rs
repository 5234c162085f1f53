//! What a save is asked and what it did, and what both of its paths (the whole save and
//! the tail of `learnings.jsonl`) write the same way: the session record, the files' blobs.

use anyhow::Result;

use super::seal::{SealError, Sealed, Sealer};
use super::view_dir::ViewLock;
use crate::error;
use crate::model::kinds::{Decision, Learning, Session};
use crate::model::{Body, Draft, GitState, Record, State};
use crate::store::{ObjectId, Store};
use crate::view::ViewFile;

/// The summary a save records when none is given.
pub const DEFAULT_SUMMARY: &str = "session saved";

/// How to save.
#[derive(Debug, Default, Clone, Copy)]
pub struct SaveOptions<'a> {
    /// The session summary (`-m`).
    pub summary: Option<&'a str>,
    /// Save a file that holds no entries although memory has some (deleting them all).
    pub allow_delete: bool,
    /// The code's state the session record carries instead of now's: an agent's own saves
    /// keep a drift the agent has not acted on (the save the code drifted from; see
    /// docs/agents.md). `None`: now.
    pub session_git: Option<&'a GitState>,
}

/// Another directory saved in the same memory commit as `.rune/` (the echoes directory:
/// `echoes::save` implements it, as `memory` cannot import `echoes`). The save holds the one
/// view lock through all four steps.
/// Where a [`Companion`]'s drafts go: memory's records at commit time, their fold, and the
/// position in the commit its drafts start at (what a record of the same commit is named by).
pub struct Drafting<'a> {
    pub store: &'a Store,
    pub current: &'a [Record],
    pub state: &'a State,
    pub at: usize,
}

pub trait Companion {
    /// Reads, parses and seals what the directory holds to save, writing nothing: an error
    /// stops the whole save with nothing written. Whether there is anything to write.
    fn prepare(&mut self, store: &Store, sealer: &mut Sealer) -> Result<bool>;
    /// The records it adds to the memory commit, on top of memory's records `current` at
    /// commit time (`state` is their fold), placed from position `at` of the commit; made
    /// again when a lost race retries the commit.
    fn drafts(&mut self, ctx: Drafting<'_>, sealer: &mut Sealer) -> Result<Vec<Sealed>>;
    /// Its name in the memory commit's summary.
    fn label(&self) -> String;
    /// After the commit landed (or found nothing to write): its checkout brought up to date.
    fn finish(&mut self, store: &Store, guard: &ViewLock) -> Result<()>;
}

/// What a save did.
#[derive(Debug, Default)]
pub struct Saved {
    /// Nothing was edited and no summary given: nothing was written.
    pub nothing: bool,
    /// checkpoint.md was deleted (or renamed to `checkpoint-*.resolved.md`): the open
    /// checkpoint was resolved.
    pub resolved_checkpoint: bool,
    /// Files that were deleted from the view: restored from memory, not emptied.
    pub restored: Vec<ViewFile>,
    /// Edited files that were saved.
    pub files: Vec<ViewFile>,
    /// Commits written: (ref, commit, commit summary), memory first.
    pub commits: Vec<(String, ObjectId, String)>,
    pub added: usize,
    pub changed: usize,
    pub removed: usize,
    /// The session summary as recorded (after the secret filter).
    pub summary: String,
    /// Saved files edited again while the save ran, left as they are.
    pub kept: Vec<ViewFile>,
    /// Documents saved (paths under `.rune/`), and those deleted from memory.
    pub documents: Vec<String>,
    pub documents_removed: Vec<String>,
    /// The seed's record files (resolved checkpoints, oracle dispatches) imported.
    pub record_files: Vec<String>,
    /// Files under `.rune/` memory does not store: local by design, or refused (binary, too
    /// large), with why.
    pub unstored: Vec<super::view_dir::documents::Unstored>,
    /// Branch files rendered for another branch than HEAD's (edited, then the branch was
    /// switched): their edits went to the session state they were rendered from, named here.
    pub elsewhere: Vec<(ViewFile, String)>,
    /// View entries refused (`file:line: why`): not saved, left in their file.
    pub refused: Vec<String>,
    /// Every record the save wrote (the writer is told which the load gate withholds).
    pub records: Vec<crate::model::Record>,
}

/// The session record a save writes, sealed.
pub(super) fn seal_session(
    store: &Store,
    sealer: &mut Sealer,
    summary: String,
    git: &mut Option<GitState>,
) -> Result<Sealed> {
    sealer
        .seal(
            Draft::new(Body::Session(Session {
                summary,
                git: Some(git_state(store, git)?),
            })),
            &|_, _| "the -m summary".to_owned(),
        )
        .map_err(|e| match e {
            SealError::Invalid { error, .. } => error::input(
                format!("invalid session summary: {error}"),
                error::pass("message", "\"summary\"", " (not empty)"),
            ),
            other => other.into(),
        })
}

/// The code's state now, read once per save.
pub(super) fn git_state(store: &Store, cache: &mut Option<GitState>) -> Result<GitState> {
    if cache.is_none() {
        *cache = Some(super::record::git_state(store)?);
    }
    Ok(cache.clone().unwrap_or_default())
}

/// Records naming files keep their blob ids, for staleness against the code.
pub(super) fn fill_file_blobs(store: &Store, body: &mut Body) {
    if let Body::Decision(Decision {
        files, file_blobs, ..
    })
    | Body::Learning(Learning {
        files, file_blobs, ..
    }) = body
    {
        if !files.is_empty() && file_blobs.len() != files.len() {
            *file_blobs = store.file_blobs(files);
        }
    }
}
