//! `progress.md`: the seed's per-session task tracker (completed / in progress / blocked / next).

use super::entry::{self, Form, RawEntry};
use super::text::{item, minute, push_item, read_items};
use super::{normal, ParseError};
use crate::model::{Body, Record};

const FORM: Form = Form {
    word: "Session Summary",
    titled: false,
    shape: "## [YYYY-MM-DD HH:MM] Session Summary",
    fields: &["Completed", "In Progress", "Blocked", "Next Session Should"],
};

/// The checkbox each list shows, in field order.
const MARKERS: [&str; 4] = ["- [x] ", "- [ ] ", "- [ ] ", "- "];

pub(crate) fn render(records: &[Record]) -> String {
    let mut out = String::from("# Progress\n");
    for r in records {
        if let Body::Progress {
            completed,
            in_progress,
            blocked,
            next,
        } = normal(&r.body)
        {
            out.push_str(&format!("\n## [{}] Session Summary\n", minute(&r.meta.ts)));
            for (i, list) in [completed, in_progress, blocked, next].iter().enumerate() {
                if list.is_empty() {
                    continue;
                }
                out.push_str(&format!("**{}:**\n", FORM.fields[i]));
                for it in list {
                    push_item(&mut out, MARKERS[i], it);
                }
            }
        }
    }
    out
}

fn list(e: &RawEntry<'_>, i: usize) -> Vec<String> {
    let Some(f) = e.field(i) else {
        return Vec::new();
    };
    read_items(&f.lines)
        .into_iter()
        .map(|(_, raw)| item(&raw))
        .filter(|s| !s.is_empty())
        .collect()
}

pub(crate) fn parse(text: &str) -> Result<Vec<Body>, ParseError> {
    Ok(entry::parse(text, &FORM)?
        .iter()
        .map(|e| Body::Progress {
            completed: list(e, 0),
            in_progress: list(e, 1),
            blocked: list(e, 2),
            next: list(e, 3),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{fold, Draft};
    use crate::view::{self, ViewFile};

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn renders_only_non_empty_lists() {
        let a = Draft::new(Body::Progress {
            completed: strings(&["Parser", "Renderer"]),
            in_progress: strings(&["Save (step 2/3)"]),
            blocked: vec![],
            next: strings(&["Start with diff"]),
        })
        .stamp("2026-04-04T14:30:00Z", 1, "a");
        assert_eq!(
            view::render(ViewFile::Progress, &fold([&a])),
            "# Progress

## [2026-04-04 14:30] Session Summary
**Completed:**
- [x] Parser
- [x] Renderer
**In Progress:**
- [ ] Save (step 2/3)
**Next Session Should:**
- Start with diff
"
        );
    }

    #[test]
    fn parses_the_seed_example_and_skips_python_context() {
        let text = "# Progress

## [2026-04-04 14:30] Session Summary
**Completed:**
- [x] Task description
**In Progress:**
- [ ] Task description (step X/Y)
  continued here
**Blocked:**
- [ ] Task description — reason
**Next Session Should:**
- Start with X
- Continue Y from step Z
**Python Context** (if Python project):
- Python: 3.12 (uv)
- Coverage: 80%
";
        assert_eq!(
            view::parse(ViewFile::Progress, text).unwrap(),
            vec![Body::Progress {
                completed: strings(&["Task description"]),
                in_progress: strings(&["Task description (step X/Y)\ncontinued here"]),
                blocked: strings(&["Task description — reason"]),
                next: strings(&["Start with X", "Continue Y from step Z"]),
            }]
        );
    }

    #[test]
    fn errors_name_the_line() {
        let e = view::parse(ViewFile::Progress, "# Progress\n- [x] orphan\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(
            e.message.contains("## [YYYY-MM-DD HH:MM] Session Summary"),
            "{e}"
        );
        let e = view::parse(
            ViewFile::Progress,
            "# Progress\n\n## Session Summary\n- [x] no field\n",
        )
        .unwrap_err();
        assert_eq!(e.line, 4);
        assert!(e.message.contains("**Completed:**"), "{e}");
    }
}
