//! `git rune init`: exclude the view from git, set the config later features rely on, and
//! check out the view. Idempotent; memory refs are created by the first write, not here.

use std::process::{Command, ExitCode};

use anyhow::{Context, Result};
use clap::Args;

use super::Ctx;
use crate::checkout::{Snapshot, View, VIEW_DIR};
use crate::output::{print, user_error};
use crate::store::Store;

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Also install git-rune's git hooks (post-commit, post-checkout, post-rewrite, pre-push).
    #[arg(long, conflicts_with = "no_hooks")]
    pub hooks: bool,
    /// Do not install hooks, and do not suggest it.
    #[arg(long)]
    pub no_hooks: bool,
}

/// Config git-rune needs: notes follow rewritten commits (amend, rebase).
const CONFIG: &[(&str, &str)] = &[("notes.rewriteRef", "refs/notes/rune")];

pub fn run(ctx: &Ctx, args: InitArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    let mut did: Vec<String> = Vec::new();

    if store.workdir().is_some() && exclude_view(&store)? {
        did.push(format!("added {VIEW_DIR}/ to .git/info/exclude"));
    }
    for (key, value) in CONFIG {
        if set_config(&store, key, value)? {
            did.push(format!("set {key}={value}"));
        }
    }
    if let Ok(dir) = crate::hooks::hooks_dir(&store) {
        if args.hooks {
            for hook in crate::hooks::HOOKS {
                let before = crate::hooks::state(&dir, hook).ok();
                crate::hooks::install(&dir, hook).map_err(|e| {
                    user_error(
                        e.to_string(),
                        "fix or move that hook, then run `git rune hooks install`",
                    )
                })?;
                if before == Some(crate::hooks::HookState::Absent) {
                    did.push(format!("installed the {hook} hook"));
                }
            }
        } else if !args.no_hooks
            && crate::hooks::HOOKS
                .iter()
                .all(|h| crate::hooks::state(&dir, h).ok() == Some(crate::hooks::HookState::Absent))
        {
            ctx.ui.status("hint: `git rune init --hooks` (or `git rune hooks install`) keeps memory in step with commits, checkouts and pushes");
        }
    }
    match View::open(&store) {
        Some(view) => {
            let snap = Snapshot::read(&store)?;
            let refresh = view.checkout(&snap, &[])?;
            if !refresh.written.is_empty() {
                did.push(format!(
                    "checked out {VIEW_DIR}/ ({} files)",
                    refresh.written.len()
                ));
            }
            for file in refresh.kept {
                ctx.ui.warn(format_args!(
                    "{VIEW_DIR}/{} has edits not in memory yet and was left alone; run `git rune save` to record them",
                    file.name()
                ));
            }
        }
        None => did.push("bare repository: memory refs only, no .rune/ view".into()),
    }

    let mut out = String::new();
    if ctx.ui.json {
        out = serde_json::json!({ "version": 1, "actions": did }).to_string();
        out.push('\n');
    } else if did.is_empty() {
        out.push_str("git-rune is already set up here; nothing to do\n");
    } else {
        for line in &did {
            out.push_str(line);
            out.push('\n');
        }
    }
    print(&out)?;
    Ok(ExitCode::SUCCESS)
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

/// Adds `key=value` to the repository config unless that value is already set there.
/// Shells out to `git config`: gix has no config writer that preserves the user's file.
fn set_config(store: &Store, key: &str, value: &str) -> Result<bool> {
    let present = store
        .repo
        .config_snapshot()
        .strings(key)
        .unwrap_or_default()
        .iter()
        .any(|v| AsRef::<[u8]>::as_ref(v) == value.as_bytes());
    if present {
        return Ok(false);
    }
    let status = Command::new("git")
        .arg("--git-dir")
        .arg(store.common_dir())
        .args(["config", "--local", "--add", key, value])
        .status()
        .map_err(|e| {
            user_error(
                format!("cannot run git to set {key}: {e}"),
                "install git and make sure it is on PATH",
            )
        })?;
    if !status.success() {
        return Err(user_error(
            format!("git config failed to set {key}={value}"),
            format!("set it yourself with `git config --add {key} {value}`"),
        ));
    }
    Ok(true)
}
