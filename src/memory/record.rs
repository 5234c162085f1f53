//! Recording one thing at a time (the record commands): one sealed record, or the few that
//! go with it (an instinct replacing its namesake, a checkpoint resolving the open one).

use anyhow::Result;

use super::seal::{Sealed, Sealer};
use super::write::{append, write_records, Written};
use crate::error;
use crate::model::fold::{instinct_confidence, MAX_INSTINCTS};
use crate::model::kinds::{
    Checkpoint, Convention, Decision, Delete, Instinct, Learning, Progress, Resolve,
};
use crate::model::{Body, Draft, GitState, LearningType, Scope};
use crate::store::Store;

/// A decision as a caller states it (the command line, an MCP tool call).
#[derive(Debug, Clone)]
pub struct NewDecision {
    pub title: String,
    pub context: String,
    pub decision: String,
    pub rationale: String,
    pub impact: String,
    /// Files the decision is about; their blobs now are recorded so `load` can mark it stale.
    pub files: Vec<String>,
}

impl NewDecision {
    pub fn body(self, store: &Store) -> Body {
        Body::Decision(Decision {
            title: self.title,
            context: self.context,
            decision: self.decision,
            rationale: self.rationale,
            impact: self.impact,
            file_blobs: store.file_blobs(&self.files),
            files: self.files,
            extra: Vec::new(),
        })
    }
}

/// A convention as a caller states it.
#[derive(Debug, Clone)]
pub struct NewConvention {
    pub title: String,
    pub pattern: String,
    pub example: String,
    pub applies_to: String,
}

impl NewConvention {
    pub fn body(self) -> Body {
        Body::Convention(Convention {
            title: self.title,
            pattern: self.pattern,
            example: self.example,
            applies_to: self.applies_to,
            extra: Vec::new(),
        })
    }
}

/// A learning as a caller states it.
#[derive(Debug, Clone)]
pub struct NewLearning {
    pub ltype: LearningType,
    pub key: String,
    pub insight: String,
    pub confidence: f64,
    pub skill: String,
    pub files: Vec<String>,
}

impl NewLearning {
    pub fn body(self, store: &Store) -> Body {
        Body::Learning(Learning {
            skill: self.skill,
            ltype: self.ltype,
            key: self.key,
            insight: self.insight,
            confidence: self.confidence,
            file_blobs: store.file_blobs(&self.files),
            files: self.files,
            extra: Vec::new(),
        })
    }
}

/// A checkpoint as a caller states it; the git state is taken when the body is made.
#[derive(Debug, Clone)]
pub struct NewCheckpoint {
    pub doing: String,
    pub left: Vec<String>,
    pub context: Vec<String>,
    pub resume: String,
}

impl NewCheckpoint {
    pub fn body(self, store: &Store) -> Result<Body> {
        Ok(Body::Checkpoint(Checkpoint {
            doing: self.doing,
            left: self.left,
            context: self.context,
            resume: self.resume,
            git: Some(git_state(store)?),
            extra: Vec::new(),
        }))
    }
}

/// The code's state now, as sessions and checkpoints record it.
pub fn git_state(store: &Store) -> Result<GitState> {
    let head = store.head_info()?;
    Ok(GitState {
        branch: head.branch,
        head: head.head.map(|h| h.to_string()),
        upstream: head.upstream,
        dirty: store.dirty_files()?,
    })
}

/// The commit summary of a record: `<verb>: <first line of its headline>`.
fn summary(verb: &str, body: &Body) -> String {
    match body {
        Body::Progress(Progress { .. }) => verb.to_owned(),
        // A record the gate will withhold is not named in its commit's summary.
        _ => crate::integrity::gate::record_summary(verb, body),
    }
}

/// Commits one sealed record to the ref its kind belongs in.
pub fn add(store: &Store, verb: &str, record: Sealed) -> Result<Option<Written>> {
    let scope = record.body().kind().scope().unwrap_or(Scope::Memory);
    let summary = summary(verb, record.body());
    append(store, scope, &summary, vec![record])
}

/// What recording an instinct did besides adding it.
#[derive(Debug)]
pub struct InstinctWritten {
    pub written: Option<Written>,
    /// The least confident instinct, evicted to stay within the cap.
    pub evicted: Option<String>,
}

/// Records an instinct: the same name again replaces it (the fold's max-confidence rule is
/// for merges); a new name beyond the cap evicts the least confident, if it is not more
/// confident than the new one.
pub fn instinct(store: &Store, record: Sealed) -> Result<InstinctWritten> {
    let name = record.body().title().to_owned();
    let summary = crate::integrity::gate::record_summary("instinct", record.body());
    let confidence = match record.body() {
        Body::Instinct(Instinct { confidence, .. }) => *confidence,
        _ => 0.0,
    };
    let mut evicted = None;
    let written = write_records(store, Scope::Memory, &summary, |state| {
        let same: Vec<String> = state
            .instincts
            .iter()
            .filter(|r| r.body.title() == name)
            .map(|r| r.id.clone())
            .collect();
        evicted = None;
        if same.is_empty() && state.instincts.len() >= MAX_INSTINCTS {
            evicted = state
                .instincts
                .iter()
                .min_by(|x, y| instinct_confidence(x).total_cmp(&instinct_confidence(y)))
                .filter(|low| instinct_confidence(low) <= confidence)
                // Named through the gate: the one evicted may be withheld.
                .map(crate::integrity::gate::shown_title);
            if evicted.is_none() {
                return Err(error::input(
                        format!(
                            "instincts are full ({MAX_INSTINCTS} kept) and all are more confident than {confidence}"
                        ),
                        "raise --confidence, or remove an instinct from .rune/instincts.md and `git rune save`",
                    ));
            }
        }
        Ok(vec![record.clone().superseding(same)])
    })?;
    Ok(InstinctWritten { written, evicted })
}

/// Instincts older than this many days (since last recorded) with a confidence below
/// [`PRUNE_CONFIDENCE`] are pruned at session start (seed 000).
pub const PRUNE_DAYS: i64 = 30;
pub const PRUNE_CONFIDENCE: f64 = 0.5;

/// Prunes stale weak instincts as a recorded delete (so every clone agrees, and history keeps
/// them): run when a session starts (`load`, the SessionStart hook). `state` is memory as the
/// caller read it: when none of its instincts is stale nothing is read or written. Returns
/// what was pruned.
pub fn prune_instincts(
    store: &Store,
    state: &crate::model::State,
    now: &str,
) -> Result<Option<(Written, usize)>> {
    let stale = |state: &crate::model::State| -> Vec<String> {
        state
            .instincts
            .iter()
            .filter(|r| {
                instinct_confidence(r) < PRUNE_CONFIDENCE
                    && crate::text::days_between(&r.meta.ts, now) > PRUNE_DAYS
            })
            .map(|r| r.id.clone())
            .collect()
    };
    if stale(state).is_empty() {
        return Ok(None);
    }
    let mut sealer = Sealer::default();
    let mut pruned = 0;
    let written = write_records(store, Scope::Memory, "prune stale instincts", |state| {
        let targets = stale(state);
        pruned = targets.len();
        if targets.is_empty() {
            return Ok::<_, anyhow::Error>(Vec::new());
        }
        Ok(vec![sealer.seal(
            Draft::new(Body::Delete(Delete { targets })),
            &|f, _| f.into(),
        )?])
    })?;
    Ok(written.map(|w| (w, pruned)))
}

/// Marks this branch's oracle dispatches still pending more than
/// [`crate::model::oracle::ORPHAN_HOURS`] hours after they were dispatched as orphaned (seed
/// 000's session-start cleanup): a recorded status change superseding each, never a delete,
/// so clones agree and history keeps them. `state` is memory as the caller read it: when
/// nothing is due nothing is read or written. Returns how many were marked.
pub fn orphan_oracles(
    store: &Store,
    state: &crate::model::State,
    now: &str,
) -> Result<Option<(Written, usize)>> {
    if crate::model::oracle::orphans(state, now).is_empty() {
        return Ok(None);
    }
    let mut sealer = Sealer::default();
    let mut marked = 0;
    let written = write_records(
        store,
        Scope::Branch,
        "oracle: mark stale dispatches orphaned",
        |state| {
            let due = crate::model::oracle::orphans(state, now);
            marked = due.len();
            due.into_iter()
                .map(|(r, body)| {
                    Ok::<_, anyhow::Error>(sealer.seal_body(body, vec![r.id.clone()])?)
                })
                .collect()
        },
    )?;
    Ok(written.map(|w| (w, marked)))
}

/// Sets the branch's checkpoint: one open checkpoint per branch, so the new one resolves
/// whatever was open (it stays in history).
pub fn checkpoint(store: &Store, record: Sealed) -> Result<Option<Written>> {
    let mut sealer = Sealer::default();
    let summary = summary("checkpoint", record.body());
    write_records(store, Scope::Branch, &summary, |state| {
        let mut out = resolve_open(&mut sealer, state)?;
        out.push(record.clone());
        Ok::<_, anyhow::Error>(out)
    })
}

/// The branch's open checkpoint, resolved too when `done` (it stays in history). A checkpoint
/// stays open until then, until a new checkpoint replaces it, or until checkpoint.md is
/// removed; reading it changes nothing.
pub fn resume(
    store: &Store,
    done: bool,
) -> Result<(Option<crate::model::Record>, Option<Written>)> {
    if !done {
        let snap = super::Snapshot::read(store)?;
        return Ok((snap.state.open_checkpoint().cloned(), None));
    }
    let mut sealer = Sealer::default();
    let mut resumed = None;
    let written = write_records(store, Scope::Branch, "resume", |state| {
        resumed = state.open_checkpoint().cloned();
        resolve_open(&mut sealer, state)
    })?;
    Ok((resumed, written))
}

/// Resolve records for every unresolved checkpoint.
fn resolve_open(sealer: &mut Sealer, state: &crate::model::State) -> Result<Vec<Sealed>> {
    state
        .checkpoints
        .iter()
        .filter(|c| !state.resolved.contains(&c.id))
        .map(|c| {
            let body = Body::Resolve(Resolve {
                target: c.id.clone(),
            });
            Ok(sealer.seal(Draft::new(body), &|f, _| f.into())?)
        })
        .collect()
}
