//! Remembrance (seed 002): etched echoes promoted to documents for people,
//! `docs/solutions/<category>/<slug>.md` with the seed's YAML frontmatter and an `echo_ref`
//! (`<path>#<uid>@sha256:<hash of the entry as rendered>`) that `git rune verify` checks. The
//! promotion rules, the frontmatter and the duplicate check are pure; reading and writing the
//! documents is here too, since they are plain files of the work tree.
//!
//! The frontmatter is flat `key: value` lines (strings quoted, tags a `[a, b]` list), written
//! and read by the few lines below rather than a YAML library: git-rune only reads what it
//! wrote and what people write in that shape.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use sha2::{Digest, Sha256};

use crate::error;
use crate::model::echo::ETCHED;
use crate::model::kinds::Echo;
use crate::model::{Body, Record, State};
use crate::view::echoes::render_entry;

/// The seed's eight categories.
pub const CATEGORIES: [&str; 8] = [
    "build-errors",
    "test-failures",
    "runtime-errors",
    "configuration",
    "performance",
    "security",
    "architecture",
    "tooling",
];

/// Where Remembrance documents live, relative to the work tree.
pub const SOLUTIONS_DIR: &str = "docs/solutions";

/// The confidence from which an entry counts as high.
pub const HIGH: f64 = 0.8;

/// A document's frontmatter.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Doc {
    pub title: String,
    pub category: String,
    pub tags: Vec<String>,
    pub date: String,
    pub symptom: String,
    pub root_cause: String,
    pub solution_summary: String,
    pub echo_ref: String,
    pub confidence: String,
    pub verified_by: String,
    pub requires_human_approval: bool,
    /// Where it is, relative to the work tree.
    pub path: String,
}

/// The sha256 of an entry's content as the view renders it.
pub fn content_hash(body: &Body) -> String {
    Sha256::digest(render_entry(body).as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `<echoes dir>/<role>/MEMORY.md#<uid>@sha256:<hash>`.
pub fn echo_ref(echoes_dir: &str, body: &Body) -> String {
    Echo::of(body).map_or_else(String::new, |e| {
        let (role, uid) = (&e.role, &e.uid);
        format!(
            "{echoes_dir}/{role}/MEMORY.md#{uid}@sha256:{}",
            content_hash(body)
        )
    })
}

/// The uid and hash an `echo_ref` names.
pub fn parse_echo_ref(r: &str) -> Option<(&str, &str)> {
    let (_, rest) = r.rsplit_once('#')?;
    let (uid, hash) = rest.split_once("@sha256:")?;
    Some((uid, hash))
}

/// A field of the entry kept as an extra labelled line (`- **symptom**: …`).
fn extra_field(body: &Body, names: &[&str]) -> String {
    body.extra()
        .iter()
        .find(|x| {
            let l = x.label.to_lowercase().replace([' ', '-'], "_");
            names.contains(&l.as_str())
        })
        .map(|x| x.text.trim().to_owned())
        .unwrap_or_default()
}

/// The labels of a problem-solution pair written as prose in the learning
/// (`Symptom: … Root cause: … Solution: …`), each with the field it fills.
const PROSE_LABELS: [(&str, &str); 5] = [
    ("symptom", "symptom"),
    ("root cause", "root_cause"),
    ("root-cause", "root_cause"),
    ("solution summary", "solution_summary"),
    ("solution", "solution_summary"),
];

/// A field of the pair written as prose in `text`: what follows its label (`Root cause:`,
/// any case, at a sentence or line start) up to the next label or the end.
fn prose_field(text: &str, field: &str) -> String {
    let lower = text.to_lowercase();
    // Every label's place: (start of label, end of label incl. its colon, field).
    let mut marks: Vec<(usize, usize, &str)> = Vec::new();
    for (label, f) in PROSE_LABELS {
        let mut from = 0;
        while let Some(i) = lower[from..].find(label) {
            let at = from + i;
            from = at + label.len();
            // The label, its bold or italics closing, then a colon (`**Root cause**:`).
            let after = lower[from..].trim_start_matches(['*', '_']);
            let Some(rest) = after.strip_prefix(':') else {
                continue;
            };
            let end = lower.len() - rest.len();
            let before = lower[..at].trim_end_matches([' ', '*', '_', '-']);
            let starts = before.is_empty() || before.ends_with(['.', '\n', ';', '(', '!', '?']);
            // `solution:` inside `solution summary:` is the longer label's.
            let inside = marks.iter().any(|(s, e, _)| at >= *s && at < *e);
            if starts && !inside {
                marks.push((at, end, f));
            }
        }
    }
    marks.sort();
    marks
        .iter()
        .enumerate()
        .find(|(_, (_, _, f))| *f == field)
        .map(|(i, (_, end, _))| {
            let stop = marks.get(i + 1).map_or(text.len(), |m| m.0);
            text[*end..stop]
                .trim()
                .trim_matches(['*', '_'])
                .trim()
                .to_owned()
        })
        .unwrap_or_default()
}

/// What a promotion writes, from the entry and what the caller adds.
#[derive(Debug, Clone, Default)]
pub struct Request {
    pub category: String,
    pub symptom: Option<String>,
    pub root_cause: Option<String>,
    pub solution: Option<String>,
    pub tags: Vec<String>,
    /// A person confirmed on a terminal (security needs it).
    pub human: bool,
}

fn norm(s: &str) -> String {
    s.split_whitespace()
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Checks the seed's promotion rules for `r` (refusing with what is missing) and builds the
/// document; `sessions` is how many workflows referenced it; `existing` the documents there.
pub fn plan(
    r: &Record,
    sessions: usize,
    req: &Request,
    echoes_dir: &str,
    today: &str,
    existing: &[Doc],
) -> Result<Doc> {
    let Some(Echo {
        layer,
        title,
        confidence,
        text: learning,
        ..
    }) = Echo::of(&r.body)
    else {
        return Err(error::input("not an echo", "give an echo's id"));
    };
    if !CATEGORIES.contains(&req.category.as_str()) {
        return Err(error::input(
            format!("{:?} is not a Remembrance category", req.category),
            format!("use one of {}", CATEGORIES.join(", ")),
        ));
    }
    if layer != ETCHED {
        return Err(error::input(
            format!("{title:?} is {layer}: only etched echoes become Remembrance documents"),
            "an entry becomes etched when a person confirms it (`git rune echo add --layer etched --confirm`)",
        ));
    }
    // Given, else a labelled line of the entry, else written as prose in its learning.
    let pick = |given: &Option<String>, names: &[&str]| {
        given
            .clone()
            .filter(|s| !s.trim().is_empty())
            .or_else(|| Some(extra_field(&r.body, names)).filter(|s| !s.is_empty()))
            .unwrap_or_else(|| prose_field(learning, names[0]))
    };
    let symptom = pick(&req.symptom, &["symptom"]);
    let root_cause = pick(&req.root_cause, &["root_cause"]);
    let solution = pick(&req.solution, &["solution_summary", "solution"]);
    if symptom.is_empty() || root_cause.is_empty() || solution.is_empty() {
        return Err(error::input(
            format!("{title:?} has no clear problem-solution pair (symptom, root cause and solution)"),
            "add `- **symptom**: …`, `- **root_cause**: …` and `- **solution_summary**: …` lines to the entry \
             (or pass --symptom, --root-cause and --solution)",
        ));
    }
    if *confidence < HIGH && sessions < 2 {
        return Err(error::input(
            format!(
                "{title:?} is not validated: confidence {confidence} is below {HIGH} and {sessions} sessions referenced it"
            ),
            "promote entries with high confidence or referenced by 2 or more sessions (`git rune echo ref`)",
        ));
    }
    let audience = extra_field(&r.body, &["audience"]).to_lowercase();
    if audience.starts_with("agent") {
        return Err(error::input(
            format!("{title:?} is marked for agents only: it is not actionable for people"),
            "Remembrance is for people; remove the `audience` line if a person can act on it",
        ));
    }
    if req.category == "security" && !req.human {
        return Err(error::input(
            format!("{title:?}: security documents need verified_by: human (BLOCKED)"),
            "a person runs `git rune echo promote <id> --category security --verified-by-human` on a terminal and confirms",
        ));
    }
    let mut tags = req.tags.clone();
    if tags.is_empty() {
        tags = extra_field(&r.body, &["tags"])
            .split(',')
            .map(|t| t.trim().trim_matches(['[', ']']).to_lowercase())
            .filter(|t| !t.is_empty())
            .collect();
    }
    let desc = match crate::model::echo::title_kind(title) {
        Some(k) => title[k.len() + 1..].trim(),
        None => title.as_str(),
    };
    let doc = Doc {
        title: desc.to_owned(),
        category: req.category.clone(),
        tags,
        date: today.to_owned(),
        symptom,
        root_cause,
        solution_summary: solution,
        echo_ref: echo_ref(echoes_dir, &r.body),
        confidence: if *confidence >= HIGH {
            "high"
        } else {
            "medium"
        }
        .to_owned(),
        verified_by: if req.human { "human" } else { "agent" }.to_owned(),
        requires_human_approval: req.category == "security",
        path: format!("{SOLUTIONS_DIR}/{}/{}.md", req.category, slug(desc)),
    };
    for d in existing {
        let shared = d.tags.iter().filter(|t| doc.tags.contains(t)).count();
        if norm(&d.title) == norm(&doc.title)
            || norm(&d.root_cause) == norm(&doc.root_cause)
            || shared >= 3
            || d.path == doc.path
        {
            return Err(error::input(
                format!("a Remembrance document already covers this: {}", d.path),
                "edit that document instead, or change the entry's title, root cause or tags",
            ));
        }
    }
    Ok(doc)
}

/// `N+1 queries in user list` → `n-1-queries-in-user-list`.
pub fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-').to_owned();
    if out.is_empty() {
        "solution".to_owned()
    } else {
        out.chars().take(80).collect()
    }
}

fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The document's text: the frontmatter, then the problem and the solution for people.
pub fn render(doc: &Doc, learning: &str) -> String {
    format!(
        "---\ntitle: {}\ncategory: {}\ntags: [{}]\ndate: {}\nsymptom: {}\nroot_cause: {}\nsolution_summary: {}\necho_ref: {}\nconfidence: {}\nverified_by: {}\nrequires_human_approval: {}\n---\n\n# {}\n\n## Symptom\n\n{}\n\n## Root cause\n\n{}\n\n## Solution\n\n{}\n\n{}\n",
        quote(&doc.title),
        doc.category,
        doc.tags.join(", "),
        doc.date,
        quote(&doc.symptom),
        quote(&doc.root_cause),
        quote(&doc.solution_summary),
        quote(&doc.echo_ref),
        doc.confidence,
        doc.verified_by,
        doc.requires_human_approval,
        doc.title,
        doc.symptom,
        doc.root_cause,
        doc.solution_summary,
        learning
    )
}

fn unquote(v: &str) -> String {
    let v = v.trim();
    match v.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        Some(inner) => inner.replace("\\\"", "\"").replace("\\\\", "\\"),
        None => v.trim_matches('\'').to_owned(),
    }
}

/// Reads a document's frontmatter (`None` when it has none).
pub fn parse(text: &str, path: &str) -> Option<Doc> {
    let text = text.replace("\r\n", "\n");
    let rest = text.strip_prefix("---\n")?;
    let end = rest.find("\n---")?;
    let mut d = Doc {
        path: path.to_owned(),
        ..Doc::default()
    };
    for line in rest[..end].lines() {
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        let v = v.trim();
        match k.trim() {
            "title" => d.title = unquote(v),
            "category" => d.category = unquote(v),
            "tags" => {
                d.tags = v
                    .trim_matches(['[', ']'])
                    .split(',')
                    .map(|t| unquote(t).to_lowercase())
                    .filter(|t| !t.is_empty())
                    .collect()
            }
            "date" => d.date = unquote(v),
            "symptom" => d.symptom = unquote(v),
            "root_cause" => d.root_cause = unquote(v),
            "solution_summary" => d.solution_summary = unquote(v),
            "echo_ref" => d.echo_ref = unquote(v),
            "confidence" => d.confidence = unquote(v),
            "verified_by" => d.verified_by = unquote(v),
            "requires_human_approval" => d.requires_human_approval = v == "true",
            _ => {}
        }
    }
    Some(d)
}

/// Every document under `docs/solutions/` of the work tree, by path.
pub fn documents(workdir: &Path) -> Result<Vec<Doc>> {
    let root = workdir.join(SOLUTIONS_DIR);
    let mut out = Vec::new();
    let Ok(cats) = std::fs::read_dir(&root) else {
        return Ok(out);
    };
    let mut paths: Vec<PathBuf> = Vec::new();
    for c in cats.flatten() {
        if let Ok(files) = std::fs::read_dir(c.path()) {
            paths.extend(
                files
                    .flatten()
                    .map(|f| f.path())
                    .filter(|p| p.extension().is_some_and(|e| e == "md")),
            );
        }
    }
    paths.sort();
    for p in paths {
        let text =
            std::fs::read_to_string(&p).with_context(|| format!("cannot read {}", p.display()))?;
        let rel = p
            .strip_prefix(workdir)
            .unwrap_or(&p)
            .to_string_lossy()
            .replace('\\', "/");
        if let Some(d) = parse(&text, &rel) {
            out.push(d);
        }
    }
    Ok(out)
}

/// An `echo_ref` that no longer matches memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stale {
    pub path: String,
    pub echo_ref: String,
    /// `changed` (the entry's content moved on) or `missing` (no such echo).
    pub why: &'static str,
}

/// The documents whose `echo_ref` hash no longer matches the entry in memory.
pub fn stale(docs: &[Doc], state: &State) -> Vec<Stale> {
    docs.iter()
        .filter(|d| !d.echo_ref.is_empty())
        .filter_map(|d| {
            let (uid, hash) = parse_echo_ref(&d.echo_ref)?;
            let why = match super::by_uid(state, uid) {
                None => "missing",
                Some(r) if content_hash(&r.body) != hash => "changed",
                Some(_) => return None,
            };
            Some(Stale {
                path: d.path.clone(),
                echo_ref: d.echo_ref.clone(),
                why,
            })
        })
        .collect()
}

#[cfg(test)]
#[path = "remembrance_tests.rs"]
mod tests;
