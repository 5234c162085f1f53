//! `git rune load`: what a new session needs, within a token budget.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::Context;
use crate::error::user_error;
use crate::notes::at::with_briefing;
use crate::output::json;

#[derive(Debug, Args)]
pub struct LoadArgs {
    /// Show memory as it was when this commit was made.
    #[arg(long, value_name = "REV")]
    pub at: Option<String>,
    /// Token budget for the output (estimated as characters / 4).
    #[arg(long, default_value_t = 2000)]
    pub budget: usize,
    /// Say who wrote each record (records merged from other clones keep their authors).
    #[arg(long)]
    pub authors: bool,
}

pub fn run(ctx: &Context, args: LoadArgs) -> Result<ExitCode> {
    if args.budget == 0 {
        return Err(user_error(
            "--budget must be at least 1 token",
            "pass e.g. --budget 2000",
        ));
    }
    let store = ctx.store()?;
    let out = with_briefing(
        &store,
        args.at.as_deref(),
        args.budget,
        args.authors,
        |briefing| {
            if ctx.ui.json {
                json::line(&json::load(briefing)) + "\n"
            } else {
                briefing.text()
            }
        },
    )?;
    ctx.ui.print(&out)?;
    Ok(ExitCode::SUCCESS)
}
