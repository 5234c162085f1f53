//! How git-rune talks: data to stdout, status to stderr (`-q` silences it), errors with their
//! causes and a hint, and the versioned `--json` shapes ([`json`]). Used by the commands only.

pub mod json;
pub mod manual;
pub mod oracle;

use std::fmt;
use std::io::Write;
use std::process::ExitCode;

use crate::error::Kind;
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
            sanitize(&msg.to_string())
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
/// what to do is asked here, and the hint is worded for the command line.
pub fn hint_of(err: &anyhow::Error) -> Option<String> {
    err.chain().find_map(|e| {
        if let Some(u) = e.downcast_ref::<crate::error::Error>() {
            return u.hint.as_ref().map(crate::error::Hint::for_cli);
        }
        if let Some(s) = e.downcast_ref::<crate::memory::seal::SealError>() {
            return s.hint();
        }
        e.downcast_ref::<crate::store::StoreError>()
            .and_then(crate::store::StoreError::hint)
    })
}

/// The kind of an error: the first error in the chain that has one decides (a typed error
/// raised inside keeps its kind through the context added above it); an error nothing
/// classifies is a bug.
pub fn kind_of(err: &anyhow::Error) -> Kind {
    use crate::store::StoreError as S;
    for e in err.chain() {
        if let Some(u) = e.downcast_ref::<crate::error::Error>() {
            return u.kind;
        }
        if e.downcast_ref::<clap::Error>().is_some() {
            return Kind::Usage;
        }
        if let Some(s) = e.downcast_ref::<crate::memory::seal::SealError>() {
            return match s {
                crate::memory::seal::SealError::Forged { .. } => Kind::Data,
                _ => Kind::Input,
            };
        }
        if let Some(s) = e.downcast_ref::<S>() {
            return match s {
                S::NotARepository(_) | S::PartialClone { .. } | S::Unsupported { .. } => {
                    Kind::Environment
                }
                S::NotACommit { .. } | S::MissingObject { .. } | S::BadRecord { .. } => Kind::Data,
                S::Contended { .. } | S::Locked { .. } => Kind::Conflict,
                S::Git { .. } => Kind::Data,
                S::Io { .. } => Kind::Environment,
            };
        }
        if e.downcast_ref::<crate::view::ParseError>().is_some() {
            return Kind::Data;
        }
        if e.downcast_ref::<crate::model::ValidationError>().is_some()
            || e.downcast_ref::<crate::tasks::sp_json::SpError>().is_some()
            || e.downcast_ref::<crate::agent::payload::PayloadError>().is_some()
            || e.downcast_ref::<crate::context::preview::PreviewError>().is_some()
        {
            return Kind::Input;
        }
        if e.downcast_ref::<crate::agent::claude::SettingsError>().is_some()
            || e.downcast_ref::<crate::hooks::install::HookError>().is_some()
        {
            return Kind::Environment;
        }
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            // A lock another process holds (the view's, a sync's) is a conflict: try again.
            return if io.kind() == std::io::ErrorKind::WouldBlock {
                Kind::Conflict
            } else {
                Kind::Environment
            };
        }
        if e.downcast_ref::<crate::memory::view_dir::ViewError>().is_some()
        {
            return Kind::Environment;
        }
    }
    Kind::Internal
}

/// Whether the error is a closed output pipe (the reader went away): not worth a word.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain()
        .filter_map(|e| e.downcast_ref::<std::io::Error>())
        .any(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
}

/// Prints `error: …`, the cause chain and a `hint: …` on stderr and returns the exit code of
/// the error's kind (docs/cli.md, "Exit status"); a closed stdout exits quietly with 0.
pub fn report(err: &anyhow::Error) -> ExitCode {
    if is_broken_pipe(err) {
        return ExitCode::SUCCESS;
    }
    let mut stderr = std::io::stderr().lock();
    let _ = write_report(&mut stderr, err);
    ExitCode::from(kind_of(err).exit_code())
}

/// The report [`report`] prints, into any writer.
pub fn write_report(w: &mut dyn Write, err: &anyhow::Error) -> std::io::Result<()> {
    writeln!(w, "error: {}", sanitize(&err.to_string()))?;
    for cause in err.chain().skip(1) {
        writeln!(w, "  caused by: {}", sanitize(&cause.to_string()))?;
    }
    let kind = kind_of(err);
    match hint_of(err) {
        Some(hint) => writeln!(w, "hint: {}", sanitize(&hint))?,
        None if kind == Kind::Internal => writeln!(
            w,
            "hint: this is a bug in git-rune; please report it with the command you ran"
        )?,
        None => {}
    }
    Ok(())
}

/// Prints what clap has to say about the command line (a usage error, `--help`,
/// `--version`) through the sanitiser, since an error quotes what was typed, and returns its
/// exit code. Plain text: clap's colours would be escape sequences too.
pub fn report_usage(err: &clap::Error) -> ExitCode {
    let text = sanitize(&err.render().to_string());
    let _ = if err.use_stderr() {
        std::io::stderr().lock().write_all(text.as_bytes())
    } else {
        write_stdout(&text)
    };
    ExitCode::from(u8::try_from(err.exit_code()).unwrap_or(2))
}
