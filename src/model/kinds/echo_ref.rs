//! The `echo-ref` record kind.

use serde::Serialize;

/// A workflow used an echo (`git rune echo ref`): feeds the entry's Relevance. A union:
/// every clone counts the same references.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EchoRef {
    /// The echo's `uid`.
    pub uid: String,
    /// The workflow (session) that used it.
    pub workflow: String,
}
