//! `checkpoint.md`: the seed's exact resume point, rendered from the one open checkpoint.

use super::text::{
    block, err, heading, is_blank, item, loose, minute, numbered, one_line, push_item, read_items,
    without_note, Src,
};
use super::{normal, ParseError};
use crate::model::{Body, Record};

#[derive(Clone, Copy, PartialEq)]
enum Part {
    Doing,
    Left,
    Context,
    Resume,
    /// Current Git State (informational) and the seed's optional sections.
    Other,
}

fn part(heading_text: &str) -> Part {
    match loose(without_note(heading_text)).as_str() {
        "whatiwasdoing" => Part::Doing,
        "whatsleft" => Part::Left,
        "contextthenextsessionneeds" => Part::Context,
        "resumecommand" | "resume" => Part::Resume,
        _ => Part::Other,
    }
}

/// Renders the open checkpoint, or `""` when none is open (the caller then removes the file,
/// as the seed moves a resolved checkpoint away).
pub(crate) fn render(open: Option<&Record>) -> String {
    let Some(r) = open else {
        return String::new();
    };
    let Body::Checkpoint {
        doing,
        left,
        context,
        resume,
        git,
    } = normal(&r.body)
    else {
        return String::new();
    };
    let mut out = format!(
        "# Checkpoint — [{}]\n\n## What I Was Doing\n",
        minute(&r.meta.ts)
    );
    push_text(&mut out, &doing);
    if let Some(g) = git {
        out.push_str("\n## Current Git State\n");
        let branch = g.branch.as_deref().map(one_line);
        out.push_str(&format!(
            "- Branch: {}\n",
            branch.as_deref().unwrap_or("(detached HEAD)")
        ));
        let head = g.head.as_deref().map(one_line);
        out.push_str(&format!(
            "- Last commit: {}\n",
            head.as_deref().unwrap_or("(none)")
        ));
        let dirty: Vec<String> = g.dirty.iter().map(|d| one_line(d)).collect();
        let dirty = if dirty.is_empty() {
            "clean".to_owned()
        } else {
            dirty.join(", ")
        };
        out.push_str(&format!("- Uncommitted changes: {dirty}\n"));
    }
    out.push_str("\n## What's Left (Ordered)\n");
    for (i, step) in left.iter().enumerate() {
        push_item(&mut out, &format!("{}. ", i + 1), step);
    }
    out.push_str("\n## Context the Next Session Needs\n");
    for c in &context {
        push_item(&mut out, "- ", c);
    }
    out.push_str("\n## Resume Command\n");
    push_text(&mut out, &resume);
    out
}

fn push_text(out: &mut String, text: &str) {
    if !text.is_empty() {
        out.push_str(text);
        out.push('\n');
    }
}

/// Zero bodies for a blank file, else one checkpoint (with `git: None`: the git state section is
/// informational). Unknown `##` sections, like the seed's "Decisions Made This Session", are
/// skipped.
pub(crate) fn parse(text: &str) -> Result<Vec<Body>, ParseError> {
    let mut parts: Vec<(Part, Vec<Src<'_>>)> = Vec::new();
    let mut any = false;
    for src in numbered(text) {
        let blank = is_blank(src.text);
        any |= !blank;
        match heading(src.text) {
            Some((1, _)) if parts.is_empty() => continue,
            Some((1, _)) => {
                return Err(err(
                    src.no,
                    "unexpected title heading after the sections; sections start with \"## \"",
                ))
            }
            Some((2, h)) => {
                parts.push((part(h), Vec::new()));
                continue;
            }
            _ => {}
        }
        match parts.last_mut() {
            Some((_, lines)) => lines.push(src),
            None if blank => {}
            None => {
                return Err(err(
                    src.no,
                    "expected \"## What I Was Doing\" (checkpoint sections start with \"## \")",
                ))
            }
        }
    }
    if !any {
        return Ok(Vec::new());
    }
    let gather = |want: Part| -> Vec<Src<'_>> {
        parts
            .iter()
            .filter(|(p, _)| *p == want)
            .flat_map(|(_, lines)| lines.iter().copied())
            .collect()
    };
    let text_of = |want: Part| {
        let joined = gather(want)
            .iter()
            .map(|s| s.text)
            .collect::<Vec<_>>()
            .join("\n");
        block(&joined, false)
    };
    let list_of = |want: Part| -> Vec<String> {
        read_items(&gather(want))
            .into_iter()
            .map(|(_, raw)| item(&raw))
            .filter(|s| !s.is_empty())
            .collect()
    };
    Ok(vec![Body::Checkpoint {
        doing: text_of(Part::Doing),
        left: list_of(Part::Left),
        context: list_of(Part::Context),
        resume: text_of(Part::Resume),
        git: None,
    }])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{fold, Draft, GitState};
    use crate::view::{self, ViewFile};

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn renders_the_open_checkpoint_only() {
        let old = Draft::new(Body::Checkpoint {
            doing: "old".into(),
            left: vec![],
            context: vec![],
            resume: String::new(),
            git: None,
        })
        .stamp("2026-04-03T10:00:00Z", 1, "a");
        let open = Draft::new(Body::Checkpoint {
            doing: "Adding retry logic to the client".into(),
            left: strings(&["Handle 429 in src/api/client.ts", "Add tests"]),
            context: strings(&["The happy path is done"]),
            resume: "Continue Phase 2 Task 3".into(),
            git: Some(GitState {
                branch: Some("feat/retry".into()),
                head: Some("abc1234".into()),
                upstream: None,
                dirty: strings(&["src/api/client.ts", "notes.txt"]),
            }),
        })
        .stamp("2026-04-04T14:30:00Z", 2, "a");
        assert_eq!(
            view::render(ViewFile::Checkpoint, &fold([&old, &open])),
            "# Checkpoint — [2026-04-04 14:30]

## What I Was Doing
Adding retry logic to the client

## Current Git State
- Branch: feat/retry
- Last commit: abc1234
- Uncommitted changes: src/api/client.ts, notes.txt

## What's Left (Ordered)
1. Handle 429 in src/api/client.ts
2. Add tests

## Context the Next Session Needs
- The happy path is done

## Resume Command
Continue Phase 2 Task 3
"
        );
        let resolved = Draft::new(Body::Resolve {
            target: open.id.clone(),
        })
        .stamp("2026-04-04T15:00:00Z", 3, "a");
        let resolved_old = Draft::new(Body::Resolve {
            target: old.id.clone(),
        })
        .stamp("2026-04-04T15:00:00Z", 4, "a");
        assert_eq!(
            view::render(
                ViewFile::Checkpoint,
                &fold([&old, &open, &resolved, &resolved_old])
            ),
            ""
        );
    }

    #[test]
    fn parses_the_seed_layout() {
        let text = "# Checkpoint — [2026-04-04 14:30]
## What I Was Doing
Implementing the retry logic,
second sub-step.
## Current Git State
- Branch: main
- Last commit: abc fix
- Uncommitted changes: clean
- Stashed: no
## Decisions Made This Session (Load-Bearing)
- Retry: exponential backoff
## What's Left (Ordered)
1. Next immediate step
2. Step after that
## Context the Next Session Needs
Things tried and failed:
- Item 1
- Item 2
## Resume Command
Continue Phase 2 Task 3
";
        assert_eq!(
            view::parse(ViewFile::Checkpoint, text).unwrap(),
            vec![Body::Checkpoint {
                doing: "Implementing the retry logic,\nsecond sub-step.".into(),
                left: strings(&["Next immediate step", "Step after that"]),
                context: strings(&["Things tried and failed:", "Item 1", "Item 2"]),
                resume: "Continue Phase 2 Task 3".into(),
                git: None,
            }]
        );
        assert_eq!(view::parse(ViewFile::Checkpoint, "\n  \n").unwrap(), vec![]);
    }

    #[test]
    fn errors_name_the_line() {
        let e = view::parse(ViewFile::Checkpoint, "# Checkpoint\nDoing stuff\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("## What I Was Doing"), "{e}");
        let e = view::parse(ViewFile::Checkpoint, "## What I Was Doing\nx\n# Again\n").unwrap_err();
        assert_eq!(e.line, 3);
    }
}
