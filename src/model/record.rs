//! Memory records: the immutable, content-addressed unit everything in git-rune is built from.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

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

fn is_empty_vec<T>(v: &[T]) -> bool {
    v.is_empty()
}

fn is_empty_map<K, V>(m: &BTreeMap<K, V>) -> bool {
    m.is_empty()
}

fn is_empty_str(s: &str) -> bool {
    s.is_empty()
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// The typed content of a record; the `kind` tag names the variant on disk. Stored lines are
/// read back by the one decoder in `wire.rs`, not by serde's derive.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Body {
    Decision {
        title: String,
        context: String,
        decision: String,
        rationale: String,
        impact: String,
        #[serde(default, skip_serializing_if = "is_empty_vec")]
        files: Vec<String>,
        /// Blob id of each named file when the record was written (`""` when absent).
        #[serde(default, skip_serializing_if = "is_empty_map")]
        file_blobs: BTreeMap<String, String>,
        /// What the view kept that the fields above do not hold (see [`Extra`]).
        #[serde(default, skip_serializing_if = "is_empty_vec")]
        extra: Vec<Extra>,
    },
    Convention {
        title: String,
        pattern: String,
        #[serde(default, skip_serializing_if = "is_empty_str")]
        example: String,
        #[serde(default, skip_serializing_if = "is_empty_str")]
        applies_to: String,
        /// What the view kept that the fields above do not hold (see [`Extra`]).
        #[serde(default, skip_serializing_if = "is_empty_vec")]
        extra: Vec<Extra>,
    },
    Learning {
        #[serde(default, skip_serializing_if = "is_empty_str")]
        skill: String,
        #[serde(rename = "type")]
        ltype: LearningType,
        key: String,
        insight: String,
        confidence: f64,
        #[serde(default, skip_serializing_if = "is_empty_vec")]
        files: Vec<String>,
        #[serde(default, skip_serializing_if = "is_empty_map")]
        file_blobs: BTreeMap<String, String>,
        /// What the view kept that the fields above do not hold (see [`Extra`]).
        #[serde(default, skip_serializing_if = "is_empty_vec")]
        extra: Vec<Extra>,
    },
    Instinct {
        name: String,
        trigger: String,
        action: String,
        confidence: f64,
        evidence: String,
        /// What the view kept that the fields above do not hold (see [`Extra`]).
        #[serde(default, skip_serializing_if = "is_empty_vec")]
        extra: Vec<Extra>,
    },
    Progress {
        #[serde(default, skip_serializing_if = "is_empty_vec")]
        completed: Vec<String>,
        #[serde(default, skip_serializing_if = "is_empty_vec")]
        in_progress: Vec<String>,
        #[serde(default, skip_serializing_if = "is_empty_vec")]
        blocked: Vec<String>,
        #[serde(default, skip_serializing_if = "is_empty_vec")]
        next: Vec<String>,
        /// What the view kept that the fields above do not hold (see [`Extra`]).
        #[serde(default, skip_serializing_if = "is_empty_vec")]
        extra: Vec<Extra>,
    },
    Checkpoint {
        doing: String,
        #[serde(default, skip_serializing_if = "is_empty_vec")]
        left: Vec<String>,
        #[serde(default, skip_serializing_if = "is_empty_vec")]
        context: Vec<String>,
        #[serde(default, skip_serializing_if = "is_empty_str")]
        resume: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        git: Option<GitState>,
        /// What the view kept that the fields above do not hold (see [`Extra`]).
        #[serde(default, skip_serializing_if = "is_empty_vec")]
        extra: Vec<Extra>,
    },
    /// Marks a checkpoint resolved; the checkpoint itself stays in history.
    Resolve { target: String },
    Session {
        summary: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        git: Option<GitState>,
    },
    /// An item in a fixed section of `cumulative-notes.md`.
    CumulativeNote { section: String, text: String },
    /// An item in a fixed section of `task-notes.md`.
    TaskNote {
        #[serde(default, skip_serializing_if = "is_empty_str")]
        task: String,
        section: String,
        text: String,
    },
    Invariant {
        section: String,
        title: String,
        #[serde(default, skip_serializing_if = "is_empty_str")]
        what: String,
        #[serde(default, skip_serializing_if = "is_empty_vec")]
        r#where: Vec<String>,
        #[serde(default, skip_serializing_if = "is_empty_str")]
        why: String,
        /// What the view kept that the fields above do not hold (see [`Extra`]).
        #[serde(default, skip_serializing_if = "is_empty_vec")]
        extra: Vec<Extra>,
    },
    /// A task of the branch's list (the seed's session protocol). Edits supersede; every
    /// version of one task shares its `uid`. `num` is the `TASK_<num>` the writer claimed at
    /// `claimed`; the fold settles two tasks claiming one number (docs/storage.md).
    Task {
        /// The task's identity across edits: hex, made when the task was created.
        uid: String,
        /// The number claimed (`TASK_007` is 7).
        num: u32,
        /// When `num` was claimed (RFC 3339 UTC): the earlier claim keeps a number.
        claimed: String,
        title: String,
        /// `pending`, `in_progress` or `completed`.
        status: String,
        /// `P1`, `P2`, `P3` or empty.
        #[serde(default, skip_serializing_if = "is_empty_str")]
        priority: String,
        /// `BUGFIX`, `FEATURE`, `CONFIG`, `DOCS`, `TEST`, `REFACTOR` or empty.
        #[serde(default, skip_serializing_if = "is_empty_str")]
        category: String,
        created: String,
        /// When it was completed; empty while it is not.
        #[serde(default, skip_serializing_if = "is_empty_str")]
        completed: String,
        #[serde(default, skip_serializing_if = "is_false")]
        consolidated: bool,
        #[serde(default, skip_serializing_if = "is_zero")]
        consolidated_count: u32,
        #[serde(default, skip_serializing_if = "is_empty_str")]
        context: String,
        /// `path` or `path:line`.
        #[serde(default, skip_serializing_if = "is_empty_vec")]
        files: Vec<String>,
        /// Never consolidated (a unique pitfall or lesson).
        #[serde(default, skip_serializing_if = "is_false")]
        keep: bool,
        /// Numbers the task was shown under before it was renumbered (`TASK_003`).
        #[serde(default, skip_serializing_if = "is_empty_vec")]
        aliases: Vec<String>,
        /// What the view kept that the fields above do not hold (see [`Extra`]).
        #[serde(default, skip_serializing_if = "is_empty_vec")]
        extra: Vec<Extra>,
    },
    /// A context block of the session protocol: architecture decisions, error patterns,
    /// pitfalls, with the tasks they concern. One per title (the newest wins).
    ContextBlock {
        title: String,
        content: String,
        updated: String,
        #[serde(default, skip_serializing_if = "is_empty_vec")]
        related_tasks: Vec<String>,
    },
    /// An oracle dispatch of seed 000's detach mode: a slow model asked in the background,
    /// its answer picked up later (`git rune oracle`). Every status change is a new record
    /// superseding the previous one; one live state per `session_id` (docs/storage.md).
    Oracle {
        /// `oracle-<digits>-<lowercase alphanumerics>`, the caller's id.
        session_id: String,
        /// When it was dispatched (RFC 3339 UTC); kept by every status change.
        dispatched_at: String,
        /// `agent.stuck` or `manual`.
        trigger_signal: String,
        /// `debug`, `fix` or `manual`.
        source_skill: String,
        target_model: String,
        /// `sha256:<8 to 64 hex digits>` of the bundled context: the idempotency key.
        bundle_hash: String,
        /// `pending`, `complete`, `consumed`, `failed` or `orphaned`.
        status: String,
        /// When a pending dispatch times out (RFC 3339 UTC).
        timeout_at: String,
        /// The answer's id; empty until complete.
        #[serde(default, skip_serializing_if = "is_empty_str")]
        response_id: String,
        /// The answer, at most 500 characters; empty until complete.
        #[serde(default, skip_serializing_if = "is_empty_str")]
        response_excerpt: String,
        /// Why it failed or was orphaned (`timeout`, `orphaned`); empty otherwise.
        #[serde(default, skip_serializing_if = "is_empty_str")]
        reason: String,
    },
    /// An echo (seed 002): one entry of a role's memory (`.claude/echoes/<role>/MEMORY.md`).
    /// Edits, archiving and restoring are new versions superseding the previous one; every
    /// version of one entry shares its `uid`, and the fold keeps one per uid (docs/storage.md).
    Echo {
        /// The entry's identity across versions: [`super::echo::uid_for`] when created.
        uid: String,
        /// `planner`, `workers`, `reviewer`, `auditor`, `team`, or any role name.
        role: String,
        /// `etched`, `inscribed` or `traced`.
        layer: String,
        /// The date in the entry's heading (`YYYY-MM-DD`).
        date: String,
        /// With its kind word: `Pattern: Unused imports in new files`.
        title: String,
        /// `manual`, `rune:review PR #42`, …
        #[serde(default, skip_serializing_if = "is_empty_str")]
        source: String,
        confidence: f64,
        /// `` `file:lines` — what was found ``; empty when stripped or not given.
        #[serde(default, skip_serializing_if = "is_empty_str")]
        evidence: String,
        /// When it was last confirmed (`YYYY-MM-DD`).
        verified: String,
        /// The title of the entry it replaces (the seed's `supersedes`); empty for `none`.
        #[serde(default, skip_serializing_if = "is_empty_str")]
        supersedes_title: String,
        /// The learning, in 1 to 3 sentences.
        text: String,
        /// Moved to the role's archive: kept, shown with `--archived`, never loaded.
        #[serde(default, skip_serializing_if = "is_false")]
        archived: bool,
        /// A knowledge block (`knowledge.md`): the uids of the entries it compresses.
        #[serde(default, skip_serializing_if = "is_empty_vec")]
        members: Vec<String>,
        /// What the view kept that the fields above do not hold (see [`Extra`]).
        #[serde(default, skip_serializing_if = "is_empty_vec")]
        extra: Vec<Extra>,
    },
    /// A workflow used an echo (`git rune echo ref`): feeds the entry's Relevance. A union:
    /// every clone counts the same references.
    EchoRef {
        /// The echo's `uid`.
        uid: String,
        /// The workflow (session) that used it.
        workflow: String,
    },
    /// Removes the target records from the fold (they stay in history).
    Delete { targets: Vec<String> },
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
    Delete,
}

impl Kind {
    pub const ALL: [Kind; 17] = [
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
            | Kind::EchoRef => Some(Scope::Memory),
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
            Body::Decision { .. } => Kind::Decision,
            Body::Convention { .. } => Kind::Convention,
            Body::Learning { .. } => Kind::Learning,
            Body::Instinct { .. } => Kind::Instinct,
            Body::Progress { .. } => Kind::Progress,
            Body::Checkpoint { .. } => Kind::Checkpoint,
            Body::Resolve { .. } => Kind::Resolve,
            Body::Session { .. } => Kind::Session,
            Body::CumulativeNote { .. } => Kind::CumulativeNote,
            Body::TaskNote { .. } => Kind::TaskNote,
            Body::Invariant { .. } => Kind::Invariant,
            Body::Task { .. } => Kind::Task,
            Body::ContextBlock { .. } => Kind::ContextBlock,
            Body::Oracle { .. } => Kind::Oracle,
            Body::Echo { .. } => Kind::Echo,
            Body::EchoRef { .. } => Kind::EchoRef,
            Body::Delete { .. } => Kind::Delete,
        }
    }

    /// The headline of a record: its title, name, key or first text; the kind's name for
    /// records without one (progress, resolve, delete).
    pub fn title(&self) -> &str {
        match self {
            Body::Decision { title, .. }
            | Body::Convention { title, .. }
            | Body::Invariant { title, .. }
            | Body::Task { title, .. }
            | Body::ContextBlock { title, .. }
            | Body::Echo { title, .. } => title,
            Body::EchoRef { uid, .. } => uid,
            Body::Learning { key, .. } => key,
            Body::Instinct { name, .. } => name,
            Body::Checkpoint { doing, .. } => doing,
            Body::Session { summary, .. } => summary,
            Body::CumulativeNote { text, .. } | Body::TaskNote { text, .. } => text,
            Body::Oracle { session_id, .. } => session_id,
            Body::Progress { .. } => "progress",
            Body::Resolve { .. } => "resolve",
            Body::Delete { .. } => "delete",
        }
    }

    /// [`Body::extra`], to change; `None` for kinds that cannot hold extras.
    pub fn extra_mut(&mut self) -> Option<&mut Vec<Extra>> {
        match self {
            Body::Decision { extra, .. }
            | Body::Convention { extra, .. }
            | Body::Learning { extra, .. }
            | Body::Instinct { extra, .. }
            | Body::Progress { extra, .. }
            | Body::Checkpoint { extra, .. }
            | Body::Invariant { extra, .. }
            | Body::Task { extra, .. }
            | Body::Echo { extra, .. } => Some(extra),
            _ => None,
        }
    }

    /// What the view kept beside the record's own fields (empty for kinds without a view form
    /// that could hold more).
    pub fn extra(&self) -> &[Extra] {
        match self {
            Body::Decision { extra, .. }
            | Body::Convention { extra, .. }
            | Body::Learning { extra, .. }
            | Body::Instinct { extra, .. }
            | Body::Progress { extra, .. }
            | Body::Checkpoint { extra, .. }
            | Body::Invariant { extra, .. }
            | Body::Task { extra, .. }
            | Body::Echo { extra, .. } => extra,
            _ => &[],
        }
    }

    /// Ids this record removes from the fold (tombstones) or resolves.
    pub fn targets(&self) -> &[String] {
        match self {
            Body::Delete { targets } => targets,
            Body::Resolve { target } => std::slice::from_ref(target),
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
            Body::Learning {
                skill: "cook".into(),
                ltype: LearningType::Decision,
                key: "state-lib".into(),
                insight: "Chose Zustand".into(),
                confidence: 0.8,
                files: vec!["src/a.ts".into()],
                file_blobs: BTreeMap::new(),
                extra: Vec::new(),
            },
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
            Body::Delete {
                targets: vec!["x".into()],
            },
        );
        let b = Record::new(
            meta(),
            Body::Delete {
                targets: vec!["y".into()],
            },
        );
        assert_ne!(a.id, b.id);
        assert_eq!(a.id.len(), 64);
    }

    #[test]
    fn tampered_line_is_detected() {
        let r = Record::new(
            meta(),
            Body::Delete {
                targets: vec!["x".into()],
            },
        );
        let line = r.to_line().replace("\"x\"", "\"z\"");
        assert!(!crate::model::decode_line(&line).unwrap().id_matches());
    }
}
