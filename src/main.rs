//! The `git-rune` binary: parse the command line, run, map errors to exit codes.

use std::process::ExitCode;

use clap::Parser;
use git_rune::output::UserError;
use git_rune::store::StoreError;

fn main() -> ExitCode {
    // The installed git hooks run `git-rune hook <name> …` on every commit and checkout: they
    // skip building the whole command-line parser (a quarter of a millisecond).
    if let Some(result) = git_rune::commands::hooks::run_direct(std::env::args_os()) {
        return result.unwrap_or_else(|err| report(&err));
    }
    let cli = git_rune::cli::Cli::parse();
    match git_rune::commands::run(cli) {
        Ok(code) => code,
        Err(err) => report(&err),
    }
}

/// Prints `error: …`, the cause chain and a `hint: …`; a closed stdout exits quietly.
fn report(err: &anyhow::Error) -> ExitCode {
    if err
        .chain()
        .filter_map(|e| e.downcast_ref::<std::io::Error>())
        .any(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    {
        return ExitCode::SUCCESS;
    }
    let clean = git_rune::output::sanitize;
    eprintln!("error: {}", clean(&err.to_string()));
    for cause in err.chain().skip(1) {
        eprintln!("  caused by: {}", clean(&cause.to_string()));
    }
    let hint = err.chain().find_map(|e| {
        if let Some(u) = e.downcast_ref::<UserError>() {
            return u.hint.clone();
        }
        e.downcast_ref::<StoreError>().and_then(StoreError::hint)
    });
    if let Some(hint) = hint {
        eprintln!("hint: {}", clean(&hint));
    }
    ExitCode::from(1)
}
