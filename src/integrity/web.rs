//! The web in memory: URLs that carry data out, HTML that runs script, and [`inert_urls`],
//! which makes the URLs of loaded memory text that no renderer fetches or links.

use super::*;
use crate::bytes::starts_with_ci;

// ---------------------------------------------------------------------------------------------
// Exfiltration URLs.

/// Parts of a placeholder's name that say it stands for something private: a URL that asks
/// for one of these to be filled in sends it to whoever runs the host.
const PRIVATE: &[&str] = &[
    "secret",
    "secrets",
    "token",
    "tokens",
    "password",
    "passwords",
    "passwd",
    "credential",
    "credentials",
    "creds",
    "cred",
    "apikey",
    "conversation",
    "convo",
    "history",
    "chat",
    "prompt",
    "memory",
    "memories",
    "env",
    "environ",
    "environment",
    "dotenv",
    "ssh",
    "aws",
    "cookie",
    "cookies",
    "private",
    "privkey",
    "clipboard",
    "transcript",
    "base64",
    "b64",
];
/// Parts that say so only in a query string, where data goes (`?d={data}`), not in a path,
/// where they name resources (`/items/{data_id}`, `/cache/{key}`).
const PRIVATE_IN_QUERY: &[&str] = &[
    "data", "key", "keys", "context", "messages", "contents", "encoded",
];

/// How private the name starting at `b[i]` sounds (identifier characters, split at `_ - . :`
/// and where lower case turns upper): 2 a [`PRIVATE`] part, 1 a [`PRIVATE_IN_QUERY`] part, 0
/// neither.
fn private_name(b: &[u8], i: usize) -> u8 {
    let mut e = i;
    while e < b.len() && (b[e].is_ascii_alphanumeric() || b"_-.:".contains(&b[e])) && e - i < 64 {
        e += 1;
    }
    let name = &b[i..e];
    let mut level = 0;
    let mut s = 0;
    for k in 0..=name.len() {
        let cut = k == name.len()
            || b"_-.:".contains(&name[k])
            || (k > s && name[k].is_ascii_uppercase() && name[k - 1].is_ascii_lowercase());
        if cut {
            let part = name[s..k].to_ascii_lowercase();
            let is = |list: &[&str]| list.iter().any(|w| w.as_bytes() == part.as_slice());
            level = level.max(if is(PRIVATE) {
                2
            } else {
                u8::from(is(PRIVATE_IN_QUERY))
            });
            s = k + usize::from(k < name.len() && b"_-.:".contains(&name[k]));
        }
    }
    if contains_ci(name, b"api_key") || contains_ci(name, b"apikey") {
        level = 2;
    }
    level
}

/// Command words whose output is private, inside a `$(…)` substitution in a URL.
const SUBSTITUTED: &[&str] = &[
    "cat",
    "type",
    "env",
    "printenv",
    "set",
    "history",
    "whoami",
    "hostname",
    "id",
    "uname",
    "base64",
    "gpg",
    "xxd",
    "od",
    "get-content",
    "gc",
    "ls",
    "dir",
    "find",
    "head",
    "tail",
    "tar",
    "zip",
    "echo",
    "aws",
    "gcloud",
    "az",
    "kubectl",
    "security",
    "pbpaste",
    "xclip",
];

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
    let e = url_end_raw(b, i);
    if b.get(e) == Some(&b')') {
        return e; // a markdown target ends at its parenthesis, dots and all
    }
    let mut e = e;
    while e > i && b".,;:!?".contains(&b[e - 1]) {
        e -= 1;
    }
    e
}

fn url_end_raw(b: &[u8], i: usize) -> usize {
    let mut depth = 0i32;
    let mut e = i;
    while e < b.len() {
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
///   as `SECRET_HERE`, `INSERT_API_KEY`.
///
/// Plain URLs stay clean: docs links, placeholders with other names (`{owner}`, `{version}`,
/// `${VERSION}`), query strings with data already in them (a fixed URL sends nothing from
/// here). Documentation of an API whose key goes in the query (`?key={API_KEY}`) is reported:
/// say where the key goes instead of writing the template.
pub(super) fn scan_urls(b: &[u8], out: &mut Sink) {
    let mut i = 0;
    while i + 8 <= b.len() {
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
        if let Some(at) = exfiltrating(b, i + scheme, end, place) {
            out.hit("exfiltration-url", i, at.max(end).min(b.len()));
        }
        i = end.max(i + scheme);
    }
}

/// Where the URL `b[s..e]` (after its scheme) shows that it carries private data, if it does.
fn exfiltrating(b: &[u8], s: usize, e: usize, place: UrlPlace) -> Option<usize> {
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
            b'$' if decoded(b, k).0 == b'(' => {
                if substitutes_private(b, k + decoded(b, k).1) {
                    return Some(i);
                }
            }
            b'`' => {
                if substitutes_private(b, k) {
                    return Some(i);
                }
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
                    return Some(i);
                }
            }
            b'$' if place != UrlPlace::Bare => {
                let n = k + usize::from(decoded(b, k).0 == b'{');
                if private_name(b, n) >= if in_query { 1 } else { 2 } {
                    return Some(i);
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
                let caps = !v.is_empty()
                    && v.iter()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == b'_')
                    && private_name(v, 0) > 0;
                if dots || caps {
                    return Some(q);
                }
            }
        }
    }
    None
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
/// reads something private.
fn substitutes_private(b: &[u8], s: usize) -> bool {
    let end = b.len().min(s + 120);
    let body = &b[s..end];
    let body = &body[..body
        .iter()
        .position(|&c| c == b')' || c == b'`' || c == b'\n')
        .unwrap_or(body.len())];
    if contains_ci(body, b"~/") || secret_path(body).is_some() {
        return true;
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
    private_var
        || commands.filter(|w| word(w)).any(|w| {
            SUBSTITUTED
                .iter()
                .any(|s| w.eq_ignore_ascii_case(s.as_bytes()))
        })
}

// ---------------------------------------------------------------------------------------------
// HTML that runs script.

/// `html-event-handler` (TAINTED): HTML in memory is rendered by markdown viewers and read by
/// models that write web code; an inline event handler (`<img src=x onerror=…>`,
/// `<svg onload=…>`, `<body onpageshow=…>`) or a `javascript:`, `vbscript:` or `data:text/html`
/// URL runs script where it is rendered. JSX handlers, whose value is an expression in braces
/// (`<Button onClick={save}>`), and prose about them ("avoid inline onclick handlers",
/// "the javascript: scheme is blocked by CSP") stay clean.
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
                    out.hit("html-event-handler", i, (end + 1).min(b.len()).max(i + at));
                }
                i += 1;
            }
            b'j' | b'J' | b'v' | b'V' | b'd' | b'D' => {
                let scheme = [&b"javascript:"[..], b"vbscript:", b"data:text/html"]
                    .into_iter()
                    .find(|s| starts_with_ci(&b[i..], s));
                match scheme {
                    Some(s)
                        if (i == 0 || !b[i - 1].is_ascii_alphanumeric())
                            && b.get(i + s.len()).is_some_and(|c| !c.is_ascii_whitespace()) =>
                    {
                        out.hit("html-event-handler", i, url_end(b, i));
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
    let mut i = 1;
    while i < tag.len() && (tag[i].is_ascii_alphanumeric() || tag[i] == b'-') {
        i += 1;
    }
    while i < tag.len() {
        let sep =
            tag[i].is_ascii_whitespace() || tag[i] == b'/' || tag[i] == b'"' || tag[i] == b'\'';
        if sep
            && tag
                .get(i + 1..i + 3)
                .is_some_and(|s| s.eq_ignore_ascii_case(b"on"))
        {
            let s = i + 1;
            let mut e = s + 2;
            while e < tag.len() && tag[e].is_ascii_alphabetic() {
                e += 1;
            }
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
    scan_urls(b, out);
    scan_html(b, out);
}

// ---------------------------------------------------------------------------------------------
// Inert URLs.

/// Rewrites the URLs of `text` so that no markdown renderer fetches or links them, for memory
/// shown to an agent or a person: an image in memory is fetched by the renderer as soon as it is
/// shown, which sends whatever its URL holds to its host.
///
/// * `![alt](url "title")` becomes `[image: alt] hxxps://host[.]tld/path` (the title dropped);
/// * `[text](url)` becomes `text (hxxps://host[.]tld/path)`;
/// * a bare `http://`, `https://` or `ftp://` URL, and one in an autolink `<https://…>`, has its
///   scheme defanged (`hxxp`, `hxxps`, `fxp`) and the dots of its host bracketed; a bare
///   `www.` host is bracketed too (`www[.]example[.]com`), since GFM links those;
/// * reference definitions (`[ref]: https://…`) keep their shape with the URL defanged, so
///   `![x][ref]` points nowhere fetchable.
///
/// The rest of the URL (path, query) is kept, so the text still says where it pointed. Code
/// spans and fenced code blocks are left as they are: renderers neither fetch nor link inside
/// them, and an agent may need the command they hold. Applying it twice changes nothing more.
#[allow(dead_code)] // until the load output calls it
pub fn inert_urls(text: &str) -> String {
    let b = text.as_bytes();
    if !(contains_ci(b, b"http") || contains_ci(b, b"ftp://") || contains_ci(b, b"www.")) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut i = 0;
    let mut line_start = true;
    let mut fence: Option<(u8, usize)> = None;
    while i < b.len() {
        let c = b[i];
        if line_start {
            let j = skip_blanks(b, i);
            let run = b[j..]
                .iter()
                .take_while(|&&x| x == b'`' || x == b'~')
                .count();
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
            // A code span: its closing run of the same length on the same line.
            let run = b[i..].iter().take_while(|&&x| x == b'`').count();
            let line_end = b[i..]
                .iter()
                .position(|&x| x == b'\n')
                .map_or(b.len(), |p| i + p);
            let close = (i + run..line_end).find(|&k| {
                b[k] == b'`'
                    && b[k - 1] != b'`'
                    && b[k..].iter().take_while(|&&x| x == b'`').count() == run
            });
            let end = close.map_or(i + run, |k| k + run);
            out.push_str(&text[i..end]);
            i = end;
            continue;
        }
        if c == b'!' || c == b'[' {
            if let Some((n, rewritten)) = markdown_link(text, i) {
                out.push_str(&rewritten);
                i += n;
                continue;
            }
        }
        if let Some((n, rewritten)) = bare_url(text, i) {
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

/// A markdown image or link `![alt](url …)` / `[text](url …)` at `text[i]`, whose URL is a
/// web URL: its length and its inert form.
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
            b'[' => depth += 1,
            b']' if depth == 1 => break k,
            b']' => depth -= 1,
            b'\n' => return None,
            _ => {}
        }
        k += 1;
        if k - open > 1000 {
            return None;
        }
    };
    if b.get(close + 1) != Some(&b'(') {
        return None;
    }
    let u = skip_blanks(b, close + 2);
    let angle = b.get(u) == Some(&b'<');
    let us = u + usize::from(angle);
    if !web_scheme(&b[us..]) {
        return None;
    }
    let ue = if angle {
        us + b[us..].iter().position(|&c| c == b'>' || c == b'\n')?
    } else {
        url_end(b, us)
    };
    // The rest up to the closing parenthesis (a title).
    let mut end = ue + usize::from(angle);
    let mut d = 0;
    loop {
        match b.get(end)? {
            b'(' => d += 1,
            b')' if d == 0 => break,
            b')' => d -= 1,
            b'\n' => return None,
            _ => {}
        }
        end += 1;
    }
    let label = &text[open + 1..close];
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

/// A bare URL (or `www.` host) at `text[i]`: its length and its inert form.
fn bare_url(text: &str, i: usize) -> Option<(usize, String)> {
    let b = text.as_bytes();
    if i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'.') {
        return None;
    }
    let www =
        starts_with_ci(&b[i..], b"www.") && b.get(i + 4).is_some_and(u8::is_ascii_alphanumeric);
    if !(web_scheme(&b[i..]) || www) {
        return None;
    }
    let e = url_end(b, i);
    Some((e - i, defang(&text[i..e])))
}

/// `url` with its scheme defanged and the dots of its host bracketed.
fn defang(url: &str) -> String {
    let (scheme, rest) = match url.find("://") {
        Some(p) => {
            let s = &url[..p];
            let s = if s.eq_ignore_ascii_case("ftp") {
                "fxp".to_owned()
            } else {
                let mut s = s.to_owned();
                s.replace_range(1..3, "xx");
                s
            };
            (format!("{s}://"), &url[p + 3..])
        }
        None => (String::new(), url),
    };
    let host_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let host = rest[..host_end].replace("[.]", ".").replace('.', "[.]");
    format!("{scheme}{host}{}", &rest[host_end..])
}
