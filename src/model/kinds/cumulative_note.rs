//! The `cumulative-note` record kind.

use serde::Serialize;

/// An item in a fixed section of `cumulative-notes.md`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CumulativeNote {
    pub section: String,
    pub text: String,
}
