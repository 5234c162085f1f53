//! The `git-rune` binary: parse the command line, run, map errors to exit codes.

use std::process::ExitCode;

use clap::FromArgMatches;

fn main() -> ExitCode {
    // The command line as `--help` shows it (grouped commands, examples, exit status), not
    // the bare derive.
    let cli = match git_rune::cli::command()
        .try_get_matches()
        .and_then(|m| git_rune::cli::Cli::from_arg_matches(&m))
    {
        Ok(cli) => cli,
        Err(err) => return git_rune::report_usage(&err),
    };
    match git_rune::commands::run(cli.global, cli.command, git_rune::cli::command) {
        Ok(code) => code,
        Err(err) => git_rune::report(&err),
    }
}
