//! The `instinct` record kind: a trigger and the action it calls for, with a confidence; one
//! per name, the most confident kept.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::skip::is_empty_vec;
use super::KindRules;
use crate::model::fields::{extras, Field, Shape, BLOCK};
use crate::model::State;
use crate::model::meta::{Extra};
use super::Record;
use crate::model::validate::{confidence_in, require};
use crate::model::{Body, ValidationError};

/// Instincts kept in the state; the lowest-confidence ones beyond this are evicted.
pub const MAX_INSTINCTS: usize = 20;

/// An instinct: when `trigger`, do `action`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Instinct {
    pub name: String,
    pub trigger: String,
    pub action: String,
    pub confidence: f64,
    pub evidence: String,
    /// What the view kept that the fields above do not hold (see [`Extra`]).
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub extra: Vec<Extra>,
}

impl KindRules for Instinct {
    field_rules!(title: name, extra);

    fn fields_mut(&mut self, f: &mut dyn FnMut(&'static str, Shape, Field<'_>)) {
        f("name", Shape::Line, Field::One(&mut self.name));
        f("trigger", BLOCK, Field::One(&mut self.trigger));
        f("action", BLOCK, Field::One(&mut self.action));
        f("evidence", BLOCK, Field::One(&mut self.evidence));
        extras(&mut self.extra, Shape::Prose, f);
    }

    fn validate(&self) -> Result<(), ValidationError> {
        require("name", &self.name)?;
        require("trigger", &self.trigger)?;
        require("action", &self.action)?;
        confidence_in("confidence", self.confidence, 0.3, 0.9)
    }

    /// Per name: the newest content wins, its confidence the highest any live copy has; then
    /// the [`MAX_INSTINCTS`] most confident survive, listed chronologically.
    fn fold(live: Vec<&Record>, _state: &mut State) -> Vec<Record> {
        let mut groups: HashMap<&str, Vec<&Record>> = HashMap::new();
        for r in live {
            if let Body::Instinct(i) = &r.body {
                groups.entry(&i.name).or_default().push(r);
            }
        }
        let mut merged: Vec<Record> = groups
            .into_values()
            .filter_map(|group| {
                let newest = group
                    .iter()
                    .max_by(|a, b| (a.meta.clock, &a.id).cmp(&(b.meta.clock, &b.id)))?;
                let best = group
                    .iter()
                    .map(|r| confidence(r))
                    .fold(f64::MIN, f64::max);
                let mut out = (*newest).clone();
                if let Body::Instinct(i) = &mut out.body {
                    i.confidence = best;
                }
                Some(out)
            })
            .collect();
        merged.sort_by(|a, b| {
            confidence(b)
                .total_cmp(&confidence(a))
                .then_with(|| b.meta.clock.cmp(&a.meta.clock))
                .then_with(|| a.id.cmp(&b.id))
        });
        merged.truncate(MAX_INSTINCTS);
        merged.sort_by(|a, b| a.order_key().cmp(&b.order_key()));
        merged
    }
}

/// The confidence of an instinct record (0 for other records).
pub fn confidence(r: &Record) -> f64 {
    match &r.body {
        Body::Instinct(i) => i.confidence,
        _ => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confidence_ranges_follow_the_seed() {
        let instinct = |c| Instinct {
            name: "n".into(),
            trigger: "t".into(),
            action: "a".into(),
            confidence: c,
            evidence: String::new(),
            extra: Vec::new(),
        };
        assert!(instinct(0.3).validate().is_ok());
        assert!(instinct(0.95).validate().is_err());
        assert!(instinct(f64::NAN).validate().is_err());
    }
}
