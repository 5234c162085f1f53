//! The `git-rune` binary: parse the command line, run, map errors to exit codes.

use std::process::ExitCode;

use clap::FromArgMatches;

fn main() -> ExitCode {
    // Parsed by the bare derive: a command line that parses means the same either way, and
    // the examples and listings `--help` adds cost every start (hooks included) several
    // million instructions. Help, a version or a usage error is told by the command line as
    // `--help` shows it (grouped commands, examples, exit status).
    let parsed = <git_rune::cli::Cli as clap::CommandFactory>::command()
        .try_get_matches()
        .and_then(|m| git_rune::cli::Cli::from_arg_matches(&m));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(_) => match git_rune::cli::command()
            .try_get_matches()
            .and_then(|m| git_rune::cli::Cli::from_arg_matches(&m))
        {
            Ok(cli) => cli,
            Err(err) => return git_rune::report_usage(&err),
        },
    };
    match git_rune::commands::run(cli.global, cli.command, git_rune::cli::command) {
        Ok(code) => code,
        Err(err) => git_rune::report(&err),
    }
}
