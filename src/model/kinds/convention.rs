//! The `convention` record kind: a pattern the code follows, as `conventions.md` holds it.

use serde::{Deserialize, Serialize};

use super::skip::{is_empty_str, is_empty_vec};
use super::KindRules;
use crate::model::fields::{extras, Field, Shape, BLOCK};
use crate::model::meta::Extra;
use crate::model::validate::require;
use crate::model::ValidationError;

/// A convention: its pattern, an example, and where it applies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

impl KindRules for Convention {
    field_rules!(title: title, extra);

    fn fields_mut(&mut self, f: &mut dyn FnMut(&'static str, Shape, Field<'_>)) {
        f("title", Shape::Line, Field::One(&mut self.title));
        f("pattern", BLOCK, Field::One(&mut self.pattern));
        f("example", BLOCK, Field::One(&mut self.example));
        f("applies_to", BLOCK, Field::One(&mut self.applies_to));
        extras(&mut self.extra, Shape::Prose, f);
    }

    fn validate(&self) -> Result<(), ValidationError> {
        require("title", &self.title)?;
        require("pattern", &self.pattern)
    }
}
