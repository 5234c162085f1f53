//! `INVARIANTS.md`: discipline rules agents must not break, grouped by section.
//!
//! The seed's loader parses sections, skips `## Archived`, and yields rules
//! `{ section, title, what, where: string[], why }` with stats danger / critical / state / cross.
//! The file format this module reads and writes:
//!
//! ```text
//! # Invariants
//!
//! ## Danger Zones
//!
//! ### Never bypass the router
//! - **What:** every request goes through the L0 router
//! - **Where:** `skills/skill-router/**`, `src/{a,b}.rs`
//! - **Why:** skipping it loses auth checks
//! ```
//!
//! Sections render in the order Danger Zones, Critical Contracts, State Machines, Cross-File
//! Couplings, then other sections alphabetically, then Archived. Empty fields are left out.
//! Parse is lenient on the field lines: the bullet, the bold and the backticks are optional
//! (`What: …`, `**What**: …`), `Where` is a backtick-quoted or comma-separated list, and an
//! indented line continues the field above. Other bold `**Label:**` lines are skipped.

use super::text::{
    err, fence, heading, is_blank, loose, numbered, one_line, paths, read_paths, withheld_id,
    withheld_line, Src,
};
use super::{normal, normalize, ParseError, Parsed, Withhold};
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
    } else if s.contains("cross") || s.contains("coupling") {
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

/// Retired rules live under `## Archived` and do not re-activate.
pub fn is_archived(section: &str) -> bool {
    loose(section).starts_with("archive")
}

const KNOWN: [&str; 4] = [
    "Danger Zones",
    "Critical Contracts",
    "State Machines",
    "Cross-File Couplings",
];

/// Sort key of a section: the four known ones first, Archived last, the rest by name.
fn rank(section: &str) -> (u8, String) {
    if is_archived(section) {
        return (6, section.to_owned());
    }
    match KNOWN.iter().position(|k| loose(k) == loose(section)) {
        Some(i) => (i as u8, section.to_owned()),
        None => (5, section.to_owned()),
    }
}

pub(crate) fn render(records: &[Record], withhold: Withhold<'_>) -> String {
    let mut sections: Vec<String> = Vec::new();
    for r in records {
        if let Body::Invariant(Invariant { section, .. }) = &r.body {
            let section = one_line(section);
            if !sections.contains(&section) {
                sections.push(section);
            }
        }
    }
    sections.sort_by_key(|s| rank(s));
    let mut out = String::from("# Invariants\n");
    for s in sections {
        out.push_str(&format!("\n## {s}\n"));
        for r in records {
            let Body::Invariant(Invariant {
                section,
                title,
                what,
                r#where,
                why,
                extra,
            }) = normal(&r.body)
            else {
                continue;
            };
            if section != s {
                continue;
            }
            if withhold(r) {
                out.push_str(&format!("\n{}\n", withheld_line("invariant", &r.id)));
                continue;
            }
            out.push_str(&format!("\n### {title}\n"));
            push_rule_extras(&mut out, &extra, "");
            if !what.is_empty() {
                out.push_str(&format!("- **What:** {what}\n"));
                push_rule_extras(&mut out, &extra, "What");
            }
            if !r#where.is_empty() {
                let quoted: Vec<String> = r#where.iter().map(|w| format!("`{w}`")).collect();
                out.push_str(&format!("- **Where:** {}\n", quoted.join(", ")));
                push_rule_extras(&mut out, &extra, "Where");
            }
            if !why.is_empty() {
                out.push_str(&format!("- **Why:** {why}\n"));
                push_rule_extras(&mut out, &extra, "Why");
            }
        }
    }
    out
}

/// A rule's extras after `after`: other labelled fields as `- **Label:** …`, prose after a
/// blank line.
fn push_rule_extras(out: &mut String, extra: &[Extra], after: &str) {
    for x in extra.iter().filter(|x| x.after == after) {
        if x.label.is_empty() {
            out.push_str(&format!("\n{}\n", x.text));
        } else {
            out.push_str(&format!("- **{}:** ", x.label));
            out.push_str(&x.text);
            out.push('\n');
        }
    }
}

/// A rule field line: its label, whether the label was bold, and the value.
fn rule_field(line: &str) -> Option<(String, bool, &str)> {
    let t = line.trim_start();
    let t = match t.strip_prefix(['-', '*', '+']) {
        Some(r) if r.starts_with([' ', '\t']) => r.trim_start(),
        _ => t,
    };
    let colon = t.find(':')?;
    let head = &t[..colon];
    let stars = (head.len() - head.trim_start_matches('*').len()).min(2);
    let label: String = head.chars().filter(|c| *c != '*' && *c != '_').collect();
    let label = label.trim();
    if label.is_empty() {
        return None;
    }
    let mut value = &t[colon + 1..];
    for _ in 0..stars {
        value = value.strip_prefix('*').unwrap_or(value);
    }
    Some((label.to_owned(), stars > 0, value.trim()))
}

/// Whether a line reads as a rule field: a bold label, or What, Where or Why.
pub(crate) fn is_field_line(line: &str) -> bool {
    rule_field(line).is_some_and(|(label, bold, _)| {
        bold || matches!(loose(&label).as_str(), "what" | "where" | "why")
    })
}

/// Where the next line of a rule goes.
#[derive(Clone, Copy, PartialEq)]
enum Slot {
    What,
    Where,
    Why,
    /// The extra at this index.
    Extra(usize),
}

fn add(body: &mut Body, slot: Slot, value: &str) {
    if let Body::Invariant(Invariant {
        what,
        r#where,
        why,
        extra,
        ..
    }) = body
    {
        match slot {
            Slot::What => *what = one_line(&format!("{what} {value}")),
            Slot::Why => *why = one_line(&format!("{why} {value}")),
            Slot::Where => r#where.extend(paths(&read_paths(value), false)),
            Slot::Extra(i) => {
                let x = &mut extra[i];
                if !x.text.is_empty() {
                    x.text.push('\n');
                }
                x.text.push_str(value);
            }
        }
    }
}

/// The label of the last known field a rule has so far.
fn last_known(slots: &[Slot]) -> &'static str {
    slots
        .iter()
        .rev()
        .find_map(|s| match s {
            Slot::What => Some("What"),
            Slot::Where => Some("Where"),
            Slot::Why => Some("Why"),
            Slot::Extra(_) => None,
        })
        .unwrap_or("")
}

/// Reads the seed's layout: `## Section`, then one heading per rule at any deeper level (the
/// template writes `###`, the seed's loader reads `####`), then field lines.
pub(crate) fn parse(text: &str) -> Result<Vec<Parsed>, ParseError> {
    // Rules sit at the deepest heading level the file uses (below the title); shallower
    // headings are sections.
    let rule_level = numbered(text)
        .filter_map(|s| heading(s.text).map(|(level, _)| level))
        .filter(|level| *level >= 2)
        .max();
    let mut out: Vec<Parsed> = Vec::new();
    let mut section: Option<(usize, String)> = None;
    // Whether the last entry is the rule under the cursor, the fields it has had, and whether
    // a blank line came since the last field.
    let mut in_rule = false;
    let mut slots: Vec<Slot> = Vec::new();
    let mut blank = false;
    let mut open_fence: Option<&str> = None;
    for Src { no, text: line } in numbered(text) {
        // Inside a code fence (in an extra) every line is the extra's.
        if let (Some(marker), Some(s @ Slot::Extra(_)), Some(Parsed::Entry(e))) =
            (open_fence, slots.last().copied(), out.last_mut())
        {
            add(&mut e.body, s, line.trim_end());
            if line.starts_with(marker) {
                open_fence = None;
            }
            continue;
        }
        open_fence = None;
        if let Some(id) = withheld_id(line) {
            out.push(Parsed::Withheld(id.to_owned()));
            in_rule = false;
            continue;
        }
        match heading(line) {
            Some((1, _)) if section.is_none() => continue,
            Some((level, h)) if level >= 2 && (Some(level) < rule_level || section.is_none()) => {
                if h.is_empty() {
                    return Err(err(
                        no,
                        "empty section name: write \"## Danger Zones\" or another name",
                    ));
                }
                section = Some((level, one_line(h)));
                in_rule = false;
                continue;
            }
            Some((_, h)) if section.is_some() => {
                if h.is_empty() {
                    return Err(err(no, "missing rule title: write \"### <rule title>\""));
                }
                let s = section.as_ref().map(|(_, s)| s.clone()).unwrap_or_default();
                out.push(Parsed::entry(
                    Body::Invariant(Invariant {
                        section: s,
                        title: one_line(h),
                        what: String::new(),
                        r#where: Vec::new(),
                        why: String::new(),
                        extra: Vec::new(),
                    }),
                    None,
                ));
                in_rule = true;
                slots.clear();
                blank = false;
                continue;
            }
            Some(_) => return Err(err(no, "unexpected title heading after the sections")),
            None => {}
        }
        if is_blank(line) {
            blank = true;
            continue;
        }
        let rule = match out.last_mut() {
            Some(Parsed::Entry(e)) if in_rule => &mut e.body,
            _ if section.is_none() => {
                return Err(err(
                    no,
                    "expected a section heading such as \"## Danger Zones\"",
                ))
            }
            _ => {
                return Err(err(
                    no,
                    "expected a rule heading \"### <rule title>\" in this section",
                ))
            }
        };
        // An indented line continues the field above it (whatever it looks like).
        if let Some(s) = slots.last().copied() {
            if !blank && line.starts_with(char::is_whitespace) {
                // An extra keeps its lines as written; a field's value is one line.
                let value = match s {
                    Slot::Extra(_) => line.trim_end(),
                    _ => line.trim(),
                };
                add(rule, s, value);
                continue;
            }
        }
        if let Some((label, bold, value)) = rule_field(line) {
            let found = match loose(&label).as_str() {
                "what" => Some(Slot::What),
                "where" => Some(Slot::Where),
                "why" => Some(Slot::Why),
                _ if bold => {
                    let after = last_known(&slots).to_owned();
                    if let Body::Invariant(Invariant { extra, .. }) = rule {
                        extra.push(Extra {
                            after,
                            label: one_line(&label),
                            text: String::new(),
                        });
                        Some(Slot::Extra(extra.len() - 1))
                    } else {
                        None
                    }
                }
                _ => None,
            };
            if let Some(s) = found {
                add(rule, s, value);
                slots.push(s);
                blank = false;
                if matches!(s, Slot::Extra(_)) {
                    open_fence = fence(value);
                }
                continue;
            }
        }
        open_fence = fence(line);
        match slots.last().copied() {
            Some(s @ Slot::Extra(_)) if !blank => add(rule, s, line.trim()),
            _ => {
                // Prose of its own: kept after the last field, where it was.
                let after = last_known(&slots).to_owned();
                if let Body::Invariant(Invariant { extra, .. }) = rule {
                    extra.push(Extra {
                        after,
                        label: String::new(),
                        text: line.trim().to_owned(),
                    });
                    slots.push(Slot::Extra(extra.len() - 1));
                }
            }
        }
        blank = false;
    }
    for p in &mut out {
        if let Parsed::Entry(e) = p {
            normalize(&mut e.body);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{fold, Draft};
    use crate::view::{self, ViewFile};

    fn rule(section: &str, title: &str, what: &str, r#where: &[&str], why: &str) -> Body {
        Body::Invariant(Invariant {
            section: section.into(),
            title: title.into(),
            what: what.into(),
            r#where: r#where.iter().map(|s| s.to_string()).collect(),
            why: why.into(),
            extra: Vec::new(),
        })
    }

    fn with_extra(mut body: Body, x: Extra) -> Body {
        if let Body::Invariant(Invariant { extra, .. }) = &mut body {
            extra.push(x);
        }
        body
    }

    #[test]
    fn categories_and_icons() {
        assert_eq!(category("Danger Zones"), Category::Danger);
        assert_eq!(category("Critical Contracts"), Category::Critical);
        assert_eq!(category("API contracts"), Category::Critical);
        assert_eq!(category("State Machines"), Category::State);
        assert_eq!(category("Cross-File Couplings"), Category::Cross);
        assert_eq!(category("Style"), Category::Other);
        assert_eq!(Category::Cross.icon(), "🔗");
        assert!(
            is_archived("Archived") && is_archived(" archived rules") && !is_archived("Danger")
        );
    }

    #[test]
    fn renders_sections_in_order() {
        let bodies = [
            rule("Archived", "Old rule", "", &[], ""),
            rule("Style", "Tabs", "", &[], "consistency"),
            rule(
                "Cross-File Couplings",
                "Manifest mirror",
                "marketplace.json mirrors plugin.json",
                &[".claude-plugin/marketplace.json"],
                "",
            ),
            rule(
                "Danger Zones",
                "Router",
                "L0 router, never bypass",
                &["skills/skill-router/**", "src/{a,b}.rs"],
                "auth lives there",
            ),
        ];
        let records: Vec<Record> = bodies
            .into_iter()
            .enumerate()
            .map(|(i, b)| Draft::new(b).stamp("2026-04-04T14:30:00Z", i as u64 + 1, "a"))
            .collect();
        assert_eq!(
            view::render_all(ViewFile::Invariants, &fold(&records)),
            "# Invariants

## Danger Zones

### Router
- **What:** L0 router, never bypass
- **Where:** `skills/skill-router/**`, `src/{a,b}.rs`
- **Why:** auth lives there

## Cross-File Couplings

### Manifest mirror
- **What:** marketplace.json mirrors plugin.json
- **Where:** `.claude-plugin/marketplace.json`

## Style

### Tabs
- **Why:** consistency

## Archived

### Old rule
"
        );
    }

    #[test]
    fn parses_leniently() {
        let text = "# Invariants
## Critical Contracts
### IR schema
What: the IR schema is the adapter contract
  and must stay stable
**Where**: compiler/parser.js, compiler/ir.js
- **Owner:** compiler team
* Why: adapters break silently
## State Machines
### Phases
- **What:** phase order is pre → run → post
";
        assert_eq!(
            view::parse_bodies(ViewFile::Invariants, text).unwrap(),
            vec![
                with_extra(
                    rule(
                        "Critical Contracts",
                        "IR schema",
                        "the IR schema is the adapter contract and must stay stable",
                        &["compiler/parser.js", "compiler/ir.js"],
                        "adapters break silently"
                    ),
                    Extra {
                        after: "Where".into(),
                        label: "Owner".into(),
                        text: "compiler team".into(),
                    }
                ),
                rule(
                    "State Machines",
                    "Phases",
                    "phase order is pre → run → post",
                    &[],
                    ""
                ),
            ]
        );
    }

    #[test]
    fn errors_name_the_line() {
        let e = view::parse_bodies(
            ViewFile::Invariants,
            "# Invariants\n## Danger Zones\nprose\n",
        )
        .unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("### <rule title>"), "{e}");
        // Prose under a rule is kept with it.
        let got = view::parse_bodies(
            ViewFile::Invariants,
            "## Danger Zones\n### R\n- **What:** x\nloose text\n",
        )
        .unwrap();
        assert!(
            matches!(&got[0], Body::Invariant(Invariant { extra, .. }) if extra[0].text == "loose text" && extra[0].after == "What"),
            "{got:?}"
        );
        let e = view::parse_bodies(ViewFile::Invariants, "text first\n").unwrap_err();
        assert_eq!(e.line, 1);
    }
}
