//! The one decoder of stored record lines: one flat struct instead of serde's flattened,
//! internally tagged enum, which buffers every line and made loading 10,000 records slow.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::record::{Body, Extra, GitState, LearningType, Meta, Record, RecordParseError};
use crate::model::kinds::{
    Checkpoint, ContextBlock, Convention, CumulativeNote, Decision, Delete, Document, Echo,
    EchoRef, Instinct, Invariant, Learning, Oracle, Progress, Resolve, Session, Task, TaskNote,
};

/// `context` is a string for decisions and a list for checkpoints.
#[derive(Deserialize)]
#[serde(untagged)]
enum StrOrList {
    Str(String),
    List(Vec<String>),
}

/// An [`Extra`] as stored.
#[derive(Deserialize)]
struct WireExtra {
    #[serde(default)]
    after: String,
    #[serde(default)]
    label: String,
    text: String,
}

/// Every field any kind may carry; which are required depends on `kind`.
#[derive(Deserialize)]
struct Wire {
    id: String,
    ts: String,
    clock: u64,
    author: String,
    #[serde(default)]
    supersedes: Vec<String>,
    kind: String,
    title: Option<String>,
    context: Option<StrOrList>,
    decision: Option<String>,
    rationale: Option<String>,
    impact: Option<String>,
    #[serde(default)]
    files: Vec<String>,
    #[serde(default)]
    file_blobs: BTreeMap<String, String>,
    pattern: Option<String>,
    example: Option<String>,
    applies_to: Option<String>,
    skill: Option<String>,
    #[serde(rename = "type")]
    ltype: Option<LearningType>,
    key: Option<String>,
    insight: Option<String>,
    confidence: Option<f64>,
    name: Option<String>,
    trigger: Option<String>,
    action: Option<String>,
    evidence: Option<String>,
    /// A list for progress, a time for tasks.
    completed: Option<StrOrList>,
    #[serde(default)]
    in_progress: Vec<String>,
    #[serde(default)]
    blocked: Vec<String>,
    #[serde(default)]
    next: Vec<String>,
    doing: Option<String>,
    #[serde(default)]
    left: Vec<String>,
    resume: Option<String>,
    git: Option<GitState>,
    target: Option<String>,
    summary: Option<String>,
    section: Option<String>,
    text: Option<String>,
    task: Option<String>,
    what: Option<String>,
    #[serde(default, rename = "where")]
    where_: Vec<String>,
    why: Option<String>,
    #[serde(default)]
    targets: Vec<String>,
    #[serde(default)]
    extra: Vec<WireExtra>,
    uid: Option<String>,
    num: Option<u32>,
    claimed: Option<String>,
    status: Option<String>,
    priority: Option<String>,
    category: Option<String>,
    created: Option<String>,
    #[serde(default)]
    consolidated: bool,
    #[serde(default)]
    consolidated_count: u32,
    #[serde(default)]
    keep: bool,
    #[serde(default)]
    aliases: Vec<String>,
    content: Option<String>,
    updated: Option<String>,
    #[serde(default)]
    related_tasks: Vec<String>,
    session_id: Option<String>,
    dispatched_at: Option<String>,
    trigger_signal: Option<String>,
    source_skill: Option<String>,
    target_model: Option<String>,
    bundle_hash: Option<String>,
    timeout_at: Option<String>,
    response_id: Option<String>,
    response_excerpt: Option<String>,
    reason: Option<String>,
    role: Option<String>,
    layer: Option<String>,
    date: Option<String>,
    source: Option<String>,
    verified: Option<String>,
    supersedes_title: Option<String>,
    #[serde(default)]
    archived: bool,
    #[serde(default)]
    members: Vec<String>,
    workflow: Option<String>,
    path: Option<String>,
}

fn need<T>(v: Option<T>, kind: &str, field: &str) -> Result<T, RecordParseError> {
    v.ok_or_else(|| RecordParseError::new(format!("{kind} record without `{field}`")))
}

/// The id of a stored line without decoding the rest: lines start `{"id":"<hex>"` (records
/// serialize their id first).
pub fn line_id(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("{\"id\":\"")?;
    let end = rest.find('"')?;
    Some(&rest[..end])
}

/// Decodes one stored line.
pub fn decode(line: &str) -> Result<Record, RecordParseError> {
    let w: Wire = serde_json::from_str(line).map_err(|e| RecordParseError::new(e.to_string()))?;
    let k = w.kind.as_str();
    let mut extra: Vec<Extra> = w
        .extra
        .into_iter()
        .map(|e| Extra {
            after: e.after,
            label: e.label,
            text: e.text,
        })
        .collect();
    let context_str = |c: Option<StrOrList>| match c {
        Some(StrOrList::Str(s)) => Ok(s),
        Some(StrOrList::List(_)) => Err(RecordParseError::new(format!(
            "{k} record with a list `context`"
        ))),
        None => Err(RecordParseError::new(format!(
            "{k} record without `context`"
        ))),
    };
    let body = match k {
        "decision" => Body::Decision(Decision {
            title: need(w.title, k, "title")?,
            context: context_str(w.context)?,
            decision: need(w.decision, k, "decision")?,
            rationale: need(w.rationale, k, "rationale")?,
            impact: need(w.impact, k, "impact")?,
            files: w.files,
            file_blobs: w.file_blobs,
            extra: std::mem::take(&mut extra),
        }),
        "convention" => Body::Convention(Convention {
            title: need(w.title, k, "title")?,
            pattern: need(w.pattern, k, "pattern")?,
            example: w.example.unwrap_or_default(),
            applies_to: w.applies_to.unwrap_or_default(),
            extra: std::mem::take(&mut extra),
        }),
        "learning" => Body::Learning(Learning {
            skill: w.skill.unwrap_or_default(),
            ltype: need(w.ltype, k, "type")?,
            key: need(w.key, k, "key")?,
            insight: need(w.insight, k, "insight")?,
            confidence: need(w.confidence, k, "confidence")?,
            files: w.files,
            file_blobs: w.file_blobs,
            extra: std::mem::take(&mut extra),
        }),
        "instinct" => Body::Instinct(Instinct {
            name: need(w.name, k, "name")?,
            trigger: need(w.trigger, k, "trigger")?,
            action: need(w.action, k, "action")?,
            confidence: need(w.confidence, k, "confidence")?,
            evidence: need(w.evidence, k, "evidence")?,
            extra: std::mem::take(&mut extra),
        }),
        "progress" => Body::Progress(Progress {
            completed: match w.completed {
                Some(StrOrList::List(l)) => l,
                None => Vec::new(),
                Some(StrOrList::Str(_)) => {
                    return Err(RecordParseError::new(
                        "progress record with a string `completed`",
                    ))
                }
            },
            in_progress: w.in_progress,
            blocked: w.blocked,
            next: w.next,
            extra: std::mem::take(&mut extra),
        }),
        "checkpoint" => Body::Checkpoint(Checkpoint {
            doing: need(w.doing, k, "doing")?,
            left: w.left,
            context: match w.context {
                Some(StrOrList::List(l)) => l,
                None => Vec::new(),
                Some(StrOrList::Str(_)) => {
                    return Err(RecordParseError::new(
                        "checkpoint record with a string `context`",
                    ))
                }
            },
            resume: w.resume.unwrap_or_default(),
            git: w.git,
            extra: std::mem::take(&mut extra),
        }),
        "resolve" => Body::Resolve(Resolve {
            target: need(w.target, k, "target")?,
        }),
        "session" => Body::Session(Session {
            summary: need(w.summary, k, "summary")?,
            git: w.git,
        }),
        "cumulative-note" => Body::CumulativeNote(CumulativeNote {
            section: need(w.section, k, "section")?,
            text: need(w.text, k, "text")?,
        }),
        "task-note" => Body::TaskNote(TaskNote {
            task: w.task.unwrap_or_default(),
            section: need(w.section, k, "section")?,
            text: need(w.text, k, "text")?,
        }),
        "invariant" => Body::Invariant(Invariant {
            section: need(w.section, k, "section")?,
            title: need(w.title, k, "title")?,
            what: w.what.unwrap_or_default(),
            r#where: w.where_,
            why: w.why.unwrap_or_default(),
            extra: std::mem::take(&mut extra),
        }),
        "task" => Body::Task(Task {
            uid: need(w.uid, k, "uid")?,
            num: need(w.num, k, "num")?,
            claimed: need(w.claimed, k, "claimed")?,
            title: need(w.title, k, "title")?,
            status: need(w.status, k, "status")?,
            priority: w.priority.unwrap_or_default(),
            category: w.category.unwrap_or_default(),
            created: need(w.created, k, "created")?,
            completed: match w.completed {
                Some(StrOrList::Str(s)) => s,
                None => String::new(),
                Some(StrOrList::List(_)) => {
                    return Err(RecordParseError::new("task record with a list `completed`"))
                }
            },
            consolidated: w.consolidated,
            consolidated_count: w.consolidated_count,
            context: match w.context {
                Some(StrOrList::Str(s)) => s,
                None => String::new(),
                Some(StrOrList::List(_)) => {
                    return Err(RecordParseError::new("task record with a list `context`"))
                }
            },
            files: w.files,
            keep: w.keep,
            aliases: w.aliases,
            extra: std::mem::take(&mut extra),
        }),
        "context-block" => Body::ContextBlock(ContextBlock {
            title: need(w.title, k, "title")?,
            content: need(w.content, k, "content")?,
            updated: need(w.updated, k, "updated")?,
            related_tasks: w.related_tasks,
        }),
        "oracle" => Body::Oracle(Oracle {
            session_id: need(w.session_id, k, "session_id")?,
            dispatched_at: need(w.dispatched_at, k, "dispatched_at")?,
            trigger_signal: need(w.trigger_signal, k, "trigger_signal")?,
            source_skill: need(w.source_skill, k, "source_skill")?,
            target_model: need(w.target_model, k, "target_model")?,
            bundle_hash: need(w.bundle_hash, k, "bundle_hash")?,
            status: need(w.status, k, "status")?,
            timeout_at: need(w.timeout_at, k, "timeout_at")?,
            response_id: w.response_id.unwrap_or_default(),
            response_excerpt: w.response_excerpt.unwrap_or_default(),
            reason: w.reason.unwrap_or_default(),
        }),
        "echo" => Body::Echo(Echo {
            uid: need(w.uid, k, "uid")?,
            role: need(w.role, k, "role")?,
            layer: need(w.layer, k, "layer")?,
            date: need(w.date, k, "date")?,
            title: need(w.title, k, "title")?,
            source: w.source.unwrap_or_default(),
            confidence: need(w.confidence, k, "confidence")?,
            evidence: w.evidence.unwrap_or_default(),
            verified: need(w.verified, k, "verified")?,
            supersedes_title: w.supersedes_title.unwrap_or_default(),
            text: need(w.text, k, "text")?,
            archived: w.archived,
            members: w.members,
            extra: std::mem::take(&mut extra),
        }),
        "echo-ref" => Body::EchoRef(EchoRef {
            uid: need(w.uid, k, "uid")?,
            workflow: need(w.workflow, k, "workflow")?,
        }),
        "document" => Body::Document(Document {
            path: need(w.path, k, "path")?,
            content: need(w.content, k, "content")?,
        }),
        "delete" => Body::Delete(Delete { targets: w.targets }),
        other => {
            return Err(RecordParseError::new(format!(
                "unknown record kind {other:?}"
            )))
        }
    };
    Ok(Record {
        id: w.id,
        meta: Meta {
            ts: w.ts,
            clock: w.clock,
            author: w.author,
            supersedes: w.supersedes,
        },
        body,
    })
}
