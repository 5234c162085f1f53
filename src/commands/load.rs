//! `git rune load`: what a new session needs, within a token budget.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::Context;
use crate::error;
use crate::memory::record::{PRUNE_CONFIDENCE, PRUNE_DAYS};
use crate::model::oracle::ORPHAN_HOURS;
use crate::notes::at::with_role_briefing;
use crate::output::json;

#[derive(Debug, Args)]
pub struct LoadArgs {
    /// Show memory as it was when this commit was made.
    #[arg(long, value_name = "REV")]
    pub at: Option<String>,
    /// Token budget for the output (estimated as characters / 4).
    #[arg(long, default_value_t = 2000, value_name = "TOKENS", allow_negative_numbers = true, value_parser = tokens)]
    pub budget: usize,
    /// Say who wrote each record (records merged from other clones keep their authors).
    #[arg(long)]
    pub authors: bool,
    /// Include this role's echoes (top entries by Echo Score within the budget), and point to
    /// docs/solutions/ when a Remembrance document came from them.
    #[arg(long)]
    pub role: Option<String>,
}

/// A token budget: a whole number above 0 (so `--budget -5` is a clear error, not an
/// "unexpected argument").
fn tokens(s: &str) -> Result<usize, String> {
    match s.trim().parse::<i64>() {
        Ok(n) if n >= 1 => usize::try_from(n).map_err(|e| e.to_string()),
        Ok(_) => Err("the budget is a number of tokens, at least 1 (e.g. --budget 2000)".into()),
        Err(_) => Err("the budget is a whole number of tokens (e.g. --budget 2000)".into()),
    }
}

pub fn run(ctx: &Context, args: LoadArgs) -> Result<ExitCode> {
    if args.budget == 0 {
        return Err(error::input(
            "--budget must be at least 1 token",
            "pass e.g. --budget 2000",
        ));
    }
    let store = ctx.store()?;
    ctx.hint_not_set_up(&store);
    let pick = args
        .role
        .as_deref()
        .map(|role| crate::echoes::briefing_picker(&store, role))
        .transpose()?;
    let briefed = with_role_briefing(
        &store,
        args.at.as_deref(),
        args.budget,
        args.authors,
        pick.as_ref().map(|p| p as &dyn Fn(&_) -> _),
        |briefing, _| {
            if ctx.ui.json {
                json::line(&json::load(briefing)) + "\n"
            } else {
                briefing.text()
            }
        },
    )?;
    if briefed.pruned > 0 {
        let n = briefed.pruned;
        ctx.ui.status(format_args!(
            "git-rune: pruned {n} instinct{} older than {PRUNE_DAYS} days with confidence below {PRUNE_CONFIDENCE} (history keeps them)",
            if n == 1 { "" } else { "s" }
        ));
    }
    if let Some(e) = &briefed.prune_error {
        ctx.ui
            .warn(format_args!("stale instincts were not pruned: {e:#}"));
    }
    if briefed.orphaned > 0 {
        let n = briefed.orphaned;
        ctx.ui.status(format_args!(
            "git-rune: marked {n} oracle dispatch{} pending for more than {ORPHAN_HOURS} hours orphaned (history keeps them)",
            if n == 1 { "" } else { "es" }
        ));
    }
    if let Some(e) = &briefed.orphan_error {
        ctx.ui.warn(format_args!(
            "stale oracle dispatches were not marked orphaned: {e:#}"
        ));
    }
    ctx.ui.print(&briefed.out)?;
    Ok(ExitCode::SUCCESS)
}
