//! The `task-note` record kind: an item in a section of `task-notes.md`.

use serde::{Deserialize, Serialize};

use super::skip::is_empty_str;
use super::KindRules;
use crate::model::fields::{Field, Shape};
use crate::model::validate::require;
use crate::model::{ValidationError, TASK_SECTIONS};

/// An item in a section of `task-notes.md`, for one task or the branch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskNote {
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub task: String,
    pub section: String,
    pub text: String,
}

impl KindRules for TaskNote {
    field_rules!(title: text);

    fn fields_mut(&mut self, f: &mut dyn FnMut(&'static str, Shape, Field<'_>)) {
        f("task", Shape::Line, Field::One(&mut self.task));
        f(
            "section",
            Shape::Section(&TASK_SECTIONS),
            Field::One(&mut self.section),
        );
        f("text", Shape::Item, Field::One(&mut self.text));
    }

    /// Sections beyond the seed's fixed ones are allowed, as for cumulative notes.
    fn validate(&self) -> Result<(), ValidationError> {
        require("section", &self.section)?;
        require("text", &self.text)
    }
}
