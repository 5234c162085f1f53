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
//! | `aws-access-key` | `AKIA` `ASIA` `ABIA` `ACCA` (or `A3T` + 1) + 16 `[A-Z0-9]` | that prefix |
//! | `aws-secret-key` | value of `aws_secret_access_key` / `secretAccessKey` (≥ 16 chars) | the `key = ` part |
//! | `github-token` | `ghp_` `gho_` `ghu_` `ghs_` `ghr_` + ≥ 30 alnum, `github_pat_` + ≥ 22 | `ghp_` … / `github_pat_` |
//! | `slack-webhook` | `hooks.slack.com/` `services/` `workflows/` `triggers/` + ≥ 20 path chars | the URL up to `services/` … |
//! | `stripe-key` | `sk_` `rk_` + `live_` `test_` `prod_` + ≥ 16 alnum | `sk_live_` … |
//! | `sendgrid-key` | `SG.` + 16–32 + `.` + 32–64 | `SG.` |
//! | `twilio-api-key` | `SK` + 32 hex | `SK` |
//! | `google-api-key` | `AIza` + 35 | `AIza` |
//! | `openai-key` | `sk-`, `sk-proj-`, `sk-svcacct-`, `sk-admin-` + ≥ 20 with upper, lower and digit | that prefix |
//! | `anthropic-key` | `sk-ant-` + ≥ 32 | `sk-ant-` |
//! | `private-key` | `-----BEGIN … PRIVATE KEY-----` with key material, through `-----END …-----` or to the end of the text | the BEGIN line |
//! | `jwt` | `eyJ…` (≥ 10) `.` (≥ 10) `.` (≥ 16) base64url segments | `eyJ` |
//! | `password-assignment` | `password` `passwd` `passphrase`, and the `.env` spellings `*_PASS` `*_PWD` `*_PW` `dbPass` `pass` (not a bare `PWD`, `bypass`, numbers or `a/b` choices), `= : := =>` value, or an element `<password>…</password>` | the `password=` part |
//! | `secret-assignment` | `secret` `secret_key` `client_secret` … | the `secret=` part |
//! | `token-assignment` | `token` `access_token` `access_key` … value of ≥ 8 chars mixing two of upper/lower/digit | the `token=` part |
//! | `api-key-assignment` | `api_key` `apikey` `api-key` … same value test as tokens | the `api_key=` part |
//! | `url-credentials` | the password in `scheme://user:password@host` | everything but the password |
//! | `bearer-token` | `Bearer` + ≥ 16 token chars mixing two of upper/lower/digit | `Bearer ` |
//! | `secret-in-prose` | `password` `passphrase` `passcode` `token` `secret` `API key` … + [`for`/`on`/`of` … up to 3 words] + `is`/`was`/`:` [+ `now`/`set to` …] + a value: quoted (≥ 4), or a word of ≥ 6 with a letter and a digit or symbol that is not a description (`argon2id-hashed`, `sha256`); for tokens ≥ 16 mixing two kinds | the sentence |
//! | `curl-auth-user` | the password of `curl -u`/`--user`/`-u…` `user:password` (a password equal to the user, or a `$VAR`/`<…>` placeholder, is allowed; `admin:pass` is not) | `user:` |
//! | `curl-auth-header` | a curl `-H`/`--header` `Authorization: Basic`/`Token` value or a `*-Key`/`*-Token`/`*-Secret` header value (Bearer is `bearer-token`'s) | the header name |
//! | `basic-auth` | `Basic <base64>` anywhere (headers, nginx, git's `http.extraHeader`, code) that decodes to a `user:password` other than the documentation's examples, a placeholder or a password equal to its user | `Basic ` |
//! | `auth-header` | an `Authorization` header's value in any syntax (`: = => ,`, quoted or not) with any scheme but Bearer, Basic and per-request ones (Digest, NTLM, AWS4), or bare; a `"X-Api-Key", "…"` header argument | the header name |
//! | `registry-auth` | Docker's `"auth"`, npm's `_auth`/`npmAuthIdent`, `basic_auth`: a `user:password`, plain or base64, or an opaque token | the key |
//! | `netrc-password` | `.netrc`: `machine … login … password <value>` | the entry |
//! | `password-flag` | command-line passwords of `data/commands.txt` (`sshpass -p`, `mysql -p…`, `redis-cli -a`, `htpasswd -b f u <pw>`, `docker login -p`, `openssl -passin pass:`, …) and `--password`/`--pass`/`-Password` values of any command | the option |
//! | `secret-flag` | `--token`/`--secret`/`--api-key` values of any command (≥ 8, two kinds) | the option |
//! | `login-credentials` | a login pair after a login noun of `data/prose.txt` in any of its languages: `login: admin / S3cret!`, `Zugangsdaten: admin / …`, `账号密码：admin/…` | the sentence |
//! | `high-entropy-string` | ≥ 32 chars of `[A-Za-z0-9+/_-]` with upper, lower and digit, and Shannon entropy above the 1st percentile of random base64 of that length | nothing |
//!
//! `secret-in-prose` covers every language of `data/prose.txt` (English, German, Spanish,
//! French, Portuguese, Italian, Dutch, Polish, Russian, Ukrainian, Chinese, Japanese, Korean,
//! Turkish, Vietnamese, Indonesian, Hindi, Arabic, Persian, Hebrew, Thai, Czech, Swedish,
//! Danish/Norwegian, Finnish, Hungarian, Romanian, Greek): "Das Passwort lautet …", "la
//! contraseña es …", "密码是 …", "パスワードは …", "비밀번호는 …", "şifresi: …" (`prose.rs`).
//!
//! And the provider table (`data/providers.txt`, run by `table.rs`): about a hundred and thirty
//! rules, one per provider (`gitlab-token`, `slack-token`, `huggingface-token`,
//! `braintree-access-token`, `adyen-api-key`, `razorpay-key`, …), that together with the rules
//! above cover every rule of gitleaks' default configuration but two (file names, whole YAML
//! documents), and the payment providers' keys. Each entry is data: keywords, token shapes,
//! what `redact` keeps, an entropy floor, an allow-list. Tokens that name their issuer
//! (`dapi…`, `shpat_…`) are found as whole `[A-Za-z0-9_-]` words; values that only a key says
//! are secret (`TWITTER_API_SECRET=…`, 32 hex under `FACEBOOK_APP_SECRET`) need that key, so hex
//! and UUIDs stay clean elsewhere. A rule's regexes compile on first use and run only around
//! its keywords.
//!
//! # Data files
//!
//! The rule tables and word lists are data, in `src/secrets/data/` (read by `data.rs`):
//! `providers.txt` (the provider table), `words.txt` (assignment keys, placeholder values,
//! descriptions, stop words, the documentation's example credentials), `prose.txt` (nouns,
//! verbs and glue of each language) and `commands.txt` (command-line password options). They
//! are compiled into the binary and parsed the first time a scan needs them.
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
//!   the `dummy-values` of `data/words.txt` (`changeme`, `password`, `test`, `none`, `true`, …).
//! * Code instead of a value (unquoted only): calls (`getpass()`), indexing (`os.environ[…]`),
//!   generic types (`Option<String>`), dotted paths (`args.password`, `settings.SECRET_KEY`),
//!   variable names with an underscore (`DB_PASSWORD`, `pw_hash`). So a real password spelt
//!   like a snake_case identifier is missed; quoting it makes it a finding again.
//! * Format strings (`'%s:%s'`, `{}`), and, for the short `.env` keys, numbers and `a/b` choices.
//! * Anything that takes part of a PEM armor line (`-----BEGIN `, `-----END`) but a private key:
//!   redacting it would leave a BEGIN without its END.
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
//! every byte any rule flagged is covered. Each hand-written rule is one forward pass that only
//! looks ahead a bounded distance or past text it then skips (assignments, prose and curl share
//! one pass over the words); the provider table adds one pass for its keywords (a bitmap built
//! at compile time) and, per rule whose keywords occur, its regexes (finite automata) over the
//! merged windows around them. So scanning is linear, compiles nothing for a text without
//! keywords, and allocates only per keyword hit and finding. Every range starts and ends on an
//! ASCII byte or the end of the text, so slicing at them never splits a character.
//!
//! `scan(redact(t))` is empty (tested on arbitrary text). The one conceivable exception is a
//! `high-entropy-string` formed by what is left of a longer run after a vendor token inside it
//! was redacted, which needs the leftover alone to look random; it has not been seen.
//!
//! Unquoted values that are not secrets (code, placeholders) are still read word by word, so a
//! key inside one is found whether or not the key before it is redacted.
//!
//! Known limits: a token glued to a longer word by `_` or `-` (`key_ghp_…`) is only caught by
//! the high-entropy rule; base32 and all-lower-case random strings are not high-entropy by
//! this definition; about 1% of random 32-character keys fall under the entropy floor (vendor
//! and assignment rules still see most of them). Share links whose ids are random
//! (`docs.google.com/document/d/1Bx…`) and SRI hashes (`sha384-…`) are flagged as high-entropy:
//! they are capabilities or look exactly like them.

/// The marker `redact` puts where a secret value was.
pub const REDACTED: &str = "***REDACTED***";

/// One secret found in a scanned text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Stable kebab-case rule name, used in error messages (see the module's table of rules).
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
    scan_words(text.as_bytes(), &mut cands);
    prose::scan_prose(text, &mut cands);
    scan_url_credentials(text, &mut cands);
    scan_slack_webhooks(text, &mut cands);
    table::scan_providers(text.as_bytes(), &mut cands);
    let public = scan_pem_blocks(text, &mut cands);
    scan_high_entropy(text.as_bytes(), &public, &mut cands);
    // Documentation keys are allowed wherever they appear, whichever rule saw them.
    cands.retain(|c| !contains(&text.as_bytes()[c.start..c.end], b"EXAMPLE"));
    resolve(cands, &armor(text))
}

/// Replaces each finding with its prefix (enough to say what it was, never enough to use it)
/// followed by [`REDACTED`]. Repeated until nothing is found: taking a finding out can join
/// what stood around it into a new one (a random-looking run across the cut), and a redacted
/// text must scan clean.
pub fn redact(text: &str) -> String {
    let mut out = redact_once(text);
    // Each pass shortens what it touches; a handful is already more than any text needed.
    for _ in 0..8 {
        if scan(&out).is_empty() {
            break;
        }
        out = redact_once(&out);
    }
    out
}

fn redact_once(text: &str) -> String {
    let findings = scan(text);
    if findings.is_empty() {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut pos = 0;
    for f in &findings {
        out.push_str(&text[pos..f.start]);
        let value = &text[f.start..f.end];
        out.push_str(&value[..keep_len(f.rule, value, table::keep_len(f.rule, value))]);
        out.push_str(REDACTED);
        pos = f.end;
    }
    out.push_str(&text[pos..]);
    out
}

/// `text` (an error message) with every secret taken out: first each of `args` (the command
/// line, or an input) that holds one, wherever the message quotes it whole or in part, then
/// whatever the scanner finds in the message itself. A tool that quotes an argument back
/// (clap's "unexpected argument '-----BEGIN OPENSSH PRIVATE KEY-----…'", serde's "invalid
/// type: string \"…\"") never prints the secret.
pub fn redact_message<'a>(text: &str, args: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = text.to_owned();
    for arg in args {
        let findings = scan(arg);
        if findings.is_empty() {
            continue;
        }
        // The message may quote the argument whole, or the part before its first `=` (clap
        // reads `-----BEGIN …` as an option and quotes its name), or the value after it.
        let mut quoted = vec![arg];
        if let Some((name, value)) = arg.split_once('=') {
            quoted.extend([name, value]);
        }
        for q in quoted {
            if q.len() >= 4 && out.contains(q) && !scan(q).is_empty() {
                out = out.replace(q, &redact(q));
            }
        }
        for f in &findings {
            let secret = &arg[f.start..f.end];
            if secret.len() >= 4 {
                out = out.replace(secret, REDACTED);
            }
        }
    }
    redact(&out)
}

/// The line number (1-based) of a byte offset, for error messages.
pub fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    1 + text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

mod anchored;
mod auth;
mod commands;
mod data;
mod entropy;
mod lexicon;
mod prose;
mod rules;
mod table;
mod tokens;
mod words;

use anchored::*;
use entropy::*;
use rules::*;
use tokens::*;
use words::scan_words;

#[cfg(test)]
mod corpus_tests;
#[cfg(test)]
mod cost_tests;
#[cfg(test)]
mod provider_tests;
#[cfg(test)]
mod tests;
