//! `git rune gc`: compact memory history (every live record and tombstone kept), expire the
//! notes of commits no branch reaches, and share the result with the remote, if memory goes
//! there.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::Context;
use crate::error;
use crate::store::Store;
use crate::sync::gc::{compact, expire_notes, Compaction};
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
    let mut compacted = Vec::new();
    for name in store.memory_refs()? {
        if let Some(c) = compact(&store, &name)? {
            out.push_str(&format!(
                "{}: {} commits, {} records -> 1 commit, {} records\n",
                c.name, c.commits_before, c.records_before, c.records_after
            ));
            compacted.push(c);
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
    // What was done here stands whatever the publish meets: say it first.
    ctx.report(&out)?;
    let published = match &remote {
        Some(remote) => publish(ctx, &store, remote, &compacted),
        None => Ok(ExitCode::SUCCESS),
    };
    ctx.refresh_view(&store);
    published
}

/// Whether commits of the history `c` replaced are part of its ref's history again (merged
/// back in from a remote that kept writing on top of them).
fn brought_back(store: &Store, c: &Compaction) -> bool {
    store.tip(&c.name).ok().flatten().is_some_and(|tip| {
        (store.ahead_behind(tip.commit, c.replaced)).is_ok_and(|n| n.ahead < c.commits_before)
    })
}

/// Shares the compacted history with `remote`, if memory goes there. Exits 75 as `sync` does
/// when the remote kept moving: the compaction here stands, the push waits for a later sync.
fn publish(
    ctx: &Context,
    store: &Store,
    remote: &str,
    compacted: &[Compaction],
) -> Result<ExitCode> {
    let share = sharing(store, remote);
    if !share.pushes() {
        ctx.ui.status(format_args!(
            "memory was not published to {remote}: it is {}; `git rune remote add {remote}` shares it",
            share.why()
        ));
        return Ok(ExitCode::SUCCESS);
    }
    let slow = |what: &str| ctx.ui.status(what);
    let report = sync(store, remote, SyncOptions::default(), &slow)
        .map_err(|e| not_published(e, remote, !compacted.is_empty()))?;
    if report.kept_history.is_none() {
        for c in compacted.iter().filter(|c| brought_back(store, c)) {
            ctx.ui.warn(format_args!(
                "{}: merging {remote}'s memory, written to meanwhile on top of the old history, brought that history back here, so it is not compact after all (nothing is lost); run `git rune gc` again when {remote} is quiet",
                c.name
            ));
        }
    }
    if let Some(why) = &report.gave_up {
        ctx.ui.warn(why);
        return Ok(ExitCode::from(crate::error::Kind::Conflict.exit_code()));
    } else if let Some(kept) = &report.kept_history {
        // The remote takes only fast-forwards: the sync joined the compacted history onto
        // the remote's, so memory is shared, but no history is compacted.
        ctx.ui.warn(format_args!(
            "{remote} does not let memory history be replaced: it refused to replace {} ({}); so that nothing is lost, the history compacted here was joined onto {remote}'s, which keeps its old commits here and there, and memory was published as before",
            kept.refs.join(", "),
            kept.why
        ));
        ctx.ui.status(format_args!(
            "hint: to compact memory history there, ask {remote}'s administrator to allow non-fast-forward pushes to refs/rune/* and refs/rune-clones/* (on a bare repository: its update or pre-receive hook), then run `git rune gc` again"
        ));
    } else if !report.pushed.is_empty() {
        ctx.report(&format!("published the compacted history to {remote}\n"))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The error of a publish that failed after the history here was compacted: that is done and
/// loses nothing, and a later sync publishes it; the cause (and its hint) follows.
fn not_published(e: anyhow::Error, remote: &str, compacted: bool) -> anyhow::Error {
    let here = if compacted {
        "memory history here was compacted (nothing is lost)"
    } else {
        "memory history here is already compact"
    };
    e.context(format!(
        "{here}, but it was not published to {remote}; once the cause below is dealt with, `git rune sync {remote}` publishes it"
    ))
}
