//! `git rune sync [<remote>] [--all]`: share memory with a git remote (fetch, merge by set
//! union, push never forced), and `git rune remote add <remote>`: let a plain `git fetch`
//! bring a remote's memory too.

use std::collections::BTreeMap;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand};

use super::Context;
use crate::error::user_error;
use crate::output::json;
use crate::sync::{sync, track_remote, SyncOptions, SyncReport};

#[derive(Debug, Args)]
pub struct SyncArgs {
    /// The remote to sync with (default: the current branch's upstream remote, else origin).
    #[arg(conflicts_with = "all")]
    pub remote: Option<String>,
    /// Sync with every remote that has memory.
    #[arg(long)]
    pub all: bool,
    /// Fetch and merge only; push nothing.
    #[arg(long)]
    pub no_push: bool,
}

#[derive(Debug, Args)]
pub struct RemoteArgs {
    #[command(subcommand)]
    pub action: RemoteAction,
}

#[derive(Debug, Subcommand)]
pub enum RemoteAction {
    /// Add git-rune's fetch refspecs to <remote>, so `git fetch` and `git pull` bring its
    /// memory into refs/rune-remotes/<remote>/ (the next git-rune command merges it).
    Add {
        /// The remote (as `git remote` lists it).
        remote: String,
    },
}

pub fn run(ctx: &Context, args: SyncArgs) -> Result<ExitCode> {
    let store = ctx.open_store()?;
    let remotes = if args.all {
        let all = store.remotes();
        if all.is_empty() {
            return Err(no_remote());
        }
        all
    } else {
        match args.remote.or_else(|| store.default_remote()) {
            Some(r) => {
                if !store.remotes().contains(&r) {
                    return Err(user_error(
                        format!("{r:?} is not a remote of this repository"),
                        "name one `git remote` lists, or add it with `git remote add`",
                    ));
                }
                vec![r]
            }
            None => return Err(no_remote()),
        }
    };
    let opts = SyncOptions {
        no_push: args.no_push,
        ..SyncOptions::default()
    };
    let mut out = String::new();
    let mut gave_up = false;
    for remote in &remotes {
        let report = sync(&store, remote, opts, &|what| ctx.ui.status(what))?;
        if args.all && report.refs.is_empty() && report.notes.is_none() && report.pushed.is_empty()
        {
            // --all: a remote without memory is not one to push memory to.
            continue;
        }
        gave_up |= report.gave_up.is_some();
        if let Some(why) = &report.gave_up {
            ctx.ui.warn(why);
        }
        for w in report.warnings() {
            ctx.ui.warn(w);
        }
        if ctx.ui.json {
            out.push_str(&json::line(&json::sync(&report)));
            out.push('\n');
        } else {
            out.push_str(&text(&report));
        }
    }
    if ctx.ui.json {
        ctx.ui.print(&out)?;
    } else {
        ctx.report(&out)?;
    }
    // A view on this branch shows what came in.
    ctx.refresh_view(&store);
    Ok(if gave_up {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

pub fn remote(ctx: &Context, args: RemoteArgs) -> Result<ExitCode> {
    let store = ctx.open_store()?;
    match args.action {
        RemoteAction::Add { remote } => {
            if !store.remotes().contains(&remote) {
                return Err(user_error(
                    format!("{remote:?} is not a remote of this repository"),
                    "add it with `git remote add` first",
                ));
            }
            let added = track_remote(&store, &remote)?;
            ctx.report(&if added {
                format!(
                    "`git fetch {remote}` now brings its memory into refs/rune-remotes/{remote}/\n"
                )
            } else {
                format!("{remote} already brings its memory with `git fetch`; nothing to do\n")
            })?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn no_remote() -> anyhow::Error {
    user_error(
        "this repository has no remote to share memory with",
        "add one with `git remote add origin <url>`, then run `git rune sync`",
    )
}

/// What came in and went out, one line each.
fn text(r: &SyncReport) -> String {
    let mut out = String::new();
    let remote = &r.remote;
    let incoming = r.incoming();
    let notes_in = r.notes.as_ref().map_or(0, |n| n.incoming);
    let came = counts(&incoming, notes_in);
    let went = counts(&r.outgoing, r.notes_out);
    match (came.is_empty(), went.is_empty()) {
        (true, true) => out.push_str(&format!("{remote}: memory already in sync\n")),
        _ => {
            if !came.is_empty() {
                out.push_str(&format!("{remote}: came in: {came}\n"));
            }
            if !went.is_empty() {
                out.push_str(&format!("{remote}: went out: {went}\n"));
            }
        }
    }
    out
}

fn counts(by_kind: &BTreeMap<&'static str, usize>, notes: usize) -> String {
    let mut parts: Vec<String> = by_kind
        .iter()
        .filter(|(k, _)| **k != "resolve" && **k != "delete")
        .map(|(k, n)| format!("{n} {k}{}", if *n == 1 { "" } else { "s" }))
        .collect();
    let edits: usize = by_kind
        .iter()
        .filter(|(k, _)| **k == "resolve" || **k == "delete")
        .map(|(_, n)| n)
        .sum();
    if edits > 0 {
        parts.push(format!(
            "{edits} removal{}",
            if edits == 1 { "" } else { "s" }
        ));
    }
    if notes > 0 {
        parts.push(format!(
            "{notes} commit note{}",
            if notes == 1 { "" } else { "s" }
        ));
    }
    parts.join(", ")
}
