//! `INVARIANTS.md`: discipline rules agents must not break, grouped by section, in the form
//! Rune's invariants loader reads (`skills/session-bridge/scripts/load-invariants.js`):
//!
//! ```text
//! # Project Invariants
//!
//! ## Danger Zones
//!
//! #### skill-router
//! - **WHAT**: every request goes through the L0 router
//! - **WHERE**: `skills/skill-router/**`, `src/{a,b}.rs`
//! - **WHY**: skipping it loses auth checks
//!
//! ## Archived
//!
//! ### Danger Zones
//!
//! #### legacy-emitter
//! - **WHAT**: old monolith emitter (retired)
//! ```
//!
//! How the file is walked (sections, rules, fences, the archive) is `invariants_file`'s; this
//! module turns rule blocks into records and back. A rule is its heading and the lines up to
//! the next heading: its fields (the loader's one-line `WHAT`/`WHERE`/`WHY`, read leniently),
//! and what else it holds as extras: another bold label (`- **Owner**: …`), lines right under a
//! field (`+`: the continuation the loader does not read), paragraphs after a blank line. The
//! rest of the file is its layout, kept as its frame and written back in place, so the
//! template's prose, a note under `## Archived` or a code example never block a save. The
//! loader's stats (danger / critical / state / cross) come from the section's words.
//!
//! Past 600 lines: the loader's format has one reader and one writer that must agree line for line
//! (sections, archive, fields, globs); they are kept side by side on purpose.

pub use super::invariants_file::is_archived;
use super::invariants_file::{
    field_line, is_separator, known_rank, FieldLabel, Step, Walk, SECTIONS, TITLE,
};
use super::text::{numbered, one_line, paths, withheld_line};
use super::{normal, Framed, ParseError, Parsed, Withhold};
use crate::model::kinds::Invariant;
use crate::model::{Body, Extra, Record};

/// What kind of rule a section holds, for the loader's stats and icons.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    Danger,
    Critical,
    State,
    Cross,
    Other,
}

impl Category {
    pub fn icon(self) -> &'static str {
        match self {
            Category::Danger => "⚠",
            Category::Critical => "🔒",
            Category::State => "🔁",
            Category::Cross => "🔗",
            Category::Other => "•",
        }
    }
}

/// The category a section name belongs to, by keyword.
pub fn category(section: &str) -> Category {
    let s = section.to_lowercase();
    if s.contains("danger") {
        Category::Danger
    } else if s.contains("critical") || s.contains("contract") {
        Category::Critical
    } else if s.contains("state") {
        Category::State
    } else if s.contains("cross") || s.contains("coupling") || s.contains("consistency") {
        Category::Cross
    } else {
        Category::Other
    }
}

/// What the seed's invariants loader reports: the active rules (archived ones skipped), in
/// file order, and counts per kind of section.
#[derive(Debug, Default)]
pub struct Loaded<'a> {
    pub rules: Vec<&'a Record>,
    pub danger: usize,
    pub critical: usize,
    pub state: usize,
    pub cross: usize,
    pub archived_skipped: usize,
}

/// Loads the active rules from the invariant records, as the seed's loader does.
pub fn load(records: &[Record]) -> Loaded<'_> {
    let mut out = Loaded::default();
    for r in records {
        let Body::Invariant(Invariant { section, .. }) = &r.body else {
            continue;
        };
        if is_archived(section) {
            out.archived_skipped += 1;
            continue;
        }
        match category(section) {
            Category::Danger => out.danger += 1,
            Category::Critical => out.critical += 1,
            Category::State => out.state += 1,
            Category::Cross => out.cross += 1,
            Category::Other => {}
        }
        out.rules.push(r);
    }
    out
}

/// Sort key of a section: the loader's four first, Archived last, the rest by name.
fn rank(section: &str) -> (u8, String) {
    if is_archived(section) {
        return (6, section.to_owned());
    }
    match known_rank(section) {
        Some(i) => (i as u8, section.to_owned()),
        None => (5, section.to_owned()),
    }
}

/// The canonical name of a section the loader knows under an older name (the names git-rune
/// wrote before it followed the loader).
pub(crate) fn section_name(section: &str) -> String {
    match (
        known_rank(section),
        SECTIONS.iter().find(|(_, old)| *old == section),
    ) {
        (Some(_), Some((name, _))) => (*name).to_owned(),
        _ => section.to_owned(),
    }
}

/// One rule as the layout places it: its section, and its title or (withheld) placeholder.
#[derive(Debug, Clone, PartialEq)]
enum Slot {
    Rule { section: String, title: String },
    Withheld { section: String, line: String },
}

/// The slot line a rule leaves in the layout.
fn slot_line(title: &str) -> String {
    format!("#### {title}")
}

/// Writes a rule in the loader's form, as lines.
fn rule_lines(body: &Body) -> Vec<String> {
    let Body::Invariant(Invariant {
        title,
        what,
        r#where,
        why,
        extra,
        ..
    }) = body
    else {
        return Vec::new();
    };
    let mut out = vec![slot_line(title)];
    let extras = |out: &mut Vec<String>, after: &str| {
        for x in extra.iter().filter(|x| x.after == after) {
            match x.label.as_str() {
                "" => {
                    out.push(String::new());
                    out.extend(x.text.split('\n').map(str::to_owned));
                }
                CONTINUED => out.extend(x.text.split('\n').map(str::to_owned)),
                label => out.push(format!("- **{label}**: {}", x.text)),
            }
        }
    };
    extras(&mut out, "");
    if !what.is_empty() {
        out.push(format!("- **WHAT**: {what}"));
        extras(&mut out, "What");
    }
    if !r#where.is_empty() {
        let quoted: Vec<String> = r#where.iter().map(|w| format!("`{w}`")).collect();
        out.push(format!("- **WHERE**: {}", quoted.join(", ")));
        extras(&mut out, "Where");
    }
    if !why.is_empty() {
        out.push(format!("- **WHY**: {why}"));
        extras(&mut out, "Why");
    }
    out
}

/// The label of an extra holding lines written right under a field (no blank line between),
/// which the loader does not read: kept, and written back right there.
pub(crate) const CONTINUED: &str = "+";

/// The layout of a file without one of its own: the title, then each section (in the
/// loader's order, Archived last) with a slot per rule.
fn default_layout(slots: &[Slot]) -> Vec<String> {
    let section_of = |s: &Slot| match s {
        Slot::Rule { section, .. } | Slot::Withheld { section, .. } => section.clone(),
    };
    let mut sections: Vec<String> = Vec::new();
    for s in slots {
        let name = section_of(s);
        if !sections.contains(&name) {
            sections.push(name);
        }
    }
    sections.sort_by_key(|s| rank(s));
    let mut out = vec![TITLE.to_owned()];
    for section in sections {
        out.push(String::new());
        out.push(format!("## {section}"));
        for s in slots.iter().filter(|s| section_of(s) == section) {
            out.push(String::new());
            out.push(match s {
                Slot::Rule { title, .. } => slot_line(title),
                Slot::Withheld { line, .. } => line.clone(),
            });
        }
    }
    out
}

/// A rule being filled into a layout.
struct Shown<'a> {
    section: String,
    title: String,
    id: &'a str,
    lines: Vec<String>,
}

/// Fills a layout's slots with the rules (each once, in record order), puts rules no slot
/// names at the end of their section (a new section before the archive, or a new archive),
/// and drops slots of rules that are gone.
fn fill(layout: &[String], rules: &[Shown<'_>]) -> String {
    let mut placed = vec![false; rules.len()];
    let mut out: Vec<String> = Vec::new();
    // Per region (from one section heading to the next): its section and where a rule added
    // to it goes; and the line the archive's heading is on.
    let mut regions: Vec<(Option<String>, usize)> = vec![(None, 0)];
    let mut archive_at = None;
    let mut walk = Walk::default();
    let mut drop_blank = false;
    for line in layout {
        let step = walk.step(line);
        if drop_blank && line.trim().is_empty() {
            drop_blank = false;
            continue;
        }
        drop_blank = false;
        let found = match &step {
            Step::RuleHeading { level: 4, title } => {
                let section = walk.section.clone().unwrap_or_default();
                Some(
                    rules
                        .iter()
                        .enumerate()
                        .position(|(i, r)| !placed[i] && r.section == section && r.title == *title),
                )
            }
            Step::Withheld(id) => Some(
                rules
                    .iter()
                    .enumerate()
                    .position(|(i, r)| !placed[i] && r.id.starts_with(id.as_str())),
            ),
            _ => None,
        };
        match found {
            Some(Some(i)) => {
                placed[i] = true;
                out.extend(rules[i].lines.iter().cloned());
            }
            Some(None) => drop_blank = out.last().is_some_and(|l| l.trim().is_empty()),
            None => {
                if step == Step::Section {
                    if walk.archive.is_some() {
                        archive_at.get_or_insert(out.len());
                    }
                    regions.push((walk.section.clone(), out.len() + 1));
                }
                out.push(line.clone());
            }
        }
        // A rule added to the region goes after its last line of text (a comment such as the
        // template's "entries are added below" included), before blank lines and breaks.
        if !out
            .last()
            .is_none_or(|l| l.trim().is_empty() || (is_separator(l) && !l.starts_with("<!--")))
        {
            if let Some(r) = regions.last_mut() {
                r.1 = out.len();
            }
        }
    }
    // Rules no slot named, by region (or a new section), then inserted from the end.
    let mut inserts: Vec<(usize, Vec<String>)> = Vec::new();
    let mut new_sections: Vec<(String, Vec<String>)> = Vec::new();
    for (r, _) in rules.iter().zip(&placed).filter(|(_, p)| !**p) {
        let mut block = vec![String::new()];
        block.extend(r.lines.iter().cloned());
        match regions
            .iter()
            .find(|(s, _)| s.as_deref() == Some(r.section.as_str()))
        {
            Some(&(_, at)) => add_to(&mut inserts, at, block),
            None => add_to(&mut new_sections, r.section.clone(), block),
        }
    }
    new_sections.sort_by_key(|(s, _)| rank(s));
    // New sections go before the archive (unless archived themselves), else at the end.
    for (section, block) in new_sections {
        let mut lines = vec![format!("## {section}")];
        lines.extend(block);
        match archive_at.filter(|_| !is_archived(&section)) {
            Some(at) => {
                lines.push(String::new());
                add_to(&mut inserts, at, lines);
            }
            None => {
                lines.insert(0, String::new());
                inserts.push((usize::MAX, lines));
            }
        }
    }
    inserts.sort_by_key(|(at, _)| std::cmp::Reverse(*at));
    for (at, lines) in inserts {
        let at = at.min(out.len());
        out.splice(at..at, lines);
    }
    while out.last().is_some_and(|l| l.trim().is_empty()) {
        out.pop();
    }
    let mut text = out.join("\n");
    text.push('\n');
    text
}

/// Appends `lines` to the group keyed `key`, or starts one.
fn add_to<K: PartialEq>(groups: &mut Vec<(K, Vec<String>)>, key: K, lines: Vec<String>) {
    match groups.iter_mut().find(|(k, _)| *k == key) {
        Some((_, l)) => l.extend(lines),
        None => groups.push((key, lines)),
    }
}

/// Renders the rules into the file's layout (`frame`: the one kept for it, else the view's
/// own).
pub(crate) fn render(records: &[Record], frame: Option<&str>, withhold: Withhold<'_>) -> String {
    let mut shown = Vec::new();
    let mut slots = Vec::new();
    for r in records {
        let body = normal(&r.body);
        let Body::Invariant(Invariant { section, title, .. }) = &body else {
            continue;
        };
        let section = section_name(&one_line(section));
        let lines = if withhold(r) {
            vec![withheld_line("invariant", &r.id)]
        } else {
            rule_lines(&body)
        };
        slots.push(if withhold(r) {
            Slot::Withheld {
                section: section.clone(),
                line: lines[0].clone(),
            }
        } else {
            Slot::Rule {
                section: section.clone(),
                title: title.clone(),
            }
        });
        shown.push(Shown {
            section,
            title: title.clone(),
            id: &r.id,
            lines,
        });
    }
    let layout: Vec<String> = match frame {
        Some(f) => f.lines().map(str::to_owned).collect(),
        None => default_layout(&slots),
    };
    fill(&layout, &shown)
}

/// Reads the file: its rules (with their placeholders) and its layout.
pub(crate) fn parse(text: &str) -> Result<Framed, ParseError> {
    let (items, slots, layout) = read(text);
    let frame = (layout != default_layout(&slots)).then(|| {
        let mut t = layout.join("\n");
        t.push('\n');
        t
    });
    Ok(Framed { items, frame })
}

/// A rule's heading and the lines under it.
struct Block<'a> {
    section: String,
    title: String,
    lines: Vec<&'a str>,
}

/// Splits a file into rule records, their slots, and the layout around them.
fn read(text: &str) -> (Vec<Parsed>, Vec<Slot>, Vec<String>) {
    let lines: Vec<&str> = numbered(text).map(|s| s.text).collect();
    let mut items = Vec::new();
    let mut slots = Vec::new();
    let mut layout: Vec<String> = Vec::new();
    let mut cur: Option<Block<'_>> = None;
    let mut walk = Walk::default();
    let close = |cur: &mut Option<Block<'_>>,
                 items: &mut Vec<Parsed>,
                 slots: &mut Vec<Slot>,
                 layout: &mut Vec<String>| {
        let Some(b) = cur.take() else { return };
        let end = b
            .lines
            .iter()
            .rposition(|l| !is_separator(l))
            .map_or(0, |i| i + 1);
        let mut body = rule_body(&b.section, &b.title, &b.lines[..end]);
        super::normalize(&mut body);
        items.push(Parsed::entry(body, None));
        slots.push(Slot::Rule {
            section: b.section,
            title: b.title.clone(),
        });
        layout.push(slot_line(&b.title));
        layout.extend(b.lines[end..].iter().map(|l| (*l).to_owned()));
    };
    for (i, line) in lines.iter().enumerate() {
        let in_fence_before = walk.clone();
        let step = walk.step(line);
        match step {
            Step::RuleHeading { level, title }
                if !title.is_empty() && (level == 4 || fields_below(&lines[i + 1..])) =>
            {
                close(&mut cur, &mut items, &mut slots, &mut layout);
                cur = Some(Block {
                    section: section_name(&walk.section.clone().unwrap_or_default()),
                    title,
                    lines: Vec::new(),
                });
            }
            Step::Withheld(id) => {
                close(&mut cur, &mut items, &mut slots, &mut layout);
                items.push(Parsed::Withheld(id));
                slots.push(Slot::Withheld {
                    section: section_name(&walk.section.clone().unwrap_or_default()),
                    line: (*line).to_owned(),
                });
                layout.push((*line).to_owned());
            }
            // A heading a rule holds: deeper than the rule's own.
            Step::OtherHeading if cur.is_some() && in_fence_before.section.is_some() => {
                let deeper = super::text::heading(line).is_some_and(|(l, _)| l > 4);
                if deeper {
                    if let Some(b) = cur.as_mut() {
                        b.lines.push(line);
                    }
                } else {
                    close(&mut cur, &mut items, &mut slots, &mut layout);
                    layout.push((*line).to_owned());
                }
            }
            Step::Fenced | Step::Text | Step::OtherHeading if cur.is_some() => {
                if let Some(b) = cur.as_mut() {
                    b.lines.push(line);
                }
            }
            _ => {
                close(&mut cur, &mut items, &mut slots, &mut layout);
                layout.push((*line).to_owned());
            }
        }
    }
    close(&mut cur, &mut items, &mut slots, &mut layout);
    while layout.last().is_some_and(|l| l.trim().is_empty()) {
        layout.pop();
    }
    (items, slots, archive_last(layout))
}

/// Whether a rule field (`WHAT`, `WHERE`, `WHY`) comes before the next heading: what makes a
/// `###` heading a rule rather than a sub-heading.
fn fields_below(lines: &[&str]) -> bool {
    let mut walk = Walk::default();
    for line in lines {
        match walk.step(line) {
            Step::Fenced => {}
            Step::Text => {
                if field_line(line).is_some_and(|(f, _)| !matches!(f, FieldLabel::Other(_))) {
                    return true;
                }
            }
            _ => return false,
        }
    }
    false
}

/// The layout with its archive (from `## Archived` to the next `#` or `##` heading) moved to
/// the end, where the loader, which drops everything after `## Archived`, reads it the same.
fn archive_last(layout: Vec<String>) -> Vec<String> {
    let mut chunks: Vec<(bool, Vec<String>)> = vec![(false, Vec::new())];
    let mut walk = Walk::default();
    for line in layout {
        let top = matches!(walk.step(&line), Step::Section)
            && super::text::heading(&line).is_some_and(|(l, _)| l <= 2);
        if top {
            chunks.push((walk.archive.is_some(), Vec::new()));
        }
        if let Some((_, c)) = chunks.last_mut() {
            c.push(line);
        }
    }
    let last_active = chunks.iter().rposition(|(archive, _)| !archive);
    let first_archive = chunks.iter().position(|(archive, _)| *archive);
    if !matches!((first_archive, last_active), (Some(a), Some(b)) if a < b) {
        return chunks.into_iter().flat_map(|(_, c)| c).collect();
    }
    let (archive, active): (Vec<_>, Vec<_>) = chunks.into_iter().partition(|(a, _)| *a);
    let mut out: Vec<String> = Vec::new();
    for (_, mut c) in active.into_iter().chain(archive) {
        while c.last().is_some_and(|l| l.trim().is_empty()) {
            c.pop();
        }
        if c.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(String::new());
        }
        out.extend(c);
    }
    out
}

/// Reads a rule block (the lines under its heading, without trailing separators).
fn rule_body(section: &str, title: &str, lines: &[&str]) -> Body {
    let (mut what, mut r#where, mut why) = (None::<String>, None::<Vec<String>>, None::<String>);
    let mut extra: Vec<Extra> = Vec::new();
    let mut after = String::new();
    // The extra that lines without a blank line before them join.
    let mut open: Option<usize> = None;
    let mut blank = false;
    let mut fence: Option<&'static str> = None;
    for line in lines {
        if let Some(marker) = fence {
            if let Some(i) = open {
                extra[i].text.push('\n');
                extra[i].text.push_str(line.trim_end());
            }
            if line.trim_start().starts_with(marker) {
                fence = None;
            }
            continue;
        }
        if line.trim().is_empty() {
            blank = true;
            open = None;
            continue;
        }
        if let Some((label, value)) = field_line(line) {
            let slot = match label {
                FieldLabel::What => Some((&mut what, "WHAT")).map(|(f, l)| {
                    let old = f.replace(one_line(value));
                    (old, l, "What")
                }),
                FieldLabel::Why => Some((&mut why, "WHY")).map(|(f, l)| {
                    let old = f.replace(one_line(value));
                    (old, l, "Why")
                }),
                FieldLabel::Where => {
                    let old = r#where.replace(paths(&globs(value), false)).map(|w| {
                        w.iter()
                            .map(|g| format!("`{g}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    });
                    Some((old, "WHERE", "Where"))
                }
                FieldLabel::Other(label) => {
                    extra.push(Extra {
                        after: after.clone(),
                        label: one_line(&label),
                        text: one_line(value),
                    });
                    None
                }
            };
            if let Some((old, upper, known)) = slot {
                // A field written twice: the last one counts (as for the loader); the first
                // is kept, written before the fields, where the loader reads it first.
                if let Some(old) = old.filter(|o| !o.is_empty()) {
                    extra.push(Extra {
                        after: String::new(),
                        label: upper.to_owned(),
                        text: old,
                    });
                }
                after = known.to_owned();
            }
            open = None;
            blank = false;
            continue;
        }
        match open.filter(|_| !blank) {
            Some(i) => {
                extra[i].text.push('\n');
                extra[i].text.push_str(line.trim_end());
            }
            None => {
                extra.push(Extra {
                    after: after.clone(),
                    label: if blank {
                        String::new()
                    } else {
                        CONTINUED.to_owned()
                    },
                    text: line.trim_end().to_owned(),
                });
                open = Some(extra.len() - 1);
            }
        }
        fence = super::invariants_file::fence_marker(line);
        blank = false;
    }
    Body::Invariant(Invariant {
        section: section.to_owned(),
        title: title.to_owned(),
        what: what.unwrap_or_default(),
        r#where: r#where.unwrap_or_default(),
        why: why.unwrap_or_default(),
        extra,
    })
}

/// A `WHERE` value as the loader reads it: the backticked globs, else the parts between
/// commas or semicolons.
fn globs(value: &str) -> Vec<String> {
    if value.contains('`') {
        let quoted: Vec<String> = value
            .split('`')
            .skip(1)
            .step_by(2)
            .map(|g| g.trim().to_owned())
            .filter(|g| !g.is_empty())
            .collect();
        if !quoted.is_empty() {
            return quoted;
        }
    }
    value
        .split([',', ';'])
        .map(|g| g.trim().to_owned())
        .filter(|g| !g.is_empty())
        .collect()
}

/// Normal form of a rule's extras, so that they read back as they are: every line kept,
/// lines that would read as structure (a heading, a rule field, a separator the rule would
/// lose to the layout) indented by a space, a fence left open closed, blank lines outside
/// fences (which would split a paragraph) dropped; `+` lines after a paragraph join it; a
/// labelled extra is one line, a field label written twice goes before the fields.
pub(crate) fn normalize_extras(extra: &mut Vec<Extra>) {
    for x in extra.iter_mut() {
        x.text = x.text.replace("\r\n", "\n").replace('\r', "\n");
        if !(x.label.is_empty() || x.label == CONTINUED) {
            x.label = one_line(&x.label);
            x.text = one_line(&x.text);
            if matches!(x.label.to_lowercase().as_str(), "what" | "where" | "why") {
                x.after = String::new();
            }
            continue;
        }
        let mut lines: Vec<String> = Vec::new();
        let mut fence: Option<&'static str> = None;
        for raw in x.text.split('\n') {
            let line = raw.trim_end();
            if let Some(marker) = fence {
                if line.trim_start().starts_with(marker) {
                    fence = None;
                }
                lines.push(line.to_owned());
                continue;
            }
            if line.trim().is_empty() {
                continue;
            }
            let structural = super::text::heading(line).is_some()
                || field_line(line).is_some()
                || super::text::withheld_id(line).is_some()
                || is_separator(line);
            if structural {
                lines.push(format!(" {line}"));
            } else {
                lines.push(line.to_owned());
            }
            fence = super::invariants_file::fence_marker(line);
        }
        if let Some(marker) = fence {
            lines.push(marker.to_owned());
        }
        x.text = lines.join("\n");
    }
    extra.retain(|x| !x.text.is_empty() || !(x.label.is_empty() || x.label == CONTINUED));
    // Lines right after a paragraph (or other lines right after the heading or a field) join
    // what they follow.
    let mut out: Vec<Extra> = Vec::with_capacity(extra.len());
    for x in extra.drain(..) {
        match out.last_mut() {
            Some(prev)
                if x.label == CONTINUED
                    && prev.after == x.after
                    && (prev.label.is_empty() || prev.label == CONTINUED) =>
            {
                prev.text.push('\n');
                prev.text.push_str(&x.text);
            }
            _ => out.push(x),
        }
    }
    *extra = out;
}

#[cfg(test)]
#[path = "invariants_tests.rs"]
mod tests;
