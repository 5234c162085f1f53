//! The `resolve` record kind.

use serde::Serialize;

/// Marks a checkpoint resolved; the checkpoint itself stays in history.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Resolve {
    pub target: String,
}
