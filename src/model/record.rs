//! Memory records: the immutable, content-addressed unit everything in git-rune is built from.

use std::fmt;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::kinds::skip::{is_empty_str, is_empty_vec};
pub use super::kinds::*;

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

/// The typed content of a record; the `kind` tag names the variant on disk. Stored lines are
/// read back by the one decoder in `wire.rs`, not by serde's derive.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Body {
    Decision(Decision),
    Convention(Convention),
    Learning(Learning),
    Instinct(Instinct),
    Progress(Progress),
    Checkpoint(Checkpoint),
    Resolve(Resolve),
    Session(Session),
    CumulativeNote(CumulativeNote),
    TaskNote(TaskNote),
    Invariant(Invariant),
    Task(Task),
    ContextBlock(ContextBlock),
    Oracle(Oracle),
    Echo(Echo),
    EchoRef(EchoRef),
    Document(Document),
    Delete(Delete),
}

/// Something the view holds that a record's own fields do not: a labelled field or a section
/// the parser does not know (`**Alternatives considered:** …`, `## Notes`), or prose it cannot
/// attribute to a field, in the order written. Rendered back where it was: after the known
/// field (or section) named by `after`. In `learnings.jsonl` it is an unknown JSON key, with
/// its value as compact JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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

/// Record kinds, one per variant of [`Body`], with their on-disk directory names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Decision,
    Convention,
    Learning,
    Instinct,
    Progress,
    Checkpoint,
    Resolve,
    Session,
    CumulativeNote,
    TaskNote,
    Invariant,
    Task,
    ContextBlock,
    Oracle,
    Echo,
    EchoRef,
    Document,
    Delete,
}

impl Kind {
    pub const ALL: [Kind; 18] = [
        Kind::Decision,
        Kind::Convention,
        Kind::Learning,
        Kind::Instinct,
        Kind::Progress,
        Kind::Checkpoint,
        Kind::Resolve,
        Kind::Session,
        Kind::CumulativeNote,
        Kind::TaskNote,
        Kind::Invariant,
        Kind::Task,
        Kind::ContextBlock,
        Kind::Oracle,
        Kind::Echo,
        Kind::EchoRef,
        Kind::Document,
        Kind::Delete,
    ];

    /// The `kind` tag and tree directory name.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Decision => "decision",
            Kind::Convention => "convention",
            Kind::Learning => "learning",
            Kind::Instinct => "instinct",
            Kind::Progress => "progress",
            Kind::Checkpoint => "checkpoint",
            Kind::Resolve => "resolve",
            Kind::Session => "session",
            Kind::CumulativeNote => "cumulative-note",
            Kind::TaskNote => "task-note",
            Kind::Invariant => "invariant",
            Kind::Task => "task",
            Kind::ContextBlock => "context-block",
            Kind::Oracle => "oracle",
            Kind::Echo => "echo",
            Kind::EchoRef => "echo-ref",
            Kind::Document => "document",
            Kind::Delete => "delete",
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// The ref a record of this kind is stored under; `Delete` follows its targets.
    pub fn scope(self) -> Option<Scope> {
        match self {
            Kind::Decision
            | Kind::Convention
            | Kind::Learning
            | Kind::Instinct
            | Kind::CumulativeNote
            | Kind::Invariant
            | Kind::Echo
            | Kind::EchoRef
            | Kind::Document => Some(Scope::Memory),
            Kind::Progress
            | Kind::Checkpoint
            | Kind::Resolve
            | Kind::Session
            | Kind::TaskNote
            | Kind::Task
            | Kind::ContextBlock
            | Kind::Oracle => Some(Scope::Branch),
            Kind::Delete => None,
        }
    }
}

impl Body {
    pub fn kind(&self) -> Kind {
        match self {
            Body::Decision(Decision { .. }) => Kind::Decision,
            Body::Convention(Convention { .. }) => Kind::Convention,
            Body::Learning(Learning { .. }) => Kind::Learning,
            Body::Instinct(Instinct { .. }) => Kind::Instinct,
            Body::Progress(Progress { .. }) => Kind::Progress,
            Body::Checkpoint(Checkpoint { .. }) => Kind::Checkpoint,
            Body::Resolve(Resolve { .. }) => Kind::Resolve,
            Body::Session(Session { .. }) => Kind::Session,
            Body::CumulativeNote(CumulativeNote { .. }) => Kind::CumulativeNote,
            Body::TaskNote(TaskNote { .. }) => Kind::TaskNote,
            Body::Invariant(Invariant { .. }) => Kind::Invariant,
            Body::Task(Task { .. }) => Kind::Task,
            Body::ContextBlock(ContextBlock { .. }) => Kind::ContextBlock,
            Body::Oracle(Oracle { .. }) => Kind::Oracle,
            Body::Echo(Echo { .. }) => Kind::Echo,
            Body::EchoRef(EchoRef { .. }) => Kind::EchoRef,
            Body::Document(Document { .. }) => Kind::Document,
            Body::Delete(Delete { .. }) => Kind::Delete,
        }
    }

    /// The headline of a record: its title, name, key or first text; the kind's name for
    /// records without one (progress, resolve, delete).
    pub fn title(&self) -> &str {
        match self {
            Body::Decision(Decision { title, .. })
            | Body::Convention(Convention { title, .. })
            | Body::Invariant(Invariant { title, .. })
            | Body::Task(Task { title, .. })
            | Body::ContextBlock(ContextBlock { title, .. })
            | Body::Echo(Echo { title, .. }) => title,
            Body::EchoRef(EchoRef { uid, .. }) => uid,
            Body::Learning(Learning { key, .. }) => key,
            Body::Instinct(Instinct { name, .. }) => name,
            Body::Checkpoint(Checkpoint { doing, .. }) => doing,
            Body::Session(Session { summary, .. }) => summary,
            Body::CumulativeNote(CumulativeNote { text, .. })
            | Body::TaskNote(TaskNote { text, .. }) => text,
            Body::Oracle(Oracle { session_id, .. }) => session_id,
            Body::Document(Document { path, .. }) => path,
            Body::Progress(Progress { .. }) => "progress",
            Body::Resolve(Resolve { .. }) => "resolve",
            Body::Delete(Delete { .. }) => "delete",
        }
    }

    /// [`Body::extra`], to change; `None` for kinds that cannot hold extras.
    pub fn extra_mut(&mut self) -> Option<&mut Vec<Extra>> {
        match self {
            Body::Decision(Decision { extra, .. })
            | Body::Convention(Convention { extra, .. })
            | Body::Learning(Learning { extra, .. })
            | Body::Instinct(Instinct { extra, .. })
            | Body::Progress(Progress { extra, .. })
            | Body::Checkpoint(Checkpoint { extra, .. })
            | Body::Invariant(Invariant { extra, .. })
            | Body::Task(Task { extra, .. })
            | Body::Echo(Echo { extra, .. }) => Some(extra),
            _ => None,
        }
    }

    /// What the view kept beside the record's own fields (empty for kinds without a view form
    /// that could hold more).
    pub fn extra(&self) -> &[Extra] {
        match self {
            Body::Decision(Decision { extra, .. })
            | Body::Convention(Convention { extra, .. })
            | Body::Learning(Learning { extra, .. })
            | Body::Instinct(Instinct { extra, .. })
            | Body::Progress(Progress { extra, .. })
            | Body::Checkpoint(Checkpoint { extra, .. })
            | Body::Invariant(Invariant { extra, .. })
            | Body::Task(Task { extra, .. })
            | Body::Echo(Echo { extra, .. }) => extra,
            _ => &[],
        }
    }

    /// Ids this record removes from the fold (tombstones) or resolves.
    pub fn targets(&self) -> &[String] {
        match self {
            Body::Delete(Delete { targets }) => targets,
            Body::Resolve(Resolve { target }) => std::slice::from_ref(target),
            _ => &[],
        }
    }
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
        Record { id, meta, body }
    }

    pub fn kind(&self) -> Kind {
        self.body.kind()
    }

    /// The canonical bytes the id is computed over: compact JSON of meta then body, fields in
    /// declaration order, empty optional fields omitted.
    pub fn canonical_content(&self) -> Vec<u8> {
        canonical(&self.meta, &self.body)
    }

    /// True when the id still matches the content.
    pub fn id_matches(&self) -> bool {
        content_id(&self.meta, &self.body) == self.id
    }

    /// One JSON line as stored in the tree (no trailing newline).
    pub fn to_line(&self) -> String {
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

fn canonical(meta: &Meta, body: &Body) -> Vec<u8> {
    serde_json::to_vec(&ContentRef { meta, body })
        .expect("records serialize: all map keys are strings")
}

fn content_id(meta: &Meta, body: &Body) -> String {
    let digest = Sha256::digest(canonical(meta, body));
    let mut s = String::with_capacity(64);
    for b in digest {
        use fmt::Write;
        let _ = write!(s, "{b:02x}");
    }
    s
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

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
