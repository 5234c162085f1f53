//! `git rune install-man` and `git rune completions`: the manual pages `git rune --help`
//! shows (git turns it into `man git-rune`), and shell completion scripts.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::Context;
use crate::error::user_error;
use crate::output::json;
use crate::output::manual::{completions_script, default_man_dir, install_man_pages};

#[derive(Debug, Args)]
pub struct InstallManArgs {
    /// Where to write the pages (default: `share/man/man1` beside the directory git-rune is
    /// installed in, where `man` looks for it; `git rune init` does this too).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete in.
    pub shell: clap_complete::Shell,
}

pub fn install(ctx: &Context, args: InstallManArgs) -> Result<ExitCode> {
    let dir = args.dir.or_else(default_man_dir).ok_or_else(|| {
        user_error(
            "cannot tell where git-rune is installed",
            "pass --dir <directory on your MANPATH>",
        )
    })?;
    let changed = install_man_pages((ctx.cli)(), &dir).map_err(|e| {
        user_error(
            format!("cannot write manual pages to {}: {e}", dir.display()),
            "pass --dir <a directory you can write, on your MANPATH>",
        )
    })?;
    if ctx.ui.json {
        let v = serde_json::json!({
            "version": json::VERSION,
            "dir": dir.display().to_string(),
            "written": changed,
        });
        ctx.ui.print(&(json::line(&v) + "\n"))?;
    } else {
        ctx.report(&format!(
            "manual pages in {} ({changed} written); `git rune --help` shows them\n",
            dir.display()
        ))?;
    }
    Ok(ExitCode::SUCCESS)
}

pub fn completions(ctx: &Context, args: CompletionsArgs) -> Result<ExitCode> {
    if ctx.ui.json {
        return Err(user_error(
            "`git rune completions` prints a shell script, not JSON",
            "drop --json",
        ));
    }
    let script = completions_script((ctx.cli)(), args.shell);
    ctx.ui.print(&String::from_utf8_lossy(&script))?;
    Ok(ExitCode::SUCCESS)
}
