//! Tests of `echoes.rs` (moved out of the file they test, which stays under 600 lines).

use super::*;
use crate::model::testing::meta;

/// The seed's three example entries, in its entry format.
pub const SEED_EXAMPLES: &str = include_str!("../../tests/fixtures/echoes/team/MEMORY.md");

fn bodies(role: &str, file: EchoFile, text: &str) -> Vec<Body> {
    parse(role, file, text)
        .unwrap()
        .into_iter()
        .filter_map(|p| match p {
            Parsed::Entry(e) => Some(e.body),
            Parsed::Withheld(_) => None,
        })
        .collect()
}

fn rerender(role: &str, file: EchoFile, text: &str) -> String {
    let records: Vec<Record> = bodies(role, file, text)
        .into_iter()
        .enumerate()
        .map(|(i, mut b)| {
            crate::view::normalize(&mut b);
            crate::model::validate(&b).unwrap();
            Record::new(meta(i as u64 + 1, &[]), b)
        })
        .collect();
    let state = crate::model::fold(&records);
    render(role, file, &state.echoes, &crate::view::show_all)
}

#[test]
fn the_seeds_examples_round_trip_byte_for_byte() {
    // Entries of one date are listed etched, inscribed, traced: the seed's own order.
    assert_eq!(
        rerender("team", EchoFile::Memory, SEED_EXAMPLES),
        SEED_EXAMPLES
    );
    let b = bodies("team", EchoFile::Memory, SEED_EXAMPLES);
    assert_eq!(b.len(), 3);
    assert!(
        matches!(&b[1], Body::Echo(Echo { confidence, layer, .. }) if *confidence == 0.85 && layer == "inscribed")
    );
}

#[test]
fn the_seeds_one_line_form_reads_the_same() {
    let one = "### [2026-02-11] Pattern: Unused imports in new files - **layer**: inscribed - **source**: rune:review PR #42 - **confidence**: 0.85 - **evidence**: `src/auth.py:1-5` — 3 unused imports found - **verified**: 2026-02-11 - **supersedes**: none - Codebase tends to leave unused imports in newly created files. Reviewers should flag import hygiene in new files specifically.";
    let full = SEED_EXAMPLES.split("\n\n").nth(2).unwrap();
    assert_eq!(
        bodies("team", EchoFile::Memory, one),
        bodies("team", EchoFile::Memory, full)
    );
}

#[test]
fn every_line_lands_somewhere_and_comes_back_in_place() {
    let text = "\
<!-- echo-schema: v1 -->
# Reviewer Memory

Notes kept by the review lead.

### [2026-03-01] Pattern: N+1 queries
- **layer**: inscribed
- **tags**: orm, perf
- **source**: rune:review PR #7
- **confidence**: 0.9
- **evidence**: `app/users.rb:10-20` — posts loaded per user
- **verified**: 2026-03-02
- **supersedes**: none
- Eager-load associations in list endpoints.
  Watch the admin pages too.
a stray remark
";
    let b = bodies("reviewer", EchoFile::Memory, text);
    assert_eq!(b.len(), 1);
    let Body::Echo(Echo { extra, text: t, .. }) = &b[0] else {
        panic!()
    };
    assert_eq!(
        t,
        "Eager-load associations in list endpoints.\nWatch the admin pages too."
    );
    assert_eq!(extra.len(), 3, "{extra:?}");
    let out = rerender("reviewer", EchoFile::Memory, text);
    assert_eq!(out, text);
}

#[test]
fn defaults_errors_and_the_archive() {
    let b = bodies(
        "workers",
        EchoFile::Archive,
        "## 2026-01-05 Gotcha: cargo needs --locked\n- use --locked in CI\n",
    );
    let Body::Echo(Echo {
        layer,
        verified,
        archived,
        confidence,
        ..
    }) = &b[0]
    else {
        panic!()
    };
    assert_eq!(
        (layer.as_str(), verified.as_str(), *archived, *confidence),
        ("inscribed", "2026-01-05", true, 0.5)
    );
    let e = parse("workers", EchoFile::Memory, "### Pattern: x\n- y\n").unwrap_err();
    assert_eq!(e.line, 1);
    let e = parse(
        "workers",
        EchoFile::Memory,
        "### [2026-01-01] Pattern: x\n- **confidence**: lots\n- y\n",
    )
    .unwrap_err();
    assert_eq!(e.line, 2);
    assert!(parse("w", EchoFile::Memory, "<!-- echo-schema: v2 -->\n").is_err());
    // Text but no entry is no entry, never a refusal (the plugin's placeholder).
    assert!(parse("w", EchoFile::Memory, "just prose\n")
        .unwrap()
        .is_empty());
    assert!(parse("w", EchoFile::Memory, "").unwrap().is_empty());
}

/// The plugin's files: (role, text, the titles of its entries).
const PLUGIN: &[(&str, &str, &[&str])] = &[
    (
        "reviewer",
        include_str!("../../tests/fixtures/echoes-plugin/reviewer/MEMORY.md"),
        &[
            "Session Token Handling Review",
            "Migrations Never Edit Merged Files",
            "Flaky Snapshot Test",
        ],
    ),
    (
        "planner",
        include_str!("../../tests/fixtures/echoes-plugin/planner/MEMORY.md"),
        &["Plan: Webhook Retries", "Planning Needs a Rollback Section"],
    ),
    (
        "workers",
        include_str!("../../tests/fixtures/echoes-plugin/workers/MEMORY.md"),
        &[
            "Patch Queue for Parallel Workers",
            "Slow Docker Builds",
            "Pattern: Seed-format entry in a plugin file",
        ],
    ),
    (
        "notes",
        include_str!("../../tests/fixtures/echoes-plugin/notes/MEMORY.md"),
        &["Always use pnpm"],
    ),
    (
        "observations",
        include_str!("../../tests/fixtures/echoes-plugin/observations/MEMORY.md"),
        &["Handlers Skip Input Validation", "Retry Loops Without Caps"],
    ),
];

#[test]
fn the_plugins_entries_are_read_entry_for_entry_and_written_back_losslessly() {
    for (role, text, titles) in PLUGIN {
        let b = bodies(role, EchoFile::Memory, text);
        let got: Vec<&str> = b.iter().map(|b| b.title()).collect();
        assert_eq!(&got, titles, "{role}");
        // In the seed's format, and back: the same entries.
        let out = rerender(role, EchoFile::Memory, text);
        assert!(out.starts_with(SCHEMA_HEADER), "{out}");
        let mut again = bodies(role, EchoFile::Memory, &out);
        let mut first = b.clone();
        for list in [&mut again, &mut first] {
            for x in list.iter_mut() {
                crate::view::normalize(x);
            }
            list.sort_by(|a, b| a.title().cmp(b.title()));
        }
        assert_eq!(again, first, "{role}:\n{out}");
        assert_eq!(rerender(role, EchoFile::Memory, &out), out, "{role}");
    }
}

#[test]
fn the_plugins_fields_tiers_and_sub_headings() {
    let b = bodies("reviewer", EchoFile::Memory, PLUGIN[0].1);
    let Body::Echo(Echo {
        layer,
        date,
        verified,
        source,
        confidence,
        text,
        extra,
        ..
    }) = &b[0]
    else {
        panic!()
    };
    assert_eq!(
        (
            layer.as_str(),
            date.as_str(),
            verified.as_str(),
            source.as_str(),
            *confidence
        ),
        (
            "inscribed",
            "2026-01-14",
            "2026-01-14",
            "rune:appraise a1b2c3",
            0.9
        )
    );
    assert!(
        text.starts_with("### Review Metrics\n\n- Branch: feat/session-tokens"),
        "{text}"
    );
    assert!(
        text.contains("\n\n### Key Learnings\n\n1. **Tokens logged"),
        "{text}"
    );
    assert_eq!(
        extra,
        &vec![Extra {
            after: "confidence".into(),
            label: CONFIDENCE_AS_WRITTEN.into(),
            text: "HIGH (3 Ashes, all completed)".into()
        }]
    );
    // An indented code line keeps its indentation.
    let traced = &b[2];
    assert!(
        matches!(traced, Body::Echo(Echo { layer, text, .. }) if layer == "traced" && text.contains("\n\n    expect(render(<Button/>))"))
    );
    let notes = bodies("notes", EchoFile::Memory, PLUGIN[3].1);
    assert!(matches!(&notes[0], Body::Echo(Echo { layer, .. }) if layer == "notes"));
    let obs = bodies("observations", EchoFile::Memory, PLUGIN[4].1);
    assert!(obs
        .iter()
        .all(|b| matches!(b, Body::Echo(Echo { layer, .. }) if layer == "observations")));
    // A heading of the plugin's form right under text is the text's (its indexer's rule).
    let inline = "## Inscribed — A (2026-01-01)\n**Source**: s\nsee below\n## Notes — inline note (2026-01-01)\nmore\n";
    let b = bodies("team", EchoFile::Memory, inline);
    assert_eq!(b.len(), 1, "{b:?}");
}

#[test]
fn an_entry_the_view_marked_suspicious_reads_back_as_the_entry() {
    // The mark is not the title: the entry keeps its uid, and a save sees no edit.
    let marked = SEED_EXAMPLES.replace("### [2026-02-11] ", "### [2026-02-11] [SUSPICIOUS: bidi] ");
    assert_ne!(marked, SEED_EXAMPLES);
    assert_eq!(
        bodies("team", EchoFile::Memory, &marked),
        bodies("team", EchoFile::Memory, SEED_EXAMPLES)
    );
}
