//! `git rune repair [<remote>]`: replace what a remote holds that this clone refuses (a
//! damaged record, a note past the limit, a ref that is not a memory commit) with clean tips,
//! and share them.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::Context;
use crate::error;
use crate::output::json;
use crate::sync::repair::repair;

#[derive(Debug, Args)]
pub struct RepairArgs {
    /// The remote to repair (default: the current branch's upstream remote, else origin).
    pub remote: Option<String>,
}

pub fn run(ctx: &Context, args: RepairArgs) -> Result<ExitCode> {
    let store = ctx.open_store()?;
    let Some(remote) = args.remote.or_else(|| store.default_remote()) else {
        return Err(error::input(
            "this repository has no remote to repair",
            "name one: `git rune repair <remote>`",
        ));
    };
    if !store.remotes().contains(&remote) {
        return Err(error::input(
            format!("{remote:?} is not a remote of this repository"),
            "name one `git remote` lists",
        ));
    }
    let done = repair(&store, &remote, &|what| ctx.ui.status(what))?;
    let mut out = String::new();
    if ctx.ui.json {
        out.push_str(&json::line(&json::RepairJson {
            version: json::VERSION,
            remote: &remote,
            replaced: &done.replaced,
            removed: &done.removed,
            left: done
                .report
                .skipped
                .iter()
                .map(|s| json::RefReasonJson {
                    remote_ref: &s.remote_ref,
                    reason: &s.why,
                })
                .collect(),
            failed: done
                .failed
                .iter()
                .map(|(r, why)| json::RefReasonJson {
                    remote_ref: r,
                    reason: why,
                })
                .collect(),
        }));
        out.push('\n');
    } else {
        for name in &done.replaced {
            out.push_str(&format!("{remote}: replaced {name} with a clean tip\n"));
        }
        for name in &done.removed {
            out.push_str(&format!(
                "{remote}: removed {name} (what it held that was sound is in this clone's memory)\n"
            ));
        }
        for s in &done.report.skipped {
            out.push_str(&format!(
                "{remote}: left {} as it is: {}\n",
                s.remote_ref, s.why
            ));
        }
        if done.replaced.is_empty() && done.removed.is_empty() && done.failed.is_empty() {
            out.push_str(&format!("{remote}: nothing to repair\n"));
        }
    }
    ctx.report(&out)?;
    for (name, why) in &done.failed {
        ctx.ui.warn(format_args!(
            "{name} on {remote} was not replaced ({why}); run `git rune repair {remote}` again"
        ));
    }
    ctx.refresh_view(&store);
    Ok(if done.failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
