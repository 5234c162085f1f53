//! The `learning` record kind: a line of the seed's `learnings.jsonl`; the newest per type and
//! key wins.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use super::skip::{is_empty_map, is_empty_str, is_empty_vec};
use super::KindRules;
use crate::model::fields::{extras, Field, Shape};
use crate::model::State;
use crate::model::meta::{Extra, LearningType};
use super::Record;
use crate::model::validate::{confidence_in, ensure, require};
use crate::model::{ValidationError, LEARNING_KEYS};

/// A learning: what a skill learned, of a type, under a key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Learning {
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub skill: String,
    #[serde(rename = "type")]
    pub ltype: LearningType,
    pub key: String,
    pub insight: String,
    pub confidence: f64,
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub files: Vec<String>,
    #[serde(default, skip_serializing_if = "is_empty_map")]
    pub file_blobs: BTreeMap<String, String>,
    /// What the view kept that the fields above do not hold (see [`Extra`]): extra keys of
    /// the JSON line, each value as compact JSON.
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub extra: Vec<Extra>,
}

impl KindRules for Learning {
    field_rules!(title: key, extra);

    fn fields_mut(&mut self, f: &mut dyn FnMut(&'static str, Shape, Field<'_>)) {
        f("skill", Shape::Line, Field::One(&mut self.skill));
        f("key", Shape::Line, Field::One(&mut self.key));
        f("insight", Shape::Text, Field::One(&mut self.insight));
        f(
            "files",
            Shape::Paths {
                split_commas: false,
            },
            Field::Many(&mut self.files),
        );
        extras(&mut self.extra, Shape::Text, f);
    }

    fn validate(&self) -> Result<(), ValidationError> {
        require("key", &self.key)?;
        require("insight", &self.insight)?;
        confidence_in("confidence", self.confidence, 0.1, 1.0)?;
        // Extra keys of a learnings.jsonl line: not one of the seed's keys, and a JSON value,
        // so the line renders back as valid JSON.
        for x in &self.extra {
            let key = !x.label.is_empty() && !LEARNING_KEYS.contains(&x.label.as_str());
            ensure(key, "extra", || {
                format!("{:?} cannot be an extra key of a learning", x.label)
            })?;
            let json = serde_json::from_str::<serde_json::Value>(&x.text).is_ok();
            ensure(json, "extra", || {
                format!("the value of {:?} is not JSON", x.label)
            })?;
        }
        Ok(())
    }

    /// The seed's rule: per type and key the newest `ts` wins; the Lamport clock, then the
    /// id, break ties (docs/storage.md says what a clock-skewed clone can do).
    fn fold(live: Vec<&Record>, _state: &mut State) -> Vec<Record> {
        let mut winner: HashMap<(&str, &str), &Record> = HashMap::new();
        for r in live {
            let crate::model::Body::Learning(l) = &r.body else {
                continue;
            };
            let slot = winner.entry((l.ltype.as_str(), l.key.as_str())).or_insert(r);
            if (&r.meta.ts, r.meta.clock, &r.id) > (&slot.meta.ts, slot.meta.clock, &slot.id) {
                *slot = r;
            }
        }
        // Sorted as references, then copied: moving whole records is most of a sort's cost.
        let mut list: Vec<&Record> = winner.into_values().collect();
        list.sort_by(|a, b| a.order_key().cmp(&b.order_key()));
        list.into_iter().cloned().collect()
    }
}
