//! Keeps credentials out of the memory refs (refs get pushed): the one filter every write path runs, and the redaction behind `--redact`.
//!
//! [`scan`] says where secrets sit (rule name and byte range) so a caller can refuse a write
//! naming the rule and the line ([`line_of`]) without ever echoing the value. [`redact`] keeps
//! only a prefix that says what the secret was — never enough to use it — followed by
//! [`REDACTED`].
//!
//! # Rules
//!
//! | rule | shape | `redact` keeps |
//! |---|---|---|
//! | `aws-access-key` | `AKIA`/`ASIA` + 16 `[A-Z0-9]` | `AKIA` / `ASIA` |
//! | `aws-secret-key` | value of `aws_secret_access_key` / `secretAccessKey` (≥ 16 chars) | the `key = ` part |
//! | `github-token` | `ghp_` `gho_` `ghu_` `ghs_` `ghr_` + ≥ 30 alnum, `github_pat_` + ≥ 22 | `ghp_` … / `github_pat_` |
//! | `gitlab-token` | `glpat-` + ≥ 20 | `glpat-` |
//! | `slack-token` | `xoxb-` `xoxp-` `xoxa-` `xoxr-` `xoxs-` + ≥ 10, with a digit | `xoxb-` … |
//! | `slack-webhook` | `hooks.slack.com/services/` + ≥ 20 path chars | the URL up to `services/` |
//! | `stripe-key` | `sk_live_` `rk_live_` `sk_test_` `rk_test_` + ≥ 16 alnum | `sk_live_` … |
//! | `sendgrid-key` | `SG.` + 16–32 + `.` + 32–64 | `SG.` |
//! | `twilio-api-key` | `SK` + 32 hex | `SK` |
//! | `google-api-key` | `AIza` + 35 | `AIza` |
//! | `openai-key` | `sk-`, `sk-proj-`, `sk-svcacct-`, `sk-admin-` + ≥ 20 with upper, lower and digit | that prefix |
//! | `anthropic-key` | `sk-ant-` + ≥ 32 | `sk-ant-` |
//! | `private-key` | `-----BEGIN … PRIVATE KEY-----` with key material, through `-----END …-----` or to the end of the text | the BEGIN line |
//! | `jwt` | `eyJ…` (≥ 10) `.` (≥ 10) `.` (≥ 16) base64url segments | `eyJ` |
//! | `password-assignment` | `password` `passwd` `passphrase` `= : := =>` value | the `password=` part |
//! | `secret-assignment` | `secret` `secret_key` `client_secret` … | the `secret=` part |
//! | `token-assignment` | `token` `access_token` `access_key` … value of ≥ 8 chars mixing two of upper/lower/digit | the `token=` part |
//! | `api-key-assignment` | `api_key` `apikey` `api-key` … same value test as tokens | the `api_key=` part |
//! | `url-credentials` | the password in `scheme://user:password@host` | everything but the password |
//! | `bearer-token` | `Bearer` + ≥ 16 token chars mixing two of upper/lower/digit | `Bearer ` |
//! | `high-entropy-string` | ≥ 32 chars of `[A-Za-z0-9+/_-]` with upper, lower and digit, and Shannon entropy above the 1st percentile of random base64 of that length | nothing |
//!
//! Keys are matched case-insensitively at the end of an identifier (`DB_PASSWORD`, `dbPassword`,
//! `spring.datasource.password`, `"password":`), so prose that merely mentions passwords is not a
//! finding. A `:` separator with an unquoted value only counts when the value ends its line
//! (YAML `password: hunter2`), because prose ("the secret: it lives in vault") and type
//! annotations (`token: AccessToken,`) use colons too.
//! An unquoted value needs ≥ 4 characters (shorter ones are variable names like `pw`); a quoted
//! one only needs to be non-empty.
//!
//! # Allow-list (never findings)
//!
//! * Any value containing `EXAMPLE`: the AWS documentation keys `AKIAIOSFODNN7EXAMPLE` and
//!   `wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY` and the doc keys built like them.
//! * URL passwords equal to their user (`postgres://postgres:postgres@localhost`): service
//!   defaults, not secrets.
//! * Placeholders for assignment, URL and bearer values: `<password>`, `{{token}}`, `[token]`,
//!   `$VAR`, `${VAR}`, `$(cmd)`, `%VAR%`, values made only of `x X * . # - _ ?`, values starting
//!   with `your` or ending in `_here`/`-here`, anything containing `redacted` or `example`, and
//!   the words in [`DUMMY_VALUES`] (`changeme`, `password`, `test`, `none`, `true`, …).
//! * Code instead of a value (unquoted only): calls (`getpass()`), indexing (`os.environ[…]`),
//!   generic types (`Option<String>`), dotted paths (`args.password`, `settings.SECRET_KEY`),
//!   variable names with an underscore (`DB_PASSWORD`, `pw_hash`). So a real password spelt
//!   like a snake_case identifier is missed; quoting it makes it a finding again.
//! * Not secret by design: hex strings of any length (git object ids, sha256 ids, digests), UUIDs,
//!   Twilio account SIDs (`AC` + 32 hex: an account identifier, useless without the auth token,
//!   which the `token-assignment` rule catches as `auth_token=…`), Stripe publishable keys
//!   (`pk_live_…`: meant to ship in web pages), public PEM blocks (`-----BEGIN PUBLIC KEY-----`,
//!   `CERTIFICATE`) and OpenSSH public keys (`ssh-ed25519 AAAA…`), whose bodies would otherwise
//!   be high-entropy strings.
//!
//! # Overlaps and cost
//!
//! Rules may match overlapping text (`token=ghp_…` is both an assignment and a GitHub token).
//! The larger finding wins, ties go to the more specific rule, and partial overlaps are merged so
//! every byte any rule flagged is covered. Each rule is one forward pass that only looks ahead a
//! bounded distance or past text it then skips, so scanning is linear and allocates only per
//! finding. Every range starts and ends on an ASCII byte or the end of the text, so slicing at
//! them never splits a character.
//!
//! `scan(redact(t))` is empty (tested on arbitrary text). The one conceivable exception is a
//! `high-entropy-string` formed by what is left of a longer run after a vendor token inside it
//! was redacted, which needs the leftover alone to look random; it has not been seen.
//!
//! Known limits: a token glued to a longer word by `_` or `-` (`key_ghp_…`) is only caught by
//! the high-entropy rule; base32 and all-lower-case random strings are not high-entropy by
//! this definition; about 1% of random 32-character keys fall under the entropy floor (vendor
//! and assignment rules still see most of them). Share links whose ids are random
//! (`docs.google.com/document/d/1Bx…`) and SRI hashes (`sha384-…`) are flagged as high-entropy:
//! they are capabilities or look exactly like them.

/// The marker `redact` puts where a secret value was.
pub const REDACTED: &str = "***REDACTED***";

/// Every rule name `scan` can report, for documentation and tests.
pub const RULES: &[&str] = &[
    "aws-access-key",
    "aws-secret-key",
    "github-token",
    "gitlab-token",
    "slack-token",
    "slack-webhook",
    "stripe-key",
    "sendgrid-key",
    "twilio-api-key",
    "google-api-key",
    "openai-key",
    "anthropic-key",
    "private-key",
    "jwt",
    "password-assignment",
    "secret-assignment",
    "token-assignment",
    "api-key-assignment",
    "url-credentials",
    "bearer-token",
    "high-entropy-string",
];

/// Assignment and URL values that are placeholders people write in docs and configs (space
/// separated), compared case-insensitively with the whole value.
pub const DUMMY_VALUES: &str = "password passwd pass secret token changeme change_me changeit example dummy placeholder redacted test testing none null nil true false undefined empty required optional string value todo fixme foo bar foobar";

/// One secret found in a scanned text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Stable kebab-case rule name, used in error messages (see [`RULES`]).
    pub rule: &'static str,
    /// Start of the secret value in the scanned text (bytes, on a char boundary).
    pub start: usize,
    /// End (exclusive) of the secret value in the scanned text (bytes, on a char boundary).
    pub end: usize,
}

/// Finds secrets in `text`, never returning overlapping findings; sorted by start.
pub fn scan(text: &str) -> Vec<Finding> {
    let mut cands = Vec::new();
    scan_tokens(text.as_bytes(), &mut cands);
    scan_assignments(text.as_bytes(), &mut cands);
    scan_url_credentials(text, &mut cands);
    scan_slack_webhooks(text, &mut cands);
    let public = scan_pem_blocks(text, &mut cands);
    scan_high_entropy(text.as_bytes(), &public, &mut cands);
    // Documentation keys are allowed wherever they appear, whichever rule saw them.
    cands.retain(|c| !contains(&text.as_bytes()[c.start..c.end], b"EXAMPLE"));
    resolve(cands)
}

/// Replaces each finding with its prefix (enough to say what it was, never enough to use it)
/// followed by [`REDACTED`].
pub fn redact(text: &str) -> String {
    let findings = scan(text);
    if findings.is_empty() {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut pos = 0;
    for f in &findings {
        out.push_str(&text[pos..f.start]);
        let value = &text[f.start..f.end];
        out.push_str(&value[..keep_len(f.rule, value)]);
        out.push_str(REDACTED);
        pos = f.end;
    }
    out.push_str(&text[pos..]);
    out
}

/// The line number (1-based) of a byte offset, for error messages.
pub fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    1 + text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

// ---------------------------------------------------------------------------------------------
// Byte classes: a table lookup keeps every pass a tight loop without per-byte allocation.

const UPPER: u8 = 1;
const LOWER: u8 = 2;
const DIGIT: u8 = 4;
const HEX: u8 = 8;
/// `[A-Za-z0-9_-]`: the alphabet of almost every vendor token and of base64url.
const WORD: u8 = 16;
/// `[A-Za-z0-9+/_-]`: base64 and base64url, without `=` so `key=value` does not glue together.
const B64: u8 = 32;
/// Characters of an RFC 6750 bearer token (`b64token`).
const BEARER: u8 = 64;
const ALNUM: u8 = UPPER | LOWER | DIGIT;

const fn classes() -> [u8; 256] {
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

static CLASS: [u8; 256] = classes();

fn is(b: u8, class: u8) -> bool {
    CLASS[b as usize] & class != 0
}

fn all(s: &[u8], class: u8) -> bool {
    s.iter().all(|&b| is(b, class))
}

/// End of the run of `class` bytes starting at `i`.
fn run_end(b: &[u8], mut i: usize, class: u8) -> usize {
    while i < b.len() && is(b[i], class) {
        i += 1;
    }
    i
}

/// Which of upper / lower / digit occur in `s`, as class bits.
fn kinds(s: &[u8]) -> u8 {
    s.iter().fold(0, |k, &b| k | (CLASS[b as usize] & ALNUM))
}

fn kind_count(s: &[u8]) -> u32 {
    kinds(s).count_ones()
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

fn contains_ci(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle))
}

fn ends_with_ci(hay: &[u8], needle: &[u8]) -> bool {
    hay.len() >= needle.len() && hay[hay.len() - needle.len()..].eq_ignore_ascii_case(needle)
}

fn starts_with_ci(hay: &[u8], needle: &[u8]) -> bool {
    hay.len() >= needle.len() && hay[..needle.len()].eq_ignore_ascii_case(needle)
}

// ---------------------------------------------------------------------------------------------
// Candidates and how overlaps resolve.

struct Cand {
    start: usize,
    end: usize,
    rule: &'static str,
    /// Breaks ties between equal ranges: vendor shapes name the secret better than generic rules.
    prio: u8,
}

const P_VENDOR: u8 = 90;
const P_JWT: u8 = 80;
const P_CONTEXT: u8 = 60;
const P_ASSIGN: u8 = 50;
const P_ENTROPY: u8 = 10;

fn cand(start: usize, end: usize, rule: &'static str, prio: u8) -> Cand {
    Cand {
        start,
        end,
        rule,
        prio,
    }
}

fn resolve(mut cands: Vec<Cand>) -> Vec<Finding> {
    cands.sort_unstable_by(|a, b| {
        (a.start, std::cmp::Reverse(a.end), std::cmp::Reverse(a.prio)).cmp(&(
            b.start,
            std::cmp::Reverse(b.end),
            std::cmp::Reverse(b.prio),
        ))
    });
    let mut out: Vec<Finding> = Vec::with_capacity(cands.len());
    for c in cands {
        if let Some(last) = out.last_mut() {
            if c.start < last.end {
                // Merging rather than dropping keeps every flagged byte inside some finding.
                last.end = last.end.max(c.end);
                continue;
            }
        }
        out.push(Finding {
            rule: c.rule,
            start: c.start,
            end: c.end,
        });
    }
    out
}

const OPENAI_PREFIXES: &[&str] = &["sk-proj-", "sk-svcacct-", "sk-admin-", "sk-"];

/// How many leading bytes of a finding `redact` keeps: what the secret was, never its value.
fn keep_len(rule: &str, v: &str) -> usize {
    let keep = match rule {
        "aws-access-key" | "google-api-key" => 4,
        "github-token" if v.starts_with("github_pat_") => 11,
        "github-token" => 4,
        "gitlab-token" => 6,
        "slack-token" => 5,
        "slack-webhook" => v.find("/services/").map_or(0, |i| i + "/services/".len()),
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
        _ => 0,
    };
    if keep < v.len() && v.is_char_boundary(keep) {
        keep
    } else {
        0
    }
}

// ---------------------------------------------------------------------------------------------
// Vendor token shapes, checked once per `[A-Za-z0-9_-]` word at the word's start.

fn scan_tokens(b: &[u8], out: &mut Vec<Cand>) {
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

fn token_at(b: &[u8], s: usize, e: usize) -> Option<Cand> {
    let w = &b[s..e];
    // Every shape starts with one of these; most words are rejected here.
    if !matches!(w[0], b'A' | b'g' | b'x' | b's' | b'r' | b'S' | b'e') || w.len() < 2 {
        return None;
    }
    let vendor = |rule| Some(cand(s, e, rule, P_VENDOR));
    let aws = w.starts_with(b"AKIA") || w.starts_with(b"ASIA");
    if aws && w.len() == 20 && all(&w[4..], UPPER | DIGIT) {
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
    if w.starts_with(b"glpat-") && w.len() >= 6 + 20 {
        return vendor("gitlab-token");
    }
    if w.len() >= 5 + 10
        && w.starts_with(b"xox")
        && matches!(w[3], b'b' | b'p' | b'a' | b'r' | b's')
        && w[4] == b'-'
        && kinds(&w[5..]) & DIGIT != 0
    {
        return vendor("slack-token");
    }
    for p in [b"sk_live_", b"rk_live_", b"sk_test_", b"rk_test_"] {
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
fn segment(b: &[u8], dot: usize, min: usize, max: usize) -> Option<usize> {
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
fn bearer_at(b: &[u8], s: usize, e: usize) -> Option<Cand> {
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
enum Field {
    AwsSecret,
    Password,
    Secret,
    Token,
    ApiKey,
}

fn key_kind(w: &[u8]) -> Option<Field> {
    // Every key ends in d, e, t, y or n: a cheap first test for the common case of no key.
    if !matches!(
        w.last()?.to_ascii_lowercase(),
        b'd' | b'e' | b't' | b'y' | b'n'
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

struct Value {
    start: usize,
    end: usize,
    /// Where scanning resumes: past the closing quote for quoted values.
    resume: usize,
    quoted: bool,
}

fn scan_assignments(b: &[u8], out: &mut Vec<Cand>) {
    let mut i = 0;
    while i < b.len() {
        if !is(b[i], WORD) {
            i += 1;
            continue;
        }
        let e = run_end(b, i, WORD);
        // `scheme://user:password@host` is a URL, which `url-credentials` reads properly.
        let in_url = b[..i].ends_with(b"://");
        let key = if in_url { None } else { key_kind(&b[i..e]) };
        i = e;
        let Some(key) = key else { continue };
        let Some(v) = value_after(b, e) else { continue };
        // Resuming after the value, accepted or not, keeps `password=password=…` linear.
        i = v.resume.max(e);
        let val = &b[v.start..v.end];
        if is_placeholder(val) || (!v.quoted && looks_like_code(val)) {
            continue;
        }
        let ok = match key {
            Field::AwsSecret => val.len() >= 16,
            Field::Password | Field::Secret => val.len() >= if v.quoted { 1 } else { 4 },
            Field::Token | Field::ApiKey => val.len() >= 8 && kind_count(val) >= 2,
        };
        if ok {
            let rule = match key {
                Field::AwsSecret => "aws-secret-key",
                Field::Password => "password-assignment",
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

fn skip_blanks(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
        i += 1;
    }
    i
}

/// The value of `key<sep>value` where `key` ends at `e`; `None` when no assignment follows.
fn value_after(b: &[u8], e: usize) -> Option<Value> {
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
        let resume = if j < b.len() && b[j] == q { j + 1 } else { j };
        return (j > start).then_some(Value {
            start,
            end: j,
            resume,
            quoted: true,
        });
    }
    let start = i;
    let mut j = i;
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
fn is_placeholder(v: &[u8]) -> bool {
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
    if starts_with_ci(v, b"your") || ends_with_ci(v, b"_here") || ends_with_ci(v, b"-here") {
        return true;
    }
    DUMMY_VALUES
        .split(' ')
        .any(|d| v.eq_ignore_ascii_case(d.as_bytes()))
}

/// Unquoted values that are code referring to a secret kept elsewhere.
fn looks_like_code(v: &[u8]) -> bool {
    // Calls, indexing and generic types: getpass(), os.environ[…], Option<String>
    if v.iter().any(|c| matches!(c, b'(' | b'[' | b'<' | b'>')) {
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
    // A variable: DB_PASSWORD from the environment, pw_hash in code.
    let shouty = |c: u8| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_';
    let snake = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_';
    v[0].is_ascii_alphabetic()
        && v.contains(&b'_')
        && (v.iter().all(|&c| shouty(c)) || v.iter().all(|&c| snake(c)))
}

// ---------------------------------------------------------------------------------------------
// Shapes found by a fixed anchor string.

fn find_all<'a>(text: &'a str, needle: &'a str) -> impl Iterator<Item = usize> + 'a {
    let mut from = 0;
    std::iter::from_fn(move || {
        let at = from + text.get(from..)?.find(needle)?;
        from = at + needle.len();
        Some(at)
    })
}

/// `scheme://user:password@host`: the password is the secret, the user and host are context.
fn scan_url_credentials(text: &str, out: &mut Vec<Cand>) {
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

fn scan_slack_webhooks(text: &str, out: &mut Vec<Cand>) {
    let b = text.as_bytes();
    const HOST: &str = "hooks.slack.com/services/";
    for at in find_all(text, HOST) {
        let path = at + HOST.len();
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

/// The label and end of a `-----BEGIN <label>-----` line starting at `i`.
fn pem_header(b: &[u8], i: usize) -> Option<(&[u8], usize)> {
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

/// End of a `-----BEGIN … PRIVATE KEY-----` line starting at `i`.
fn private_key_header_end(b: &[u8], i: usize) -> Option<usize> {
    pem_header(b, i).and_then(|(label, end)| contains(label, b"PRIVATE KEY").then_some(end))
}

/// Finds private key blocks; returns the ranges of public PEM blocks (certificates, public
/// keys), whose base64 bodies are high-entropy but not secret.
fn scan_pem_blocks(text: &str, out: &mut Vec<Cand>) -> Vec<(usize, usize)> {
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
// High-entropy strings.

/// The 1st percentile of the Shannon entropy (bits per char) of random base64 strings of each
/// length, measured over 20,000 samples per length: 99% of random keys clear the bar, while
/// CamelCase identifiers and paths of the same length fall 0.1–0.5 bits below it.
const ENTROPY_FLOOR: &[(usize, f64)] = &[
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

fn entropy_floor(n: usize) -> f64 {
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

fn shannon(s: &[u8]) -> f64 {
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
            -p * p.log2()
        })
        .sum()
}

fn scan_high_entropy(b: &[u8], public: &[(usize, usize)], out: &mut Vec<Cand>) {
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
fn is_ssh_public_key(b: &[u8], s: usize) -> bool {
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

fn looks_random(run: &[u8]) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const UPPER_DIGITS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    const ALNUM_CHARS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    const URLSAFE: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
    const BASE64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const HEX_CHARS: &str = "0123456789abcdef";

    /// Deterministic pseudo-random text: fake secrets are assembled at run time, so no literal
    /// secret sits in the source for push-protection scanners to flag.
    fn noise(seed: u64, len: usize, alphabet: &str) -> String {
        let a = alphabet.as_bytes();
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                a[(x % a.len() as u64) as usize] as char
            })
            .collect()
    }

    /// Like `noise`, but sure to hold an upper-case letter, a lower-case letter and a digit.
    fn mixed(seed: u64, len: usize, alphabet: &str) -> String {
        format!("Kq7{}", noise(seed, len - 3, alphabet))
    }

    fn cat(parts: &[&str]) -> String {
        parts.concat()
    }

    fn private_key_block(label: &str, seed: u64, end: bool) -> String {
        let body: Vec<String> = (0..4).map(|i| mixed(seed + i, 64, BASE64)).collect();
        let mut s = cat(&[
            "-----BEGIN ",
            label,
            " PRIVATE",
            " KEY-----\n",
            &body.join("\n"),
        ]);
        if end {
            s += &cat(&["\n-----END ", label, " PRIVATE", " KEY-----"]);
        }
        s
    }

    fn jwt(seed: u64) -> String {
        cat(&[
            "ey",
            "JhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.",
            "ey",
            &mixed(seed, 40, URLSAFE),
            ".",
            &mixed(seed + 1, 43, URLSAFE),
        ])
    }

    /// (expected rule, line, the secret value inside the line).
    fn dirty() -> Vec<(&'static str, String, String)> {
        let mut v: Vec<(&'static str, String, String)> = Vec::new();
        let mut add = |rule, before: &str, secret: String, after: &str| {
            v.push((rule, cat(&[before, &secret, after]), secret));
        };
        add(
            "aws-access-key",
            "aws_access_key_id = ",
            cat(&["AK", "IA", &noise(1, 16, UPPER_DIGITS)]),
            "",
        );
        add(
            "aws-access-key",
            "creds: ",
            cat(&["AS", "IA", &noise(2, 16, UPPER_DIGITS)]),
            " (session)",
        );
        add(
            "aws-secret-key",
            "aws_secret_access_key = ",
            mixed(3, 40, BASE64),
            "",
        );
        add(
            "aws-secret-key",
            "secretAccessKey: \"",
            mixed(4, 40, BASE64),
            "\"",
        );
        add(
            "github-token",
            "export GITHUB_TOKEN=",
            cat(&["gh", "p_", &mixed(5, 36, ALNUM_CHARS)]),
            "",
        );
        add(
            "github-token",
            "used ",
            cat(&["gh", "o_", &mixed(6, 36, ALNUM_CHARS)]),
            " for oauth",
        );
        add(
            "github-token",
            "",
            cat(&["github", "_pat_", &mixed(7, 82, "abcXYZ019_")]),
            "",
        );
        add(
            "gitlab-token",
            "GITLAB ",
            cat(&["gl", "pat-", &mixed(8, 20, URLSAFE)]),
            "",
        );
        add(
            "slack-token",
            "bot: ",
            cat(&[
                "xo",
                "xb-",
                "2048123456-1234567890123-",
                &mixed(9, 24, ALNUM_CHARS),
            ]),
            "",
        );
        add(
            "slack-token",
            "",
            cat(&[
                "xo",
                "xp-",
                "2048123456-2048123456-",
                &mixed(10, 32, ALNUM_CHARS),
            ]),
            "",
        );
        add(
            "slack-webhook",
            "notify ",
            cat(&[
                "https://hooks.slack.com/services/",
                "T0",
                &noise(11, 8, UPPER_DIGITS),
                "/B0",
                &noise(12, 8, UPPER_DIGITS),
                "/",
                &mixed(13, 24, ALNUM_CHARS),
            ]),
            " on deploy",
        );
        add(
            "stripe-key",
            "STRIPE=",
            cat(&["sk", "_live_", &mixed(14, 24, ALNUM_CHARS)]),
            "",
        );
        add(
            "stripe-key",
            "restricted ",
            cat(&["rk", "_live_", &mixed(15, 24, ALNUM_CHARS)]),
            "",
        );
        add(
            "stripe-key",
            "tests use ",
            cat(&["sk", "_test_", &mixed(16, 24, ALNUM_CHARS)]),
            "",
        );
        add(
            "sendgrid-key",
            "mail via ",
            cat(&[
                "S",
                "G.",
                &mixed(17, 22, URLSAFE),
                ".",
                &mixed(18, 43, URLSAFE),
            ]),
            "",
        );
        add(
            "twilio-api-key",
            "twilio ",
            cat(&["S", "K", &noise(19, 32, HEX_CHARS)]),
            "",
        );
        add(
            "google-api-key",
            "maps key ",
            cat(&["AI", "za", &mixed(20, 35, URLSAFE)]),
            "",
        );
        add(
            "openai-key",
            "OPENAI_API_KEY=",
            cat(&["sk", "-proj-", &mixed(21, 100, URLSAFE)]),
            "",
        );
        add(
            "openai-key",
            "old key ",
            cat(&["sk", "-", &mixed(22, 48, ALNUM_CHARS)]),
            "",
        );
        add(
            "anthropic-key",
            "ANTHROPIC_API_KEY=",
            cat(&["sk", "-ant-api03-", &mixed(23, 93, URLSAFE)]),
            "",
        );
        add(
            "private-key",
            "key:\n",
            private_key_block("RSA", 24, true),
            "\nend",
        );
        add(
            "private-key",
            "",
            private_key_block("OPENSSH", 25, true),
            "",
        );
        add(
            "private-key",
            "pasted: ",
            private_key_block("EC", 26, false),
            "",
        );
        add("jwt", "session=", jwt(27), "; Path=/");
        add("jwt", "Authorization: Bearer ", jwt(28), "");
        add(
            "password-assignment",
            "db_password: \"",
            "s3cr3t-v4lue".into(),
            "\"",
        );
        add(
            "password-assignment",
            "PGPASSWORD=",
            "Tr0ub4dor".into(),
            " psql",
        );
        add("password-assignment", "password: ", "hunter2".into(), "\n");
        add(
            "password-assignment",
            "{\"password\":\"",
            "correct horse".into(),
            "\"}",
        );
        add(
            "password-assignment",
            "**Password:** ",
            "opensesame".into(),
            "",
        );
        add(
            "secret-assignment",
            "client_secret=",
            mixed(29, 24, ALNUM_CHARS),
            "&grant_type=x",
        );
        add(
            "secret-assignment",
            "JWT_SECRET = '",
            "dev-signing-key".into(),
            "'",
        );
        add(
            "token-assignment",
            "auth_token: \"",
            noise(30, 32, HEX_CHARS),
            "\"",
        );
        add(
            "token-assignment",
            "NPM_TOKEN=",
            cat(&["npm", "_", &mixed(31, 36, ALNUM_CHARS)]),
            "",
        );
        add(
            "api-key-assignment",
            "apiKey: '",
            mixed(32, 32, ALNUM_CHARS),
            "'",
        );
        add("api-key-assignment", "X-Api-Key=", "live7Q2kd9".into(), "");
        add(
            "url-credentials",
            "DATABASE_URL=postgres://app:",
            "Zr8-kP2q".into(),
            "@db.internal:5432/app",
        );
        add(
            "url-credentials",
            "redis://:",
            "n0tHunter".into(),
            "@cache:6379/0",
        );
        add(
            "url-credentials",
            "clone https://deploy:",
            "w1nter2024".into(),
            "@git.example.org/x.git",
        );
        add(
            "bearer-token",
            "curl -H 'Authorization: Bearer ",
            mixed(33, 40, ALNUM_CHARS),
            "' api",
        );
        add(
            "bearer-token",
            "bearer ",
            cat(&["Zm9v", &mixed(34, 20, URLSAFE), "~.x"]),
            "",
        );
        add(
            "high-entropy-string",
            "cache signing key ",
            mixed(35, 44, BASE64),
            " (rotated)",
        );
        add("high-entropy-string", "", mixed(36, 64, URLSAFE), "");
        v
    }

    /// Engineering lines that must never be refused as secrets.
    const CLEAN: &[&str] = &[
        "Decision: store memory under refs/rune/ so it travels with git push and fetch.",
        "Learned: gix ref transactions need the expected old value for compare-and-swap.",
        "fix(view): keep unsaved edits when checking out (9481bba0c4ffe1e5e0f2f4a3f9c8d7e6b5a4c3b2)",
        "record id 3f79bb7b435b05321651daefd374cdc681dc06faa65e374e38337b88ca046dea",
        "session 550e8400-e29b-41d4-a716-446655440000 resumed after compaction",
        "See https://github.com/rust-lang/rust/issues/12345 and https://docs.rs/gix/latest/gix/",
        "ssh://git@github.com/acme/widgets.git is the canonical remote",
        "src/commands/load.rs renders the checkpoint before open tasks",
        "tests/it/drift_graph.rs covers HEAD ahead/behind counting",
        "The password reset flow sends a token by mail; tokens expire after 15 minutes.",
        "Never log the api key; read it from the environment at startup.",
        "password=<password> in .env.example is a placeholder, fill it locally",
        "password: ${DB_PASSWORD}",
        "DB_PASSWORD=changeme for the docker-compose dev stack",
        "secret: none",
        "is_secret=false marks public settings",
        "max_tokens=4096 keeps the completion bounded",
        "when token=EOF the lexer stops",
        "api_key=os.environ['API_KEY'] in settings.py",
        "password=getpass() prompts instead of storing",
        "connect(user=u, password=args.password)",
        "Use a Bearer token from `gh auth token`; never paste it here.",
        "Authorization: Bearer $GITHUB_TOKEN",
        "postgres://user:${PGPASS}@localhost/app for local runs",
        "AKIAIOSFODNN7EXAMPLE is the documented example access key id",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "The ghp_ prefix marks a GitHub personal access token.",
        "sk-learn is not a key; scikit-learn is imported as sklearn.",
        "Twilio account sid AC0123456789abcdef0123456789abcdef is not secret on its own.",
        "Publishable key prefix pk_live_ is fine to ship in the browser bundle.",
        "AbstractSingletonProxyFactoryBean2 is the worst class name in the codebase",
        "src/main/java/com/acme/billing/InvoiceReconciliationServiceV2Impl.java",
        "refs/rune/branches/feature/add-2fa-login-flow keeps per-branch state",
        "x86_64-unknown-linux-gnu/release/deps/git_rune-0123abcd is the build output",
        "sha512 digest cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e",
        "-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY----- is the PEM shape",
        "-----BEGIN PUBLIC KEY----- blocks are fine to commit",
        "JWTs start with eyJ because base64 of {\" is eyJ.",
        "Café au lait, naïve façade, 日本語のメモ, emoji 👩‍💻 are fine.",
        "passwd: files systemd",
        "The secret: it lives in the vault, not here.",
        "git log --notes=rune shows Rune-Memory: trailers",
        "export DATABASE_URL=postgres://postgres:postgres@localhost:5432/dev",
        "https://example.com/a?page=2&sort=desc#top and mailto:dev@example.com",
        "let password = read_password()?; let token = tokens.next();",
        "    token: Option<String>,",
        "    secret: SecretString,",
        "let password = pw_hash;",
        "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}",
        "Change-Id: I8473b95934b5732ac55d26311a706c9c2bde9940",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl deploy@ci",
    ];

    fn covers(findings: &[Finding], rule: &str, text: &str, secret: &str) -> bool {
        let at = text.find(secret).expect("secret in its line");
        findings
            .iter()
            .any(|f| f.rule == rule && f.start <= at && at + secret.len() <= f.end)
    }

    #[test]
    fn corpus_has_no_false_positives_or_negatives() {
        let dirty = dirty();
        let fp: Vec<_> = CLEAN.iter().filter(|l| !scan(l).is_empty()).collect();
        let fneg: Vec<_> = dirty
            .iter()
            .filter(|(rule, line, secret)| !covers(&scan(line), rule, line, secret))
            .map(|(rule, line, _)| (rule, line, scan(line)))
            .collect();
        println!(
            "secrets corpus: {} clean, {} dirty; false-positive rate {:.3}, false-negative rate {:.3}",
            CLEAN.len(),
            dirty.len(),
            fp.len() as f64 / CLEAN.len() as f64,
            fneg.len() as f64 / dirty.len() as f64
        );
        assert!(CLEAN.len() >= 30 && dirty.len() >= 30);
        assert!(fp.is_empty(), "false positives: {fp:#?}");
        assert!(fneg.is_empty(), "false negatives: {fneg:#?}");
        let rules: std::collections::BTreeSet<_> = dirty.iter().map(|d| d.0).collect();
        assert_eq!(rules.len(), RULES.len(), "every rule has a dirty sample");
    }

    #[test]
    fn corpus_secrets_never_survive_redaction() {
        for (rule, line, secret) in dirty() {
            let red = redact(&line);
            assert!(!red.contains(&secret), "{rule}: {red}");
            assert!(red.contains(REDACTED), "{rule}: {red}");
            assert!(
                scan(&red).is_empty(),
                "{rule}: rescan of {red}: {:?}",
                scan(&red)
            );
        }
    }

    fn rules_in(text: &str) -> Vec<&'static str> {
        scan(text).into_iter().map(|f| f.rule).collect()
    }

    /// One positive and one negative test per rule, each named after it.
    macro_rules! rule_tests {
        ($($name:ident: $rule:literal, pos: $pos:expr, neg: $neg:expr;)*) => {$(
            mod $name {
                use super::*;
                #[test]
                fn positive() {
                    let text: String = $pos;
                    assert_eq!(rules_in(&text), vec![$rule], "{text}");
                }
                #[test]
                fn negative() {
                    let text: String = $neg;
                    assert_eq!(rules_in(&text), Vec::<&str>::new(), "{text}");
                }
            }
        )*
            #[test]
            fn every_rule_has_tests() {
                let tested = [$($rule),*];
                for rule in RULES {
                    assert!(tested.contains(rule), "{rule} has no tests");
                }
            }
        };
    }

    rule_tests! {
        aws_access_key: "aws-access-key",
            pos: cat(&["id=", "AK", "IA", &noise(40, 16, UPPER_DIGITS)]),
            neg: cat(&["AKIAIOSFODNN7EXAMPLE and ", "AK", "IA", &noise(41, 15, UPPER_DIGITS)]);
        aws_secret_key: "aws-secret-key",
            pos: cat(&["AWS_SECRET_ACCESS_KEY=", &mixed(42, 40, BASE64)]),
            neg: "aws_secret_access_key = ${AWS_SECRET_ACCESS_KEY}".into();
        github_token: "github-token",
            pos: cat(&["token ", "gh", "s_", &mixed(43, 36, ALNUM_CHARS)]),
            neg: "ghp_ tokens and gh-pages; ghp_short".into();
        gitlab_token: "gitlab-token",
            pos: cat(&["gl", "pat-", &mixed(44, 20, URLSAFE)]),
            neg: "glpat-short is not long enough".into();
        slack_token: "slack-token",
            pos: cat(&["xo", "xa-", "2048123456-", &mixed(45, 24, ALNUM_CHARS)]),
            neg: "xoxb-tokens-are-bot-tokens".into();
        slack_webhook: "slack-webhook",
            pos: cat(&["https://hooks.slack.com/services/", "T0AB/B0CD/", &mixed(46, 24, ALNUM_CHARS)]),
            neg: "post to https://hooks.slack.com/services/ (T/B/x)".into();
        stripe_key: "stripe-key",
            pos: cat(&["sk", "_live_", &mixed(47, 24, ALNUM_CHARS)]),
            neg: cat(&["sk_live_short and ", "pk", "_live_", &mixed(61, 99, ALNUM_CHARS)]);
        sendgrid_key: "sendgrid-key",
            pos: cat(&["S", "G.", &mixed(48, 22, URLSAFE), ".", &mixed(49, 43, URLSAFE)]),
            neg: "SG.short.parts and SG.x".into();
        twilio_api_key: "twilio-api-key",
            pos: cat(&["S", "K", &noise(50, 32, HEX_CHARS)]),
            neg: cat(&["AC", &noise(51, 32, HEX_CHARS), " and SK", &noise(52, 31, HEX_CHARS)]);
        google_api_key: "google-api-key",
            pos: cat(&["AI", "za", &mixed(53, 35, URLSAFE)]),
            neg: "AIzaShort".into();
        openai_key: "openai-key",
            pos: cat(&["sk", "-", &mixed(54, 48, ALNUM_CHARS)]),
            neg: "sk-learn and sk-lowercase-only-long-name-here".into();
        anthropic_key: "anthropic-key",
            pos: cat(&["sk", "-ant-api03-", &mixed(55, 93, URLSAFE)]),
            neg: "sk-ant-short".into();
        private_key: "private-key",
            pos: private_key_block("ENCRYPTED", 56, true),
            neg: cat(&["-----BEGIN PUBLIC KEY-----\n", &mixed(57, 64, BASE64), "\n-----END PUBLIC KEY-----"]);
        jwt: "jwt",
            pos: jwt(58),
            neg: "eyJhbGciOiJub25lIn0.e30.sig and eyJ alone".into();
        password_assignment: "password-assignment",
            pos: "DB_PASSWORD='p4ss w0rd'".into(),
            neg: "password=<password> password=${PW} password=changeme password=xxxx".into();
        secret_assignment: "secret-assignment",
            pos: "app.secret_key = \"flask-dev-key\"".into(),
            neg: "secret_name=prod-db; is_secret=true; secret: {{ vault }}".into();
        token_assignment: "token-assignment",
            pos: "access_token=ya29Q8vxk2Lm".into(),
            neg: "token=EOF, next_token=None, token=abcdefgh".into();
        api_key_assignment: "api-key-assignment",
            pos: "api-key: 8f14e45fceea167a5a36dedd4bea2543ab".into(),
            neg: "api_key=settings.API_KEY and apikey: YOUR_API_KEY".into();
        url_credentials: "url-credentials",
            pos: "mysql://root:Pa55word!@10.0.0.5:3306/db".into(),
            neg: "https://user@example.com:8443/path?q=a:b@c and https://u:***@h".into();
        bearer_token: "bearer-token",
            pos: cat(&["Bearer ", &mixed(59, 24, ALNUM_CHARS)]),
            neg: "Bearer <token>, Bearer ${TOKEN}, a bearer tokenization scheme".into();
        high_entropy_string: "high-entropy-string",
            pos: mixed(60, 48, BASE64),
            neg: "9481bba0c4ffe1e5e0f2f4a3f9c8d7e6b5a4c3b2 550e8400-e29b-41d4-a716-446655440000 ThisIsAVeryLongCamelCaseName2024WithDigits".into();
    }

    #[test]
    fn redact_keeps_only_what_says_what_it_was() {
        let gh = cat(&["gh", "p_", &mixed(70, 36, ALNUM_CHARS)]);
        assert_eq!(redact(&format!("t={gh}.")), format!("t=ghp_{REDACTED}."));
        assert_eq!(
            redact("password = \"hunter two\" ok"),
            format!("password = \"{REDACTED}\" ok")
        );
        let key = private_key_block("RSA", 71, true);
        let header = cat(&["-----BEGIN RSA", " PRIVATE", " KEY-----"]);
        assert_eq!(
            redact(&format!("a\n{key}\nb")),
            format!("a\n{header}{REDACTED}\nb")
        );
        assert_eq!(
            redact("postgres://app:Zr8-kP2q@db/app"),
            format!("postgres://app:{REDACTED}@db/app")
        );
        let proj = cat(&["sk", "-proj-", &mixed(72, 60, URLSAFE)]);
        assert_eq!(redact(&proj), format!("sk-proj-{REDACTED}"));
        assert_eq!(redact("nothing here"), "nothing here");
    }

    #[test]
    fn overlaps_resolve_to_one_finding_naming_the_vendor() {
        let gh = cat(&["gh", "p_", &mixed(73, 36, ALNUM_CHARS)]);
        for text in [
            format!("GITHUB_TOKEN={gh}"),
            format!("https://x-access-token:{gh}@github.com/o/r"),
            format!("Authorization: Bearer {gh}"),
        ] {
            let f = scan(&text);
            assert_eq!(f.len(), 1, "{text}: {f:?}");
            assert_eq!(f[0].rule, "github-token");
            assert_eq!(&text[f[0].start..f[0].end], gh);
        }
        // A value that holds more than the token is redacted whole.
        let text = format!("password=\"{gh} plus\"");
        let f = scan(&text);
        assert_eq!((f.len(), f[0].rule), (1, "password-assignment"));
    }

    #[test]
    fn line_of_counts_from_one() {
        let text = "a\nb\nc";
        assert_eq!(line_of(text, 0), 1);
        assert_eq!(line_of(text, 2), 2);
        assert_eq!(line_of(text, 4), 3);
        assert_eq!(line_of(text, 999), 3);
        let line = format!(
            "one\ntwo {}",
            cat(&["AK", "IA", &noise(74, 16, UPPER_DIGITS)])
        );
        assert_eq!(line_of(&line, scan(&line)[0].start), 2);
    }

    #[test]
    fn near_miss_megabyte_inputs_finish() {
        let inputs = [
            "AKIA".repeat(250_000),
            "ghp_".repeat(250_000),
            "sk-".repeat(333_000),
            format!("eyJ{}", "a.".repeat(300_000)),
            format!(
                "eyJhbGciOiJIUzI1NiJ9{}",
                ".eyJhbGciOiJIUzI1NiJ9".repeat(50_000)
            ),
            "password=".repeat(111_000),
            "password: x ".repeat(80_000),
            "token=\"".repeat(140_000),
            "://".repeat(333_000),
            "a://b:c".repeat(140_000),
            cat(&["-----BEGIN ", "RSA PRIVATE", " KEY-----\n"]).repeat(32_000),
            format!(
                "{}-----END",
                cat(&["-----BEGIN ", "RSA PRIVATE", " KEY-----\n"]).repeat(32_000)
            ),
            "-----BEGIN ".repeat(90_000),
            "Bearer ".repeat(150_000),
            "hooks.slack.com/services/".repeat(40_000),
            noise(75, 1_000_000, BASE64),
            "é€😀".repeat(110_000),
        ];
        for text in &inputs {
            let findings = scan(text);
            assert!(findings.windows(2).all(|w| w[0].end <= w[1].start));
        }
        assert!(!redact(&inputs[5]).contains("password=password"));
    }

    fn check_findings(text: &str) {
        let findings = scan(text);
        for w in findings.windows(2) {
            assert!(w[0].end <= w[1].start, "{findings:?}");
        }
        for f in &findings {
            assert!(f.start < f.end && f.end <= text.len());
            assert!(text.is_char_boundary(f.start) && text.is_char_boundary(f.end));
            assert!(RULES.contains(&f.rule));
        }
        let red = redact(text);
        let again = scan(&red);
        assert!(again.is_empty(), "rescan of {red:?} found {again:?}");
        for f in &findings {
            let value = &text[f.start..f.end];
            if text.matches(value).count() == 1 {
                assert!(!red.contains(value), "{value:?} survived in {red:?}");
            }
        }
        let _ = line_of(text, text.len() / 2);
    }

    /// Fragments that build near-misses of every rule, so generated text exercises the matchers
    /// and not just their rejection of noise.
    const FRAGMENTS: &str = "(AKIA|ASIA|ghp_|github_pat_|glpat-|xoxb-|sk_live_|SG\\.|SK|AIza|sk-|sk-ant-|sk-proj-|eyJ|\\.|password|token|api_key|secret|aws_secret_access_key|=|: |\"|'|`|://|@|Bearer |-----BEGIN |RSA PRIVATE KEY-----|-----END |hooks\\.slack\\.com/services/|EXAMPLE|\\$|<|>|[A-Za-z0-9+/_-]{1,12}|[ \\n\\t]|é|€|😀|\u{200d})*";

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn arbitrary_unicode_never_panics(text in any::<String>()) {
            check_findings(&text);
        }

        #[test]
        fn fragment_soup_holds_the_invariants(text in FRAGMENTS) {
            check_findings(&text);
        }

        #[test]
        fn embedded_secrets_are_found_and_removed(
            before in "[a-z =:\"'\\n]{0,20}",
            pick in 0usize..64,
            after in "[a-z =:\"'\\n.,]{0,20}",
        ) {
            let dirty = dirty();
            let (rule, line, secret) = &dirty[pick % dirty.len()];
            let text = format!("{before}\n{line}\n{after}");
            let red = redact(&text);
            prop_assert!(!red.contains(secret.as_str()), "{rule}: {red}");
            prop_assert!(scan(&red).is_empty(), "{rule}: {red}");
        }
    }
}
