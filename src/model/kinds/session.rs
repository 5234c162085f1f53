//! The `session` record kind.

use crate::model::record::GitState;
use serde::Serialize;

/// A session record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Session {
    pub summary: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git: Option<GitState>,
}
