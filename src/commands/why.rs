//! `git rune why <commit>` and `git rune why <file>:<line>`: the memory behind a piece of
//! code, from the note on the commit that introduced it.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::Context;
use crate::notes::why::why;
use crate::output::json;

#[derive(Debug, Args)]
pub struct WhyArgs {
    /// A commit (any revision), or `<file>:<line>` to start from the commit that last changed
    /// that line.
    pub target: String,
}

pub fn run(ctx: &Context, args: WhyArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    let w = why(&store, &args.target)?;
    if ctx.ui.json {
        ctx.ui.print(&(json::line(&json::why(&w)) + "\n"))?;
        return Ok(if w.noted.is_some() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        });
    }
    ctx.ui.print(&w.text(&|_| false))?;
    Ok(if w.noted.is_some() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
