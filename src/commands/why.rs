//! `git rune why <commit>` and `git rune why <file>:<line>`: the memory behind a piece of
//! code, from the note on the commit that introduced it.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::Context;
use crate::model::{Body, Record};
use crate::notes::why::why;
use crate::output::json;
use crate::text::{pretty_time, short};

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
    let commit = w.commit.to_string();
    let mut out = String::new();
    if let Some((file, line)) = &w.line {
        out.push_str(&format!(
            "{file}:{line} was last changed by {}\n",
            short(&commit)
        ));
    }
    let Some((noted, text)) = &w.noted else {
        out.push_str(&format!(
            "no git-rune note on {} or its ancestors{}\n",
            short(&commit),
            w.path()
                .map(|p| format!(" that touch {p}"))
                .unwrap_or_default()
        ));
        ctx.ui.print(&out)?;
        return Ok(ExitCode::from(1));
    };
    if *noted != w.commit {
        out.push_str(&format!(
            "{} has no note; the nearest ancestor{} with one is {}\n",
            short(&commit),
            w.path()
                .map(|p| format!(" touching {p}"))
                .unwrap_or_default(),
            short(&noted.to_string())
        ));
    }
    out.push_str(&format!("commit {noted}\n"));
    out.push_str(text.lines().next().unwrap_or(""));
    out.push('\n');
    for (kind, id, title) in &w.note.records {
        match w.records.iter().find(|r| r.id.starts_with(id.as_str())) {
            Some(r) => out.push_str(&expand(r)),
            None => out.push_str(&format!(
                "\n{kind} {} {}: (no longer in memory)\n",
                short(id),
                title
            )),
        }
    }
    if let Some(c) = &w.note.checkpoint {
        out.push_str(&format!("\nopen checkpoint then: {}\n", c));
    }
    if let Some(s) = w.session() {
        if let Body::Session { summary, .. } = &s.body {
            out.push_str(&format!(
                "session: [{}] {}\n",
                pretty_time(&s.meta.ts),
                summary
            ));
        }
    }
    ctx.ui.print(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// A record in full, for reading in a terminal.
fn expand(r: &Record) -> String {
    let mut out = format!(
        "\n{} {} ({})\n",
        r.kind().as_str(),
        short(&r.id),
        pretty_time(&r.meta.ts)
    );
    for (field, text) in r.body.texts() {
        if !text.is_empty() {
            out.push_str(&format!("  {field}: {}\n", &text));
        }
    }
    out
}
