//! Opening the repository, once for every entry point: the CLI's commands, the MCP server, the
//! agent hooks and the git hooks all open it here, so what opening does (the error a directory
//! outside git gets, the lock patience of a hook, merging memory a plain `git fetch` brought,
//! bringing the view to memory and HEAD's branch) is decided in one place. Nothing here prints:
//! what happened comes back in [`Opened`] for the caller to say in its own way.

use std::path::Path;

use anyhow::Result;

use crate::memory::view_dir::Refresh;
use crate::store::{Store, StoreError, HOOK_PATIENCE};
use crate::upkeep::Upkeep;

/// Who opens, which decides what opening does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opener {
    /// A command that manages sharing itself (`sync`, `remote`, `repair`, `init`): the
    /// repository only.
    Plain,
    /// A command or an MCP request: memory a plain `git fetch` brought is merged first, and
    /// the view brought to memory now and HEAD's branch.
    Reader,
    /// A git hook or an agent hook: the repository only, and a lock another process holds is
    /// waited for briefly (a hook must never stall git or the agent).
    Hook,
}

/// The repository opened, and what opening did.
pub struct Opened {
    pub store: Store,
    /// The merge of fetched memory ([`Opener::Reader`]).
    pub upkeep: Upkeep,
    /// The view's refresh, when it was behind ([`Opener::Reader`]); a view that could not be
    /// refreshed is the error, as one line.
    pub view: Result<Option<Refresh>, String>,
}

/// Opens the repository around `dir`.
pub fn open(dir: &Path, how: Opener) -> Result<Opened> {
    let store = Store::open(dir).map_err(|e| match e {
        // GIT_DIR, when set, is where git (and git-rune) looks: the message names it.
        StoreError::NotARepository(p) => match std::env::var_os("GIT_DIR") {
            Some(g) if !g.is_empty() => crate::error::environment(
                format!(
                    "not a git repository: GIT_DIR is set to {}",
                    Path::new(&g).display()
                ),
                "point GIT_DIR at a repository's git directory, or unset it",
            ),
            _ => crate::error::environment(
                format!("not a git repository: {}", p.display()),
                "run git rune inside a git repository (create one with `git init`), or pass -C <path>",
            ),
        },
        other => anyhow::Error::from(other),
    })?;
    let mut opened = Opened {
        store,
        upkeep: Upkeep::default(),
        view: Ok(None),
    };
    match how {
        Opener::Plain => {}
        Opener::Hook => opened.store.set_lock_patience(HOOK_PATIENCE),
        Opener::Reader => {
            // What earlier readers scanned is not scanned again (`show`, `task list`, `echo`
            // show what `load` showed).
            crate::memory::cache::verdicts::recall(&opened.store);
            opened.upkeep = crate::upkeep::merge(&opened.store);
            opened.view = match crate::memory::write::sync_view(&opened.store) {
                Ok(r) => Ok(r),
                // A ref memory cannot be read from is the reader's to report, with its hint.
                Err(e) if e.chain().any(|c| c.is::<StoreError>()) => Ok(None),
                Err(e) => Err(format!("the .rune/ view was not refreshed: {e:#}")),
            };
            if let Err(e) = crate::echoes::refresh_stale(&opened.store) {
                if !e.chain().any(|c| c.is::<StoreError>()) && opened.view.is_ok() {
                    opened.view = Err(format!("the echoes directory was not refreshed: {e:#}"));
                }
            }
        }
    }
    Ok(opened)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_a_repository_the_error_says_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        let err = open(dir.path(), Opener::Plain).err().unwrap();
        let e = err.downcast_ref::<crate::error::Error>().unwrap();
        assert_eq!(e.kind, crate::error::Kind::Environment);
        assert!(
            e.message.starts_with("not a git repository"),
            "{}",
            e.message
        );
    }
}
