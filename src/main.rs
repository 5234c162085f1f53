//! The `git-rune` binary: parse the command line, run, map errors to exit codes.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = git_rune::cli::Cli::parse();
    match git_rune::commands::run(cli.global, cli.command, git_rune::cli::command) {
        Ok(code) => code,
        Err(err) => git_rune::report(&err),
    }
}
