//! Walks over code and memory history: resolving revisions, first-parent chains, whether a
//! commit touched a path, and checking that a memory ref's whole history is present.

use std::collections::HashSet;

use gix::ObjectId;

use super::objects::{self, ReadObjects as _};
use super::{git_err, Result, Store, StoreError};

/// One commit as history listings need it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitInfo {
    pub id: ObjectId,
    /// Committer time, seconds since the epoch.
    pub time: i64,
    /// The full message (invalid UTF-8 replaced).
    pub message: String,
    pub first_parent: Option<ObjectId>,
}

/// Something missing or wrong in a memory ref's history, found by [`Store::check_history`].
#[derive(Debug)]
pub struct HistoryProblem {
    pub commit: ObjectId,
    pub error: StoreError,
}

impl Store {
    /// The branches (local, then remote-tracking) whose tip commit holds `path` (a folder
    /// such as `.rune`), by short name. Reads one tree entry per branch: cheap enough for
    /// `init`, which tells seed users their committed `.rune/` folder can be imported.
    pub fn branches_holding(&self, path: &str) -> Result<Vec<String>> {
        let platform = self
            .repo
            .references()
            .map_err(git_err("cannot list references"))?;
        let mut out = Vec::new();
        for prefix in ["refs/heads/", "refs/remotes/"] {
            let iter = platform
                .prefixed(prefix)
                .map_err(git_err("cannot list references"))?;
            for r in iter.flatten() {
                let name = r.name().as_bstr().to_string();
                // A symbolic ref (`origin/HEAD`) names a branch listed on its own.
                let Some(id) = r.try_id() else { continue };
                let holds = objects::entry_in_commit(&self.repo, id.detach(), path)
                    .ok()
                    .flatten()
                    .is_some();
                if holds {
                    out.push(name.strip_prefix(prefix).unwrap_or(&name).to_owned());
                }
            }
        }
        Ok(out)
    }

    /// Whether the commit `HEAD` names holds `path` (a folder such as `.rune`): the current
    /// branch commits it, so its files in the work tree are tracked, not git-rune's view.
    /// False on an unborn branch.
    pub fn head_holds(&self, path: &str) -> bool {
        self.repo
            .head_id()
            .ok()
            .and_then(|id| objects::entry_in_commit(&self.repo, id.detach(), path).ok())
            .flatten()
            .is_some()
    }

    /// The root commit `HEAD` descends from along first parents: the same in every clone of a
    /// project, so it names the project (`None` on an unborn branch). Walks the whole
    /// first-parent chain: for commands a person runs, never for hooks.
    pub fn root_commit(&self) -> Option<ObjectId> {
        let mut id = self.repo.head_id().ok()?.detach();
        loop {
            let commit = self.repo.read_commit(id).ok()?;
            let Some(parent) = commit.parent_ids().next() else {
                return Some(id);
            };
            id = parent.detach();
        }
    }

    /// The commit a revision names (`HEAD~2`, a branch, a tag, an id), peeled through tags;
    /// `None` when it names nothing here or something that is not a commit.
    pub fn resolve_commit(&self, rev: &str) -> Option<ObjectId> {
        self.repo
            .rev_parse_single(rev)
            .ok()
            .and_then(|id| objects::peel_to_commit(&self.repo, id.detach()).ok())
            .map(|c| c.id)
    }

    /// Why a revision may name no commit here beyond a typo, said after the error: no commit
    /// yet, or a shallow clone whose older history was not fetched.
    pub fn why_no_commit(&self) -> Option<&'static str> {
        if self.repo.head_id().is_err() {
            return Some(" (this repository has no commits yet)");
        }
        self.repo.is_shallow().unwrap_or(false).then_some(
            " (this clone is shallow: history older than it fetched is not here; `git fetch --unshallow` fetches it)",
        )
    }

    /// Reads one commit.
    pub(crate) fn commit_info(&self, id: ObjectId) -> Result<CommitInfo> {
        let commit = self
            .repo
            .read_commit(id)
            .map_err(git_err(format!("cannot read commit {id}")))?;
        let first_parent = commit.parent_ids().next().map(|p| p.detach());
        Ok(CommitInfo {
            id,
            time: commit.time().map(|t| t.seconds).unwrap_or(0),
            message: commit.message_raw_sloppy().to_string(),
            first_parent,
        })
    }

    /// The first-parent chain from `start`, newest first, at most `limit` commits.
    pub(crate) fn first_parent_chain(
        &self,
        start: ObjectId,
        limit: usize,
    ) -> Result<Vec<CommitInfo>> {
        let mut out = Vec::new();
        let mut next = Some(start);
        while let Some(id) = next {
            if out.len() >= limit {
                break;
            }
            let info = self.commit_info(id)?;
            next = info.first_parent;
            out.push(info);
        }
        Ok(out)
    }

    /// Whether `commit` changed `path` against its first parent (a root commit touches what
    /// it holds). Unreadable commits count as not touching.
    pub(crate) fn touches(&self, commit: ObjectId, path: &str) -> bool {
        let entry = |id: ObjectId| -> Option<ObjectId> {
            objects::entry_in_commit(&self.repo, id, path)
                .ok()?
                .map(|(_, id)| id)
        };
        let parent = self
            .repo
            .read_commit(commit)
            .ok()
            .and_then(|c| c.parent_ids().next().map(|p| p.detach()));
        entry(commit) != parent.and_then(entry)
    }

    /// The blob id of `path` in `commit`'s tree (`None` when absent or unreadable).
    pub(crate) fn blob_in_commit(&self, commit: ObjectId, path: &str) -> Option<ObjectId> {
        objects::entry_in_commit(&self.repo, commit, path)
            .ok()
            .flatten()
            .filter(|(mode, _)| mode.is_blob())
            .map(|(_, id)| id)
    }

    /// Whether `id` is a memory commit: a commit whose tree holds git-rune's `VERSION` blob (of
    /// any layout).
    pub(crate) fn is_memory_commit(&self, id: ObjectId) -> bool {
        objects::commit_tree(&self.repo, id)
            .ok()
            .and_then(|t| t.find_entry("VERSION").map(|e| e.object_id()))
            .and_then(|blob| self.repo.read_blob(blob).ok())
            .is_some_and(|b| super::records::layout_of(&b.data).is_some())
    }

    /// The memory ref whose first-parent history holds the memory commit `id`.
    pub(crate) fn memory_ref_of(&self, id: ObjectId) -> Result<Option<String>> {
        for name in self.memory_refs()? {
            let Some(tip) = self.ref_id(&name)? else {
                continue;
            };
            if self
                .first_parent_chain(tip, usize::MAX)?
                .iter()
                .any(|c| c.id == id)
            {
                return Ok(Some(name));
            }
        }
        Ok(None)
    }

    /// Checks every commit reachable from a ref: present, a commit, with its tree present.
    pub(crate) fn check_history(&self, name: &str) -> Result<Vec<HistoryProblem>> {
        let Some(tip) = self.ref_id(name)? else {
            return Ok(Vec::new());
        };
        let mut problems = Vec::new();
        let mut stack = vec![tip];
        let mut seen = HashSet::new();
        while let Some(id) = stack.pop() {
            if !seen.insert(id) {
                continue;
            }
            match self.tip_of(name, id) {
                Ok(t) if self.repo.has_object(t.tree) => {}
                Ok(t) => problems.push(HistoryProblem {
                    commit: id,
                    error: StoreError::MissingObject {
                        name: name.into(),
                        id: t.tree.to_string(),
                    },
                }),
                Err(error) => {
                    problems.push(HistoryProblem { commit: id, error });
                    continue;
                }
            }
            if let Ok(c) = self.repo.read_commit(id) {
                stack.extend(c.parent_ids().map(|p| p.detach()));
            }
        }
        Ok(problems)
    }
}
