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

use super::text::{err, heading, is_blank, loose, numbered, one_line, paths, read_paths, Src};
use super::{normal, ParseError};
use crate::model::{Body, Record};

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

pub(crate) fn render(records: &[Record]) -> String {
    let rules: Vec<Body> = records.iter().map(|r| normal(&r.body)).collect();
    let mut sections: Vec<&str> = Vec::new();
    for b in &rules {
        if let Body::Invariant { section, .. } = b {
            if !sections.contains(&section.as_str()) {
                sections.push(section);
            }
        }
    }
    sections.sort_by_key(|s| rank(s));
    let mut out = String::from("# Invariants\n");
    for s in sections {
        out.push_str(&format!("\n## {s}\n"));
        for b in &rules {
            if let Body::Invariant {
                section,
                title,
                what,
                r#where,
                why,
            } = b
            {
                if section != s {
                    continue;
                }
                out.push_str(&format!("\n### {title}\n"));
                if !what.is_empty() {
                    out.push_str(&format!("- **What:** {what}\n"));
                }
                if !r#where.is_empty() {
                    let quoted: Vec<String> = r#where.iter().map(|w| format!("`{w}`")).collect();
                    out.push_str(&format!("- **Where:** {}\n", quoted.join(", ")));
                }
                if !why.is_empty() {
                    out.push_str(&format!("- **Why:** {why}\n"));
                }
            }
        }
    }
    out
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

#[derive(Clone, Copy)]
enum Slot {
    What,
    Where,
    Why,
    Skip,
}

fn add(body: &mut Body, slot: Slot, value: &str) {
    if let Body::Invariant {
        what, r#where, why, ..
    } = body
    {
        match slot {
            Slot::What | Slot::Why => {
                let v = if matches!(slot, Slot::What) {
                    what
                } else {
                    why
                };
                *v = one_line(&format!("{v} {value}"));
            }
            Slot::Where => r#where.extend(paths(&read_paths(value), false)),
            Slot::Skip => {}
        }
    }
}

const FIELD_FORMS: &str = "\"- **What:** …\", \"- **Where:** `path`\" or \"- **Why:** …\"";

pub(crate) fn parse(text: &str) -> Result<Vec<Body>, ParseError> {
    let mut out: Vec<Body> = Vec::new();
    let mut section: Option<String> = None;
    // Whether the last body is the rule under the cursor, and which field an indented line continues.
    let mut in_rule = false;
    let mut slot: Option<Slot> = None;
    for Src { no, text: line } in numbered(text) {
        match heading(line) {
            Some((1, _)) if section.is_none() => continue,
            Some((1, _)) => return Err(err(no, "unexpected title heading after the sections")),
            Some((2, h)) => {
                if h.is_empty() {
                    return Err(err(
                        no,
                        "empty section name: write \"## Danger Zones\" or another name",
                    ));
                }
                section = Some(one_line(h));
                in_rule = false;
                continue;
            }
            Some((3, h)) => {
                let Some(s) = &section else {
                    return Err(err(
                        no,
                        "expected a section heading such as \"## Danger Zones\" before the rule",
                    ));
                };
                if h.is_empty() {
                    return Err(err(no, "missing rule title: write \"### <rule title>\""));
                }
                out.push(Body::Invariant {
                    section: s.clone(),
                    title: one_line(h),
                    what: String::new(),
                    r#where: Vec::new(),
                    why: String::new(),
                });
                in_rule = true;
                slot = None;
                continue;
            }
            _ => {}
        }
        if is_blank(line) {
            continue;
        }
        let rule = match out.last_mut() {
            Some(rule) if in_rule => rule,
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
        if let Some((label, bold, value)) = rule_field(line) {
            let found = match loose(&label).as_str() {
                "what" => Some(Slot::What),
                "where" => Some(Slot::Where),
                "why" => Some(Slot::Why),
                _ if bold => Some(Slot::Skip),
                _ => None,
            };
            if let Some(s) = found {
                add(rule, s, value);
                slot = Some(s);
                continue;
            }
        }
        match slot {
            Some(s) if line.starts_with(char::is_whitespace) => add(rule, s, line.trim()),
            _ => return Err(err(no, format!("expected a rule field: {FIELD_FORMS}"))),
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
        Body::Invariant {
            section: section.into(),
            title: title.into(),
            what: what.into(),
            r#where: r#where.iter().map(|s| s.to_string()).collect(),
            why: why.into(),
        }
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
            view::render(ViewFile::Invariants, &fold(&records)),
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
            view::parse(ViewFile::Invariants, text).unwrap(),
            vec![
                rule(
                    "Critical Contracts",
                    "IR schema",
                    "the IR schema is the adapter contract and must stay stable",
                    &["compiler/parser.js", "compiler/ir.js"],
                    "adapters break silently"
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
        let e = view::parse(ViewFile::Invariants, "# Invariants\n### Orphan\n").unwrap_err();
        assert_eq!(e.line, 2);
        let e = view::parse(
            ViewFile::Invariants,
            "# Invariants\n## Danger Zones\nprose\n",
        )
        .unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("### <rule title>"), "{e}");
        let e = view::parse(
            ViewFile::Invariants,
            "## Danger Zones\n### R\n- **What:** x\nloose text\n",
        )
        .unwrap_err();
        assert_eq!(e.line, 4);
        assert!(e.message.contains("**What:**"), "{e}");
        let e = view::parse(ViewFile::Invariants, "text first\n").unwrap_err();
        assert_eq!(e.line, 1);
    }
}
