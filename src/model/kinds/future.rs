//! Records a newer git-rune wrote that this build cannot read as one of its kinds: an unknown
//! `kind`, or a known kind whose fields no longer decode here. They are kept byte for byte
//! (the record's `raw` line), merged by id like any record, and folded into no list.

use serde::Serialize;
use serde_json::{Map, Value};

use super::KindRules;
use crate::model::fields::{Field, Shape};
use crate::model::ValidationError;

/// The body of a record this build cannot read: its `kind` tag, and why a known kind did not
/// decode (`None` for an unknown kind).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Future {
    /// The stored `kind` tag (also the tree directory the record lives in).
    pub tag: String,
    /// For a known kind that did not decode: what this build could not read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unreadable: Option<String>,
}

impl KindRules for Future {
    field_rules!(title: tag);

    /// Nothing here is a field this build knows; the seal and the integrity scan read the
    /// stored line's strings instead (`Record::raw_texts`).
    fn fields_mut(&mut self, _f: &mut dyn FnMut(&'static str, Shape, Field<'_>)) {}

    /// This build cannot check a schema it does not know; the id is still checked against the
    /// stored bytes.
    fn validate(&self) -> Result<(), ValidationError> {
        Ok(())
    }

    fn json(&self, _full: bool, out: &mut Map<String, Value>) {
        out.insert("tag".into(), Value::String(self.tag.clone()));
        out.insert("from_newer_version".into(), Value::Bool(true));
        if let Some(why) = &self.unreadable {
            out.insert("unreadable".into(), Value::String(why.clone()));
        }
    }
}
