//! The `git-rune` binary: parse the command line, run, map errors to exit codes.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = match git_rune::cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return git_rune::report_usage(&err),
    };
    match git_rune::commands::run(cli.global, cli.command, git_rune::cli::command) {
        Ok(code) => code,
        Err(err) => git_rune::report(&err),
    }
}
