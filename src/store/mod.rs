//! Everything that touches git: the only module that imports gix, and the only one that runs
//! the `git` program (for what gix cannot do: config writes, blame, network transport).
//! Opening the repository, memory refs, record trees, compare-and-swap commits, notes, history
//! walks and the state of the work tree.

mod added;
mod ahead_behind;
mod chain;
mod generations;
mod git_cli;
mod history;
mod incoming;
mod locate;
mod loose;
mod maintenance;
mod notes;
mod objects;
mod owner;
mod pack;
mod partial;
mod records;
mod refs;
mod remote;
mod share;
mod update;
mod worktree;

use std::path::{Path, PathBuf};

pub use ahead_behind::{AheadBehind, AheadBehindError, WalkCost};
pub use git_cli::{Blame, PushOutcome, RefusedRef};
pub use gix::hash::Kind as HashKind;
pub use gix::ObjectId;
pub use history::{CommitInfo, HistoryProblem};
pub use incoming::{BadLine, Incoming, Limits, Unreadable};
pub use locate::{locate, Located};
pub use maintenance::no_auto_maintenance;
pub use notes::{Notes, NOTES_REF};
pub(crate) use refs::commit_message;
pub use refs::{
    branch_ref, Commit as MemoryCommit, Stamp, Tip, BRANCHES_PREFIX, DETACHED_REF, MEMORY_REF,
};
pub use remote::{
    fetch_refspecs, published_ref, tracking_ref, Source, TransferError, CLONES_PREFIX,
    TRACKING_PREFIX,
};
pub use update::HOOK_PATIENCE;
pub(crate) use worktree::blob_id;
pub use worktree::HeadInfo;

/// Typed failures of the storage layer; the CLI adds hints.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("not a git repository (or any parent directory): {}", .0.display())]
    NotARepository(PathBuf),
    #[error("{name} points at a {kind}, not a commit")]
    NotACommit { name: String, kind: String },
    #[error("{name} names {id}, which is missing from the object database")]
    MissingObject { name: String, id: String },
    /// A memory ref that names no object: its file holds something other than an object id,
    /// or it is a symbolic ref (memory refs always name a commit themselves).
    #[error("{name} is damaged: {why}")]
    BadRef { name: String, why: String },
    #[error("{context}")]
    Git {
        context: String,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
    #[error("{context}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{name} kept changing under us ({attempts} attempts); nothing was written")]
    Contended { name: String, attempts: usize },
    #[error("cannot lock a ref: '{}' exists; nothing was written", .path.display())]
    Locked { path: PathBuf },
    #[error("{missing} memory object(s) are missing from this partial clone and could not be fetched from {remotes}: {detail}")]
    PartialClone {
        missing: usize,
        remotes: String,
        detail: String,
    },
    #[error("{what}")]
    Unsupported { what: String, hint: String },
    #[error("{name}:{path} line {line}: {message}")]
    BadRecord {
        name: String,
        path: String,
        line: usize,
        message: String,
    },
}

impl StoreError {
    /// What the user can do about it.
    pub(crate) fn hint(&self) -> Option<String> {
        match self {
            StoreError::NotARepository(_) => {
                Some("run git rune inside a git repository (create one with `git init`)".into())
            }
            StoreError::NotACommit { name, .. }
            | StoreError::MissingObject { name, .. }
            | StoreError::BadRef { name, .. } => {
                let (commit, what) = match name == NOTES_REF {
                    true => ("a notes commit", "the commit notes"),
                    false => ("a memory commit", "that memory"),
                };
                Some(format!(
                    "git-rune will not write over it: point {name} back at {commit} with `git update-ref {name} <commit>`, or remove it with `git update-ref -d {name}` to start {what} afresh"
                ))
            }
            StoreError::Contended { .. } => Some("other processes are writing memory right now; run the command again".into()),
            StoreError::PartialClone { remotes, .. } => Some(format!(
                "connect to {remotes} and run the command again (git-rune fetches what memory needs), or use a clone made without --filter"
            )),
            StoreError::Unsupported { hint, .. } => Some(hint.clone()),
            StoreError::Locked { path } => Some(format!(
                "another git or git-rune process seems to be running in this repository; make sure all such processes are done, then try again. If it still fails, a process may have crashed here earlier: remove the file to continue (rm '{}')",
                path.display()
            )),
            StoreError::BadRecord { name, .. } => Some(format!(
                "the record is damaged; inspect it with `git show {name}:<path>` and `git log {name}`"
            )),
            StoreError::Git { .. } | StoreError::Io { .. } => None,
        }
    }
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// Wraps a gix failure with what git-rune was doing, keeping it as the error's source.
pub(crate) fn git_err<E>(context: impl Into<String>) -> impl FnOnce(E) -> StoreError
where
    E: std::error::Error + Send + Sync + 'static,
{
    let context = context.into();
    move |e| StoreError::Git {
        context,
        source: Box::new(e),
    }
}

/// Wraps a file-system failure with what git-rune was doing.
pub(crate) fn io_err(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> StoreError {
    let context = context.into();
    move |source| StoreError::Io { context, source }
}

/// An open repository plus the identity and clock used to stamp records.
pub struct Store {
    repo: gix::Repository,
    /// `Name <email>` for records and memory commits.
    pub author: Identity,
    /// Records already read in this process, by tree id: a command reads the same trees
    /// several times (view base, commit, refresh) and trees are immutable.
    cache: std::cell::RefCell<
        std::collections::HashMap<gix::ObjectId, std::rc::Rc<Vec<crate::model::Record>>>,
    >,
    /// This process's owner file, from its first write on (`owner.rs`).
    owner: std::cell::RefCell<Option<owner::Owner>>,
    /// How long a write waits for a ref lock another process holds.
    patience: std::cell::Cell<std::time::Duration>,
    /// Objects were written: dropping the store starts git's automatic maintenance
    /// (`maintenance.rs`).
    wrote: std::cell::Cell<bool>,
}

/// Who memory commits and records are attributed to.
#[derive(Debug, Clone)]
pub struct Identity {
    pub name: String,
    pub email: String,
    /// True when no identity was configured and the fallback is used.
    pub fallback: bool,
}

impl Identity {
    pub(crate) fn display(&self) -> String {
        format!("{} <{}>", self.name, self.email)
    }
}

/// The name used when git has no identity configured; the CLI says how to set one.
pub const FALLBACK_NAME: &str = "git-rune";
pub const FALLBACK_EMAIL: &str = "git-rune@localhost";

impl Store {
    /// Opens the repository containing `dir`, honouring `GIT_DIR` and friends.
    pub fn open(dir: &Path) -> Result<Store> {
        let repo = gix::ThreadSafeRepository::discover_with_environment_overrides(dir)
            .map_err(|_| {
                unsupported_format(dir).unwrap_or(StoreError::NotARepository(dir.to_path_buf()))
            })?
            .to_thread_local();
        Self::with_repo(repo)
    }

    /// Opens the bare repository at exactly `path` (no discovery, no `GIT_DIR`), creating it
    /// first when it does not exist and `create` is set; `None` when it does not exist and
    /// `create` is not. For memory that belongs to no project: the user-level memory.
    pub fn open_bare(path: &Path, create: bool) -> Result<Option<Store>> {
        let repo = if path.exists() {
            gix::open(path).map_err(|_| StoreError::NotARepository(path.to_path_buf()))?
        } else if create {
            gix::init_bare(path).map_err(git_err("cannot create the repository"))?
        } else {
            return Ok(None);
        };
        Self::with_repo(repo).map(Some)
    }

    fn with_repo(mut repo: gix::Repository) -> Result<Store> {
        // Refuse before anything is read or written: gix would write loose refs git cannot
        // see next to a reftable, and `git gc` would then delete what they point at.
        let ref_storage = repo
            .config_snapshot()
            .string("extensions.refStorage")
            .map(|v| v.to_string().to_ascii_lowercase());
        if let Some(format) = ref_storage.filter(|f| f != "files") {
            return Err(StoreError::Unsupported {
                what: format!(
                    "this repository keeps its refs in the {format} format (extensions.refStorage), which git-rune cannot write yet; nothing was read or written"
                ),
                hint: "git-rune needs the files ref format: convert the repository with `git refs migrate --ref-format=files` (git 2.46 or later), or use git-rune in another clone".into(),
            });
        }
        // Commits and trees are read more than once per command (a ref's tip, then its tree;
        // the notes tree before and during a write): keep recent objects decoded.
        repo.object_cache_size_if_unset(4 << 20);
        // Objects are written to disk only when a ref is about to make them reachable.
        repo.objects.enable_object_memory();
        let author = identity(&repo);
        Ok(Store {
            repo,
            author,
            cache: Default::default(),
            owner: Default::default(),
            patience: std::cell::Cell::new(update::COMMAND_PATIENCE),
            wrote: std::cell::Cell::new(false),
        })
    }

    /// The work tree, or `None` in a bare repository.
    pub fn workdir(&self) -> Option<&Path> {
        self.repo.workdir()
    }

    /// The per-worktree git directory (a linked worktree has its own).
    pub fn git_dir(&self) -> &Path {
        self.repo.git_dir()
    }

    /// The directory shared by all worktrees (holds `info/exclude` and the refs).
    pub fn common_dir(&self) -> &Path {
        self.repo.common_dir()
    }

    /// Whether the object database holds `id`.
    pub(crate) fn has_object(&self, id: ObjectId) -> bool {
        self.repo.has_object(id)
    }

    /// The hash the repository's object ids use.
    pub(crate) fn hash_kind(&self) -> HashKind {
        self.repo.object_hash()
    }

    /// The current time as RFC 3339 UTC seconds; `GIT_RUNE_TIMESTAMP` overrides it (tests).
    pub fn now(&self) -> String {
        now_rfc3339()
    }

    /// The same instant as seconds since the epoch, for commit signatures.
    pub(crate) fn now_seconds(&self) -> i64 {
        chrono::DateTime::parse_from_rfc3339(&self.now())
            .map(|t| t.timestamp())
            .unwrap_or(0)
    }
}

/// Why a repository gix could not open is one git-rune cannot serve, asked of git itself
/// (only after gix failed, so never on a working path): SHA-256 object ids. `None` when git
/// sees nothing of the kind (then it is not a repository at all, or a damaged one).
fn unsupported_format(dir: &Path) -> Option<StoreError> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["rev-parse", "--show-object-format"])
        .output()
        .ok()?;
    let format = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    (out.status.success() && format != "sha1").then(|| StoreError::Unsupported {
        what: format!(
            "this repository uses {format} object ids, which git-rune does not support yet; nothing was read or written"
        ),
        hint: "git-rune works in SHA-1 repositories (git's default)".into(),
    })
}

/// Reads `GIT_RUNE_TIMESTAMP` (RFC 3339) or the system clock.
pub(crate) fn now_rfc3339() -> String {
    if let Some(t) = std::env::var("GIT_RUNE_TIMESTAMP")
        .ok()
        .and_then(|v| crate::text::add_secs(&v, 0))
    {
        return t;
    }
    chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

fn identity(repo: &gix::Repository) -> Identity {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
    let config = repo.config_snapshot();
    let cfg = |k: &str| {
        config
            .string(k)
            .map(|v| v.to_string())
            .filter(|v| !v.trim().is_empty())
    };
    let name = env("GIT_AUTHOR_NAME")
        .or_else(|| cfg("user.name"))
        .or_else(|| env("GIT_COMMITTER_NAME"));
    let email = env("GIT_AUTHOR_EMAIL")
        .or_else(|| cfg("user.email"))
        .or_else(|| env("GIT_COMMITTER_EMAIL"))
        .or_else(|| env("EMAIL"));
    match (name, email) {
        (Some(name), Some(email)) => Identity {
            name,
            email,
            fallback: false,
        },
        (name, email) => Identity {
            name: name.unwrap_or_else(|| FALLBACK_NAME.into()),
            email: email.unwrap_or_else(|| FALLBACK_EMAIL.into()),
            fallback: true,
        },
    }
}

/// A new empty repository in a temporary directory, for other modules' unit tests (only the
/// store runs git).
#[cfg(test)]
pub(crate) fn scratch() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let ok = std::process::Command::new("git")
        .args(["init", "-q"])
        .arg(dir.path())
        .status()
        .unwrap()
        .success();
    assert!(ok, "git init");
    let store = Store::open(dir.path()).unwrap();
    (dir, store)
}
