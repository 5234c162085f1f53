//! The store's side of what sharing needs beyond fetch and push: tracking refs moved after a
//! push, the notes a tree holds and dropping some (expiry), which commits the clone's own refs
//! reach, and fetching a remote's branches before `gc` judges what they reach.

use std::collections::HashSet;

use gix::ObjectId;

use super::git_cli::git;
use super::notes::{Notes, NOTES_REF};
use super::update::Update;
use super::{git_err, Result, Store, StoreError};

impl Store {
    /// Sets tracking ref `name` to `id` (after a push that landed it): tracking refs mirror the
    /// remote, so this is a plain update, not a compare-and-swap.
    pub(crate) fn set_tracking_ref(&self, name: &str, id: ObjectId, remote: &str) -> Result<()> {
        let current = self.ref_id(name)?;
        if current == Some(id) {
            return Ok(());
        }
        self.swap_all(&[Update {
            name,
            expected: current,
            new: id,
            log: format!("rune: pushed to {remote}"),
        }])
    }

    /// The notes of notes tree `tree` (none: no notes), to look notes up in.
    pub(crate) fn notes_reader(&self, tree: Option<ObjectId>) -> Result<Notes<'_>> {
        let root = tree.unwrap_or_else(|| ObjectId::empty_tree(self.repo.object_hash()));
        self.notes_at(root)
    }

    /// Every commit refs/notes/rune annotates.
    pub(crate) fn note_commits(&self) -> Result<Vec<ObjectId>> {
        let Some(tip) = self.tip(NOTES_REF)? else {
            return Ok(Vec::new());
        };
        Ok(self
            .notes_differing_ids(None, tip.tree)?
            .into_iter()
            .map(|(c, _)| c)
            .collect())
    }

    /// Removes the notes of `commits` from refs/notes/rune in one notes commit,
    /// compare-and-swap. Returns how many were there.
    pub(crate) fn drop_notes(&self, commits: &[ObjectId], summary: &str) -> Result<usize> {
        if commits.is_empty() {
            return Ok(0);
        }
        let message = format!("Notes removed by 'git rune gc'\n\n{summary}\n");
        let mut dropped = 0;
        self.swap_notes(&message, format!("notes: {summary}"), |notes| {
            dropped = 0;
            for commit in commits {
                dropped += usize::from(notes.remove(*commit)?);
            }
            Ok(dropped > 0)
        })?;
        Ok(dropped)
    }

    /// Every commit reachable from this clone's branches, tags and remote-tracking branches
    /// (and HEAD): its code history, as far as it knows the remotes' too.
    pub(crate) fn code_history(&self) -> Result<HashSet<ObjectId>> {
        let mut tips = Vec::new();
        for prefix in ["refs/heads/", "refs/tags/", "refs/remotes/"] {
            for (_, id) in self.refs_under(prefix)? {
                tips.push(id);
            }
        }
        if let Ok(head) = self.repo.head_id() {
            tips.push(head.detach());
        }
        let mut commits = Vec::new();
        for id in tips {
            // Tags may name other objects: keep what peels to a commit.
            if let Ok(obj) = self.repo.find_object(id) {
                if let Ok(c) = obj.peel_to_commit() {
                    commits.push(c.id);
                }
            }
        }
        let mut out = HashSet::new();
        if commits.is_empty() {
            return Ok(out);
        }
        let walk = self
            .repo
            .rev_walk(commits)
            .all()
            .map_err(git_err("cannot walk the code history"))?;
        for info in walk {
            let info = info.map_err(git_err("cannot walk the code history"))?;
            out.insert(info.id);
        }
        Ok(out)
    }

    /// Fetches `remote`'s branches as a plain `git fetch <remote>` would (its own refspecs),
    /// so `gc` judges notes against what the remote's branches reach now. Best effort: `false`
    /// when the fetch failed.
    pub(crate) fn fetch_branches(&self, remote: &str) -> bool {
        git("--git-dir", self.git_dir())
            .args([
                "fetch",
                "--quiet",
                "--no-tags",
                "--no-write-fetch-head",
                remote,
            ])
            .env("GIT_RUNE_SKIP_HOOKS", "1")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }
}

impl Notes<'_> {
    /// Removes the note of `commit`; whether it had one.
    pub(crate) fn remove(&mut self, commit: ObjectId) -> Result<bool> {
        let repo = &self.store.repo;
        let previous = self
            .tree
            .edit(commit, None, repo)
            .map_err(git_err(format!("cannot remove the note of {commit}")))?;
        Ok(previous.is_some())
    }

    /// Writes the notes tree as it is now.
    pub(crate) fn write_tree(&mut self) -> Result<ObjectId> {
        self.tree
            .write(&self.store.repo)
            .map_err(|e| StoreError::Git {
                context: format!("cannot write the notes tree of {NOTES_REF}"),
                source: Box::new(e),
            })
    }
}
