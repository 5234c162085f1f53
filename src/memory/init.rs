//! Setting git-rune up in a repository: the view excluded from git, the config later features
//! rely on, optionally the hooks, and the view checked out. Idempotent; memory refs are
//! created by the first write, not here.

use anyhow::{Context, Result};

use super::view_dir::{View, VIEW_DIR};
use super::Snapshot;
use crate::error::user_error;
use crate::hooks::install::{self as hooks, HookState, HOOKS};
use crate::store::Store;
use crate::view::ViewFile;

/// Config git-rune needs: notes follow rewritten commits (amend, rebase).
const CONFIG: &[(&str, &str)] = &[("notes.rewriteRef", "refs/notes/rune")];

/// Whether to install the git hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hooks {
    Install,
    /// Leave them as they are (suggest installing them when none is).
    Leave,
    /// Leave them as they are, without a suggestion.
    Quiet,
}

/// What setting up did.
#[derive(Debug, Default)]
pub struct SetUp {
    /// One line per change made, for the user.
    pub actions: Vec<String>,
    /// View files holding edits not in memory yet, left alone.
    pub kept: Vec<ViewFile>,
    /// No hook is installed: worth suggesting `--hooks`.
    pub suggest_hooks: bool,
}

/// Sets git-rune up; running it again changes nothing.
pub fn init(store: &Store, install_hooks: Hooks) -> Result<SetUp> {
    let mut done = SetUp::default();
    if store.workdir().is_some() && exclude_view(store)? {
        done.actions
            .push(format!("added {VIEW_DIR}/ to .git/info/exclude"));
    }
    for (key, value) in CONFIG {
        if !store.config_has(key, value) {
            store.add_config(key, value).map_err(|e| {
                user_error(
                    e.to_string(),
                    format!("set it yourself with `git config --add {key} {value}`"),
                )
            })?;
            done.actions.push(format!("set {key}={value}"));
        }
    }
    if let Ok(dir) = hooks::hooks_dir(store) {
        match install_hooks {
            Hooks::Install => {
                for hook in HOOKS {
                    let before = hooks::state(&dir, hook).ok();
                    hooks::install(&dir, hook).map_err(|e| {
                        user_error(
                            e.to_string(),
                            "fix or move that hook, then run `git rune hooks install`",
                        )
                    })?;
                    if before == Some(HookState::Absent) {
                        done.actions.push(format!("installed the {hook} hook"));
                    }
                }
            }
            Hooks::Leave => {
                done.suggest_hooks = HOOKS
                    .iter()
                    .all(|h| hooks::state(&dir, h).ok() == Some(HookState::Absent));
            }
            Hooks::Quiet => {}
        }
    }
    match View::open(store) {
        Some(view) => {
            let snap = Snapshot::read(store)?;
            let refresh = view.checkout(&snap, &[])?;
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
    Ok(done)
}

/// Adds `.rune/` to `info/exclude` unless a line already names it. Returns whether it wrote.
fn exclude_view(store: &Store) -> Result<bool> {
    let info = store.common_dir().join("info");
    let path = info.join("exclude");
    let existing = match std::fs::read(&path) {
        Ok(d) => d,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let text = String::from_utf8_lossy(&existing);
    let wanted = [".rune/", "/.rune/", ".rune", "/.rune"];
    if text.lines().any(|l| wanted.contains(&l.trim())) {
        return Ok(false);
    }
    let mut data = existing.clone();
    if !data.is_empty() && !data.ends_with(b"\n") {
        data.push(b'\n');
    }
    data.extend_from_slice(
        b"# git-rune: the memory view is checked out from refs/rune/\n/.rune/\n",
    );
    std::fs::create_dir_all(&info).with_context(|| format!("cannot create {}", info.display()))?;
    std::fs::write(&path, data).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(true)
}
