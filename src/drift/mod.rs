//! Drift of the code since memory was saved: branch, HEAD ahead/behind, a rewritten or lost
//! saved commit, and records whose named files changed since they were written.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use crate::integrity::gate::{self, Gate};
use crate::model::kinds::{Decision, Learning, Session};
use crate::model::{decode_line, Body, LearningType, Record};
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

/// A record whose named files changed since it was written.
#[derive(Debug, Clone)]
pub struct Stale {
    pub id: String,
    pub kind: &'static str,
    pub title: String,
    pub files: Vec<String>,
    /// The load gate's verdict of the record: a withheld one's title and files are record
    /// text, never shown ([`Stale::line`]).
    pub gate: Gate,
}

impl Stale {
    /// The line every reader shows, through the gate: a withheld record is named by its kind
    /// and how many of its files changed, a suspicious one marked with the rules that fired.
    pub fn line(&self) -> String {
        let (kind, title, files) = (self.kind, sanitize(&self.title), self.files.join(", "));
        match &self.gate {
            Gate::Withheld => {
                let n = self.files.len();
                let (s, has) = if n == 1 { ("", "has") } else { ("s", "have") };
                format!("a stale {kind} (withheld as TAINTED by the integrity check): {n} file{s} it names {has} changed since it was recorded")
            }
            Gate::Suspicious(rules) => format!(
                "[SUSPICIOUS: {}] stale {kind} {title:?}: {} changed since it was recorded",
                rules.join(", "),
                sanitize(&files)
            ),
            Gate::Clean => format!(
                "stale {kind} {title:?}: {} changed since it was recorded",
                sanitize(&files)
            ),
        }
    }
}

/// A record drift watches: a decision or learning that names files, as much of it as drift
/// reads, and its stored line, decoded only when the record is found stale (for the gate).
/// `load`'s digest keeps these rather than whole records, so a reader decodes a few strings
/// per record instead of its JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Watched {
    pub id: String,
    /// The learning's type; `None` for a decision.
    pub ltype: Option<LearningType>,
    /// The decision's title, or the learning's key.
    pub title: String,
    /// The files named, with their blob ids when the record was written.
    pub file_blobs: BTreeMap<String, String>,
    pub ts: String,
    pub clock: u64,
    /// The record as stored (its line).
    pub line: String,
}

impl Watched {
    /// What drift watches of `r`: nothing unless it is a decision or learning naming files.
    pub fn of(r: &Record) -> Option<Watched> {
        let (ltype, title, file_blobs) = match &r.body {
            Body::Decision(Decision {
                title, file_blobs, ..
            }) => (None, title, file_blobs),
            Body::Learning(Learning {
                ltype,
                key,
                file_blobs,
                ..
            }) => (Some(*ltype), key, file_blobs),
            _ => return None,
        };
        (!file_blobs.is_empty()).then(|| Watched {
            id: r.id.clone(),
            ltype,
            title: title.clone(),
            file_blobs: file_blobs.clone(),
            ts: r.meta.ts.clone(),
            clock: r.meta.clock,
            line: r.to_line(),
        })
    }

    pub fn is_decision(&self) -> bool {
        self.ltype.is_none()
    }

    /// A learning's group (its type and key: the latest of a group wins).
    pub fn group(&self) -> Option<(LearningType, &str)> {
        self.ltype.map(|t| (t, self.title.as_str()))
    }

    /// [`Record::order_key`] of the record.
    pub fn order_key(&self) -> (&str, u64, &str) {
        (&self.ts, self.clock, &self.id)
    }

    /// The gate's verdict of the record: known already (this process's, or one an earlier
    /// reader kept), or scanned from its line decoded (withheld when it no longer decodes).
    fn gate(&self) -> Gate {
        gate::known(&self.line)
            .unwrap_or_else(|| decode_line(&self.line).map_or(Gate::Withheld, |r| gate::gate(&r)))
    }
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
        self.lines_naming(usize::MAX)
    }

    /// [`Drift::lines`] naming at most `stale` stale records, the rest counted in one line.
    pub fn lines_naming(&self, stale: usize) -> Vec<String> {
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
        out.extend(self.stale.iter().take(stale).map(Stale::line));
        let more = self.stale.len().saturating_sub(stale);
        if more > 0 {
            let (s, name) = if more == 1 {
                ("", "names")
            } else {
                ("s", "name")
            };
            out.push(format!("{more} more record{s} {name} files changed since they were recorded (`git rune status` lists them)"));
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

/// Compares the last save with the code. The last save is `last_session` (the newest session
/// on the current branch's ref) or, when that has none, the newest on any branch. `head` is
/// where the code is; `watched` the records naming files of the memory of the branch whose
/// session-state ref is `branch_ref`, decisions first; `code` where files are read.
pub fn drift(
    store: &Store,
    head: &HeadInfo,
    watched: &[Watched],
    last_session: Option<&Record>,
    branch_ref: &str,
    code: Code,
    carriers: Carriers<'_>,
) -> store::Result<Drift> {
    let mut d = Drift {
        branch: head.branch.clone(),
        head: head.head.map(|h| h.to_string()),
        ..Drift::default()
    };
    d.stale = stale_records(store, watched, code, carriers)?;

    let session = match last_session {
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
/// Each carries the gate's verdict of its record.
pub fn stale_records(
    store: &Store,
    watched: &[Watched],
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
    // (record, files changed) of the records whose files changed.
    let mut out: Vec<(&Watched, Vec<String>)> = Vec::new();
    for w in watched {
        let changed: Vec<String> = w
            .file_blobs
            .iter()
            .filter(|(path, then)| {
                let now = cache.entry(path.as_str()).or_insert_with(|| blob_now(path));
                now != *then
            })
            .map(|(p, _)| p.clone())
            .collect();
        if !changed.is_empty() {
            out.push((w, changed));
        }
    }
    if out.is_empty() {
        return Ok(Vec::new());
    }
    // The files as the carrying commit left them are the record's baseline too.
    let ids: Vec<&str> = out.iter().map(|(w, _)| w.id.as_str()).collect();
    let carried = carriers(&ids)?;
    out.retain_mut(|(w, files)| {
        let Some(commit) = carried.get(&w.id) else {
            return true;
        };
        files.retain(|path| {
            let then = store
                .blob_in_commit(*commit, path)
                .map(|id| id.to_string())
                .unwrap_or_default();
            cache.get(path.as_str()).is_none_or(|now| *now != then)
        });
        !files.is_empty()
    });
    // Only what is shown passes the gate (a stale record's line is decoded here, once).
    Ok(out
        .into_iter()
        .map(|(w, files)| Stale {
            id: w.id.clone(),
            kind: if w.is_decision() {
                "decision"
            } else {
                "learning"
            },
            title: w.title.clone(),
            files,
            gate: w.gate(),
        })
        .collect())
}
