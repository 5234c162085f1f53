//! `git rune init`: set git-rune up in this repository (idempotent).

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::Context;
use crate::error;
use crate::hooks::install::{install_all, none_installed, HookError};
use crate::memory::init::{checkout, prepare, SetUp};
use crate::memory::view_dir::VIEW_DIR;
use crate::output::json::{self, InitJson};
use crate::output::manual::man_pages_installed;

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Also install git-rune's git hooks (post-commit, post-checkout, post-rewrite, pre-push).
    #[arg(long, conflicts_with = "no_hooks")]
    pub hooks: bool,
    /// Do not install hooks, and do not suggest it.
    #[arg(long)]
    pub no_hooks: bool,
}

pub fn run(ctx: &Context, args: InitArgs) -> Result<ExitCode> {
    let store = ctx.open_store()?;
    let mut done = SetUp::default();
    prepare(&store, &mut done)?;
    if args.hooks {
        match install_all(&store) {
            Ok(added) => {
                done.actions
                    .extend(added.iter().map(|h| format!("installed the {h} hook")));
                if let Ok(dir) = crate::hooks::install::hooks_dir(&store) {
                    super::report_hooks_in_work_tree(ctx, &store, &dir);
                }
            }
            // A bare repository has no hooks to install: memory refs only.
            Err(HookError::Bare) => {}
            Err(e @ HookError::NotAFolder { .. }) => {
                return Err(error::environment(e.to_string(), e.hint()))
            }
            Err(e) => {
                return Err(error::environment(
                    e.to_string(),
                    "fix or move that hook, then run `git rune hooks install`",
                ))
            }
        }
    } else if !args.no_hooks && none_installed(&store) {
        ctx.ui.status("hint: `git rune init --hooks` (or `git rune hooks install`) keeps memory in step with commits, checkouts and pushes");
    }
    // The remote this clone came from (origin, or the only one; never a fork's upstream) is
    // opted in: memory goes there and comes from it with a plain `git fetch`. A fresh clone
    // brings its memory in now. Other remotes stay private until `git rune remote add`.
    if let Some(remote) = crate::sync::share::init_remote(&store) {
        let sharing = crate::sync::share::sharing(&store, &remote);
        if sharing == crate::sync::share::Sharing::NotOptedIn {
            match crate::sync::share::opt_in(&store, &remote) {
                Ok(_) => done.actions.push(format!(
                    "memory goes to {remote}; `git fetch {remote}` brings its memory (refs/rune-remotes/{remote}/)"
                )),
                Err(e) => ctx.ui.warn(format_args!("could not opt {remote} in: {e:#}")),
            }
        } else if sharing == crate::sync::share::Sharing::SetUpBefore {
            // An older version's refspecs: add the one for the refs each clone publishes.
            let _ = crate::sync::track_remote(&store, &remote);
        }
        let opts = crate::sync::SyncOptions {
            no_push: true,
            ..Default::default()
        };
        match crate::sync::sync(&store, &remote, opts, &|what| ctx.ui.status(what)) {
            Ok(report) => {
                for w in report.warnings() {
                    ctx.ui.warn(w);
                }
                let incoming = report.incoming();
                let came: usize = incoming.values().sum();
                if came > 0 {
                    done.actions.push(format!(
                        "brought in {came} memory record{} from {remote} ({})",
                        if came == 1 { "" } else { "s" },
                        crate::output::kind_counts(&incoming, 0)
                    ));
                }
                super::sync::warn_about(ctx, &report);
            }
            Err(e) => ctx.ui.warn(format_args!(
                "could not bring in memory from {remote}: {e:#} (`git rune sync` tries again)"
            )),
        }
    }
    let private: Vec<String> = crate::sync::share::where_memory_goes(&store)
        .into_iter()
        .filter(|(_, s)| !s.pushes())
        .map(|(r, _)| r)
        .collect();
    if !private.is_empty() {
        ctx.ui.status(format_args!(
            "memory stays private to {} (`git rune remote add <remote>` shares it)",
            private.join(", ")
        ));
    }
    checkout(&store, &mut done)?;
    // The echoes directory too: a fresh clone sees its role memories without a write first.
    ctx.refresh_echoes(&store, "checked out");
    // A seed user's memory committed on a branch: say how to bring it in.
    if done.seed_folder {
        ctx.ui.status(format_args!(
            "hint: this branch commits a {VIEW_DIR}/ folder (a seed's memory), left as it is; bring it into memory with `git rune import rune-dir` (`--dry-run` first shows what it holds), then stop tracking it with `git rm -r -q --cached {VIEW_DIR}` and commit"
        ));
    } else if let Ok(branches) = store.branches_holding(VIEW_DIR) {
        if let Some(first) = branches.first() {
            ctx.ui.status(format_args!(
                "hint: {} holds a committed {VIEW_DIR}/ folder (a seed's memory); bring it in with `mkdir /tmp/seed && git archive {first} {VIEW_DIR} | tar -x -C /tmp/seed && git rune import rune-dir /tmp/seed/{VIEW_DIR}` (`--dry-run` first shows what it holds)",
                branches.join(", ")
            ));
        }
    }
    // `git rune --help` is git's `man git-rune`: installing pages is the binary's own step
    // (`install-man`), never a side effect of setting up a repository; say how.
    if !man_pages_installed() {
        ctx.ui.status(
            "hint: `git rune --help` opens git-rune's manual page: install the pages once with `git rune install-man` (`git rune help` and `git rune <command> -h` work without them)",
        );
    }
    for file in &done.kept {
        ctx.ui.warn(format_args!(
            "{VIEW_DIR}/{} has edits not in memory yet and was left alone; run `git rune save` to record them",
            file.name()
        ));
    }
    let mut out = String::new();
    if ctx.ui.json {
        out = json::line(&InitJson {
            actions: &done.actions,
            version: json::VERSION,
        }) + "\n";
    } else if done.actions.is_empty() {
        out.push_str("git-rune is already set up here; nothing to do\n");
    } else {
        for line in &done.actions {
            out.push_str(line);
            out.push('\n');
        }
    }
    ctx.reported(&out)
}
