//! The `progress` record kind: a `progress.md` entry of completed, in-progress, blocked and
//! next items.

use serde::{Deserialize, Serialize};

use super::skip::is_empty_vec;
use super::KindRules;
use crate::model::fields::{extras, Field, Shape, BLOCK_OWN_LINE};
use crate::model::meta::Extra;
use crate::model::validate::invalid;
use crate::model::ValidationError;

/// A progress entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub completed: Vec<String>,
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub in_progress: Vec<String>,
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub blocked: Vec<String>,
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub next: Vec<String>,
    /// What the view kept that the fields above do not hold (see [`Extra`]).
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub extra: Vec<Extra>,
}

impl KindRules for Progress {
    fn title(&self) -> &str {
        "progress"
    }

    field_rules!(extra);

    fn fields_mut(&mut self, f: &mut dyn FnMut(&'static str, Shape, Field<'_>)) {
        f("completed", Shape::Items, Field::Many(&mut self.completed));
        f("in_progress", Shape::Items, Field::Many(&mut self.in_progress));
        f("blocked", Shape::Items, Field::Many(&mut self.blocked));
        f("next", Shape::Items, Field::Many(&mut self.next));
        extras(&mut self.extra, BLOCK_OWN_LINE, f);
    }

    fn validate(&self) -> Result<(), ValidationError> {
        if self.completed.is_empty()
            && self.in_progress.is_empty()
            && self.blocked.is_empty()
            && self.next.is_empty()
            && self.extra.is_empty()
        {
            return Err(invalid(
                "progress",
                "is empty: it needs at least one completed, in-progress, blocked or next item",
            ));
        }
        Ok(())
    }
}
