//! Runs the provider table (`data/providers.txt`) the way gitleaks runs its config: one pass
//! finds the rules' keywords, and only the rules whose keyword occurs run their regexes, on
//! windows around the keyword, compiled the first time they are needed.
//!
//! Cost: the keyword pass is one probe of a bitmap per byte (built on first use); a text
//! without keywords compiles and runs no regex. Per rule, the windows around its hits
//! are merged before its regexes run, so each rule reads each byte at most once per regex,
//! and the regexes (finite automata) are linear in what they read. Windows reach
//! [`BEFORE`] bytes before a keyword and [`AFTER`] bytes after it: every shape's match lies
//! within that distance of one of its keywords. A window's end is a hard end for the match,
//! while word boundaries and `$` still see the text beyond it, so a window never makes a
//! shorter token out of a longer one.

use std::sync::OnceLock;

use regex_automata::{meta::Regex, util::captures::Captures, util::syntax, Input};

use super::data::{self, Provider, Shape};
use super::entropy::shannon;
use super::rules::{cand, is_placeholder, is_variable_name, kind_count, Cand, P_VENDOR};

/// How far before a keyword a match may start.
pub(super) const BEFORE: usize = 256;
/// How far after a keyword's start a match may end.
pub(super) const AFTER: usize = 2048;

/// Tokens are whole `[A-Za-z0-9_-]` words, as the hand-written vendor rules read them: a
/// token glued to a longer word is not the token (and a redaction inside such a word must not
/// make one appear).
const TOKEN_START: &str = "(?:^|[^A-Za-z0-9_-])";
const TOKEN_END: &str = "(?:[^A-Za-z0-9_-]|$)";

/// The regex of one shape: `Token` and `Keyed` shapes wrap the secret in group 1.
pub(super) fn shape_regex(shape: &Shape) -> String {
    match shape {
        Shape::Token(p) => format!("{TOKEN_START}({p}){TOKEN_END}"),
        // The key: a name, the rest of the identifier and up to two more words ("Twitter
        // API key"), a closing quote; the operator; an opening quote; the value. (Unbounded
        // repetitions compile faster than counted ones; the window bounds them anyway.)
        Shape::Keyed(names, value) => format!(
            "(?i:{names})[A-Za-z0-9_.-]*(?:[ \\t]+[A-Za-z0-9_.-]+){{0,2}}[\"']?[ \\t]*\
             (?:=>|:=|\\?=|==?|:|,)[ \\t]*[\"'`]?[ \\t]*((?:{value})){TOKEN_END}"
        ),
        Shape::Pattern(p) => (*p).to_owned(),
    }
}

fn build(pattern: &str) -> Regex {
    Regex::builder()
        // The one-pass DFA costs more to build than it saves on the few matches a rule has.
        .configure(Regex::config().onepass(false))
        .syntax(syntax::Config::new().unicode(false).utf8(false))
        .build(pattern)
        .unwrap_or_else(|e| panic!("provider pattern {pattern:?}: {e}"))
}

struct Compiled {
    shapes: Vec<(Regex, bool)>,
    allow: Option<Regex>,
}

fn compile(p: &Provider) -> Compiled {
    let shapes = p
        .shapes
        .iter()
        .map(|s| (build(&shape_regex(s)), matches!(s, Shape::Keyed(..))))
        .collect();
    let allow = (!p.allow.is_empty()).then(|| {
        let alts: Vec<String> = p.allow.iter().map(|a| format!("(?:{a})")).collect();
        build(&alts.join("|"))
    });
    Compiled { shapes, allow }
}

/// The table with its compiled regexes (each built the first time its rule wakes) and its
/// keyword filter.
struct Table {
    providers: &'static [Provider],
    compiled: Vec<OnceLock<Compiled>>,
    /// Every keyword of every rule, sorted by the hash of its first three bytes.
    keywords: Vec<Keyword>,
    /// Which 16-bit hashes start a keyword.
    first3: Box<[u64; 1024]>,
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let providers = &data::providers().providers;
        let mut keywords = Vec::new();
        for (i, p) in providers.iter().enumerate() {
            for w in &p.keywords {
                let w = w.as_bytes();
                let h = u32::from(lower(w[0])) << 16
                    | u32::from(lower(w[1])) << 8
                    | u32::from(lower(w[2]));
                keywords.push(Keyword {
                    hash: hash3(h),
                    rule: i as u16,
                    word: w,
                });
            }
        }
        // Stable: a rule's keywords stay in file order within one hash.
        keywords.sort_by_key(|k| k.hash);
        let mut first3 = Box::new([0u64; 1024]);
        for k in &keywords {
            first3[k.hash >> 6] |= 1 << (k.hash & 63);
        }
        Table {
            providers,
            compiled: providers.iter().map(|_| OnceLock::new()).collect(),
            keywords,
            first3,
        }
    })
}

fn compiled(i: usize) -> &'static Compiled {
    let t = table();
    t.compiled[i].get_or_init(|| compile(&t.providers[i]))
}

// ---------------------------------------------------------------------------------------------
// Keywords: a filter built on first use. Every keyword is at least three bytes long (the data
// parser checks); its first three (lower-cased) hash to 16 bits, and a bitmap of those hashes
// rejects almost every position of a text with one probe. At a set bit, the keywords with that
// hash (sorted by it) are compared.

const fn lower(b: u8) -> u8 {
    b.to_ascii_lowercase()
}

const fn hash3(h: u32) -> usize {
    (h.wrapping_mul(0x9E37_79B1) >> 16) as usize
}

#[derive(Clone, Copy)]
struct Keyword {
    hash: usize,
    rule: u16,
    word: &'static [u8],
}

/// The rules whose keywords occur in `text`, with their merged windows: (rule, start, end).
pub(super) fn windows(text: &[u8]) -> Vec<(usize, usize, usize)> {
    let mut hits: Vec<(usize, usize, usize)> = Vec::new();
    if text.len() < 3 {
        return hits;
    }
    let t = table();
    let mut h = (lower(text[0]) as u32) << 8 | lower(text[1]) as u32;
    for i in 0..text.len() - 2 {
        h = (h << 8 | lower(text[i + 2]) as u32) & 0xFF_FFFF;
        let k = hash3(h);
        if t.first3[k >> 6] >> (k & 63) & 1 == 0 {
            continue;
        }
        let first = t.keywords.partition_point(|e| e.hash < k);
        for e in t.keywords[first..].iter().take_while(|e| e.hash == k) {
            let rest = &text[i..];
            if rest.len() >= e.word.len() && rest[..e.word.len()].eq_ignore_ascii_case(e.word) {
                let start = i.saturating_sub(BEFORE);
                let end = text.len().min(i + AFTER);
                hits.push((e.rule as usize, start, end));
            }
        }
    }
    hits.sort_unstable();
    let mut merged: Vec<(usize, usize, usize)> = Vec::with_capacity(hits.len());
    for h in hits {
        match merged.last_mut() {
            Some(last) if last.0 == h.0 && h.1 <= last.2 => last.2 = last.2.max(h.2),
            _ => merged.push(h),
        }
    }
    merged
}

/// Finds the provider secrets in `text`.
pub(super) fn scan_providers(text: &[u8], out: &mut Vec<Cand>) {
    for (rule, start, end) in windows(text) {
        let p = &table().providers[rule];
        let c = compiled(rule);
        for (re, keyed) in &c.shapes {
            let mut caps = re.create_captures();
            let mut at = start;
            while at < end {
                re.search_captures(&Input::new(text).range(at..end), &mut caps);
                let Some(m) = caps.get_match() else { break };
                let secret = secret_span(&caps);
                // Resuming at the secret's end leaves the byte after it (which the match may
                // have taken as the token's end) to start the next token.
                let next = secret.map_or(m.end(), |(_, e)| e);
                at = if next > at { next } else { at + 1 };
                let Some((s, e)) = secret else {
                    continue;
                };
                if accept(p, c, *keyed, &text[s..e]) {
                    out.push(cand(s, e, p.id, P_VENDOR));
                }
            }
        }
    }
}

/// The first capture group that took part, else the whole match.
fn secret_span(caps: &Captures) -> Option<(usize, usize)> {
    let span = (1..caps.group_len())
        .find_map(|g| caps.get_group(g))
        .or_else(|| caps.get_group(0))?;
    (span.end > span.start).then_some((span.start, span.end))
}

fn accept(p: &Provider, c: &Compiled, keyed: bool, secret: &[u8]) -> bool {
    if is_placeholder(secret) || is_filler(p, secret) {
        return false;
    }
    if keyed {
        // A value a key names must look generated: not a word, not a variable name (few
        // digits in snake or shouty case), and two of upper case, lower case and digits,
        // unless it is all digits (client ids).
        let digits = secret.iter().filter(|b| b.is_ascii_digit()).count();
        let variable = is_variable_name(secret) && digits < 4;
        if variable || !(digits == secret.len() || kind_count(secret) >= 2) {
            return false;
        }
    }
    if p.entropy > 0.0 && shannon(secret) < p.entropy {
        return false;
    }
    !c.allow.as_ref().is_some_and(|a| a.is_match(secret))
}

/// A body (what follows the kept prefix) of one repeated character: `hf_xxxx…`, `dapi0000…`.
fn is_filler(p: &Provider, secret: &[u8]) -> bool {
    let body = &secret[keep_prefix(p, secret)..];
    body.first()
        .is_some_and(|&f| body.iter().all(|&b| b == f || b == b'-' || b == b'_'))
}

fn keep_prefix(p: &Provider, secret: &[u8]) -> usize {
    p.keep
        .iter()
        .find(|k| secret.len() > k.len() && secret[..k.len()].eq_ignore_ascii_case(k.as_bytes()))
        .map_or(0, |k| k.len())
}

/// How many leading bytes of a finding of provider rule `rule` `redact` keeps.
pub(super) fn keep_len(rule: &str, v: &str) -> Option<usize> {
    let p = table().providers.iter().find(|p| p.id == rule)?;
    Some(keep_prefix(p, v.as_bytes()))
}

/// Every provider rule id.
#[cfg(test)]
pub(super) fn ids() -> impl Iterator<Item = &'static str> {
    table().providers.iter().map(|p| p.id)
}

/// Whether provider rule `i`'s regexes have been compiled in this process.
#[cfg(test)]
pub(super) fn is_compiled(i: usize) -> bool {
    table().compiled[i].get().is_some()
}
