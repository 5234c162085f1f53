//! The session's edges: SessionStart hands the agent its memory, PreCompact saves the state
//! and writes the compaction summary, Stop and SessionEnd save what the agent left in the
//! view. Each opens the repository (they run a few times per session, not per tool call).

use std::path::Path;

use anyhow::Result;

use super::answer::Answer;
use super::payload::Payload;
use super::summary::{self, Summary};
use crate::context::artifacts;
use crate::context::health::Thresholds;
use crate::context::mode::{self, CAVEMAN};
use crate::context::session::{self, Session};
use crate::integrity::gate::{gate, Gate};
use crate::memory::load::{quoted, FRAME_CLOSE, FRAME_OPEN};
use crate::memory::record;
use crate::memory::save::{save, SaveOptions};
use crate::memory::seal::Sealer;
use crate::memory::view_dir::{View, VIEW_DIR};
use crate::model::Draft;
use crate::notes::at::{snapshot, with_briefing};
use crate::store::{Store, HOOK_PATIENCE};

/// The token budget of the memory SessionStart hands over (`rune.agent.loadBudget`).
pub const LOAD_BUDGET: usize = 2000;

fn open(start: &Path) -> Result<Store> {
    let store = Store::open(start)?;
    // A lock another process holds must not stall the agent.
    store.set_lock_patience(HOOK_PATIENCE);
    Ok(store)
}

/// The context thresholds set in git config (`rune.context.*`), over the defaults; a bad
/// setting is logged (by name) and the defaults used, so it never costs the agent its memory.
fn thresholds(store: &Store) -> Thresholds {
    Thresholds::from_settings(|key| store.config_string(key)).unwrap_or_else(|e| {
        super::answer::log(store.git_dir(), "settings", &e);
        Thresholds::default()
    })
}

/// A new session's counters: thresholds from config, the decisions already in memory.
pub fn new_session(start: &Path, id: &str) -> Result<Session> {
    let store = Store::open(start)?;
    Ok(fresh(&store, id, None))
}

/// A new session; `decisions` in memory now, when the caller has read them already.
fn fresh(store: &Store, id: &str, decisions: Option<usize>) -> Session {
    let mut s = Session::new(id, &store.now());
    s.thresholds = Some(thresholds(store));
    s.decisions_at_start = decisions
        .or_else(|| {
            snapshot(store, None)
                .ok()
                .map(|snap| snap.state.decisions.len())
        })
        .unwrap_or(0);
    s
}

/// SessionStart: memory (budgeted, gated, framed as quoted data), a date marker, the
/// active mode and output density, and after a compaction the summary saved before it. The
/// session's tool counter starts again from zero.
pub fn session_start(start: &Path, payload: &Payload<'_>) -> Result<Answer> {
    let store = open(start)?;
    let git_dir = store.git_dir().to_path_buf();
    // Memory a plain `git fetch` (or `git pull`) brought is merged first, as every command
    // does: a teammate's records are in the new session's briefing.
    // What it refused (a teammate's record holding a secret) is logged like a hook failure.
    match crate::sync::merge_fetched(&store) {
        Ok(reports) => {
            for w in reports.iter().flat_map(crate::sync::SyncReport::warnings) {
                super::answer::log(&git_dir, "SessionStart", &w);
            }
        }
        Err(e) => super::answer::log(
            &git_dir,
            "SessionStart",
            &format!("memory fetched from a remote not merged: {e:#}"),
        ),
    }
    session::clean(&git_dir);
    let id = payload.session();
    let source = payload.source.as_deref().unwrap_or("startup");
    let now = store.now();
    let budget = store
        .config_string("rune.agent.loadBudget")
        .and_then(|b| b.trim().parse().ok())
        .filter(|b| *b > 0)
        .unwrap_or(LOAD_BUDGET);
    // The briefing `load` gives, the decisions a new session starts from, and after a
    // compaction the summary saved before it: one read of memory.
    let briefed = with_briefing(&store, None, budget, false, |b, state| {
        let summary = (source == "compact")
            .then(|| state.open_checkpoint())
            .flatten()
            .and_then(|cp| match gate(cp) {
                Gate::Withheld => Some("(summary withheld as TAINTED by the integrity check; inspect with `git rune verify`)\n".to_owned()),
                _ => summary::shown(cp),
            });
        (b.text(), b.totals.decisions, summary)
    })?;
    if let Some(e) = &briefed.prune_error {
        super::answer::log(
            &git_dir,
            "SessionStart",
            &format!("stale instincts not pruned: {e:#}"),
        );
    }
    if let Some(e) = &briefed.orphan_error {
        super::answer::log(
            &git_dir,
            "SessionStart",
            &format!("stale oracle dispatches not marked orphaned: {e:#}"),
        );
    }
    let (briefing, decisions, compacted) = briefed.out;
    let mut s = match session::read(&git_dir, id) {
        // The same conversation goes on: keep what it touched, count tool calls afresh.
        Some(old) if matches!(source, "resume" | "compact") => old,
        _ => fresh(&store, id, Some(decisions)),
    };
    s.reset_counter();
    if source == "compact" {
        s.compactions += 1;
    }
    s.thresholds = Some(thresholds(&store));

    let view_dir = View::open(&store).map(|v| v.dir);
    if let Some(dir) = &view_dir {
        let days = store
            .config_string("rune.artifacts.maxAgeDays")
            .and_then(|d| d.trim().parse().ok())
            .unwrap_or(artifacts::MAX_AGE_DAYS);
        artifacts::prune(dir, days);
    }

    let mut out = format!(
        "git-rune: session context of {} (UTC). What follows was recorded earlier: anything dated before today is history, not the current state of the code.\n\n",
        &now[..now.len().min(10)]
    );
    out.push_str(&briefing);
    if let Some(text) = compacted {
        out.push_str(
            "\nThe context was just compacted. The summary git-rune saved before compaction:\n",
        );
        out.push_str(FRAME_OPEN);
        out.push_str(&quoted(&text));
        out.push_str(FRAME_CLOSE);
    }
    if let Some((name, rules)) = view_dir.as_deref().and_then(mode::active) {
        out.push_str(&format!(
            "\nActive mode: {name} ({VIEW_DIR}/active-context.md)\n"
        ));
        out.push_str(&rules);
        if !rules.ends_with('\n') {
            out.push('\n');
        }
    }
    if mode::density(&git_dir, s.auto_caveman).0 == "caveman" {
        out.push('\n');
        out.push_str(CAVEMAN);
    }
    // A hook that failed since the last session (a view edit refused for a secret, a save that
    // could not run) is never silent: the new session hears of it.
    let (failures, count) = super::answer::unseen_log(&git_dir, 5);
    if count > 0 {
        out.push_str(&format!(
            "\ngit-rune: {count} agent hook failure(s) since the last session start (`git rune agent status` shows the log); what they were trying to record was not saved:\n"
        ));
        for line in failures {
            out.push_str(&format!("- {line}\n"));
        }
    }
    session::write(&git_dir, &s)?;
    Ok(Answer::Context(out))
}

/// PreCompact: save the view's edits, then the compaction summary as the checkpoint.
pub fn pre_compact(start: &Path, payload: &Payload<'_>) -> Result<Answer> {
    let store = open(start)?;
    let s = match session::read(store.git_dir(), payload.session()) {
        Some(s) => s,
        None => fresh(&store, payload.session(), None),
    };
    save_state_in(&store, &s)?;
    Ok(Answer::Silent)
}

/// Saves the state before the context is lost (PreCompact, and PostToolUse at RED): unsaved
/// view edits, then the compaction summary as the branch's checkpoint.
pub fn save_state(start: &Path, s: &Session) -> Result<()> {
    save_state_in(&open(start)?, s)
}

fn save_state_in(store: &Store, s: &Session) -> Result<()> {
    save_edits(store, None)?;
    let snap = snapshot(store, None)?;
    let view_dir = View::open(store).map(|v| v.dir);
    let folded: Vec<String> = view_dir
        .as_deref()
        .map(artifacts::list)
        .unwrap_or_default()
        .into_iter()
        .take(5)
        .map(|(name, _)| format!("{VIEW_DIR}/artifacts/{name}"))
        .collect();
    let summary: Summary = summary::assemble(&snap.state, s, &folded);
    let body = summary
        .checkpoint(Some(record::git_state(store)?))
        .ok_or_else(|| {
            anyhow::anyhow!("the compaction summary did not read back as a checkpoint")
        })?;
    // Redact rather than refuse: losing the state at compaction is worse than a masked line.
    let mut sealer = Sealer::new(true);
    let sealed = sealer.seal(Draft::new(body), &|f, _| f.into())?;
    record::checkpoint(store, sealed)?;
    Ok(())
}

/// Saves unsaved view edits (recording `summary` as the session when given); cheap when the
/// view holds none: its files are compared by stat, never parsed.
fn save_edits(store: &Store, summary: Option<&str>) -> Result<bool> {
    let edited = View::open(store).is_some_and(|v| !v.unsaved().is_empty());
    if !edited && summary.is_none() {
        return Ok(false);
    }
    save(
        store,
        &mut Sealer::default(),
        SaveOptions {
            summary,
            allow_delete: false,
        },
    )?;
    Ok(true)
}

/// Stop (after every response) and SessionEnd: save what the agent left in the view and
/// record the session — at Stop when it touched files since it was last recorded, at
/// SessionEnd when it made any tool call since. Silent, and writes nothing, otherwise.
pub fn stop(start: &Path, payload: &Payload<'_>, end: bool) -> Result<Answer> {
    let store = open(start)?;
    let git_dir = store.git_dir().to_path_buf();
    let mut s = session::read(&git_dir, payload.session());
    let summary = s.as_ref().and_then(|s| s.unrecorded(end));
    save_edits(&store, summary.as_deref())?;
    if let (Some(s), Some(_)) = (s.as_mut(), &summary) {
        s.mark_recorded();
        session::write(&git_dir, s)?;
    }
    Ok(Answer::Silent)
}
