//! Errors a person can act on: what happened, and a hint saying what to do. Use cases raise
//! them; `output::report` prints the message, the cause chain and the hint.

use std::fmt;

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

/// A user error with a hint.
pub fn user_error(message: impl Into<String>, hint: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(UserError {
        message: message.into(),
        hint: Some(hint.into()),
    })
}

/// A user error without a hint.
pub fn user_error_plain(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(UserError {
        message: message.into(),
        hint: None,
    })
}
