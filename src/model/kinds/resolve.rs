//! The `resolve` record kind: marks a checkpoint resolved.

use serde::{Deserialize, Serialize};

use super::KindRules;
use crate::model::fields::{Field, Shape};
use crate::model::validate::require;
use crate::model::ValidationError;

/// Marks a checkpoint resolved; the checkpoint itself stays in history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Resolve {
    pub target: String,
}

impl KindRules for Resolve {
    fn title(&self) -> &str {
        "resolve"
    }

    fn targets(&self) -> &[String] {
        std::slice::from_ref(&self.target)
    }

    fn fields_mut(&mut self, _f: &mut dyn FnMut(&'static str, Shape, Field<'_>)) {}

    fn validate(&self) -> Result<(), ValidationError> {
        require("target", &self.target)
    }
}
