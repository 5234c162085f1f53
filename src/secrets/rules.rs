//! The rules: byte classes, candidate spans and their resolution, and one scanner per kind
//! of secret (vendor tokens, assignments, URL credentials, webhooks, private keys, entropy).

use super::data;
use super::*;
pub(super) use crate::bytes::{
    contains, contains_ci, ends_with_ci, run_while, skip_blanks, starts_with_ci,
};

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
pub(super) fn run_end(b: &[u8], i: usize, class: u8) -> usize {
    run_while(b, i, b.len(), |c| is(c, class))
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
    use std::cmp::Reverse;
    cands.sort_unstable_by_key(|c| (c.start, Reverse(c.end), Reverse(c.prio)));
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
// `key = value` assignments.

pub(super) use super::data::Field;

/// What the identifier `w` names when it is the key of an assignment: the first key list of
/// `data/words.txt` it ends with, or a `.env` short spelling.
pub(super) fn key_kind(w: &[u8]) -> Option<Field> {
    let words = data::words();
    // Most words end in a byte no key ends in: one probe (`s`, `d`, `w` end the short
    // `.env` spellings).
    let last = *w.last()?;
    if !(words.key_may_end_with(last) || matches!(last | 0x20, b's' | b'd' | b'w')) {
        return None;
    }
    for (i, &(_, field)) in data::KEY_LISTS.iter().enumerate() {
        if words.ends_with_key(i, w) {
            return Some(field);
        }
        // The short `.env` spellings rank after passwords, before secrets.
        if field == Field::Password && is_short_password_key(w) {
            return Some(Field::ShortPassword);
        }
    }
    None
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
    pub(super) start: usize,
    pub(super) end: usize,
    /// Where scanning resumes: past the closing quote for quoted values.
    pub(super) resume: usize,
    pub(super) quoted: bool,
}

/// Whether `val` (already known not to be a placeholder or, unquoted, code) is a value of a
/// key of kind `key`.
pub(super) fn value_ok(key: Field, val: &[u8], quoted: bool) -> bool {
    match key {
        Field::AwsSecret => val.len() >= 16,
        Field::Password | Field::Secret => val.len() >= if quoted { 1 } else { 4 },
        Field::ShortPassword => {
            val.len() >= if quoted { 1 } else { 4 } && (quoted || !is_number_or_choice(val))
        }
        Field::Token | Field::ApiKey => val.len() >= 8 && kind_count(val) >= 2,
    }
}

pub(super) fn assignment_rule(key: Field) -> &'static str {
    match key {
        Field::AwsSecret => "aws-secret-key",
        Field::Password | Field::ShortPassword => "password-assignment",
        Field::Secret => "secret-assignment",
        Field::Token => "token-assignment",
        Field::ApiKey => "api-key-assignment",
    }
}

pub(super) fn assignment_prio(key: Field) -> u8 {
    if key == Field::AwsSecret {
        P_VENDOR
    } else {
        P_ASSIGN
    }
}

/// `<password>S3cret</password>` (Maven's settings.xml, NuGet, Tomcat's users): the text of an
/// element named like a key, up to its closing tag on the same line.
pub(super) fn element_value(b: &[u8], s: usize, e: usize, key: Field) -> Option<Cand> {
    if s == 0 || b[s - 1] != b'<' || b.get(e) != Some(&b'>') {
        return None;
    }
    let name = &b[s..e];
    let from = e + 1;
    let limit = b.len().min(from + 512);
    let j = run_while(b, from, limit, |c| c != b'<' && c != b'\n');
    let closes = b[j..].starts_with(b"</")
        && b.get(j + 2..j + 2 + name.len()) == Some(name)
        && b.get(j + 2 + name.len()) == Some(&b'>');
    if !closes {
        return None;
    }
    let (vs, ve) = trim_blanks(b, from, j);
    let val = &b[vs..ve];
    (ve > vs && !is_placeholder(val) && value_ok(key, val, true))
        .then(|| cand(vs, ve, assignment_rule(key), assignment_prio(key)))
}

/// `[s, e)` without blanks at either end.
pub(super) fn trim_blanks(b: &[u8], s: usize, mut e: usize) -> (usize, usize) {
    let s = run_while(b, s, e, |c| c == b' ' || c == b'\t');
    while e > s && (b[e - 1] == b' ' || b[e - 1] == b'\t') {
        e -= 1;
    }
    (s, e)
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
    let key_quoted = i < b.len() && (b[i] == b'"' || b[i] == b'\'');
    if key_quoted {
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
        // psql's `:'variable'` after an unquoted key: a variable, not a value.
        b':' if !key_quoted && matches!(b.get(i + 1), Some(b'\'' | b'"')) => return None,
        b':' => {
            i += 1;
            true
        }
        _ => return None,
    };
    // Markdown emphasis around a label: **Password:** hunter2
    i = skip_blanks(b, run_while(b, i, b.len(), |c| c == b'*' || c == b'_'));
    let q = *b.get(i)?;
    if q == b'"' || q == b'\'' || q == b'`' {
        let start = i + 1;
        let j = run_while(b, start, b.len(), |c| c != q && c != b'\n');
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
    // `label: value` only counts when the value ends the line, as in YAML.
    let k = skip_blanks(b, j);
    let mid_line = colon && k < b.len() && !matches!(b[k], b'\n' | b'\r' | b'}');
    // An empty value is never a finding, but scanning still resumes past it.
    let end = if mid_line { start } else { j };
    Some(Value {
        start,
        end,
        resume: j,
        quoted: false,
    })
}

/// Values that stand for a secret without being one (see the module's allow-list).
pub(super) fn is_placeholder(v: &[u8]) -> bool {
    is_placeholder_shape(v) || is_dummy_word(v)
}

/// `v` is one of the `dummy-values` of `data/words.txt`, ASCII-case-insensitively.
pub(super) fn is_dummy_word(v: &[u8]) -> bool {
    v.len() <= 16 && data::words().has(data::List::Dummy, v)
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
    // `{DB_PASSWORD` (a template whose closing brace ended the value), `myPassword` (the
    // documentation's `myServer;User Id=myUser;Password=myPassword`).
    let ident =
        |s: &[u8]| !s.is_empty() && s.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'_');
    if first == b'{' && ident(&v[1..]) {
        return true;
    }
    if v.len() > 3
        && v.starts_with(b"my")
        && v[2].is_ascii_uppercase()
        && v[3..].iter().all(u8::is_ascii_alphabetic)
    {
        return true;
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

/// `redis-auth`, `db-password`: a lower-case name of letters joined by hyphens.
pub(super) fn is_resource_name(v: &[u8]) -> bool {
    v.contains(&b'-') && v.iter().all(|&c| c.is_ascii_lowercase() || c == b'-')
}

/// A variable: DB_PASSWORD from the environment, pw_hash in code.
pub(super) fn is_variable_name(v: &[u8]) -> bool {
    let shouty = |c: u8| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_';
    let snake = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_';
    v.first().is_some_and(u8::is_ascii_alphabetic)
        && v.contains(&b'_')
        && (v.iter().all(|&c| shouty(c)) || v.iter().all(|&c| snake(c)))
}
