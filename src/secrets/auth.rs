//! HTTP and registry credentials wherever they are written: `Basic <base64 of user:password>`,
//! `Authorization` header values in HTTP dumps, code and configs, a registry's `auth` (Docker's
//! config.json, npm's `_auth`, `npmAuthIdent`), and `.netrc` entries.
//!
//! A Basic credential is decoded, so the documentation's examples (`Aladdin:open sesame`,
//! `user:password`), a password equal to its user and placeholders stay allowed while any other
//! `user:password` is refused, however short.

use super::commands::{is_example_credential, is_stop_word};
use super::data::{self, List};
use super::rules::*;

/// Every rule that starts at a word of `b[s..e]` here. `unquoted` is `value_after`'s memory of
/// the last unquoted value (see there).
pub(super) fn scan_word(
    b: &[u8],
    s: usize,
    e: usize,
    unquoted: &mut Option<(usize, usize)>,
    out: &mut Vec<Cand>,
) {
    let w = &b[s..e];
    match w.len() {
        5 if w.eq_ignore_ascii_case(b"basic") => out.extend(basic_at(b, e)),
        7 if w == b"machine" || w == b"default" => out.extend(netrc_at(b, s, e)),
        _ => {}
    }
    if ends_with_ci(w, b"authorization") {
        out.extend(authorization_at(b, e));
    } else if s > 0 && matches!(b[s - 1], b'"' | b'\'') {
        out.extend(header_argument_at(b, s, e));
    }
    if is_registry_key(w) {
        if let Some(v) = value_after(b, e, unquoted) {
            out.extend(registry_value(b, v.start, v.end));
        }
    }
}

/// Decodes base64 (standard or URL-safe alphabet, padding optional); `None` when `s` is not
/// base64.
fn decode_base64(s: &[u8]) -> Option<Vec<u8>> {
    let s = s
        .strip_suffix(b"==")
        .or_else(|| s.strip_suffix(b"="))
        .unwrap_or(s);
    if s.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for &c in s {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        acc = acc << 6 | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

/// What a decoded credential says: `Some(true)` a real `user:password`, `Some(false)` an
/// allowed one (an example, a placeholder, a password equal to its user or empty), `None`
/// not a `user:password` at all.
fn decoded_credential(encoded: &[u8]) -> Option<bool> {
    let raw = decode_base64(encoded)?;
    let text = std::str::from_utf8(&raw).ok()?;
    if text.chars().any(char::is_control) {
        return None;
    }
    let (user, pass) = text.split_once(':')?;
    let (user, pass) = (user.as_bytes(), pass.as_bytes());
    let allowed = pass.is_empty()
        || user == pass
        || is_placeholder(pass)
        || is_example_credential(user, pass);
    Some(!allowed)
}

/// The base64 run at `i` (its `=` padding included): its end.
fn base64_end(b: &[u8], i: usize) -> usize {
    let j = run_end(b, i, B64);
    run_while(b, j, b.len().min(j + 2), |c| c == b'=')
}

/// `Basic <base64>` whose `basic` ends at `e`: the credential, when it decodes to a real
/// `user:password`. Wherever it stands: a header, nginx's `proxy_set_header`, a git
/// `http.extraHeader`, code building a request.
fn basic_at(b: &[u8], e: usize) -> Option<Cand> {
    if !matches!(b.get(e), Some(b' ' | b'\t')) {
        return None;
    }
    let vs = skip_blanks(b, e);
    let ve = base64_end(b, vs);
    if ve - vs < 8 || (ve < b.len() && is(b[ve], WORD)) {
        return None;
    }
    (decoded_credential(&b[vs..ve]) == Some(true))
        .then(|| cand(vs, ve, "basic-auth", P_CONTEXT + 1))
}

/// Schemes whose value is a handshake or a signature computed per request, not a reusable
/// credential (`Bearer` is the `bearer-token` rule's, `Basic` this module's).
const NOT_CREDENTIALS: &[&[u8]] = &[
    b"bearer",
    b"digest",
    b"negotiate",
    b"ntlm",
    b"aws4-hmac-sha256",
    b"hoba",
    b"mutual",
];

/// The value of an `Authorization` header whose name ends at `e`, in any syntax: `:` (HTTP,
/// YAML), `=`/`=>` (code, configs), `,` (`setRequestHeader("Authorization", "…")`), quoted or
/// not. `<scheme> <credential>` or a bare credential.
fn authorization_at(b: &[u8], e: usize) -> Option<Cand> {
    let mut i = e;
    if matches!(b.get(i), Some(b'"' | b'\'')) {
        i += 1;
    }
    i = skip_blanks(b, i);
    i += match b.get(i)? {
        b'=' if b.get(i + 1) == Some(&b'>') => 2,
        b':' | b'=' | b',' => 1,
        _ => return None,
    };
    i = skip_blanks(b, i);
    let quote = matches!(b.get(i), Some(b'"' | b'\'' | b'`')).then(|| b[i]);
    if quote.is_some() {
        i += 1;
    }
    let word_end = run_end(b, i, WORD);
    let (vs, min) = if word_end > i && b.get(word_end) == Some(&b' ') && word_end - i <= 32 {
        let scheme = &b[i..word_end];
        if NOT_CREDENTIALS
            .iter()
            .any(|n| scheme.eq_ignore_ascii_case(n))
        {
            return None;
        }
        let vs = skip_blanks(b, word_end);
        if scheme.eq_ignore_ascii_case(b"basic")
            && decoded_credential(&b[vs..base64_end(b, vs)]).is_some()
        {
            // A decodable credential is `basic_at`'s to judge (examples stay allowed).
            return None;
        }
        (vs, 8)
    } else {
        (i, 16)
    };
    let ve = run_while(b, vs, b.len(), |c| {
        (is(c, BEARER) || c == b':') && Some(c) != quote
    });
    if b.get(ve) == Some(&b'(') {
        return None; // `new AuthenticationHeaderValue(…)`: code building the value
    }
    if quote.is_some_and(|q| b.get(ve) != Some(&q)) && ve < b.len() && !b[ve].is_ascii_whitespace()
    {
        // `"Basic " + encode(…)`: the value is built, not written.
        return None;
    }
    let v = &b[vs..ve];
    (v.len() >= min && kind_count(v) >= 2 && !is_placeholder(v))
        .then(|| cand(vs, ve, "auth-header", P_CONTEXT))
}

/// `"X-Api-Key", "…"`: a credential header's value as the second argument of a call
/// (`setRequestHeader`, `headers.set`, `.header(…)`), both quoted. The name is `b[s..e]`, after
/// its opening quote.
fn header_argument_at(b: &[u8], s: usize, e: usize) -> Option<Cand> {
    let name = &b[s..e];
    let q = b[s - 1];
    if b.get(e) != Some(&q)
        || !name.contains(&b'-')
        || !data::words().ends_with(List::CredentialHeaders, name)
    {
        return None;
    }
    let mut i = skip_blanks(b, e + 1);
    if b.get(i) != Some(&b',') {
        return None;
    }
    i = skip_blanks(b, i + 1);
    let vq = *b.get(i)?;
    if vq != b'"' && vq != b'\'' {
        return None;
    }
    let vs = i + 1;
    let ve = vs
        + b[vs..]
            .iter()
            .take(512)
            .position(|&c| c == vq || c == b'\n')?;
    let v = &b[vs..ve];
    (b[ve] == vq && v.len() >= 8 && kind_count(v) >= 2 && !is_placeholder(v) && !contains(v, b"$"))
        .then(|| cand(vs, ve, "auth-header", P_CONTEXT))
}

/// Keys whose value is a registry's or a service's `user:password`, plain or base64: Docker's
/// `"auth"`, npm's `_auth` and `npmAuthIdent`, `basic_auth`.
fn is_registry_key(w: &[u8]) -> bool {
    w.eq_ignore_ascii_case(b"auth")
        || w.eq_ignore_ascii_case(b"_auth")
        || ends_with_ci(w, b"authident")
        || ends_with_ci(w, b"basicauth")
        || ends_with_ci(w, b"basic_auth")
        || ends_with_ci(w, b"basic-auth")
}

/// The value of a registry key: a `user:password` (base64 or plain) or an opaque token.
fn registry_value(b: &[u8], vs: usize, ve: usize) -> Option<Cand> {
    let v = &b[vs..ve];
    if v.is_empty() || is_placeholder(v) || looks_like_code(v) {
        return None;
    }
    let secret = match decoded_credential(v) {
        Some(real) => real,
        None => match v.iter().position(|&c| c == b':') {
            Some(c) => {
                let (user, pass) = (&v[..c], &v[c + 1..]);
                !pass.is_empty()
                    && user != pass
                    && !is_placeholder(pass)
                    && !is_example_credential(user, pass)
                    && !contains(pass, b"//")
            }
            None => v.len() >= 20 && all(v, B64 | BEARER) && kind_count(v) >= 2,
        },
    };
    secret.then(|| cand(vs, ve, "registry-auth", P_CONTEXT))
}

/// A `.netrc` entry whose `machine` (or `default`) is `b[s..e]`: `machine host login me
/// password S3cret` on one line or several. The password is the secret when the entry also
/// names a login, so prose that happens to say "machine" is not an entry.
fn netrc_at(b: &[u8], s: usize, e: usize) -> Option<Cand> {
    let limit = b.len().min(e + 1024);
    let token = |i: usize| -> Option<(usize, usize)> {
        let ts = run_while(b, i, limit, |c| c.is_ascii_whitespace());
        let te = run_while(b, ts, limit, |c| !c.is_ascii_whitespace());
        (te > ts).then_some((ts, te))
    };
    let mut i = e;
    if &b[s..e] == b"machine" {
        i = token(i)?.1; // the host
    }
    let (mut login, mut password) = (None, None);
    for _ in 0..4 {
        let Some((ks, ke)) = token(i) else { break };
        let Some((vs, ve)) = token(ke) else { break };
        match &b[ks..ke] {
            b"login" => login = Some(&b[vs..ve]),
            b"password" => password = Some((vs, ve)),
            b"account" | b"port" => {}
            _ => break,
        }
        i = ve;
    }
    let (user, (vs, mut ve)) = (login?, password?);
    // Prose quoting an entry: "`machine <host> login <user> password <password>`;".
    while ve > vs && matches!(b[ve - 1], b'`' | b';' | b',' | b'.' | b')' | b'"' | b'\'') {
        ve -= 1;
    }
    let v = &b[vs..ve];
    let ok = !is_placeholder(v) && v != user && !is_stop_word(v) && !contains(v, b"$");
    ok.then(|| cand(vs, ve, "netrc-password", P_CONTEXT))
}
