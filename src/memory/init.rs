//! Setting git-rune up in a repository: the view excluded from git, the config later features
//! rely on, and the view checked out (`init` installs the hooks in between). Idempotent;
//! memory refs are created by the first write, not here.

use anyhow::Result;

use super::view_dir::{exclude_view, View, VIEW_DIR};
use crate::error;
use crate::store::Store;
use crate::view::ViewFile;

/// Notes follow rewritten commits (amend, rebase): git copies the notes of `notes.rewriteRef`.
/// Set once the notes ref exists (git warns about a rewriteRef that names no ref); the
/// post-commit hook sets it when it writes the first note.
pub const REWRITE_REF: (&str, &str) = ("notes.rewriteRef", crate::store::NOTES_REF);

/// What setting up did.
#[derive(Debug, Default)]
pub struct SetUp {
    /// One line per change made, for the user.
    pub actions: Vec<String>,
    /// View files holding edits not in memory yet, left alone.
    pub kept: Vec<ViewFile>,
    /// The current branch commits a `.rune/` folder (a seed's memory): it was left as it is,
    /// for `git rune import rune-dir`, and no view was checked out over it.
    pub seed_folder: bool,
}

/// Excludes the view from git and sets the config git-rune needs. Running it again changes
/// nothing.
pub fn prepare(store: &Store, done: &mut SetUp) -> Result<()> {
    if exclude_view(store)? {
        done.actions
            .push(format!("added {VIEW_DIR}/ to .git/info/exclude"));
    }
    let (key, value) = REWRITE_REF;
    if store.ref_id(value)?.is_some() && !store.config_has(key, value) {
        {
            store.add_config(key, value).map_err(|e| {
                error::environment(
                    e.to_string(),
                    format!("set it yourself with `git config --add {key} {value}`"),
                )
            })?;
            done.actions.push(format!("set {key}={value}"));
        }
    }
    Ok(())
}

/// Checks the view out (keeping files with unsaved edits). A `.rune/` folder the current
/// branch commits is a seed's memory, not edits to a view: it is left alone until `import
/// rune-dir` has brought it in (the view's manifest then exists).
pub fn checkout(store: &Store, done: &mut SetUp) -> Result<()> {
    match View::open(store) {
        Some(view) if !view.checked_out() && store.head_holds(VIEW_DIR) => {
            done.seed_folder = true;
        }
        Some(view) => {
            let refresh = view.checkout(store, &[])?;
            if !refresh.written.is_empty() {
                done.actions.push(format!(
                    "checked out {VIEW_DIR}/ ({} files)",
                    refresh.written.len()
                ));
            }
            done.kept = refresh.kept;
        }
        None => done
            .actions
            .push("bare repository: memory refs only, no .rune/ view".into()),
    }
    Ok(())
}
