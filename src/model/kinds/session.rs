//! The `session` record kind: a line of `session-log.md`, written by every save.

use serde::{Deserialize, Serialize};

use super::KindRules;
use crate::model::fields::{Field, Shape};
use crate::model::meta::GitState;
use crate::model::validate::require;
use crate::model::ValidationError;

/// A session: its summary and the state of the code when it was saved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Session {
    pub summary: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git: Option<GitState>,
}

impl KindRules for Session {
    field_rules!(title: summary);

    fn fields_mut(&mut self, f: &mut dyn FnMut(&'static str, Shape, Field<'_>)) {
        f("summary", Shape::Line, Field::One(&mut self.summary));
    }

    fn validate(&self) -> Result<(), ValidationError> {
        require("summary", &self.summary)
    }
}
