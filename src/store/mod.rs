//! Everything that touches git through gix: opening the repository, memory refs, record
//! trees and compare-and-swap commits.

mod loose;
pub mod notes;
mod records;
mod refs;
mod worktree;

use std::path::{Path, PathBuf};

pub use records::{parse_tree_records, RecordTree};
pub use refs::{
    branch_ref, Commit as MemoryCommit, Tip, BRANCHES_PREFIX, DETACHED_REF, MEMORY_REF,
};
pub use worktree::{blob_id, HeadInfo, WorktreeError};

/// Typed failures of the storage layer; the CLI adds hints.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("not a git repository (or any parent directory): {}", .0.display())]
    NotARepository(PathBuf),
    #[error("{name} points at a {kind}, not a commit")]
    NotACommit { name: String, kind: String },
    #[error("{name} names {id}, which is missing from the object database")]
    MissingObject { name: String, id: String },
    #[error("{context}: {message}")]
    Git { context: String, message: String },
    #[error("{name} kept changing under us ({attempts} attempts); nothing was written")]
    Contended { name: String, attempts: usize },
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
    pub fn hint(&self) -> Option<String> {
        match self {
            StoreError::NotARepository(_) => {
                Some("run git rune inside a git repository (create one with `git init`)".into())
            }
            StoreError::NotACommit { name, .. } | StoreError::MissingObject { name, .. } => Some(format!(
                "git-rune will not write over it: point {name} back at a memory commit with `git update-ref {name} <commit>`, or remove it with `git update-ref -d {name}` to start that memory afresh"
            )),
            StoreError::Contended { .. } => Some("other processes are writing memory right now; run the command again".into()),
            StoreError::BadRecord { name, .. } => Some(format!(
                "the record is damaged; inspect it with `git show {name}:<path>` and `git log {name}`"
            )),
            StoreError::Git { .. } => None,
        }
    }
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

pub fn git_err(context: impl Into<String>) -> impl FnOnce(gix::Error) -> StoreError {
    let context = context.into();
    move |e| StoreError::Git {
        context,
        message: format!("{e}"),
    }
}

/// An open repository plus the identity and clock used to stamp records.
pub struct Store {
    pub repo: gix::Repository,
    /// `Name <email>` for records and memory commits.
    pub author: Identity,
    /// Records already read in this process, by tree id: a command reads the same trees
    /// several times (view base, commit, refresh) and trees are immutable.
    cache: std::cell::RefCell<
        std::collections::HashMap<gix::ObjectId, std::rc::Rc<Vec<crate::model::Record>>>,
    >,
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
    pub fn display(&self) -> String {
        format!("{} <{}>", self.name, self.email)
    }
}

/// The name used when git has no identity configured; the CLI says how to set one.
pub const FALLBACK_NAME: &str = "git-rune";
pub const FALLBACK_EMAIL: &str = "git-rune@localhost";

impl Store {
    /// Opens the repository containing `dir`, honouring `GIT_DIR` and friends.
    pub fn open(dir: &Path) -> Result<Store> {
        let mut repo = gix::ThreadSafeRepository::discover_with_environment_overrides(dir)
            .map_err(|_| StoreError::NotARepository(dir.to_path_buf()))?
            .to_thread_local();
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

    /// The current time as RFC 3339 UTC seconds; `GIT_RUNE_TIMESTAMP` overrides it (tests).
    pub fn now(&self) -> String {
        now_rfc3339()
    }

    /// The same instant as seconds since the epoch, for commit signatures.
    pub fn now_seconds(&self) -> i64 {
        chrono::DateTime::parse_from_rfc3339(&self.now())
            .map(|t| t.timestamp())
            .unwrap_or(0)
    }
}

/// Reads `GIT_RUNE_TIMESTAMP` (RFC 3339) or the system clock.
pub fn now_rfc3339() -> String {
    if let Ok(v) = std::env::var("GIT_RUNE_TIMESTAMP") {
        if let Ok(t) = chrono::DateTime::parse_from_rfc3339(&v) {
            return t
                .with_timezone(&chrono::Utc)
                .format("%Y-%m-%dT%H:%M:%SZ")
                .to_string();
        }
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
