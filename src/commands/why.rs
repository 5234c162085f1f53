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
    /// that line (the file relative to the current directory, as git takes paths).
    pub target: String,
}

/// `<file>:<line>` with the file as typed here (relative to the current directory) made
/// relative to the work tree's root; a commit, or a file not found here, as it was typed.
fn target(ctx: &Context, store: &crate::store::Store, typed: &str) -> Result<String> {
    let Some((file, line)) = typed
        .rsplit_once(':')
        .filter(|(f, n)| !f.is_empty() && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    else {
        return Ok(typed.to_owned());
    };
    if !ctx.dir.join(file).is_file() {
        return Ok(typed.to_owned());
    }
    Ok(format!("{}:{line}", ctx.repo_path(store, file)?))
}

pub fn run(ctx: &Context, args: WhyArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    let target = target(ctx, &store, &args.target)?;
    let mut w = why(&store, &target)?;
    // Through the integrity gate, as every reader of memory: an agent runs `why` too.
    let withheld = w.gate();
    if ctx.ui.json {
        ctx.print_json(&json::why(&w))?;
    } else {
        ctx.print(&w.text(&|r| withheld.contains(&r.id)))?;
    }
    Ok(if w.noted.is_some() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
