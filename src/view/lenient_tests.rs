//! The lenient grammar of the entry files, case by case (issue 23): every heading form agents
//! were seen to write, with the records it must yield and the file's exact re-rendering. No
//! heading that does not read merges into the entry above it; one that starts like an entry
//! but cannot be read is refused with its line and the expected form; prose anywhere is
//! kept (before the first entry as the file's frame, elsewhere as the entry's extras) and
//! written back in place.

use super::{parse_framed, render, show_all, ParseError, Parsed, ViewFile};
use crate::model::kinds::{Decision, Document, Instinct, Progress};
use crate::model::{fold, Body, Draft, Record};

/// When an entry that gives no time was saved, in these tests.
const SAVED: &str = "2026-06-01T12:00:00Z";

/// The entries read (with their times) and the file rendered from them.
type Saved = (Vec<(Option<String>, Body)>, String);

/// The records a save of `text` writes (entries at their own time, else [`SAVED`]; the frame
/// as its document), and the file rendered from them.
fn save_and_render(file: ViewFile, text: &str) -> Result<Saved, ParseError> {
    let framed = parse_framed(file, text)?;
    let mut entries = Vec::new();
    let mut records: Vec<Record> = Vec::new();
    for (i, p) in framed.items.into_iter().enumerate() {
        let Parsed::Entry(e) = p else { continue };
        let mut d = Draft::new(e.body.clone());
        d.at = e.at.clone();
        records.push(d.stamp(SAVED, i as u64 + 1, "t <t@t>"));
        entries.push((e.at, e.body));
    }
    if let Some(frame) = framed.frame {
        records.push(
            Draft::new(Body::Document(Document {
                path: super::frame_path(file),
                content: frame,
            }))
            .stamp(SAVED, 999, "t <t@t>"),
        );
    }
    Ok((entries, render(file, &fold(&records), &show_all)))
}

/// (title, decision) of each decision, with its time.
fn decisions(entries: &[(Option<String>, Body)]) -> Vec<(Option<&str>, &str, &str)> {
    entries
        .iter()
        .map(|(at, b)| match b {
            Body::Decision(Decision {
                title, decision, ..
            }) => (at.as_deref(), title.as_str(), decision.as_str()),
            other => panic!("not a decision: {other:?}"),
        })
        .collect()
}

const POSTGRES: &str = "# Decisions Log\n\n## [2025-11-20 10:00] Decision: Use Postgres\n**Context:** c\n**Decision:** Postgres 16\n**Rationale:** r\n**Impact:** i\n";

#[test]
fn decision_headings_each_start_their_own_entry() {
    // (the second heading as written, what it reads as, the heading it is written back as)
    let table: &[(&str, Option<&str>, &str, &str)] = &[
        (
            "## 2026-11-25 — Decision: Use Redis",
            Some("2026-11-25T00:00:00Z"),
            "Use Redis",
            "## [2026-11-25 00:00] Decision: Use Redis",
        ),
        (
            "## 2026-11-25 10:30 - Decision: Use Redis",
            Some("2026-11-25T10:30:00Z"),
            "Use Redis",
            "## [2026-11-25 10:30] Decision: Use Redis",
        ),
        (
            "## 2026-11-25T10:30:00Z Decision: Use Redis",
            Some("2026-11-25T10:30:00Z"),
            "Use Redis",
            "## [2026-11-25 10:30] Decision: Use Redis",
        ),
        (
            "## [2026-01-01] Decision - Dash",
            Some("2026-01-01T00:00:00Z"),
            "Dash",
            "## [2026-01-01 00:00] Decision: Dash",
        ),
        (
            "## [2026-01-01] Decision — Em dash",
            Some("2026-01-01T00:00:00Z"),
            "Em dash",
            "## [2026-01-01 00:00] Decision: Em dash",
        ),
        (
            "## [2026-02-01] ADR-004: Event bus",
            Some("2026-02-01T00:00:00Z"),
            "ADR-004: Event bus",
            "## [2026-02-01 00:00] Decision: ADR-004: Event bus",
        ),
        (
            "## [2026-02-01] ADR: Event bus",
            Some("2026-02-01T00:00:00Z"),
            "Event bus",
            "## [2026-02-01 00:00] Decision: Event bus",
        ),
        (
            "## [2026-02-02] Architecture decision: Hexagonal core",
            Some("2026-02-02T00:00:00Z"),
            "Hexagonal core",
            "## [2026-02-02 00:00] Decision: Hexagonal core",
        ),
        (
            "## Decision without date",
            None,
            "without date",
            "## [2026-06-01 12:00] Decision: without date",
        ),
        (
            "### [2026-02-03] decision: lower case, one level down",
            Some("2026-02-03T00:00:00Z"),
            "lower case, one level down",
            "## [2026-02-03 00:00] Decision: lower case, one level down",
        ),
        (
            "## [2026-02-04] Use Kafka for events",
            Some("2026-02-04T00:00:00Z"),
            "Use Kafka for events",
            "## [2026-02-04 00:00] Decision: Use Kafka for events",
        ),
    ];
    for (heading, at, title, shown) in table {
        let text = format!("{POSTGRES}\n{heading}\n**Decision:** Redis 7\n");
        let (entries, rendered) = save_and_render(ViewFile::Decisions, &text)
            .unwrap_or_else(|e| panic!("{heading}: {e}"));
        assert_eq!(
            decisions(&entries),
            vec![
                (Some("2025-11-20T10:00:00Z"), "Use Postgres", "Postgres 16"),
                (*at, *title, "Redis 7"),
            ],
            "{heading}"
        );
        assert_eq!(
            rendered,
            format!("{POSTGRES}\n{shown}\n**Context:**\n**Decision:** Redis 7\n**Rationale:**\n**Impact:**\n"),
            "{heading}"
        );
        // Written back, it reads the same.
        let (again, _) = save_and_render(ViewFile::Decisions, &rendered).unwrap();
        assert_eq!(decisions(&again)[1].1, *title, "{heading}");
    }
}

#[test]
fn headings_that_start_like_an_entry_but_do_not_read_are_refused_with_their_line() {
    // (the heading, what the message must say)
    let table: &[(&str, &str)] = &[
        (
            "## [2026-13-45] Decision: Bad date",
            "\"2026-13-45\" is not a date",
        ),
        (
            "## 2026-02-30 Decision: No such day",
            "\"2026-02-30\" is not a date",
        ),
        (
            "## [2026-11-25] Convention: Filed here",
            "a Convention heading",
        ),
        ("## Instinct: Filed here", "a Instinct heading"),
    ];
    for (heading, says) in table {
        let text = format!("{POSTGRES}\n{heading}\n**Decision:** Redis 7\n");
        let e = save_and_render(ViewFile::Decisions, &text).unwrap_err();
        assert_eq!(e.line, 9, "{heading}: {e}");
        assert!(e.message.contains(says), "{heading}: {e}");
        assert!(
            e.message
                .contains("## [YYYY-MM-DD HH:MM] Decision: <title>"),
            "{heading}: {e}"
        );
        // The same heading in a file with no entries: the same error.
        let e = save_and_render(
            ViewFile::Decisions,
            &format!("# Decisions Log\n\n{heading}\n"),
        )
        .unwrap_err();
        assert_eq!(e.line, 3, "{heading}: {e}");
    }
}

#[test]
fn sub_headings_inside_an_entry_stay_in_it() {
    let text = format!(
        "{POSTGRES}### Decision Drivers\n- cost\n#### Decision: recorded below\n**Decision:** x\n\nsee the ADR\n"
    );
    let (entries, rendered) = save_and_render(ViewFile::Decisions, &text).unwrap();
    assert_eq!(entries.len(), 2, "{entries:?}");
    let Body::Decision(Decision { extra, .. }) = &entries[0].1 else {
        panic!()
    };
    assert_eq!(extra[0].label, "### Decision Drivers");
    assert_eq!(extra[0].text, "- cost");
    // The deeper `#### Decision: …` is an entry of its own, as before.
    assert_eq!(decisions(&entries)[1].1, "recorded below");
    assert!(
        rendered.contains("### Decision Drivers\n- cost\n"),
        "{rendered}"
    );
}

#[test]
fn prose_anywhere_is_kept_and_written_back_in_place() {
    // (the file, how many entries it holds)
    let table: &[(&str, usize)] = &[
        // An intro sentence under the title.
        (
            "# Decisions Log\n\nArchitecture choices for the billing service.\n\n## [2026-01-02 09:00] Decision: A\n**Context:** c\n**Decision:** d\n**Rationale:** r\n**Impact:** i\n",
            1,
        ),
        // A blockquote and an HTML comment before the first entry.
        (
            "# Decisions Log\n\n> Append new decisions at the end.\n<!-- maintained by the session bridge -->\n\n## [2026-01-02 09:00] Decision: A\n**Context:** c\n**Decision:** d\n**Rationale:** r\n**Impact:** i\n",
            1,
        ),
        // Prose, a blockquote and a comment between entries.
        (
            "# Decisions Log\n\n## [2026-01-02 09:00] Decision: A\n**Context:** c\n**Decision:** d\n**Rationale:** r\n**Impact:** i\n\nRevisit after the load test.\n\n> reviewed by ops\n\n<!-- next -->\n\n## [2026-01-03 09:00] Decision: B\n**Context:** c\n**Decision:** d\n**Rationale:** r\n**Impact:** i\n",
            2,
        ),
        // A custom title and no entries at all.
        ("# Decision Log\n\nNothing decided yet.\n", 0),
    ];
    for (text, n) in table {
        let (entries, rendered) = save_and_render(ViewFile::Decisions, text).unwrap();
        assert_eq!(entries.len(), *n, "{text}");
        assert_eq!(&rendered, text);
    }
}

#[test]
fn instincts_and_progress_read_odd_headings_as_their_own_entries() {
    let text = "# Instincts\n\n## [2026-02-01] Instinct: Run tests first\n**Trigger:** before a commit\n**Action:** cargo test\n**Confidence:** 0.7\n**Evidence:** broke main once\n\n## 2026-02-02 - Instinct: Prefer rg\n**Trigger:** searching\n**Action:** use rg\n**Confidence:** 0.6\n**Evidence:** faster\n";
    let (entries, rendered) = save_and_render(ViewFile::Instincts, text).unwrap();
    let names: Vec<&str> = entries
        .iter()
        .map(|(_, b)| match b {
            Body::Instinct(Instinct { name, action, .. }) => {
                assert!(!action.contains('\n'), "{action:?}");
                name.as_str()
            }
            _ => panic!(),
        })
        .collect();
    assert_eq!(names, vec!["Run tests first", "Prefer rg"]);
    assert!(
        rendered.contains("\n## [2026-02-02] Instinct: Prefer rg\n"),
        "{rendered}"
    );

    let text = "# Progress\n\nSprint 12 board.\n\n## [2026-02-01 10:00] Session Summary\n**Completed:**\n- [x] parser\n\n## 2026-02-02 18:00 — Session Summary\n**In Progress:**\n- [ ] renderer\n";
    let (entries, rendered) = save_and_render(ViewFile::Progress, text).unwrap();
    assert_eq!(entries.len(), 2);
    assert!(
        matches!(&entries[1].1, Body::Progress(Progress { in_progress, .. }) if in_progress == &vec!["renderer".to_owned()])
    );
    assert!(
        rendered.starts_with(
            "# Progress\n\nSprint 12 board.\n\n## [2026-02-01 10:00] Session Summary\n"
        ),
        "{rendered}"
    );
}

#[test]
fn frames_of_the_other_seed_files() {
    let text = "# Session Log\n\nOne line per session, newest last.\n\n[2026-02-01 10:00] — built the parser\n";
    let (entries, rendered) = save_and_render(ViewFile::SessionLog, text).unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(rendered, text);
    let text = "# Cumulative Project Notes\n\n> The project's living memory.\n\n## Project Profile\n- a billing service\n";
    let (entries, rendered) = save_and_render(ViewFile::CumulativeNotes, text).unwrap();
    assert_eq!(entries.len(), 1);
    assert!(rendered.starts_with("# Cumulative Project Notes\n\n> The project's living memory.\n\n## Project Profile\n- a billing service\n"), "{rendered}");
}
