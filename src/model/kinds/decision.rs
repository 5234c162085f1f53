//! The `decision` record kind: an architecture decision as `decisions.md` holds it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::skip::{is_empty_map, is_empty_vec};
use super::KindRules;
use crate::model::fields::{extras, Field, Shape, BLOCK};
use crate::model::meta::Extra;
use crate::model::validate::require;
use crate::model::ValidationError;

/// A decision: what was decided, in what context, why, and what it touches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

impl KindRules for Decision {
    field_rules!(title: title, extra);

    fn fields_mut(&mut self, f: &mut dyn FnMut(&'static str, Shape, Field<'_>)) {
        f("title", Shape::Line, Field::One(&mut self.title));
        f("context", BLOCK, Field::One(&mut self.context));
        f("decision", BLOCK, Field::One(&mut self.decision));
        f("rationale", BLOCK, Field::One(&mut self.rationale));
        f("impact", BLOCK, Field::One(&mut self.impact));
        f(
            "files",
            Shape::Paths { split_commas: true },
            Field::Many(&mut self.files),
        );
        extras(&mut self.extra, Shape::Prose, f);
    }

    fn validate(&self) -> Result<(), ValidationError> {
        require("title", &self.title)?;
        require("decision", &self.decision)
    }
}
