//! The compaction summary of the context-engine seed, assembled deterministically from what
//! memory and the session's counters hold (no model writes it): Topics Covered, Key Decisions
//! Made, Active Threads (with the files touched this session and the artifacts folded),
//! Emotional/Priority Context (only what the agent recorded: blocked work, attention points,
//! follow-ups; empty otherwise) and the Continuation Point with the newest resume line.
//!
//! It is stored as the branch's checkpoint: the summary's sections are the checkpoint's own
//! extra sections, made by parsing the text the view would show, so `checkpoint.md` renders
//! it and a save of the view reads back the same record.

use crate::context::session::Session;
use crate::model::kinds::{Checkpoint, CumulativeNote, Decision, Learning, Progress};
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
    let ours = |r: &&Record| this_session(r, session);
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

    let decisions = state
        .decisions
        .iter()
        .filter(ours)
        .filter_map(|r| match &r.body {
            Body::Decision(Decision {
                title,
                rationale,
                impact,
                files,
                ..
            }) => {
                let affects = if files.is_empty() {
                    one_line(impact)
                } else {
                    files.join(", ")
                };
                let mut line = format!("{}: {}", one_line(title), one_line(rationale));
                if !affects.is_empty() {
                    line.push_str(&format!(" — affects {affects}"));
                }
                Some(line)
            }
            _ => None,
        })
        .collect();

    let open = state.open_checkpoint().and_then(|r| match &r.body {
        Body::Checkpoint(Checkpoint {
            doing,
            left,
            resume,
            ..
        }) => Some((doing, left, resume)),
        _ => None,
    });
    // A checkpoint this engine wrote carries no news of its own: look through it.
    let open = open.filter(|(doing, _, _)| !doing.starts_with(DOING_PREFIX));
    let (in_progress, next, blocked) = match progress.map(|r| &r.body) {
        Some(Body::Progress(Progress {
            in_progress,
            next,
            blocked,
            ..
        })) => (in_progress.as_slice(), next.as_slice(), blocked.as_slice()),
        _ => (&[][..], &[][..], &[][..]),
    };

    let mut threads: Vec<String> = Vec::new();
    if let Some((doing, _, _)) = open {
        threads.push(one_line(doing));
    }
    threads.extend(in_progress.iter().map(|t| one_line(t)));
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

    let left: Vec<String> = match open {
        Some((_, left, _)) if !left.is_empty() => left.iter().map(|l| one_line(l)).collect(),
        _ => next.iter().map(|n| one_line(n)).collect(),
    };
    let resume = open
        .map(|(_, _, resume)| one_line(resume))
        .filter(|r| !r.is_empty())
        .or_else(|| next.first().map(|n| one_line(n)))
        .or_else(|| {
            session
                .files
                .last()
                .map(|f| format!("continue the work in {f}"))
        })
        .unwrap_or_else(|| "run `git rune load` and pick the next item of progress".to_owned());
    let doing = format!(
        "{DOING_PREFIX} {} tool calls): {}",
        session.tool_calls,
        threads
            .first()
            .cloned()
            .unwrap_or_else(|| "no recorded thread".into())
    );
    Summary {
        calls: session.tool_calls,
        topics: cut(topics),
        decisions: cut(decisions),
        threads: cut(threads),
        priority: cut(priority),
        doing,
        left: cut(left),
        resume,
    }
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
        text.push_str("\n## What's Left (Ordered)\n");
        for (i, l) in self.left.iter().enumerate() {
            text.push_str(&format!("{}. {l}\n", i + 1));
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
mod tests {
    use super::*;
    use crate::model::testing::record_at;

    fn session() -> Session {
        let mut s = Session::new("s1", "2026-04-04T10:00:00Z");
        s.tool_calls = 87;
        s.files = vec!["src/auth/validate.ts".into(), "src/auth/mod.ts".into()];
        s
    }

    #[test]
    fn sections_come_from_what_the_session_recorded() {
        let old = record_at(
            "2026-04-03T10:00:00Z",
            Body::Decision(Decision {
                title: "Old".into(),
                context: "c".into(),
                decision: "d".into(),
                rationale: "r".into(),
                impact: "i".into(),
                files: vec![],
                file_blobs: Default::default(),
                extra: vec![],
            }),
        );
        let new = record_at(
            "2026-04-04T11:00:00Z",
            Body::Decision(Decision {
                title: "Use Zod".into(),
                context: "c".into(),
                decision: "d".into(),
                rationale: "one schema for types and checks".into(),
                impact: "auth".into(),
                files: vec!["src/auth/validate.ts".into()],
                file_blobs: Default::default(),
                extra: vec![],
            }),
        );
        let progress = record_at(
            "2026-04-04T11:30:00Z",
            Body::Progress(Progress {
                completed: vec!["schema".into()],
                in_progress: vec!["validation logic".into()],
                blocked: vec!["waiting on the API spec".into()],
                next: vec!["implement validate() in src/auth/validate.ts:47".into()],
                extra: vec![],
            }),
        );
        let state = crate::model::fold([&old, &new, &progress]);
        let s = assemble(
            &state,
            &session(),
            &[".rune/artifacts/artifact-1-Bash.md".into()],
        );
        insta::assert_snapshot!(s.text(), @r"
        ## Compaction Summary (generated at 87 tool calls)

        ### Topics Covered
        - Decision: Use Zod
        - Done: schema

        ### Key Decisions Made
        - Use Zod: one schema for types and checks — affects src/auth/validate.ts

        ### Active Threads
        - validation logic
        - Current file: src/auth/mod.ts
        - Files touched: src/auth/validate.ts, src/auth/mod.ts
        - Partial progress: 1 in progress, 1 next
        - Folded output: .rune/artifacts/artifact-1-Bash.md

        ### Emotional/Priority Context
        - Blocked: waiting on the API spec

        ### Continuation Point
        > Resume: implement validate() in src/auth/validate.ts:47
        ");
        // Stored as a checkpoint and shown back the same.
        let body = s.checkpoint(None).unwrap();
        let r = record_at("2026-04-04T12:00:00Z", body);
        assert_eq!(shown(&r).unwrap(), s.text());
    }

    #[test]
    fn an_empty_session_still_says_where_to_resume() {
        let s = assemble(
            &State::default(),
            &Session::new("s", "2026-04-04T10:00:00Z"),
            &[],
        );
        assert!(s.text().contains("### Emotional/Priority Context\n\n### Continuation Point\n> Resume: run `git rune load`"));
        let r = record_at("2026-04-04T12:00:00Z", s.checkpoint(None).unwrap());
        assert_eq!(shown(&r).unwrap(), s.text());
    }
}
