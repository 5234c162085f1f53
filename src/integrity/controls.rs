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

use super::lexicon::{fold, sentences, ALONE, CONSEQUENCE, CONTROL, NEGATION, WEAKENS};
use super::mentions::writeup;
use super::vocab::lexicon;
use super::Sink;

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

/// Whether a folded sentence weakens a control. (Linear in the hits, however long the
/// sentence: each check looks up a window of sorted positions.)
fn weakened(s: &str) -> bool {
    let found = lexicon().find(s);
    let of = |list: usize| -> Vec<(usize, usize)> {
        let mut v: Vec<(usize, usize)> = found
            .iter()
            .filter(|h| h.list == list)
            .map(|h| (h.start, h.end))
            .collect();
        v.sort_unstable();
        v
    };
    let negations = of(NEGATION);
    // A sentence that opens with a negation forbids what it names ("Never bypass the router;
    // skipping it loses auth checks").
    let opening = s.len() - s.trim_start_matches(|c: char| !c.is_alphanumeric()).len();
    if negations.iter().any(|&(a, _)| a == opening) {
        return false;
    }
    // A negation up to 24 bytes before the weakening ("never store … in plain text" is read
    // from the weakening back) or up to 12 after it (verb-final: "無効にしない").
    let negated = |a: usize, b: usize| {
        let lo = negations.partition_point(|&(x, _)| x + 24 < a);
        negations[lo..]
            .iter()
            .take_while(|&&(x, _)| x <= b + 12)
            // (A negation inside the weakening is part of it: "without authentication".)
            .any(|&(x, y)| y <= b + 12 && !(a <= x && y <= b))
            // ("The security team will never ask you to disable MFA.")
            || super::lexicon::declined_request(lexicon(), &s[..a])
    };
    // A control on the far side of a consequence is what is lost, not what is switched off:
    // "skipping it loses auth checks". The nearest control on either side decides: one
    // further away has the same consequence between.
    let controls: Vec<usize> = of(CONTROL).into_iter().map(|(a, _)| a).collect();
    let consequences: Vec<usize> = of(CONSEQUENCE).into_iter().map(|(a, _)| a).collect();
    let clear = |x: usize, y: usize| {
        let (lo, hi) = (x.min(y), x.max(y));
        let k = consequences.partition_point(|&c| c <= lo);
        consequences.get(k).is_none_or(|&c| c >= hi)
    };
    let controlled = |at: usize| {
        let k = controls.partition_point(|&c| c < at);
        (k > 0 && clear(controls[k - 1], at)) || controls.get(k).is_some_and(|&c| clear(c, at))
    };
    found.iter().any(|h| {
        (h.list == ALONE || (h.list == WEAKENS && controlled(h.start))) && !negated(h.start, h.end)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_declined_request_weakens_nothing() {
        assert!(!weakened(
            "the security team will never ask you, or the agent, to disable mfa"
        ));
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
