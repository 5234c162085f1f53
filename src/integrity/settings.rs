//! Settings that switch protections off (`verify=False`, `--no-verify`, …) and encoded blobs,
//! both `weakened-security` / `encoded-blob` shapes read line by line.

use super::shapes::*;
use super::tables::any_in;
use super::*;
use crate::bytes::find_ci;

bits! { pub(super) bit: FALSY = "falsy", TRUTHY = "truthy", WEAK_FLAG = "weak-flag" }

/// `weakened-security` (SUSPICIOUS), settings form: `verify=False`, `InsecureSkipVerify: true`,
/// `rejectUnauthorized: false`, `NODE_TLS_REJECT_UNAUTHORIZED=0`, `sslmode=disable`,
/// `git config http.sslVerify false`, and flags such as `--no-verify`, `--insecure`,
/// `--no-check-certificate`. The separator is `=`, `:`, or a space after a dotted key (git
/// config), so "we verify false positives" stays prose.
pub(super) fn scan_settings(text: &str, out: &mut Sink) {
    let b = text.as_bytes();
    let ident = |c: &u8| c.is_ascii_alphanumeric() || b"_-.".contains(c);
    let mut i = 0;
    while i < b.len() {
        let s = i;
        i = run_while(b, i, b.len(), |c| ident(&c));
        if i == s {
            i += 1;
            continue;
        }
        let id = b[s..i].strip_suffix(b".").unwrap_or(&b[s..i]); // a sentence's full stop
        if id.starts_with(b"--") && mask(id) & WEAK_FLAG != 0 {
            out.hit("weakened-security", s, s + id.len());
            continue;
        }
        let j = s + id.len() + usize::from(matches!(b.get(s + id.len()), Some(b'"' | b'\'')));
        let k = skip_blanks(b, j);
        let v = match b.get(k) {
            Some(b'=') if b.get(k + 1) != Some(&b'=') => k + 1,
            Some(b':') if b.get(k + 1) != Some(&b':') => k + 1,
            Some(_) if k > j && id.contains(&b'.') => k,
            _ => continue,
        };
        let v = skip_blanks(b, v);
        let v = v + usize::from(matches!(b.get(v), Some(b'"' | b'\'')));
        let ve = run_while(b, v, b.len(), |c| c.is_ascii_alphanumeric());
        let keyed = |keys: &str| any_in(keys, |k| ends_with_ci(id, k));
        let value = mask(&b[v..ve]);
        if (value & FALSY != 0 && keyed("falsy-keys"))
            || (value & TRUTHY != 0 && keyed("truthy-keys"))
        {
            out.hit("weakened-security", s, ve);
        }
    }
}

/// `weakened-security` (SUSPICIOUS), package-source form: a package index, registry or mirror
/// named over plain `http://` (`pip install --index-url http://…`, `registry = 'http://…'`,
/// `maven { url 'http://…' }`, `GOPROXY=http://…`): anyone on the path can swap what is
/// installed. A word of `@package-source-cues` up to 120 bytes before the URL on its line says
/// it is a package source; loopback hosts are a developer's own machine.
pub(super) fn scan_package_sources(text: &str, out: &mut Sink) {
    let b = text.as_bytes();
    let mut from = 0;
    while let Some(p) = find_ci(&b[from..], b"http://") {
        let at = from + p;
        from = at + 7;
        let host_end = b[from..]
            .iter()
            .position(|c| !(c.is_ascii_alphanumeric() || b".-_[]".contains(c)))
            .map_or(b.len(), |q| from + q);
        let host = b[from..host_end].to_ascii_lowercase();
        if host.is_empty()
            || host == b"localhost"
            || host.starts_with(b"127.")
            || host.starts_with(b"[::1]")
            || host == b"0.0.0.0"
        {
            continue;
        }
        let back = at.saturating_sub(120);
        let line = &b[back..at];
        let line = &line[line.iter().rposition(|&c| c == b'\n').map_or(0, |q| q + 1)..];
        let words = line
            .split(|c| !(c.is_ascii_alphanumeric() || b"-_".contains(c)))
            .filter(|w| !w.is_empty());
        let cued = words
            .map(<[u8]>::to_ascii_lowercase)
            .any(|w| any_in("package-source-cues", |c| w == c));
        if cued {
            out.hit("weakened-security", at, host_end);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Encoded blobs.

/// `encoded-blob` (SUSPICIOUS): a long base64 or hex blob is opaque to a reviewer but may decode
/// to instructions or a payload an agent is then told to decode and run. Memory is prose: two
/// object ids side by side (81 characters) are fine, a run of ≥ 128 hex digits or ≥ 120 base64
/// characters is not something a person wrote. Base64 must mix upper case, lower case and
/// digits (paths and snake_case names do not, and a path's segments are short), and is also
/// caught when wrapped over consecutive whole lines of ≥ 40 characters, as PEM and MIME wrap it.
pub(super) fn scan_blobs(text: &str, out: &mut Sink) {
    let b = text.as_bytes();
    let b64 = |c: &u8| c.is_ascii_alphanumeric() || b"+/=_-".contains(c);
    // Consecutive whole lines of base64: (start, total length, kinds seen, end of last line).
    let mut block: Option<(usize, usize, u8, usize)> = None;
    let mut reported_until = 0;
    let mut i = 0;
    while i < b.len() {
        let s = i;
        i = run_while(b, i, b.len(), |c| b64(&c));
        if i == s {
            i += 1;
            continue;
        }
        let run = &b[s..i];
        if run.len() < 40 {
            continue;
        }
        let kinds = run.iter().fold(0u8, |k, c| {
            k | u8::from(c.is_ascii_uppercase())
                | u8::from(c.is_ascii_lowercase()) << 1
                | u8::from(c.is_ascii_digit()) << 2
        });
        let segment = run
            .split(|&c| c == b'/')
            .map(<[u8]>::len)
            .max()
            .unwrap_or(0);
        let hex = run.len() >= 128 && run.iter().all(u8::is_ascii_hexdigit);
        if hex || (run.len() >= 120 && kinds == 7 && segment >= 24) {
            let what = if hex { "hex" } else { "base64" };
            out.note("encoded-blob", s, || {
                format!("{what} blob of {} characters", run.len())
            });
            reported_until = i;
        }
        let line_end = b
            .get(i..)
            .is_some_and(|r| r.is_empty() || r.starts_with(b"\n") || r.starts_with(b"\r\n"));
        if (s == 0 || b[s - 1] == b'\n') && line_end && run.len() >= 40 {
            let (start, len, k) = match block {
                Some((bs, bl, bk, last)) if s == last + 1 || s == last + 2 => {
                    (bs, bl + run.len(), bk | kinds)
                }
                _ => (s, run.len(), kinds),
            };
            block = Some((start, len, k, i));
            if len >= 120 && k == 7 && start >= reported_until {
                out.note("encoded-blob", start, || {
                    format!("base64 blob of {len}+ characters over several lines")
                });
                reported_until = i;
            }
        }
    }
}
