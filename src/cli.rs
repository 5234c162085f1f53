//! The command line: the global flags and the subcommands (clap derive). The subcommands and
//! their dispatch live in `commands`.

use clap::Parser;

use crate::commands::{Command, GlobalArgs};

/// Git-native memory for AI coding agents: decisions, conventions, progress and checkpoints
/// committed under refs/rune/, checked out as the .rune/ view.
#[derive(Debug, Parser)]
#[command(
    name = "git-rune",
    bin_name = "git rune",
    version,
    max_term_width = 100
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,

    #[command(subcommand)]
    pub command: Command,
}

/// The command line as clap sees it (for the manual pages and completions, which describe
/// it, and the generated docs/cli.md).
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    Cli::command()
}
