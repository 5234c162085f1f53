//! Memory records: the immutable, content-addressed unit everything in git-rune is built from.

use std::fmt;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::kinds::skip::{is_empty_str, is_empty_vec};
pub use super::kinds::{Body, Kind};

/// Which ref a record lives under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// `refs/rune/memory`: project-wide knowledge.
    Memory,
    /// `refs/rune/branches/<branch>`: per-branch session state.
    Branch,
}

/// The type of a learning, as the seed's `learnings.jsonl` defines it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LearningType {
    Decision,
    Error,
    Insight,
    Convention,
    Performance,
}

impl LearningType {
    pub const ALL: [LearningType; 5] = [
        LearningType::Decision,
        LearningType::Error,
        LearningType::Insight,
        LearningType::Convention,
        LearningType::Performance,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            LearningType::Decision => "decision",
            LearningType::Error => "error",
            LearningType::Insight => "insight",
            LearningType::Convention => "convention",
            LearningType::Performance => "performance",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

impl fmt::Display for LearningType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Something the view holds that a record's own fields do not: a labelled field or a section
/// the parser does not know (`**Alternatives considered:** …`, `## Notes`), or prose it cannot
/// attribute to a field, in the order written. Rendered back where it was: after the known
/// field (or section) named by `after`. In `learnings.jsonl` it is an unknown JSON key, with
/// its value as compact JSON.
// A field this build does not know inside a nested value is refused rather than dropped, so
// the record is read as one from a newer git-rune and kept byte for byte (`model::wire`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Extra {
    /// The known field or section it came after; empty when it came before any.
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub after: String,
    /// The label or heading as written; empty for prose; `#` for the text a heading carries
    /// after its word when the format has no title (`## Session Summary: sprint 3`).
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub label: String,
    pub text: String,
}

/// The state of the code when a session or checkpoint was recorded.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GitState {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream: Option<String>,
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub dirty: Vec<String>,
}

/// Who wrote a record, when, and what it replaces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Meta {
    /// RFC 3339 UTC, second precision (`2026-04-04T14:30:00Z`).
    pub ts: String,
    /// Lamport clock: one more than the highest clock the writer saw on the ref.
    pub clock: u64,
    pub author: String,
    /// Ids of records this one edits (they leave the fold).
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub supersedes: Vec<String>,
}

/// A record as stored: its id, then its content.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub id: String,
    pub meta: Meta,
    pub body: Body,
    /// The stored line, kept when it holds something this build would not write back
    /// identically (a field it does not know, a kind it does not know): a record from a newer
    /// git-rune. [`Record::to_line`] writes it back byte for byte and the id is checked
    /// against it, so nothing a newer build wrote is lost or called altered here.
    pub raw: Option<std::sync::Arc<str>>,
}

#[derive(Serialize)]
struct ContentRef<'a> {
    #[serde(flatten)]
    meta: &'a Meta,
    #[serde(flatten)]
    body: &'a Body,
}

#[derive(Serialize)]
struct StoredRef<'a> {
    id: &'a str,
    #[serde(flatten)]
    meta: &'a Meta,
    #[serde(flatten)]
    body: &'a Body,
}

/// Why a stored line could not be read as a record.
#[derive(Debug, thiserror::Error)]
#[error("malformed record: {0}")]
pub struct RecordParseError(String);

impl RecordParseError {
    pub(crate) fn new(msg: impl Into<String>) -> Self {
        RecordParseError(msg.into())
    }
}

impl Record {
    /// Seals content into a record whose id is the sha256 of its canonical JSON.
    pub fn new(meta: Meta, body: Body) -> Record {
        let id = content_id(&meta, &body);
        Record {
            id,
            meta,
            body,
            raw: None,
        }
    }

    pub fn kind(&self) -> Kind {
        self.body.kind()
    }

    /// The stored `kind` tag, which is also the tree directory the record lives in: the
    /// kind's name, or for a record of a kind this build does not know, the tag it came with.
    pub fn tag(&self) -> &str {
        match &self.body {
            Body::Future(f) => &f.tag,
            b => b.kind().as_str(),
        }
    }

    /// Whether the record came from a newer git-rune: it holds a kind or fields this build
    /// does not know, and is kept as it was stored.
    pub fn is_from_newer_version(&self) -> bool {
        self.raw.is_some()
    }

    /// The canonical bytes the id is computed over: compact JSON of meta then body, fields in
    /// declaration order, empty optional fields omitted. That is the stored line without its
    /// leading `"id":"…",`, which is how a record kept as stored is checked.
    pub fn canonical_content(&self) -> Vec<u8> {
        match &self.raw {
            Some(line) => raw_canonical(line, &self.id).unwrap_or_default(),
            None => canonical(&self.meta, &self.body),
        }
    }

    /// True when the id still matches the content (for a record kept as stored, the stored
    /// bytes: no knowledge of its schema is needed).
    pub fn id_matches(&self) -> bool {
        match &self.raw {
            Some(line) => raw_id_matches(line),
            None => content_id(&self.meta, &self.body) == self.id,
        }
    }

    /// Every string a record kept as stored holds, outside the meta fields: what the secret
    /// filter and the integrity scan read of fields this build does not know. Empty for other
    /// records (their fields are walked by [`Body::fields_mut`]).
    pub fn raw_texts(&self) -> Vec<String> {
        let Some(line) = &self.raw else {
            return Vec::new();
        };
        let mut out = Vec::new();
        if let Ok(serde_json::Value::Object(map)) = serde_json::from_str(line) {
            for (k, v) in map {
                if !matches!(
                    k.as_str(),
                    "id" | "ts" | "clock" | "author" | "supersedes" | "kind"
                ) {
                    strings(&v, &mut out);
                }
            }
        }
        out
    }

    /// One JSON line as stored in the tree (no trailing newline).
    pub fn to_line(&self) -> String {
        if let Some(line) = &self.raw {
            return line.to_string();
        }
        serde_json::to_string(&StoredRef {
            id: &self.id,
            meta: &self.meta,
            body: &self.body,
        })
        .expect("records serialize: all map keys are strings")
    }

    /// Sort key for chronological order that every clone agrees on.
    pub fn order_key(&self) -> (&str, u64, &str) {
        (&self.meta.ts, self.meta.clock, &self.id)
    }
}

fn strings(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|v| strings(v, out)),
        serde_json::Value::Object(m) => m.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// The canonical content of a stored line whose id is `id`: the line without its leading
/// `"id":"<id>",` (records are stored as `{"id":"…",` followed by their canonical content
/// after its `{`). `None` when the line does not start that way.
pub fn raw_canonical(line: &str, id: &str) -> Option<Vec<u8>> {
    let rest = line
        .strip_prefix("{\"id\":\"")?
        .strip_prefix(id)?
        .strip_prefix("\",")?;
    let mut out = Vec::with_capacity(rest.len() + 1);
    out.push(b'{');
    out.extend_from_slice(rest.as_bytes());
    Some(out)
}

/// Whether a stored line's id is the sha256 of its canonical content, read from its bytes
/// alone: how records of kinds or fields this build does not know are checked.
pub fn raw_id_matches(line: &str) -> bool {
    let Some(id) = super::wire::line_id(line) else {
        return false;
    };
    match raw_canonical(line, id) {
        Some(content) => hex(&Sha256::digest(content)) == id,
        None => false,
    }
}

fn hex(digest: &[u8]) -> String {
    let mut s = String::with_capacity(64);
    for b in digest {
        use fmt::Write;
        let _ = write!(s, "{b:02x}");
    }
    s
}

fn canonical(meta: &Meta, body: &Body) -> Vec<u8> {
    serde_json::to_vec(&ContentRef { meta, body })
        .expect("records serialize: all map keys are strings")
}

fn content_id(meta: &Meta, body: &Body) -> String {
    hex(&Sha256::digest(canonical(meta, body)))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::model::kinds::{Delete, Learning};

    fn meta() -> Meta {
        Meta {
            ts: "2026-01-02T03:04:05Z".into(),
            clock: 1,
            author: "A <a@example.com>".into(),
            supersedes: vec![],
        }
    }

    #[test]
    fn line_round_trip_keeps_id() {
        let r = Record::new(
            meta(),
            Body::Learning(Learning {
                skill: "cook".into(),
                ltype: LearningType::Decision,
                key: "state-lib".into(),
                insight: "Chose Zustand".into(),
                confidence: 0.8,
                files: vec!["src/a.ts".into()],
                file_blobs: BTreeMap::new(),
                extra: Vec::new(),
            }),
        );
        let line = r.to_line();
        assert!(line.starts_with("{\"id\":\""), "{line}");
        assert!(line.contains("\"type\":\"decision\""), "{line}");
        let back = crate::model::decode_line(&line).unwrap();
        assert_eq!(back, r);
        assert!(back.id_matches());
    }

    #[test]
    fn id_changes_with_content() {
        let a = Record::new(
            meta(),
            Body::Delete(Delete {
                targets: vec!["x".into()],
            }),
        );
        let b = Record::new(
            meta(),
            Body::Delete(Delete {
                targets: vec!["y".into()],
            }),
        );
        assert_ne!(a.id, b.id);
        assert_eq!(a.id.len(), 64);
    }

    #[test]
    fn tampered_line_is_detected() {
        let r = Record::new(
            meta(),
            Body::Delete(Delete {
                targets: vec!["x".into()],
            }),
        );
        let line = r.to_line().replace("\"x\"", "\"z\"");
        assert!(!crate::model::decode_line(&line).unwrap().id_matches());
    }
}
