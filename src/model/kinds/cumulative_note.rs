//! The `cumulative-note` record kind: an item in a section of `cumulative-notes.md`.

use serde::{Deserialize, Serialize};

use super::KindRules;
use crate::model::fields::{Field, Shape};
use crate::model::validate::require;
use crate::model::{ValidationError, CUMULATIVE_SECTIONS};

/// An item in a section of `cumulative-notes.md` (the seed's fixed ones, or an agent's own).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CumulativeNote {
    pub section: String,
    pub text: String,
}

impl KindRules for CumulativeNote {
    field_rules!(title: text);

    fn fields_mut(&mut self, f: &mut dyn FnMut(&'static str, Shape, Field<'_>)) {
        f(
            "section",
            Shape::Section(&CUMULATIVE_SECTIONS),
            Field::One(&mut self.section),
        );
        f("text", Shape::Item, Field::One(&mut self.text));
    }

    /// Sections beyond the seed's fixed ones are allowed: agents add their own (`## Open
    /// Questions`), and the view keeps them. `remember` only offers the fixed ones.
    fn validate(&self) -> Result<(), ValidationError> {
        require("section", &self.section)?;
        require("text", &self.text)
    }
}
