//! The `learning` record kind.

use std::collections::BTreeMap;

use super::skip::{is_empty_map, is_empty_str, is_empty_vec};
use crate::model::record::{Extra, LearningType};
use serde::Serialize;

/// A learning record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Learning {
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub skill: String,
    #[serde(rename = "type")]
    pub ltype: LearningType,
    pub key: String,
    pub insight: String,
    pub confidence: f64,
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub files: Vec<String>,
    #[serde(default, skip_serializing_if = "is_empty_map")]
    pub file_blobs: BTreeMap<String, String>,
    /// What the view kept that the fields above do not hold (see [`Extra`]).
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub extra: Vec<Extra>,
}
