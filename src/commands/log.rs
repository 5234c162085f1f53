//! `git rune log`: the history of memory commits on `refs/rune/memory` and the current
//! branch's state ref, newest first.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::{short, Ctx};
use crate::output::{print, sanitize};
use crate::store::{branch_ref, StoreError, MEMORY_REF};

#[derive(Debug, Args)]
pub struct LogArgs {
    /// Show at most this many commits.
    #[arg(short = 'n', long = "max-count")]
    pub max_count: Option<usize>,
    /// Show every memory ref (all branches), not only memory and this branch.
    #[arg(long)]
    pub all: bool,
}

struct Entry {
    refname: String,
    id: String,
    time: i64,
    summary: String,
    body: String,
}

pub fn run(ctx: &Ctx, args: LogArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    let refs = if args.all {
        store.memory_refs()?
    } else {
        let head = store.head_info()?;
        vec![MEMORY_REF.to_owned(), branch_ref(head.branch.as_deref())]
    };
    let mut entries = Vec::new();
    for name in refs {
        let Some(tip) = store.tip(&name)? else {
            continue;
        };
        let mut next = Some(tip.commit);
        while let Some(id) = next {
            let commit = store.repo.find_commit(id).map_err(|e| StoreError::Git {
                context: format!("cannot read memory commit {id} on {name}"),
                message: e.to_string(),
            })?;
            let message = commit.message_raw_sloppy().to_string();
            let (summary, body) = match message.split_once('\n') {
                Some((s, b)) => (s.to_owned(), b.trim().to_owned()),
                None => (message.trim().to_owned(), String::new()),
            };
            let time = commit.time().map(|t| t.seconds).unwrap_or(0);
            entries.push(Entry {
                refname: name.clone(),
                id: id.to_string(),
                time,
                summary,
                body,
            });
            next = commit.parent_ids().next().map(|p| p.detach());
        }
    }
    // Newest first; the order inside one ref is its parent chain, which the stable sort keeps.
    entries.sort_by_key(|e| std::cmp::Reverse(e.time));
    if let Some(n) = args.max_count {
        entries.truncate(n);
    }
    let mut out = String::new();
    for e in &entries {
        if ctx.ui.json {
            out.push_str(
                &serde_json::json!({
                    "version": 1,
                    "commit": e.id,
                    "ref": e.refname,
                    "time": chrono::DateTime::from_timestamp(e.time, 0)
                        .map(|t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string()),
                    "summary": e.summary,
                    "records": records_count(&e.body),
                })
                .to_string(),
            );
        } else {
            let when = chrono::DateTime::from_timestamp(e.time, 0)
                .map(|t| t.format("%Y-%m-%d %H:%M").to_string())
                .unwrap_or_default();
            let refname = e.refname.strip_prefix("refs/rune/").unwrap_or(&e.refname);
            out.push_str(&format!(
                "{} {when} {refname}: {}",
                short(&e.id),
                sanitize(&e.summary)
            ));
        }
        out.push('\n');
    }
    if entries.is_empty() && !ctx.ui.json {
        ctx.ui.status("no memory yet: record something with `git rune decide`, `git rune learn` or `git rune save`");
    }
    print(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// The count from the `Rune-Records: N records` trailer.
fn records_count(body: &str) -> Option<u64> {
    body.lines()
        .find_map(|l| l.strip_prefix("Rune-Records: "))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}
