//! Drift of the code since memory was saved: branch, HEAD ahead/behind, a rewritten or lost
//! saved commit, and records whose named files changed since they were written.

use std::collections::HashMap;

use crate::model::kinds::{Decision, Learning, Session};
use crate::model::{Body, Record, State};
use crate::store::{self, HeadInfo, ObjectId, Store, BRANCHES_PREFIX, DETACHED_REF};
use crate::text::sanitize;
use crate::text::{pretty_time, short};

/// How the code moved since the last save.
#[derive(Debug, Clone, Default)]
pub struct Drift {
    /// Whether any save was found to compare with.
    pub saved: bool,
    pub saved_branch: Option<String>,
    pub saved_head: Option<String>,
    pub saved_at: Option<String>,
    pub branch: Option<String>,
    pub head: Option<String>,
    pub branch_changed: bool,
    /// Commits in HEAD not in the saved commit.
    pub ahead: Option<usize>,
    /// Commits in the saved commit not in HEAD.
    pub behind: Option<usize>,
    pub saved_commit_missing: bool,
    /// Records naming files whose content changed since the record was written.
    pub stale: Vec<Stale>,
    /// How to make counting `ahead`/`behind` fast, when it read much of the history and nothing
    /// could be kept for next time (no commit-graph).
    pub hint: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Stale {
    pub id: String,
    pub kind: &'static str,
    pub title: String,
    pub files: Vec<String>,
}

impl Drift {
    /// The report as `status` prints it: a line about the last save, then [`Drift::lines`]
    /// indented.
    pub fn text(&self) -> String {
        let mut out = String::new();
        if !self.saved {
            out.push_str("no save yet: run `git rune save -m \"summary\"` to record the session\n");
        } else {
            let at = self
                .saved_at
                .as_deref()
                .map(pretty_time)
                .unwrap_or_default();
            let head = self
                .saved_head
                .as_deref()
                .map(short)
                .unwrap_or("(before the first commit)");
            let branch = sanitize(self.saved_branch.as_deref().unwrap_or("(detached)"));
            let (no, colon) = if self.any() { ("", ":") } else { ("no ", "") };
            out.push_str(&format!(
                "{no}drift since the last save ({at}, {branch} @ {head}){colon}\n"
            ));
        }
        for line in self.lines() {
            out.push_str(&format!("  {line}\n"));
        }
        out
    }

    /// One line per thing that moved (empty when nothing did).
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.branch_changed {
            out.push(format!(
                "branch changed: saved on {}, now on {}",
                sanitize(self.saved_branch.as_deref().unwrap_or("(detached)")),
                sanitize(self.branch.as_deref().unwrap_or("(detached)"))
            ));
        }
        if self.saved_commit_missing {
            out.push(
                "the saved commit no longer exists (rewritten or garbage-collected)".to_owned(),
            );
        }
        if let (Some(a), Some(b)) = (self.ahead, self.behind) {
            if self.saved_head.is_none() && a > 0 {
                out.push(format!(
                    "{a} commit{} since the last save, which was made before the first commit",
                    if a == 1 { "" } else { "s" }
                ));
            } else if a > 0 || b > 0 {
                out.push(format!(
                    "HEAD is {a} commit{} ahead of and {b} behind the saved commit",
                    if a == 1 { "" } else { "s" }
                ));
            }
        }
        for s in &self.stale {
            out.push(format!(
                "stale {} {:?}: {} changed since it was recorded",
                s.kind,
                sanitize(&s.title),
                sanitize(&s.files.join(", "))
            ));
        }
        out
    }

    /// True when something moved that a reader should hear about.
    pub fn any(&self) -> bool {
        self.branch_changed
            || self.ahead.unwrap_or(0) > 0
            || self.behind.unwrap_or(0) > 0
            || self.saved_commit_missing
            || !self.stale.is_empty()
    }
}

/// Where the code's files are read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    /// The work tree, as it is now.
    WorkTree,
    /// A commit's tree (memory as of that commit: `load --at`).
    Commit(ObjectId),
}

/// For records found stale, the commit whose note carries each (its implementing commit):
/// a record whose files changed only there is not stale. Given the candidates' ids; the
/// notes layer answers.
pub type Carriers<'a> = &'a dyn Fn(&[&str]) -> store::Result<HashMap<String, ObjectId>>;

/// Compares the last save with the code. The last save is the newest session on the current
/// branch's ref, or, when that has none, the newest on any branch. `head` is where the code
/// is; `state` the folded memory of the branch whose session-state ref is `branch_ref`; `code`
/// where files are read.
pub fn drift(
    store: &Store,
    head: &HeadInfo,
    state: &State,
    branch_ref: &str,
    code: Code,
    carriers: Carriers<'_>,
) -> store::Result<Drift> {
    let mut d = Drift {
        branch: head.branch.clone(),
        head: head.head.map(|h| h.to_string()),
        ..Drift::default()
    };
    d.stale = stale_records(store, &state.decisions, &state.learnings, code, carriers)?;

    let session = match state.last_session() {
        Some(s) => Some(s.clone()),
        None => newest_session_elsewhere(store, branch_ref)?,
    };
    let Some(session) = session else {
        return Ok(d);
    };
    let Body::Session(Session { git: Some(git), .. }) = &session.body else {
        return Ok(d);
    };
    d.saved = true;
    d.saved_at = Some(session.meta.ts.clone());
    d.saved_branch = git.branch.clone();
    d.saved_head = git.head.clone();
    d.branch_changed = git.branch != head.branch;
    let saved = git
        .head
        .as_deref()
        .and_then(|h| ObjectId::from_hex(h.as_bytes()).ok());
    let counting = |e: store::AheadBehindError| store::StoreError::Git {
        context: "cannot count commits since the last save".into(),
        source: Box::new(e),
    };
    match (saved, head.head) {
        (Some(saved), Some(now)) => {
            if store.has_object(saved) {
                let (ab, cost) = store.ahead_behind_cost(saved, now).map_err(counting)?;
                d.hint = cost.hint();
                d.ahead = Some(ab.ahead);
                d.behind = Some(ab.behind);
            } else {
                d.saved_commit_missing = true;
            }
        }
        (Some(saved), None) => d.saved_commit_missing = !store.has_object(saved),
        // Saved before the first commit: everything committed since is ahead.
        (None, Some(now)) => {
            d.ahead = Some(store.commits_reachable(now).map_err(counting)?);
            d.behind = Some(0);
        }
        (None, None) => {}
    }
    Ok(d)
}

fn newest_session_elsewhere(store: &Store, current: &str) -> store::Result<Option<Record>> {
    let mut best: Option<Record> = None;
    for name in store.memory_refs()? {
        if name == current || !(name.starts_with(BRANCHES_PREFIX) || name == DETACHED_REF) {
            continue;
        }
        let (_, records) = store.records(&name)?;
        for r in records.iter() {
            if matches!(r.body, Body::Session(Session { .. }))
                && best.as_ref().is_none_or(|b| r.order_key() > b.order_key())
            {
                best = Some(r.clone());
            }
        }
    }
    Ok(best)
}

/// Records whose named files no longer hash to the blob ids kept in the record, nor to the
/// ones they had in the commit whose note carries the record (the commit that implemented
/// it: a decision recorded before the code it is about is not stale because of that code).
pub fn stale_records(
    store: &Store,
    decisions: &[Record],
    learnings: &[Record],
    code: Code,
    carriers: Carriers<'_>,
) -> store::Result<Vec<Stale>> {
    let workdir = store.workdir();
    if workdir.is_none() && code == Code::WorkTree {
        return Ok(Vec::new());
    }
    let blob_now = |path: &str| -> String {
        let id = match code {
            Code::WorkTree => workdir.and_then(|w| store.file_blob_id(&w.join(path))),
            Code::Commit(c) => store.blob_in_commit(c, path),
        };
        id.map(|id| id.to_string()).unwrap_or_default()
    };
    let mut cache: HashMap<&str, String> = HashMap::new();
    let mut out: Vec<Stale> = Vec::new();
    for r in decisions.iter().chain(learnings) {
        let (title, file_blobs, kind) = match &r.body {
            Body::Decision(Decision {
                title, file_blobs, ..
            }) => (title, file_blobs, "decision"),
            Body::Learning(Learning {
                key, file_blobs, ..
            }) => (key, file_blobs, "learning"),
            _ => continue,
        };
        let changed: Vec<String> = file_blobs
            .iter()
            .filter(|(path, then)| {
                let now = cache.entry(path.as_str()).or_insert_with(|| blob_now(path));
                now != *then
            })
            .map(|(p, _)| p.clone())
            .collect();
        if !changed.is_empty() {
            out.push(Stale {
                id: r.id.clone(),
                kind,
                title: title.clone(),
                files: changed,
            });
        }
    }
    if out.is_empty() {
        return Ok(out);
    }
    // The files as the carrying commit left them are the record's baseline too.
    let ids: Vec<&str> = out.iter().map(|s| s.id.as_str()).collect();
    let carried = carriers(&ids)?;
    out.retain_mut(|s| {
        let Some(commit) = carried.get(&s.id) else {
            return true;
        };
        s.files.retain(|path| {
            let then = store
                .blob_in_commit(*commit, path)
                .map(|id| id.to_string())
                .unwrap_or_default();
            cache.get(path.as_str()).is_none_or(|now| *now != then)
        });
        !s.files.is_empty()
    });
    Ok(out)
}
