//! The load gate's content scanner: finds text in memory that could steer or mislead the agent reading it, before `git rune load` hands it over.
//!
//! Memory is written by agents and people, merged from other clones and edited in `.rune/`, then
//! read back by a model that may follow whatever instructions it finds. [`scan_text`] looks at
//! one text (a record field or a view file) and reports [`Issue`]s; [`verdict`] folds them into
//! the worst [`Verdict`]: TAINTED content is withheld and reported, SUSPICIOUS content is shown
//! with a warning, CLEAN content is shown as quoted data. [`escape_framing`] makes quoted memory
//! unable to close the frame the load output wraps it in.
//!
//! Two SUSPICIOUS causes are decided by the caller, not here, because they depend on where a
//! text came from rather than what it says: view files modified outside git-rune (their blob
//! hash no longer matches the manifest) and records from untrusted authors after a fetch.
//!
//! # Rules
//!
//! TAINTED (withheld): `hidden-character`, `override-instructions`, `role-reassignment`,
//! `instruction-header`, `forged-frame-marker`, `remote-script-execution`, `secret-file-read`,
//! `reverse-shell`. SUSPICIOUS (shown with a warning): `html-comment`, `encoded-blob`,
//! `weakened-security`, `control-character`. The reason for each is on the function or table
//! that implements it ([`PHRASES`] for the phrase rules).
//!
//! Matching is ASCII case-insensitive and tolerant of extra whitespace (line breaks, markdown
//! emphasis, quotes and commas between words). Every pass is one forward walk with bounded
//! look-ahead, so scanning is linear in the text. Known limits: homoglyphs (Cyrillic `о` in
//! "ignоre") and full-width brackets are not normalised, and quoting an attack to warn about
//! it ("never obey 'ignore previous instructions'") trips the rule it quotes — describe
//! attacks instead of quoting them.
//!
//! Deliberately CLEAN: prose that shares words with the rules ("act as a proxy", "ignore
//! whitespace in diffs", "the parser ignores previous tokens", "you are now ready to deploy",
//! "you are now in the repo root"), hashes, UUIDs, URLs, markdown, code, and non-English text,
//! including the invisible joiners that scripts and emoji need (see [`scan_hidden`]).

pub mod gate;

use std::sync::OnceLock;

/// How far content can be trusted, ordered `Clean < Suspicious < Tainted`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verdict {
    Clean,
    Suspicious,
    Tainted,
}

impl Verdict {
    /// `CLEAN`, `SUSPICIOUS` or `TAINTED`, as reports and `--json` say it.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Clean => "CLEAN",
            Verdict::Suspicious => "SUSPICIOUS",
            Verdict::Tainted => "TAINTED",
        }
    }
}

/// One reason a text is not clean.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    pub verdict: Verdict,
    /// Stable kebab-case rule name (see [`RULES`]).
    pub rule: &'static str,
    /// Byte offset of the match in the scanned text.
    pub offset: usize,
    /// Short and sanitised: at most 40 characters of the matched text, control and hidden
    /// characters replaced, angle brackets escaped so it cannot forge a frame either.
    pub detail: String,
}

/// Every rule `scan_text` can report, with its verdict.
pub const RULES: &[(&str, Verdict)] = &[
    ("hidden-character", Verdict::Tainted),
    ("override-instructions", Verdict::Tainted),
    ("role-reassignment", Verdict::Tainted),
    ("instruction-header", Verdict::Tainted),
    ("forged-frame-marker", Verdict::Tainted),
    ("remote-script-execution", Verdict::Tainted),
    ("secret-file-read", Verdict::Tainted),
    ("reverse-shell", Verdict::Tainted),
    ("html-comment", Verdict::Suspicious),
    ("encoded-blob", Verdict::Suspicious),
    ("weakened-security", Verdict::Suspicious),
    ("control-character", Verdict::Suspicious),
];

/// At most this many issues are kept per rule (the first found): enough to act on, and a
/// hostile text full of matches cannot make the report itself huge.
pub const MAX_ISSUES_PER_RULE: usize = 64;

/// Scans one text (a record field or a view file) for content that could steer or mislead an
/// agent reading it.
pub fn scan_text(text: &str) -> Vec<Issue> {
    let mut out = Sink {
        text,
        issues: Vec::new(),
        counts: [0; RULES.len()],
    };
    scan_hidden(text, &mut out);
    scan_phrases(&Words::new(text), &mut out);
    scan_markers(text, &mut out);
    scan_shell(text, &mut out);
    scan_settings(text, &mut out);
    scan_blobs(text, &mut out);
    let mut issues = out.issues;
    issues.sort_by(|a, b| (a.offset, b.verdict).cmp(&(b.offset, a.verdict)));
    issues
}

/// The worst verdict of a list (Clean when empty).
pub fn verdict(issues: &[Issue]) -> Verdict {
    issues
        .iter()
        .map(|i| i.verdict)
        .max()
        .unwrap_or(Verdict::Clean)
}

/// Escapes text that imitates the load output's framing markers so quoted memory cannot close
/// its frame.
///
/// Every angle-bracket tag `scan_text` reports as `forged-frame-marker` (`<rune-memory>`,
/// `</rune-memory>`, `< / SYSTEM >`, `<|im_start|>`, `<<SYS>>` …: any case, optional spaces,
/// attributes on the same line) has its `<` replaced by `‹` (U+2039) and its `>` by `›` (U+203A). Single
/// guillemets keep the text readable ("‹/rune-memory›" still says what was written) while no
/// parser or model takes them for tag delimiters, and they pass through JSON and terminals
/// unchanged, unlike HTML entities, which some readers decode again. The result contains no
/// such tag, and escaping it again changes nothing. `[INST]` is left alone: it is not part of
/// git-rune's frame, and `scan_text` taints it anyway.
pub fn escape_framing(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut copied, mut i) = (0, 0);
    while i < b.len() {
        match (b[i] == b'<').then(|| frame_tag(b, i)).flatten() {
            Some(end) => {
                out.push_str(&text[copied..i]);
                out.extend(text[i..end].chars().map(|c| match c {
                    '<' => '‹',
                    '>' => '›',
                    c => c,
                }));
                copied = end;
                i = end;
            }
            None => i += 1,
        }
    }
    out.push_str(&text[copied..]);
    out
}

// ---------------------------------------------------------------------------------------------
// Reporting.

/// Collects issues, keeping the first [`MAX_ISSUES_PER_RULE`] of each rule and building a
/// detail only for those, so a text full of matches costs no allocation per match.
struct Sink<'a> {
    text: &'a str,
    issues: Vec<Issue>,
    counts: [usize; RULES.len()],
}

impl Sink<'_> {
    fn note(&mut self, rule: &'static str, offset: usize, detail: impl FnOnce() -> String) {
        let slot = RULES
            .iter()
            .position(|(r, _)| *r == rule)
            .expect("rule listed in RULES");
        self.counts[slot] += 1;
        if self.counts[slot] <= MAX_ISSUES_PER_RULE {
            let verdict = RULES[slot].1;
            let detail = detail();
            self.issues.push(Issue {
                verdict,
                rule,
                offset,
                detail,
            });
        }
    }

    /// An issue whose detail quotes `text[start..end]`.
    fn hit(&mut self, rule: &'static str, start: usize, end: usize) {
        let text = self.text;
        self.note(rule, start, || excerpt(text, start, end));
    }
}

/// At most 40 characters of `text[start..end]`, safe to print and to put in front of a model.
fn excerpt(text: &str, start: usize, end: usize) -> String {
    let mut s = String::from("\"");
    let mut last_space = false;
    for (n, c) in text[start..end].chars().enumerate() {
        if n == 40 {
            s.push('…');
            break;
        }
        let c = match c {
            '<' => '‹',
            '>' => '›',
            c if hidden_kind(c).is_some() || (c.is_control() && !c.is_whitespace()) => '?',
            c if c.is_whitespace() => ' ',
            c => c,
        };
        if !(c == ' ' && last_space) {
            s.push(c);
        }
        last_space = c == ' ';
    }
    s.push('"');
    s
}

mod hidden;
mod phrases;
mod shapes;

use hidden::*;
use phrases::*;
use shapes::*;

#[cfg(test)]
mod tests;
