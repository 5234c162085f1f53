//! The sections `load` chooses from, in priority order (each record's one-line form is
//! `lines.rs`). Each item is formatted only when the budget reaches it.
//!
//! Past 600 lines: the sections are one priority list, each next to the budget rule that
//! admits it; split, the order would be read in one file and the rules in another.

use std::collections::HashMap;
use std::rc::Rc;

use super::lines::*;
use super::{fixed, gated, Item, Lazy, Section, Totals, STALE_INVARIANT_DAYS};
use crate::drift::Drift;
use crate::integrity::gate::{gate, Gate};
use crate::model::fold::instinct_confidence;
use crate::model::kinds::{CumulativeNote, Echo, Invariant, Learning, Task};
use crate::model::{Body, Record, State};
use crate::text::sanitize;
use crate::text::{pretty_time, short};
use crate::view::invariants::{category, is_archived};

/// Files changed since a record was written, by record id.
type StaleFiles<'a> = Rc<HashMap<&'a str, &'a [String]>>;

/// At most this many stale records are named in a briefing's drift section, the rest counted
/// in one line: after a change to many files, drift would otherwise take the whole budget from
/// the sections below it (the records shown there carry their own `[stale: …]`).
const STALE_NAMED: usize = 10;

/// The drift lines (a line naming a stale record has passed the gate with it: see
/// [`crate::drift::Stale::line`]).
pub(super) fn drift_section(drift: &Drift) -> Section<'_> {
    let lines = if drift.any() {
        drift.lines_naming(STALE_NAMED)
    } else {
        Vec::new()
    };
    let items = lines
        .into_iter()
        .map(|l| fixed(format!("- {l}"), Item::Drift(l)))
        .collect();
    Section {
        key: "drift",
        heading: "## Drift".into(),
        items,
        total: 0,
        truncated: false,
        show: None,
    }
}

/// The open checkpoint (or, with none open here, the one open on the branch HEAD came from,
/// `other`), and whether the code it was written against is still the code here: the git state
/// the agent wrote in it (else the one git-rune captured) against HEAD now.
pub(super) fn checkpoint_section<'a>(
    state: &'a State,
    head: &crate::store::HeadInfo,
    other: Option<&'a (String, Record)>,
) -> Section<'a> {
    let mut items: Vec<Lazy<'a>> = Vec::new();
    let (open, elsewhere) = match (state.open_checkpoint(), other) {
        (Some(r), _) => (Some(r), None),
        (None, Some((branch, r))) => (Some(r), Some(branch.as_str())),
        (None, None) => (None, None),
    };
    let here = head.branch.as_deref().unwrap_or("(detached HEAD)");
    let now_commit = head.head.map(|h| h.to_string());
    if let Some(r) = open {
        if let Body::Checkpoint(cp) = &r.body {
            let mut t = String::new();
            if let Some(b) = elsewhere {
                t.push_str(&format!(
                    "⚠ branch mismatch: this checkpoint is open on {}, and HEAD is on {}; it may not apply here\n",
                    sanitize(b),
                    sanitize(here)
                ));
            }
            t.push_str(&format!(
                "Since {}: {}",
                pretty_time(&r.meta.ts),
                one_line(&cp.doing)
            ));
            if !cp.resume.is_empty() {
                t.push_str(&format!("\nResume: {}", one_line(&cp.resume)));
            }
            // The state written in the checkpoint, else the one captured with it.
            let written = crate::view::checkpoint_git_state(&cp.extra);
            let (branch, commit) = match (&written, &cp.git) {
                (Some((b, c)), _) => (b.clone(), c.clone()),
                (None, Some(g)) => (g.branch.clone(), g.head.clone()),
                (None, None) => (None, None),
            };
            if let Some(g) = &cp.git {
                t.push_str(&format!(
                    "\nGit state then: {} @ {}",
                    sanitize(g.branch.as_deref().unwrap_or("(detached)")),
                    g.head.as_deref().map(short).unwrap_or("(no commits)")
                ));
            }
            if let Some((b, c)) = &written {
                t.push_str(&format!(
                    "\nGit state as written: {} @ {}",
                    sanitize(b.as_deref().unwrap_or("?")),
                    sanitize(c.as_deref().unwrap_or("?"))
                ));
            }
            let moved_branch = elsewhere.is_none() && branch.as_deref().is_some_and(|b| b != here);
            let moved_commit = commit.as_deref().is_some_and(|c| {
                now_commit
                    .as_deref()
                    .is_none_or(|now| !now.starts_with(&c.to_lowercase()))
            });
            if moved_branch || moved_commit {
                t.push_str(&format!(
                    "\n⚠ checkpoint may be outdated: it was written on {} @ {}; now {} @ {}",
                    sanitize(branch.as_deref().unwrap_or("?")),
                    sanitize(commit.as_deref().map(short).unwrap_or("?")),
                    sanitize(here),
                    now_commit.as_deref().map(short).unwrap_or("(no commits)")
                ));
            }
            for (i, step) in cp.left.iter().enumerate() {
                t.push_str(&format!("\n{}. {}", i + 1, one_line(step)));
            }
            for c in &cp.context {
                t.push_str(&format!("\n- {}", one_line(c)));
            }
            items.push(Box::new(move || gated(r, t.clone(), None)));
        }
    }
    let heading = match elsewhere {
        Some(b) => format!(
            "## Checkpoint (open on branch {}, not this one)",
            sanitize(b)
        ),
        None => "## Checkpoint (open)".into(),
    };
    Section {
        key: "checkpoint",
        heading,
        items,
        total: 0,
        truncated: false,
        show: Some("checkpoint"),
    }
}

pub(super) fn invariants_section<'a>(state: &'a State, now: &str) -> Section<'a> {
    let active: Vec<&Record> = state
        .invariants
        .iter()
        .filter(|r| matches!(&r.body, Body::Invariant(Invariant { section, .. }) if !is_archived(section)))
        .collect();
    let newest = state.invariants.iter().map(|r| r.meta.ts.as_str()).max();
    let stale = newest.is_some_and(|ts| crate::text::days_between(ts, now) > STALE_INVARIANT_DAYS);
    let mut items: Vec<Lazy<'a>> = Vec::new();
    if stale {
        items.push(fixed(
            format!("⚠ Invariants file is stale (> {STALE_INVARIANT_DAYS} days since its last change). Review .rune/INVARIANTS.md"),
            Item::InvariantsStale,
        ));
    }
    // Danger first, then critical, state, cross, other.
    let mut sorted = active.clone();
    sorted.sort_by_key(|r| match &r.body {
        Body::Invariant(Invariant { section, .. }) => category(section) as u8,
        _ => u8::MAX,
    });
    for r in sorted {
        if let Body::Invariant(inv) = &r.body {
            let place = if inv.r#where.is_empty() {
                String::new()
            } else {
                format!("{} — ", inv.r#where.join(", "))
            };
            let mut t = format!(
                "{} {}{}",
                category(&inv.section).icon(),
                sanitize(&place),
                one_line(&inv.title)
            );
            if !inv.what.is_empty() {
                t.push_str(&format!(": {}", one_line(&inv.what)));
            }
            items.push(Box::new(move || gated(r, t.clone(), None)));
        }
    }
    Section {
        key: "invariants",
        heading: "## 📎 Active Invariants (.rune/INVARIANTS.md)".into(),
        total: active.len() + usize::from(stale),
        truncated: false,
        items,
        show: Some("invariants"),
    }
}

pub(super) fn progress_section<'a>(state: &'a State) -> Section<'a> {
    let mut items = Vec::new();
    if let Some(r) = state.progress.last() {
        // One gate for the record; each item carries its verdict.
        let rules = match gate(r) {
            Gate::Withheld => {
                items.push(Box::new(|| None) as Lazy<'a>);
                None
            }
            Gate::Clean => Some(Vec::new()),
            Gate::Suspicious(rules) => Some(rules),
        };
        if let (Some(rules), Body::Progress(p)) = (rules, &r.body) {
            let lists: [(&'static str, &'static str, Vec<&'a String>); 4] = [
                ("next", "Next", p.next.iter().collect()),
                ("in_progress", "In progress", p.in_progress.iter().collect()),
                ("blocked", "Blocked", p.blocked.iter().collect()),
                ("completed", "Done", p.completed.iter().rev().collect()),
            ];
            for (key, label, list) in lists {
                for t in list {
                    items.push(fixed(
                        format!("{label}: {}", one_line(t)),
                        Item::Progress {
                            field: key,
                            text: t,
                            record: r,
                            suspicious: rules.clone(),
                        },
                    ));
                }
            }
        }
    }
    Section {
        key: "progress",
        heading: format!(
            "## Progress{}",
            state
                .progress
                .last()
                .map(|r| format!(" ({})", pretty_time(&r.meta.ts)))
                .unwrap_or_default()
        ),
        total: 0,
        truncated: false,
        items,
        show: Some("progress"),
    }
}

/// One load line per record, formatted lazily and gated; decisions and learnings also say
/// whether the files they name changed since.
fn record_items<'a>(
    records: impl Iterator<Item = &'a Record>,
    stale: Option<StaleFiles<'a>>,
    line: fn(&Record) -> String,
) -> Vec<Lazy<'a>> {
    records
        .map(|r| -> Lazy<'a> {
            let stale = stale.clone();
            Box::new(move || {
                let mut text = line(r);
                let is_stale = stale.as_ref().map(|s| s.get(r.id.as_str()));
                if let Some(Some(files)) = is_stale {
                    text.push_str(&format!(
                        " [stale: {} changed since]",
                        sanitize(&files.join(", "))
                    ));
                }
                gated(r, text, is_stale.map(|f| f.is_some()))
            })
        })
        .collect()
}

pub(super) fn decisions_section<'a>(
    state: &'a State,
    totals: &Totals,
    stale: StaleFiles<'a>,
) -> Section<'a> {
    Section {
        key: "decisions",
        heading: format!("## Decisions (newest first, {} on file)", totals.decisions),
        items: record_items(state.decisions.iter().rev(), Some(stale), decision_line),
        total: totals.decisions,
        truncated: state.decisions.len() < totals.decisions,
        show: Some("decisions"),
    }
}

pub(super) fn conventions_section<'a>(state: &'a State, totals: &Totals) -> Section<'a> {
    Section {
        key: "conventions",
        heading: format!("## Conventions ({} on file)", totals.conventions),
        items: record_items(state.conventions.iter().rev(), None, convention_line),
        total: totals.conventions,
        truncated: state.conventions.len() < totals.conventions,
        show: Some("conventions"),
    }
}

/// The order `load` shows learnings in: most confident first, newest first among equals
/// (what is best established leads); the id breaks ties, so the order is total.
pub(super) fn learning_rank(a: &Record, b: &Record) -> std::cmp::Ordering {
    let confidence = |r: &Record| match r.body {
        Body::Learning(Learning { confidence, .. }) => confidence,
        _ => 0.0,
    };
    confidence(b)
        .total_cmp(&confidence(a))
        .then_with(|| b.meta.clock.cmp(&a.meta.clock))
        .then_with(|| a.id.cmp(&b.id))
}

pub(super) fn learnings_section<'a>(
    state: &'a State,
    totals: &Totals,
    stale: StaleFiles<'a>,
) -> Section<'a> {
    let mut ranked: Vec<&Record> = state.learnings.iter().collect();
    ranked.sort_by(|a, b| learning_rank(a, b));
    Section {
        key: "learnings",
        heading: format!(
            "## Learnings (most confident first, {} on file)",
            totals.learnings
        ),
        items: record_items(ranked.into_iter(), Some(stale), learning_line),
        total: totals.learnings,
        truncated: state.learnings.len() < totals.learnings,
        show: Some("learnings"),
    }
}

pub(super) fn instincts_section(state: &State) -> Section<'_> {
    instincts_of(
        &state.instincts,
        "instincts",
        "## Instincts",
        Some("instincts"),
    )
}

/// The user-level memory's instincts (promoted from 2+ projects), most confident first.
pub(super) fn global_instincts_section(state: &State) -> Section<'_> {
    let heading = "## Global instincts (user-level, seen in 2+ projects)";
    instincts_of(&state.global_instincts, "global-instincts", heading, None)
}

/// A section of `instincts`, most confident first, all of them.
fn instincts_of<'a>(
    instincts: &'a [Record],
    key: &'static str,
    heading: &str,
    show: Option<&'static str>,
) -> Section<'a> {
    let mut ranked: Vec<&Record> = instincts.iter().collect();
    ranked.sort_by(|a, b| instinct_confidence(b).total_cmp(&instinct_confidence(a)));
    Section {
        key,
        heading: heading.into(),
        items: record_items(ranked.into_iter(), None, instinct_line),
        total: instincts.len(),
        truncated: false,
        show,
    }
}

/// Whether a note is shown by `load`: cumulative notes without the Resolved section, every
/// task note.
pub(super) fn shown_note(r: &Record) -> bool {
    !matches!(&r.body, Body::CumulativeNote(CumulativeNote { section, .. }) if section == "Resolved")
}

/// Cumulative notes (without the Resolved section) or task notes, newest first; `total` is
/// how many memory holds that are shown (`records` may be only the newest of them).
pub(super) fn notes_section<'a>(
    key: &'static str,
    heading: &str,
    records: &'a [Record],
    total: usize,
    show: &'static str,
) -> Section<'a> {
    let shown = records.iter().rev().filter(|r| shown_note(r));
    let items = record_items(shown, None, note_line);
    Section {
        key,
        heading: heading.into(),
        truncated: items.len() < total,
        total,
        items,
        show: Some(show),
    }
}

/// The seed's task summary (`Tasks (2d old)`: counts with the consolidated count, the next
/// task, the git state against the last save), then the open tasks.
pub(super) fn tasks_section<'a>(state: &'a State, drift: &Drift, now: &str) -> Section<'a> {
    use crate::model::task::{age, task_id};
    let summary = crate::integrity::gate::task_summary(&state.tasks);
    let mut items: Vec<Lazy<'a>> = Vec::new();
    let heading = match &summary.updated {
        Some(u) => format!("## Tasks ({} old)", age(u, now)),
        None => "## Tasks".to_owned(),
    };
    if !state.tasks.is_empty() {
        let counts = summary.counts();
        items.push(fixed(counts.clone(), Item::TaskSummary(counts)));
        // The next task's title is record text: through the gate with its record.
        let next_record = summary.next.as_ref().and_then(|(n, _)| {
            state
                .tasks
                .iter()
                .find(|r| matches!(&r.body, Body::Task(Task { num, .. }) if num == n))
        });
        let next = match (next_record.map(gate), &summary.next) {
            (Some(Gate::Withheld), Some((n, _))) => format!(
                "Next: {} (withheld as TAINTED by the integrity check)",
                task_id(*n)
            ),
            (Some(Gate::Suspicious(rules)), _) => format!(
                "[SUSPICIOUS: {}] {}",
                rules.join(", "),
                sanitize(&summary.next_line())
            ),
            _ => sanitize(&summary.next_line()),
        };
        items.push(fixed(next.clone(), Item::TaskSummary(next)));
        let git = format!(
            "Git: {} @ {}{}",
            sanitize(drift.branch.as_deref().unwrap_or("(detached)")),
            drift.head.as_deref().map(short).unwrap_or("(no commits)"),
            match (drift.saved, drift.any()) {
                (false, _) => " (no save yet)",
                (true, true) => " (state changed since the last save: see Drift)",
                (true, false) => " (as at the last save)",
            }
        );
        items.push(fixed(git.clone(), Item::TaskSummary(git)));
    }
    for r in &state.tasks {
        if let Body::Task(task) = &r.body {
            if task.status == "completed" {
                continue;
            }
            let mark = if task.status == "in_progress" {
                "~"
            } else {
                " "
            };
            let mut t = format!("- [{mark}] {}", task_id(task.num));
            for tag in [&task.priority, &task.category] {
                if !tag.is_empty() {
                    t.push_str(&format!(" [{tag}]"));
                }
            }
            t.push_str(&format!(" {}", one_line(&task.title)));
            if !task.context.is_empty() {
                t.push_str(&format!(": {}", one_line(&task.context)));
            }
            items.push(Box::new(move || gated(r, t.clone(), None)));
        }
    }
    Section {
        key: "tasks",
        heading,
        items,
        total: state.tasks.len(),
        truncated: false,
        show: Some("tasks"),
    }
}

/// Oracle dispatches waiting on this branch (seed 000's detach mode): pending ones with their
/// timeout, complete ones ready to reattach. Consumed, failed and orphaned ones are left out.
pub(super) fn oracle_section(state: &State) -> Section<'_> {
    use crate::model::oracle::{COMPLETE, PENDING};
    let mut items: Vec<Lazy<'_>> = Vec::new();
    for r in &state.oracles {
        if let Body::Oracle(o) = &r.body {
            let t = match o.status.as_str() {
                PENDING => format!(
                    "- {} pending: {} ({}, {}), times out {}",
                    sanitize(&o.session_id),
                    one_line(&o.target_model),
                    o.source_skill,
                    o.trigger_signal,
                    pretty_time(&o.timeout_at)
                ),
                COMPLETE => format!(
                    "- {} complete: `git rune oracle reattach {}` hands the answer over",
                    sanitize(&o.session_id),
                    sanitize(&o.session_id)
                ),
                _ => continue,
            };
            items.push(Box::new(move || gated(r, t.clone(), None)));
        }
    }
    Section {
        key: "oracle",
        heading: "## Oracle dispatches".into(),
        items,
        total: 0,
        truncated: false,
        show: None,
    }
}

/// `load --role R`: the role's echoes the caller ranked, best first, and a pointer to
/// docs/solutions/ when a Remembrance document matches.
pub(super) fn echoes_section<'a>(
    state: &'a State,
    role: Option<&super::RoleEchoes>,
) -> Section<'a> {
    let Some(role) = role else {
        return Section {
            key: "echoes",
            heading: String::new(),
            items: Vec::new(),
            total: 0,
            truncated: false,
            show: None,
        };
    };
    let by_uid: std::collections::HashMap<&str, &Record> = state
        .echoes
        .iter()
        .filter_map(|r| Echo::of(&r.body).map(|e| (e.uid.as_str(), r)))
        .collect();
    let mut items: Vec<Lazy<'a>> = Vec::new();
    if let Some(s) = &role.solutions {
        items.push(fixed(
            format!("- {}", one_line(s)),
            Item::Solutions(s.clone()),
        ));
    }
    items.extend(record_items(
        role.uids
            .iter()
            .filter_map(|u| by_uid.get(u.as_str()).copied()),
        None,
        echo_line,
    ));
    Section {
        key: "echoes",
        heading: format!("## Echoes: {} (by Echo Score)", sanitize(&role.role)),
        items,
        total: role.uids.len(),
        truncated: false,
        show: None,
    }
}
