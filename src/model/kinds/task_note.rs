//! The `task-note` record kind.

use super::skip::is_empty_str;
use serde::Serialize;

/// An item in a fixed section of `task-notes.md`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskNote {
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub task: String,
    pub section: String,
    pub text: String,
}
