//! Git notes under `refs/notes/rune`: the per-code-commit link to memory, read and written
//! with gix's notes trees (git's fanout layout) and compare-and-swap on the notes ref.

use crate::text::first_line;
use gix::note::plumbing::State as NotesTree;
use gix::ObjectId;

use super::objects::ReadObjects as _;
use super::update::{Retry, Update};
use super::{git_err, Result, Store, StoreError, Tip};

/// Where git-rune keeps one note per code commit (`git log --notes=rune` shows them).
pub const NOTES_REF: &str = "refs/notes/rune";

impl Store {
    /// The note text attached to `commit` under refs/notes/rune, if any.
    ///
    /// Reads notes in any fanout git writes: flat `<40hex>`, nested `ab/cdef…` and deeper.
    /// The text is the note blob as stored (git ends notes with a newline); invalid UTF-8 is
    /// replaced, never an error.
    pub fn note(&self, commit: ObjectId) -> Result<Option<String>> {
        match self.tip(NOTES_REF)? {
            None => Ok(None),
            Some(tip) => self.notes_at(tip.tree)?.get(commit),
        }
    }

    pub(super) fn notes_at(&self, tree: ObjectId) -> Result<Notes<'_>> {
        // gix reads the notes trees itself: a failed read is looked at once more, as
        // `objects.rs` does for every other read (a concurrent gc may have packed them).
        let tree = NotesTree::new(tree, &self.repo)
            .or_else(|_| NotesTree::new(tree, &self.repo))
            .map_err(git_err(format!(
                "cannot read the notes tree of {NOTES_REF}"
            )))?;
        Ok(Notes { store: self, tree })
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
        self.edit_notes(summary, |_| Ok(vec![(commit, text.to_owned())]))
            .map(|tip| tip.unwrap_or_else(|| ObjectId::null(self.repo.object_hash())))
    }

    /// Changes several notes in one notes commit. `make` reads the notes as they are (through
    /// [`Notes::get`]) and returns the new texts; it runs again when another writer moved
    /// refs/notes/rune in between, so its result is always based on what it replaces. Notes
    /// whose text does not change are skipped; when none changes nothing is written. Returns
    /// the notes commit now current (`None` when there are no notes at all).
    pub(crate) fn edit_notes(
        &self,
        summary: &str,
        mut make: impl FnMut(&mut Notes<'_>) -> Result<Vec<(ObjectId, String)>>,
    ) -> Result<Option<ObjectId>> {
        let log = format!("notes: {}", first_line(summary));
        self.swap_notes(&notes_message(summary), log, |notes| {
            let mut changed = false;
            for (commit, text) in make(notes)? {
                changed |= notes.set(commit, &text)?;
            }
            Ok(changed)
        })
    }

    /// Applies `edit` to the notes at refs/notes/rune's tip and, when it says it changed them,
    /// commits them with `message` and moves the ref there, compare-and-swap; `edit` runs
    /// again on the new tip when another writer moved the ref. Returns the notes commit now
    /// current.
    pub(super) fn swap_notes(
        &self,
        message: &str,
        log: String,
        mut edit: impl FnMut(&mut Notes<'_>) -> Result<bool>,
    ) -> Result<Option<ObjectId>> {
        let mut retry = Retry::new();
        loop {
            let tip = self.tip(NOTES_REF)?;
            let mut notes = self.notes_reader(tip.map(|t| t.tree))?;
            if !edit(&mut notes)? {
                return Ok(tip.map(|t| t.commit));
            }
            let tree = notes.write_tree()?;
            let expected = tip.map(|t| t.commit);
            let id = self.write_commit(message, tree, expected, "a commit")?;
            self.flush_objects()?;
            let log = log.clone();
            match self.swap_all(&[Update {
                name: NOTES_REF,
                expected,
                new: id,
                log,
            }]) {
                Ok(()) => return Ok(Some(id)),
                // Lost the race (or met a lock): re-read, re-apply, try again.
                Err(e) => self.again(&mut retry, &[NOTES_REF], e)?,
            }
        }
    }
}

impl Store {
    /// The notes of notes tree `theirs` that notes tree `ours` lacks or holds with other text:
    /// (annotated commit, their text, our text). Subtrees both hold unchanged are skipped, so
    /// the cost follows what differs, not how many notes there are.
    pub(crate) fn notes_differing(
        &self,
        ours: Option<ObjectId>,
        theirs: ObjectId,
    ) -> Result<Vec<(ObjectId, String, Option<String>)>> {
        let mut found = Vec::new();
        let _ = self.walk_notes(String::new(), theirs, ours, None, &mut found)?;
        let mut mine = self.notes_reader(ours)?;
        let mut out = Vec::new();
        for (commit, blob) in found {
            let text = super::partial::find_blob(&self.repo, blob, &|| {
                format!("cannot read the note of {commit}")
            })?;
            let text = String::from_utf8_lossy(&text.data).into_owned();
            let our = mine.get(commit)?;
            if our.as_deref() != Some(text.as_str()) {
                out.push((commit, text, our));
            }
        }
        Ok(out)
    }

    /// Like [`Store::notes_differing`] for a remote's notes tree, which is not trusted: a note
    /// past `rune.maxNoteBytes` is refused alone (annotated commit, why), a tree past
    /// `rune.maxTreeEntries` makes the whole ref unreadable.
    #[allow(clippy::type_complexity)]
    pub(crate) fn notes_incoming(
        &self,
        ours: Option<ObjectId>,
        theirs: ObjectId,
    ) -> Result<
        std::result::Result<
            (
                Vec<(ObjectId, String, Option<String>)>,
                Vec<(ObjectId, String)>,
            ),
            super::Unreadable,
        >,
    > {
        let limits = self.limits();
        let mut found = Vec::new();
        if let Err(u) = self.walk_notes(
            String::new(),
            theirs,
            ours,
            Some(limits.tree_entries),
            &mut found,
        )? {
            return Ok(Err(u));
        }
        let mut mine = self.notes_reader(ours)?;
        let mut out = Vec::new();
        let mut refused = Vec::new();
        for (commit, blob) in found {
            let Ok(text) = super::partial::find_blob(&self.repo, blob, &|| {
                format!("cannot read the note of {commit}")
            }) else {
                return Ok(Err(super::Unreadable::Missing));
            };
            if text.data.len() > limits.note_bytes {
                refused.push((
                    commit,
                    format!(
                        "the note is {} bytes, more than rune.maxNoteBytes ({})",
                        text.data.len(),
                        limits.note_bytes
                    ),
                ));
                continue;
            }
            let text = String::from_utf8_lossy(&text.data).into_owned();
            let our = mine.get(commit)?;
            if our.as_deref() != Some(text.as_str()) {
                out.push((commit, text, our));
            }
        }
        Ok(Ok((out, refused)))
    }

    /// (annotated commit, note blob) of every note of notes tree `theirs` whose subtree
    /// differs from the same path in `ours`.
    pub(super) fn notes_differing_ids(
        &self,
        ours: Option<ObjectId>,
        theirs: ObjectId,
    ) -> Result<Vec<(ObjectId, ObjectId)>> {
        let mut found = Vec::new();
        let _ = self.walk_notes(String::new(), theirs, ours, None, &mut found)?;
        Ok(found)
    }

    /// (annotated commit, note blob) of every note below `theirs` whose subtree differs from
    /// the same path in `ours`. With `limit`, `theirs` is a remote's tree, not trusted: one
    /// that cannot be read or holds more than `limit` entries makes the walk `Err`.
    fn walk_notes(
        &self,
        prefix: String,
        theirs: ObjectId,
        ours: Option<ObjectId>,
        limit: Option<usize>,
        out: &mut Vec<(ObjectId, ObjectId)>,
    ) -> Result<std::result::Result<(), super::Unreadable>> {
        let entries = match limit {
            None => self.note_entries(theirs)?,
            Some(limit) => {
                let Ok(tree) = self.repo.read_tree(theirs) else {
                    return Ok(Err(super::Unreadable::Missing));
                };
                let Ok(decoded) = tree.decode() else {
                    return Ok(Err(super::Unreadable::Damaged(
                        "a notes tree cannot be read".into(),
                    )));
                };
                if decoded.entries.len() > limit {
                    return Ok(Err(super::Unreadable::Damaged(format!(
                        "a notes tree holds {} entries, more than rune.maxTreeEntries ({limit})",
                        decoded.entries.len()
                    ))));
                }
                entries_of(&decoded)
            }
        };
        let ours: std::collections::HashMap<String, (bool, ObjectId)> = match ours {
            Some(o) => self
                .note_entries(o)?
                .into_iter()
                .map(|(n, t, id)| (n, (t, id)))
                .collect(),
            None => Default::default(),
        };
        for (name, is_tree, id) in entries {
            let same = ours.get(&name).copied();
            if same.is_some_and(|(_, o)| o == id) {
                continue;
            }
            let path = format!("{prefix}{name}");
            if is_tree {
                if limit.is_some() && path.len() >= 40 {
                    continue;
                }
                let sub = same.filter(|(t, _)| *t).map(|(_, o)| o);
                if let Err(u) = self.walk_notes(path, id, sub, limit, out)? {
                    return Ok(Err(u));
                }
            } else if let Ok(commit) = ObjectId::from_hex(path.as_bytes()) {
                out.push((commit, id));
            }
        }
        Ok(Ok(()))
    }

    /// The entries of notes tree `id`: (name, whether a tree, id).
    fn note_entries(&self, id: ObjectId) -> Result<Vec<(String, bool, ObjectId)>> {
        let tree = self
            .repo
            .read_tree(id)
            .map_err(git_err(format!("cannot read notes tree {id}")))?;
        let decoded = tree
            .decode()
            .map_err(git_err("cannot decode a notes tree"))?;
        Ok(entries_of(&decoded))
    }

    /// The notes tree of `base` (a notes tree, or none) with `notes` set: the tree both a
    /// published notes commit and a landed notes merge are made of.
    fn notes_tree_with(
        &self,
        base: Option<ObjectId>,
        notes: &[(ObjectId, String)],
    ) -> Result<ObjectId> {
        let mut tree = self.notes_reader(base)?;
        for (commit, text) in notes {
            tree.set(*commit, text)?;
        }
        tree.write_tree()
    }

    /// Writes (without moving any ref) a notes commit of `base` (a notes tree, or none) with
    /// `notes` set, with `parents`: the notes a sync publishes when some stay here.
    pub(crate) fn write_notes_commit(
        &self,
        base: Option<ObjectId>,
        parents: &[ObjectId],
        notes: &[(ObjectId, String)],
        summary: &str,
    ) -> Result<ObjectId> {
        let tree = self.notes_tree_with(base, notes)?;
        let message = notes_message(summary);
        let id = self.write_commit(&message, tree, parents.iter().copied(), "a notes commit")?;
        self.flush_objects()?;
        Ok(id)
    }

    /// Commits the notes of `ours` (the notes ref's tip, or none) with `notes` set, as a commit
    /// with `parents`, and moves refs/notes/rune from `ours` to it (a notes merge). Fails if
    /// the notes ref moved meanwhile (the caller merges again).
    pub(crate) fn land_notes(
        &self,
        ours: Option<Tip>,
        parents: &[ObjectId],
        notes: &[(ObjectId, String)],
        summary: &str,
    ) -> Result<ObjectId> {
        let tree = self.notes_tree_with(ours.map(|t| t.tree), notes)?;
        let message = notes_message(summary);
        self.land_commit(NOTES_REF, ours.map(|t| t.commit), tree, parents, &message)
    }
}

/// The notes of refs/notes/rune at one notes commit, for [`Store::edit_notes`].
pub struct Notes<'a> {
    pub(super) store: &'a Store,
    pub(super) tree: NotesTree,
}

impl Notes<'_> {
    /// The note text of `commit` (invalid UTF-8 replaced), if it has one.
    pub(crate) fn get(&mut self, commit: ObjectId) -> Result<Option<String>> {
        let repo = &self.store.repo;
        let Some(blob) = self
            .tree
            .get(&commit, repo)
            .or_else(|_| self.tree.get(&commit, repo))
            .map_err(git_err(format!("cannot look up the note of {commit}")))?
        else {
            return Ok(None);
        };
        let blob =
            super::partial::find_blob(repo, blob, &|| format!("cannot read the note of {commit}"))?;
        Ok(Some(String::from_utf8_lossy(&blob.data).into_owned()))
    }

    /// Sets the note of `commit` to `text`, with a final newline as `git notes add -m` gives
    /// it; whether the note changed.
    pub(crate) fn set(&mut self, commit: ObjectId, text: &str) -> Result<bool> {
        let repo = &self.store.repo;
        let nl = if text.is_empty() || text.ends_with('\n') {
            ""
        } else {
            "\n"
        };
        let blob = repo
            .write_blob(format!("{text}{nl}").as_bytes())
            .map_err(git_err("cannot write a note"))?
            .detach();
        let previous = self
            .tree
            .edit(commit, Some(blob), repo)
            .map_err(git_err(format!("cannot write the note of {commit}")))?;
        Ok(previous != Some(blob))
    }
}

fn entries_of(tree: &gix::objs::TreeRef<'_>) -> Vec<(String, bool, ObjectId)> {
    tree.entries
        .iter()
        .map(|e| (e.filename.to_string(), e.mode.is_tree(), e.oid.to_owned()))
        .collect()
}

/// git's notes commit shape (`Notes added by 'git notes add'`), with the summary as body.
fn notes_message(summary: &str) -> String {
    match first_line(summary).trim() {
        "" => "Notes added by 'git rune'\n".to_owned(),
        s => format!("Notes added by 'git rune'\n\n{s}\n"),
    }
}
