//! Vendor tokens that name their issuer, checked once per `[A-Za-z0-9_-]` word at its start
//! (AWS, GitHub, Stripe, Twilio, Google, OpenAI, Anthropic, SendGrid, JWTs), and `Bearer`
//! tokens: byte-class scanners, faster than regexes for the shapes every text is checked for.

use super::rules::*;

// ---------------------------------------------------------------------------------------------
// Vendor token shapes, checked once per `[A-Za-z0-9_-]` word at the word's start.

pub(super) fn scan_tokens(b: &[u8], out: &mut Vec<Cand>) {
    let mut i = 0;
    while i < b.len() {
        if !is(b[i], WORD) {
            i += 1;
            continue;
        }
        let s = i;
        let e = run_end(b, i, WORD);
        match token_at(b, s, e) {
            // Skipping the match keeps the pass linear however far a JWT reaches.
            Some(c) => {
                i = c.end.max(e);
                out.push(c);
            }
            None => i = e,
        }
        if let Some(c) = bearer_at(b, s, e) {
            out.push(c);
        }
    }
}

pub(super) fn token_at(b: &[u8], s: usize, e: usize) -> Option<Cand> {
    let w = &b[s..e];
    // Every shape starts with one of these; most words are rejected here.
    if !matches!(w[0], b'A' | b'g' | b's' | b'r' | b'S' | b'e') || w.len() < 2 {
        return None;
    }
    let vendor = |rule| Some(cand(s, e, rule, P_VENDOR));
    // Access keys, session keys, bearer-token keys, context keys; A3T + one more is the
    // oldest form.
    let aws = [b"AKIA", b"ASIA", b"ABIA", b"ACCA"]
        .iter()
        .any(|p| w.starts_with(*p))
        || w.starts_with(b"A3T");
    if aws && w.len() == 20 && all(&w[3..], UPPER | DIGIT) {
        return vendor("aws-access-key");
    }
    for p in [b"ghp_", b"gho_", b"ghu_", b"ghs_", b"ghr_"] {
        if w.starts_with(p) && w.len() >= 4 + 30 && all(&w[4..], ALNUM) {
            return vendor("github-token");
        }
    }
    if w.starts_with(b"github_pat_") && w.len() >= 11 + 22 && !w[11..].contains(&b'-') {
        return vendor("github-token");
    }
    for p in [
        b"sk_live_",
        b"rk_live_",
        b"sk_test_",
        b"rk_test_",
        b"sk_prod_",
        b"rk_prod_",
    ] {
        if w.starts_with(p) && w.len() >= 8 + 16 && all(&w[8..], ALNUM) {
            return vendor("stripe-key");
        }
    }
    if w.len() == 34 && w.starts_with(b"SK") && all(&w[2..], HEX) {
        return vendor("twilio-api-key");
    }
    if w.len() == 39 && w.starts_with(b"AIza") {
        return vendor("google-api-key");
    }
    if w.starts_with(b"sk-ant-") {
        return (w.len() >= 7 + 32).then(|| cand(s, e, "anthropic-key", P_VENDOR));
    }
    if w.starts_with(b"sk-") {
        let p = OPENAI_PREFIXES
            .iter()
            .find(|p| w.starts_with(p.as_bytes()))
            .map_or(3, |p| p.len());
        let rest = &w[p..];
        return (rest.len() >= 20 && kind_count(rest) == 3)
            .then(|| cand(s, e, "openai-key", P_VENDOR));
    }
    if w == b"SG" {
        // SendGrid: SG.<16-32>.<32-64>; each part is a bounded word, so the look-ahead is O(1).
        let p1 = segment(b, e, 16, 32)?;
        let p2 = segment(b, p1, 32, 64)?;
        return Some(cand(s, p2, "sendgrid-key", P_VENDOR));
    }
    if w.starts_with(b"eyJ") && w.len() >= 10 {
        let p1 = segment(b, e, 10, usize::MAX)?;
        let p2 = segment(b, p1, 16, usize::MAX)?;
        return Some(cand(s, p2, "jwt", P_JWT));
    }
    None
}

/// `.` followed by a `[A-Za-z0-9_-]` word of `min..=max` bytes; returns the word's end.
pub(super) fn segment(b: &[u8], dot: usize, min: usize, max: usize) -> Option<usize> {
    if b.get(dot) != Some(&b'.') {
        return None;
    }
    let limit = b.len().min((dot + 1).saturating_add(max).saturating_add(1));
    let i = run_while(b, dot + 1, limit, |c| is(c, WORD));
    let len = i - dot - 1;
    let ended = i == b.len() || !is(b[i], WORD);
    (ended && len >= min && len <= max).then_some(i)
}

/// `Bearer <token>`: the token is flagged, `Bearer ` stays to show it was an Authorization header.
pub(super) fn bearer_at(b: &[u8], s: usize, e: usize) -> Option<Cand> {
    if !b[s..e].eq_ignore_ascii_case(b"bearer") {
        return None;
    }
    let i = skip_blanks(b, e);
    if i == e {
        return None;
    }
    let te = run_end(b, i, BEARER);
    let tok = &b[i..te];
    (tok.len() >= 16 && kind_count(tok) >= 2 && !is_placeholder(tok))
        .then(|| cand(i, te, "bearer-token", P_CONTEXT))
}
