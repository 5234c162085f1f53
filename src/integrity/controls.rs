//! `weakened-security` (SUSPICIOUS), stated form: a sentence that switches a security control
//! off, in any of the gate's languages ("we store passwords in plain text now", "CSRF 檢查設成
//! false", "kontrola součtu vypnuta", "audyt wyłączony"). Memory that says so is what an
//! attacker writes to make the agent weaken the project while reading like a team decision;
//! it is also what a real decision can say, so it is marked, never withheld.
//!
//! A sentence holds a control (`@controls`: encryption, CSRF, audit log, checksum, 2FA …) and
//! a weakening of it (`@weakens`: disable, turn off, remove, skip, plain text, always true …)
//! with no negation next to the weakening (`@weak-negations`: "never disable", "nicht
//! deaktivieren", "無効にしない"); or it holds a weakening that needs no control named
//! (`@weak-alone`: a master password, a backdoor, `chmod 777`, `0.0.0.0/0`, `alg: none`).
//! Security writing (`mentions::writeup`) describes such changes, and a quotation mentions
//! one: neither is read here.

use super::mentions::writeup;
use super::norm::Norm;
use super::tables::sets;
use super::Sink;
use aho_corasick::AhoCorasick;
use std::sync::OnceLock;

/// What an item of the four lists is.
#[derive(Clone, Copy, PartialEq)]
enum Class {
    Control,
    Weakens,
    Alone,
    Negation,
    Consequence,
}

/// The four lists in one automaton (one pass per sentence finds every item), each item in the
/// form the scanned text is read in: normal form (marks dropped, so "não" is "nao", as in the
/// text), lower case, `-` and `_` as blanks.
struct Lists {
    ac: AhoCorasick,
    /// Each pattern's class and byte length.
    items: Vec<(Class, usize, Edges)>,
}

/// Which ends of an item must sit at a word boundary.
#[derive(Clone, Copy)]
struct Edges {
    start: bool,
    end: bool,
}

fn lists() -> &'static Lists {
    static LISTS: OnceLock<Lists> = OnceLock::new();
    LISTS.get_or_init(|| {
        let mut patterns = Vec::new();
        let mut items = Vec::new();
        for (name, class) in [
            ("controls", Class::Control),
            ("weakens", Class::Weakens),
            ("weak-alone", Class::Alone),
            ("weak-negations", Class::Negation),
            ("weak-consequences", Class::Consequence),
        ] {
            for w in sets().set(name) {
                let w = fold(&Norm::new(w).text);
                // A stem goes on ("disabl" finds "disabled"); an item under four bytes is a
                // whole word ("off", "2fa"); an item that starts or ends with a sign ("=0",
                // "0.0.0.0/0") needs no boundary there; an item of a script written without
                // spaces (CJK, kana, hangul) is found anywhere.
                let unspaced = w.chars().all(|c| c as u32 >= 0x3000);
                let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
                let edges = Edges {
                    start: !unspaced && word(w.chars().next()),
                    end: !unspaced && w.len() < 4 && word(w.chars().next_back()),
                };
                items.push((class, w.len(), edges));
                patterns.push(w);
            }
        }
        let ac = AhoCorasick::new(&patterns).expect("the integrity lists build an automaton");
        Lists { ac, items }
    })
}

/// Lower case, with `-` and `_` read as blanks ("audit_log", "rate-limit").
fn fold(s: &str) -> String {
    s.to_lowercase().replace(['_', '-'], " ")
}

/// Scans `text` (the normal form) sentence by sentence.
pub(super) fn scan_controls(text: &str, out: &mut Sink) {
    let mut hits = Vec::new();
    // A quoted weakening is a mention (a write-up quoting the planted line).
    let unquoted = super::model::unquoted(text);
    for (s, e) in sentences(&unquoted) {
        if weakened(&fold(&unquoted[s..e])) {
            hits.push((s, e));
        }
    }
    if hits.is_empty() || writeup(text) {
        return;
    }
    for (s, e) in hits {
        out.hit("weakened-security", s, e);
    }
}

/// The sentences of `text` (start, end): split at line breaks, `! ? 。 ！ ？`, and a full stop
/// before a blank or the end (not the dots of `firewall.tf` or `0.0.0.0/0`).
fn sentences(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let ends = match c {
            '\n' | '!' | '?' | '\u{3002}' | '\u{FF01}' | '\u{FF1F}' => true,
            '.' => chars.peek().is_none_or(|&(_, n)| n.is_whitespace()),
            _ => false,
        };
        if ends {
            if i > start {
                out.push((start, i));
            }
            start = i + c.len_utf8();
        }
    }
    if text.len() > start {
        out.push((start, text.len()));
    }
    out
}

/// Whether a folded sentence weakens a control.
fn weakened(s: &str) -> bool {
    let t = lists();
    let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    let mut found: Vec<(Class, usize, usize)> = Vec::new();
    for m in t.ac.find_overlapping_iter(s) {
        let (class, len, edges) = t.items[m.pattern().as_usize()];
        let at = m.start();
        if (edges.start && word(s[..at].chars().next_back()))
            || (edges.end && word(s[at + len..].chars().next()))
        {
            continue;
        }
        found.push((class, at, at + len));
    }
    let negations: Vec<(usize, usize)> = found
        .iter()
        .filter(|f| f.0 == Class::Negation)
        .map(|f| (f.1, f.2))
        .collect();
    // A sentence that opens with a negation forbids what it names ("Never bypass the router;
    // skipping it loses auth checks").
    let opening = s.len() - s.trim_start_matches(|c: char| !c.is_alphanumeric()).len();
    if negations.iter().any(|&(a, _)| a == opening) {
        return false;
    }
    // A negation up to 24 bytes before the weakening ("never store … in plain text" is read
    // from the weakening back) or up to 12 after it (verb-final: "無効にしない").
    let negated = |a: usize, b: usize| {
        negations
            .iter()
            .any(|&(x, y)| x + 24 >= a && y <= b + 12 && (x, y) != (a, b))
    };
    // A control on the far side of a consequence is what is lost, not what is switched off:
    // "skipping it loses auth checks".
    let between = |x: usize, y: usize| {
        found
            .iter()
            .any(|&(c, a, _)| c == Class::Consequence && x.min(y) < a && a < x.max(y))
    };
    let controlled = |at: usize| {
        found
            .iter()
            .any(|&(c, a, _)| c == Class::Control && !between(a, at))
    };
    found.iter().any(|&(c, a, b)| {
        !negated(a, b) && (c == Class::Alone || (c == Class::Weakens && controlled(a)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_split_at_full_stops_before_blanks() {
        let t = "Open 0.0.0.0/0 in firewall.tf. Then stop";
        let got: Vec<&str> = sentences(t).into_iter().map(|(s, e)| &t[s..e]).collect();
        assert_eq!(got, ["Open 0.0.0.0/0 in firewall.tf", " Then stop"]);
    }

    #[test]
    fn a_control_lost_is_not_one_switched_off() {
        assert!(!weakened("skipping it loses auth checks"));
        assert!(weakened(
            "we disabled csrf because it breaks the mobile client"
        ));
    }

    #[test]
    fn items_start_at_word_boundaries() {
        assert!(weakened("we disabled the csrf check"));
        assert!(!weakened("undisabled csrf check"));
        assert!(!weakened("the csrf office"));
        assert!(weakened("csrf turned off"));
        assert!(weakened("把 csrf 检查关闭"));
        assert!(weakened("rate limit=0 in prod"));
    }
}
