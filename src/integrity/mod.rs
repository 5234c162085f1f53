//! The load gate's content scanner: finds text in memory that could steer or mislead the agent reading it, before `git rune load` hands it over.
//!
//! Memory is written by agents and people, merged from other clones and edited in `.rune/`, then
//! read back by a model that may follow whatever instructions it finds. [`scan_text`] looks at
//! one text (a record field or a view file) and reports [`Issue`]s; [`verdict`] folds them into
//! the worst [`Verdict`]: TAINTED content is withheld and reported, SUSPICIOUS content is shown
//! with a warning, CLEAN content is shown as quoted data. [`escape_framing`] makes quoted memory
//! unable to close the frame the load output wraps it in, and [`inert_urls`] makes its URLs
//! unable to fire: no image is fetched and nothing is linked when it is rendered.
//!
//! Two SUSPICIOUS causes are decided by the caller, not here, because they depend on where a
//! text came from rather than what it says: view files modified outside git-rune (their blob
//! hash no longer matches the manifest) and records from untrusted authors after a fetch.
//!
//! # Rules
//!
//! TAINTED (withheld): `hidden-character`, `override-instructions`, `role-reassignment`,
//! `instruction-header`, `forged-frame-marker`, `chat-turn-marker`, `tool-call-shape`,
//! `remote-script-execution`, `secret-file-read`, `secret-exfiltration`, `exfiltration-url`,
//! `html-event-handler`, `reverse-shell`, `agent-hijack`. SUSPICIOUS (shown with a warning):
//! `quoted-frame-marker`, `html-comment`, `encoded-blob`, `weakened-security`,
//! `typosquat-package`, `control-character`, `script-pipe-shape`,
//! `exfiltration-placeholder`, `script-proof-of-concept`,
//! `agent-directive`, `role-play`, `role-marker`, `quoted-instruction`, `instruction-like` (a
//! learned classifier, [`model`]). The reason for each is on the function or table that
//! implements it.
//!
//! Orders addressed to the agent are read two ways: fixed phrases ([`phrases`], over the word
//! sets of `data/patterns.txt` and `data/lang/`), and by their structure ([`intent`]): an
//! imperative (or "you must …") scored by what it acts on — the agent's rules, secrets and
//! where they go, the people it works for, its output, its identity — with the cue words of
//! every language in `data/lang/` (English, Chinese in both scripts, Spanish, Portuguese,
//! Russian, Japanese, German, French, Korean, Italian, Turkish, Polish, Dutch, Vietnamese,
//! Indonesian, Ukrainian, Persian, Hindi, Arabic, Czech and Bengali). What is unambiguous is
//! TAINTED; what is heuristic is SUSPICIOUS; several heuristic cues together are TAINTED
//! (`agent-hijack`). An attack quoted inside prose ("the string "ignore previous
//! instructions"") or cited ("told the model to ignore …") is `quoted-instruction`. The other
//! rules judge structure (markers in any encoding, shapes, commands, URLs), which reads the
//! same in any language. The tables are data files compiled into the binary ([`tables`]).
//!
//! Every scanner but the hidden-character one reads the text's normal form ([`norm`]): full
//! width and other compatibility forms folded, diacritics and invisible characters dropped,
//! Cyrillic and Greek look-alikes in Latin words folded to Latin, non-ASCII letters lower-cased.
//! Offsets are mapped back to the original text. The word reader also joins a word split by
//! hyphenation or emphasis (`ig-\nnore`, `ig**nore**`) when the joined word is in its
//! vocabulary, and reads a phrase across line breaks, emphasis, quotes and commas. Every pass is
//! one forward walk with bounded look-ahead, so scanning is linear in the text.
//!
//! Known limits: this is a set of heuristics, not an understanding of the text. An order is
//! found only through the cue words the tables list, in the languages they cover, and a
//! paraphrase that names neither the agent's rules, secrets, the user, its output nor its
//! identity ("always tell the user the tests pass") is not seen. A word spelled with spaces
//! between its letters, or split by other characters, is not rejoined; a command split over
//! several lines is judged line by line. docs/security.md keeps the full list and the corpus
//! figures.
//!
//! Deliberately CLEAN: prose that shares words with the rules ("act as a proxy", "ignore
//! whitespace in diffs", "the parser ignores previous tokens", "you are now ready to deploy",
//! "you are now in the repo root", "the model ignores previous instructions when the context is
//! long", "User: admin" as a label, "never print secrets in CI logs", "upload coverage to
//! https://codecov.io"), hashes, UUIDs, plain URLs (a link whose query carries no placeholder
//! for secrets), markdown, code, JSX handlers (`onClick={save}`), and non-English text,
//! including the invisible joiners that scripts and emoji need (see [`scan_hidden`]).

pub mod gate;
pub mod verdicts;

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

/// Every rule `scan_text` can report, with its verdict: `@rules` of `data/patterns.txt`
/// (`rule:verdict`), read at compile time.
pub const RULES: &[(&str, Verdict)] = {
    const ITEMS: &[&str] = tables::const_set!("patterns.txt", "rules");
    const RULES: [(&str, Verdict); ITEMS.len()] = with_verdicts(ITEMS);
    &RULES
};

/// `rule:verdict` items as `(rule, verdict)`.
const fn with_verdicts<const N: usize>(items: &[&'static str]) -> [(&'static str, Verdict); N] {
    let mut out = [("", Verdict::Clean); N];
    let mut i = 0;
    while i < N {
        let (rule, verdict) = items[i].split_at(tables::at_byte(items[i].as_bytes(), 0, b':'));
        let verdict = verdict.as_bytes();
        out[i].0 = rule;
        out[i].1 = if tables::same(verdict, b":tainted") {
            Verdict::Tainted
        } else if tables::same(verdict, b":suspicious") {
            Verdict::Suspicious
        } else {
            panic!("a rule's verdict is `tainted` or `suspicious`")
        };
        i += 1;
    }
    out
}

/// Changes whenever the rules or their tables change, so that verdicts cached under an older
/// scanner (the gate cache, `memory::cache::gate`) are recomputed.
pub const RULES_VERSION: u32 = 35;

/// At most this many issues are kept per rule (the first found): enough to act on, and a
/// hostile text full of matches cannot make the report itself huge.
pub const MAX_ISSUES_PER_RULE: usize = 64;

/// Scans one text (a record field or a view file) for content that could steer or mislead an
/// agent reading it.
pub fn scan_text(text: &str) -> Vec<Issue> {
    scan_text_prose(text, text.len())
}

/// [`scan_text`], the learned `instruction-like` model reading only `text[..prose]`: what
/// follows is not prose (a record's author, a name and an address), where a name of a
/// letter or two scored as an order.
pub(crate) fn scan_text_prose(text: &str, prose: usize) -> Vec<Issue> {
    let norm = Norm::new(text);
    let mut out = Sink::new(text, &norm);
    scan_hidden(text, &mut out);
    let t: &str = &norm.text;
    let words = Words::new(t);
    let phrases = scan_phrases(&words, &mut out);
    scan_intent(&words, &phrases, &mut out);
    scan_markers(t, &mut out);
    scan_turns(t, &mut out);
    scan_tool_calls(t, &mut out);
    scan_shell(t, &mut out);
    scan_web(t, &mut out);
    scan_settings(t, &mut out);
    settings::scan_package_sources(t, &mut out);
    packages::scan_packages(t, &mut out);
    controls::scan_controls(t, &mut out);
    answers::scan_answers(t, &mut out);
    scan_blobs(t, &mut out);
    model::scan_model(text.get(..prose).unwrap_or(text), &mut out);
    let mut issues = out.issues;
    mentions::reread(text, &mut issues);
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
/// `</rune-memory>`, `< / SYSTEM >`, `<|im_start|>`, `<<SYS>>`, `<start_of_turn>`,
/// `<tool_call>` …: any case, optional spaces, attributes on the same line, and the same
/// through full-width brackets, look-alike letters or invisible characters) has its `<` replaced
/// by `‹` (U+2039) and its `>` by `›` (U+203A). Single guillemets keep the text readable
/// ("‹/rune-memory›" still says what was written) while no parser or model takes them for tag
/// delimiters, and they pass through JSON and terminals unchanged, unlike HTML entities, which
/// some readers decode again. A tag found only by decoding (`&lt;/rune-memory&gt;`,
/// `%3C/rune-memory%3E`, `⟨/rune-memory⟩`) or written with other brackets (`[/rune-memory]`)
/// is replaced whole by the form a model reads, in guillemets (`‹/rune-memory›`). The result
/// contains no such tag, and escaping it again changes nothing. `[INST]` is left alone: it is
/// not part of git-rune's frame, and `scan_text` taints it anyway.
pub fn escape_framing(text: &str) -> String {
    let norm = Norm::new(text);
    let spans = markers::frame_spans(&norm.text);
    let mut out = String::with_capacity(text.len() + 4 * spans.len());
    let mut copied = 0;
    for (s, e, tag) in spans {
        let (s, e) = (norm.orig(s), norm.orig(e));
        if s < copied {
            continue;
        }
        out.push_str(&text[copied..s]);
        match tag {
            markers::Tag::Angle => {
                out.extend(text[s..e].chars().map(|c| match norm::base_char(c) {
                    '<' => '‹',
                    '>' => '›',
                    _ => c,
                }))
            }
            markers::Tag::Inst => out.push_str(&text[s..e]),
            markers::Tag::Other(tag) => {
                // Written as a model reads it, with guillemets for its brackets.
                let inner = tag
                    .trim_start_matches(['<', '[', '{', '('])
                    .trim_end_matches(['>', ']', '}', ')']);
                out.push('‹');
                out.push_str(inner);
                out.push('›');
            }
        }
        copied = e;
    }
    out.push_str(&text[copied..]);
    out
}

// ---------------------------------------------------------------------------------------------
// Reporting.

/// Collects issues, keeping the first [`MAX_ISSUES_PER_RULE`] of each rule and building a
/// detail only for those, so a text full of matches costs no allocation per match.
struct Sink<'a> {
    /// The original text.
    text: &'a str,
    /// Its normal form, which offsets given to [`Sink::note`] and [`Sink::hit`] refer to.
    norm: &'a Norm<'a>,
    issues: Vec<Issue>,
    counts: [usize; RULES.len()],
}

impl<'a> Sink<'a> {
    fn new(text: &'a str, norm: &'a Norm<'a>) -> Self {
        Sink {
            text,
            norm,
            issues: Vec::new(),
            counts: [0; RULES.len()],
        }
    }

    /// An issue at `offset` in the normal form.
    fn note(&mut self, rule: &'static str, offset: usize, detail: impl FnOnce() -> String) {
        let offset = self.norm.orig(offset);
        self.note_original(rule, offset, detail);
    }

    /// An issue at `offset` in the original text.
    fn note_original(
        &mut self,
        rule: &'static str,
        offset: usize,
        detail: impl FnOnce() -> String,
    ) {
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

    /// An issue whose detail quotes the original of `start..end` in the normal form.
    fn hit(&mut self, rule: &'static str, start: usize, end: usize) {
        let rule = if rule == "remote-script-execution" {
            downloads::script_rule_around(&self.norm.text, start, end)
        } else {
            rule
        };
        let text = self.text;
        let start = self.norm.orig(start);
        let mut end = self.norm.orig(end).max(start);
        if end == start {
            end += text[start..].chars().next().map_or(0, char::len_utf8);
        }
        self.note_original(rule, start, || excerpt(text, start, end));
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

mod answers;
mod controls;
mod dialogue;
mod downloads;
mod hidden;
mod intent;
mod lexicon;
mod markers;
mod mentions;
mod model;
mod norm;
mod packages;
mod patterns;
mod phrases;
mod settings;
mod shapes;
pub(crate) mod tables;
mod vocab;
mod web;
mod word_table;
mod words;

use dialogue::*;
use hidden::*;
use intent::{concepts, scan_intent};
use markers::*;
use norm::Norm;
use phrases::*;
use settings::*;
use shapes::*;
use vocab::{bit, bits, mask};
pub use web::inert_urls;
use web::*;
use words::Words;

#[cfg(test)]
mod corpus_tests;
#[cfg(test)]
mod model_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod web_tests;
