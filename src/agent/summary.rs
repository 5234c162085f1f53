//! The compaction summary of the context-engine seed, assembled deterministically from what
//! memory and the session's counters hold (no model writes it): Topics Covered, Key Decisions
//! Made, Active Threads (with the files touched this session and the artifacts folded),
//! Emotional/Priority Context (only what the agent recorded: blocked work, attention points,
//! follow-ups; empty otherwise) and the Continuation Point with the newest resume line.
//!
//! It is stored as the branch's checkpoint: the summary's sections are the checkpoint's own
//! extra sections, made by parsing the text the view would show, so `checkpoint.md` renders
//! it and a save of the view reads back the same record.
//!
//! It carries the checkpoint it replaces forward, never drops it: that checkpoint's "Context
//! the Next Session Needs" items, its load-bearing decisions ("Decisions Made This Session
//! (Load-Bearing)") and its remaining steps are merged into the summary's checkpoint (steps
//! progress shows completed are dropped), and its resume line is kept. A summary replacing a
//! summary carries what that one carried, so nothing an agent wrote is lost however often the
//! context is compacted.

use crate::context::session::Session;
use crate::model::kinds::{Checkpoint, CumulativeNote, Learning, Progress};
use crate::model::{Body, Record, State};
use crate::text::one_line;
use crate::view::{self, Parsed, ViewFile};

/// The heading the summary's sections sit under (the seed's).
pub const HEADING: &str = "## Compaction Summary";

/// Lines kept per section, so a long session's summary stays a summary.
const MAX_LINES: usize = 12;

/// The summary's parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub calls: u32,
    pub topics: Vec<String>,
    pub decisions: Vec<String>,
    pub threads: Vec<String>,
    pub priority: Vec<String>,
    /// What was being worked on (the checkpoint's "What I Was Doing").
    pub doing: String,
    /// The steps left, in order.
    pub left: Vec<String>,
    /// The previous checkpoint's "Context the Next Session Needs", carried forward.
    pub context: Vec<String>,
    /// The previous checkpoint's load-bearing decisions, carried forward.
    pub load_bearing: Vec<String>,
    /// The exact next action.
    pub resume: String,
}

/// Whether `r` was written during the session (at or after its start).
fn this_session(r: &Record, session: &Session) -> bool {
    !session.started.is_empty() && r.meta.ts.as_str() >= session.started.as_str()
}

fn cut(mut v: Vec<String>) -> Vec<String> {
    if v.len() > MAX_LINES {
        let more = v.len() - MAX_LINES;
        v.truncate(MAX_LINES);
        v.push(format!("…and {more} more"));
    }
    v
}

/// Assembles the summary. `artifacts` are the folded outputs' paths, `calls` the tool calls
/// counted when it is made.
pub fn assemble(state: &State, session: &Session, artifacts: &[String]) -> Summary {
    // Only what the gate shows: a withheld record is not carried into the summary.
    let ours = |r: &&Record| {
        this_session(r, session)
            && crate::integrity::gate::text_gate(r) != crate::integrity::gate::Gate::Withheld
    };
    let mut topics: Vec<String> = Vec::new();
    let push_topic = |topics: &mut Vec<String>, t: String| {
        if !t.is_empty() && !topics.contains(&t) {
            topics.push(t);
        }
    };
    for r in state.decisions.iter().filter(ours) {
        push_topic(
            &mut topics,
            format!("Decision: {}", one_line(r.body.title())),
        );
    }
    for r in state.conventions.iter().filter(ours) {
        push_topic(
            &mut topics,
            format!("Convention: {}", one_line(r.body.title())),
        );
    }
    for r in state.learnings.iter().filter(ours) {
        if let Body::Learning(Learning { key, insight, .. }) = &r.body {
            push_topic(
                &mut topics,
                format!("Learning {}: {}", one_line(key), one_line(insight)),
            );
        }
    }
    let progress = state.progress.last();
    if let Some(Body::Progress(Progress { completed, .. })) = progress.filter(ours).map(|r| &r.body)
    {
        for c in completed {
            push_topic(&mut topics, format!("Done: {}", one_line(c)));
        }
    }
    // Without records, the places the session worked in.
    if topics.is_empty() {
        let mut dirs: Vec<String> = Vec::new();
        for f in &session.files {
            let d = match f.rsplit_once('/') {
                Some((d, _)) => format!("{d}/"),
                None => f.clone(),
            };
            if !dirs.contains(&d) {
                dirs.push(d);
            }
        }
        for d in dirs {
            push_topic(&mut topics, format!("Work in {d}"));
        }
    }

    let decisions: Vec<String> = state
        .decisions
        .iter()
        .filter(ours)
        .filter_map(|r| match &r.body {
            Body::Decision(d) => {
                let affects = if d.files.is_empty() {
                    one_line(&d.impact)
                } else {
                    d.files.join(", ")
                };
                let mut line = format!("{}: {}", one_line(&d.title), one_line(&d.rationale));
                if !affects.is_empty() {
                    line.push_str(&format!(" — affects {affects}"));
                }
                Some(line)
            }
            _ => None,
        })
        .collect();

    let (in_progress, next, blocked, completed) = match progress.map(|r| &r.body) {
        Some(Body::Progress(p)) => (
            p.in_progress.as_slice(),
            p.next.as_slice(),
            p.blocked.as_slice(),
            p.completed.as_slice(),
        ),
        _ => (&[][..], &[][..], &[][..], &[][..]),
    };
    let carried = state
        .open_checkpoint()
        .map(|r| Carried::of(r, in_progress, next, completed))
        .unwrap_or_default();

    let mut threads: Vec<String> = Vec::new();
    if let Some(doing) = &carried.doing {
        threads.push(doing.clone());
    }
    for t in in_progress.iter().map(|t| one_line(t)) {
        if !threads.contains(&t) {
            threads.push(t);
        }
    }
    if let Some(f) = session.files.last() {
        threads.push(format!("Current file: {f}"));
    }
    if !session.files.is_empty() {
        threads.push(format!("Files touched: {}", session.files.join(", ")));
    }
    if !in_progress.is_empty() || !next.is_empty() {
        threads.push(format!(
            "Partial progress: {} in progress, {} next",
            in_progress.len(),
            next.len()
        ));
    }
    for a in artifacts {
        threads.push(format!("Folded output: {a}"));
    }

    let mut priority: Vec<String> = blocked
        .iter()
        .map(|b| format!("Blocked: {}", one_line(b)))
        .collect();
    for r in state.cumulative_notes.iter().filter(ours) {
        if let Body::CumulativeNote(CumulativeNote { section, text }) = &r.body {
            if matches!(section.as_str(), "Attention Points" | "Follow-Up Items") {
                priority.push(format!("{section}: {}", one_line(text)));
            }
        }
    }

    // The steps the checkpoint left, then progress's next items it does not hold yet.
    let mut left = carried.left.clone();
    for n in next.iter().map(|n| one_line(n)) {
        if !left.contains(&n) {
            left.push(n);
        }
    }
    // Load-bearing decisions first: they were the checkpoint's, and shape what is left.
    let mut key_decisions = carried.load_bearing.clone();
    for d in decisions {
        if !key_decisions.contains(&d) {
            key_decisions.push(d);
        }
    }
    let resume = carried
        .resume
        .clone()
        .or_else(|| next.first().map(|n| one_line(n)))
        .or_else(|| session.files.last().map(|f| format!("{CONTINUE_IN}{f}")))
        .unwrap_or_else(|| NO_RESUME.to_owned());
    let doing = format!(
        "{DOING_PREFIX} {} tool calls): {}",
        session.tool_calls,
        threads.first().cloned().unwrap_or_else(|| NO_THREAD.into())
    );
    Summary {
        calls: session.tool_calls,
        topics: cut(topics),
        // Carried items are never cut: they are what the next context needs.
        decisions: cut_after(key_decisions, carried.load_bearing.len()),
        threads: cut(threads),
        priority: cut(priority),
        doing,
        left: cut_after(left, carried.left.len()),
        context: carried.context,
        load_bearing: carried.load_bearing,
        resume,
    }
}

/// [`cut`], keeping at least the first `keep` lines.
fn cut_after(mut v: Vec<String>, keep: usize) -> Vec<String> {
    let limit = MAX_LINES.max(keep);
    if v.len() > limit {
        let more = v.len() - limit;
        v.truncate(limit);
        v.push(format!("…and {more} more"));
    }
    v
}

/// How a computed resume line begins (a resume of the engine's own, not the agent's).
const CONTINUE_IN: &str = "continue the work in ";
/// The resume line when memory holds nothing to resume from.
const NO_RESUME: &str = "run `git rune load` and pick the next item of progress";
/// What the engine writes when it has no thread.
const NO_THREAD: &str = "no recorded thread";

/// What the checkpoint a summary replaces hands on to it.
#[derive(Debug, Default)]
struct Carried {
    /// Its "What I Was Doing", when an agent or person wrote it.
    doing: Option<String>,
    left: Vec<String>,
    context: Vec<String>,
    load_bearing: Vec<String>,
    /// Its resume line, when an agent or person wrote it.
    resume: Option<String>,
}

impl Carried {
    /// What `open` carries, given progress now: a summary the engine wrote carries what it
    /// carried, not what it computed (the thread it took from progress or the files, a resume
    /// it made up), which is computed afresh.
    fn of(open: &Record, in_progress: &[String], next: &[String], completed: &[String]) -> Carried {
        let Body::Checkpoint(cp) = &open.body else {
            return Carried::default();
        };
        let from_progress = |t: &str| {
            in_progress
                .iter()
                .chain(next)
                .chain(completed)
                .any(|p| one_line(p) == t)
        };
        let ours = cp.doing.starts_with(DOING_PREFIX);
        let doing = if ours {
            // "Context compacted (at N tool calls): <thread>"
            cp.doing
                .split_once("): ")
                .map(|(_, t)| one_line(t))
                .filter(|t| {
                    t != NO_THREAD
                        && !t.starts_with("Current file: ")
                        && !t.starts_with("Files touched: ")
                        && !t.starts_with("Partial progress: ")
                        && !t.starts_with("Folded output: ")
                        && !from_progress(t)
                })
        } else {
            Some(one_line(&cp.doing)).filter(|d| !d.is_empty())
        };
        let resume = Some(one_line(&cp.resume)).filter(|r| {
            !r.is_empty()
                && !(ours && (r.starts_with(CONTINUE_IN) || r == NO_RESUME || from_progress(r)))
        });
        let done = |s: &String| completed.iter().any(|c| one_line(c) == *s);
        let mut steps: Vec<String> = Vec::new();
        for l in cp.left.iter().map(|l| one_line(l)) {
            // A summary's own steps from progress are taken afresh from progress.
            if l.is_empty() || done(&l) || steps.contains(&l) || (ours && l.starts_with("…and "))
            {
                continue;
            }
            steps.push(l);
        }
        let mut items: Vec<String> = Vec::new();
        for c in cp.context.iter().map(|c| one_line(c)) {
            if !c.is_empty() && !items.contains(&c) {
                items.push(c);
            }
        }
        let mut load_bearing: Vec<String> = Vec::new();
        for x in cp.extra.iter().filter(|x| is_load_bearing(&x.label)) {
            for line in x.text.lines() {
                let l = line.trim();
                let l = l
                    .strip_prefix("- ")
                    .or_else(|| l.strip_prefix("* "))
                    .unwrap_or(l);
                let l = one_line(l);
                if !l.is_empty() && !load_bearing.contains(&l) {
                    load_bearing.push(l);
                }
            }
        }
        Carried {
            doing,
            left: steps,
            context: items,
            load_bearing,
            resume,
        }
    }
}

/// The heading of the checkpoint's load-bearing decisions (the seed's).
pub const LOAD_BEARING: &str = "Decisions Made This Session (Load-Bearing)";

/// Whether a checkpoint section's heading is the seed's load-bearing decisions (at any
/// heading level, in any spelling of case and punctuation).
pub fn is_load_bearing(label: &str) -> bool {
    let l: String = label
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    l.contains("loadbearing")
}

/// How the checkpoints this engine writes begin ("What I Was Doing").
const DOING_PREFIX: &str = "Context compacted (at";

impl Summary {
    /// The seed's summary: its sections in order.
    pub fn text(&self) -> String {
        let mut out = format!("{HEADING} (generated at {} tool calls)\n", self.calls);
        let section = |out: &mut String, name: &str, lines: &[String]| {
            out.push_str(&format!("\n### {name}\n"));
            for l in lines {
                out.push_str(&format!("- {l}\n"));
            }
        };
        section(&mut out, "Topics Covered", &self.topics);
        section(&mut out, "Key Decisions Made", &self.decisions);
        section(&mut out, "Active Threads", &self.threads);
        section(&mut out, "Emotional/Priority Context", &self.priority);
        out.push_str(&format!(
            "\n### Continuation Point\n> Resume: {}\n",
            self.resume
        ));
        out
    }

    /// The checkpoint record's body: the summary as the checkpoint file shows it, read back
    /// by the view's own parser (so a save of `checkpoint.md` finds nothing changed).
    pub fn checkpoint(&self, git: Option<crate::model::GitState>) -> Option<Body> {
        let mut text = format!("# Checkpoint\n\n## What I Was Doing\n{}\n", self.doing);
        text.push_str(&self.text());
        if !self.load_bearing.is_empty() {
            text.push_str(&format!("\n## {LOAD_BEARING}\n"));
            for d in &self.load_bearing {
                text.push_str(&format!("- {d}\n"));
            }
        }
        text.push_str("\n## What's Left (Ordered)\n");
        for (i, l) in self.left.iter().enumerate() {
            text.push_str(&format!("{}. {l}\n", i + 1));
        }
        text.push_str("\n## Context the Next Session Needs\n");
        for c in &self.context {
            text.push_str(&format!("- {c}\n"));
        }
        text.push_str(&format!("\n## Resume Command\n{}\n", self.resume));
        let parsed = view::parse(ViewFile::Checkpoint, &text).ok()?;
        let mut body = parsed.into_iter().find_map(|p| match p {
            Parsed::Entry(e) => Some(e.body),
            Parsed::Withheld(_) => None,
        })?;
        if let Body::Checkpoint(Checkpoint { git: g, .. }) = &mut body {
            *g = git;
        }
        Some(body)
    }
}

/// The compaction summary a checkpoint holds, as the view shows it (from its heading to the
/// next `##` section); `None` when the checkpoint is not one the engine wrote.
pub fn shown(checkpoint: &Record) -> Option<String> {
    let state = crate::model::fold([checkpoint]);
    let text = view::render(ViewFile::Checkpoint, &state, &|_| false);
    let start = text.find(&format!("\n{HEADING}"))? + 1;
    let rest = &text[start..];
    let end = rest[1..].find("\n## ").map_or(rest.len(), |i| i + 2);
    Some(rest[..end].trim_end().to_owned() + "\n")
}

#[cfg(test)]
#[path = "summary_tests.rs"]
mod tests;
