//! Errors a person can act on: a kind (which maps to a documented exit code), what happened,
//! and a structured hint that each edge phrases for its interface (the CLI's flags in
//! `output::report`, the MCP server's tool arguments in `mcp::server`).

use std::fmt;

/// What sort of failure an error is; each kind has one exit code (docs/cli.md, "Exit status").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The command line itself is wrong: an unknown flag, a missing or malformed argument,
    /// flags that do not go together.
    Usage,
    /// The command line parses, but what it names or asks for does not fit: an unknown id, a
    /// revision that names no commit, a path that does not exist or cannot be read, a value
    /// outside its range, nothing to do.
    Input,
    /// Stored data is damaged or breaks the rules: a record altered after it was written, a
    /// view file that does not parse, an object that is missing.
    Data,
    /// Someone else is writing at the same time (a lock, a ref that kept moving): run the
    /// command again.
    Conflict,
    /// The surroundings are not as needed: not a git repository, a folder or file git-rune
    /// cannot create or write, a remote that cannot be reached, `HOME` unset. (A path the
    /// command line names that does not exist or cannot be read is [`Kind::Input`].)
    Environment,
    /// A bug in git-rune: please report it.
    Internal,
}

impl Kind {
    /// Every kind, in the order the exit-status table lists them.
    pub const ALL: [Kind; 6] = [
        Kind::Input,
        Kind::Usage,
        Kind::Data,
        Kind::Environment,
        Kind::Internal,
        Kind::Conflict,
    ];

    /// The process exit code: 1 and 2 as git tools use them (2 is clap's usage error), the
    /// others from BSD's sysexits.h so scripts can tell them apart.
    pub fn exit_code(self) -> u8 {
        match self {
            Kind::Input => 1,
            Kind::Usage => 2,
            Kind::Data => 65,        // EX_DATAERR
            Kind::Environment => 69, // EX_UNAVAILABLE
            Kind::Internal => 70,    // EX_SOFTWARE
            Kind::Conflict => 75,    // EX_TEMPFAIL: try again
        }
    }

    /// One line for the exit-status table.
    pub fn meaning(self) -> &'static str {
        match self {
            Kind::Usage => "usage: the command line is wrong (an unknown flag, a missing or malformed value)",
            Kind::Input => "user input: what the command names or asks for does not fit (an unknown id or revision, a path that does not exist or cannot be read, a value out of range, nothing to do)",
            Kind::Data => "data or integrity: stored memory or a view file is damaged or breaks the record rules",
            Kind::Conflict => "conflict: another process holds a lock or kept moving a ref; nothing was written, run the command again",
            Kind::Environment => "environment: not a git repository, a folder or file git-rune cannot create or write, a remote or program that cannot be reached",
            Kind::Internal => "internal: a bug in git-rune (please report it)",
        }
    }
}

/// What the user (or the agent) can do, kept structured so the edge that knows the interface
/// words it: the CLI names flags and commands, the MCP server names tool arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hint {
    /// Advice that names no interface.
    Say(String),
    /// Give an argument: the CLI's `--<arg> <value>`, the MCP tool's `<arg>` argument. `then`
    /// (which may be empty) continues the sentence.
    Pass {
        arg: &'static str,
        value: &'static str,
        then: String,
    },
    /// A git-rune command a person runs (`args` without `git rune`); `then` continues.
    Run { args: String, then: String },
}

impl Hint {
    /// The hint as the command line says it.
    pub fn for_cli(&self) -> String {
        match self {
            Hint::Say(s) => s.clone(),
            Hint::Pass { arg, value, then } => {
                if value.is_empty() {
                    format!("pass --{arg}{then}")
                } else {
                    format!("pass --{arg} {value}{then}")
                }
            }
            Hint::Run { args, then } => format!("run `git rune {args}`{then}"),
        }
    }

    /// The hint as an MCP tool's caller (a model) reads it: arguments by their JSON names.
    pub fn for_tool(&self) -> String {
        match self {
            Hint::Say(s) => s.clone(),
            Hint::Pass { arg, then, .. } => {
                format!("set the `{}` argument{then}", arg.replace('-', "_"))
            }
            Hint::Run { args, then } => {
                format!("a person can run `git rune {args}` in the repository{then}")
            }
        }
    }
}

impl From<String> for Hint {
    fn from(s: String) -> Hint {
        Hint::Say(s)
    }
}

impl From<&str> for Hint {
    fn from(s: &str) -> Hint {
        Hint::Say(s.to_owned())
    }
}

/// An error a user can act on: its kind, what happened, and what to do about it.
#[derive(Debug)]
pub struct Error {
    pub kind: Kind,
    pub message: String,
    pub hint: Option<Hint>,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl Error {
    /// An error of `kind` with a hint.
    pub fn hinted(kind: Kind, message: impl Into<String>, hint: impl Into<Hint>) -> anyhow::Error {
        anyhow::Error::new(Error {
            kind,
            message: message.into(),
            hint: Some(hint.into()),
        })
    }

    /// An error of `kind` without a hint.
    pub fn plain(kind: Kind, message: impl Into<String>) -> anyhow::Error {
        anyhow::Error::new(Error {
            kind,
            message: message.into(),
            hint: None,
        })
    }
}

/// A user-input error with a hint ([`Kind::Input`]).
pub fn input(message: impl Into<String>, hint: impl Into<Hint>) -> anyhow::Error {
    Error::hinted(Kind::Input, message, hint)
}

/// A command-line error ([`Kind::Usage`]): flags that do not go together, a malformed value.
pub fn usage(message: impl Into<String>, hint: impl Into<Hint>) -> anyhow::Error {
    Error::hinted(Kind::Usage, message, hint)
}

/// Damaged or rule-breaking data ([`Kind::Data`]).
pub fn data(message: impl Into<String>, hint: impl Into<Hint>) -> anyhow::Error {
    Error::hinted(Kind::Data, message, hint)
}

/// Another writer got in the way ([`Kind::Conflict`]).
pub fn conflict(message: impl Into<String>, hint: impl Into<Hint>) -> anyhow::Error {
    Error::hinted(Kind::Conflict, message, hint)
}

/// The surroundings are not as needed ([`Kind::Environment`]).
pub fn environment(message: impl Into<String>, hint: impl Into<Hint>) -> anyhow::Error {
    Error::hinted(Kind::Environment, message, hint)
}

/// A hint that asks for an argument (see [`Hint::Pass`]).
pub fn pass(arg: &'static str, value: &'static str, then: impl Into<String>) -> Hint {
    Hint::Pass {
        arg,
        value,
        then: then.into(),
    }
}

/// A hint that names a git-rune command to run (see [`Hint::Run`]).
pub fn run(args: impl Into<String>, then: impl Into<String>) -> Hint {
    Hint::Run {
        args: args.into(),
        then: then.into(),
    }
}

/// An I/O error in git-rune's words, for a message that names the path itself: what the
/// system said without its error number ("(os error 2)"), and a text read that was not UTF-8
/// said as such.
pub fn io_text(e: &std::io::Error) -> String {
    use std::io::ErrorKind as K;
    match e.kind() {
        K::NotFound => return "no such file or folder".into(),
        K::PermissionDenied => return "permission denied".into(),
        K::InvalidData if e.to_string().contains("UTF-8") => return "not UTF-8 text".into(),
        _ => {}
    }
    let said = e.to_string();
    let said = match said.rfind(" (os error ") {
        Some(at) if said.ends_with(')') => &said[..at],
        _ => &said,
    };
    let mut c = said.chars();
    c.next()
        .map(|f| f.to_lowercase().chain(c).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_its_own_exit_code() {
        let mut codes: Vec<u8> = Kind::ALL.iter().map(|k| k.exit_code()).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), Kind::ALL.len());
        assert!(!codes.contains(&0));
    }

    #[test]
    fn hints_are_worded_for_their_interface() {
        let h = pass("content", "\"…\"", " to give the block its text");
        assert_eq!(
            h.for_cli(),
            "pass --content \"…\" to give the block its text"
        );
        assert_eq!(
            h.for_tool(),
            "set the `content` argument to give the block its text"
        );
        let h = pass("allow-delete", "", "");
        assert_eq!(h.for_tool(), "set the `allow_delete` argument");
        let r = run("init", " first");
        assert_eq!(r.for_cli(), "run `git rune init` first");
    }

    #[test]
    fn io_errors_are_said_without_their_number() {
        use std::io::Error as E;
        assert_eq!(io_text(&E::from_raw_os_error(2)), "no such file or folder");
        assert_eq!(io_text(&E::from_raw_os_error(13)), "permission denied");
        assert_eq!(io_text(&E::from_raw_os_error(21)), "is a directory");
        let utf8 = std::fs::read_to_string("/proc/self/exe").unwrap_err();
        assert_eq!(io_text(&utf8), "not UTF-8 text");
        assert_eq!(io_text(&E::other("Odd")), "odd");
    }
}
