//! `git rune gc`: compact memory history (every live record and tombstone kept), and share
//! the compacted history with the remote.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::Context;
use crate::sync::gc::compact;
use crate::sync::{sync, SyncOptions};

#[derive(Debug, Args)]
pub struct GcArgs {
    /// The remote to share the compacted history with (default: the current branch's
    /// upstream remote, else origin). Its memory is merged in first, so nothing it has is
    /// dropped.
    pub remote: Option<String>,
    /// Compact this clone only; the next `git rune sync` publishes it.
    #[arg(long)]
    pub local: bool,
}

pub fn run(ctx: &Context, args: GcArgs) -> Result<ExitCode> {
    let store = ctx.open_store()?;
    let remote = if args.local {
        None
    } else {
        args.remote.or_else(|| store.default_remote())
    };
    let slow = |what: &str| ctx.ui.status(what);
    if let Some(remote) = &remote {
        // Everything the remote has first: what is compacted is a superset of it.
        let opts = SyncOptions {
            no_push: true,
            ..SyncOptions::default()
        };
        sync(&store, remote, opts, &slow)?;
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
    if out.is_empty() {
        out.push_str("memory history is already compact\n");
    }
    if let Some(remote) = &remote {
        let report = sync(&store, remote, SyncOptions::default(), &slow)?;
        if let Some(why) = &report.gave_up {
            ctx.ui.warn(why);
        } else if !report.pushed.is_empty() {
            out.push_str(&format!("published the compacted history to {remote}\n"));
        }
    }
    ctx.report(&out)?;
    ctx.refresh_view(&store);
    Ok(ExitCode::SUCCESS)
}
