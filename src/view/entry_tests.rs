//! Tests of `entry.rs` (moved out of the file they test, which stays under 600 lines).

use super::*;

const FORM: Form = Form {
    words: &["Decision"],
    aliases: &["ADR", "Architecture decision"],
    header: "# Decisions Log\n",
    titled: true,
    shape: "## [YYYY-MM-DD HH:MM] Decision: <title>",
    fields: &[text("Context"), text("Decision")],
};

fn one(text: &str) -> RawEntry<'_> {
    let mut items = parse(text, &FORM).unwrap();
    assert_eq!(items.len(), 1, "{items:?}");
    match items.remove(0) {
        RawItem::Entry(e) => e,
        other => panic!("{other:?}"),
    }
}

#[test]
fn fields_run_on_and_what_the_form_does_not_know_is_kept() {
    let e = one("# Log\n\n## Decision: A\n**Context:** one\ntwo\n**Extra** (note):\n- kept\n**decision**: d\n\nprose\n");
    assert_eq!(e.title, "A");
    assert_eq!(e.text(0), "one\ntwo");
    assert_eq!(e.text(1), "d");
    assert_eq!(e.field(1).map(|f| f.line), Some(8));
    assert_eq!(
        e.extras,
        vec![
            Extra {
                after: "Context".into(),
                label: "Extra".into(),
                text: "(note):\n- kept".into()
            },
            Extra {
                after: "Decision".into(),
                label: String::new(),
                text: "prose".into()
            }
        ]
    );
}

#[test]
fn headings_dates_and_bullets_are_read_leniently() {
    let items = parse(
        "### [2026-04-05] Decision: A\n- **Context:** c\n- **Decision:** d\n## 2026-04-05T10:15:00Z Decision: B\n**Decision:** e\n### Notes\nsee above\n\nmore\n",
        &FORM,
    )
    .unwrap();
    let entries: Vec<&RawEntry> = entries(&items).collect();
    assert_eq!(entries.len(), 2, "{items:?}");
    assert_eq!(entries[0].at.as_deref(), Some("2026-04-05T00:00:00Z"));
    assert_eq!(entries[0].text(0), "c");
    assert_eq!(entries[1].at.as_deref(), Some("2026-04-05T10:15:00Z"));
    assert_eq!(entries[1].title, "B");
    assert_eq!(
        entries[1].extras,
        vec![Extra {
            after: "Decision".into(),
            label: "### Notes".into(),
            text: "see above\n\nmore".into()
        }]
    );
}

#[test]
fn fences_are_read_whole() {
    let e = one("## Decision: A\n**Decision:** d\n```\n## not a heading\n\n**X:** y\n```\n");
    assert_eq!(e.text(1), "d\n```\n## not a heading\n\n**X:** y\n```");
    assert!(e.extras.is_empty());
}

#[test]
fn text_before_an_entry_is_the_frame_and_broken_headings_are_errors_with_their_line() {
    let (items, frame) = parse_framed("# Log\nhello\n", &FORM).unwrap();
    assert!(items.is_empty());
    assert_eq!(frame.as_deref(), Some("# Log\nhello\n"));
    assert_eq!(parse("## Decision:\n", &FORM).unwrap_err().line, 1);
    // A heading that is no entry stays in the frame.
    assert!(parse("## Note: A\n", &FORM).unwrap().is_empty());
    let e = parse("## [2026-13-45] Decision: A\n", &FORM).unwrap_err();
    assert_eq!(e.line, 1);
    assert!(
        e.message
            .contains("## [YYYY-MM-DD HH:MM] Decision: <title>"),
        "{e}"
    );
    // Inside an entry, an unknown heading is kept, not refused.
    assert_eq!(one("## Decision: A\n## Note\n").extras.len(), 1);
}
