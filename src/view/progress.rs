//! `progress.md`: the seed's per-session task tracker (completed / in progress / blocked / next).

use super::entry::{self, heading_rest, push_extras, Form, RawEntry, Spec};
use super::text::{item, minute, push_item, read_items};
use super::{ParseError, Withhold};
use crate::model::kinds::Progress;
use crate::model::{Body, Extra, Record};

const FORM: Form = Form {
    aliases: &[],
    header: "# Progress\n",
    words: &["Session Summary", "Progress Update", "Progress"],
    titled: false,
    shape: "## [YYYY-MM-DD HH:MM] Session Summary",
    fields: &[
        Spec {
            label: "Completed",
            aliases: &["Done"],
            list: true,
            line: false,
        },
        Spec {
            label: "In Progress",
            aliases: &["Doing", "Ongoing"],
            list: true,
            line: false,
        },
        Spec {
            label: "Blocked",
            aliases: &["Blockers"],
            list: true,
            line: false,
        },
        Spec {
            label: "Next Session Should",
            aliases: &["Next steps", "Next", "Next session"],
            list: true,
            line: false,
        },
    ],
};

/// The checkbox each list shows, in field order.
const MARKERS: [&str; 4] = ["- [x] ", "- [ ] ", "- [ ] ", "- "];

pub(crate) fn render(records: &[Record], withhold: Withhold<'_>) -> String {
    entry::render_each("# Progress\n", records, withhold, |out, r, body| {
        if let Body::Progress(p) = body {
            let rest = match heading_rest(&p.extra) {
                Some(t) => format!(": {t}"),
                None => String::new(),
            };
            out.push_str(&format!(
                "\n## [{}] Session Summary{rest}\n",
                minute(&r.meta.ts)
            ));
            push_extras(out, &p.extra, "");
            for (i, list) in [p.completed, p.in_progress, p.blocked, p.next]
                .iter()
                .enumerate()
            {
                if list.is_empty() {
                    continue;
                }
                out.push_str(&format!("**{}:**\n", FORM.fields[i].label));
                for it in list {
                    push_item(out, MARKERS[i], it);
                }
                push_extras(out, &p.extra, FORM.fields[i].label);
            }
        }
    })
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

pub(crate) fn parse(text: &str) -> Result<super::Framed, ParseError> {
    entry::parse_entries(text, &FORM, |mut e| {
        if !e.title.is_empty() {
            e.extras.insert(
                0,
                Extra {
                    after: String::new(),
                    label: "#".into(),
                    text: std::mem::take(&mut e.title),
                },
            );
        }
        Ok(Body::Progress(Progress {
            completed: list(&e, 0),
            in_progress: list(&e, 1),
            blocked: list(&e, 2),
            next: list(&e, 3),
            extra: std::mem::take(&mut e.extras),
        }))
    })
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
        let a = Draft::new(Body::Progress(Progress {
            completed: strings(&["Parser", "Renderer"]),
            in_progress: strings(&["Save (step 2/3)"]),
            blocked: vec![],
            next: strings(&["Start with diff"]),
            extra: Vec::new(),
        }))
        .stamp("2026-04-04T14:30:00Z", 1, "a");
        assert_eq!(
            view::render_all(ViewFile::Progress, &fold([&a])),
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
    fn parses_the_seed_example_and_keeps_python_context() {
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
            view::parse_bodies(ViewFile::Progress, text).unwrap(),
            vec![Body::Progress(Progress {
                completed: strings(&["Task description"]),
                in_progress: strings(&["Task description (step X/Y)\ncontinued here"]),
                blocked: strings(&["Task description — reason"]),
                next: strings(&["Start with X", "Continue Y from step Z"]),
                extra: vec![Extra {
                    after: "Next Session Should".into(),
                    label: "Python Context".into(),
                    text: "(if Python project):\n- Python: 3.12 (uv)\n- Coverage: 80%".into(),
                }],
            })]
        );
    }

    #[test]
    fn headings_and_labels_models_write_are_read() {
        let text = "## Progress update — sprint 3\n**Done:**\n- a\n**Next steps:**\n- b\n";
        assert_eq!(
            view::parse_bodies(ViewFile::Progress, text).unwrap(),
            vec![Body::Progress(Progress {
                completed: strings(&["a"]),
                in_progress: vec![],
                blocked: vec![],
                next: strings(&["b"]),
                extra: vec![Extra {
                    after: String::new(),
                    label: "#".into(),
                    text: "— sprint 3".into(),
                }],
            })]
        );
    }

    #[test]
    fn errors_name_the_line() {
        let f = view::parse_framed(ViewFile::Progress, "# Progress\n- [x] orphan\n").unwrap();
        assert!(f.items.is_empty());
        assert_eq!(f.frame.as_deref(), Some("# Progress\n- [x] orphan\n"));
        // An item before any list is kept as the entry's prose.
        let got = view::parse_bodies(
            ViewFile::Progress,
            "# Progress\n\n## Session Summary\n- [x] no field\n",
        )
        .unwrap();
        assert!(
            matches!(&got[0], Body::Progress(Progress { extra, .. }) if extra[0].text == "\\- [x] no field"),
            "{got:?}"
        );
    }
}
