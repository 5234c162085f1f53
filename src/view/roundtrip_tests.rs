//! Property tests for the guarantees every view file makes: normalised content survives
//! render → parse, render → parse → render is byte-stable, an untouched file saves nothing
//! (its records shown SUSPICIOUS or not), and no input makes parse panic. Long because one
//! generator per view file (`body`) and one checker serve all twelve files: split, each file
//! would repeat the checker.

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;

use super::text::{item, one_line};
use super::{diff, normalize, render_all as render, visible, Parsed, ViewFile};
use crate::model::kinds::{
    Checkpoint, ContextBlock, Convention, CumulativeNote, Decision, Instinct, Invariant, Learning,
    Progress, Session, Task, TaskNote,
};
use crate::model::{
    fold, Body, Draft, Extra, GitState, LearningType, Record, State, CUMULATIVE_SECTIONS,
    TASK_SECTIONS,
};

const TS: &str = "2026-04-04T14:30:00Z";

/// Pieces that exercise the structure of every format, plus plain and non-ASCII text.
const PIECES: &[&str] = &[
    "a",
    "b",
    "z",
    "0",
    "7",
    " ",
    "  ",
    "\n",
    "\n\n",
    "\r\n",
    "\r",
    "\t",
    "#",
    "# ",
    "## ",
    "### ",
    "*",
    "**",
    "**X:** ",
    "**Decision:** ",
    "**Trigger:**",
    "-",
    "- ",
    "* ",
    "- [ ] ",
    "[x] ",
    "[ ]",
    "[",
    "]",
    ":",
    "`",
    "```",
    "~~~",
    "é",
    "日本",
    "🦀",
    "—",
    ",",
    "(",
    ")",
    "\\",
    "1. ",
    "2) ",
    "Decision: ",
    "Task Notes",
    "Session Summary",
    "Resolved",
    "What I Was Doing",
    "\u{a0}",
    ".",
    "\n  ",
    "\n\t",
    "[2026-01-01 10:00] ",
    ">",
    "{",
    "\"",
    "---",
    "\n---\n",
    "_",
];

fn text() -> impl Strategy<Value = String> {
    vec(select(PIECES), 0..14).prop_map(|v| v.concat())
}

/// Text that stays non-empty under every normal form (for fields the parser requires).
fn required() -> impl Strategy<Value = String> {
    text().prop_map(|s| {
        if one_line(&s).is_empty() || item(&s).is_empty() {
            format!("x{s}")
        } else {
            s
        }
    })
}

fn list() -> impl Strategy<Value = Vec<String>> {
    vec(text(), 0..4)
}

fn confidence() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(0.7),
        0.0f64..1.0,
        any::<f64>().prop_filter("finite", |c| c.is_finite())
    ]
}

/// Extras as the view keeps them: placed after one of `after` (or nothing), labelled with one
/// of `labels` (or none: prose), with any text.
fn extras(
    after: &'static [&'static str],
    labels: &'static [&'static str],
) -> impl Strategy<Value = Vec<Extra>> {
    vec(
        (select(after), select(labels), text()).prop_map(|(after, label, text)| Extra {
            after: after.to_owned(),
            label: label.to_owned(),
            text,
        }),
        0..3,
    )
}

/// Extra keys of a learnings.jsonl line, with JSON values.
fn json_extras() -> impl Strategy<Value = Vec<Extra>> {
    vec(
        (
            select(vec!["source", "tags", "zz", "a b"]),
            select(vec!["\"x\"", "[1,2]", "{\"a\":\"é\"}", "true", "3", "null"]),
        )
            .prop_map(|(label, text)| Extra {
                after: String::new(),
                label: label.to_owned(),
                text: text.to_owned(),
            }),
        0..3,
    )
}

fn git() -> impl Strategy<Value = Option<GitState>> {
    proptest::option::of(
        (
            proptest::option::of(text()),
            proptest::option::of(text()),
            list(),
        )
            .prop_map(|(branch, head, dirty)| GitState {
                branch,
                head,
                upstream: None,
                dirty,
            }),
    )
}

fn body(file: ViewFile) -> BoxedStrategy<Body> {
    match file {
        ViewFile::Decisions => (
            required(),
            text(),
            text(),
            text(),
            text(),
            list(),
            extras(
                &["", "Context", "Decision", "Rationale", "Impact", "Files"],
                &[
                    "",
                    "Alternatives considered",
                    "Status",
                    "### Notes",
                    "## Aside",
                ],
            ),
        )
            .prop_map(
                |(title, context, decision, rationale, impact, files, extra)| {
                    Body::Decision(Decision {
                        title,
                        context,
                        decision,
                        rationale,
                        impact,
                        files,
                        file_blobs: Default::default(),
                        extra,
                    })
                },
            )
            .boxed(),
        ViewFile::Conventions => (
            required(),
            text(),
            text(),
            text(),
            extras(
                &["", "Pattern", "Example", "Applies to"],
                &["", "Status", "### Notes"],
            ),
        )
            .prop_map(|(title, pattern, example, applies_to, extra)| {
                Body::Convention(Convention {
                    title,
                    pattern,
                    example,
                    applies_to,
                    extra,
                })
            })
            .boxed(),
        ViewFile::Learnings => (
            text(),
            select(LearningType::ALL.to_vec()),
            text(),
            text(),
            confidence(),
            list(),
            json_extras(),
        )
            .prop_map(|(skill, ltype, key, insight, confidence, files, extra)| {
                Body::Learning(Learning {
                    skill,
                    ltype,
                    key,
                    insight,
                    confidence,
                    files,
                    file_blobs: Default::default(),
                    extra,
                })
            })
            .boxed(),
        ViewFile::Instincts => (
            required(),
            text(),
            text(),
            confidence(),
            text(),
            extras(
                &["", "Trigger", "Action", "Confidence", "Evidence"],
                &["", "Confidence note", "## Seen in"],
            ),
        )
            .prop_map(|(name, trigger, action, confidence, evidence, extra)| {
                Body::Instinct(Instinct {
                    name,
                    trigger,
                    action,
                    confidence,
                    evidence,
                    extra,
                })
            })
            .boxed(),
        ViewFile::CumulativeNotes => {
            let sections: Vec<&str> = CUMULATIVE_SECTIONS
                .iter()
                .copied()
                .chain(["attention-points"])
                .collect();
            (select(sections), required())
                .prop_map(|(section, text)| {
                    Body::CumulativeNote(CumulativeNote {
                        section: section.to_owned(),
                        text,
                    })
                })
                .boxed()
        }
        ViewFile::Invariants => {
            let section = prop_oneof![
                select(vec![
                    "Danger Zones",
                    "Critical Invariants",
                    "State Machine Rules",
                    "Cross-File Consistency",
                    "Critical Contracts",
                    "State Machines",
                    "Archived"
                ])
                .prop_map(str::to_owned),
                required(),
            ];
            (
                section,
                required(),
                text(),
                list(),
                text(),
                extras(&["", "What", "Where", "Why"], &["", "Owner", "Status"]),
            )
                .prop_map(|(section, title, what, r#where, why, extra)| {
                    Body::Invariant(Invariant {
                        section,
                        title,
                        what,
                        r#where,
                        why,
                        extra,
                    })
                })
                .boxed()
        }
        ViewFile::Progress => (
            list(),
            list(),
            list(),
            list(),
            extras(
                &[
                    "",
                    "Completed",
                    "In Progress",
                    "Blocked",
                    "Next Session Should",
                ],
                &["", "Python Context", "#"],
            ),
        )
            .prop_map(|(completed, in_progress, blocked, next, extra)| {
                Body::Progress(Progress {
                    completed,
                    in_progress,
                    blocked,
                    next,
                    extra,
                })
            })
            .boxed(),
        ViewFile::SessionLog => text()
            .prop_map(|summary| Body::Session(Session { summary, git: None }))
            .boxed(),
        ViewFile::Checkpoint => (
            text(),
            list(),
            list(),
            text(),
            git(),
            extras(
                &[
                    "",
                    "What I Was Doing",
                    "Current Git State",
                    "What's Left",
                    "Context the Next Session Needs",
                    "Resume Command",
                ],
                &[
                    "",
                    "## Decisions Made This Session (Load-Bearing)",
                    "### Notes",
                ],
            ),
        )
            .prop_map(|(doing, left, context, resume, git, extra)| {
                Body::Checkpoint(Checkpoint {
                    doing,
                    left,
                    context,
                    resume,
                    git,
                    extra,
                })
            })
            .boxed(),
        ViewFile::TaskNotes => (
            prop_oneof![Just(String::new()), text()],
            select(TASK_SECTIONS.to_vec()),
            required(),
        )
            .prop_map(|(task, section, text)| {
                Body::TaskNote(TaskNote {
                    task,
                    section: section.to_owned(),
                    text,
                })
            })
            .boxed(),
        ViewFile::Tasks => (
            (
                "[0-9a-f]{4}",
                1u32..6,
                required(),
                select(vec!["pending", "in_progress", "completed"]),
                select(vec!["", "P1", "P2", "P3"]),
                select(vec!["", "BUGFIX", "DOCS"]),
            ),
            (
                0u32..3,
                text(),
                list(),
                any::<bool>(),
                vec(
                    (
                        select(vec!["Task", "end"]),
                        text().prop_filter("not structure in tasks.md", |t| {
                            let t = one_line(t);
                            !t.contains(':') && !t.starts_with(['-', '*', '+', '#', '>', '\\'])
                        }),
                    ),
                    0..3,
                ),
            ),
        )
            .prop_map(
                |(
                    (uid, num, title, status, priority, category),
                    (count, context, files, keep, extra),
                )| {
                    Body::Task(Task {
                        uid,
                        num,
                        claimed: TS.into(),
                        title,
                        completed: if status == "completed" {
                            TS.into()
                        } else {
                            String::new()
                        },
                        status: status.into(),
                        priority: priority.into(),
                        category: category.into(),
                        created: TS.into(),
                        consolidated: count > 0,
                        consolidated_count: count,
                        context,
                        files,
                        keep,
                        aliases: Vec::new(),
                        extra: extra
                            .into_iter()
                            .map(|(after, text)| Extra {
                                after: after.into(),
                                label: String::new(),
                                text,
                            })
                            .collect(),
                    })
                },
            )
            .boxed(),
        ViewFile::ContextBlocks => (
            required(),
            required(),
            vec(select(vec!["TASK_001", "TASK_002", "TASK_010"]), 0..3),
        )
            .prop_map(|(title, content, related)| {
                Body::ContextBlock(ContextBlock {
                    title,
                    content,
                    updated: TS.into(),
                    related_tasks: related.into_iter().map(str::to_owned).collect(),
                })
            })
            .boxed(),
    }
}

fn records(bodies: Vec<Body>) -> Vec<Record> {
    bodies
        .into_iter()
        .enumerate()
        .map(|(i, b)| Draft::new(b).stamp(TS, i as u64 + 1, "t <t@t>"))
        .collect()
}

fn section_rank(s: &str) -> (u8, String) {
    let known = [
        "Danger Zones",
        "Critical Invariants",
        "State Machine Rules",
        "Cross-File Consistency",
    ];
    let l = s.to_lowercase();
    if l.trim_start().starts_with("archive") {
        (6, s.to_owned())
    } else {
        match known.iter().position(|k| k.to_lowercase() == l) {
            Some(i) => (i as u8, s.to_owned()),
            None => (5, s.to_owned()),
        }
    }
}

/// The file's records in the order the file shows them, worked out independently of render.
fn shown_order(file: ViewFile, state: &State) -> Vec<Body> {
    if file == ViewFile::Checkpoint {
        return state
            .open_checkpoint()
            .map(|r| r.body.clone())
            .into_iter()
            .collect();
    }
    let mut bodies: Vec<Body> = state
        .of_kind(file.kind())
        .iter()
        .map(|r| r.body.clone())
        .collect();
    let pos = |list: &[&str], s: &str| list.iter().position(|x| *x == s).unwrap_or(list.len());
    match file {
        ViewFile::CumulativeNotes => bodies.sort_by_key(|b| match b {
            Body::CumulativeNote(CumulativeNote { section, .. }) => {
                pos(&CUMULATIVE_SECTIONS, section)
            }
            _ => 0,
        }),
        ViewFile::TaskNotes => {
            let mut tasks: Vec<String> = Vec::new();
            for b in &bodies {
                if let Body::TaskNote(TaskNote { task, .. }) = b {
                    if !tasks.contains(task) {
                        tasks.push(task.clone());
                    }
                }
            }
            bodies.sort_by_key(|b| match b {
                Body::TaskNote(TaskNote { task, section, .. }) => (
                    tasks.iter().position(|t| t == task).unwrap_or(0),
                    pos(&TASK_SECTIONS, section),
                ),
                _ => (0, 0),
            });
        }
        ViewFile::Tasks => bodies.sort_by_key(|b| match b {
            Body::Task(Task { status, num, .. }) => (
                ["in_progress", "pending", "completed"]
                    .iter()
                    .position(|s| s == status),
                *num,
            ),
            _ => (None, 0),
        }),
        ViewFile::Invariants => bodies.sort_by_key(|b| match b {
            Body::Invariant(Invariant { section, .. }) => section_rank(section),
            _ => (0, String::new()),
        }),
        _ => {}
    }
    bodies
}

/// The entries of `text`, the view of `state`, as a save reads them back.
fn parsed_back(file: ViewFile, state: &State, text: &str) -> Result<Vec<Parsed>, TestCaseError> {
    let framed = super::parse_framed(file, text)
        .map_err(|e| TestCaseError::fail(format!("{e}\n---\n{text}")))?;
    prop_assert_eq!(
        framed.frame,
        None,
        "the view's own rendering has no frame of its own\n---\n{}",
        text
    );
    let mut parsed = framed.items;
    // The git state lines the view shows for a checkpoint are git-rune's own (the save's
    // diff takes them out, as here).
    if file == ViewFile::Checkpoint {
        let captured = state.open_checkpoint().and_then(|r| match &r.body {
            Body::Checkpoint(Checkpoint { git, .. }) => git.clone(),
            _ => None,
        });
        for p in parsed.iter_mut() {
            if let Parsed::Entry(e) = p {
                super::checkpoint::without_rendered_git(&mut e.body, captured.as_ref());
            }
        }
    }
    Ok(parsed)
}

fn check(file: ViewFile, mut bodies: Vec<Body>) -> Result<(), TestCaseError> {
    for b in &mut bodies {
        normalize(b);
        let once = b.clone();
        normalize(b);
        prop_assert_eq!(&*b, &once, "normalize is not idempotent");
    }
    let state = fold(&records(bodies));
    let text = render(file, &state);
    prop_assert!(text.is_empty() || text.ends_with('\n'));
    let parsed = parsed_back(file, &state, &text)?;
    let entries: Vec<Body> = parsed
        .iter()
        .filter_map(|p| match p {
            Parsed::Entry(e) => Some(e.body.clone()),
            Parsed::Withheld(_) => None,
        })
        .collect();
    for p in &entries {
        let mut again = p.clone();
        normalize(&mut again);
        prop_assert_eq!(&again, p, "parse output is not normal");
    }
    let want: Vec<Body> = shown_order(file, &state).iter().map(visible).collect();
    let got: Vec<Body> = entries.iter().map(visible).collect();
    prop_assert_eq!(&got, &want, "\n---\n{}", text);

    let base: Vec<Record> = match file {
        ViewFile::Checkpoint => state.open_checkpoint().cloned().into_iter().collect(),
        _ => state.of_kind(file.kind()).to_vec(),
    };
    prop_assert_eq!(
        diff(file, &base, parsed.clone()),
        vec![],
        "untouched file saves something"
    );

    // Every record shown SUSPICIOUS, as the view marks it: the untouched file still saves
    // nothing (the parse takes the marks off).
    let mut marked = state.clone();
    for &kind in crate::model::Kind::ALL {
        for r in marked.of_kind_mut(kind).into_iter().flatten() {
            let id = r.id.clone();
            *r = crate::integrity::gate::marked_record(r, &["html-comment", "bidi"]);
            r.id = id;
        }
    }
    let marked_text = render(file, &marked);
    prop_assert_eq!(
        diff(file, &base, parsed_back(file, &state, &marked_text)?),
        vec![],
        "untouched marked file saves something\n---\n{}",
        marked_text
    );

    // The git state is not part of the view; carry it over as a save would.
    let mut reparsed = entries;
    if let (
        Some(Body::Checkpoint(Checkpoint { git: old, .. })),
        Some(Body::Checkpoint(Checkpoint { git, .. })),
    ) = (base.first().map(|r| &r.body), reparsed.first_mut())
    {
        *git = old.clone();
    }
    // A task's identity is not part of the view either; a save pairs it by number.
    for b in &mut reparsed {
        let num = match b {
            Body::Task(Task { num, .. }) => *num,
            _ => continue,
        };
        if let Some(old) = base
            .iter()
            .find(|r| matches!(r.body, Body::Task(Task { num: n, .. }) if n == num))
        {
            super::inherit(b, &old.body);
        }
    }
    let text2 = render(file, &fold(&records(reparsed)));
    prop_assert_eq!(text2, text);
    Ok(())
}

fn bodies(file: ViewFile) -> impl Strategy<Value = Vec<Body>> {
    vec(body(file), 0..7)
}

proptest! {
    #[test]
    fn decisions_round_trip(b in bodies(ViewFile::Decisions)) { check(ViewFile::Decisions, b)?; }

    #[test]
    fn conventions_round_trip(b in bodies(ViewFile::Conventions)) { check(ViewFile::Conventions, b)?; }

    #[test]
    fn learnings_round_trip(b in bodies(ViewFile::Learnings)) { check(ViewFile::Learnings, b)?; }

    #[test]
    fn instincts_round_trip(b in bodies(ViewFile::Instincts)) { check(ViewFile::Instincts, b)?; }

    #[test]
    fn cumulative_notes_round_trip(b in bodies(ViewFile::CumulativeNotes)) { check(ViewFile::CumulativeNotes, b)?; }

    #[test]
    fn invariants_round_trip(b in bodies(ViewFile::Invariants)) { check(ViewFile::Invariants, b)?; }

    #[test]
    fn progress_round_trip(b in bodies(ViewFile::Progress)) { check(ViewFile::Progress, b)?; }

    #[test]
    fn session_log_round_trip(b in bodies(ViewFile::SessionLog)) { check(ViewFile::SessionLog, b)?; }

    #[test]
    fn checkpoint_round_trip(b in bodies(ViewFile::Checkpoint)) { check(ViewFile::Checkpoint, b)?; }

    #[test]
    fn task_notes_round_trip(b in bodies(ViewFile::TaskNotes)) { check(ViewFile::TaskNotes, b)?; }

    #[test]
    fn tasks_round_trip(b in bodies(ViewFile::Tasks)) { check(ViewFile::Tasks, b)?; }

    #[test]
    fn context_blocks_round_trip(b in bodies(ViewFile::ContextBlocks)) { check(ViewFile::ContextBlocks, b)?; }

    #[test]
    fn parse_never_panics(lines in vec(text(), 0..12)) {
        let text = lines.join("\n");
        for file in ViewFile::ALL {
            let _ = super::parse_framed(file, &text);
        }
    }
}
