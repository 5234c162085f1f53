//! `tasks.md`: the branch's tasks as a readable checklist, grouped by status.
//!
//! ```text
//! # Tasks
//!
//! ## In Progress
//! - [~] TASK_002 [P1] [BUGFIX] Fix auth middleware
//!   Created: 2026-04-04T10:00:00Z
//!   Context: JWT RS256 validation fails. See: src/auth/middleware.ts:45
//!   Files: src/auth/middleware.ts:45, config/jwt.ts:12
//!
//! ## Pending
//! - [ ] TASK_003 Write docs
//!
//! ## Completed
//! - [x] TASK_001 [P2] [FEATURE] Redesign homepage
//!   Completed: 2026-04-05T18:00:00Z
//!   Consolidated: 12 tasks
//!   Keep: yes
//! ```
//!
//! The checkbox says the status (`[ ]` pending, `[~]` in progress, `[x]` completed; a `[ ]`
//! under `## In Progress` is in progress); the section headings are only for reading. A line
//! without a `TASK_` id is a new task (save numbers it). Lines the format does not know are
//! kept as the `extra` of the task above them (indented ones among its lines, column-0 ones
//! after it); lines before the first task go with the first task, before it.

use super::text::{err, numbered, parse_time, withheld_id, withheld_line};
use super::{normal, ParseError, Parsed, Withhold};
use crate::model::kinds::Task;
use crate::model::task::{
    canonical_category, canonical_priority, canonical_status, parse_task_id, task_id, COMPLETED,
    IN_PROGRESS, PENDING,
};
use crate::model::{Body, Extra, Record};

/// Extras written after the task's own lines, indented.
pub(crate) const AFTER_TASK: &str = "Task";
/// Extras written at column 0 after the last task.
pub(crate) const AFTER_END: &str = "end";
/// Keys of the task's sp.json object the seed does not define (`tasks::sp_json`): not shown.
pub(crate) const SP_JSON_KEY: &str = "sp.json";

const SECTIONS: [(&str, &str); 3] = [
    ("In Progress", IN_PROGRESS),
    ("Pending", PENDING),
    ("Completed", COMPLETED),
];

const LABELS: [&str; 6] = [
    "Created",
    "Completed",
    "Consolidated",
    "Keep",
    "Context",
    "Files",
];

fn status_of(body: &Body) -> &str {
    match body {
        Body::Task(Task { status, .. }) => status,
        _ => "",
    }
}

pub(crate) fn render(records: &[Record], withhold: Withhold<'_>) -> String {
    let mut out = String::from("# Tasks\n");
    for (heading, status) in SECTIONS {
        let list: Vec<&Record> = records
            .iter()
            .filter(|r| status_of(&r.body) == status)
            .collect();
        if list.is_empty() {
            continue;
        }
        out.push_str(&format!("\n## {heading}\n"));
        for r in list {
            if withhold(r) {
                out.push_str(&withheld_line("task", &r.id));
                out.push('\n');
                continue;
            }
            render_task(&mut out, &normal(&r.body));
        }
    }
    out
}

fn render_task(out: &mut String, body: &Body) {
    let Body::Task(task) = body else {
        return;
    };
    let extras = |after: &'static str| task.extra.iter().filter(move |x| x.after == after);
    for x in extras("") {
        out.push_str(&format!("{}\n", x.text));
    }
    let mark = match task.status.as_str() {
        COMPLETED => "x",
        IN_PROGRESS => "~",
        _ => " ",
    };
    out.push_str(&format!("- [{mark}] {}", task_id(task.num)));
    for tag in [&task.priority, &task.category] {
        if !tag.is_empty() {
            out.push_str(&format!(" [{tag}]"));
        }
    }
    // A title that starts like a tag (or like this escape) is escaped with a backslash.
    let escape = if task.title.starts_with(['[', '\\']) {
        "\\"
    } else {
        ""
    };
    out.push_str(&format!(" {escape}{}\n", task.title));
    let mut attr = |label: &str, value: &str| {
        if !value.is_empty() {
            out.push_str(&format!("  {label}: {value}\n"));
        }
    };
    attr("Created", &task.created);
    attr("Completed", &task.completed);
    if task.consolidated {
        attr(
            "Consolidated",
            &format!("{} tasks", task.consolidated_count),
        );
    }
    if task.keep {
        attr("Keep", "yes");
    }
    attr("Context", &task.context);
    attr("Files", &task.files.join(", "));
    for x in extras(AFTER_TASK) {
        out.push_str(&format!("  {}\n", x.text));
    }
    for x in extras(AFTER_END) {
        out.push_str(&format!("{}\n", x.text));
    }
}

/// A task line: `- [ ] TASK_001 [P1] [BUGFIX] Title` → (checkbox, number, priority,
/// category, title).
fn task_line(line: &str) -> Option<(char, u32, String, String, String)> {
    let rest = line.strip_prefix(['-', '*', '+'])?.strip_prefix(' ')?;
    let rest = rest.trim_start().strip_prefix('[')?;
    let mut chars = rest.chars();
    let mark = chars.next()?;
    let mut rest = chars.as_str().strip_prefix(']')?.trim_start();
    let mut num = 0;
    if let Some(word) = rest.split_whitespace().next() {
        if let Some(n) = parse_task_id(word)
            .filter(|_| word.len() > 4 && word[..5].eq_ignore_ascii_case("task_"))
        {
            num = n;
            rest = rest[word.len()..].trim_start();
        }
    }
    let (mut priority, mut category) = (String::new(), String::new());
    while let Some(tag) = rest
        .strip_prefix('[')
        .and_then(|r| r.find(']').map(|end| &r[..end]))
    {
        if priority.is_empty() && canonical_priority(tag).is_some() {
            priority = canonical_priority(tag).unwrap_or_default().to_owned();
        } else if category.is_empty() && canonical_category(tag).is_some() {
            category = canonical_category(tag).unwrap_or_default().to_owned();
        } else {
            break;
        }
        rest = rest[tag.len() + 2..].trim_start();
    }
    let title = rest.trim();
    let title = title.strip_prefix('\\').unwrap_or(title);
    Some((mark, num, priority, category, title.to_owned()))
}

/// An indented `Label: value` line with a known label.
fn attribute(line: &str) -> Option<(&'static str, &str)> {
    if !line.starts_with([' ', '\t']) {
        return None;
    }
    let t = line.trim_start();
    let t = t.strip_prefix("- ").unwrap_or(t);
    let (label, value) = t.split_once(':')?;
    // `**Context:** value` as well as `Context: value`.
    let (label, value) = match label.strip_prefix("**") {
        Some(l) => (l, value.strip_prefix("**")?),
        None => (label, value),
    };
    let known = LABELS
        .into_iter()
        .find(|l| l.eq_ignore_ascii_case(label.trim()))?;
    Some((known, value.trim()))
}

fn section_status(heading: &str) -> Option<&'static str> {
    SECTIONS
        .iter()
        .find(|(h, _)| h.eq_ignore_ascii_case(heading.trim()))
        .map(|(_, s)| *s)
        .or_else(|| canonical_status(heading))
}

pub(crate) fn parse(text: &str) -> Result<Vec<Parsed>, ParseError> {
    let mut out: Vec<Parsed> = Vec::new();
    // Column-0 lines waiting for the task below them.
    let mut waiting: Vec<(usize, String)> = Vec::new();
    let mut section = "";
    let mut current: Option<usize> = None;
    // Whether a column-0 line followed the current task (what comes after it is too).
    let mut ended = false;
    for src in numbered(text) {
        let line = src.text;
        if line.trim().is_empty() {
            continue;
        }
        if let Some(id) = withheld_id(line) {
            out.push(Parsed::Withheld(id.to_owned()));
            current = None;
            continue;
        }
        if line.trim_end().eq_ignore_ascii_case("# tasks") {
            continue;
        }
        if let Some(h) = line.strip_prefix("## ") {
            if let Some(s) = section_status(h) {
                section = s;
                ended = true;
                continue;
            }
        }
        if let Some((mark, num, priority, category, title)) = task_line(line) {
            let status = match mark {
                'x' | 'X' => COMPLETED,
                '~' | '-' | '/' | '>' | '.' => IN_PROGRESS,
                _ if section == IN_PROGRESS => IN_PROGRESS,
                _ => PENDING,
            };
            if title.is_empty() {
                return Err(err(
                    src.no,
                    "a task needs a title: `- [ ] TASK_001 <title>`",
                ));
            }
            out.push(Parsed::entry(
                Body::Task(Task {
                    num,
                    title,
                    status: status.to_owned(),
                    priority,
                    category,
                    ..Task::default()
                }),
                None,
            ));
            current = Some(out.len() - 1);
            ended = false;
            continue;
        }
        let task = current.and_then(|i| match &mut out[i] {
            Parsed::Entry(e) => Some(&mut e.body),
            Parsed::Withheld(_) => None,
        });
        let indented = line.starts_with([' ', '\t']);
        match (task, attribute(line)) {
            (Some(body), Some((label, value))) if !is_set(body, label) => {
                set(body, label, value, src.no)?
            }
            (Some(Body::Task(Task { extra, .. })), _) => extra.push(Extra {
                after: if indented && !ended {
                    AFTER_TASK
                } else {
                    AFTER_END
                }
                .into(),
                label: String::new(),
                text: line.trim().to_owned(),
            }),
            _ => waiting.push((src.no, line.trim().to_owned())),
        }
        if !indented {
            ended = true;
        }
    }
    if !waiting.is_empty() {
        let last = out.iter_mut().find_map(|p| match p {
            Parsed::Entry(e) => Some(&mut e.body),
            Parsed::Withheld(_) => None,
        });
        match last {
            Some(Body::Task(Task { extra, .. })) => {
                let before = waiting.drain(..).map(|(_, text)| Extra {
                    after: String::new(),
                    label: String::new(),
                    text,
                });
                extra.splice(0..0, before);
            }
            _ => {
                return Err(err(
                    waiting[0].0,
                    "text outside any task: write tasks as `- [ ] TASK_001 <title>` (or `- [ ] <title>` for a new one) and keep notes under them",
                ))
            }
        }
    }
    for p in &mut out {
        if let Parsed::Entry(e) = p {
            super::normalize(&mut e.body);
        }
    }
    Ok(out)
}

/// Whether a task read from the view already has the attribute (a second `Context:` line is
/// kept as an extra, not lost).
fn is_set(body: &Body, label: &str) -> bool {
    let Body::Task(t) = body else {
        return true;
    };
    match label {
        "Created" => !t.created.is_empty(),
        "Completed" => !t.completed.is_empty(),
        "Consolidated" => t.consolidated,
        "Keep" => t.keep,
        "Context" => !t.context.is_empty(),
        "Files" => !t.files.is_empty(),
        _ => true,
    }
}

/// Sets one attribute of a task read from the view.
fn set(body: &mut Body, label: &str, value: &str, line: usize) -> Result<(), ParseError> {
    let Body::Task(t) = body else {
        return Ok(());
    };
    let time = |v: &str| {
        parse_time(v).ok_or_else(|| {
            err(
                line,
                format!("{label}: {v:?} is not a time like 2026-04-05T10:15:00Z"),
            )
        })
    };
    match label {
        "Created" => t.created = time(value)?,
        "Completed" => {
            t.completed = if value.is_empty() {
                String::new()
            } else {
                time(value)?
            }
        }
        "Consolidated" => {
            let n: String = value.chars().take_while(char::is_ascii_digit).collect();
            t.consolidated_count = n.parse().map_err(|_| {
                err(
                    line,
                    "Consolidated: write how many tasks, as `Consolidated: 12 tasks`",
                )
            })?;
            t.consolidated = t.consolidated_count > 0;
        }
        "Keep" => {
            t.keep = matches!(
                value.to_ascii_lowercase().as_str(),
                "yes" | "true" | "y" | "1"
            )
        }
        "Context" => t.context = value.to_owned(),
        "Files" => {
            t.files = value
                .split(',')
                .map(|f| f.trim().trim_matches('`').to_owned())
                .filter(|f| !f.is_empty())
                .collect()
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{fold, Draft};
    use crate::view::{self, ViewFile};

    fn task(num: u32, title: &str, status: &str) -> Body {
        Body::Task(Task {
            uid: format!("{num:04x}"),
            num,
            claimed: "2026-04-04T10:00:00Z".into(),
            title: title.into(),
            status: status.into(),
            priority: String::new(),
            category: String::new(),
            created: "2026-04-04T10:00:00Z".into(),
            completed: String::new(),
            consolidated: false,
            consolidated_count: 0,
            context: String::new(),
            files: Vec::new(),
            keep: false,
            aliases: Vec::new(),
            extra: Vec::new(),
        })
    }

    #[test]
    fn renders_a_checklist_and_reads_it_back() {
        let mut a = task(1, "Redesign homepage", COMPLETED);
        if let Body::Task(Task {
            priority,
            category,
            completed,
            consolidated,
            consolidated_count,
            keep,
            context,
            files,
            ..
        }) = &mut a
        {
            *priority = "P2".into();
            *category = "FEATURE".into();
            *completed = "2026-04-05T18:00:00Z".into();
            *consolidated = true;
            *consolidated_count = 12;
            *keep = true;
            *context = "Pitfall: Safari grid".into();
            *files = vec!["docs/plan.md".into(), "src/a.rs:12".into()];
        }
        let records: Vec<Record> = [
            a,
            task(2, "Fix auth", IN_PROGRESS),
            task(3, "Docs", PENDING),
        ]
        .into_iter()
        .enumerate()
        .map(|(i, b)| Draft::new(b).stamp("2026-04-04T10:00:00Z", i as u64 + 1, "a"))
        .collect();
        let text = view::render_all(ViewFile::Tasks, &fold(&records));
        assert_eq!(
            text,
            "# Tasks

## In Progress
- [~] TASK_002 Fix auth
  Created: 2026-04-04T10:00:00Z

## Pending
- [ ] TASK_003 Docs
  Created: 2026-04-04T10:00:00Z

## Completed
- [x] TASK_001 [P2] [FEATURE] Redesign homepage
  Created: 2026-04-04T10:00:00Z
  Completed: 2026-04-05T18:00:00Z
  Consolidated: 12 tasks
  Keep: yes
  Context: Pitfall: Safari grid
  Files: docs/plan.md, src/a.rs:12
"
        );
        let back = view::parse_bodies(ViewFile::Tasks, &text).unwrap();
        assert_eq!(back.len(), 3);
        assert_eq!(view::visible(&back[2]), view::visible(&records[0].body));
    }

    #[test]
    fn unknown_lines_are_kept_where_they_were() {
        let text = "# Tasks\n\nA note before\n- [ ] TASK_001 One\n  an indented remark\n- [X] Two\ntrailing words\n";
        let parsed = view::parse_bodies(ViewFile::Tasks, text).unwrap();
        let Body::Task(Task { extra, .. }) = &parsed[0] else {
            panic!()
        };
        assert_eq!(extra.len(), 2);
        assert_eq!(extra[0].text, "A note before");
        assert_eq!(extra[1].after, AFTER_TASK);
        let Body::Task(Task {
            num, status, extra, ..
        }) = &parsed[1]
        else {
            panic!()
        };
        assert_eq!((*num, status.as_str()), (0, COMPLETED));
        assert_eq!(extra[0].after, AFTER_END);
        // Rendered again, read again: the same bodies.
        let mut out = String::new();
        for b in &parsed {
            render_task(&mut out, b);
        }
        assert!(
            out.contains("A note before\n- [ ] TASK_001 One\n  an indented remark\n"),
            "{out}"
        );
        assert!(out.ends_with("trailing words\n"), "{out}");
    }

    #[test]
    fn lenient_forms_and_errors() {
        let text = "## In Progress\n* [ ] task_4 [p1] [bugfix] Fix it\n  - **Files:** `a.rs:3`, b.rs\n  Created: 2026-04-05\n";
        let got = view::parse_bodies(ViewFile::Tasks, text).unwrap();
        let Body::Task(Task {
            num,
            status,
            priority,
            category,
            files,
            created,
            ..
        }) = &got[0]
        else {
            panic!()
        };
        assert_eq!((*num, status.as_str()), (4, IN_PROGRESS));
        assert_eq!((priority.as_str(), category.as_str()), ("P1", "BUGFIX"));
        assert_eq!(files, &vec!["a.rs:3".to_owned(), "b.rs".to_owned()]);
        assert_eq!(created, "2026-04-05T00:00:00Z");
        let e = view::parse_bodies(ViewFile::Tasks, "# Tasks\nloose words\n").unwrap_err();
        assert_eq!(e.line, 2);
        let e =
            view::parse_bodies(ViewFile::Tasks, "- [ ] TASK_001 x\n  Created: soon\n").unwrap_err();
        assert_eq!(e.line, 2);
    }
}
