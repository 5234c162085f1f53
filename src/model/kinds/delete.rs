//! The `delete` record kind: a tombstone.

use serde::{Deserialize, Serialize};

use super::KindRules;
use crate::model::fields::{Field, Shape};
use crate::model::validate::invalid;
use crate::model::ValidationError;

/// Removes the target records from the fold (they stay in history).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Delete {
    pub targets: Vec<String>,
}

impl KindRules for Delete {
    fn title(&self) -> &str {
        "delete"
    }

    fn targets(&self) -> &[String] {
        &self.targets
    }

    fn fields_mut(&mut self, _f: &mut dyn FnMut(&'static str, Shape, Field<'_>)) {}

    fn validate(&self) -> Result<(), ValidationError> {
        if self.targets.is_empty() {
            return Err(invalid("targets", "must not be empty"));
        }
        Ok(())
    }
}
