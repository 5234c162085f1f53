//! git-rune's `INVARIANTS.md` against Rune's invariants loader
//! (`skills/session-bridge/scripts/load-invariants.js` in Rune-kit/rune).
//!
//! The loader is not part of this repository. Its rules are written down here as an oracle
//! ([`loader`], a port of what its `stripArchived` and `parseInvariants` do), and what the
//! real loader reads from every fixture in tests/fixtures/invariants/ is recorded beside it
//! (`<name>.loader.json`, written by `scripts/check-invariants-loader.mjs --write` against
//! the real loader, which also checks git-rune's rendering through the real binary). The
//! tests below hold the oracle to those recordings, git-rune to the oracle on every file in
//! the loader's form, and the loader's reading of git-rune's own rendering to what git-rune
//! shows.

use serde::Deserialize;

use super::invariants::{is_archived, load};
use super::invariants_file::known_rank;
use super::{parse_framed, render, show_all, Parsed, ViewFile};
use crate::model::kinds::{Document, Invariant};
use crate::model::{fold, Body, Draft, Record};

/// One active rule as the loader returns it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
struct Rule {
    section: String,
    title: String,
    what: String,
    #[serde(rename = "where")]
    globs: Vec<String>,
    why: String,
}

/// The loader's four section names and their keys.
const LOADER_SECTIONS: [(&str, &str); 4] = [
    ("Danger Zones", "danger"),
    ("Critical Invariants", "critical"),
    ("State Machine Rules", "state"),
    ("Cross-File Consistency", "cross"),
];

/// JavaScript's `String.prototype.trim` family trims Unicode white space, as Rust's does.
fn starts_section(line: &str, hashes: &str) -> Option<&'static str> {
    let rest = line.strip_prefix(hashes)?;
    let name = rest.strip_prefix(|c: char| c.is_whitespace())?.trim_start();
    LOADER_SECTIONS.iter().find_map(|(n, key)| {
        let after = name.strip_prefix(n)?;
        // `\b` after the name: the next character is not a word character.
        (!after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')).then_some(*key)
    })
}

/// The loader's `walkLines`: each line, and whether it is in (or opens or closes) a fence.
fn walk(text: &str) -> Vec<(&str, bool)> {
    let mut out = Vec::new();
    let mut fence: Option<&str> = None;
    for line in text.split('\n') {
        let t = line.trim_start();
        match fence {
            Some(delim) => {
                if t.starts_with(delim) {
                    fence = None;
                }
                out.push((line, true));
            }
            None if t.starts_with("```") || t.starts_with("~~~") => {
                fence = Some(if t.starts_with("```") { "```" } else { "~~~" });
                out.push((line, true));
            }
            None => out.push((line, false)),
        }
    }
    out
}

/// The loader's `extractGlobs`.
fn globs(raw: &str) -> Vec<String> {
    let quoted: Vec<String> = raw
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|g| !g.is_empty())
        .map(|g| g.trim().to_owned())
        .collect();
    if !quoted.is_empty() && raw.matches('`').count() >= 2 {
        return quoted;
    }
    raw.split([',', ';'])
        .map(str::trim)
        .filter(|g| !g.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The active rules Rune's loader reads from a file (`parseInvariants(stripArchived(text))`).
fn loader(text: &str) -> Vec<Rule> {
    let lines = walk(text);
    // stripArchived: everything from the first `## Archived` outside a fence.
    let end = lines
        .iter()
        .position(|(l, fenced)| {
            !fenced
                && l.strip_prefix("## Archived")
                    .is_some_and(|r| r.chars().all(char::is_whitespace))
        })
        .unwrap_or(lines.len());
    let mut rules = Vec::new();
    let mut section: Option<&str> = None;
    let mut current: Option<Rule> = None;
    for (raw, fenced) in &lines[..end] {
        if *fenced {
            continue;
        }
        let line = raw.trim_end();
        if let Some(key) = starts_section(line, "##").or_else(|| starts_section(line, "###")) {
            rules.extend(current.take());
            section = Some(key);
            continue;
        }
        let rule_title = line
            .strip_prefix("####")
            .filter(|r| r.starts_with(char::is_whitespace))
            .map(str::trim)
            .filter(|t| !t.is_empty());
        if let (Some(title), Some(key)) = (rule_title, section) {
            rules.extend(current.take());
            current = Some(Rule {
                section: key.to_owned(),
                title: title.to_owned(),
                what: String::new(),
                globs: Vec::new(),
                why: String::new(),
            });
            continue;
        }
        let Some(rule) = current.as_mut() else {
            continue;
        };
        let field = line
            .strip_prefix('-')
            .filter(|r| r.starts_with(char::is_whitespace))
            .map(str::trim_start)
            .and_then(|r| {
                ["WHAT", "WHERE", "WHY"].into_iter().find_map(|k| {
                    let v = r.strip_prefix(&format!("**{k}**:"))?.trim();
                    (!v.is_empty()).then_some((k, v))
                })
            });
        match field {
            Some(("WHAT", v)) => rule.what = v.to_owned(),
            Some(("WHY", v)) => rule.why = v.to_owned(),
            Some((_, v)) => rule.globs = globs(v),
            None => {}
        }
    }
    rules.extend(current);
    rules
}

/// The fixtures: (name, text, whether it is in the loader's form, whether the rendering
/// writes it back byte for byte).
const FIXTURES: &[(&str, &str, bool, bool)] = &[
    (
        "loader-sample",
        include_str!("../../tests/fixtures/invariants/loader-sample.md"),
        true,
        true,
    ),
    (
        "fenced-headings",
        include_str!("../../tests/fixtures/invariants/fenced-headings.md"),
        true,
        true,
    ),
    (
        "onboard-template",
        include_str!("../../tests/fixtures/invariants/onboard-template.md"),
        true,
        true,
    ),
    (
        "template-filled",
        include_str!("../../tests/fixtures/invariants/template-filled.md"),
        true,
        true,
    ),
    (
        "crlf",
        include_str!("../../tests/fixtures/invariants/crlf.md"),
        true,
        false,
    ),
    (
        "multiline",
        include_str!("../../tests/fixtures/invariants/multiline.md"),
        true,
        false,
    ),
    (
        "prose-only",
        include_str!("../../tests/fixtures/invariants/prose-only.md"),
        true,
        true,
    ),
    // git-rune reads these more widely than the loader (docs/storage.md says how).
    (
        "archive-in-the-middle",
        include_str!("../../tests/fixtures/invariants/archive-in-the-middle.md"),
        false,
        false,
    ),
    (
        "lenient-old-git-rune",
        include_str!("../../tests/fixtures/invariants/lenient-old-git-rune.md"),
        false,
        false,
    ),
    (
        "lenient-mixed",
        include_str!("../../tests/fixtures/invariants/lenient-mixed.md"),
        false,
        false,
    ),
];

/// What the real loader read from a fixture.
fn recorded(name: &str) -> Vec<Rule> {
    let path = format!(
        "{}/tests/fixtures/invariants/{name}.loader.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The records a save of the file writes: its rules, and its layout when it has one.
fn saved(text: &str) -> Vec<Record> {
    let framed = parse_framed(ViewFile::Invariants, text).unwrap();
    let mut records: Vec<Record> = framed
        .items
        .into_iter()
        .enumerate()
        .filter_map(|(i, p)| match p {
            Parsed::Entry(e) => {
                Some(Draft::new(e.body).stamp("2026-03-01T00:00:00Z", i as u64 + 1, "t <t@t>"))
            }
            Parsed::Withheld(_) => None,
        })
        .collect();
    if let Some(frame) = framed.frame {
        records.push(
            Draft::new(Body::Document(Document {
                path: super::frame_path(ViewFile::Invariants),
                content: frame,
            }))
            .stamp("2026-03-01T00:00:00Z", 1000, "t <t@t>"),
        );
    }
    records
}

/// git-rune's active rules as the loader would name them, each with whether its section is
/// one of the loader's four (the loader cannot name the others: it files a rule under the
/// last of its sections above it, or drops it before any).
fn active(records: &[Record]) -> Vec<(Rule, bool)> {
    let state = fold(records);
    load(&state.invariants)
        .rules
        .into_iter()
        .filter_map(|r| match &r.body {
            Body::Invariant(Invariant {
                section,
                title,
                what,
                r#where,
                why,
                ..
            }) => {
                let rank = known_rank(section);
                Some((
                    Rule {
                        section: rank.map_or("other", |i| LOADER_SECTIONS[i].1).to_owned(),
                        title: title.clone(),
                        what: what.clone(),
                        globs: r#where.clone(),
                        why: why.clone(),
                    },
                    rank.is_some(),
                ))
            }
            _ => None,
        })
        .collect()
}

/// git-rune's active rules in the loader's four sections.
fn ours(records: &[Record]) -> Vec<Rule> {
    active(records)
        .into_iter()
        .filter(|(_, known)| *known)
        .map(|(r, _)| r)
        .collect()
}

#[test]
fn the_oracle_reads_every_fixture_as_the_real_loader_did() {
    for (name, text, _, _) in FIXTURES {
        assert_eq!(loader(text), recorded(name), "{name}");
    }
}

#[test]
fn git_rune_reads_the_loaders_rules_from_every_file_in_its_form() {
    for (name, text, loader_form, _) in FIXTURES {
        if !loader_form {
            continue;
        }
        // Order aside: `load` lists rules as memory holds them.
        let mut want = recorded(name);
        let mut got = ours(&saved(text));
        want.sort_by(|a, b| a.title.cmp(&b.title));
        got.sort_by(|a, b| a.title.cmp(&b.title));
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn the_loader_reads_git_runes_rendering_as_git_rune_does() {
    for (name, text, _, _) in FIXTURES {
        let records = saved(text);
        let rendered = render(ViewFile::Invariants, &fold(&records), &show_all);
        let theirs = loader(&rendered);
        let all = active(&records);
        // Every rule of the loader's four sections, the loader reads, under the same section.
        for rule in ours(&records) {
            assert!(
                theirs.contains(&rule),
                "{name}: the loader misses {rule:?}\n{rendered}"
            );
        }
        // Every rule the loader reads is active in git-rune (the loader names another
        // section for a rule git-rune files under a section it does not know).
        for rule in &theirs {
            let same = |(r, known): &(Rule, bool)| {
                (r == rule)
                    || (!known
                        && Rule {
                            section: rule.section.clone(),
                            ..r.clone()
                        } == *rule)
            };
            assert!(
                all.iter().any(same),
                "{name}: the loader reads {rule:?}, git-rune does not\n{rendered}"
            );
        }
        // The rendering reads back as the same records, and renders the same again.
        let again = saved(&rendered);
        assert_eq!(
            render(ViewFile::Invariants, &fold(&again), &show_all),
            rendered,
            "{name}"
        );
    }
}

#[test]
fn files_in_the_loaders_form_come_back_byte_for_byte() {
    for (name, text, _, exact) in FIXTURES {
        let rendered = render(ViewFile::Invariants, &fold(&saved(text)), &show_all);
        if *exact {
            assert_eq!(&rendered, text, "{name}");
        }
        // No line is lost: every non-blank line written is in the rendering (the field
        // lines in the loader's spelling).
        if name.starts_with("lenient") {
            continue;
        }
        for line in text
            .lines()
            .map(str::trim_end)
            .filter(|l| !l.trim().is_empty())
        {
            assert!(
                rendered.lines().any(|r| r.trim_end() == line)
                    || line.starts_with("- **WHERE**")
                    || line.starts_with("- **WHY**:") && line.trim_end() == "- **WHY**:",
                "{name}: lost {line:?}\n{rendered}"
            );
        }
    }
}

#[test]
fn an_archived_danger_zones_stays_archived() {
    let (_, text, _, _) = FIXTURES[0];
    let records = saved(text);
    let state = fold(&records);
    let retired: Vec<&Record> = state
        .invariants
        .iter()
        .filter(|r| r.body.title() == "legacy-cron")
        .collect();
    assert_eq!(retired.len(), 1);
    assert!(
        matches!(&retired[0].body, Body::Invariant(Invariant { section, .. }) if is_archived(section))
    );
    assert!(!load(&state.invariants)
        .rules
        .iter()
        .any(|r| r.body.title() == "legacy-cron"));
    let rendered = render(ViewFile::Invariants, &state, &show_all);
    assert!(
        rendered.contains("## Archived\n\n### Danger Zones\n\n#### legacy-cron\n"),
        "{rendered}"
    );
}

#[test]
fn an_archive_in_the_middle_ends_at_the_next_section_and_is_written_last() {
    let (_, text, _, _) = FIXTURES[7];
    let records = saved(text);
    let titles: Vec<String> = load(&fold(&records).invariants)
        .rules
        .iter()
        .map(|r| r.body.title().to_owned())
        .collect();
    assert_eq!(titles, vec!["schema-owner", "locales"]);
    let rendered = render(ViewFile::Invariants, &fold(&records), &show_all);
    assert!(
        rendered
            .trim_end()
            .ends_with("- **WHERE**: `db/schema.sql`"),
        "{rendered}"
    );
    assert!(
        rendered.find("## Cross-File Consistency") < rendered.find("## Archived"),
        "{rendered}"
    );
}

#[test]
fn rules_added_elsewhere_go_to_the_end_of_their_section_in_the_layout() {
    let (_, text, _, _) = FIXTURES[2];
    let mut records = saved(text);
    for (i, (section, title)) in [
        ("Critical Invariants", "new-contract"),
        ("Style", "tabs"),
        ("Archived", "old"),
    ]
    .into_iter()
    .enumerate()
    {
        records.push(
            Draft::new(Body::Invariant(Invariant {
                section: section.into(),
                title: title.into(),
                what: "w".into(),
                r#where: vec!["src/**".into()],
                why: String::new(),
                extra: Vec::new(),
            }))
            .stamp("2026-03-02T00:00:00Z", 2000 + i as u64, "t <t@t>"),
        );
    }
    let rendered = render(ViewFile::Invariants, &fold(&records), &show_all);
    assert!(
        rendered.contains("Values shared across files: constants, contracts, protocol fields.\n\n<!-- detected entries are added below -->\n\n#### new-contract\n- **WHAT**: w\n- **WHERE**: `src/**`\n\n---\n"),
        "{rendered}"
    );
    assert!(rendered.contains("## Style\n\n#### tabs\n"), "{rendered}");
    assert!(
        rendered.find("\n## Style\n") < rendered.find("\n## Archived\n"),
        "{rendered}"
    );
    assert!(
        rendered
            .trim_end()
            .ends_with("#### old\n- **WHAT**: w\n- **WHERE**: `src/**`"),
        "{rendered}"
    );
    // The loader reads them where they went (the one under Style it cannot see).
    assert!(loader(&rendered)
        .iter()
        .any(|r| r.title == "new-contract" && r.section == "critical"));
}
