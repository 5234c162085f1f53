//! The `git-rune` binary: parse the command line, run, map errors to exit codes.

use std::process::ExitCode;

use clap::FromArgMatches;

fn main() -> ExitCode {
    // The hooks' entry points are parsed by a parser of theirs alone (`cli::parse_hook_entry`);
    // the rest by the bare derive: a command line that parses means the same either way, and
    // the examples and listings `--help` adds cost every start several million instructions.
    // Help, a version or a usage error is told by the command line as `--help` shows it
    // (grouped commands, examples, exit status).
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let parsed = match git_rune::cli::parse_hook_entry(&args) {
        Some(cli) => Ok(cli),
        None => <git_rune::cli::Cli as clap::CommandFactory>::command()
            .try_get_matches_from(&args)
            .and_then(|m| git_rune::cli::Cli::from_arg_matches(&m)),
    };
    let cli = match parsed {
        Ok(cli) => cli,
        Err(_) => match git_rune::cli::command()
            .try_get_matches_from(&args)
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
