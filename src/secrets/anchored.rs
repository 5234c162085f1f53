//! Secrets found by a fixed anchor string: credentials in URLs, Slack webhooks, PEM private
//! key blocks (and the public blocks whose bodies are not secrets).

use super::rules::*;
use super::REDACTED;

// ---------------------------------------------------------------------------------------------
// Shapes found by a fixed anchor string.

pub(super) fn find_all<'a>(text: &'a str, needle: &'a str) -> impl Iterator<Item = usize> + 'a {
    let mut from = 0;
    std::iter::from_fn(move || {
        let at = from + text.get(from..)?.find(needle)?;
        from = at + needle.len();
        Some(at)
    })
}

/// `scheme://user:password@host`: the password is the secret, the user and host are context.
pub(super) fn scan_url_credentials(text: &str, out: &mut Vec<Cand>) {
    let b = text.as_bytes();
    for p in find_all(text, "://") {
        if p == 0 || !b[p - 1].is_ascii_alphanumeric() {
            continue;
        }
        // The authority ends at the first path, query or fragment character, so no two
        // authorities overlap and the pass stays linear.
        let a = p + 3;
        let mut j = a;
        let mut at = None;
        let mut colon = None;
        while j < b.len()
            && !b[j].is_ascii_whitespace()
            && !matches!(b[j], b'/' | b'?' | b'#' | b'"' | b'\'' | b'`' | b'<' | b'>')
        {
            match b[j] {
                b'@' => at = Some(j),
                b':' if at.is_none() && colon.is_none() => colon = Some(j),
                _ => {}
            }
            j += 1;
        }
        if let (Some(c), Some(at)) = (colon, at) {
            // `postgres:postgres@`, `guest:guest@`: a password equal to the user is a default.
            let (user, pass) = (&b[a..c], &b[c + 1..at]);
            // `[user[:password]@]`: the syntax of a URL in documentation.
            let syntax = pass.iter().any(|c| b"[]{}<>".contains(c));
            if !pass.is_empty() && !is_placeholder(pass) && user != pass && !syntax {
                out.push(cand(c + 1, at, "url-credentials", P_CONTEXT));
            }
        }
    }
}

const SLACK_HOOKS: &str = "hooks.slack.com/";

/// Incoming webhooks (`services/`) and workflow triggers (`workflows/`, `triggers/`).
pub(super) fn scan_slack_webhooks(text: &str, out: &mut Vec<Cand>) {
    let b = text.as_bytes();
    for at in find_all(text, SLACK_HOOKS) {
        let kind = at + SLACK_HOOKS.len();
        let Some(k) = ["services/", "workflows/", "triggers/"]
            .iter()
            .find(|k| b[kind..].starts_with(k.as_bytes()))
        else {
            continue;
        };
        let path = kind + k.len();
        let end = run_end(b, path, WORD | B64);
        if end - path < 20 {
            continue;
        }
        let start = ["https://", "http://"]
            .iter()
            .find(|s| text[..at].ends_with(*s))
            .map_or(at, |s| at - s.len());
        out.push(cand(start, end, "slack-webhook", P_VENDOR));
    }
}

/// A webhook keeps its URL up to the kind of hook (`…/services/`).
pub(super) fn slack_webhook_keep(v: &str) -> usize {
    v.find(SLACK_HOOKS)
        .map(|i| i + SLACK_HOOKS.len())
        .and_then(|k| v[k..].find('/').map(|j| k + j + 1))
        .unwrap_or(0)
}

/// The label and end of a `-----BEGIN <label>-----` line starting at `i`.
pub(super) fn pem_header(b: &[u8], i: usize) -> Option<(&[u8], usize)> {
    const BEGIN: &[u8] = b"-----BEGIN ";
    if !b[i..].starts_with(BEGIN) {
        return None;
    }
    let label = i + BEGIN.len();
    let (j, closed) = armor_close(b, label);
    let label = &b[label..j];
    // Real labels are upper-case words; anything else is not a PEM line, and `redact` keeps
    // this line, so it must never carry text of its own.
    let plain = label
        .iter()
        .all(|&c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b' ');
    (plain && closed).then_some((label, j + 5))
}

/// The end of an armor line's label starting at `from`, and whether `-----` closes it there.
/// Labels are short ("ENCRYPTED PRIVATE KEY", "PGP PRIVATE KEY BLOCK"); the bound keeps a run
/// of BEGIN lines without closing dashes linear.
fn armor_close(b: &[u8], from: usize) -> (usize, bool) {
    let limit = b.len().min(from + 64);
    let mut j = from;
    while j < limit && b[j] != b'\n' && !b[j..].starts_with(b"-----") {
        j += 1;
    }
    (j, j < limit && b[j..].starts_with(b"-----"))
}

/// Where PEM armor starts (`-----BEGIN ` and `-----END`), in order.
pub(super) fn armor(text: &str) -> Vec<(usize, usize)> {
    find_all(text, "-----")
        .filter_map(|at| {
            let rest = &text.as_bytes()[at + 5..];
            let len = if rest.starts_with(b"BEGIN ") {
                11
            } else if rest.starts_with(b"END") {
                8
            } else {
                return None;
            };
            Some((at, at + len))
        })
        .collect()
}

/// Whether `[start, end)` overlaps one of the (sorted, disjoint) `ranges`.
pub(super) fn overlaps(ranges: &[(usize, usize)], start: usize, end: usize) -> bool {
    let i = ranges.partition_point(|&(_, e)| e <= start);
    ranges.get(i).is_some_and(|&(s, _)| s < end)
}

/// End of a `-----BEGIN … PRIVATE KEY-----` line starting at `i`.
pub(super) fn private_key_header_end(b: &[u8], i: usize) -> Option<usize> {
    pem_header(b, i).and_then(|(label, end)| contains(label, b"PRIVATE KEY").then_some(end))
}

/// Finds private key blocks; returns the ranges of public PEM blocks (certificates, public
/// keys), whose base64 bodies are high-entropy but not secret.
pub(super) fn scan_pem_blocks(text: &str, out: &mut Vec<Cand>) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut public = Vec::new();
    // (searched from, first END at or after it): the first END after a position only moves
    // forward, so one search serves every BEGIN before it and a text full of BEGIN lines
    // stays linear.
    let mut end_cache: Option<(usize, Option<usize>)> = None;
    let mut covered = 0;
    for at in find_all(text, "-----BEGIN ") {
        if at < covered {
            continue;
        }
        let Some((label, h)) = pem_header(b, at) else {
            continue;
        };
        let end_at = match end_cache {
            Some((from, found)) if from <= h && found.is_none_or(|e| e >= h) => found,
            _ => {
                let found = text[h..].find("-----END").map(|e| h + e);
                end_cache = Some((h, found));
                found
            }
        };
        if !contains(label, b"PRIVATE KEY") {
            if let Some(e) = end_at {
                public.push((at, e));
                covered = e;
            }
            continue;
        }
        if b[h..].starts_with(REDACTED.as_bytes()) {
            continue; // already redacted
        }
        let body_end = end_at.unwrap_or(b.len());
        // Key material, not a `-----BEGIN … KEY-----\n...\n-----END …` placeholder in docs.
        let mut run = 0;
        let mut material = false;
        for &c in &b[h..body_end.min(h + 256)] {
            run = if is(c, B64) || c == b'=' { run + 1 } else { 0 };
            if run >= 16 {
                material = true;
                break;
            }
        }
        if !material {
            continue;
        }
        let end = match end_at {
            Some(e) => match armor_close(b, e + 8) {
                (j, true) => j + 5,
                (j, false) => j,
            },
            None => b.len(),
        };
        covered = end;
        out.push(cand(at, end, "private-key", 100));
    }
    public
}
