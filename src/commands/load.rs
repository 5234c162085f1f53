//! `git rune load`: what a new session needs, within a token budget.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::Context;
use crate::error;
use crate::output::json;
use crate::read::with_role_briefing;

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
    /// Read only: skip the session start's upkeep (merging fetched memory, pruning stale
    /// instincts, marking stale oracle dispatches orphaned), which `load` otherwise runs
    /// first and reports.
    #[arg(long)]
    pub no_upkeep: bool,
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
    // A session starts here (agents without hooks run `load`): its upkeep first, reported
    // below and in `--json`'s `wrote`. Memory as of a commit is history: nothing to keep up.
    let store = ctx.open_store()?;
    let up = if args.no_upkeep {
        crate::upkeep::Upkeep::default()
    } else if args.at.is_some() {
        crate::upkeep::merge(&store)
    } else {
        crate::upkeep::session_start(&store)
    };
    ctx.hint_not_set_up(&store);
    let pick = args
        .role
        .as_deref()
        .map(|role| crate::echoes::briefing_picker(&store, role))
        .transpose()?;
    let out = with_role_briefing(
        &store,
        args.at.as_deref(),
        args.budget,
        args.authors,
        pick.as_ref().map(|p| p as &dyn Fn(&_) -> _),
        |briefing, _| {
            if ctx.ui.json {
                let mut obj = json::load(briefing);
                obj["wrote"] = json::upkeep(&up);
                json::line(&obj) + "\n"
            } else {
                briefing.text()
            }
        },
    )?;
    super::report_upkeep(ctx, &up);
    ctx.print(&out)
}
