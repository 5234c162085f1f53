//! The memory model: records, their validation and their fold. Pure: no git, no I/O.

pub mod echo;
mod fields;
pub mod fold;
pub mod kinds;
pub mod named_lines;
pub mod oracle;
pub mod record;
pub mod task;
#[cfg(test)]
pub mod testing;
mod wire;

use crate::model::kinds::{
    Checkpoint, ContextBlock, Convention, CumulativeNote, Decision, Delete, Document, Echo,
    EchoRef, Instinct, Invariant, Learning, Oracle, Progress, Resolve, Session, Task, TaskNote,
};
pub use fields::{Field, Shape};
pub use fold::{fold, State};
pub use record::{Body, Extra, GitState, Kind, LearningType, Meta, Record, Scope};
pub use wire::{decode as decode_line, line_id};

/// The fixed sections of `cumulative-notes.md`, in the seed's order.
pub const CUMULATIVE_SECTIONS: [&str; 8] = [
    "Project Profile",
    "Architecture Map",
    "Recurring Themes",
    "Active Topics",
    "Relationship Map",
    "Follow-Up Items",
    "Attention Points",
    "Resolved",
];

/// The fixed sections of `task-notes.md`, in the seed's order.
pub const TASK_SECTIONS: [&str; 4] = [
    "What Worked",
    "What Failed",
    "What's Left",
    "Key Context for Next Iteration",
];

/// The keys of a learning in the seed's `learnings.jsonl`.
pub const LEARNING_KEYS: [&str; 7] = [
    "ts",
    "skill",
    "type",
    "key",
    "insight",
    "confidence",
    "files",
];

/// A record not yet written: content plus what it edits. The store stamps time, author and
/// clock at commit time, so a retried commit gets a fresh clock.
#[derive(Debug, Clone, PartialEq)]
pub struct Draft {
    pub body: Body,
    pub supersedes: Vec<String>,
    /// The time the entry says it was written (a heading's date, a learning's `ts`), RFC 3339
    /// UTC; `None` takes the time of the commit.
    pub at: Option<String>,
}

impl Draft {
    pub fn new(body: Body) -> Draft {
        Draft {
            body,
            supersedes: Vec::new(),
            at: None,
        }
    }

    /// The record this draft becomes, written at `ts` (unless it says its own time) with
    /// Lamport clock `clock` by `author`.
    pub fn stamp(self, ts: &str, clock: u64, author: &str) -> Record {
        Record::new(
            Meta {
                ts: self.at.unwrap_or_else(|| ts.to_owned()),
                clock,
                author: author.to_owned(),
                supersedes: self.supersedes,
            },
            self.body,
        )
    }
}

/// A value that breaks the schema; the message names the field and the allowed values.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {problem}")]
pub struct ValidationError {
    pub field: &'static str,
    pub problem: String,
}

fn invalid(field: &'static str, problem: impl Into<String>) -> ValidationError {
    ValidationError {
        field,
        problem: problem.into(),
    }
}

fn require(field: &'static str, value: &str) -> Result<(), ValidationError> {
    if value.trim().is_empty() {
        return Err(invalid(field, "must not be empty"));
    }
    Ok(())
}

fn confidence_in(field: &'static str, v: f64, lo: f64, hi: f64) -> Result<(), ValidationError> {
    if !(lo..=hi).contains(&v) {
        return Err(invalid(
            field,
            format!("{v} is out of range: use a value from {lo:?} to {hi:?}"),
        ));
    }
    Ok(())
}

/// Matches a section name case-insensitively against a fixed list, also accepting
/// `attention-points` style slugs; returns the canonical spelling.
pub fn canonical_section(name: &str, sections: &[&'static str]) -> Option<&'static str> {
    let norm = |s: &str| {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect::<String>()
    };
    let want = norm(name);
    sections.iter().copied().find(|s| norm(s) == want)
}

/// Checks an entry's own time: RFC 3339 in UTC, to the second (`2026-04-05T10:15:00Z`).
pub fn validate_time(ts: &str) -> Result<(), ValidationError> {
    let ok = ts.len() == 20
        && ts.ends_with('Z')
        && chrono::NaiveDateTime::parse_from_str(&ts[..19], "%Y-%m-%dT%H:%M:%S").is_ok();
    if ok {
        Ok(())
    } else {
        Err(invalid(
            "date",
            format!("{ts:?} is not a time like 2026-04-05T10:15:00Z"),
        ))
    }
}

/// Checks a record's content against the seed's schema.
pub fn validate(body: &Body) -> Result<(), ValidationError> {
    match body {
        Body::Decision(Decision {
            title, decision, ..
        }) => {
            require("title", title)?;
            require("decision", decision)
        }
        Body::Convention(Convention { title, pattern, .. }) => {
            require("title", title)?;
            require("pattern", pattern)
        }
        Body::Learning(Learning {
            key,
            insight,
            confidence,
            extra,
            ..
        }) => {
            require("key", key)?;
            require("insight", insight)?;
            confidence_in("confidence", *confidence, 0.1, 1.0)?;
            // Extra keys of a learnings.jsonl line: not one of the seed's keys, and a JSON
            // value, so the line renders back as valid JSON.
            for x in extra {
                if x.label.is_empty() || LEARNING_KEYS.contains(&x.label.as_str()) {
                    return Err(invalid(
                        "extra",
                        format!("{:?} cannot be an extra key of a learning", x.label),
                    ));
                }
                if serde_json::from_str::<serde_json::Value>(&x.text).is_err() {
                    return Err(invalid(
                        "extra",
                        format!("the value of {:?} is not JSON", x.label),
                    ));
                }
            }
            Ok(())
        }
        Body::Instinct(Instinct {
            name,
            trigger,
            action,
            confidence,
            ..
        }) => {
            require("name", name)?;
            require("trigger", trigger)?;
            require("action", action)?;
            confidence_in("confidence", *confidence, 0.3, 0.9)
        }
        Body::Progress(Progress {
            completed,
            in_progress,
            blocked,
            next,
            extra,
        }) => {
            if completed.is_empty()
                && in_progress.is_empty()
                && blocked.is_empty()
                && next.is_empty()
                && extra.is_empty()
            {
                return Err(invalid(
                    "progress",
                    "is empty: it needs at least one completed, in-progress, blocked or next item",
                ));
            }
            Ok(())
        }
        Body::Checkpoint(Checkpoint { doing, .. }) => require("doing", doing),
        Body::Session(Session { summary, .. }) => require("summary", summary),
        // Sections beyond the seed's fixed ones are allowed: agents add their own (`## Open
        // Questions`), and the view keeps them. `remember` only offers the fixed ones.
        Body::CumulativeNote(CumulativeNote { section, text })
        | Body::TaskNote(TaskNote { section, text, .. }) => {
            require("section", section)?;
            require("text", text)
        }
        Body::Invariant(Invariant { section, title, .. }) => {
            require("section", section)?;
            require("title", title)
        }
        Body::Task(Task {
            uid,
            num,
            claimed,
            title,
            status,
            priority,
            category,
            created,
            completed,
            consolidated,
            consolidated_count,
            aliases,
            ..
        }) => {
            if uid.is_empty() || !uid.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(invalid("uid", format!("{uid:?} is not hex")));
            }
            if *num == 0 {
                return Err(invalid("num", "must be 1 or more (TASK_001)"));
            }
            require("title", title)?;
            if !task::STATUSES.contains(&status.as_str()) {
                return Err(invalid(
                    "status",
                    format!("{status:?}: use pending, in_progress or completed"),
                ));
            }
            if !priority.is_empty() && !task::PRIORITIES.contains(&priority.as_str()) {
                return Err(invalid(
                    "priority",
                    format!("{priority:?}: use P1, P2 or P3"),
                ));
            }
            if !category.is_empty() && !task::CATEGORIES.contains(&category.as_str()) {
                return Err(invalid(
                    "category",
                    format!("{category:?}: use one of {}", task::CATEGORIES.join(", ")),
                ));
            }
            for (field, t) in [("claimed", claimed), ("created", created)] {
                validate_time(t).map_err(|e| invalid(field, e.problem))?;
            }
            if !completed.is_empty() {
                validate_time(completed).map_err(|e| invalid("completed", e.problem))?;
            }
            if *consolidated && *consolidated_count == 0 {
                return Err(invalid(
                    "consolidated_count",
                    "a consolidated task counts at least one task",
                ));
            }
            if let Some(a) = aliases.iter().find(|a| task::parse_task_id(a).is_none()) {
                return Err(invalid("aliases", format!("{a:?} is not a task id")));
            }
            Ok(())
        }
        Body::ContextBlock(ContextBlock {
            title,
            content,
            updated,
            related_tasks,
        }) => {
            require("title", title)?;
            require("content", content)?;
            validate_time(updated).map_err(|e| invalid("updated", e.problem))?;
            if let Some(t) = related_tasks
                .iter()
                .find(|t| task::parse_task_id(t).is_none())
            {
                return Err(invalid(
                    "related_tasks",
                    format!("{t:?} is not a task id like TASK_001"),
                ));
            }
            Ok(())
        }
        Body::Oracle(Oracle {
            session_id,
            dispatched_at,
            trigger_signal,
            source_skill,
            target_model,
            bundle_hash,
            status,
            timeout_at,
            response_id,
            response_excerpt,
            reason,
        }) => {
            if !oracle::valid_session_id(session_id) {
                return Err(invalid(
                    "sessionId",
                    format!("{session_id:?} does not match ^oracle-\\d+-[a-z0-9]+$ (e.g. oracle-1714234500-abc123)"),
                ));
            }
            if !oracle::TRIGGERS.contains(&trigger_signal.as_str()) {
                return Err(invalid(
                    "triggerSignal",
                    format!("{trigger_signal:?}: use agent.stuck or manual"),
                ));
            }
            if !oracle::SOURCES.contains(&source_skill.as_str()) {
                return Err(invalid(
                    "sourceSkill",
                    format!("{source_skill:?}: use debug, fix or manual"),
                ));
            }
            require("targetModel", target_model)?;
            if !oracle::valid_bundle_hash(bundle_hash) {
                return Err(invalid(
                    "bundleHash",
                    format!("{bundle_hash:?} does not match ^sha256:[a-f0-9]{{8,64}}$"),
                ));
            }
            if !oracle::STATUSES.contains(&status.as_str()) {
                return Err(invalid(
                    "status",
                    format!("{status:?}: use pending, complete, consumed, failed or orphaned"),
                ));
            }
            validate_time(dispatched_at).map_err(|e| invalid("dispatchedAt", e.problem))?;
            validate_time(timeout_at).map_err(|e| invalid("timeoutAt", e.problem))?;
            if timeout_at <= dispatched_at {
                return Err(invalid("timeoutAt", "must be after dispatchedAt"));
            }
            let answered = matches!(status.as_str(), oracle::COMPLETE | oracle::CONSUMED);
            if answered && response_id.trim().is_empty() {
                return Err(invalid("responseId", "must not be empty once complete"));
            }
            if answered && response_excerpt.trim().is_empty() {
                return Err(invalid(
                    "responseExcerpt",
                    "must not be empty once complete",
                ));
            }
            let has_response = !response_id.is_empty() || !response_excerpt.is_empty();
            if !answered && has_response {
                return Err(invalid(
                    "responseId",
                    format!("a {status} dispatch has no response"),
                ));
            }
            let n = response_excerpt.chars().count();
            if n > oracle::MAX_EXCERPT {
                return Err(invalid(
                    "responseExcerpt",
                    format!(
                        "is {n} characters: at most {} are kept",
                        oracle::MAX_EXCERPT
                    ),
                ));
            }
            if matches!(status.as_str(), oracle::FAILED | oracle::ORPHANED) {
                require("reason", reason)?;
            }
            Ok(())
        }
        Body::Echo(Echo {
            uid,
            role,
            layer,
            date,
            title,
            confidence,
            evidence,
            verified,
            text,
            members,
            ..
        }) => {
            let hex = |s: &str| {
                s.len() == echo::UID_LEN
                    && s.bytes()
                        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
            };
            if !hex(uid) {
                return Err(invalid(
                    "uid",
                    format!("{uid:?} is not {} lowercase hex digits", echo::UID_LEN),
                ));
            }
            if !echo::valid_role(role) {
                return Err(invalid(
                    "role",
                    format!(
                        "{role:?}: use lowercase letters, digits, - and _ (planner, workers, \
                         reviewer, auditor, team, or your own)"
                    ),
                ));
            }
            if !echo::LAYERS.contains(&layer.as_str()) {
                return Err(invalid(
                    "layer",
                    format!("{layer:?}: use etched, inscribed or traced"),
                ));
            }
            if !echo::valid_date(date) {
                return Err(invalid(
                    "date",
                    format!("{date:?} is not a date like 2026-02-11"),
                ));
            }
            // The seed writes a kind word (`Pattern: …`); the Rune Echoes plugin's titles
            // have none. Either is a title.
            if title.trim().is_empty() {
                return Err(invalid("title", "must not be empty"));
            }
            confidence_in("confidence", *confidence, 0.0, 1.0)?;
            if !echo::valid_date(verified) {
                return Err(invalid(
                    "verified",
                    format!("{verified:?} is not a date like 2026-02-11"),
                ));
            }
            require("text", text)?;
            if echo::has_email(evidence) && !echo::about_email(title, text) {
                return Err(invalid(
                    "evidence",
                    "holds an e-mail address and the learning is not about e-mail handling",
                ));
            }
            if let Some(m) = members.iter().find(|m| !hex(m)) {
                return Err(invalid("members", format!("{m:?} is not an echo uid")));
            }
            Ok(())
        }
        Body::EchoRef(EchoRef { uid, workflow }) => {
            require("uid", uid)?;
            require("workflow", workflow)
        }
        Body::Resolve(Resolve { target }) => require("target", target),
        Body::Document(Document { path, content }) => {
            if let Some(problem) = kinds::document::path_problem(path) {
                return Err(invalid("path", problem));
            }
            match kinds::document::content_problem(content.as_bytes()) {
                Some(problem) => Err(invalid("content", problem)),
                None => Ok(()),
            }
        }
        Body::Delete(Delete { targets }) => {
            if targets.is_empty() {
                return Err(invalid("targets", "must not be empty"));
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_match_loosely() {
        assert_eq!(
            canonical_section("attention-points", &CUMULATIVE_SECTIONS),
            Some("Attention Points")
        );
        assert_eq!(
            canonical_section("whats left", &TASK_SECTIONS),
            Some("What's Left")
        );
        assert_eq!(canonical_section("nope", &TASK_SECTIONS), None);
    }

    #[test]
    fn confidence_ranges_follow_the_seed() {
        let instinct = |c| {
            Body::Instinct(Instinct {
                name: "n".into(),
                trigger: "t".into(),
                action: "a".into(),
                confidence: c,
                evidence: String::new(),
                extra: Vec::new(),
            })
        };
        assert!(validate(&instinct(0.3)).is_ok());
        assert!(validate(&instinct(0.95)).is_err());
        assert!(validate(&instinct(f64::NAN)).is_err());
    }
}
