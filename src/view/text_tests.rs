//! Tests of `text.rs` (moved out of the file they test, which stays under 600 lines).

use super::*;

#[test]
fn structure_is_recognised_only_at_column_zero() {
    assert_eq!(heading("## Decision: x"), Some((2, "Decision: x")));
    assert_eq!(heading("##"), Some((2, "")));
    assert_eq!(heading("#123 issue"), None);
    assert_eq!(heading(" ## x"), None);
    assert_eq!(field_line("**Context:** why"), Some(("Context", "why")));
    assert_eq!(field_line("**Context**: why"), Some(("Context", "why")));
    assert_eq!(
        field_line("**Python Context** (if Python project):"),
        Some(("Python Context", "(if Python project):"))
    );
    assert_eq!(field_line("**:** x"), None);
    assert_eq!(field_line(" **Context:** x"), None);
    assert!(is_structural("### sub heading"));
    assert!(is_structural("- **Context:** c"));
    assert!(is_structural(
        "> withheld by git-rune: decision 0123abcd is TAINTED"
    ));
    assert!(!is_structural(" ### indented"));
}

#[test]
fn any_line_ending_ends_a_line() {
    fn lines(t: &str) -> Vec<&str> {
        numbered(t).map(|s| s.text).collect()
    }
    assert_eq!(lines("a\rb\r\nc\nd"), vec!["a", "b", "c", "d"]);
    assert_eq!(lines("\u{feff}a\r\r"), vec!["a", ""]);
    assert_eq!(lines(""), Vec::<&str>::new());
}

#[test]
fn block_escapes_lines_that_look_like_structure() {
    assert_eq!(
        block("a\n## b\n**C:** d\n### e", true),
        "a\n ## b\n **C:** d\n ### e"
    );
    assert_eq!(block("# title\nx", false), "\\# title\nx");
    // A blank line ends a value, so the normal form has none (outside fences).
    assert_eq!(block("  a  \r\n\r\n b \n\n", true), "a\n b");
    assert_eq!(block("a\n---\n\n* * *\n", true), "a");
    assert_eq!(block("---\na", true), "a");
    assert_eq!(block("```\n## x\n\n```\ny", true), "```\n## x\n\n```\ny");
    assert_eq!(block("```rust\nfn f() {}", true), "```rust\nfn f() {}\n```");
    let once = block("x\n# y\n**z**", false);
    assert_eq!(block(&once, false), once);
}

#[test]
fn items_lose_checkboxes_and_blank_lines() {
    assert_eq!(item("[ ] [x] do it"), "do it");
    assert_eq!(item("- [ ] 1. do it"), "do it");
    assert_eq!(item("-5 degrees"), "-5 degrees");
    assert_eq!(item("---"), "");
    assert_eq!(item("a\n---"), "a\n---");
    assert_eq!(item("[ ]x"), "[ ]x");
    assert_eq!(item("a\n\n  b  "), "a\n  b");
    assert_eq!(one_line(" a \n b\r\nc "), "a b c");
}

#[test]
fn items_read_markers_and_continuations() {
    let lines: Vec<Src> = numbered("- [x] one\n  more\n\n2. two\nprose\n\tcont").collect();
    let got = read_items(&lines);
    assert_eq!(
        got,
        vec![
            (1, "[x] one\nmore".to_owned()),
            (4, "two".to_owned()),
            (5, "prose\ncont".to_owned())
        ]
    );
}

#[test]
fn dates_are_sliced_safely() {
    assert_eq!(minute("2026-04-04T14:30:00Z"), "2026-04-04 14:30");
    assert_eq!(day("2026-04-04T14:30:00Z"), "2026-04-04");
    assert_eq!(minute("bad"), "0000-00-00 00:00");
    assert_eq!(minute("2026-04-04Té"), "2026-04-04 00:00");
    assert_eq!(
        leading_date("[2026-01-01 10:00] Decision: x"),
        Some(("2026-01-01T10:00:00Z".into(), "Decision: x"))
    );
    assert_eq!(
        leading_date("2026-01-01 10:00 Decision: x"),
        Some(("2026-01-01T10:00:00Z".into(), "Decision: x"))
    );
    assert_eq!(
        leading_date("2026-04-05T10:15:00+02:00 Decision: x"),
        Some(("2026-04-05T08:15:00Z".into(), "Decision: x"))
    );
    assert_eq!(
        leading_date("[2026-04-05] x"),
        Some(("2026-04-05T00:00:00Z".into(), "x"))
    );
    assert_eq!(leading_date("Decision: x"), None);
    assert_eq!(leading_date("[WIP] x"), None);
    assert_eq!(
        date_prefix("[2026-13-45] Decision: x"),
        DatePrefix::Bad("2026-13-45")
    );
    assert_eq!(
        date_prefix("2026-02-30 Decision: x"),
        DatePrefix::Bad("2026-02-30")
    );
    assert_eq!(date_prefix("[WIP] x"), DatePrefix::None);
    assert_eq!(date_prefix("2026 roadmap"), DatePrefix::None);
    assert_eq!(
        date_prefix("2026-11-25 10:30 - Decision: x"),
        DatePrefix::Date("2026-11-25T10:30:00Z".into(), "- Decision: x")
    );
    assert_eq!(
        date_prefix("2026-11-25 — Decision: x"),
        DatePrefix::Date("2026-11-25T00:00:00Z".into(), "— Decision: x")
    );
}

#[test]
fn paths_read_quoted_or_comma_lists() {
    assert_eq!(read_paths("`src/{a,b}.rs`, `c`"), vec!["src/{a,b}.rs", "c"]);
    assert_eq!(paths(&read_paths("a, b ,,"), true), vec!["a", "b"]);
    assert_eq!(paths(&["`x`".into(), " ".into()], false), vec!["x"]);
}
