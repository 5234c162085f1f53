//! The `instinct` record kind.

use super::skip::is_empty_vec;
use crate::model::record::Extra;
use serde::Serialize;

/// A instinct record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Instinct {
    pub name: String,
    pub trigger: String,
    pub action: String,
    pub confidence: f64,
    pub evidence: String,
    /// What the view kept that the fields above do not hold (see [`Extra`]).
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub extra: Vec<Extra>,
}
