//! How git-rune talks: data to stdout, status to stderr (`-q` silences it), errors with their
//! causes and a hint, and the versioned `--json` shapes ([`json`]). Used by the commands only.

pub mod json;
pub mod manual;
pub mod oracle;
pub mod pager;
pub mod paint;

use std::cell::RefCell;
use std::fmt;
use std::io::Write;
use std::process::ExitCode;
use std::rc::Rc;

use crate::error::Kind;
use crate::secrets;
use crate::text::sanitize;

/// Where output goes: a shared writer (stdout, a pager's input, or a buffer in tests).
pub type Sink = Rc<RefCell<Box<dyn Write>>>;

/// A sink that writes to this process's stdout.
fn stdout_sink() -> Sink {
    Rc::new(RefCell::new(Box::new(std::io::stdout())))
}

/// A sink that writes to this process's stderr.
fn stderr_sink() -> Sink {
    Rc::new(RefCell::new(Box::new(std::io::stderr())))
}

/// How a command talks: data to `out` (stdout), status, warnings and notices to `err`
/// (stderr; `-q` silences status), colour when the user's settings ask for it. Both
/// writers can be replaced ([`Ui::capture`]) so commands run in process in tests.
#[derive(Clone)]
pub struct Ui {
    pub quiet: bool,
    pub json: bool,
    /// Colour data on stdout (`--color`, `color.ui`, `NO_COLOR`, a terminal).
    color: std::cell::Cell<bool>,
    out: Sink,
    err: Sink,
    /// The pager `out` feeds, waited for by [`Ui::finish`].
    pager: Rc<RefCell<Option<std::process::Child>>>,
}

impl Default for Ui {
    fn default() -> Ui {
        Ui {
            quiet: false,
            json: false,
            color: Default::default(),
            out: stdout_sink(),
            err: stderr_sink(),
            pager: Rc::default(),
        }
    }
}

impl fmt::Debug for Ui {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ui")
            .field("quiet", &self.quiet)
            .field("json", &self.json)
            .field("color", &self.color.get())
            .finish_non_exhaustive()
    }
}

/// What a captured [`Ui`] wrote.
#[derive(Clone, Default)]
pub struct Captured(Rc<RefCell<Vec<u8>>>);

impl Captured {
    /// The bytes written so far, as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.borrow()).into_owned()
    }
}

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Ui {
    /// A `Ui` on this process's stdout and stderr.
    pub fn new(quiet: bool, json: bool) -> Ui {
        Ui {
            quiet,
            json,
            ..Ui::default()
        }
    }

    /// A `Ui` whose stdout and stderr are buffers: for running commands in process.
    pub fn capture(quiet: bool, json: bool) -> (Ui, Captured, Captured) {
        let out = Captured::default();
        let err = Captured::default();
        let ui = Ui {
            out: Rc::new(RefCell::new(Box::new(out.clone()))),
            err: Rc::new(RefCell::new(Box::new(err.clone()))),
            ..Ui::new(quiet, json)
        };
        (ui, out, err)
    }

    /// A line on stderr.
    fn err_line(&self, line: &str) {
        let _ = writeln!(self.err.borrow_mut(), "{line}");
    }

    /// A status line on stderr.
    pub fn status(&self, msg: impl fmt::Display) {
        if !self.quiet {
            self.err_line(&sanitize(&msg.to_string()));
        }
    }

    /// A line on stderr as it is written (it names its own source), shown even with `-q`.
    pub fn notice(&self, msg: impl fmt::Display) {
        self.err_line(&sanitize(&msg.to_string()));
    }

    /// A warning on stderr, shown even with `-q`.
    pub fn warn(&self, msg: impl fmt::Display) {
        self.err_line(&format!(
            "warning: {}",
            sanitize(&secrets::redact(&msg.to_string()))
        ));
    }

    /// Writes data to stdout: text through [`sanitize`] (the one sanitiser of everything
    /// printed: records hold what agents and other clones wrote), JSON as it is (JSON escapes
    /// control characters, and its text fields hold what was recorded: docs/json.md). A
    /// closed pipe is reported as `BrokenPipe` for main to exit quietly.
    pub fn print(&self, s: &str) -> std::io::Result<()> {
        if self.json {
            self.write_out(s)
        } else {
            self.write_out(&sanitize(s))
        }
    }

    /// Writes text data as [`Ui::print`] does, each line coloured by `paint` when colour is
    /// on (after sanitizing, so only git-rune's own escape sequences reach the terminal).
    pub fn print_painted(&self, s: &str, paint: fn(&str) -> String) -> std::io::Result<()> {
        if self.json || !self.color.get() {
            return self.print(s);
        }
        let clean = sanitize(s);
        let mut out = String::with_capacity(clean.len() + clean.len() / 8);
        for line in clean.split_inclusive('\n') {
            let body = line.strip_suffix('\n').unwrap_or(line);
            out.push_str(&paint(body));
            out.push_str(&line[body.len()..]);
        }
        self.write_out(&out)
    }

    fn write_out(&self, s: &str) -> std::io::Result<()> {
        let mut out = self.out.borrow_mut();
        out.write_all(s.as_bytes())?;
        out.flush()
    }

    /// Turns colour on or off for [`Ui::print_painted`].
    pub fn set_color(&self, on: bool) {
        self.color.set(on);
    }

    /// Sends data through `pager` (a shell command) from here on; `None` leaves it as is.
    pub fn start_pager(&self, pager: Option<String>) {
        let Some(cmd) = pager else { return };
        match pager::spawn(&cmd) {
            Ok(mut child) => {
                if let Some(stdin) = child.stdin.take() {
                    *self.out.borrow_mut() = Box::new(stdin);
                    *self.pager.borrow_mut() = Some(child);
                }
            }
            Err(e) => self.warn(format_args!(
                "cannot run the pager {cmd:?}: {}",
                crate::error::io_text(&e)
            )),
        }
    }

    /// Closes the pager's input and waits for the reader to quit it.
    pub fn finish(&self) {
        if let Some(mut child) = self.pager.borrow_mut().take() {
            *self.out.borrow_mut() = Box::new(std::io::stdout());
            let _ = child.wait();
        }
    }
}

fn write_stdout(s: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(s.as_bytes())?;
    out.flush()
}

/// Record counts by kind as a phrase: `2 decisions, 1 learning, 1 removal, 3 commit notes`.
pub fn kind_counts(
    by_kind: &std::collections::BTreeMap<&'static str, usize>,
    notes: usize,
) -> String {
    let counted = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    let mut parts: Vec<String> = by_kind
        .iter()
        .filter(|(k, _)| **k != "resolve" && **k != "delete" && **k != "future")
        .map(|(k, n)| counted(*n, k))
        .collect();
    if let Some(n) = by_kind.get("future") {
        parts.push(counted(*n, "record") + " from a newer git-rune");
    }
    let edits: usize = by_kind
        .iter()
        .filter(|(k, _)| **k == "resolve" || **k == "delete")
        .map(|(_, n)| n)
        .sum();
    if edits > 0 {
        parts.push(counted(edits, "removal"));
    }
    if notes > 0 {
        parts.push(counted(notes, "commit note"));
    }
    parts.join(", ")
}

pub use crate::memory::hint_of;

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
                S::NotACommit { .. }
                | S::MissingObject { .. }
                | S::BadRef { .. }
                | S::BadRecord { .. } => Kind::Data,
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
            || e.downcast_ref::<crate::agent::payload::PayloadError>()
                .is_some()
            || e.downcast_ref::<crate::context::preview::PreviewError>()
                .is_some()
        {
            return Kind::Input;
        }
        if e.downcast_ref::<crate::agent::claude::SettingsError>()
            .is_some()
            || e.downcast_ref::<crate::hooks::install::HookError>()
                .is_some()
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
        if let Some(v) = e.downcast_ref::<crate::memory::view_dir::ViewError>() {
            return if v.source.kind() == std::io::ErrorKind::WouldBlock {
                Kind::Conflict
            } else {
                Kind::Environment
            };
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
    // Messages may quote what was typed (a path, an id, a value): none may print a secret.
    let args: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let clean = |s: &str| sanitize(&secrets::redact_message(s, args.iter().map(String::as_str)));
    let mut stderr = std::io::stderr().lock();
    let _ = write_report_cleaned(&mut stderr, err, &clean);
    ExitCode::from(kind_of(err).exit_code())
}

/// The report [`report`] prints, into any writer (the in-process command tests).
#[cfg(test)]
pub fn write_report(w: &mut dyn Write, err: &anyhow::Error) -> std::io::Result<()> {
    write_report_cleaned(w, err, &|s| {
        sanitize(&secrets::redact_message(s, std::iter::empty()))
    })
}

/// The report, each line through `clean` (the sanitiser, and no secret from the arguments).
fn write_report_cleaned(
    w: &mut dyn Write,
    err: &anyhow::Error,
    clean: &dyn Fn(&str) -> String,
) -> std::io::Result<()> {
    writeln!(w, "error: {}", clean(&err.to_string()))?;
    for cause in err.chain().skip(1) {
        writeln!(w, "  caused by: {}", clean(&cause.to_string()))?;
    }
    let kind = kind_of(err);
    match hint_of(err) {
        Some(hint) => writeln!(w, "hint: {}", clean(&hint))?,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// One representative error of every kind, typed as the layers raise them, and the exit
    /// code each maps to (docs/cli.md, "Exit status").
    #[test]
    fn every_kind_of_failure_maps_to_its_documented_exit_code() {
        use crate::store::StoreError;
        let cases: Vec<(anyhow::Error, Kind, u8)> = vec![
            (crate::error::usage("x", "y"), Kind::Usage, 2),
            (crate::error::input("no such task", "z"), Kind::Input, 1),
            (
                anyhow::Error::new(crate::memory::seal::SealError::Secret {
                    rule: "aws",
                    at: "--context".into(),
                }),
                Kind::Input,
                1,
            ),
            (
                anyhow::Error::new(StoreError::BadRecord {
                    name: "refs/rune/memory".into(),
                    path: "decision/all.jsonl".into(),
                    line: 1,
                    message: "bad".into(),
                }),
                Kind::Data,
                65,
            ),
            (
                anyhow::Error::new(crate::view::ParseError {
                    line: 3,
                    message: "bad".into(),
                })
                .context("cannot read .rune/decisions.md"),
                Kind::Data,
                65,
            ),
            (
                anyhow::Error::new(StoreError::Contended {
                    name: "refs/rune/memory".into(),
                    attempts: 3,
                }),
                Kind::Conflict,
                75,
            ),
            (
                anyhow::Error::new(std::io::Error::from(std::io::ErrorKind::WouldBlock))
                    .context("the view is locked"),
                Kind::Conflict,
                75,
            ),
            (
                anyhow::Error::new(StoreError::NotARepository("/tmp/x".into())),
                Kind::Environment,
                69,
            ),
            (
                anyhow::Error::new(std::io::Error::from(std::io::ErrorKind::PermissionDenied))
                    .context("cannot write .rune/decisions.md"),
                Kind::Environment,
                69,
            ),
            (anyhow::anyhow!("an invariant broke"), Kind::Internal, 70),
        ];
        for (err, kind, code) in cases {
            assert_eq!(kind_of(&err), kind, "{err:#}");
            assert_eq!(kind.exit_code(), code, "{err:#}");
        }
        // A kind raised deep inside keeps its kind under the context added above it.
        let deep = crate::error::conflict("locked", "retry").context("saving the view");
        assert_eq!(kind_of(&deep), Kind::Conflict);
        // Every exit code the table documents is one of the kinds' codes, or a result code.
        let documented: Vec<String> = crate::output::manual::exit_statuses()
            .into_iter()
            .map(|(c, _)| c)
            .collect();
        for k in Kind::ALL {
            assert!(documented.contains(&k.exit_code().to_string()), "{k:?}");
        }
    }

    #[test]
    fn the_report_gives_a_hint_worded_for_the_command_line() {
        let err = crate::error::input("no content", crate::error::pass("content", "\"…\"", ""));
        let mut out = Vec::new();
        write_report(&mut out, &err).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "error: no content\nhint: pass --content \"…\"\n"
        );
        let mut out = Vec::new();
        write_report(&mut out, &anyhow::anyhow!("boom")).unwrap();
        assert!(String::from_utf8(out)
            .unwrap()
            .contains("a bug in git-rune"));
    }
}
