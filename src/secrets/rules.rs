//! The rules: byte classes, candidate spans and their resolution, and one scanner per kind
//! of secret (vendor tokens, assignments, URL credentials, webhooks, private keys, entropy).

use super::*;
pub(super) use crate::bytes::{contains, contains_ci, ends_with_ci, skip_blanks, starts_with_ci};

// ---------------------------------------------------------------------------------------------
// Byte classes: a table lookup keeps every pass a tight loop without per-byte allocation.

pub(super) const UPPER: u8 = 1;
pub(super) const LOWER: u8 = 2;
pub(super) const DIGIT: u8 = 4;
pub(super) const HEX: u8 = 8;
/// `[A-Za-z0-9_-]`: the alphabet of almost every vendor token and of base64url.
pub(super) const WORD: u8 = 16;
/// `[A-Za-z0-9+/_-]`: base64 and base64url, without `=` so `key=value` does not glue together.
pub(super) const B64: u8 = 32;
/// Characters of an RFC 6750 bearer token (`b64token`).
pub(super) const BEARER: u8 = 64;
pub(super) const ALNUM: u8 = UPPER | LOWER | DIGIT;

pub(super) const fn classes() -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        let mut c = 0;
        if b.is_ascii_uppercase() {
            c |= UPPER | WORD | B64 | BEARER;
        }
        if b.is_ascii_lowercase() {
            c |= LOWER | WORD | B64 | BEARER;
        }
        if b.is_ascii_digit() {
            c |= DIGIT | WORD | B64 | BEARER;
        }
        if b.is_ascii_hexdigit() {
            c |= HEX;
        }
        if b == b'_' || b == b'-' {
            c |= WORD | B64 | BEARER;
        }
        if b == b'+' || b == b'/' {
            c |= B64 | BEARER;
        }
        if b == b'.' || b == b'~' || b == b'=' {
            c |= BEARER;
        }
        t[i] = c;
        i += 1;
    }
    t
}

pub(super) static CLASS: [u8; 256] = classes();

pub(super) fn is(b: u8, class: u8) -> bool {
    CLASS[b as usize] & class != 0
}

pub(super) fn all(s: &[u8], class: u8) -> bool {
    s.iter().all(|&b| is(b, class))
}

/// End of the run of `class` bytes starting at `i`.
pub(super) fn run_end(b: &[u8], mut i: usize, class: u8) -> usize {
    while i < b.len() && is(b[i], class) {
        i += 1;
    }
    i
}

/// Which of upper / lower / digit occur in `s`, as class bits.
pub(super) fn kinds(s: &[u8]) -> u8 {
    s.iter().fold(0, |k, &b| k | (CLASS[b as usize] & ALNUM))
}

pub(super) fn kind_count(s: &[u8]) -> u32 {
    kinds(s).count_ones()
}

// ---------------------------------------------------------------------------------------------
// Candidates and how overlaps resolve.

pub(super) struct Cand {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) rule: &'static str,
    /// Breaks ties between equal ranges: vendor shapes name the secret better than generic rules.
    prio: u8,
}

pub(super) const P_VENDOR: u8 = 90;
pub(super) const P_JWT: u8 = 80;
pub(super) const P_CONTEXT: u8 = 60;
pub(super) const P_ASSIGN: u8 = 50;
pub(super) const P_ENTROPY: u8 = 10;

pub(super) fn cand(start: usize, end: usize, rule: &'static str, prio: u8) -> Cand {
    Cand {
        start,
        end,
        rule,
        prio,
    }
}

/// Merges overlapping candidates into findings. A merged finding that takes part of a PEM
/// armor line (`armor`, see [`armor`]) is dropped unless a private key is in it: armor lines
/// are the private-key rule's, and a value that swallowed one would, once redacted, leave a
/// BEGIN without its END (or the reverse) and change what that rule sees. Whole findings are
/// dropped, not candidates, so no smaller candidate inside survives to be redacted and change
/// the larger one's extent.
pub(super) fn resolve(mut cands: Vec<Cand>, armor: &[(usize, usize)]) -> Vec<Finding> {
    cands.sort_unstable_by(|a, b| {
        (a.start, std::cmp::Reverse(a.end), std::cmp::Reverse(a.prio)).cmp(&(
            b.start,
            std::cmp::Reverse(b.end),
            std::cmp::Reverse(b.prio),
        ))
    });
    let mut out: Vec<Finding> = Vec::with_capacity(cands.len());
    let mut has_key = false;
    let keep = |f: &Finding, has_key: bool| has_key || !overlaps(armor, f.start, f.end);
    for c in cands {
        if let Some(last) = out.last_mut() {
            if c.start < last.end {
                // Merging rather than dropping keeps every flagged byte inside some finding.
                last.end = last.end.max(c.end);
                has_key |= c.rule == "private-key";
                continue;
            }
            if !keep(last, has_key) {
                out.pop();
            }
        }
        has_key = c.rule == "private-key";
        out.push(Finding {
            rule: c.rule,
            start: c.start,
            end: c.end,
        });
    }
    if out.last().is_some_and(|last| !keep(last, has_key)) {
        out.pop();
    }
    out
}

pub(super) const OPENAI_PREFIXES: &[&str] = &["sk-proj-", "sk-svcacct-", "sk-admin-", "sk-"];

/// How many leading bytes of a finding `redact` keeps: what the secret was, never its value.
/// `provider` is what the provider table keeps for its own rules.
pub(super) fn keep_len(rule: &str, v: &str, provider: Option<usize>) -> usize {
    let keep = match rule {
        "aws-access-key" | "google-api-key" => 4,
        "github-token" if v.starts_with("github_pat_") => 11,
        "github-token" => 4,
        "slack-webhook" => slack_webhook_keep(v),
        "stripe-key" => 8,
        "sendgrid-key" => 3,
        "twilio-api-key" => 2,
        "anthropic-key" => 7,
        "openai-key" => OPENAI_PREFIXES
            .iter()
            .find(|p| v.starts_with(*p))
            .map_or(0, |p| p.len()),
        "jwt" => 3,
        "private-key" => private_key_header_end(v.as_bytes(), 0).unwrap_or(0),
        _ => provider.unwrap_or(0),
    };
    if keep < v.len() && v.is_char_boundary(keep) {
        keep
    } else {
        0
    }
}

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
    let mut i = dot + 1;
    while i < limit && is(b[i], WORD) {
        i += 1;
    }
    let len = i - dot - 1;
    let ended = i == b.len() || !is(b[i], WORD);
    (ended && len >= min && len <= max).then_some(i)
}

/// `Bearer <token>`: the token is flagged, `Bearer ` stays to show it was an Authorization header.
pub(super) fn bearer_at(b: &[u8], s: usize, e: usize) -> Option<Cand> {
    if !b[s..e].eq_ignore_ascii_case(b"bearer") {
        return None;
    }
    let mut i = e;
    while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
        i += 1;
    }
    if i == e {
        return None;
    }
    let te = run_end(b, i, BEARER);
    let tok = &b[i..te];
    (tok.len() >= 16 && kind_count(tok) >= 2 && !is_placeholder(tok))
        .then(|| cand(i, te, "bearer-token", P_CONTEXT))
}

// ---------------------------------------------------------------------------------------------
// `key = value` assignments.

#[derive(Clone, Copy, PartialEq)]
pub(super) enum Field {
    AwsSecret,
    Password,
    /// `DB_PASS`, `SMTP_PWD`: also names of flags and constants, so numbers are not values.
    ShortPassword,
    Secret,
    Token,
    ApiKey,
}

pub(super) fn key_kind(w: &[u8]) -> Option<Field> {
    // Every key ends in d, e, t, y, n, s or w: a cheap first test for the common case of no key.
    if !matches!(
        w.last()?.to_ascii_lowercase(),
        b'd' | b'e' | b't' | b'y' | b'n' | b's' | b'w'
    ) {
        return None;
    }
    let ends = |list: &[&[u8]]| list.iter().any(|k| ends_with_ci(w, k));
    if ends(&[
        b"secret_access_key",
        b"secretaccesskey",
        b"secret-access-key",
    ]) {
        Some(Field::AwsSecret)
    } else if ends(&[b"password", b"passwd", b"passphrase"]) {
        Some(Field::Password)
    } else if is_short_password_key(w) {
        Some(Field::ShortPassword)
    } else if ends(&[b"secret", b"secret_key", b"secretkey", b"secret-key"]) {
        Some(Field::Secret)
    } else if ends(&[b"api_key", b"apikey", b"api-key"]) {
        Some(Field::ApiKey)
    } else if ends(&[b"token", b"access_key", b"accesskey", b"access-key"]) {
        Some(Field::Token)
    } else {
        None
    }
}

/// `.env` spellings: `DB_PASS`, `SMTP_PWD`, `rootPw`, a bare `pass`. The short word must be
/// its own part of the name (after `_`, `-`, `.` or a lower-case letter when it is
/// capitalised), so `bypass` and `compass` are not keys, and a bare `PWD` is the shell's
/// working directory, not a password.
pub(super) fn is_short_password_key(w: &[u8]) -> bool {
    [&b"pass"[..], b"pwd", b"pw"].iter().any(|&k| {
        if !ends_with_ci(w, k) {
            return false;
        }
        let at = w.len() - k.len();
        if at == 0 {
            return k == b"pass";
        }
        let before = w[at - 1];
        matches!(before, b'_' | b'-' | b'.')
            || (before.is_ascii_lowercase() && w[at].is_ascii_uppercase())
    })
}

/// `0x04`, `1024`, `true/false`: a constant or a list of choices, not a password.
fn is_number_or_choice(v: &[u8]) -> bool {
    let hex = v.len() > 2 && v[..2].eq_ignore_ascii_case(b"0x") && all(&v[2..], HEX);
    hex || all(v, DIGIT) || v.contains(&b'/') || v.contains(&b'|')
}

pub(super) struct Value {
    start: usize,
    end: usize,
    /// Where scanning resumes: past the closing quote for quoted values.
    resume: usize,
    quoted: bool,
}

/// One pass over the `[A-Za-z0-9_-]` words serves three rules: assignments (a key word and
/// its value), secrets stated in prose (a word such as `password` and what follows it) and
/// curl commands (the word `curl` and its arguments).
pub(super) fn scan_words(b: &[u8], out: &mut Vec<Cand>) {
    let mut i = 0;
    let mut prev = (0, 0);
    let mut command_end = 0;
    let mut unquoted = None;
    while i < b.len() {
        if !is(b[i], WORD) {
            i += 1;
            continue;
        }
        let e = run_end(b, i, WORD);
        let before = std::mem::replace(&mut prev, (i, e));
        out.extend(prose_at(b, i, e, &b[before.0..before.1]));
        if &b[i..e] == b"curl" && i >= command_end {
            command_end = scan_curl_at(b, e, out);
        }
        // `scheme://user:password@host` is a URL, which `url-credentials` reads properly.
        let in_url = b[..i].ends_with(b"://");
        let key = if in_url { None } else { key_kind(&b[i..e]) };
        i = e;
        let Some(key) = key else { continue };
        let Some(v) = value_after(b, e, &mut unquoted) else {
            continue;
        };
        // An unquoted value that is not a secret (code, a placeholder, too short) may still
        // hold one (`x=os.environ.get(y)&DB_PASS=…`), so the words inside it are read too:
        // skipping them would let a redaction before the key uncover them later. `unquoted`
        // remembers where the value ended, so keys inside it do not scan it again, which
        // keeps `password=password=…` linear.
        i = if v.quoted { v.resume } else { v.start }.max(e);
        let val = &b[v.start..v.end];
        if is_placeholder(val) || (!v.quoted && looks_like_code(val)) {
            continue;
        }
        let ok = match key {
            Field::AwsSecret => val.len() >= 16,
            Field::Password | Field::Secret => val.len() >= if v.quoted { 1 } else { 4 },
            Field::ShortPassword => {
                val.len() >= if v.quoted { 1 } else { 4 } && (v.quoted || !is_number_or_choice(val))
            }
            Field::Token | Field::ApiKey => val.len() >= 8 && kind_count(val) >= 2,
        };
        if ok {
            i = v.resume.max(e);
            let rule = match key {
                Field::AwsSecret => "aws-secret-key",
                Field::Password | Field::ShortPassword => "password-assignment",
                Field::Secret => "secret-assignment",
                Field::Token => "token-assignment",
                Field::ApiKey => "api-key-assignment",
            };
            let prio = if key == Field::AwsSecret {
                P_VENDOR
            } else {
                P_ASSIGN
            };
            out.push(cand(v.start, v.end, rule, prio));
        }
    }
}

/// The value of `key<sep>value` where `key` ends at `e`; `None` when no assignment follows.
/// `unquoted` is the last unquoted value read, (start, end): every position inside it has its
/// value end at the same place.
pub(super) fn value_after(
    b: &[u8],
    e: usize,
    unquoted: &mut Option<(usize, usize)>,
) -> Option<Value> {
    let mut i = e;
    if i < b.len() && (b[i] == b'"' || b[i] == b'\'') {
        i += 1; // closing quote of a quoted key: "password": "…"
    }
    i = skip_blanks(b, i);
    let colon = match b.get(i)? {
        b'=' if b.get(i + 1) == Some(&b'=') => return None, // a comparison, not an assignment
        b'=' => {
            i += if b.get(i + 1) == Some(&b'>') { 2 } else { 1 };
            false
        }
        b':' if b.get(i + 1) == Some(&b':') => return None, // a path such as token::Kind
        b':' if b.get(i + 1) == Some(&b'=') => {
            i += 2;
            false
        }
        b':' => {
            i += 1;
            true
        }
        _ => return None,
    };
    // Markdown emphasis around a label: **Password:** hunter2
    while i < b.len() && (b[i] == b'*' || b[i] == b'_') {
        i += 1;
    }
    i = skip_blanks(b, i);
    let q = *b.get(i)?;
    if q == b'"' || q == b'\'' || q == b'`' {
        let start = i + 1;
        let mut j = start;
        while j < b.len() && b[j] != q && b[j] != b'\n' {
            j += 1;
        }
        // An unclosed quote is the end of a string the key sat in (`input('Password: ')`),
        // not the start of a value.
        let closed = j < b.len() && b[j] == q;
        return (closed && j > start).then_some(Value {
            start,
            end: j,
            resume: j + 1,
            quoted: true,
        });
    }
    let start = i;
    let mut j = match *unquoted {
        Some((s, end)) if s <= i && i < end => end,
        _ => i,
    };
    while j < b.len()
        && !b[j].is_ascii_whitespace()
        && !matches!(
            b[j],
            b'"' | b'\'' | b'`' | b',' | b';' | b'&' | b')' | b']' | b'}'
        )
    {
        j += 1;
    }
    if j == start {
        return None;
    }
    *unquoted = Some((start, j));
    if colon {
        // `label: value` only counts when the value ends the line, as in YAML.
        let k = skip_blanks(b, j);
        if k < b.len() && !matches!(b[k], b'\n' | b'\r' | b'}') {
            // An empty value is never a finding, but scanning still resumes past it.
            return Some(Value {
                start,
                end: start,
                resume: j,
                quoted: false,
            });
        }
    }
    Some(Value {
        start,
        end: j,
        resume: j,
        quoted: false,
    })
}

/// Values that stand for a secret without being one (see the module's allow-list).
pub(super) fn is_placeholder(v: &[u8]) -> bool {
    is_placeholder_shape(v) || is_dummy_word(v)
}

/// `v` is one of [`DUMMY_VALUES`], ASCII-case-insensitively.
pub(super) fn is_dummy_word(v: &[u8]) -> bool {
    v.len() <= 11
        && DUMMY_VALUES
            .as_bytes()
            .split(|&c| c == b' ')
            .any(|d| v.eq_ignore_ascii_case(d))
}

/// Placeholders by their shape (`<…>`, `${…}`, `xxxx`, `…_here`), not by being a word.
pub(super) fn is_placeholder_shape(v: &[u8]) -> bool {
    let Some((&first, &last)) = v.first().zip(v.last()) else {
        return true;
    };
    if contains_ci(v, b"redacted") || contains_ci(v, b"example") {
        return true;
    }
    let wrapped = |o, c| first == o && last == c && v.len() >= 2;
    if wrapped(b'<', b'>') || wrapped(b'{', b'}') || wrapped(b'[', b']') || wrapped(b'%', b'%') {
        return true;
    }
    if first == b'$' {
        return true; // $VAR, ${VAR}, $(cmd): expanded at run time, not stored
    }
    if v.iter()
        .all(|c| matches!(c, b'x' | b'X' | b'*' | b'.' | b'#' | b'-' | b'_' | b'?'))
    {
        return true;
    }
    // Format strings: '%s:%s' % (user, password), f"{}".
    if contains(v, b"%s") || contains(v, b"%d") || contains(v, b"{}") {
        return true;
    }
    starts_with_ci(v, b"your") || ends_with_ci(v, b"_here") || ends_with_ci(v, b"-here")
}

/// Unquoted values that are code referring to a secret kept elsewhere.
pub(super) fn looks_like_code(v: &[u8]) -> bool {
    // Calls, indexing and generic types: getpass(), os.environ[…], Option<String>
    if v.iter().any(|c| matches!(c, b'(' | b'[' | b'<' | b'>')) {
        return true;
    }
    // Paths (`Pass::Shadow`, `crate::config::TOKEN`) and files holding the secret
    // (`/run/secrets/db_pass`, `~/.pgpass`).
    if contains(v, b"::") || v.starts_with(b"/") || v.starts_with(b"~/") || v.starts_with(b"./") {
        return true;
    }
    let ident = |s: &[u8]| {
        !s.is_empty()
            && (s[0].is_ascii_alphabetic() || s[0] == b'_')
            && s.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'_')
    };
    if v.contains(&b'.') && v.split(|&c| c == b'.').all(ident) {
        return true;
    }
    is_variable_name(v)
}

/// A variable: DB_PASSWORD from the environment, pw_hash in code.
pub(super) fn is_variable_name(v: &[u8]) -> bool {
    let shouty = |c: u8| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_';
    let snake = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_';
    v.first().is_some_and(u8::is_ascii_alphabetic)
        && v.contains(&b'_')
        && (v.iter().all(|&c| shouty(c)) || v.iter().all(|&c| snake(c)))
}

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
            if !pass.is_empty() && !is_placeholder(pass) && user != pass {
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
    // Labels are short ("ENCRYPTED PRIVATE KEY", "PGP PRIVATE KEY BLOCK"); the bound keeps
    // a run of BEGIN lines without closing dashes linear.
    let limit = b.len().min(label + 64);
    let mut j = label;
    while j < limit && b[j] != b'\n' && !b[j..].starts_with(b"-----") {
        j += 1;
    }
    let label = &b[label..j];
    // Real labels are upper-case words; anything else is not a PEM line, and `redact` keeps
    // this line, so it must never carry text of its own.
    let plain = label
        .iter()
        .all(|&c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b' ');
    (plain && j < limit && b[j..].starts_with(b"-----")).then_some((label, j + 5))
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
            Some(e) => {
                let limit = b.len().min(e + 8 + 64);
                let mut j = e + 8;
                while j < limit && b[j] != b'\n' && !b[j..].starts_with(b"-----") {
                    j += 1;
                }
                if j < limit && b[j..].starts_with(b"-----") {
                    j + 5
                } else {
                    j
                }
            }
            None => b.len(),
        };
        covered = end;
        out.push(cand(at, end, "private-key", 100));
    }
    public
}

// ---------------------------------------------------------------------------------------------
// Secrets stated in prose: "the password is hunter2x", "the API key for staging is …".

#[derive(Clone, Copy, PartialEq)]
pub(super) enum Said {
    Password,
    Token,
}

/// Words with digits that describe how a password is kept, not what it is.
pub(super) const PROSE_TECH_WORDS: &str = "argon2 argon2i argon2d argon2id pbkdf2 sha1 sha2 sha3 sha224 sha256 sha384 sha512 md4 md5 base32 base58 base64 utf8 utf-8 utf16 latin1 1password x509 ed25519 x25519 rsa2048 rsa4096 aes128 aes256 aes-128 aes-256 chacha20 poly1305 oauth2 http2 http3 ipv4 ipv6 fido2 webauthn2";

/// A secret stated in prose after the word `b[s..e]` (`before` is the word before it).
pub(super) fn prose_at(b: &[u8], s: usize, e: usize, before: &[u8]) -> Option<Cand> {
    let word = &b[s..e];
    // Cheap first test: every key word is 3, 5, 6, 8 or 10 letters and starts with k, p, s, t.
    if !matches!(word.len(), 3 | 5 | 6 | 8 | 10)
        || !matches!(word[0] | 0x20, b'k' | b'p' | b's' | b't')
    {
        return None;
    }
    let said = if ["password", "passwd", "passphrase", "passcode"]
        .iter()
        .any(|k| word.eq_ignore_ascii_case(k.as_bytes()))
    {
        Said::Password
    } else if word.eq_ignore_ascii_case(b"token")
        || word.eq_ignore_ascii_case(b"secret")
        || (word.eq_ignore_ascii_case(b"key")
            && ["api", "access", "secret", "signing", "license", "licence"]
                .iter()
                .any(|k| before.eq_ignore_ascii_case(k.as_bytes())))
    {
        Said::Token
    } else {
        return None;
    };
    prose_value(b, e, said)
}

/// The next word after `i` on the same line: (start, end), words being runs of non-blanks
/// of at most `longest` bytes (the bound keeps a text that is one long word linear).
fn next_word(b: &[u8], i: usize, longest: usize) -> Option<(usize, usize)> {
    let s = skip_blanks(b, i);
    let limit = b.len().min(s + longest + 1);
    let e = (s..limit)
        .find(|&j| b[j].is_ascii_whitespace())
        .unwrap_or(limit);
    (e > s && e - s <= longest).then_some((s, e))
}

/// Prepositions, verbs and adverbs are short words.
const GLUE: usize = 16;
/// The longest value a sentence states.
const STATED: usize = 256;

fn word_is(b: &[u8], (s, e): (usize, usize), list: &[&str]) -> bool {
    list.iter()
        .any(|w| b[s..e].eq_ignore_ascii_case(w.as_bytes()))
}

/// `<key word> [for|of|on|in|at|to|from <up to 3 words>] (is|was|remains|became|equals|:)
/// [now|still|currently|set to|changed to] <value>`: the value, when it looks like one.
pub(super) fn prose_value(b: &[u8], key_end: usize, said: Said) -> Option<Cand> {
    const PREPOSITIONS: &[&str] = &["for", "of", "on", "in", "at", "to", "from"];
    const VERBS: &[&str] = &["is", "was", "remains", "became", "equals", "is:", "was:"];
    const ADVERBS: &[&str] = &["now", "still", "currently", "just", "simply", "literally"];
    let mut at = key_end;
    if b.get(at) == Some(&b':') {
        at += 1; // "Password: hunter2x, user: admin"
    } else {
        let mut w = next_word(b, at, GLUE)?;
        let mut qualified = false;
        if word_is(b, w, PREPOSITIONS) {
            // "for the staging db": up to three words, then the verb or a colon.
            qualified = true;
            let mut n = 0;
            loop {
                w = next_word(b, w.1, GLUE)?;
                if word_is(b, w, VERBS) || b[w.1 - 1] == b':' {
                    break;
                }
                n += 1;
                if n > 3 {
                    return None;
                }
            }
        }
        // "is", "was:", or "for prod:" (a colon only after a qualifier: "password hint:" is
        // about something else).
        let colon = b[w.1 - 1] == b':' && w.1 - w.0 > 1;
        if !(word_is(b, w, VERBS) || (colon && qualified)) {
            return None;
        }
        at = w.1;
        // "is now", "is set to", "was changed to"
        if let Some(w) = next_word(b, at, GLUE) {
            let w = if word_is(b, w, ADVERBS) {
                at = w.1;
                next_word(b, at, GLUE)
            } else {
                Some(w)
            };
            if let Some(w) = w.filter(|&w| word_is(b, w, &["set", "changed", "reset"])) {
                let to = next_word(b, w.1, GLUE)?;
                if !word_is(b, to, &["to"]) {
                    return None;
                }
                at = to.1;
            }
        }
    }
    let s = skip_blanks(b, at);
    let q = *b.get(s)?;
    if q == b'"' || q == b'\'' || q == b'`' {
        let vs = s + 1;
        let ve = (vs..b.len().min(vs + 256)).find(|&j| b[j] == q || b[j] == b'\n')?;
        if b[ve] != q {
            return None;
        }
        let v = &b[vs..ve];
        let min = if said == Said::Password { 4 } else { 8 };
        let plain_word = v.iter().all(u8::is_ascii_lowercase) && v.len() < 8;
        let ok = v.len() >= min && !plain_word && !is_placeholder(v) && !looks_like_code(v);
        return ok.then(|| cand(vs, ve, "secret-in-prose", P_ASSIGN - 1));
    }
    let (vs, mut ve) = next_word(b, s, STATED)?;
    while ve > vs
        && matches!(
            b[ve - 1],
            b'.' | b',' | b';' | b':' | b'!' | b'?' | b')' | b']' | b'}' | b'"' | b'\''
        )
    {
        ve -= 1;
    }
    let v = &b[vs..ve];
    // Markup (":py:data:`bytes`", "**bold**") and sentences start with punctuation; values
    // start with a letter or digit.
    if v.len() < 6
        || !v[0].is_ascii_alphanumeric()
        || is_placeholder(v)
        || looks_like_code(v)
        || contains(v, b"://")
        || !v.is_ascii()
    {
        return None;
    }
    let ok = match said {
        Said::Password => {
            let letter = v.iter().any(u8::is_ascii_alphabetic);
            let other = v.iter().any(|c| !c.is_ascii_alphabetic());
            let tech = PROSE_TECH_WORDS
                .split(' ')
                .any(|t| v.eq_ignore_ascii_case(t.as_bytes()));
            // "argon2-hashed", "2FA-protected", "16-chars": a description, not a value.
            let described = v
                .split(|&c| c == b'-')
                .skip(1)
                .any(|part| part.len() >= 4 && part.iter().all(u8::is_ascii_lowercase));
            letter && other && !tech && !described
        }
        Said::Token => v.len() >= 16 && kind_count(v) >= 2,
    };
    ok.then(|| cand(vs, ve, "secret-in-prose", P_ASSIGN - 1))
}

// ---------------------------------------------------------------------------------------------
// curl commands: `-u user:password` and credential headers.

/// The end of the shell command starting at `from`: the end of its line, continued over
/// lines that end in a backslash, and at most 8 KB.
fn command_end(b: &[u8], from: usize) -> usize {
    let limit = b.len().min(from + 8192);
    let mut i = from;
    while i < limit {
        if b[i] == b'\n' {
            let mut k = i;
            if k > from && b[k - 1] == b'\r' {
                k -= 1;
            }
            if k > from && b[k - 1] == b'\\' {
                i += 1;
                continue;
            }
            return i;
        }
        i += 1;
    }
    limit
}

/// The shell words between `from` and `end`, as byte ranges with their quotes.
fn shell_words(b: &[u8], from: usize, end: usize) -> Vec<(usize, usize)> {
    let mut words = Vec::new();
    let mut i = from;
    while i < end {
        if b[i].is_ascii_whitespace()
            || (b[i] == b'\\' && i + 1 < end && b[i + 1].is_ascii_whitespace())
        {
            i += 1;
            continue;
        }
        let s = i;
        while i < end && !b[i].is_ascii_whitespace() {
            if b[i] == b'"' || b[i] == b'\'' {
                let q = b[i];
                i += 1;
                while i < end && b[i] != q {
                    i += 1;
                }
            }
            i = (i + 1).min(end);
        }
        words.push((s, i));
    }
    words
}

/// Inside a word's quotes, when it is one quoted string.
fn unquote(b: &[u8], s: usize, e: usize) -> (usize, usize) {
    if e >= s + 2 && (b[s] == b'"' || b[s] == b'\'') && b[e - 1] == b[s] {
        (s + 1, e - 1)
    } else {
        (s, e)
    }
}

/// The arguments of a curl command whose `curl` ends at `e`; returns where the command ends.
pub(super) fn scan_curl_at(b: &[u8], e: usize, out: &mut Vec<Cand>) -> usize {
    if !matches!(b.get(e), Some(b' ' | b'\t')) {
        return e;
    }
    let end = command_end(b, e);
    let words = shell_words(b, e, end);
    for (k, &(s, we)) in words.iter().enumerate() {
        let w = &b[s..we];
        let next = words.get(k + 1).map(|&(ns, ne)| unquote(b, ns, ne));
        let (user, header) = match w {
            b"-u" | b"--user" => (next, None),
            b"-H" | b"--header" => (None, next),
            _ if w.starts_with(b"--user=") => (Some(unquote(b, s + 7, we)), None),
            _ if w.starts_with(b"--header=") => (None, Some(unquote(b, s + 9, we))),
            _ if w.starts_with(b"-u") && w.len() > 2 && w[2] != b'-' => {
                (Some(unquote(b, s + 2, we)), None)
            }
            _ if w.starts_with(b"-H") && w.len() > 2 => (None, Some(unquote(b, s + 2, we))),
            _ => continue,
        };
        if let Some((vs, ve)) = user {
            out.extend(curl_user(b, vs, ve));
        }
        if let Some((vs, ve)) = header {
            out.extend(curl_header(b, vs, ve));
        }
    }
    end
}

/// `user:password`: the password, unless it is a placeholder or equals the user (a service
/// default such as `guest:guest`). Without a colon curl asks for the password.
fn curl_user(b: &[u8], s: usize, e: usize) -> Option<Cand> {
    let c = s + b[s..e].iter().position(|&x| x == b':')?;
    let (user, pass) = (&b[s..c], &b[c + 1..e]);
    // Only placeholders by shape: `-u admin:pass` is how people really call local services.
    let placeholder = is_placeholder_shape(pass);
    (!pass.is_empty() && !placeholder && user != pass && !contains(pass, b"$"))
        .then(|| cand(c + 1, e, "curl-auth-user", P_CONTEXT))
}

/// `Authorization: Basic|Token <value>` and `X-Api-Key:`-like headers. `Bearer` tokens are
/// the `bearer-token` rule's.
fn curl_header(b: &[u8], s: usize, e: usize) -> Option<Cand> {
    let c = s + b[s..e].iter().position(|&x| x == b':')?;
    let name = &b[s..c];
    let vs = skip_blanks(b, c + 1);
    if vs >= e {
        return None;
    }
    let (vs, min) = if name.eq_ignore_ascii_case(b"authorization") {
        let sp = (vs..e).find(|&j| b[j] == b' ');
        match sp {
            Some(sp) if b[vs..sp].eq_ignore_ascii_case(b"bearer") => return None,
            Some(sp) => (skip_blanks(b, sp), 8),
            None => (vs, 16),
        }
    } else {
        let lower = name.to_ascii_lowercase();
        let credential = ["key", "token", "secret", "apikey", "api-key", "auth"]
            .iter()
            .any(|k| lower.ends_with(k.as_bytes()));
        if !credential {
            return None;
        }
        (vs, 8)
    };
    let v = &b[vs..e];
    (v.len() >= min && kind_count(v) >= 2 && !is_placeholder(v) && !contains(v, b"$"))
        .then(|| cand(vs, e, "curl-auth-header", P_CONTEXT))
}

// ---------------------------------------------------------------------------------------------
// High-entropy strings.

/// The 1st percentile of the Shannon entropy (bits per char) of random base64 strings of each
/// length, measured over 20,000 samples per length: 99% of random keys clear the bar, while
/// CamelCase identifiers and paths of the same length fall 0.1–0.5 bits below it.
pub(super) const ENTROPY_FLOOR: &[(usize, f64)] = &[
    (32, 4.22),
    (36, 4.35),
    (40, 4.46),
    (48, 4.65),
    (56, 4.81),
    (64, 4.92),
    (80, 5.11),
    (100, 5.27),
    (128, 5.42),
    (200, 5.6),
];

pub(super) fn entropy_floor(n: usize) -> f64 {
    let mut prev = ENTROPY_FLOOR[0];
    for &(len, h) in ENTROPY_FLOOR {
        if n <= len {
            if len == prev.0 {
                return h;
            }
            let t = (n - prev.0) as f64 / (len - prev.0) as f64;
            return prev.1 + t * (h - prev.1);
        }
        prev = (len, h);
    }
    prev.1
}

pub(super) fn shannon(s: &[u8]) -> f64 {
    let mut counts = [0u32; 256];
    for &c in s {
        counts[c as usize] += 1;
    }
    let n = s.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * log2(p)
        })
        .sum()
}

/// `x.log2()` for a positive finite `x`, in plain Rust: `f64::log2` is libm's, and this is
/// the only function git-rune would load libm for, which every process (the post-commit
/// hook's included) would pay for at start (docs/performance.md). Accurate to the last bit
/// or two: `ln m = 2·atanh((m−1)/(m+1))` with the mantissa `m` in [√½, √2).
pub(super) fn log2(x: f64) -> f64 {
    const MANTISSA: u64 = (1 << 52) - 1;
    let (x, shift) = if x < f64::MIN_POSITIVE {
        (x * (1u64 << 54) as f64, -54)
    } else {
        (x, 0)
    };
    let bits = x.to_bits();
    let mut exponent = ((bits >> 52) & 0x7ff) as i32 - 1023 + shift;
    let mut m = f64::from_bits((bits & MANTISSA) | (1023 << 52));
    if m > std::f64::consts::SQRT_2 {
        m /= 2.0;
        exponent += 1;
    }
    let z = (m - 1.0) / (m + 1.0);
    let z2 = z * z;
    // |z| < 0.172: twelve terms of z + z³/3 + z⁵/5 + … are past f64 precision.
    let (mut term, mut atanh) = (z, 0.0);
    for k in 0..12 {
        atanh += term / f64::from(2 * k + 1);
        term *= z2;
    }
    f64::from(exponent) + 2.0 * atanh * std::f64::consts::LOG2_E
}

pub(super) fn scan_high_entropy(b: &[u8], public: &[(usize, usize)], out: &mut Vec<Cand>) {
    let mut public = public.iter().peekable();
    let mut i = 0;
    while i < b.len() {
        if !is(b[i], B64) {
            i += 1;
            continue;
        }
        let s = i;
        let e = run_end(b, i, B64);
        i = e;
        while public.next_if(|&&(_, pe)| pe <= s).is_some() {}
        let in_public_block = public.peek().is_some_and(|&&(ps, _)| ps <= s);
        if !in_public_block && !is_ssh_public_key(b, s) && looks_random(&b[s..e]) {
            // Trailing base64 padding belongs to the value.
            let mut end = e;
            while end < b.len() && end < e + 2 && b[end] == b'=' {
                end += 1;
            }
            out.push(cand(s, end, "high-entropy-string", P_ENTROPY));
        }
    }
}

/// `ssh-ed25519 AAAA…` / `ecdsa-sha2-nistp256 AAAA…`: an OpenSSH public key, meant to be shared.
pub(super) fn is_ssh_public_key(b: &[u8], s: usize) -> bool {
    if !b[s..].starts_with(b"AAAA") || s < 2 || b[s - 1] != b' ' {
        return false;
    }
    let mut k = s - 1;
    while k > 0 && is(b[k - 1], WORD | B64) && s - k < 40 {
        k -= 1;
    }
    let algo = &b[k..s - 1];
    algo.starts_with(b"ssh-") || algo.starts_with(b"ecdsa-")
}

pub(super) fn looks_random(run: &[u8]) -> bool {
    if run.starts_with(b"pk_live_") || run.starts_with(b"pk_test_") {
        return false; // Stripe publishable keys ship in web pages
    }
    if run.len() < 32 || run.iter().all(|&c| is(c, HEX) || c == b'-') {
        return false; // object ids, sha256 ids, UUIDs and other hex digests
    }
    if kind_count(run) < 3 {
        return false;
    }
    if run.contains(&b'/') {
        // A path: no segment is long and mixed like a key's. Random base64 rarely has long
        // stretches between slashes that are not themselves random-looking.
        let longest = run
            .split(|&c| c == b'/')
            .max_by_key(|s| s.len())
            .unwrap_or(run);
        if longest.len() < 16 || kind_count(longest) < 3 {
            return false;
        }
    }
    shannon(run) >= entropy_floor(run.len())
}
