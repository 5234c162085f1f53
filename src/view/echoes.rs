//! The Echoes view (seed 002): a role's entries as `MEMORY.md`, its knowledge blocks as
//! `knowledge.md` and its archived entries as `archive/MEMORY.md`, in the seed's entry format
//! under the `<!-- echo-schema: v1 -->` header, and the same files (or an agent's
//! `<agent>-findings.md`) read back. Pure: text in, text out.
//!
//! Reading is lenient (heading levels `##`–`####`, labels bold or not, `*` bullets, the
//! seed's one-line form `### [date] Title - **layer**: … - …`, CRLF); what it does not know
//! (another labelled line, prose, text above the first entry) is kept as the entry's extras
//! and written back where it was, so no line a person wrote is lost.
//!
//! The Rune Echoes plugin's own entry format is read too (vinhnxv/rune-plugin, its
//! `echo-search` indexer): `## <Tier> — <title> (YYYY-MM-DD)` after a blank line (tiers
//! Etched, Notes, Inscribed, Observations, Traced; an em dash, en dash or hyphen), then
//! `**Source**: …` and `**Confidence**: HIGH (…)` lines, then any markdown up to the next
//! entry (sub-headings, lists, paragraphs), which is the learning, kept as written. A word
//! confidence is kept as written beside the number it reads as. Entries are written back in
//! the seed's format.
//!
//! Past 600 lines: one lenient reader and one writer for two entry formats (the seed's and the
//! plugin's), which share every field rule; split by format, each would repeat them.

use super::{ParseError, Parsed, Withhold};
use crate::model::echo::{self, format_confidence};
use crate::model::kinds::Echo;
use crate::model::{Body, Extra, Record};

/// The header every echo file starts with.
pub const SCHEMA_HEADER: &str = "<!-- echo-schema: v1 -->";

/// Where an extra sits when it came before the entry's heading (text above the first entry).
pub const BEFORE_HEADING: &str = "^";

/// The known fields in the order they are written; an extra's `after` is one of them, or
/// empty (right after the heading), or [`BEFORE_HEADING`].
pub const SLOTS: [&str; 8] = [
    "layer",
    "source",
    "confidence",
    "evidence",
    "verified",
    "supersedes",
    "compresses",
    "text",
];

/// The files of one role's directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EchoFile {
    /// `MEMORY.md`: the active entries.
    Memory,
    /// `knowledge.md`: the knowledge blocks `echo compress` made.
    Knowledge,
    /// `archive/MEMORY.md`: archived entries (never loaded).
    Archive,
}

impl EchoFile {
    pub const ALL: [EchoFile; 3] = [EchoFile::Memory, EchoFile::Knowledge, EchoFile::Archive];

    /// The path inside the role's directory.
    pub fn rel_path(self) -> &'static str {
        match self {
            EchoFile::Memory => "MEMORY.md",
            EchoFile::Knowledge => "knowledge.md",
            EchoFile::Archive => "archive/MEMORY.md",
        }
    }

    /// The file an echo belongs in.
    pub fn of(body: &Body) -> Option<EchoFile> {
        match body {
            Body::Echo(Echo { archived: true, .. }) => Some(EchoFile::Archive),
            Body::Echo(Echo { members, .. }) if !members.is_empty() => Some(EchoFile::Knowledge),
            Body::Echo(Echo { .. }) => Some(EchoFile::Memory),
            _ => None,
        }
    }

    fn heading(self) -> &'static str {
        match self {
            EchoFile::Memory => "Memory",
            EchoFile::Knowledge => "Knowledge",
            EchoFile::Archive => "Archive",
        }
    }
}

/// `reviewer` → `Reviewer`.
fn title_case(role: &str) -> String {
    let mut c = role.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// The file's title line: `# Reviewer Memory`.
pub fn title_line(role: &str, file: EchoFile) -> String {
    format!("# {} {}", title_case(role), file.heading())
}

/// Renders `file` of `role` from the echoes given (the fold's, any role; only this role's
/// entries that belong in this file are written), `""` when it has none (the caller removes
/// the file). Deterministic.
pub fn render(role: &str, file: EchoFile, echoes: &[Record], withhold: Withhold<'_>) -> String {
    let mine: Vec<&Record> = echoes
        .iter()
        .filter(|r| Echo::of(&r.body).is_some_and(|e| e.role == role))
        .filter(|r| EchoFile::of(&r.body) == Some(file))
        .collect();
    if mine.is_empty() {
        return String::new();
    }
    let mut out = format!("{SCHEMA_HEADER}\n{}\n", title_line(role, file));
    for r in mine {
        out.push('\n');
        if withhold(r) {
            let uid = crate::model::echo::uid(&r.body);
            out.push_str(&format!(
                "> withheld by git-rune: echo {uid} (run `git rune verify` to see why)\n"
            ));
            continue;
        }
        out.push_str(&render_entry(&r.body));
    }
    out
}

/// One entry in the seed's format, ending with a newline.
pub fn render_entry(body: &Body) -> String {
    let Some(e) = Echo::of(body) else {
        return String::new();
    };
    let mut out = String::new();
    let put_extras = |out: &mut String, after: &str| {
        for x in e.extra.iter().filter(|x| x.after == after) {
            if x.label.is_empty() {
                out.push_str(&x.text);
            } else {
                out.push_str(&format!("- **{}**: {}", x.label, x.text));
            }
            out.push('\n');
        }
    };
    if e.extra.iter().any(|x| x.after == BEFORE_HEADING) {
        put_extras(&mut out, BEFORE_HEADING);
        out.push('\n');
    }
    out.push_str(&format!("### [{}] {}\n", e.date, e.title));
    put_extras(&mut out, "");
    let field = |out: &mut String, name: &str, value: &str| {
        out.push_str(&format!("- **{name}**: {value}\n"));
        put_extras(out, name);
    };
    field(&mut out, "layer", &e.layer);
    if !e.source.is_empty() {
        field(&mut out, "source", &e.source);
    } else {
        put_extras(&mut out, "source");
    }
    field(&mut out, "confidence", &format_confidence(e.confidence));
    if !e.evidence.is_empty() {
        field(&mut out, "evidence", &e.evidence);
    } else {
        put_extras(&mut out, "evidence");
    }
    field(&mut out, "verified", &e.verified);
    let sup = if e.supersedes_title.is_empty() {
        "none"
    } else {
        &e.supersedes_title
    };
    field(&mut out, "supersedes", sup);
    if !e.members.is_empty() {
        field(&mut out, "compresses", &e.members.join(", "));
    } else {
        put_extras(&mut out, "compresses");
    }
    let mut lines = e.text.split('\n');
    out.push_str(&format!("- {}\n", lines.next().unwrap_or("")));
    for l in lines {
        if l.is_empty() {
            out.push('\n');
        } else {
            out.push_str(&format!("  {l}\n"));
        }
    }
    put_extras(&mut out, "text");
    out
}

/// A labelled line: `- **label**: value`, `**label:** value`, `- label: value` (for the known
/// labels only when unbolded). Returns the label as written and the value.
fn labelled(line: &str) -> Option<(String, String)> {
    let l = line.trim_start();
    let l = l
        .strip_prefix("- ")
        .or_else(|| l.strip_prefix("* "))
        .unwrap_or(l);
    if let Some(rest) = l.strip_prefix("**") {
        let end = rest.find("**")?;
        let mut label = rest[..end].trim().to_owned();
        let mut after = &rest[end + 2..];
        if label.ends_with(':') {
            label.pop();
        } else {
            after = after.strip_prefix(':')?;
        }
        if label.is_empty() || label.contains('*') {
            return None;
        }
        return Some((label.trim().to_owned(), after.trim().to_owned()));
    }
    let (label, value) = l.split_once(':')?;
    let known = SLOTS.contains(&label.trim().to_lowercase().as_str());
    known.then(|| (label.trim().to_owned(), value.trim().to_owned()))
}

/// A heading line of an entry: `### [2026-02-11] Pattern: …` (`##` to `####`; the date may
/// be written without brackets). Returns the date (empty when none) and the title.
fn heading(line: &str) -> Option<(String, String)> {
    let hashes = line.bytes().take_while(|&b| b == b'#').count();
    if !(2..=4).contains(&hashes) {
        return None;
    }
    let rest = line[hashes..].strip_prefix(' ')?.trim();
    if let Some(r) = rest.strip_prefix('[') {
        let (date, title) = r.split_once(']')?;
        return Some((date.trim().to_owned(), title.trim().to_owned()));
    }
    if rest.len() >= 10 && echo::valid_date(&rest[..10]) {
        return Some((rest[..10].to_owned(), rest[10..].trim().to_owned()));
    }
    Some((String::new(), rest.to_owned()))
}

/// Splits the seed's one-line form (`### [d] T - **layer**: x - **source**: y - learning`) into
/// one line per field; other lines are returned as they are.
fn unfold(line: &str) -> Vec<String> {
    if heading(line).is_none() || !line.contains(" - **") {
        return vec![line.to_owned()];
    }
    let mut parts: Vec<String> = Vec::new();
    let mut rest = line;
    // Fields first: each ` - **label**: value` up to the next ` - `.
    while let Some(i) = rest.find(" - ") {
        parts.push(rest[..i].to_owned());
        rest = &rest[i + 1..];
        if !rest.starts_with("- **") {
            break;
        }
    }
    parts.push(rest.to_owned());
    // A value that held " - " (the learning) was split: join the pieces after the last field.
    let mut out: Vec<String> = Vec::new();
    for p in parts {
        let fieldish = p.starts_with("- **") || out.is_empty();
        if !fieldish && out.last().is_some_and(|l| !l.starts_with("- **")) && out.len() > 1 {
            let last = out.last_mut().expect("checked");
            last.push(' ');
            last.push_str(&p);
        } else {
            out.push(p);
        }
    }
    out
}

/// A confidence as written: a number (`0.85`), or `high` / `medium` / `low`, either
/// followed by a note (`HIGH (verified across 4 sessions)`).
fn confidence(value: &str) -> Option<f64> {
    let v = value.trim();
    let head = match v.find(['(', ' ', '—', '-']) {
        Some(i) if i > 0 => v[..i].trim(),
        _ => v,
    };
    match head.to_lowercase().as_str() {
        "high" => Some(0.9),
        "medium" => Some(0.6),
        "low" => Some(0.3),
        h => h.parse::<f64>().ok().filter(|c| (0.0..=1.0).contains(c)),
    }
}

/// The label of the extra that keeps a confidence as it was written, when it was not the
/// number the view writes (`HIGH (3 sessions)`).
pub const CONFIDENCE_AS_WRITTEN: &str = "confidence as written";

/// The plugin's tiers (its layers), as its headings write them.
const TIERS: [&str; 5] = ["Etched", "Notes", "Inscribed", "Observations", "Traced"];

/// Where an entry of a role file starts, for readers that split a file into entries before
/// reading each (`import echoes`): `Some(true)` for the plugin's heading (which needs a blank
/// line or nothing before it), `Some(false)` for the seed's; inside a plugin entry only a
/// dated heading of the seed's form (or the plugin's) starts another.
pub fn entry_start(line: &str, after_blank: bool, in_plugin_entry: bool) -> Option<bool> {
    if after_blank && plugin_heading(line).is_some() {
        return Some(true);
    }
    let (date, _) = heading(line)?;
    (!in_plugin_entry || !date.is_empty()).then_some(false)
}

/// A heading of the Rune Echoes plugin: `## Inscribed — Title (2026-01-15)`. Returns the
/// layer, the title and the date.
fn plugin_heading(line: &str) -> Option<(String, String, String)> {
    let rest = line.strip_prefix("##")?;
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let rest = rest.trim_start();
    let (tier, rest) = TIERS
        .iter()
        .find_map(|t| Some((*t, rest.strip_prefix(t)?)))?;
    let rest = rest.trim_start();
    let dashes = rest.len() - rest.trim_start_matches(['—', '–', '-']).len();
    if dashes == 0 {
        return None;
    }
    let rest = rest[dashes..].trim_start();
    // The title runs to the last `(YYYY-MM-DD)`.
    let open = rest.rfind('(')?;
    let date = rest.get(open + 1..open + 11)?;
    if !echo::valid_date(date) || rest.get(open + 11..open + 12) != Some(")") {
        return None;
    }
    let title = rest[..open].trim();
    (!title.is_empty()).then(|| (tier.to_lowercase(), title.to_owned(), date.to_owned()))
}

/// An entry being read.
#[derive(Default)]
struct Building {
    line: usize,
    date: String,
    title: String,
    layer: Option<String>,
    source: String,
    confidence: Option<f64>,
    evidence: String,
    verified: String,
    supersedes: String,
    members: Vec<String>,
    text: Option<String>,
    /// The last known field read (extras go after it).
    after: String,
    extra: Vec<Extra>,
    /// An entry in the plugin's format: its lines after the labelled ones, as written.
    plugin: Option<Vec<String>>,
    /// Blank lines met inside the learning, kept if it goes on.
    blanks: usize,
}

/// Parses a role's file (or a findings file) into its entries, in file order. New entries
/// get the uid of their role, title and evidence; `archived` is set for the archive file.
/// Defaults for what an agent's note may leave out: layer `inscribed`, confidence 0.5,
/// verified the heading's date.
pub fn parse(role: &str, file: EchoFile, text: &str) -> Result<Vec<Parsed>, ParseError> {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut out = Vec::new();
    let mut cur: Option<Building> = None;
    let mut pending: Vec<Extra> = Vec::new();
    let lines: Vec<String> = text.lines().flat_map(unfold).collect();
    let mut just_started = false;
    for (i, line) in lines.iter().enumerate() {
        let n = i + 1;
        let trimmed = line.trim();
        if let Some(v) = trimmed
            .strip_prefix("<!-- echo-schema:")
            .and_then(|r| r.strip_suffix("-->"))
        {
            if v.trim() != "v1" {
                return Err(ParseError {
                    line: n,
                    message: format!(
                        "echo schema {} is not one this git-rune reads (v1)",
                        v.trim()
                    ),
                });
            }
            continue;
        }
        if cur.is_none() && line.starts_with("# ") {
            continue;
        }
        if let Some(id) = trimmed.strip_prefix("> withheld by git-rune: echo ") {
            out.extend(cur.take().map(|b| finish(role, file, b)).transpose()?);
            let uid = id.split_whitespace().next().unwrap_or_default().to_owned();
            out.push(Parsed::Withheld(uid));
            continue;
        }
        // The plugin's heading counts only after a blank line (its indexer's rule), or
        // where an entry may start.
        let after_blank = i == 0 || lines[i - 1].trim().is_empty() || just_started;
        just_started = false;
        let plugin = plugin_heading(line)
            .filter(|_| after_blank)
            .map(|(layer, title, date)| (date, title, Some(layer)));
        // Inside a plugin entry everything is the learning, up to the next entry heading (a
        // dated one of the seed's format, or the plugin's), save its labelled lines first.
        if let Some(b) = cur
            .as_mut()
            .filter(|b| b.plugin.is_some() && plugin.is_none())
        {
            let dated_heading = heading(line).is_some_and(|(d, _)| !d.is_empty());
            if !dated_heading && !trimmed.starts_with("> withheld by git-rune: echo ") {
                plugin_line(b, line, n)?;
                continue;
            }
        }
        let start = plugin.or_else(|| heading(line).map(|(date, title)| (date, title, None)));
        if let Some((date, title, layer)) = start {
            out.extend(cur.take().map(|b| finish(role, file, b)).transpose()?);
            just_started = layer.is_some();
            cur = Some(Building {
                line: n,
                date,
                title,
                plugin: layer.is_some().then(Vec::new),
                layer,
                extra: std::mem::take(&mut pending),
                ..Building::default()
            });
            continue;
        }
        let Some(b) = cur.as_mut() else {
            // Above the first entry: kept with it.
            if !trimmed.is_empty() {
                pending.push(Extra {
                    after: BEFORE_HEADING.into(),
                    label: String::new(),
                    text: line.trim_end().to_owned(),
                });
            }
            continue;
        };
        if trimmed.is_empty() {
            // Kept if the learning goes on after it.
            if b.after == "text" {
                b.blanks += 1;
            }
            continue;
        }
        // A continuation of the learning: written indented by two spaces (the rest of its
        // indentation is its own).
        if b.after == "text" && line.starts_with("  ") {
            if let Some(t) = b.text.as_mut() {
                t.push_str(&"\n".repeat(b.blanks + 1));
                t.push_str(line[2..].trim_end());
                b.blanks = 0;
                continue;
            }
        }
        b.blanks = 0;
        if let Some((label, value)) = labelled(line) {
            let key = label.to_lowercase();
            match key.as_str() {
                "layer" if b.layer.is_none() => b.layer = Some(value.to_lowercase()),
                "source" if b.source.is_empty() => b.source = value,
                "confidence" if b.confidence.is_none() => read_confidence(b, &value, n)?,
                "evidence" if b.evidence.is_empty() => b.evidence = value,
                "verified" if b.verified.is_empty() => b.verified = value,
                "supersedes" if b.supersedes.is_empty() => {
                    if !value.eq_ignore_ascii_case("none") {
                        b.supersedes = value;
                    }
                }
                "compresses" if b.members.is_empty() => {
                    b.members = value
                        .split([',', ' '])
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(str::to_owned)
                        .collect()
                }
                _ => {
                    b.extra.push(Extra {
                        after: b.after.clone(),
                        label,
                        text: value,
                    });
                    continue;
                }
            }
            b.after = key;
            continue;
        }
        let bullet = trimmed
            .strip_prefix("- ")
            .or_else(|| trimmed.strip_prefix("* "));
        match bullet {
            Some(t) if b.text.is_none() => {
                b.text = Some(t.trim().to_owned());
                b.after = "text".into();
            }
            _ => b.extra.push(Extra {
                after: b.after.clone(),
                label: String::new(),
                text: line.trim_end().to_owned(),
            }),
        }
    }
    out.extend(cur.take().map(|b| finish(role, file, b)).transpose()?);
    // Text but no entry (the Rune Echoes plugin's `*No echoes yet.*` placeholder, a note):
    // no entries, and nothing refused; the text stays in the file until entries come, when
    // it is kept with the first one.
    Ok(out)
}

/// One line of an entry in the plugin's format: a labelled line (`**Source**: …`) while no
/// learning line came yet, else a line of the learning, as written.
fn plugin_line(b: &mut Building, line: &str, n: usize) -> Result<(), ParseError> {
    let started = b.plugin.as_ref().is_some_and(|l| !l.is_empty());
    if !started {
        if line.trim().is_empty() {
            return Ok(());
        }
        if line.trim_start().starts_with("**") {
            if let Some((label, value)) = labelled(line) {
                let value = value.trim().trim_matches('`').trim().to_owned();
                match label.to_lowercase().as_str() {
                    "source" if b.source.is_empty() => b.source = value,
                    "confidence" if b.confidence.is_none() => read_confidence(b, &value, n)?,
                    "evidence" if b.evidence.is_empty() => b.evidence = value,
                    "verified" if b.verified.is_empty() => b.verified = value,
                    "layer" => b.layer = Some(value.to_lowercase()),
                    _ => b.extra.push(Extra {
                        after: "source".into(),
                        label,
                        text: value,
                    }),
                }
                return Ok(());
            }
        }
    }
    if let Some(l) = b.plugin.as_mut() {
        l.push(line.to_owned());
    }
    Ok(())
}

/// Reads the confidence `value` of line `n` into `b` (and, when it is not written as the view
/// writes it, as written).
fn read_confidence(b: &mut Building, value: &str, n: usize) -> Result<(), ParseError> {
    let c = confidence(value).ok_or_else(|| ParseError {
        line: n,
        message: format!(
            "confidence {value:?} is not a number from 0.0 to 1.0 \
             (or high, medium, low)"
        ),
    })?;
    b.confidence = Some(c);
    if value != format_confidence(c) {
        b.extra.push(Extra {
            after: "confidence".into(),
            label: CONFIDENCE_AS_WRITTEN.into(),
            text: value.to_owned(),
        });
    }
    Ok(())
}

fn finish(role: &str, file: EchoFile, mut b: Building) -> Result<Parsed, ParseError> {
    // A reader's SUSPICIOUS marks are not content (the uid is of the unmarked title).
    b.title = crate::text::unmark(&b.title).to_owned();
    let err = |message: String| ParseError {
        line: b.line,
        message,
    };
    if let Some(lines) = b.plugin.take() {
        // The plugin's learning: its lines as written, blank ones at either end left out; an
        // entry with none (the plugin's indexer skips it) is its title.
        let start = lines.iter().position(|l| !l.trim().is_empty());
        let end = lines.iter().rposition(|l| !l.trim().is_empty());
        b.text = Some(match (start, end) {
            (Some(s), Some(e)) => lines[s..=e]
                .iter()
                .map(|l| l.trim_end())
                .collect::<Vec<_>>()
                .join("\n"),
            _ => b.title.clone(),
        });
    }
    let date = if b.date.is_empty() {
        b.verified.clone()
    } else {
        b.date.clone()
    };
    if !echo::valid_date(&date) {
        return Err(err(format!(
            "the entry {:?} has no date like [2026-02-11] in its heading",
            b.title
        )));
    }
    let verified = if b.verified.is_empty() {
        date.clone()
    } else {
        b.verified.clone()
    };
    let Some(text) = b.text.filter(|t| !t.trim().is_empty()) else {
        return Err(err(format!(
            "the entry {:?} has no learning: add a line `- <what was learned>` after its fields",
            b.title
        )));
    };
    let mut body = Body::Echo(Echo {
        uid: echo::uid_for(role, &b.title, &b.evidence),
        role: role.to_owned(),
        layer: b.layer.unwrap_or_else(|| echo::INSCRIBED.to_owned()),
        date: date.clone(),
        title: b.title,
        source: b.source,
        confidence: b.confidence.unwrap_or(0.5),
        evidence: b.evidence,
        verified,
        supersedes_title: b.supersedes,
        text,
        archived: file == EchoFile::Archive,
        members: b.members,
        extra: b.extra,
    });
    super::unmark_body(&mut body);
    Ok(Parsed::entry(body, Some(format!("{date}T00:00:00Z"))))
}

#[cfg(test)]
#[path = "echoes_tests.rs"]
mod tests;
