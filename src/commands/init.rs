//! `git rune init`: set git-rune up in this repository (idempotent).

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::Context;
use crate::memory::init::{init, Hooks};
use crate::memory::view_dir::VIEW_DIR;
use crate::output::json::{self, InitJson};
use crate::output::print;

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
    let store = ctx.store()?;
    let hooks = match (args.hooks, args.no_hooks) {
        (true, _) => Hooks::Install,
        (_, true) => Hooks::Quiet,
        _ => Hooks::Leave,
    };
    let done = init(&store, hooks)?;
    if done.suggest_hooks {
        ctx.ui.status("hint: `git rune init --hooks` (or `git rune hooks install`) keeps memory in step with commits, checkouts and pushes");
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
        });
        out.push('\n');
    } else if done.actions.is_empty() {
        out.push_str("git-rune is already set up here; nothing to do\n");
    } else {
        for line in &done.actions {
            out.push_str(line);
            out.push('\n');
        }
    }
    print(&out)?;
    Ok(ExitCode::SUCCESS)
}
