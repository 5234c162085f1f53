//! The user-level memory: a bare git repository in the user's data directory holding what
//! belongs to no one project (instincts promoted from several, and the sightings that
//! justify them; docs/storage.md). It holds records like a project's memory, in the same
//! layout, written through the same seal and compare-and-swap commits. Only `git rune
//! instinct promote` writes it; `load` reads its instincts as a section of their own.

use std::path::PathBuf;

use anyhow::Result;

use crate::model::{fold, Record};
use crate::store::{Store, MEMORY_REF};

/// Overrides the data directory (tests, or a user who keeps it elsewhere).
pub const DATA_DIR_ENV: &str = "GIT_RUNE_DATA_DIR";
/// The repository inside the data directory.
pub const REPO: &str = "memory.git";
/// Each project's sightings: `refs/rune/sightings/<root commit of the project>`.
pub const SIGHTINGS_PREFIX: &str = "refs/rune/sightings/";

/// git-rune's data directory: `$GIT_RUNE_DATA_DIR`, else `$XDG_DATA_HOME/git-rune`, else the
/// platform's (`~/Library/Application Support/git-rune` on macOS, `%APPDATA%\git-rune` on
/// Windows, `~/.local/share/git-rune` elsewhere). `None` when none can be found.
pub fn data_dir() -> Option<PathBuf> {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(dir) = env(DATA_DIR_ENV) {
        return Some(dir);
    }
    if let Some(xdg) = env("XDG_DATA_HOME").filter(|p| p.is_absolute()) {
        return Some(xdg.join("git-rune"));
    }
    if cfg!(windows) {
        return env("APPDATA").map(|a| a.join("git-rune"));
    }
    let home = env("HOME")?;
    if cfg!(target_os = "macos") {
        Some(home.join("Library/Application Support/git-rune"))
    } else {
        Some(home.join(".local/share/git-rune"))
    }
}

/// Where the user-level repository is (whether or not it exists).
pub fn repo_path() -> Option<PathBuf> {
    data_dir().map(|d| d.join(REPO))
}

/// Opens the user-level repository, creating it when `create` is set; `None` when it does not
/// exist (and `create` is not set) or no data directory can be found.
pub fn open(create: bool) -> Result<Option<Store>> {
    let Some(path) = repo_path() else {
        return Ok(None);
    };
    if create {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| {
                crate::error::environment(
                    format!(
                        "cannot create {}: {}",
                        parent.display(),
                        crate::error::io_text(&e)
                    ),
                    format!("set {DATA_DIR_ENV} to a folder you can write"),
                )
            })?;
        }
    }
    Ok(Store::open_bare(&path, create)?)
}

/// The promoted instincts, as `load` shows them: none when there is no user-level memory, and
/// none (never an error) when it cannot be read — a session must start all the same.
pub fn global_instincts() -> Vec<Record> {
    let Ok(Some(store)) = open(false) else {
        return Vec::new();
    };
    match store.records(MEMORY_REF) {
        Ok((_, records)) => fold(records.iter()).instincts,
        Err(_) => Vec::new(),
    }
}
