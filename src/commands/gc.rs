//! `git rune gc`: compact memory history (every live record and tombstone kept), expire the
//! notes of commits no branch reaches, and share the result with the remote, if memory goes
//! there.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::Context;
use crate::error;
use crate::sync::gc::{compact, expire_notes};
use crate::sync::share::sharing;
use crate::sync::{sync, SyncOptions};

#[derive(Debug, Args)]
pub struct GcArgs {
    /// The remote to share the compacted history with (default: the current branch's
    /// upstream remote, else origin). Its memory is merged in first, so nothing it has is
    /// dropped; the result is published there only if memory goes there (`git rune remote`).
    pub remote: Option<String>,
    /// Compact this clone only; the next `git rune sync` publishes it.
    #[arg(long)]
    pub local: bool,
}

pub fn run(ctx: &Context, args: GcArgs) -> Result<ExitCode> {
    let store = ctx.open_store()?;
    if let Some(r) = (args.remote.as_ref()).filter(|r| !args.local && !store.remotes().contains(r))
    {
        return Err(error::input(
            format!("{r:?} is not a remote of this repository"),
            "name one `git remote` lists, or pass --local to compact without a remote",
        ));
    }
    let remote = if args.local {
        None
    } else {
        args.remote.or_else(|| store.default_remote())
    };
    let slow = |what: &str| ctx.ui.status(what);
    if let Some(remote) = &remote {
        // Everything the remote has first: what is compacted is a superset of it. Its
        // branches too, so notes are judged against what they reach now.
        store.fetch_branches(remote);
        let opts = SyncOptions {
            no_push: true,
            ..SyncOptions::default()
        };
        let report = sync(&store, remote, opts, &slow)?;
        super::sync::warn_about(ctx, &report);
    }
    let mut out = String::new();
    for name in store.memory_refs()? {
        if let Some(c) = compact(&store, &name)? {
            out.push_str(&format!(
                "{}: {} commits, {} records -> 1 commit, {} records\n",
                c.name, c.commits_before, c.records_before, c.records_after
            ));
        }
    }
    let expired = expire_notes(&store)?;
    if expired > 0 {
        out.push_str(&format!(
            "refs/notes/rune: expired {expired} note{} of commits no branch, tag or remote branch reaches\n",
            if expired == 1 { "" } else { "s" }
        ));
    }
    if out.is_empty() {
        out.push_str("memory history is already compact\n");
    }
    if let Some(remote) = &remote {
        let share = sharing(&store, remote);
        if share.pushes() {
            let report = sync(&store, remote, SyncOptions::default(), &slow)?;
            if let Some(why) = &report.gave_up {
                ctx.ui.warn(why);
            } else if !report.pushed.is_empty() {
                out.push_str(&format!("published the compacted history to {remote}\n"));
            }
        } else {
            ctx.ui.status(format_args!(
                "memory was not published to {remote}: it is {}; `git rune remote add {remote}` shares it",
                share.why()
            ));
        }
    }
    ctx.report(&out)?;
    ctx.refresh_view(&store);
    Ok(ExitCode::SUCCESS)
}
