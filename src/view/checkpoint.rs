//! `checkpoint.md`: the seed's exact resume point, rendered from the one open checkpoint.
//!
//! Sections may be written at `##` or `###`. Sections the checkpoint does not know (the seed's
//! "Decisions Made This Session (Load-Bearing)", a `## Notes`) and prose before the first
//! section are kept as the record's extras and written back in place. The "Current Git State"
//! section an agent wrote (branch, last commit and its message, uncommitted files, stash) is
//! kept as written, beside the git state git-rune captures when it saves the checkpoint; a
//! checkpoint without one shows git-rune's (Branch, Last commit, Uncommitted changes).

use super::text::{
    block, err, fence, heading, is_blank, item, leading_date, loose, minute, numbered, one_line,
    push_item, read_items, strip_word, withheld_id, withheld_line, without_note, Src,
};
use super::{normal, normalize, ParseError, Parsed, Withhold};
use crate::model::kinds::Checkpoint;
use crate::model::{Body, Extra, Record};

/// The sections the checkpoint knows, in the order it writes them (the names extras are
/// placed after).
pub(crate) const SECTIONS: [&str; 5] = [
    "What I Was Doing",
    GIT_STATE,
    "What's Left",
    "Context the Next Session Needs",
    "Resume Command",
];
pub(crate) const GIT_STATE: &str = "Current Git State";

/// The known section a heading names, as an index into [`SECTIONS`].
fn part(heading_text: &str) -> Option<usize> {
    match loose(without_note(heading_text)).as_str() {
        "whatiwasdoing" => Some(0),
        "currentgitstate" | "gitstate" => Some(1),
        "whatsleft" => Some(2),
        "contextthenextsessionneeds" | "context" => Some(3),
        "resumecommand" | "resume" => Some(4),
        _ => None,
    }
}

/// Renders the open checkpoint, or `""` when none is open (the caller then removes the file,
/// as the seed moves a resolved checkpoint away).
pub(crate) fn render(open: Option<&Record>, withhold: Withhold<'_>) -> String {
    let Some(r) = open else {
        return String::new();
    };
    if withhold(r) {
        return format!("# Checkpoint\n\n{}\n", withheld_line("checkpoint", &r.id));
    }
    let Body::Checkpoint(c) = normal(&r.body) else {
        return String::new();
    };
    let mut out = format!("# Checkpoint — [{}]\n", minute(&r.meta.ts));
    push_after(&mut out, &c.extra, "");
    let with_extras = |i: usize, out: &mut String| push_after(out, &c.extra, SECTIONS[i]);
    out.push_str("\n## What I Was Doing\n");
    push_text(&mut out, &c.doing);
    with_extras(0, &mut out);
    let written = written_git_state(&c.extra).is_some();
    if c.git.is_some() || c.extra.iter().any(|x| x.after == GIT_STATE) {
        out.push_str(&format!("\n## {GIT_STATE}\n"));
        // The agent's own lines when it wrote them; else what git-rune captured.
        if let (Some(g), false) = (&c.git, written) {
            out.push_str(&git_lines(g));
        }
        with_extras(1, &mut out);
    }
    out.push_str("\n## What's Left (Ordered)\n");
    for (i, step) in c.left.iter().enumerate() {
        push_item(&mut out, &format!("{}. ", i + 1), step);
    }
    with_extras(2, &mut out);
    out.push_str("\n## Context the Next Session Needs\n");
    for c in &c.context {
        push_item(&mut out, "- ", c);
    }
    with_extras(3, &mut out);
    out.push_str("\n## Resume Command\n");
    push_text(&mut out, &c.resume);
    with_extras(4, &mut out);
    out
}

/// The extras after a section (`""`: after the title): first its unlabelled lines (prose
/// before the first section, or lines of the git state section that git-rune does not
/// write), then the sections the checkpoint does not know.
fn push_after(out: &mut String, extra: &[Extra], after: &str) {
    for x in extra
        .iter()
        .filter(|x| x.after == after && x.label.is_empty())
    {
        if after.is_empty() {
            out.push('\n');
        }
        push_text(out, &x.text);
    }
    for x in extra
        .iter()
        .filter(|x| x.after == after && !x.label.is_empty())
    {
        out.push_str(&format!("\n{}\n", x.label));
        push_text(out, &x.text);
    }
}

fn push_text(out: &mut String, text: &str) {
    if !text.is_empty() {
        out.push_str(text);
        out.push('\n');
    }
}

/// Where the lines of a file go while it is read.
enum Part<'a> {
    /// Before the first section: prose.
    Before,
    Known(usize),
    /// A section the checkpoint does not know: its heading as written.
    Other(&'a str),
}

/// Zero entries for a blank file, else one checkpoint (with `git: None`: git-rune captures the
/// git state when it saves the checkpoint), or the placeholder of a withheld one.
pub(crate) fn parse(text: &str) -> Result<Vec<Parsed>, ParseError> {
    let mut parts: Vec<(Part<'_>, Vec<Src<'_>>)> = vec![(Part::Before, Vec::new())];
    let mut at = None;
    let mut titled = false;
    let mut any = false;
    let mut open_fence: Option<&str> = None;
    for src in numbered(text) {
        any |= !is_blank(src.text);
        // Inside a code fence every line is content of the section it is in.
        let fenced = open_fence.is_some();
        match open_fence {
            Some(marker) if src.text.starts_with(marker) => open_fence = None,
            Some(_) => {}
            None => open_fence = fence(src.text),
        }
        if let (true, Some((_, lines))) = (fenced, parts.last_mut()) {
            lines.push(src);
            continue;
        }
        if let Some(id) = withheld_id(src.text) {
            return Ok(vec![Parsed::Withheld(id.to_owned())]);
        }
        match heading(src.text) {
            Some((1, h)) if !titled && parts.len() == 1 => {
                titled = true;
                let rest = strip_word(h.trim(), "Checkpoint").unwrap_or(h).trim_start();
                let rest = rest.trim_start_matches(['—', '–', '-', ':', ' ']);
                at = leading_date(rest).map(|(t, _)| t);
                continue;
            }
            Some((level, h)) if level <= 3 => {
                let p = part(h).map_or(Part::Other(src.text.trim()), Part::Known);
                parts.push((p, Vec::new()));
                continue;
            }
            _ => {}
        }
        if let Some((_, lines)) = parts.last_mut() {
            lines.push(src);
        }
    }
    if !any {
        return Ok(Vec::new());
    }
    let join = |lines: &[Src<'_>]| lines.iter().map(|s| s.text).collect::<Vec<_>>().join("\n");
    let gather = |want: usize| -> Vec<Src<'_>> {
        parts
            .iter()
            .filter_map(|(p, lines)| match p {
                Part::Known(i) if *i == want => Some(lines.iter().copied()),
                _ => None,
            })
            .flatten()
            .collect()
    };
    let list_of = |want: usize| -> Vec<String> {
        read_items(&gather(want))
            .into_iter()
            .map(|(_, raw)| item(&raw))
            .filter(|s| !s.is_empty())
            .collect()
    };
    let mut extra = Vec::new();
    let mut after = "";
    for (p, lines) in &parts {
        let (slot, label) = match p {
            Part::Before => ("", ""),
            Part::Known(i) => {
                after = SECTIONS[*i];
                // The section as written: the agent's git state is kept as it is.
                if *i != 1 {
                    continue;
                }
                (GIT_STATE, "")
            }
            Part::Other(h) => (after, *h),
        };
        extra.push(Extra {
            after: slot.to_owned(),
            label: label.to_owned(),
            text: block(&join(lines), false),
        });
    }
    if gather(0).iter().all(|s| is_blank(s.text))
        && !parts.iter().any(|(p, _)| matches!(p, Part::Known(0)))
    {
        return Err(err(
            1,
            "a checkpoint needs a \"## What I Was Doing\" section saying the exact task and sub-step",
        ));
    }
    let mut body = Body::Checkpoint(Checkpoint {
        doing: block(&join(&gather(0)), false),
        left: list_of(2),
        context: list_of(3),
        resume: block(&join(&gather(4)), false),
        git: None,
        extra,
    });
    normalize(&mut body);
    Ok(vec![Parsed::entry(body, at)])
}

/// The git state lines git-rune writes for a captured state.
pub(crate) fn git_lines(g: &crate::model::GitState) -> String {
    let branch = g.branch.as_deref().map(one_line);
    let head = g.head.as_deref().map(one_line);
    let dirty: Vec<String> = g.dirty.iter().map(|d| one_line(d)).collect();
    let dirty = if dirty.is_empty() {
        "clean".to_owned()
    } else {
        dirty.join(", ")
    };
    format!(
        "- Branch: {}\n- Last commit: {}\n- Uncommitted changes: {dirty}\n",
        branch.as_deref().unwrap_or("(detached HEAD)"),
        head.as_deref().unwrap_or("(none)")
    )
}

/// The git state an agent wrote in the checkpoint's "Current Git State" section: its
/// branch and last commit (the hash, without the message), when it wrote either.
pub fn written_git_state(extra: &[Extra]) -> Option<(Option<String>, Option<String>)> {
    let text = extra
        .iter()
        .find(|x| x.after == GIT_STATE && x.label.is_empty())?
        .text
        .clone();
    let mut branch = None;
    let mut commit = None;
    for line in text.lines() {
        let t = line.trim_start().trim_start_matches(['-', '*', ' ', '\\']);
        let Some((label, value)) = t.split_once(':') else {
            continue;
        };
        let value = value.trim().trim_matches('`').trim();
        match loose(label).as_str() {
            "branch" if !value.is_empty() => branch = Some(value.to_owned()),
            "lastcommit" => {
                let hash = value
                    .trim_start_matches(['`', '['])
                    .split(|c: char| !c.is_ascii_hexdigit())
                    .next()
                    .unwrap_or("");
                if hash.len() >= 4 {
                    commit = Some(hash.to_lowercase());
                }
            }
            _ => {}
        }
    }
    (branch.is_some() || commit.is_some()).then_some((branch, commit))
}

/// A checkpoint read from the view without the git state lines git-rune itself wrote for
/// `captured` (the view showed them): they are git-rune's, not the agent's.
pub(crate) fn without_rendered_git(body: &mut Body, captured: Option<&crate::model::GitState>) {
    let (Body::Checkpoint(Checkpoint { extra, .. }), Some(g)) = (body, captured) else {
        return;
    };
    // As the parser normalised what it read.
    let rendered = block(&git_lines(g), false);
    let rendered = rendered.as_str();
    if let Some(i) = extra
        .iter()
        .position(|x| x.after == GIT_STATE && x.label.is_empty())
    {
        let text = extra[i].text.clone();
        if let Some(rest) = text.strip_prefix(rendered) {
            let rest = rest.trim_start_matches('\n').to_owned();
            if rest.is_empty() {
                extra.remove(i);
            } else {
                extra[i].text = rest;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::kinds::Resolve;
    use crate::model::{fold, Draft, Extra, GitState};
    use crate::view::{self, ViewFile};

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn renders_the_open_checkpoint_only() {
        let old = Draft::new(Body::Checkpoint(Checkpoint {
            doing: "old".into(),
            left: vec![],
            context: vec![],
            resume: String::new(),
            git: None,
            extra: Vec::new(),
        }))
        .stamp("2026-04-03T10:00:00Z", 1, "a");
        let open = Draft::new(Body::Checkpoint(Checkpoint {
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
            extra: Vec::new(),
        }))
        .stamp("2026-04-04T14:30:00Z", 2, "a");
        assert_eq!(
            view::render_all(ViewFile::Checkpoint, &fold([&old, &open])),
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
        let resolved = Draft::new(Body::Resolve(Resolve {
            target: open.id.clone(),
        }))
        .stamp("2026-04-04T15:00:00Z", 3, "a");
        let resolved_old = Draft::new(Body::Resolve(Resolve {
            target: old.id.clone(),
        }))
        .stamp("2026-04-04T15:00:00Z", 4, "a");
        assert_eq!(
            view::render_all(
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
            view::parse_bodies(ViewFile::Checkpoint, text).unwrap(),
            vec![Body::Checkpoint(Checkpoint {
                doing: "Implementing the retry logic,\nsecond sub-step.".into(),
                left: strings(&["Next immediate step", "Step after that"]),
                context: strings(&["Things tried and failed:", "Item 1", "Item 2"]),
                resume: "Continue Phase 2 Task 3".into(),
                git: None,
                // The agent's git state, as written (git-rune captures its own beside it).
                extra: vec![
                    Extra {
                        after: "Current Git State".into(),
                        label: String::new(),
                        text: "- Branch: main\n- Last commit: abc fix\n- Uncommitted changes: clean\n- Stashed: no".into(),
                    },
                    Extra {
                        after: "Current Git State".into(),
                        label: "## Decisions Made This Session (Load-Bearing)".into(),
                        text: "- Retry: exponential backoff".into(),
                    },
                ],
            })]
        );
        // The date in the title is the checkpoint's time.
        match &view::parse(ViewFile::Checkpoint, text).unwrap()[0] {
            crate::view::Parsed::Entry(e) => {
                assert_eq!(e.at.as_deref(), Some("2026-04-04T14:30:00Z"))
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            view::parse_bodies(ViewFile::Checkpoint, "\n  \n").unwrap(),
            vec![]
        );
    }

    #[test]
    fn a_checkpoint_needs_what_it_was_doing_and_keeps_everything_else() {
        let e =
            view::parse_bodies(ViewFile::Checkpoint, "# Checkpoint\nDoing stuff\n").unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.message.contains("## What I Was Doing"), "{e}");
        let got = view::parse_bodies(
            ViewFile::Checkpoint,
            "### What I Was Doing\nx\n# Again\ny\n",
        )
        .unwrap();
        assert!(
            matches!(&got[0], Body::Checkpoint(Checkpoint { doing, extra, .. })
                if doing == "x" && extra[0].label == "# Again" && extra[0].text == "y"),
            "{got:?}"
        );
    }
}
