//! The `delete` record kind.

use serde::Serialize;

/// Removes the target records from the fold (they stay in history).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Delete {
    pub targets: Vec<String>,
}
