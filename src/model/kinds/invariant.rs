//! The `invariant` record kind: a rule of `INVARIANTS.md` (what, where, why) in a section.

use serde::{Deserialize, Serialize};

use super::skip::{is_empty_str, is_empty_vec};
use super::KindRules;
use crate::model::fields::{extras, Field, Shape};
use crate::model::meta::Extra;
use crate::model::validate::require;
use crate::model::ValidationError;

/// An invariant: a rule the code must keep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

impl KindRules for Invariant {
    field_rules!(title: title, extra);

    fn fields_mut(&mut self, f: &mut dyn FnMut(&'static str, Shape, Field<'_>)) {
        f("section", Shape::Line, Field::One(&mut self.section));
        f("title", Shape::Line, Field::One(&mut self.title));
        f("what", Shape::Line, Field::One(&mut self.what));
        f(
            "where",
            Shape::Paths {
                split_commas: false,
            },
            Field::Many(&mut self.r#where),
        );
        f("why", Shape::Line, Field::One(&mut self.why));
        extras(&mut self.extra, Shape::Raw, f);
    }

    fn validate(&self) -> Result<(), ValidationError> {
        require("section", &self.section)?;
        require("title", &self.title)
    }
}
