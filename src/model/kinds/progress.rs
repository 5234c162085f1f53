//! The `progress` record kind.

use super::skip::is_empty_vec;
use crate::model::record::Extra;
use serde::Serialize;

/// A progress record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Progress {
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub completed: Vec<String>,
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub in_progress: Vec<String>,
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub blocked: Vec<String>,
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub next: Vec<String>,
    /// What the view kept that the fields above do not hold (see [`Extra`]).
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub extra: Vec<Extra>,
}
