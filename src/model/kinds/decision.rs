//! The `decision` record kind.

use std::collections::BTreeMap;

use super::skip::{is_empty_map, is_empty_vec};
use crate::model::record::Extra;
use serde::Serialize;

/// A decision record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Decision {
    pub title: String,
    pub context: String,
    pub decision: String,
    pub rationale: String,
    pub impact: String,
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub files: Vec<String>,
    /// Blob id of each named file when the record was written (`""` when absent).
    #[serde(default, skip_serializing_if = "is_empty_map")]
    pub file_blobs: BTreeMap<String, String>,
    /// What the view kept that the fields above do not hold (see [`Extra`]).
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub extra: Vec<Extra>,
}
