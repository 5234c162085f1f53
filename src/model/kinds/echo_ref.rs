//! The `echo-ref` record kind: a workflow used an echo; a union that feeds the entry's
//! Relevance.

use serde::{Deserialize, Serialize};

use super::KindRules;
use crate::model::fields::{Field, Shape};
use crate::model::validate::require;
use crate::model::ValidationError;

/// A workflow used an echo (`git rune echo ref`). Every clone counts the same references.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EchoRef {
    /// The echo's `uid`.
    pub uid: String,
    /// The workflow (session) that used it.
    pub workflow: String,
}

impl KindRules for EchoRef {
    field_rules!(title: uid);

    fn fields_mut(&mut self, f: &mut dyn FnMut(&'static str, Shape, Field<'_>)) {
        f("workflow", Shape::Line, Field::One(&mut self.workflow));
    }

    fn validate(&self) -> Result<(), ValidationError> {
        require("uid", &self.uid)?;
        require("workflow", &self.workflow)
    }
}
