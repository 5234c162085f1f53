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

use super::lexicon::{fold, sentences, Lexicon};
use super::mentions::writeup;
use super::Sink;
use std::sync::OnceLock;

/// The lists, in [`Lexicon`] order.
const CONTROL: usize = 0;
const WEAKENS: usize = 1;
const ALONE: usize = 2;
const NEGATION: usize = 3;
const CONSEQUENCE: usize = 4;

fn lexicon() -> &'static Lexicon {
    static LEXICON: OnceLock<Lexicon> = OnceLock::new();
    LEXICON.get_or_init(|| {
        Lexicon::new(&[
            "controls",
            "weakens",
            "weak-alone",
            "weak-negations",
            "weak-consequences",
        ])
    })
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

/// Whether a folded sentence weakens a control.
fn weakened(s: &str) -> bool {
    let found: Vec<(usize, usize, usize)> = lexicon()
        .find(s)
        .into_iter()
        .map(|h| (h.list, h.start, h.end))
        .collect();
    let negations: Vec<(usize, usize)> = found
        .iter()
        .filter(|f| f.0 == NEGATION)
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
            .any(|&(c, a, _)| c == CONSEQUENCE && x.min(y) < a && a < x.max(y))
    };
    let controlled = |at: usize| {
        found
            .iter()
            .any(|&(c, a, _)| c == CONTROL && !between(a, at))
    };
    found
        .iter()
        .any(|&(c, a, b)| !negated(a, b) && (c == ALONE || (c == WEAKENS && controlled(a))))
}

#[cfg(test)]
mod tests {
    use super::*;

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
