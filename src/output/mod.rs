//! How git-rune talks: data to stdout, status to stderr (`-q` silences it), errors with their
//! causes and a hint, and the versioned `--json` shapes ([`json`]). Used by the commands only.

pub mod json;
pub mod manual;
pub mod oracle;

use std::fmt;
use std::io::Write;
use std::process::ExitCode;

use crate::secrets;
use crate::text::sanitize;

/// Where status lines go; `-q` silences them.
#[derive(Debug, Clone, Copy, Default)]
pub struct Ui {
    pub quiet: bool,
    pub json: bool,
}

impl Ui {
    /// A status line on stderr.
    pub fn status(&self, msg: impl fmt::Display) {
        if !self.quiet {
            let _ = writeln!(std::io::stderr().lock(), "{}", sanitize(&msg.to_string()));
        }
    }

    /// A line on stderr as it is written (it names its own source), shown even with `-q`.
    pub fn notice(&self, msg: impl fmt::Display) {
        let _ = writeln!(std::io::stderr().lock(), "{}", sanitize(&msg.to_string()));
    }

    /// A warning on stderr, shown even with `-q`.
    pub fn warn(&self, msg: impl fmt::Display) {
        let _ = writeln!(
            std::io::stderr().lock(),
            "warning: {}",
            sanitize(&secrets::redact(&msg.to_string()))
        );
    }
}

impl Ui {
    /// Writes data to stdout: text through [`sanitize`] (the one sanitiser of everything
    /// printed: records hold what agents and other clones wrote), JSON as it is (JSON escapes
    /// control characters, and its text fields hold what was recorded: docs/json.md). A
    /// closed pipe is reported as `BrokenPipe` for main to exit quietly.
    pub fn print(&self, s: &str) -> std::io::Result<()> {
        if self.json {
            write_stdout(s)
        } else {
            write_stdout(&sanitize(s))
        }
    }
}

fn write_stdout(s: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(s.as_bytes())?;
    out.flush()
}

/// The hint of the first error in the chain that has one: each typed error that can say
/// what to do is asked here.
fn hint_of(err: &anyhow::Error) -> Option<String> {
    err.chain().find_map(|e| {
        if let Some(u) = e.downcast_ref::<crate::error::UserError>() {
            return u.hint.clone();
        }
        if let Some(s) = e.downcast_ref::<crate::memory::seal::SealError>() {
            return s.hint();
        }
        e.downcast_ref::<crate::store::StoreError>()
            .and_then(crate::store::StoreError::hint)
    })
}

/// Whether the error is a closed output pipe (the reader went away): not worth a word.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain()
        .filter_map(|e| e.downcast_ref::<std::io::Error>())
        .any(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
}

/// Prints `error: …`, the cause chain and a `hint: …` on stderr and returns exit code 1; a
/// closed stdout exits quietly with 0.
pub fn report(err: &anyhow::Error) -> ExitCode {
    if is_broken_pipe(err) {
        return ExitCode::SUCCESS;
    }
    // Messages may quote what was typed (a path, an id, a value): none may print a secret.
    let args: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let clean = |s: &str| sanitize(&secrets::redact_message(s, args.iter().map(String::as_str)));
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "error: {}", clean(&err.to_string()));
    for cause in err.chain().skip(1) {
        let _ = writeln!(stderr, "  caused by: {}", clean(&cause.to_string()));
    }
    if let Some(hint) = hint_of(err) {
        let _ = writeln!(stderr, "hint: {}", clean(&hint));
    }
    ExitCode::from(1)
}

/// Prints what clap has to say about the command line (a usage error, `--help`,
/// `--version`) through the sanitiser, since an error quotes what was typed, and returns its
/// exit code. An error quotes arguments back (an unexpected one, a value it rejects): each
/// that holds a secret is redacted first (`learn --insight "$(cat id_ed25519)" --bogus` must
/// not print the key). Plain text: clap's colours would be escape sequences too.
pub fn report_usage(err: &clap::Error) -> ExitCode {
    let rendered = err.render().to_string();
    let text = if err.use_stderr() {
        // Arguments are read lossily: clap quotes what it could decode.
        let args: Vec<String> = std::env::args_os()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        sanitize(&secrets::redact_message(
            &rendered,
            args.iter().map(String::as_str),
        ))
    } else {
        sanitize(&rendered)
    };
    let _ = if err.use_stderr() {
        std::io::stderr().lock().write_all(text.as_bytes())
    } else {
        write_stdout(&text)
    };
    ExitCode::from(u8::try_from(err.exit_code()).unwrap_or(2))
}
