//! The `context-block` record kind: a context block of the session protocol; one per title,
//! the newest wins.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::skip::is_empty_vec;
use super::KindRules;
use crate::model::fields::{Field, Shape};
use crate::model::State;
use super::Record;
use crate::model::validate::{invalid, require, time_field};
use crate::model::{Body, ValidationError};

/// A context block: architecture decisions, error patterns, pitfalls, with the tasks they
/// concern.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContextBlock {
    pub title: String,
    pub content: String,
    pub updated: String,
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub related_tasks: Vec<String>,
}

impl KindRules for ContextBlock {
    field_rules!(title: title);

    fn fields_mut(&mut self, f: &mut dyn FnMut(&'static str, Shape, Field<'_>)) {
        f("title", Shape::Line, Field::One(&mut self.title));
        f("content", Shape::Text, Field::One(&mut self.content));
        f(
            "related_tasks",
            Shape::Items,
            Field::Many(&mut self.related_tasks),
        );
    }

    fn validate(&self) -> Result<(), ValidationError> {
        require("title", &self.title)?;
        require("content", &self.content)?;
        time_field("updated", &self.updated)?;
        if let Some(t) = self
            .related_tasks
            .iter()
            .find(|t| super::task::parse_task_id(t).is_none())
        {
            return Err(invalid(
                "related_tasks",
                format!("{t:?} is not a task id like TASK_001"),
            ));
        }
        Ok(())
    }

    /// One per title: concurrent edits resolve to the newest by clock, then time, then id.
    fn fold(live: Vec<&Record>, _state: &mut State) -> Vec<Record> {
        let mut winner: HashMap<&str, &Record> = HashMap::new();
        for r in live {
            let Body::ContextBlock(b) = &r.body else {
                continue;
            };
            let slot = winner.entry(&b.title).or_insert(r);
            if (r.meta.clock, &r.meta.ts, &r.id) > (slot.meta.clock, &slot.meta.ts, &slot.id) {
                *slot = r;
            }
        }
        let mut list: Vec<&Record> = winner.into_values().collect();
        list.sort_by(|a, b| a.order_key().cmp(&b.order_key()));
        list.into_iter().cloned().collect()
    }
}
