//! The `context-block` record kind.

use super::skip::is_empty_vec;
use serde::Serialize;

/// A context block of the session protocol: architecture decisions, error patterns,
/// pitfalls, with the tasks they concern. One per title (the newest wins).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContextBlock {
    pub title: String,
    pub content: String,
    pub updated: String,
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub related_tasks: Vec<String>,
}
