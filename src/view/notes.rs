//! `cumulative-notes.md` and `task-notes.md`: fixed `## Section` headings with `- item` lists,
//! one record per item.

use super::text::{
    err, heading, is_blank, is_checked, item, numbered, one_line, push_item, read_items,
    strip_word, withheld_id, withheld_line, without_note, Src,
};
use super::{normal, ParseError, Parsed, Withhold};
use crate::model::kinds::{CumulativeNote, TaskNote};
use crate::model::{canonical_section, Body, Record, CUMULATIVE_SECTIONS, TASK_SECTIONS};

const FOLLOW_UP: &str = "Follow-Up Items";
const RESOLVED: &str = "Resolved";
const LEFT: &str = "What's Left";

/// The marker an item shows in its section.
fn marker(section: &str) -> &'static str {
    match section {
        FOLLOW_UP | LEFT => "- [ ] ",
        RESOLVED => "- [x] ",
        _ => "- ",
    }
}

/// One note as the view lists it: its section and its text, or the placeholder line of a
/// withheld one.
type Shown = (String, Result<String, String>);

fn shown(r: &Record, withhold: Withhold<'_>) -> Option<(String, String, Result<String, String>)> {
    let (task, section, text) = match normal(&r.body) {
        Body::CumulativeNote(CumulativeNote { section, text }) => (String::new(), section, text),
        Body::TaskNote(n) => (n.task, n.section, n.text),
        _ => return None,
    };
    let kind = r.kind().as_str();
    Some((
        task,
        section,
        if withhold(r) {
            Err(withheld_line(kind, &r.id))
        } else {
            Ok(text)
        },
    ))
}

/// Writes `## <section>` and its items (`(section, text)` pairs, in order).
fn push_section(out: &mut String, section: &str, items: &[Shown]) {
    // The seed's own heading carries a note (`## What Worked (with evidence)`).
    let heading = if section == "What Worked" {
        "What Worked (with evidence)"
    } else {
        section
    };
    out.push_str(&format!("\n## {heading}\n"));
    for (s, text) in items {
        if s == section {
            match text {
                Ok(text) => push_item(out, marker(section), text),
                Err(placeholder) => {
                    out.push_str(placeholder);
                    out.push('\n');
                }
            }
        }
    }
}

/// The name a withheld note is listed under: its own when a shown note uses it too (or it
/// is one of the file's fixed names), else `fallback` — a heading is the note's text as much
/// as its item is, and the placeholder's record is found by its id wherever it stands.
fn placed(name: String, withheld: bool, shown: &[&str], fixed: &[&str], fallback: &str) -> String {
    if !withheld || fixed.contains(&name.as_str()) || shown.contains(&name.as_str()) {
        name
    } else {
        fallback.to_owned()
    }
}

/// The seven fixed sections always (so agents can append under them), `## Resolved` only with
/// items; a note whose section is not one of ours still shows, under its own heading, rather
/// than vanish (a withheld one under the first section, unless a shown note uses its heading).
pub(crate) fn render_cumulative(records: &[Record], withhold: Withhold<'_>) -> String {
    let items: Vec<Shown> = records
        .iter()
        .filter_map(|r| shown(r, withhold))
        .map(|(_, section, text)| (section, text))
        .collect();
    let open: Vec<&str> = items
        .iter()
        .filter(|(_, t)| t.is_ok())
        .map(|(s, _)| s.as_str())
        .collect();
    let first = CUMULATIVE_SECTIONS[0];
    let items: Vec<Shown> = items
        .iter()
        .map(|(s, t)| {
            let s = placed(s.clone(), t.is_err(), &open, &CUMULATIVE_SECTIONS, first);
            (s, t.clone())
        })
        .collect();
    let mut out = String::from("# Cumulative Project Notes\n");
    let resolved = items.iter().any(|(s, _)| s == RESOLVED);
    let fixed = CUMULATIVE_SECTIONS
        .into_iter()
        .filter(|s| *s != RESOLVED || resolved);
    push_sections(&mut out, fixed.collect(), &items);
    out
}

/// Writes the `fixed` sections, then those of `items` outside them (once each, in order of
/// first appearance).
fn push_sections<'a>(out: &mut String, mut sections: Vec<&'a str>, items: &'a [Shown]) {
    for (s, _) in items {
        if !sections.contains(&s.as_str()) {
            sections.push(s);
        }
    }
    for s in sections {
        push_section(out, s, items);
    }
}

/// One `# Task Notes: <task>` block per task, in order of first appearance, each with the four
/// sections; with no notes at all, one empty `# Task Notes` block to append under. A withheld
/// note whose task (or section) no shown note names stands in a `# Task Notes` block without
/// a task (its first section).
pub(crate) fn render_tasks(records: &[Record], withhold: Withhold<'_>) -> String {
    let notes: Vec<(String, String, Result<String, String>)> =
        records.iter().filter_map(|r| shown(r, withhold)).collect();
    let open: Vec<(&str, &str)> = notes
        .iter()
        .filter(|(_, _, t)| t.is_ok())
        .map(|(task, s, _)| (task.as_str(), s.as_str()))
        .collect();
    let tasks_open: Vec<&str> = open.iter().map(|(t, _)| *t).collect();
    let notes: Vec<(String, String, Result<String, String>)> = notes
        .iter()
        .map(|(task, s, t)| {
            let task = placed(task.clone(), t.is_err(), &tasks_open, &[""], "");
            let in_task: Vec<&str> = open
                .iter()
                .filter(|(x, _)| *x == task)
                .map(|(_, s)| *s)
                .collect();
            let s = placed(
                s.clone(),
                t.is_err(),
                &in_task,
                &TASK_SECTIONS,
                TASK_SECTIONS[0],
            );
            (task, s, t.clone())
        })
        .collect();
    let mut tasks: Vec<&str> = Vec::new();
    for (t, _, _) in &notes {
        if !tasks.contains(&t.as_str()) {
            tasks.push(t);
        }
    }
    if tasks.is_empty() {
        tasks.push("");
    }
    let mut out = String::new();
    for (i, task) in tasks.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if task.is_empty() {
            out.push_str("# Task Notes\n");
        } else {
            out.push_str(&format!("# Task Notes: {task}\n"));
        }
        let items: Vec<Shown> = notes
            .iter()
            .filter(|(t, _, _)| t == task)
            .map(|(_, s, text)| (s.clone(), text.clone()))
            .collect();
        push_sections(&mut out, TASK_SECTIONS.to_vec(), &items);
    }
    out
}

/// The section a heading names: its canonical spelling when it is one of `known` (a trailing
/// `(note)` is allowed), else as written (agents add their own, like `## Open Questions`).
fn section_of(line: usize, h: &str, known: &[&'static str]) -> Result<String, ParseError> {
    if let Some(s) =
        canonical_section(h, known).or_else(|| canonical_section(without_note(h), known))
    {
        return Ok(s.to_owned());
    }
    let name = one_line(h);
    if name.is_empty() {
        return Err(err(
            line,
            format!(
                "empty section heading: write a name, such as \"## {}\"",
                known[0]
            ),
        ));
    }
    Ok(name)
}

/// The items of one section: (text, written checked); its placeholders go to `out` first.
fn section_items(out: &mut Vec<Parsed>, lines: &[Src<'_>]) -> Vec<(String, bool)> {
    let mut rest = Vec::new();
    for src in lines {
        match withheld_id(src.text) {
            Some(id) => out.push(Parsed::Withheld(id.to_owned())),
            None => rest.push(*src),
        }
    }
    read_items(&rest)
        .into_iter()
        .map(|(_, raw)| (item(&raw), is_checked(&raw)))
        .filter(|(text, _)| !text.is_empty())
        .collect()
}

fn before_section(line: usize, example: &str) -> ParseError {
    err(
        line,
        format!("expected a section heading such as \"## {example}\" before the first item"),
    )
}

/// Checking an item off under Follow-Up Items moves it to Resolved, as the seed asks.
pub(crate) fn parse_cumulative(text: &str) -> Result<super::Framed, ParseError> {
    let mut sections: Vec<(String, Vec<Src<'_>>)> = Vec::new();
    // Before the first section: the file's frame (its title, an intro).
    let mut frame: Vec<&str> = Vec::new();
    for src in numbered(text) {
        match heading(src.text) {
            Some((1, _)) if sections.is_empty() => {
                frame.push(src.text);
                continue;
            }
            Some((1, _)) => {
                return Err(err(
                    src.no,
                    "unexpected title heading after the sections; sections start with \"## \"",
                ))
            }
            Some((2 | 3, h)) => {
                sections.push((section_of(src.no, h, &CUMULATIVE_SECTIONS)?, Vec::new()));
                continue;
            }
            _ => {}
        }
        match sections.last_mut() {
            Some((_, lines)) => lines.push(src),
            None => frame.push(src.text),
        }
    }
    let mut out = Vec::new();
    for (section, lines) in &sections {
        for (text, checked) in section_items(&mut out, lines) {
            let section = if section == FOLLOW_UP && checked {
                RESOLVED
            } else {
                section
            };
            out.push(Parsed::entry(
                Body::CumulativeNote(CumulativeNote {
                    section: section.to_owned(),
                    text,
                }),
                None,
            ));
        }
    }
    Ok(super::Framed {
        items: out,
        frame: super::entry::frame_text(&frame).filter(|f| f != "# Cumulative Project Notes\n"),
    })
}

/// The task a `# Task Notes[: <task>]` heading names.
fn task_of(line: usize, h: &str) -> Result<String, ParseError> {
    let rest = strip_word(h, "Task Notes").ok_or_else(|| {
        err(
            line,
            format!("expected \"# Task Notes: <task>\", found \"# {h}\""),
        )
    })?;
    let rest = rest.trim_start();
    Ok(one_line(rest.strip_prefix([':', '—', '-']).unwrap_or(rest)))
}

pub(crate) fn parse_tasks(text: &str) -> Result<Vec<Parsed>, ParseError> {
    // (task, section, lines); notes before any `# Task Notes` heading belong to no task.
    let mut sections: Vec<(String, String, Vec<Src<'_>>)> = Vec::new();
    let mut task = String::new();
    let mut in_section = false;
    for src in numbered(text) {
        match heading(src.text) {
            Some((1, h)) => {
                task = task_of(src.no, h)?;
                in_section = false;
                continue;
            }
            Some((2 | 3, h)) => {
                sections.push((
                    task.clone(),
                    section_of(src.no, h, &TASK_SECTIONS)?,
                    Vec::new(),
                ));
                in_section = true;
                continue;
            }
            _ => {}
        }
        match sections.last_mut() {
            Some((_, _, lines)) if in_section => lines.push(src),
            _ if is_blank(src.text) => {}
            _ => return Err(before_section(src.no, TASK_SECTIONS[0])),
        }
    }
    let mut out = Vec::new();
    for (task, section, lines) in &sections {
        for (text, _) in section_items(&mut out, lines) {
            out.push(Parsed::entry(
                Body::TaskNote(TaskNote {
                    task: task.clone(),
                    section: section.clone(),
                    text,
                }),
                None,
            ));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{fold, Draft};
    use crate::view::{self, ViewFile};

    fn note(section: &str, text: &str) -> Body {
        Body::CumulativeNote(CumulativeNote {
            section: section.into(),
            text: text.into(),
        })
    }

    fn task(task: &str, section: &str, text: &str) -> Body {
        Body::TaskNote(TaskNote {
            task: task.into(),
            section: section.into(),
            text: text.into(),
        })
    }

    fn state(bodies: Vec<Body>) -> crate::model::State {
        let records: Vec<Record> = bodies
            .into_iter()
            .enumerate()
            .map(|(i, b)| Draft::new(b).stamp("2026-04-04T14:30:00Z", i as u64 + 1, "a"))
            .collect();
        fold(&records)
    }

    #[test]
    fn renders_all_fixed_sections() {
        let s = state(vec![
            note("Follow-Up Items", "Add retries"),
            note("Project Profile", "A git subcommand\nthat stores memory"),
            note("Resolved", "Flaky test"),
        ]);
        assert_eq!(
            view::render_all(ViewFile::CumulativeNotes, &s),
            "# Cumulative Project Notes

## Project Profile
- A git subcommand
  that stores memory

## Architecture Map

## Recurring Themes

## Active Topics

## Relationship Map

## Follow-Up Items
- [ ] Add retries

## Attention Points

## Resolved
- [x] Flaky test
"
        );
    }

    #[test]
    fn parses_the_seed_sections() {
        let text = "# Cumulative Project Notes
## Project Profile
- Core purpose: memory in git
## attention points
- Fragile: the CAS loop
    (retries forever?)
## Follow-Up Items
- [ ] Still open
- [x] Done now
";
        assert_eq!(
            view::parse_bodies(ViewFile::CumulativeNotes, text).unwrap(),
            vec![
                note("Project Profile", "Core purpose: memory in git"),
                note(
                    "Attention Points",
                    "Fragile: the CAS loop\n  (retries forever?)"
                ),
                note("Follow-Up Items", "Still open"),
                note("Resolved", "Done now"),
            ]
        );
    }

    #[test]
    fn cumulative_errors_name_the_line() {
        let f = view::parse_framed(
            ViewFile::CumulativeNotes,
            "# Cumulative Project Notes\n- stray\n",
        )
        .unwrap();
        assert!(f.items.is_empty());
        assert_eq!(
            f.frame.as_deref(),
            Some("# Cumulative Project Notes\n- stray\n")
        );
        // A section of one's own is kept, by its name.
        let got = view::parse_bodies(
            ViewFile::CumulativeNotes,
            "## Project Profile\n- a\n## Open Questions\n- b?\n",
        )
        .unwrap();
        assert!(
            matches!(&got[1], Body::CumulativeNote(CumulativeNote { section, text }) if section == "Open Questions" && text == "b?"),
            "{got:?}"
        );
    }

    #[test]
    fn renders_tasks_in_order_of_first_appearance() {
        assert_eq!(
            view::render_all(ViewFile::TaskNotes, &state(vec![])),
            "# Task Notes

## What Worked (with evidence)

## What Failed

## What's Left

## Key Context for Next Iteration
"
        );
        let s = state(vec![
            task("retry", "What's Left", "Backoff cap"),
            task("", "What Worked", "cargo test"),
            task("retry", "What Failed", "Fixed sleep: flaky"),
        ]);
        assert_eq!(
            view::render_all(ViewFile::TaskNotes, &s),
            "# Task Notes: retry

## What Worked (with evidence)

## What Failed
- Fixed sleep: flaky

## What's Left
- [ ] Backoff cap

## Key Context for Next Iteration

# Task Notes

## What Worked (with evidence)
- cargo test

## What Failed

## What's Left

## Key Context for Next Iteration
"
        );
    }

    #[test]
    fn parses_the_seed_task_notes() {
        let text = "# Task Notes: auth refresh
## What Worked (with evidence)
- [approach]: token rotation, tests pass
## What Failed
- [approach]: why it failed
## What's Left
- [ ] wire the refresh endpoint
## Key Context for Next Iteration
- the mock server needs PORT=0
";
        assert_eq!(
            view::parse_bodies(ViewFile::TaskNotes, text).unwrap(),
            vec![
                task(
                    "auth refresh",
                    "What Worked",
                    "[approach]: token rotation, tests pass"
                ),
                task("auth refresh", "What Failed", "[approach]: why it failed"),
                task("auth refresh", "What's Left", "wire the refresh endpoint"),
                task(
                    "auth refresh",
                    "Key Context for Next Iteration",
                    "the mock server needs PORT=0"
                ),
            ]
        );
    }

    #[test]
    fn task_errors_name_the_line() {
        let e = view::parse_bodies(ViewFile::TaskNotes, "# Task Notes: x\n- stray\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("## What Worked"), "{e}");
        let e = view::parse_bodies(
            ViewFile::TaskNotes,
            "# Task Notes\n## What Worked\n- a\n# Notes\n",
        )
        .unwrap_err();
        assert_eq!(e.line, 4);
        let got = view::parse_bodies(ViewFile::TaskNotes, "## Ideas\n- try X\n").unwrap();
        assert!(
            matches!(&got[0], Body::TaskNote(TaskNote { section, text, .. }) if section == "Ideas" && text == "try X"),
            "{got:?}"
        );
    }
}
