//! Secrets stated in prose, in the languages of `data/prose.txt`: "the password for staging is
//! Tr0ub4dor&3", "Das Passwort lautet Sommer2024!", "La contraseña del servidor es Verano2024!",
//! "密码是 Abc@12345", "パスワードは「hunter2x」です", and login pairs ("login: admin / S3cret!").
//!
//! The shape is the same in every language: a noun naming the secret, then a qualifier ("for
//! the staging db", "des Servers"), then what introduces the value (a verb such as "is",
//! "lautet", "是", a particle such as "は", "는", or a colon or dash), then adverbs ("now",
//! "set to"), then the value. Where nothing introduces it, only a value that could be nothing
//! else counts (quoted, or mixing three kinds of characters). The value is judged the same way
//! in every language ([`password_value`], [`token_value`]), so prose *about* passwords ("the
//! password is hashed with argon2", "la contraseña es obligatoria") is never a finding.
//!
//! Cost: one pass over the text; a byte that cannot start a noun is rejected with one probe,
//! and the rest of the shape is read only after a noun.

use super::data::{self, List};
use super::lexicon::{self, Lang, Lexicon, Noun, Said};
use super::rules::*;

/// The longest value a sentence states (bytes).
const STATED: usize = 256;
/// The longest word of glue (a verb, a preposition) looked at (bytes).
const GLUE: usize = 48;

/// Finds secrets stated in prose.
pub(super) fn scan_prose(text: &str, out: &mut Vec<Cand>) {
    let lex = lexicon::lexicon();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        // Inside a word of ASCII letters only compounds can start: a stricter probe.
        let inside = i > 0 && b[i - 1].is_ascii_alphanumeric();
        let ascii_miss =
            b[i].is_ascii() && !lex.may_start(b[i], b.get(i + 1).copied().unwrap_or(0), inside);
        if !lex.first_bytes[b[i] as usize] || ascii_miss || !text.is_char_boundary(i) {
            i += 1;
            continue;
        }
        let c = text[i..].chars().next().unwrap_or(' ');
        // Not inside an identifier, a path or a URL (`client_secret=`, `x-access-token:`); inside
        // a word only where the language builds compounds (`Datenbankpasswort`) or glues (`数据库密码`).
        let prev = text[..i].chars().next_back();
        let at_word_start = prev.is_none_or(|p| {
            !p.is_alphanumeric() && !matches!(p, '_' | '-' | '.' | '/' | ':' | '@' | '\\')
        });
        let in_word = prev.is_some_and(char::is_alphanumeric);
        // `WLAN-Passwort`, `Root-Kennwort`: a compound joined by a hyphen.
        let after_hyphen = prev == Some('-');
        let mut next = i + c.len_utf8();
        let Some(starts) = lex.starting_with(c) else {
            i = next;
            continue;
        };
        let candidates = if at_word_start {
            &starts.at_word
        } else if in_word || after_hyphen {
            &starts.in_word
        } else {
            i = next;
            continue;
        };
        let second = b.get(i + 1).map(u8::to_ascii_lowercase);
        'nouns: for &n in candidates {
            let noun = &lex.nouns[n];
            // The second byte rejects most candidates before any comparison.
            let p1 = noun.text.as_bytes()[1];
            if p1.is_ascii_alphanumeric() && second != Some(p1) {
                continue;
            }
            let Some(end) = match_ci(text, i, &noun.text) else {
                continue;
            };
            for &l in &noun.langs {
                let lang = &lex.langs[l];
                // After a hyphen only passwords: `x-access-token:` is a URL's user.
                let allowed = at_word_start
                    || (in_word && (lang.glued || lang.compounds))
                    || (after_hyphen && lang.compounds && noun.said == Said::Password);
                if !allowed {
                    continue;
                }
                let Some(end) = noun_end(text, end, lang) else {
                    continue;
                };
                match after_noun(text, end, noun, lang) {
                    After::Found(found) => {
                        next = next.max(found.end);
                        out.push(found);
                        break 'nouns;
                    }
                    // A colon or an equals sign reads the same in every language.
                    After::Decided => break,
                    After::Nothing => {}
                }
            }
        }
        i = next;
    }
}

/// Where `phrase` (lower case) ends if it starts at `i`, compared case-insensitively; a blank
/// in the phrase matches one blank or line break.
fn match_ci(text: &str, i: usize, phrase: &str) -> Option<usize> {
    // The phrase's ASCII start is compared byte by byte: most candidates fail there.
    let (t, p) = (text.as_bytes(), phrase.as_bytes());
    let ascii = p.iter().position(|b| !b.is_ascii()).unwrap_or(p.len());
    for (k, &pb) in p[..ascii].iter().enumerate() {
        let tb = *t.get(i + k)?;
        let same = if pb == b' ' {
            tb.is_ascii_whitespace()
        } else {
            tb.to_ascii_lowercase() == pb
        };
        if !same {
            return None;
        }
    }
    let start = i + ascii;
    let mut chars = text[start..].char_indices();
    for pc in phrase[ascii..].chars() {
        let (_, c) = chars.next()?;
        let same = if pc == ' ' {
            c.is_whitespace()
        } else {
            c == pc || c.to_lowercase().eq(std::iter::once(pc))
        };
        if !same {
            return None;
        }
    }
    Some(chars.next().map_or(text.len(), |(k, _)| start + k))
}

/// The end of a noun that ended at `end`: past an inflection where the language has them;
/// `None` when the noun is only the start of a longer word.
fn noun_end(text: &str, end: usize, lang: &Lang) -> Option<usize> {
    let mut e = end;
    for c in text[end..].chars().take(lang.inflects) {
        if !c.is_alphabetic() {
            break;
        }
        e += c.len_utf8();
    }
    let glued_on = text[e..]
        .chars()
        .next()
        .is_some_and(|c| c.is_alphanumeric() || c == '_');
    (!glued_on || lang.glued).then_some(e)
}

/// Blanks on the line: spaces, tabs, the ideographic space, no-break spaces.
fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t' || c == '\u{3000}' || c == '\u{a0}' || c == '\u{202f}'
}

fn skip(text: &str, i: usize) -> usize {
    text[i..]
        .char_indices()
        .find(|&(_, c)| !is_blank(c))
        .map_or(text.len(), |(k, _)| i + k)
}

/// The word at `i` (after blanks): a run of non-blanks of at most `longest` bytes.
fn word(text: &str, i: usize, longest: usize) -> Option<(usize, usize)> {
    let s = skip(text, i);
    let e = text[s..]
        .char_indices()
        .take(longest + 1)
        .find(|&(_, c)| c.is_whitespace())
        .map(|(k, _)| s + k)
        .or_else(|| (text.len() - s <= longest).then_some(text.len()))?;
    (e > s && e - s <= longest).then_some((s, e))
}

/// A colon, an equals sign, or (where the language uses one) a dash at `i`: where the value
/// starts after it.
fn separator(text: &str, i: usize, lang: &Lang) -> Option<usize> {
    let c = text[i..].chars().next()?;
    let after = i + c.len_utf8();
    let followed_by_blank = text[after..].chars().next().is_none_or(char::is_whitespace);
    match c {
        ':' | '：' | '=' => Some(after),
        '—' | '–' | '-' if lang.dash && followed_by_blank && i > 0 => Some(after),
        _ => None,
    }
}

/// One of `list` at `i`, as a word of its own (or glued on, where the language glues): where
/// it ends. The longest entry wins.
fn one_of(text: &str, i: usize, list: &[String], glued: bool) -> Option<usize> {
    list.iter()
        .filter_map(|w| {
            let e = match_ci(text, i, w)?;
            let bounded = glued || !text[e..].chars().next().is_some_and(char::is_alphanumeric);
            bounded.then_some(e)
        })
        .max()
}

/// What introduces the value: a verb or particle of the language at `i` (followed by an
/// optional colon: "is:", "是："), then its adverbs ("now", "set to"). Where the value starts.
fn copula(text: &str, i: usize, lang: &Lang) -> Option<usize> {
    let mut e = one_of(text, i, &lang.copulas, lang.glued)?;
    if let Some(after) = text[e..].chars().next().filter(|&c| c == ':' || c == '：') {
        e += after.len_utf8();
    }
    Some(adverbs(text, e, lang))
}

fn adverbs(text: &str, mut e: usize, lang: &Lang) -> usize {
    for _ in 0..2 {
        match one_of(text, skip(text, e), &lang.adverbs, lang.glued) {
            Some(a) => e = a,
            None => break,
        }
    }
    e
}

/// The shape after a noun that ends at `end`.
/// What follows a noun, read in one language.
enum After {
    Found(Cand),
    /// A colon or an equals sign introduced no value: no other language reads it otherwise
    /// (only glued languages end a value differently, and none of them shares a noun).
    Decided,
    Nothing,
}

fn after_noun(text: &str, end: usize, noun: &Noun, lang: &Lang) -> After {
    let found = |c: Option<Cand>| c.map_or(After::Nothing, After::Found);
    let p = skip(text, end);
    if let Some(v) = separator(text, p, lang) {
        return value_at(text, adverbs(text, v, lang), noun, lang, true)
            .map_or(After::Decided, After::Found);
    }
    // A verb ("is", "to" after "set … passphrase"), then a qualifier ("to the staging db
    // is"): the first that leads to a value.
    if let Some(c) = copula(text, p, lang).and_then(|v| value_at(text, v, noun, lang, true)) {
        return After::Found(c);
    }
    if let Some(c) = qualified(text, p, lang).and_then(|v| value_at(text, v, noun, lang, true)) {
        return After::Found(c);
    }
    // "log in with admin / S3cret!": a login pair after a word of glue.
    if noun.said == Said::Login {
        if let Some(e) = one_of(text, p, &lang.through, lang.glued) {
            return found(value_at(text, e, noun, lang, false));
        }
    }
    // Nothing introduces it: a value right after the noun, after a blank (or glued on, in a
    // language that glues: 密码Abc@12345).
    if p > end || lang.glued {
        return found(value_at(text, p, noun, lang, false));
    }
    After::Nothing
}

/// A qualifier between the noun and what introduces the value: a preposition and up to five
/// more words ("for the staging db is", "de la base de datos es", "for prod:"), or one bare word
/// where the language puts the owner after the noun ("Пароль администратора —"). Where the
/// value starts.
fn qualified(text: &str, p: usize, lang: &Lang) -> Option<usize> {
    let (s, e) = word(text, p, GLUE)?;
    let first = text[s..e].trim_end_matches([':', '：']);
    let prep = one_of(first, 0, &lang.qualifiers, false).is_some_and(|k| k == first.len());
    let words = if prep {
        6
    } else if lang.genitive {
        1
    } else {
        return None;
    };
    let mut at = s;
    for k in 0..words {
        let (ws, we) = word(text, at, GLUE)?;
        // "for prod:" — a colon ends a qualifier that a preposition opened.
        if (!prep || k > 0) && text[ws..we].ends_with([':', '：']) {
            return Some(we);
        }
        at = we;
        let q = skip(text, at);
        if let Some(v) = separator(text, q, lang) {
            return Some(v);
        }
        if let Some(v) = copula(text, q, lang) {
            return Some(v);
        }
    }
    None
}

/// Opening quotes and the quote that closes each.
const QUOTES: &[(char, char)] = &[
    ('"', '"'),
    ('\'', '\''),
    ('`', '`'),
    ('«', '»'),
    ('„', '“'),
    ('“', '”'),
    ('‘', '’'),
    ('「', '」'),
    ('『', '』'),
    ('‹', '›'),
];

/// The text inside quotes that open at `i` and close on the same line: (start, end).
fn quoted_at(text: &str, i: usize) -> Option<(usize, usize)> {
    let c = text[i..].chars().next()?;
    let &(_, close) = QUOTES.iter().find(|(o, _)| *o == c)?;
    let vs = i + c.len_utf8();
    let limit = (vs + STATED).min(text.len());
    let ve = text[vs..]
        .char_indices()
        .take_while(|&(k, _)| vs + k < limit)
        .find(|&(_, x)| x == close || x == '\n' || (close == '“' && x == '”'))
        .map(|(k, _)| vs + k)?;
    let closed = text[ve..].starts_with(close) || (close == '“' && text[ve..].starts_with('”'));
    (closed && ve > vs).then_some((vs, ve))
}

/// Characters that end a sentence or a clause rather than a value.
fn is_trailing(c: char) -> bool {
    ".,;:)]}\"'`。、，；：）」』»”’…".contains(c)
}

/// The unquoted value at `i`: a run of non-blanks (in a glued language, of ASCII: 是abc123。),
/// without the punctuation that ends the sentence and without a suffix after an apostrophe
/// (Turkish `Gizli123'dür`).
fn unquoted_at(text: &str, i: usize, ascii_only: bool) -> Option<(usize, usize)> {
    let b = text.as_bytes();
    let mut e = i;
    while e < b.len() {
        if b[e].is_ascii() {
            if b[e].is_ascii_whitespace() {
                break;
            }
            e += 1;
        } else {
            let c = text[e..].chars().next()?;
            if c.is_whitespace() || ascii_only {
                break;
            }
            e += c.len_utf8();
        }
        if e - i > STATED {
            return None;
        }
    }
    while let Some(c) = text[i..e].chars().next_back().filter(|&c| is_trailing(c)) {
        e -= c.len_utf8();
    }
    if let Some(apos) = text[i..e].rfind(['\'', '’']) {
        let suffix = &text[i + apos..e];
        let letters = suffix.chars().skip(1).count();
        if (1..=4).contains(&letters) && suffix.chars().skip(1).all(char::is_alphabetic) {
            e = i + apos;
        }
    }
    (e > i).then_some((i, e))
}

/// The value at `i` (after blanks) of a secret of kind `said`. `stated`: something introduced
/// it (a verb, a colon); otherwise it must be unmistakable.
fn value_at(text: &str, i: usize, noun: &Noun, lang: &Lang, stated: bool) -> Option<Cand> {
    let i = skip(text, i);
    let said = noun.said;
    if said == Said::Login {
        return login_pair(text, i, stated);
    }
    if let Some((vs, ve)) = quoted_at(text, i) {
        let v = &text.as_bytes()[vs..ve];
        let min = if said == Said::Password { 4 } else { 8 };
        let plain_word = v.iter().all(u8::is_ascii_lowercase) && v.len() < 8;
        let ok = v.len() >= min && !plain_word && !is_placeholder(v) && !looks_like_code(v);
        return ok.then(|| cand(vs, ve, "secret-in-prose", P_ASSIGN - 1));
    }
    // In a language that glues words, the value ends where the language's script resumes
    // (`hunter2x입니다`).
    let (vs, ve) = unquoted_at(text, i, lang.glued)?;
    let v = &text[vs..ve];
    let ok = match said {
        Said::Password => password_value(v) && (stated || unmistakable(v)),
        // Without a verb, hex and UUIDs are ids and digests ("session token 550e8400-…").
        Said::Token => {
            token_value(v.as_bytes())
                && (stated || !v.bytes().all(|c| c.is_ascii_hexdigit() || c == b'-'))
        }
        Said::Login => false,
    };
    ok.then(|| cand(vs, ve, "secret-in-prose", P_ASSIGN - 1))
}

/// An unquoted word that is a password: at least six characters, starting with a letter or
/// digit, with a letter and a digit or symbol (or a diceware passphrase), and not a description
/// (`argon2id-hashed`, `16-chars`), a placeholder, code or a URL.
pub(super) fn password_value(v: &str) -> bool {
    let b = v.as_bytes();
    if v.chars().count() < 6
        || !v.chars().next().is_some_and(char::is_alphanumeric)
        || is_placeholder(b)
        || looks_like_code(b)
        || contains(b, b"://")
        || data::words().has(List::Tech, b)
    {
        return false;
    }
    let letter = v.chars().any(char::is_alphabetic);
    let digit = v.chars().any(|c| c.is_ascii_digit());
    // A closing `!` or `?` ends a sentence as often as a password (GraphQL's `String!`).
    let core = v.trim_end_matches(['!', '?']);
    let symbol = core.chars().any(|c| !c.is_alphanumeric() && c != '-');
    letter && (digit || symbol || is_diceware(v)) && !is_description(v)
}

/// `correct-horse-battery-staple`: three or more words of letters joined by hyphens, dots or
/// underscores, none of which describes ("end-to-end", "read-only").
fn is_diceware(v: &str) -> bool {
    let parts: Vec<&str> = v.split(['-', '.', '_']).collect();
    parts.len() >= 3
        && parts
            .iter()
            .all(|p| p.chars().count() >= 3 && p.chars().all(char::is_alphabetic))
}

/// "argon2id-hashed", "2FA-protected", "16-chars", "sha256-based": a hyphenated word whose
/// later part says how a secret is kept.
fn is_description(v: &str) -> bool {
    let words = data::words();
    v.split('-').skip(1).any(|part| {
        let lower = part.to_ascii_lowercase();
        words.has(List::Descriptions, lower.as_bytes())
            || (lower.len() >= 4
                && lower.bytes().all(|c| c.is_ascii_lowercase())
                && ["ed", "ive", "able", "ible", "ing", "ful", "ous"]
                    .iter()
                    .any(|s| lower.ends_with(s)))
    })
}

/// A password with no verb before it ("use password Hunter2x!"): three of lower case, upper
/// case, digits and symbols.
fn unmistakable(v: &str) -> bool {
    let kinds = [
        v.chars().any(char::is_lowercase),
        v.chars().any(char::is_uppercase),
        v.chars().any(|c| c.is_ascii_digit()),
        v.chars().any(|c| !c.is_alphanumeric()),
    ];
    kinds.iter().filter(|&&k| k).count() >= 3
}

/// An unquoted word that is a token: at least sixteen characters mixing two kinds.
fn token_value(v: &[u8]) -> bool {
    v.len() >= 16
        && kind_count(v) >= 2
        && v[0].is_ascii_alphanumeric()
        && !is_placeholder(v)
        && !looks_like_code(v)
        && !contains(v, b"://")
}

/// Characters of a user name in a login pair.
fn is_user_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '.' | '_' | '@' | '+' | '-')
}

/// `admin / S3cret!`, `admin:S3cret`, `root/toor`: the password of a login pair at `i`.
fn login_pair(text: &str, i: usize, stated: bool) -> Option<Cand> {
    let ue = text[i..]
        .char_indices()
        .take(65)
        .find(|&(_, c)| !is_user_char(c))
        .map(|(k, _)| i + k)
        .or_else(|| (text.len() - i <= 64).then_some(text.len()))?;
    if ue == i {
        return None;
    }
    let user = &text[i..ue];
    let sp = skip(text, ue);
    let sep = text[sp..].chars().next()?;
    if !matches!(sep, '/' | ':' | ',' | '|' | '／' | '：') {
        return None;
    }
    let after = sp + sep.len_utf8();
    let ps = skip(text, after);
    let spaced = sp > ue || ps > after;
    let (vs, ve) = quoted_at(text, ps).or_else(|| unquoted_at(text, ps, false))?;
    let pw = &text[vs..ve];
    let b = pw.as_bytes();
    if (sep == '/' && pw.contains('/')) || (sep == ':' && pw.starts_with("//")) {
        return None; // a path or a URL, not a pair
    }
    let letters_only = pw.chars().all(char::is_alphabetic);
    let lex = lexicon::lexicon();
    let ok = pw.chars().count() >= 4
        && !is_placeholder(b)
        && !pw.eq_ignore_ascii_case(user)
        && !super::commands::is_stop_word(b)
        && !data::words().has(List::Tech, b)
        && !looks_like_code(b)
        && !contains(b, b"://")
        && !pw.chars().all(|c| c.is_ascii_digit())
        && !names_a_secret(pw, lex)
        && !super::commands::is_example_credential(user.as_bytes(), b)
        // `settings/security`, `SSO/SAML`: words joined without blanks are paths and
        // choices; a password of letters only needs a spaced pair after a verb or colon.
        && (!letters_only || (stated && spaced && pw.chars().count() >= 6));
    ok.then(|| cand(vs, ve, "login-credentials", P_ASSIGN - 1))
}

/// `client-secret`, `db_password`: an identifier that names a secret rather than being one.
fn names_a_secret(pw: &str, lex: &Lexicon) -> bool {
    let lower = pw.to_lowercase();
    let identifier = lower
        .chars()
        .all(|c| c.is_alphabetic() || c == '-' || c == '_');
    identifier
        && (["pass", "pwd", "secret", "token", "key"]
            .iter()
            .any(|k| lower.contains(k))
            || lex.nouns.iter().any(|n| lower.contains(n.text.as_str())))
}
