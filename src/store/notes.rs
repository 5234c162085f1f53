//! Git notes under `refs/notes/rune`: the per-code-commit link to memory, read and written
//! with gix's notes trees (git's fanout layout) and compare-and-swap on the notes ref.

use gix::note::plumbing::State as NotesTree;
use gix::ObjectId;

use super::refs::backoff;
use super::{git_err, Result, Store, StoreError};

/// Where git-rune keeps one note per code commit (`git log --notes=rune` shows them).
pub const NOTES_REF: &str = "refs/notes/rune";

/// How often a note write is retried after losing a race before giving up.
const MAX_ATTEMPTS: usize = 32;

impl Store {
    /// The note text attached to `commit` under refs/notes/rune, if any.
    ///
    /// Reads notes in any fanout git writes: flat `<40hex>`, nested `ab/cdef…` and deeper.
    /// The text is the note blob as stored (git ends notes with a newline); invalid UTF-8 is
    /// replaced, never an error.
    pub fn note(&self, commit: ObjectId) -> Result<Option<String>> {
        let Some(tip) = self.tip(NOTES_REF)? else {
            return Ok(None);
        };
        let mut tree = NotesTree::new(tip.tree, &self.repo).map_err(git_err(format!(
            "cannot read the notes tree of {NOTES_REF}"
        )))?;
        let Some(blob) = tree
            .get(&commit, &self.repo)
            .map_err(git_err(format!("cannot look up the note of {commit}")))?
        else {
            return Ok(None);
        };
        let blob = self
            .repo
            .find_blob(blob)
            .map_err(git_err(format!("cannot read the note of {commit}")))?;
        Ok(Some(String::from_utf8_lossy(&blob.data).into_owned()))
    }

    /// Attaches (or replaces) the note of `commit` in one notes commit and returns that commit.
    ///
    /// `text` gets a final newline if it lacks one, as `git notes add -m` does. The notes tree
    /// keeps git's progressive fanout (gix implements git's rule), so `git notes` reads it.
    /// Compare-and-swap on refs/notes/rune: a lost race re-reads the notes and retries, never
    /// dropping another writer's note. When the note already has exactly this text nothing is
    /// written and the current notes commit is returned.
    pub fn set_note(&self, commit: ObjectId, text: &str, summary: &str) -> Result<ObjectId> {
        if !self.repo.has_object(commit) {
            return Err(StoreError::MissingObject {
                name: format!("the note target for {NOTES_REF}"),
                id: commit.to_string(),
            });
        }
        let mut text = text.to_owned();
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        let blob = self
            .repo
            .write_blob(text.as_bytes())
            .map_err(git_err("cannot write a note"))?
            .detach();
        let message = notes_message(summary);
        for attempt in 0..MAX_ATTEMPTS {
            let tip = self.tip(NOTES_REF)?;
            let root = tip
                .map(|t| t.tree)
                .unwrap_or_else(|| ObjectId::empty_tree(self.repo.object_hash()));
            let mut tree = NotesTree::new(root, &self.repo).map_err(git_err(format!(
                "cannot read the notes tree of {NOTES_REF}"
            )))?;
            let edit = tree
                .replace(commit, blob, &self.repo)
                .map_err(git_err(format!("cannot write the note of {commit}")))?;
            if let (Some(tip), Some(previous)) = (tip, edit.previous) {
                if previous == blob {
                    return Ok(tip.commit);
                }
            }
            let id = self.write_commit(&message, edit.tree, tip.map(|t| t.commit))?;
            match self.swap(
                NOTES_REF,
                tip.map(|t| t.commit),
                id,
                &format!("notes: {}", first_line(summary)),
            ) {
                Ok(()) => return Ok(id),
                Err(_) if attempt + 1 < MAX_ATTEMPTS => {
                    // Lost the race (or the lock): back off a little, re-read, re-apply.
                    backoff(attempt);
                }
                Err(e) => return Err(e),
            }
        }
        Err(StoreError::Contended {
            name: NOTES_REF.into(),
            attempts: MAX_ATTEMPTS,
        })
    }
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

/// git's notes commit shape (`Notes added by 'git notes add'`), with the summary as body.
fn notes_message(summary: &str) -> String {
    match first_line(summary).trim() {
        "" => "Notes added by 'git rune'\n".to_owned(),
        s => format!("Notes added by 'git rune'\n\n{s}\n"),
    }
}
