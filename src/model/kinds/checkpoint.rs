//! The `checkpoint` record kind.

use super::skip::{is_empty_str, is_empty_vec};
use crate::model::record::{Extra, GitState};
use serde::Serialize;

/// A checkpoint record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Checkpoint {
    pub doing: String,
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub left: Vec<String>,
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub context: Vec<String>,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub resume: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git: Option<GitState>,
    /// What the view kept that the fields above do not hold (see [`Extra`]).
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub extra: Vec<Extra>,
}
