//! The `task` record kind: a task of the session protocol, its vocabulary (statuses,
//! priorities, categories, the `TASK_001` ids) and the fold's numbering, which settles two
//! tasks claiming one number. Pure.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use super::skip::{is_empty_str, is_empty_vec, is_false, is_zero};
use super::KindRules;
use crate::model::fields::{extras, Field, Shape};
use crate::model::State;
use crate::model::meta::{Extra};
use super::Record;
use crate::model::validate::{ensure, invalid, require, time_field};
use crate::model::{Body, ValidationError};

/// A task of the branch's list (the seed's session protocol). Edits supersede; every
/// version of one task shares its `uid`. `num` is the `TASK_<num>` the writer claimed at
/// `claimed`; the fold settles two tasks claiming one number (docs/storage.md).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Task {
    /// The task's identity across edits: hex, made when the task was created.
    pub uid: String,
    /// The number claimed (`TASK_007` is 7).
    pub num: u32,
    /// When `num` was claimed (RFC 3339 UTC): the earlier claim keeps a number.
    pub claimed: String,
    pub title: String,
    /// `pending`, `in_progress` or `completed`.
    pub status: String,
    /// `P1`, `P2`, `P3` or empty.
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub priority: String,
    /// `BUGFIX`, `FEATURE`, `CONFIG`, `DOCS`, `TEST`, `REFACTOR` or empty.
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub category: String,
    pub created: String,
    /// When it was completed; empty while it is not.
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub completed: String,
    #[serde(default, skip_serializing_if = "is_false")]
    pub consolidated: bool,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub consolidated_count: u32,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub context: String,
    /// `path` or `path:line`.
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub files: Vec<String>,
    /// Never consolidated (a unique pitfall or lesson).
    #[serde(default, skip_serializing_if = "is_false")]
    pub keep: bool,
    /// Numbers the task was shown under before it was renumbered (`TASK_003`).
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub aliases: Vec<String>,
    /// What the view kept that the fields above do not hold (see [`Extra`]).
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub extra: Vec<Extra>,
}

impl KindRules for Task {
    field_rules!(title: title, extra);

    fn fields_mut(&mut self, f: &mut dyn FnMut(&'static str, Shape, Field<'_>)) {
        f("title", Shape::Line, Field::One(&mut self.title));
        f("context", Shape::Line, Field::One(&mut self.context));
        f(
            "files",
            Shape::Paths { split_commas: true },
            Field::Many(&mut self.files),
        );
        extras(&mut self.extra, Shape::Line, f);
    }

    fn validate(&self) -> Result<(), ValidationError> {
        let uid = &self.uid;
        if uid.is_empty() || !uid.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(invalid("uid", format!("{uid:?} is not hex")));
        }
        ensure(self.num > 0, "num", || "must be 1 or more (TASK_001)")?;
        require("title", &self.title)?;
        let (status, priority, category) = (&self.status, &self.priority, &self.category);
        ensure(STATUSES.contains(&status.as_str()), "status", || {
            format!("{status:?}: use pending, in_progress or completed")
        })?;
        ensure(
            priority.is_empty() || PRIORITIES.contains(&priority.as_str()),
            "priority",
            || format!("{priority:?}: use P1, P2 or P3"),
        )?;
        ensure(
            category.is_empty() || CATEGORIES.contains(&category.as_str()),
            "category",
            || format!("{category:?}: use one of {}", CATEGORIES.join(", ")),
        )?;
        time_field("claimed", &self.claimed)?;
        time_field("created", &self.created)?;
        if !self.completed.is_empty() {
            time_field("completed", &self.completed)?;
        }
        ensure(
            !self.consolidated || self.consolidated_count > 0,
            "consolidated_count",
            || "a consolidated task counts at least one task",
        )?;
        if let Some(a) = self.aliases.iter().find(|a| parse_task_id(a).is_none()) {
            return Err(invalid("aliases", format!("{a:?} is not a task id")));
        }
        Ok(())
    }

    /// The seed's task shape: its `task_id`, `completed` as null while open, the claim time
    /// only in full.
    fn json(&self, full: bool, out: &mut Map<String, Value>) {
        super::stored_json(self, full, out);
        out.remove("num");
        out.insert("task_id".into(), json!(task_id(self.num)));
        if !full {
            out.remove("claimed");
        }
        if self.completed.is_empty() {
            out.insert("completed".into(), Value::Null);
        }
        out.insert("consolidated".into(), json!(self.consolidated));
        out.insert("consolidated_count".into(), json!(self.consolidated_count));
    }

    /// One version per `uid` (concurrent edits: the newest by clock, then time, then id),
    /// numbered by [`number_tasks`]; the records it renumbered go into `state.renumbered`.
    fn fold(live: Vec<&Record>, state: &mut State) -> Vec<Record> {
        let mut winner: HashMap<&str, &Record> = HashMap::new();
        for r in live {
            let Body::Task(t) = &r.body else {
                continue;
            };
            let slot = winner.entry(&t.uid).or_insert(r);
            if (r.meta.clock, &r.meta.ts, &r.id) > (slot.meta.clock, &slot.meta.ts, &slot.id) {
                *slot = r;
            }
        }
        let (tasks, renumbered) = number_tasks(winner.into_values().collect());
        state.renumbered = renumbered;
        tasks
    }
}

impl Body {
    /// A task's number (0 for a record of another kind).
    pub fn task_num(&self) -> u32 {
        match self {
            Body::Task(t) => t.num,
            _ => 0,
        }
    }
}

/// The numbers tasks show. Each task keeps the number it claimed unless an earlier claim
/// (`claimed`, then `uid`) holds it: then (a number claimed twice, by two clones or two
/// processes) the later claimants, in claim order, take the numbers after the highest one
/// kept, and their old number becomes an alias. Depends only on the set of tasks.
pub fn number_tasks(mut tasks: Vec<&Record>) -> (Vec<Record>, HashSet<String>) {
    let claim = |r: &Record| match &r.body {
        Body::Task(t) => (t.claimed.clone(), t.uid.clone(), t.num),
        _ => (String::new(), String::new(), 0),
    };
    tasks.sort_by_key(|r| claim(r));
    let mut taken: HashSet<u32> = HashSet::new();
    let mut losers = Vec::new();
    let mut out: Vec<Record> = Vec::with_capacity(tasks.len());
    for r in tasks {
        let (_, _, num) = claim(r);
        if num > 0 && taken.insert(num) {
            out.push(r.clone());
        } else {
            losers.push(r);
        }
    }
    let mut next = taken.iter().max().copied().unwrap_or(0);
    let mut renumbered = HashSet::new();
    for r in losers {
        next += 1;
        let mut moved = r.clone();
        if let Body::Task(t) = &mut moved.body {
            if t.num > 0 {
                let old = task_id(t.num);
                if !t.aliases.contains(&old) {
                    t.aliases.push(old);
                }
            }
            t.num = next;
        }
        renumbered.insert(moved.id.clone());
        out.push(moved);
    }
    out.sort_by_key(|r| r.body.task_num());
    (out, renumbered)
}

/// Task statuses, in the order the view lists them.
pub const STATUSES: [&str; 3] = ["in_progress", "pending", "completed"];
pub const PENDING: &str = "pending";
pub const IN_PROGRESS: &str = "in_progress";
pub const COMPLETED: &str = "completed";
pub const PRIORITIES: [&str; 3] = ["P1", "P2", "P3"];
pub const CATEGORIES: [&str; 6] = ["BUGFIX", "FEATURE", "CONFIG", "DOCS", "TEST", "REFACTOR"];

/// `TASK_007` for 7 (at least three digits, more when needed).
pub fn task_id(num: u32) -> String {
    format!("TASK_{num:03}")
}

/// 7 for `TASK_007`, `task_7`, `7` or `#7`; `None` for anything else (and for 0).
pub fn parse_task_id(s: &str) -> Option<u32> {
    let s = s.trim();
    let digits = match s.get(..5) {
        Some(p) if p.eq_ignore_ascii_case("task_") => &s[5..],
        _ => s.strip_prefix('#').unwrap_or(s),
    };
    if digits.is_empty() || digits.len() > 9 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok().filter(|n| *n > 0)
}

/// A task's identity: 16 hex digits of the sha256 of `seed` (the writer puts the time, its
/// process, the title and a counter in it; clones never share one).
pub fn new_uid(seed: &str) -> String {
    let digest = Sha256::digest(seed.as_bytes());
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// The next number a new task claims: one past the highest any task in `state` shows or
/// was shown under.
pub fn next_number(state: &State) -> u32 {
    state
        .tasks
        .iter()
        .flat_map(|r| match &r.body {
            Body::Task(Task { num, aliases, .. }) => std::iter::once(*num)
                .chain(aliases.iter().filter_map(|a| parse_task_id(a)))
                .collect::<Vec<_>>(),
            _ => Vec::new(),
        })
        .max()
        .unwrap_or(0)
        + 1
}

/// Fills what a task read from the view (or written by an agent's todo list) leaves out:
/// a new task gets an identity (`salt` makes it unique to this writer), a number (`next`,
/// counted up) claimed `now`, and `now` as its creation time; a task marked completed
/// without a time is completed `now`; a task no longer completed loses its time.
pub fn complete(body: &mut Body, next: &mut u32, now: &str, salt: &str) {
    if let Body::Task(t) = body {
        if t.uid.is_empty() {
            t.uid = new_uid(&format!("{salt}\0{now}\0{}\0{next}", t.title));
        }
        if t.num == 0 {
            t.num = *next;
            *next += 1;
            t.claimed.clear();
        }
        if t.claimed.is_empty() {
            t.claimed = now.to_owned();
        }
        if t.created.is_empty() {
            t.created = now.to_owned();
        }
        if t.status == COMPLETED && t.completed.is_empty() {
            t.completed = now.to_owned();
        } else if t.status != COMPLETED {
            t.completed.clear();
        }
    }
}

/// What makes a writer's new task ids its own: the process and the clock to the nanosecond.
pub fn salt() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{}:{nanos}", std::process::id())
}

/// The seed's summary of a task list: counts, the consolidated groups, the next task.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    pub pending: usize,
    pub in_progress: usize,
    /// Completed tasks shown (individual ones and consolidated groups).
    pub done: usize,
    /// Consolidated groups among `done`, and how many tasks they stand for.
    pub groups: usize,
    pub consolidated: usize,
    /// The first in-progress task (lowest number), else the pending one with the highest
    /// priority (P1 first, none last), then the lowest number: (number, title).
    pub next: Option<(u32, String)>,
    /// When the list last changed (the newest task record), RFC 3339.
    pub updated: Option<String>,
}

impl Summary {
    pub fn of(tasks: &[Record]) -> Summary {
        let mut s = Summary::default();
        let mut next: Option<(u8, u8, u32, String)> = None;
        for r in tasks {
            let Body::Task(t) = &r.body else {
                continue;
            };
            if s.updated.as_deref().is_none_or(|u| u < r.meta.ts.as_str()) {
                s.updated = Some(r.meta.ts.clone());
            }
            let rank = match t.status.as_str() {
                IN_PROGRESS => {
                    s.in_progress += 1;
                    0
                }
                PENDING => {
                    s.pending += 1;
                    1
                }
                _ => {
                    s.done += 1;
                    if t.consolidated {
                        s.groups += 1;
                        s.consolidated += t.consolidated_count as usize;
                    }
                    continue;
                }
            };
            let prio = match t.priority.as_str() {
                "P1" => 1,
                "P2" => 2,
                "P3" => 3,
                _ => 4,
            };
            let prio = if rank == 0 { 0 } else { prio };
            let key = (rank, prio, t.num, t.title.clone());
            if next.as_ref().is_none_or(|n| key < *n) {
                next = Some(key);
            }
        }
        s.next = next.map(|(_, _, n, t)| (n, t));
        s
    }

    /// `3 pend, 1 prog, 8 done (1 consolidated from 12)`.
    pub fn counts(&self) -> String {
        let mut t = format!(
            "{} pend, {} prog, {} done",
            self.pending, self.in_progress, self.done
        );
        if self.groups > 0 {
            t.push_str(&format!(
                " ({} consolidated from {})",
                self.groups, self.consolidated
            ));
        }
        t
    }

    /// `Next: TASK_001 - Fix auth`, or `Next: none`.
    pub fn next_line(&self) -> String {
        match &self.next {
            Some((n, t)) => format!("Next: {} - {t}", task_id(*n)),
            None => "Next: none".to_owned(),
        }
    }

    /// The seed's save report: `Saved 3 pend, 3 done (5 consolidated). Next: TASK_001 - Fix
    /// auth`.
    pub fn saved_line(&self) -> String {
        let mut t = format!(
            "Saved {} pend, {} done",
            self.pending + self.in_progress,
            self.done
        );
        if self.consolidated > 0 {
            t.push_str(&format!(" ({} consolidated)", self.consolidated));
        }
        format!("{t}. {}", self.next_line())
    }
}

/// Age in whole days or hours between two RFC 3339 times: `2d`, `5h`, `0h`.
pub fn age(from: &str, now: &str) -> String {
    let p = |t: &str| chrono::DateTime::parse_from_rfc3339(t).ok();
    match (p(from), p(now)) {
        (Some(a), Some(b)) => {
            let h = (b - a).num_hours().max(0);
            if h >= 24 {
                format!("{}d", h / 24)
            } else {
                format!("{h}h")
            }
        }
        _ => "?".to_owned(),
    }
}

/// The canonical spelling of a status (`in-progress`, `In Progress`, `done` accepted).
pub fn canonical_status(s: &str) -> Option<&'static str> {
    let norm: String = s
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    match norm.as_str() {
        "pending" | "todo" | "open" => Some(PENDING),
        "inprogress" | "started" | "doing" => Some(IN_PROGRESS),
        "completed" | "done" | "complete" => Some(COMPLETED),
        _ => None,
    }
}

/// The canonical spelling of a priority (`p1` → `P1`).
pub fn canonical_priority(s: &str) -> Option<&'static str> {
    PRIORITIES
        .into_iter()
        .find(|p| p.eq_ignore_ascii_case(s.trim()))
}

/// The canonical spelling of a category (`bugfix` → `BUGFIX`).
pub fn canonical_category(s: &str) -> Option<&'static str> {
    CATEGORIES
        .into_iter()
        .find(|c| c.eq_ignore_ascii_case(s.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_read_and_write() {
        assert_eq!(task_id(7), "TASK_007");
        assert_eq!(task_id(1234), "TASK_1234");
        for s in ["TASK_007", "task_7", "7", "#7", " TASK_0007 "] {
            assert_eq!(parse_task_id(s), Some(7), "{s}");
        }
        for s in ["TASK_", "TASK_x", "0", "", "TASK_-1", "99999999999"] {
            assert_eq!(parse_task_id(s), None, "{s}");
        }
    }

    #[test]
    fn spellings_are_canonical() {
        assert_eq!(canonical_status("In Progress"), Some(IN_PROGRESS));
        assert_eq!(canonical_status("done"), Some(COMPLETED));
        assert_eq!(canonical_priority("p2"), Some("P2"));
        assert_eq!(canonical_category("bugfix"), Some("BUGFIX"));
        assert_eq!(canonical_category("chore"), None);
        assert_eq!(new_uid("a").len(), 16);
    }
}
