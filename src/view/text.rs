//! Text rules every view format shares, so that all files agree on what counts as structure
//! (headings, `**Field:**` lines, list items) and on the normal form of a value.
//!
//! The round trip rests on one idea: `normalize` rewrites content so that it can never be read
//! as structure, render writes it literally, and parse reads it literally and normalises what it
//! read. Structure is only ever recognised at column 0, so the escape for a content line that
//! looks like structure is a leading space (or a backslash on a value's first line, where a
//! space would be trimmed away).

use super::ParseError;

pub(crate) fn err(line: usize, message: impl Into<String>) -> ParseError {
    ParseError {
        line,
        message: message.into(),
    }
}

/// A line of a view file with its 1-based number.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Src<'a> {
    pub no: usize,
    pub text: &'a str,
}

/// The lines of a file, numbered: any line ending (`\n`, `\r\n`, and a lone `\r` as old
/// Mac editors write) ends a line, and a byte-order mark some editors add is not content.
pub(crate) fn numbered(text: &str) -> impl Iterator<Item = Src<'_>> {
    let mut rest = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut no = 0;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        no += 1;
        let end = rest.find(['\n', '\r']).unwrap_or(rest.len());
        let line = &rest[..end];
        let after = &rest[end..];
        rest = after
            .strip_prefix("\r\n")
            .or_else(|| after.strip_prefix('\n'))
            .or_else(|| after.strip_prefix('\r'))
            .unwrap_or(after);
        Some(Src { no, text: line })
    })
}

/// The marker of a code fence a line opens or closes (```` ``` ```` or `~~~` at column 0:
/// an indented one belongs to a list item).
pub(crate) fn fence(line: &str) -> Option<&'static str> {
    ["```", "~~~"].into_iter().find(|m| line.starts_with(m))
}

/// An entry's time in any form agents write at the start of a heading (or in a learning's
/// `ts`): `[2026-04-05 10:15]`, `[2026-04-05]`, `2026-04-05T10:15:00Z`, `2026-04-05 10:15:30`,
/// with an offset or fractional seconds. Returns it as RFC 3339 UTC to the second and the text
/// after it; times without a zone are UTC, dates without a time are midnight.
pub(crate) fn leading_date(text: &str) -> Option<(String, &str)> {
    let t = text.trim_start();
    let (inner, rest) = match t.strip_prefix('[') {
        Some(r) => {
            let close = r.find(']')?;
            (r[..close].trim(), &r[close + 1..])
        }
        None => {
            // A bare date runs to the first character no date form uses.
            let end = t
                .find(|c: char| !(c.is_ascii_digit() || "-:.+TZ ".contains(c)))
                .unwrap_or(t.len());
            let candidate = t[..end].trim_end();
            // `2026-04-05 Decision` must not swallow the space before the word.
            (candidate, &t[candidate.len()..])
        }
    };
    Some((parse_time(inner)?, rest.trim_start()))
}

/// What a heading starts with, as far as dates go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DatePrefix<'a> {
    /// A time [`leading_date`] reads, and the text after it.
    Date(String, &'a str),
    /// Something written as a date that is none (`2026-13-45`, `[2026-02-30 10:00]`).
    Bad(&'a str),
    /// No date.
    None,
}

/// Whether `s` starts like a written date (`2026-1…`): four digits and a dash.
fn looks_like_date(s: &str) -> bool {
    let b = s.trim_start().as_bytes();
    b.len() >= 6 && b[..4].iter().all(u8::is_ascii_digit) && b[4] == b'-' && b[5].is_ascii_digit()
}

/// [`leading_date`], telling a date that does not read apart from no date at all.
pub(crate) fn date_prefix(text: &str) -> DatePrefix<'_> {
    if let Some((at, rest)) = leading_date(text) {
        return DatePrefix::Date(at, rest);
    }
    let t = text.trim_start();
    // `2026-11-25 10:30 - Decision`: the date is the longest run of words that reads as one.
    if !t.starts_with('[') {
        let ends: Vec<usize> = t
            .char_indices()
            .filter(|(_, c)| c.is_whitespace())
            .map(|(i, _)| i)
            .take(3)
            .collect();
        for &end in ends.iter().rev() {
            if let Some(at) = parse_time(&t[..end]) {
                return DatePrefix::Date(at, t[end..].trim_start());
            }
        }
    }
    let written = match t.strip_prefix('[') {
        Some(r) => r.find(']').map(|close| r[..close].trim()),
        None => t.split_whitespace().next(),
    };
    match written {
        Some(w) if looks_like_date(w) => DatePrefix::Bad(w),
        _ => DatePrefix::None,
    }
}

/// A time as RFC 3339 UTC to the second, from the forms [`leading_date`] accepts.
pub(crate) fn parse_time(s: &str) -> Option<String> {
    use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
    let s = s.trim();
    let fmt = |t: NaiveDateTime| t.format("%Y-%m-%dT%H:%M:%SZ").to_string();
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(fmt(t.with_timezone(&Utc).naive_utc()));
    }
    let spaced = s.replacen('T', " ", 1);
    let bare = spaced.trim_end_matches('Z');
    for f in [
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S",
        "%Y-%m-%d %H:%M",
    ] {
        if let Ok(t) = NaiveDateTime::parse_from_str(bare, f) {
            return Some(fmt(t));
        }
    }
    NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(fmt)
}

fn unify_newlines(s: &str) -> String {
    s.replace("\r\n", "\n").replace('\r', "\n")
}

/// Normal form of a value shown on one line (titles, names, keys, paths, summaries).
pub(crate) fn one_line(s: &str) -> String {
    unify_newlines(s)
        .split('\n')
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A markdown thematic break (`---`, `***`, `___`): agents like to put them between entries,
/// and they carry no content.
pub(crate) fn is_rule(line: &str) -> bool {
    let t: Vec<char> = line.chars().filter(|c| !c.is_whitespace()).collect();
    t.len() >= 3 && ['-', '*', '_'].iter().any(|m| t.iter().all(|c| c == m))
}

/// A line with nothing to read: blank, or a thematic break.
pub(crate) fn is_blank(line: &str) -> bool {
    line.trim().is_empty() || is_rule(line)
}

/// Normal form of a multi-line value. `inline_first` says the first line is written after a
/// `**Label:**` (so it can never be taken for structure); otherwise it starts a line too.
///
/// Outside code fences a blank line ends a value (what follows it is read as prose of its
/// own), so blank lines and thematic breaks are dropped there, and a line that looks like
/// structure gets a leading space (a backslash on a first line of its own). Inside a fence
/// every line is kept as it is, and a fence left open is closed.
pub(crate) fn block(s: &str, inline_first: bool) -> String {
    block_with(s, inline_first, false)
}

/// [`block`] of text that starts a line of its own and keeps the indentation of its first
/// line (prose an agent indented).
pub(crate) fn block_indented(s: &str) -> String {
    block_with(s, false, true)
}

fn block_with(s: &str, inline_first: bool, keep_indent: bool) -> String {
    let unified = unify_newlines(s);
    let mut out = String::with_capacity(unified.len());
    let mut open: Option<&str> = None;
    let mut first = true;
    for raw in unified.split('\n') {
        let line = raw.trim_end();
        if let Some(marker) = open {
            out.push('\n');
            out.push_str(line);
            if line.starts_with(marker) {
                open = None;
            }
            continue;
        }
        if is_blank(line) {
            continue;
        }
        // A value's first line written after its label loses the spaces before it; one that
        // starts a line of its own (prose, a section's text) keeps its indentation.
        let line = if first && !keep_indent {
            line.trim_start()
        } else {
            line
        };
        if !first {
            out.push('\n');
            if is_structural(line) {
                out.push(' ');
            }
        } else if !inline_first && is_structural(line) {
            out.push('\\');
        }
        out.push_str(line);
        first = false;
        open = fence(line);
    }
    // A fence left open would swallow what the view writes after the value.
    if let Some(marker) = open {
        out.push('\n');
        out.push_str(marker);
    }
    out
}

/// Normal form of a list item's text: blank lines dropped (a blank line cannot be shown inside
/// an item) and leading list markers and checkboxes removed (the view adds its own, and an
/// agent passing `"- [ ] x"` on the command line means the item `x`).
pub(crate) fn item(s: &str) -> String {
    let unified = unify_newlines(s);
    let joined = unified
        .split('\n')
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    let mut rest = joined.trim();
    while let Some(after) = checkbox(rest).or_else(|| strip_marker(rest)) {
        rest = after.trim_start();
    }
    if is_rule(rest) {
        return String::new();
    }
    // `- **Label:** …` would read back as a field and `- ---` as a thematic break, not an
    // item.
    let first = rest.lines().next().unwrap_or("");
    if field_line(rest).is_some() || is_rule(&format!("- {first}")) {
        return format!("\\{rest}");
    }
    rest.to_owned()
}

/// Normal form of a list of items: each normalised, empty ones dropped.
pub(crate) fn items_normal(items: &[String]) -> Vec<String> {
    items
        .iter()
        .map(|s| item(s))
        .filter(|s| !s.is_empty())
        .collect()
}

/// Normal form of a list of paths: single-line, no backticks (the view quotes with them),
/// empty entries dropped; with `split_commas`, entries are also split at commas because the
/// view shows them as a plain comma-separated list.
pub(crate) fn paths(list: &[String], split_commas: bool) -> Vec<String> {
    let mut out = Vec::new();
    for p in list {
        let clean = one_line(&p.replace('`', ""));
        let parts: Vec<&str> = if split_commas {
            clean.split(',').collect()
        } else {
            vec![clean.as_str()]
        };
        out.extend(
            parts
                .into_iter()
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned),
        );
    }
    out
}

/// Reads a list of paths as written by hand: backtick-quoted entries when there are any
/// (so commas inside a glob survive), else a comma-separated list.
pub(crate) fn read_paths(value: &str) -> Vec<String> {
    if value.contains('`') {
        value
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_owned)
            .collect()
    } else {
        value.split(',').map(str::to_owned).collect()
    }
}

/// `[ ]`, `[x]` or `[X]` followed by whitespace or the end: returns what follows.
pub(crate) fn checkbox(s: &str) -> Option<&str> {
    ["[ ]", "[x]", "[X]"].iter().find_map(|b| {
        let rest = s.strip_prefix(b)?;
        (rest.is_empty() || rest.starts_with(char::is_whitespace)).then_some(rest)
    })
}

/// True when an item was written checked (`- [x] …`).
pub(crate) fn is_checked(raw_item: &str) -> bool {
    let t = raw_item.trim_start();
    checkbox(t).is_some() && !t.starts_with("[ ]")
}

/// A column-0 ATX heading: its level and trimmed text.
pub(crate) fn heading(line: &str) -> Option<(usize, &str)> {
    let level = line.len() - line.trim_start_matches('#').len();
    if level == 0 {
        return None;
    }
    let rest = &line[level..];
    if rest.is_empty() || rest.starts_with([' ', '\t']) {
        Some((level, rest.trim()))
    } else {
        None
    }
}

/// A column-0 `**Label:** value` line (also `**Label**: value` and the seed's
/// `**Label** (note):`): the label without its colon, and the trimmed value.
pub(crate) fn field_line(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_prefix("**")?;
    let end = rest.find("**")?;
    let raw = &rest[..end];
    if raw.contains('*') {
        return None;
    }
    let (label, had_colon) = match raw.trim().strip_suffix(':') {
        Some(l) => (l.trim_end(), true),
        None => (raw.trim(), false),
    };
    if label.is_empty() {
        return None;
    }
    let mut value = rest[end + 2..].trim_start();
    if !had_colon {
        value = value.strip_prefix(':').unwrap_or(value);
    }
    Some((label, value.trim()))
}

/// A column-0 `- **Label:** value` line (a bulleted field, as models write them).
pub(crate) fn bullet_field_line(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_prefix(['-', '*', '+'])?;
    let rest = rest.strip_prefix([' ', '\t'])?.trim_start();
    field_line(rest)
}

/// The placeholder the view shows for a record the integrity gate withholds.
pub(crate) const WITHHELD: &str = "> withheld by git-rune: ";

/// The record id of a withheld-record placeholder line.
pub(crate) fn withheld_id(line: &str) -> Option<&str> {
    let rest = line.strip_prefix(WITHHELD)?;
    let id = rest.split_whitespace().nth(1)?;
    (id.len() >= 8 && id.bytes().all(|b| b.is_ascii_hexdigit())).then_some(id)
}

/// The placeholder line for a withheld record.
pub(crate) fn withheld_line(kind: &str, id: &str) -> String {
    format!("{WITHHELD}{kind} {id} is TAINTED; inspect it with `git rune verify`")
}

/// A line the parsers would take for structure rather than content: any heading, a
/// `**Label:**` or `- **Label:**` line, a withheld-record placeholder.
pub(crate) fn is_structural(line: &str) -> bool {
    heading(line).is_some()
        || field_line(line).is_some()
        || bullet_field_line(line).is_some()
        || line.starts_with(WITHHELD)
}

/// Compares labels and section names loosely: case, spaces and punctuation do not matter.
pub(crate) fn loose(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Drops a trailing parenthesised note, as in the seed's `## What Worked (with evidence)`.
pub(crate) fn without_note(s: &str) -> &str {
    let t = s.trim_end();
    match (t.ends_with(')'), t.rfind('(')) {
        (true, Some(open)) if open > 0 => t[..open].trim_end(),
        _ => t,
    }
}

/// `word` at the start of `s`, ignoring ASCII case: returns what follows.
pub(crate) fn strip_word<'a>(s: &'a str, word: &str) -> Option<&'a str> {
    let head = s.get(..word.len())?;
    head.eq_ignore_ascii_case(word).then(|| &s[word.len()..])
}

fn date_part(ts: &str, range: std::ops::Range<usize>, allowed: char, fallback: &str) -> String {
    match ts.get(range) {
        Some(p) if p.chars().all(|c| c.is_ascii_digit() || c == allowed) => p.to_owned(),
        _ => fallback.to_owned(),
    }
}

/// `YYYY-MM-DD` of an RFC 3339 timestamp (zeros when it is malformed, so output stays parseable).
pub(crate) fn day(ts: &str) -> String {
    date_part(ts, 0..10, '-', "0000-00-00")
}

/// `YYYY-MM-DD HH:MM` of an RFC 3339 timestamp.
pub(crate) fn minute(ts: &str) -> String {
    format!("{} {}", day(ts), date_part(ts, 11..16, ':', "00:00"))
}

/// Whether a line starts like a list item (`- `, `* `, `+ `, `1. `, `1) `).
pub(crate) fn starts_list_item(line: &str) -> bool {
    strip_marker(line).is_some()
}

/// A list marker (`- `, `* `, `+ `, `1. `, `1) `) and the text after it, if the line has one.
fn strip_marker(line: &str) -> Option<&str> {
    let spaced = |r: &'_ str| r.is_empty() || r.starts_with([' ', '\t']);
    if let Some(r) = line.strip_prefix(['-', '*', '+']) {
        if spaced(r) {
            return Some(r.trim_start());
        }
    }
    let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if (1..=9).contains(&digits) {
        let r = &line[digits..];
        if let Some(r) = r.strip_prefix(['.', ')']) {
            if spaced(r) {
                return Some(r.trim_start());
            }
        }
    }
    None
}

/// Splits list lines into raw item texts (marker gone, checkbox kept), each with the line it
/// starts on. A line indented by whitespace continues the item above; any other line starts an
/// item, with or without a marker, so prose under a list heading is kept, not lost.
pub(crate) fn read_items(lines: &[Src<'_>]) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    for src in lines {
        let line = src.text;
        if line.trim().is_empty() {
            continue;
        }
        let indented = line.starts_with(char::is_whitespace);
        match out.last_mut() {
            Some((_, text)) if indented => {
                let cont = line
                    .strip_prefix("  ")
                    .or_else(|| line.strip_prefix('\t'))
                    .or_else(|| line.strip_prefix(' '))
                    .unwrap_or(line);
                text.push('\n');
                text.push_str(cont);
            }
            _ => {
                let t = line.trim_start();
                out.push((src.no, strip_marker(t).unwrap_or(t).to_owned()));
            }
        }
    }
    out
}

/// Writes one list item: `marker text`, continuation lines indented by two spaces.
pub(crate) fn push_item(out: &mut String, marker: &str, text: &str) {
    out.push_str(marker);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push_str("\n  ");
        }
        out.push_str(line);
    }
    out.push('\n');
}

/// Writes `**Label:** value`. A multi-line value that opens a code fence or a list starts on the
/// next line, so the fence or the list is a real one in markdown.
pub(crate) fn push_field(out: &mut String, label: &str, value: &str) {
    out.push_str("**");
    out.push_str(label);
    out.push_str(":**");
    if !value.is_empty() {
        let first = value.lines().next().unwrap_or("");
        let own_lines = value.starts_with("```")
            || value.starts_with("~~~")
            || (starts_list_item(first) && !is_structural(first));
        out.push(if own_lines && value.contains('\n') {
            '\n'
        } else {
            ' '
        });
        out.push_str(value);
    }
    out.push('\n');
}

#[cfg(test)]
#[path = "text_tests.rs"]
mod tests;
