//! `context-blocks.md`: the branch's context blocks (seed 003: architecture decisions, error
//! patterns, critical pitfalls), one per heading.
//!
//! ```text
//! # Context Blocks
//!
//! ## JWT Auth Setup
//! **Updated:** 2026-04-04T10:00:00Z
//! **Related tasks:** TASK_001, TASK_003
//!
//!   RS256 algo. Pub key: ~/config/jwt-keys/public.pem.
//!
//!   ## Rotation
//!   Monthly.
//! ```
//!
//! A block's content is free text kept exactly (blank lines, headings, indentation), so it is
//! written indented by two spaces: structure is only ever read at column 0. Reading is lenient:
//! content may be written unindented (a line that is not a `## ` heading or a withheld-record
//! placeholder), `Updated`/`Related tasks` may be written without bold or as bullets, and a
//! block without `Updated` is stamped when saved. Text before the first block (other than the
//! `# ` title) and a second block of one title are refused with their line: nothing is
//! dropped.

use super::entry;
use super::text::{
    bullet_field_line, err, field_line, heading, loose, numbered, parse_time, withheld_id,
};
use super::{ParseError, Parsed, Withhold};
use crate::model::kinds::ContextBlock;
use crate::model::{Body, Record};

/// The indent content is written with.
const INDENT: &str = "  ";

pub(crate) fn render(records: &[Record], withhold: Withhold<'_>) -> String {
    if records.is_empty() {
        return String::new();
    }
    entry::render_each("# Context Blocks\n", records, withhold, |out, _, body| {
        let Body::ContextBlock(b) = body else {
            return;
        };
        out.push_str(&format!("\n## {}\n", b.title));
        if !b.updated.is_empty() {
            out.push_str(&format!("**Updated:** {}\n", b.updated));
        }
        if !b.related_tasks.is_empty() {
            out.push_str(&format!(
                "**Related tasks:** {}\n",
                b.related_tasks.join(", ")
            ));
        }
        if !b.content.is_empty() {
            out.push('\n');
            for line in b.content.split('\n') {
                if !line.is_empty() {
                    out.push_str(INDENT);
                    out.push_str(line);
                }
                out.push('\n');
            }
        }
    })
}

/// A `Label: value` line before a block's content: `**Updated:**`, `- **Updated:**` or plain
/// `Updated:`; the label compared loosely.
fn label_line(line: &str) -> Option<(String, &str)> {
    if let Some((label, value)) = field_line(line).or_else(|| bullet_field_line(line)) {
        return Some((loose(label), value));
    }
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    let (label, value) = line.split_once(':')?;
    let l = loose(label);
    matches!(l.as_str(), "updated" | "relatedtasks" | "related").then(|| (l, value.trim()))
}

/// One block being read.
struct Open {
    title: String,
    updated: String,
    related: Vec<String>,
    content: Vec<String>,
    /// Labels are read until the first content line.
    in_content: bool,
}

impl Open {
    fn finish(self) -> Parsed {
        let mut lines = self.content;
        while lines.last().is_some_and(|l| l.trim().is_empty()) {
            lines.pop();
        }
        Parsed::entry(
            Body::ContextBlock(ContextBlock {
                title: self.title,
                content: lines.join("\n"),
                updated: self.updated,
                related_tasks: self.related,
            }),
            None,
        )
    }
}

pub(crate) fn parse(text: &str) -> Result<Vec<Parsed>, ParseError> {
    let mut out = Vec::new();
    let mut open: Option<Open> = None;
    let mut titles: Vec<(String, usize)> = Vec::new();
    for src in numbered(text) {
        let line = src.text;
        if let Some(id) = withheld_id(line) {
            out.extend(open.take().map(Open::finish));
            out.push(Parsed::Withheld(id.to_owned()));
            continue;
        }
        match heading(line) {
            Some((2, title)) => {
                out.extend(open.take().map(Open::finish));
                let title = title.to_owned();
                if let Some((_, first)) = titles.iter().find(|(t, _)| *t == title) {
                    return Err(err(
                        src.no,
                        format!("a second block titled {title:?} (the first is on line {first}): give it another title or merge the two"),
                    ));
                }
                titles.push((title.clone(), src.no));
                open = Some(Open {
                    title,
                    updated: String::new(),
                    related: Vec::new(),
                    content: Vec::new(),
                    in_content: false,
                });
                continue;
            }
            Some((1, _)) if open.is_none() && titles.is_empty() => continue,
            _ => {}
        }
        let Some(block) = open.as_mut() else {
            if line.trim().is_empty() {
                continue;
            }
            return Err(err(
                src.no,
                "text before the first block: put it under a `## <title>` heading",
            ));
        };
        if !block.in_content {
            if line.trim().is_empty() {
                continue;
            }
            if let Some((label, value)) = label_line(line) {
                match label.as_str() {
                    "updated" => {
                        block.updated = parse_time(value).ok_or_else(|| {
                            err(
                                src.no,
                                format!(
                                    "Updated {value:?} is not a time like 2026-04-05T10:15:00Z"
                                ),
                            )
                        })?;
                        continue;
                    }
                    "relatedtasks" | "related" => {
                        block.related = value
                            .split([',', ' ', '\t'])
                            .map(str::trim)
                            .filter(|t| !t.is_empty())
                            .map(str::to_owned)
                            .collect();
                        continue;
                    }
                    _ => {}
                }
            }
            block.in_content = true;
        }
        let content = line.strip_prefix(INDENT).unwrap_or(line);
        if block.content.is_empty() && content.trim().is_empty() {
            continue;
        }
        block.content.push(content.to_owned());
    }
    out.extend(open.map(Open::finish));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{fold, Draft};
    use crate::view::{self, ViewFile};

    fn block(title: &str, content: &str, related: &[&str]) -> Body {
        Body::ContextBlock(ContextBlock {
            title: title.into(),
            content: content.into(),
            updated: "2026-04-04T10:00:00Z".into(),
            related_tasks: related.iter().map(|s| s.to_string()).collect(),
        })
    }

    #[test]
    fn renders_and_reads_back_content_exactly() {
        let content =
            "RS256 algo.\n\n## Rotation\n  indented\n**Bold:** label-like\n```\ncode\n```";
        let a = Draft::new(block("JWT Auth Setup", content, &["TASK_001", "TASK_003"])).stamp(
            "2026-04-04T10:00:00Z",
            1,
            "a",
        );
        let b = Draft::new(block("Caching", "Redis, 5 min TTL", &[])).stamp(
            "2026-04-05T10:00:00Z",
            2,
            "a",
        );
        let text = view::render_all(ViewFile::ContextBlocks, &fold([&a, &b]));
        assert_eq!(
            text,
            "# Context Blocks

## JWT Auth Setup
**Updated:** 2026-04-04T10:00:00Z
**Related tasks:** TASK_001, TASK_003

  RS256 algo.

  ## Rotation
    indented
  **Bold:** label-like
  ```
  code
  ```

## Caching
**Updated:** 2026-04-04T10:00:00Z

  Redis, 5 min TTL
"
        );
        let back = view::parse_bodies(ViewFile::ContextBlocks, &text).unwrap();
        assert_eq!(back, vec![a.body.clone(), b.body.clone()]);
        assert_eq!(
            view::render_all(ViewFile::ContextBlocks, &fold([&a, &b])),
            text,
            "stable"
        );
    }

    #[test]
    fn no_blocks_no_file() {
        assert_eq!(
            view::render_all(ViewFile::ContextBlocks, &Default::default()),
            ""
        );
    }

    #[test]
    fn reads_what_an_agent_writes() {
        let text = "# Context Blocks\r\n\r\n## Error patterns\r\n- **Updated:** 2026-04-05 09:30\r\nRelated: TASK_002 TASK_004\r\nTimeouts come from the proxy.\r\nRetry with backoff.\r\n\r\n## New one\r\nNo date yet.\r\n";
        let got = view::parse_bodies(ViewFile::ContextBlocks, text).unwrap();
        assert_eq!(
            got,
            vec![
                Body::ContextBlock(ContextBlock {
                    title: "Error patterns".into(),
                    content: "Timeouts come from the proxy.\nRetry with backoff.".into(),
                    updated: "2026-04-05T09:30:00Z".into(),
                    related_tasks: vec!["TASK_002".into(), "TASK_004".into()],
                }),
                Body::ContextBlock(ContextBlock {
                    title: "New one".into(),
                    content: "No date yet.".into(),
                    updated: String::new(),
                    related_tasks: Vec::new(),
                }),
            ]
        );
    }

    #[test]
    fn refuses_what_it_would_drop() {
        let e =
            view::parse_bodies(ViewFile::ContextBlocks, "# Context Blocks\nstray\n").unwrap_err();
        assert_eq!(e.line, 2);
        let e = view::parse_bodies(ViewFile::ContextBlocks, "## A\nx\n## A\ny\n").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("line 1"), "{e}");
        let e = view::parse_bodies(ViewFile::ContextBlocks, "## A\nUpdated: soon\n").unwrap_err();
        assert_eq!(e.line, 2);
        // Indented, a label-like line is content.
        let got = view::parse_bodies(ViewFile::ContextBlocks, "## A\n  Updated: soon\n").unwrap();
        assert!(
            matches!(&got[0], Body::ContextBlock(ContextBlock { content, .. }) if content == "Updated: soon")
        );
    }
}
