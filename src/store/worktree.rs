//! The state of the code beside the memory: HEAD, branch, upstream, dirty files and the blob
//! ids of files that records name.

use std::path::Path;

use gix::ObjectId;

use super::{git_err, Result, Store};

/// Where HEAD is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HeadInfo {
    /// Short branch name; `None` when detached, except during a rebase, which replays the
    /// branch it rebases on a detached HEAD: that branch.
    pub branch: Option<String>,
    /// The commit HEAD resolves to; `None` on an unborn branch.
    pub head: Option<ObjectId>,
    /// `remote/branch` of the configured upstream, if any.
    pub upstream: Option<String>,
}

/// Dirty files listed in a session record, at most.
const MAX_DIRTY: usize = 200;

impl Store {
    /// Reads HEAD, its branch (during a rebase, the branch being rebased) and the branch's
    /// upstream.
    pub fn head_info(&self) -> Result<HeadInfo> {
        let head = self.repo.head().map_err(git_err("cannot read HEAD"))?;
        let branch = (head.referent_name().map(|n| n.shorten().to_string()))
            .or_else(|| self.rebasing_branch());
        let head_id = head.id().map(|id| id.detach());
        let upstream = branch.as_deref().and_then(|b| {
            let config = self.repo.config_snapshot();
            let remote = config.string(format!("branch.{b}.remote").as_str())?;
            let merge = config.string(format!("branch.{b}.merge").as_str())?;
            let merge = merge.to_string();
            let short = merge.strip_prefix("refs/heads/").unwrap_or(&merge);
            Some(format!("{remote}/{short}"))
        });
        Ok(HeadInfo {
            branch,
            head: head_id,
            upstream,
        })
    }

    /// The branch a rebase in progress is rebasing, from git's rebase state (`head-name`);
    /// `None` without a rebase, or for a rebase of a detached HEAD.
    pub fn rebasing_branch(&self) -> Option<String> {
        ["rebase-merge", "rebase-apply"].iter().find_map(|dir| {
            let name = std::fs::read_to_string(self.git_dir().join(dir).join("head-name")).ok()?;
            name.trim().strip_prefix("refs/heads/").map(str::to_owned)
        })
    }

    /// The names branch `to` had before, newest first (`git branch -m A B`, then `B C`: B, A),
    /// from the renames its reflog records.
    pub fn renamed_from(&self, to: &str) -> Vec<String> {
        let log = self.repo.common_dir().join("logs/refs/heads").join(to);
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let renames: Vec<(&str, &str)> = (text.lines())
            .filter_map(|l| {
                let (_, said) = l.split_once("\tBranch: renamed refs/heads/")?;
                said.split_once(" to refs/heads/")
            })
            .collect();
        let mut out: Vec<String> = Vec::new();
        let mut name = to;
        while let Some((a, _)) = renames.iter().rev().find(|(_, b)| *b == name) {
            if *a == to || out.iter().any(|o| o == a) {
                break;
            }
            out.push((*a).to_owned());
            name = a;
        }
        out
    }

    /// Renames ref `from` to `to` (which must not exist) in one transaction, keeping the commit
    /// it names; fails if either moved meanwhile.
    pub(crate) fn rename_ref(&self, from: &str, to: &str) -> Result<()> {
        use gix::refs::transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog};
        use gix::refs::Target;
        let Some(id) = self.ref_id(from)? else {
            return Ok(());
        };
        let name = |n: &str| {
            n.try_into()
                .map_err(git_err::<gix::validate::reference::name::Error>(format!(
                    "invalid ref name {n}"
                )))
        };
        let edits = vec![
            RefEdit {
                change: Change::Update {
                    log: LogChange {
                        mode: RefLog::AndReference,
                        force_create_reflog: false,
                        message: format!("renamed from {from}").into(),
                    },
                    expected: PreviousValue::MustNotExist,
                    new: Target::Object(id),
                },
                name: name(to)?,
                deref: false,
            },
            RefEdit {
                change: Change::Delete {
                    expected: PreviousValue::MustExistAndMatch(Target::Object(id)),
                    log: RefLog::AndReference,
                },
                name: name(from)?,
                deref: false,
            },
        ];
        self.repo
            .edit_references(edits)
            .map(drop)
            .map_err(git_err(format!("cannot rename {from} to {to}")))
    }

    /// The branch HEAD was on before it last moved to `branch` (`git checkout`/`switch`, as the
    /// HEAD log records it): `None` without such a move, or when it came from `branch` itself or
    /// from a detached HEAD.
    pub fn previous_branch(&self, branch: &str) -> Option<String> {
        let log = std::fs::read_to_string(self.git_dir().join("logs").join("HEAD")).ok()?;
        log.lines().rev().find_map(|line| {
            let (_, message) = line.split_once('\t')?;
            let moves = message.strip_prefix("checkout: moving from ")?;
            let (from, to) = moves.rsplit_once(" to ")?;
            (to == branch && from != branch && !from.chars().all(|c| c.is_ascii_hexdigit()))
                .then(|| from.to_owned())
        })
    }

    /// Tracked files whose work-tree content differs from the index (modified or deleted),
    /// sorted. Untracked files are not listed: that needs a directory walk, which costs more
    /// than a save should.
    pub(crate) fn dirty_files(&self) -> Result<Vec<String>> {
        let Some(workdir) = self.workdir() else {
            return Ok(Vec::new());
        };
        let index = self
            .repo
            .index_or_empty()
            .map_err(git_err("cannot read the index"))?;
        let mut out = Vec::new();
        for entry in index.entries() {
            if out.len() >= MAX_DIRTY {
                break;
            }
            if !matches!(
                entry.mode,
                gix::index::entry::Mode::FILE | gix::index::entry::Mode::FILE_EXECUTABLE
            ) {
                continue;
            }
            let rela = entry.path(&index).to_string();
            let path = workdir.join(&rela);
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                out.push(rela);
                continue;
            };
            let same_stat = gix::index::fs::Metadata::from_path_no_follow(&path)
                .ok()
                .and_then(|m| gix::index::entry::Stat::from_fs(&m).ok())
                .is_some_and(|s| {
                    s.mtime.secs == entry.stat.mtime.secs
                        && s.mtime.nsecs == entry.stat.mtime.nsecs
                        && s.size == entry.stat.size
                });
            if same_stat && u64::from(entry.stat.size) == meta.len() {
                continue;
            }
            match self.file_blob_id(&path) {
                Some(id) if id == entry.id => {}
                _ => out.push(rela),
            }
        }
        out.sort();
        Ok(out)
    }

    /// The blob id a file's current content would have, or `None` when it cannot be read.
    pub(crate) fn file_blob_id(&self, path: &Path) -> Option<ObjectId> {
        let data = std::fs::read(path).ok()?;
        blob_id(self.repo.object_hash(), &data)
    }

    /// HEAD's reflog in this clone (or work tree), oldest first: each entry's time (seconds
    /// since the epoch) and message (`checkout: moving from main to topic`). Empty when git
    /// keeps no reflog here.
    pub(crate) fn head_reflog(&self) -> Vec<(i64, String)> {
        let text =
            std::fs::read_to_string(self.git_dir().join("logs").join("HEAD")).unwrap_or_default();
        text.lines()
            .filter_map(|line| {
                let (who, message) = line.split_once('\t')?;
                // `<old> <new> Name <email> <time> <tz>`
                let mut fields = who.rsplitn(3, ' ');
                let _tz = fields.next()?;
                let time = fields.next()?.parse().ok()?;
                Some((time, message.to_owned()))
            })
            .collect()
    }

    /// Blob ids of work-tree files relative to the repository root (empty string when absent).
    pub(crate) fn file_blobs(
        &self,
        files: &[String],
    ) -> std::collections::BTreeMap<String, String> {
        let Some(workdir) = self.workdir() else {
            return Default::default();
        };
        files
            .iter()
            .map(|f| {
                let id = self
                    .file_blob_id(&workdir.join(f))
                    .map(|id| id.to_string())
                    .unwrap_or_default();
                (f.clone(), id)
            })
            .collect()
    }
}

/// The git blob id of `data`.
pub(crate) fn blob_id(kind: gix::hash::Kind, data: &[u8]) -> Option<ObjectId> {
    gix::objs::compute_hash(kind, gix::objs::Kind::Blob, data).ok()
}
