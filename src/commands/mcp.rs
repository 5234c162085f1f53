//! `git rune mcp`: serve memory over the Model Context Protocol on stdin/stdout.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::Context;

/// `mcp` takes `-C` and how the tools that write treat secrets.
#[derive(Debug, Args)]
pub struct McpArgs {
    #[command(flatten)]
    pub redact: super::Redact,
}

pub fn run(ctx: &Context, _args: McpArgs) -> Result<ExitCode> {
    crate::mcp::serve(ctx.dir.clone(), ctx.redact, |m| {
        crate::output::Ui::default().warn(format_args!("git-rune mcp: {m}"))
    })?;
    Ok(ExitCode::SUCCESS)
}
