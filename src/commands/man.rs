//! `git rune install-man`, `git rune help` and `git rune completions`: the manual pages
//! `git rune --help` shows (git turns it into `man git-rune`), help that falls back to the
//! long `--help` text when no page is installed, and shell completion scripts.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::Context;
use crate::error;
use crate::output::json;
use crate::output::manual::{completions_script, default_man_dir, install_man_pages};

#[derive(Debug, Args)]
pub struct InstallManArgs {
    /// Where to write the pages (default: $GIT_RUNE_MAN_DIR, else `share/man/man1` beside the
    /// directory git-rune is installed in, where `man` looks for it).
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
        error::environment(
            "cannot tell where git-rune is installed",
            "pass --dir <directory on your MANPATH>",
        )
    })?;
    let changed = install_man_pages((ctx.cli)(), &dir).map_err(|e| {
        error::environment(
            format!(
                "cannot write manual pages to {}: {}",
                dir.display(),
                error::io_text(&e)
            ),
            "pass --dir <a directory you can write, on your MANPATH>",
        )
    })?;
    if ctx.ui.json {
        return ctx.print_json(&json::InstallManJson {
            version: json::VERSION,
            dir: &dir,
            written: changed,
        });
    }
    ctx.reported(&format!(
        "manual pages in {} ({changed} written); `git rune --help` shows them\n",
        dir.display()
    ))
}

pub fn completions(ctx: &Context, args: CompletionsArgs) -> Result<ExitCode> {
    if ctx.ui.json {
        return Err(error::usage(
            "`git rune completions` prints a shell script, not JSON",
            "drop --json",
        ));
    }
    let script = completions_script((ctx.cli)(), args.shell);
    ctx.print(&String::from_utf8_lossy(&script))
}

#[derive(Debug, Args)]
pub struct HelpArgs {
    /// The command to describe (`decide`, `task add`); none for git-rune itself.
    #[arg(value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// `git rune help [COMMAND]`: the manual page when it is installed and stdout is a
/// terminal (as `git help` does), else the command's long `--help` text.
pub fn help(ctx: &Context, args: HelpArgs) -> Result<ExitCode> {
    let mut cmd = (ctx.cli)();
    cmd.build();
    let mut found = &cmd;
    for word in &args.command {
        found = found.find_subcommand(word).ok_or_else(|| {
            error::input(
                format!("{:?} is not a git-rune command", args.command.join(" ")),
                error::run("help", " to list the commands"),
            )
        })?;
    }
    let page = if args.command.is_empty() {
        "git-rune".to_owned()
    } else {
        format!("git-rune-{}", args.command.join("-"))
    };
    if !ctx.ui.json && std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        if let Some(dir) = default_man_dir().filter(|d| d.join(format!("{page}.1")).is_file()) {
            let status = std::process::Command::new("man")
                .arg(dir.join(format!("{page}.1")))
                .status();
            if status.is_ok_and(|s| s.success()) {
                return Ok(ExitCode::SUCCESS);
            }
        }
    }
    let text = found.clone().render_long_help().to_string();
    ctx.print(&text)
}
