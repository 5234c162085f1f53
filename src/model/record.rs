//! Memory records: the immutable, content-addressed unit everything in git-rune is built from.
//! What a record does (its id, canonical content and stored line); the type is declared with
//! the kinds' table (`kinds/mod.rs`), since a record holds one kind's body and each kind's
//! fold rule reads records.

use serde::Serialize;
use sha2::{Digest, Sha256};

pub use super::kinds::{Body, Kind, Record};
pub use super::meta::{Extra, GitState, LearningType, Meta, Scope};

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
            None => names_digest(&self.id, &Sha256::digest(canonical(&self.meta, &self.body))),
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

/// The id of a stored line without decoding the rest: lines start `{"id":"<hex>"` (records
/// serialize their id first).
pub fn line_id(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("{\"id\":\"")?;
    let end = rest.find('"')?;
    Some(&rest[..end])
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
    let Some(id) = line_id(line) else {
        return false;
    };
    match raw_canonical(line, id) {
        Some(content) => names_digest(id, &Sha256::digest(content)),
        None => false,
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

fn hex(digest: &[u8]) -> String {
    let mut s = String::with_capacity(digest.len() * 2);
    for &b in digest {
        s.push(HEX[usize::from(b >> 4)] as char);
        s.push(HEX[usize::from(b & 15)] as char);
    }
    s
}

/// `id` is `digest` in lower-case hex (what [`hex`] writes), compared without writing it.
fn names_digest(id: &str, digest: &[u8]) -> bool {
    id.len() == digest.len() * 2
        && id.as_bytes().chunks_exact(2).zip(digest).all(|(pair, &b)| {
            pair[0] == HEX[usize::from(b >> 4)] && pair[1] == HEX[usize::from(b & 15)]
        })
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
    fn an_id_names_its_digest_in_lower_case_hex_only() {
        let d = Sha256::digest(b"x");
        let id = hex(&d);
        assert_eq!(id.len(), 64);
        assert!(names_digest(&id, &d));
        assert!(!names_digest(&id.to_uppercase(), &d));
        assert!(!names_digest(&id[..62], &d));
        assert!(!names_digest(&format!("{id}0"), &d));
        assert!(!names_digest(&hex(&Sha256::digest(b"y")), &d));
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
