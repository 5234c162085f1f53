//! The `invariant` record kind.

use super::skip::{is_empty_str, is_empty_vec};
use crate::model::record::Extra;
use serde::Serialize;

/// A invariant record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Invariant {
    pub section: String,
    pub title: String,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub what: String,
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub r#where: Vec<String>,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub why: String,
    /// What the view kept that the fields above do not hold (see [`Extra`]).
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub extra: Vec<Extra>,
}
