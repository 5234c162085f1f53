//! The `checkpoint` record kind: where a session stopped and how to resume; the newest open
//! one is shown, resolved ones stay in history.

use serde::{Deserialize, Serialize};

use super::skip::{is_empty_str, is_empty_vec};
use super::KindRules;
use crate::model::fields::{extras, Field, Shape, BLOCK_OWN_LINE};
use crate::model::meta::{Extra, GitState};
use crate::model::validate::require;
use crate::model::ValidationError;

/// A checkpoint: what was being done, what is left, the context the next session needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

impl KindRules for Checkpoint {
    field_rules!(title: doing, extra);

    fn fields_mut(&mut self, f: &mut dyn FnMut(&'static str, Shape, Field<'_>)) {
        f("doing", BLOCK_OWN_LINE, Field::One(&mut self.doing));
        f("left", Shape::Items, Field::Many(&mut self.left));
        f("context", Shape::Items, Field::Many(&mut self.context));
        f("resume", BLOCK_OWN_LINE, Field::One(&mut self.resume));
        extras(&mut self.extra, BLOCK_OWN_LINE, f);
    }

    fn validate(&self) -> Result<(), ValidationError> {
        require("doing", &self.doing)
    }
}
