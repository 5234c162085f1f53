//! Output discipline: data to stdout, status to stderr, errors with hints, and sanitising
//! text that agents or other clones wrote before it reaches a terminal or an agent.

use std::fmt;
use std::io::Write;

/// An error a user can act on: what happened, and what to do about it.
#[derive(Debug)]
pub struct UserError {
    pub message: String,
    pub hint: Option<String>,
}

impl fmt::Display for UserError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for UserError {}

/// Builds a user error with a hint.
pub fn user_error(message: impl Into<String>, hint: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(UserError {
        message: message.into(),
        hint: Some(hint.into()),
    })
}

/// Builds a user error without a hint.
pub fn user_error_plain(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(UserError {
        message: message.into(),
        hint: None,
    })
}

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

    /// A warning on stderr, shown even with `-q`.
    pub fn warn(&self, msg: impl fmt::Display) {
        let _ = writeln!(
            std::io::stderr().lock(),
            "warning: {}",
            sanitize(&msg.to_string())
        );
    }
}

/// Writes data to stdout; a closed pipe is reported as `BrokenPipe` for main to exit quietly.
pub fn print(s: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(s.as_bytes())?;
    out.flush()
}

/// Removes terminal control sequences and bidi/zero-width characters, keeping newlines and
/// tabs. Applied to everything printed that came from records.
pub fn sanitize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' | '\t' => out.push(c),
            '\u{1b}' => {
                // Skip an escape sequence: ESC [ ... final byte, or ESC ] ... BEL/ST, or ESC x.
                match chars.peek() {
                    Some('[') => {
                        chars.next();
                        for d in chars.by_ref() {
                            if ('@'..='~').contains(&d) {
                                break;
                            }
                        }
                    }
                    Some(']') => {
                        chars.next();
                        while let Some(d) = chars.next() {
                            if d == '\u{7}' {
                                break;
                            }
                            if d == '\u{1b}' && chars.peek() == Some(&'\\') {
                                chars.next();
                                break;
                            }
                        }
                    }
                    Some(_) => {
                        chars.next();
                    }
                    None => {}
                }
            }
            c if c.is_control() => {}
            c if is_invisible(c) => {}
            c => out.push(c),
        }
    }
    out
}

/// Bidi controls, zero-width characters and line separators that hide text from a reader.
pub fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{200b}'..='\u{200f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2028}' | '\u{2029}'
        | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{2069}'
        | '\u{00ad}'
        | '\u{feff}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitize_strips_escapes_and_bidi() {
        assert_eq!(sanitize("a\u{1b}[31mred\u{1b}[0m b"), "ared b");
        assert_eq!(sanitize("x\u{1b}]0;title\u{7}y"), "xy");
        assert_eq!(sanitize("ab\u{202e}cd\u{200b}e"), "abcde");
        assert_eq!(sanitize("line\nnext\ttab\r"), "line\nnext\ttab");
    }
}
