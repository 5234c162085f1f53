//! The `convention` record kind.

use super::skip::{is_empty_str, is_empty_vec};
use crate::model::record::Extra;
use serde::Serialize;

/// A convention record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Convention {
    pub title: String,
    pub pattern: String,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub example: String,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub applies_to: String,
    /// What the view kept that the fields above do not hold (see [`Extra`]).
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub extra: Vec<Extra>,
}
