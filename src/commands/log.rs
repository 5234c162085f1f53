//! `git rune log`: the history of memory commits on `refs/rune/memory` and the current
//! branch's state ref, newest first.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::Context;
use crate::memory::history::log;
use crate::output::json::{self, LogJson};
use crate::text::short;

#[derive(Debug, Args)]
pub struct LogArgs {
    /// Show at most this many commits.
    #[arg(short = 'n', long)]
    pub max_count: Option<usize>,
    /// Show every memory ref (all branches), not only memory and this branch.
    #[arg(long)]
    pub all: bool,
}

pub fn run(ctx: &Context, args: LogArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    ctx.hint_not_set_up(&store);
    ctx.page(&store);
    let mut entries = log(&store, args.all)?;
    // One history, newest first, as `git log --all` orders commits: by time across refs
    // (ties keep each ref's own order).
    entries.sort_by_key(|e| std::cmp::Reverse(e.time));
    let none = entries.is_empty();
    if let Some(n) = args.max_count {
        entries.truncate(n);
    }
    let mut out = String::new();
    for e in &entries {
        // Summaries name records: through the gate (commits written before it gated them),
        // a SUSPICIOUS headline marked.
        let summary = crate::integrity::gate::shown_summary(&e.summary);
        let time = chrono::DateTime::from_timestamp(e.time, 0);
        if ctx.ui.json {
            out.push_str(&json::line(&LogJson {
                commit: e.id.to_string(),
                records: e.records,
                refname: &e.refname,
                summary: &summary,
                time: time.map(|t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string()),
                version: json::VERSION,
            }));
        } else {
            let when = time
                .map(|t| t.format("%Y-%m-%d %H:%M").to_string())
                .unwrap_or_default();
            let refname = e.refname.strip_prefix("refs/rune/").unwrap_or(&e.refname);
            out.push_str(&format!(
                "{} {when} {refname}: {}",
                short(&e.id.to_string()),
                summary
            ));
        }
        out.push('\n');
    }
    if none && !ctx.ui.json {
        ctx.ui.status("no memory yet: record something with `git rune decide`, `git rune learn` or `git rune save`");
    }
    ctx.ui.print_painted(&out, crate::output::paint::log_line)?;
    Ok(ExitCode::SUCCESS)
}
