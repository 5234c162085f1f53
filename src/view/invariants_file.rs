//! The layout of `INVARIANTS.md`: where its sections, rules and prose stand, read the way
//! Rune's invariants loader reads the file (`skills/session-bridge/scripts/load-invariants.js`),
//! so that the rules git-rune reads are the ones the loader reads.
//!
//! The facts of that loader this walk keeps (tests/fixtures/invariants/ and
//! scripts/check-invariants-loader.mjs compare the two):
//!
//! * a code fence opens and closes on a line that starts, after spaces, with ```` ``` ```` or
//!   `~~~`; nothing inside one is structure;
//! * sections are `##` or `###` headings named after one of its four kinds (Danger Zones,
//!   Critical Invariants, State Machine Rules, Cross-File Consistency), rules are `####`
//!   headings under a section, fields are `- **WHAT**:`, `- **WHERE**:`, `- **WHY**:` at the
//!   start of a line, one line each, the last of each winning;
//! * `## Archived` retires what follows it.
//!
//! git-rune reads more than that, never less: any `##` heading is a section, a `###` heading
//! followed by rule fields is a rule too, fields may be written `**What:**` or `What:`; and
//! the archive ends at the next `#` or `##` heading (the loader drops everything after it:
//! git-rune renders `## Archived` last, so the loader reading the view agrees).
//!
//! A file is split into rule blocks and its *layout*: every other line as written, with one
//! slot line (`#### <title>`) where each rule stood. The layout is what a file says beyond its
//! rules (its title, the template's prose, section headings without rules, comments, code
//! examples) and is kept as the file's frame; rendering fills the slots with the rules.

use super::text::{heading, is_rule, loose, one_line, withheld_id};

/// The section names Rune's loader knows, in the order it ranks them, each with the names
/// git-rune wrote before it followed the loader (read as the same section).
pub(crate) const SECTIONS: [(&str, &str); 4] = [
    ("Danger Zones", "Danger Zones"),
    ("Critical Invariants", "Critical Contracts"),
    ("State Machine Rules", "State Machines"),
    ("Cross-File Consistency", "Cross-File Couplings"),
];

/// The title the view writes when the file has no layout of its own.
pub(crate) const TITLE: &str = "# Project Invariants";

/// The rank of a section among the loader's four (either spelling).
pub(crate) fn known_rank(section: &str) -> Option<usize> {
    let l = loose(section);
    SECTIONS
        .iter()
        .position(|(name, old)| l.starts_with(&loose(name)) || l.starts_with(&loose(old)))
}

/// Retired rules live under `## Archived` and do not re-activate.
pub fn is_archived(section: &str) -> bool {
    loose(section).starts_with("archive")
}

/// Whether a line opens or closes a code fence for the loader: ```` ``` ```` or `~~~` after
/// any indentation. Returns the marker.
pub(crate) fn fence_marker(line: &str) -> Option<&'static str> {
    let t = line.trim_start();
    ["```", "~~~"].into_iter().find(|m| t.starts_with(m))
}

/// A column-0 rule field line, leniently: `- **WHAT**: v`, `- **What:** v`, `**Why**: v`,
/// `Where: v`, `* What: v`. Returns the field (`What`, `Where`, `Why`), or another bold label,
/// and the value; `None` for any other line.
pub(crate) fn field_line(line: &str) -> Option<(FieldLabel, &str)> {
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    let t = match line.strip_prefix(['-', '*', '+']) {
        Some(r) if r.starts_with([' ', '\t']) => r.trim_start(),
        _ => line,
    };
    let colon = t.find(':')?;
    let head = &t[..colon];
    let stars = head.len() - head.trim_start_matches('*').len();
    let label: String = head.chars().filter(|c| *c != '*' && *c != '_').collect();
    let label = label.trim();
    if label.is_empty() || (stars == 0 && label.contains(char::is_whitespace)) {
        return None;
    }
    let mut value = &t[colon + 1..];
    // `**What:** v`: the bold closes after the colon.
    for _ in 0..stars.min(2) {
        value = value.strip_prefix('*').unwrap_or(value);
    }
    let value = value.trim();
    let field = match loose(label).as_str() {
        "what" => FieldLabel::What,
        "where" => FieldLabel::Where,
        "why" => FieldLabel::Why,
        _ if stars >= 2 => FieldLabel::Other(label.to_owned()),
        _ => return None,
    };
    Some((field, value))
}

/// What a rule field line names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FieldLabel {
    What,
    Where,
    Why,
    /// Another bold label (`- **Owner**: …`), kept as the rule's extra.
    Other(String),
}

/// A line that ends a rule block without being part of it: blank, a thematic break or an
/// HTML comment at column 0 (they separate sections in Rune's template).
pub(crate) fn is_separator(line: &str) -> bool {
    let t = line.trim_end();
    t.is_empty()
        || (is_rule(t) && !line.starts_with(char::is_whitespace))
        || (t.starts_with("<!--") && t.ends_with("-->"))
}

/// The walk's state: the fence it is in, the section it is in, whether that is the archive.
#[derive(Debug, Default, Clone)]
pub(crate) struct Walk {
    fence: Option<&'static str>,
    /// The section rules here belong to: the nearest `##` heading or `###` heading of a known
    /// section (the archive's own heading inside the archive); `None` before any.
    pub section: Option<String>,
    /// The archive heading's text, while in the archive.
    pub archive: Option<String>,
}

/// What one line is to the walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// Inside a code fence (or opening or closing one).
    Fenced,
    /// A heading that names where rules go: `#` (none), `##`, or `###` of a known section.
    Section,
    /// A `####` heading in a section (a rule), or a `###` one (a rule if fields follow).
    RuleHeading { level: usize, title: String },
    /// A heading that is neither (deeper, or before any section).
    OtherHeading,
    /// A withheld rule's placeholder.
    Withheld(String),
    /// Any other line.
    Text,
}

impl Walk {
    /// Reads one line, updating the state.
    pub fn step(&mut self, line: &str) -> Step {
        if let Some(marker) = self.fence {
            if line.trim_start().starts_with(marker) {
                self.fence = None;
            }
            return Step::Fenced;
        }
        if let Some(marker) = fence_marker(line) {
            self.fence = Some(marker);
            return Step::Fenced;
        }
        if let Some(id) = withheld_id(line) {
            return Step::Withheld(id.to_owned());
        }
        let Some((level, h)) = heading(line) else {
            return Step::Text;
        };
        let name = one_line(h);
        match level {
            1 => {
                self.section = None;
                self.archive = None;
                Step::Section
            }
            2 => {
                self.archive = is_archived(&name).then(|| name.clone());
                self.section = Some(name);
                Step::Section
            }
            3 if known_rank(&name).is_some() => {
                if self.archive.is_none() {
                    self.section = Some(name);
                }
                Step::Section
            }
            3 | 4 if self.section.is_some() => Step::RuleHeading { level, title: name },
            _ => Step::OtherHeading,
        }
    }
}
