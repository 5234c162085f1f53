//! The `git-rune` binary: parse the command line, run, map errors to exit codes.
//!
//! On Linux with glibc the binary has its own C `main` (`no_main`), because Rust's start-up
//! costs the post-commit hook, and so every `git commit`, about a tenth of a millisecond: it
//! parses `/proc/self/maps` to find the main thread's stack and installs a stack-overflow
//! handler. [`start`] does what of that start-up this program relies on, and
//! `std::process::exit` flushes stdout as returning from `main` would (docs/performance.md).
#![cfg_attr(all(target_os = "linux", target_env = "gnu", not(test)), no_main)]

use std::process::ExitCode;

use clap::Parser;
use git_rune::output::UserError;
use git_rune::store::StoreError;

#[cfg(all(target_os = "linux", target_env = "gnu", not(test)))]
#[no_mangle]
extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    // glibc hands the arguments to std itself (std::env::args works without Rust's main).
    start();
    let code = run();
    std::process::exit(
        (0..=255u8)
            .find(|&n| ExitCode::from(n) == code)
            .map_or(1, i32::from),
    )
}

#[cfg(not(all(target_os = "linux", target_env = "gnu", not(test))))]
fn main() -> ExitCode {
    run()
}

/// The part of Rust's runtime start-up that git-rune needs, done cheaply.
#[cfg(all(target_os = "linux", target_env = "gnu", not(test)))]
fn start() {
    use std::os::fd::{AsRawFd, IntoRawFd};
    extern "C" {
        fn signal(signum: std::ffi::c_int, handler: usize) -> usize;
    }
    const SIGPIPE: std::ffi::c_int = 13;
    const SIG_IGN: usize = 1;
    // SAFETY: ignoring SIGPIPE, before any other thread exists, is exactly what Rust's runtime
    // does at start-up. A write to a closed pipe is then an error `report` handles, never a
    // kill in the middle of a command.
    unsafe {
        signal(SIGPIPE, SIG_IGN);
    }
    // A closed stdin, stdout or stderr would be taken by the next file opened, and output
    // would land in it: fill such a gap with /dev/null, as Rust's runtime does.
    while let Ok(null) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/null")
    {
        if null.as_raw_fd() > 2 {
            break;
        }
        let _ = null.into_raw_fd();
    }
}

fn run() -> ExitCode {
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
