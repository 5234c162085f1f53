//! Forged frames and markers: the tags that end the quoted memory frame or open a turn of the
//! conversation, in any spelling a model still reads as one (HTML entities, URL encoding,
//! escapes, full-width and look-alike brackets, the frame's name in other brackets), HTML
//! comments, and bash's `/dev/tcp`.

use super::*;

bits! { pub(super) bit: FRAME = "frame", CLOSING = "closing" }

/// The end of a framing tag starting at `b[i] == '<'`.
pub(super) fn frame_tag(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    if b.get(j) == Some(&b'<') {
        // Llama-2 <<SYS>> and <</SYS>>
        j += 1 + usize::from(b.get(j + 1) == Some(&b'/'));
        let name = b.get(j..j + 5)?;
        return (name[..3].eq_ignore_ascii_case(b"sys") && &name[3..] == b">>").then_some(j + 5);
    }
    j = skip_blanks(b, j);
    let closing = b.get(j) == Some(&b'/');
    j = skip_blanks(b, j + usize::from(closing));
    let ns = j;
    j = run_while(b, ns, b.len().min(ns + 41), |c| {
        c.is_ascii_alphanumeric() || b"_-|:".contains(&c)
    });
    let name = &b[ns..j];
    // <|im_start|>, <|endoftext|>, <|eot_id|>: any special-token shape.
    let special = name.len() >= 3 && name[0] == b'|' && name[name.len() - 1] == b'|';
    // A namespaced tag (`<ns:function_calls>`) is judged by its local name.
    let local = name.rsplit(|&c| c == b':').next().unwrap_or(name);
    let m = mask(local);
    // `<system-prompt>`, `<system_message>`: any tag named after the system turn.
    let system_kind = local.len() > 7
        && local[..6].eq_ignore_ascii_case(b"system")
        && matches!(local[6], b'-' | b'_');
    if !(special || system_kind || m & FRAME != 0 || (closing && m & CLOSING != 0)) {
        return None;
    }
    let after = skip_blanks(b, j);
    match b.get(after)? {
        b'>' => Some(after + 1),
        b'/' if b.get(after + 1) == Some(&b'>') => Some(after + 2),
        _ if after > j => {
            // Attributes (<rune-memory source="x">). Stopping at `<` and line breaks keeps the
            // look-ahead of consecutive tags from overlapping, so the pass stays linear.
            let k = run_while(b, after, b.len(), |c| !b"><\n".contains(&c));
            (b.get(k) == Some(&b'>')).then_some(k + 1)
        }
        _ => None,
    }
}

/// The end of an `[INST]` or `[/INST]` marker starting at `b[i] == '['`.
pub(super) fn inst_tag(b: &[u8], i: usize) -> Option<usize> {
    let mut j = skip_blanks(b, i + 1);
    j = skip_blanks(b, j + usize::from(b.get(j) == Some(&b'/')));
    let k = skip_blanks(b, j + 4);
    (b.get(j..j + 4)?.eq_ignore_ascii_case(b"inst") && b.get(k) == Some(&b']')).then_some(k + 1)
}

/// `forged-frame-marker` (TAINTED): the load output wraps memory in `<rune-memory>`, and models
/// are trained on role markers (`<system>`, `<|im_start|>`, `[INST]`, `<<SYS>>`, `</user>`);
/// memory holding them can end its quoted frame early and speak as the operator. Any case,
/// optional spaces, attributes. [`escape_framing`] defuses them for display, but
/// they are still withheld: quoting a frame marker has no honest use in memory.
///
/// `html-comment` (SUSPICIOUS): `<!-- … -->` is invisible in rendered markdown, so a reviewer
/// reading the view never sees what the agent reads.
///
/// `reverse-shell` (TAINTED), device form: bash's `/dev/tcp/host/port` (and `/dev/udp/`) opens a
/// raw connection from a shell, the core of a reverse shell.
pub(super) fn scan_markers(text: &str, out: &mut Sink) {
    for (s, e, _) in frame_spans(text) {
        out.hit("forged-frame-marker", s, e);
    }
    for (s, e) in frame_delimiters(text) {
        out.hit("role-marker", s, e);
    }
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let found = match b[i] {
            b'<' if b[i..].starts_with(b"<!--") => Some(("html-comment", b.len(), i + 4)),
            b'/' if [&b"/dev/tcp/"[..], b"/dev/udp/"]
                .iter()
                .any(|d| b.get(i..i + 9).is_some_and(|s| s.eq_ignore_ascii_case(d))) =>
            {
                Some(("reverse-shell", i + 9, i + 9))
            }
            _ => None,
        };
        match found {
            Some((rule, end, resume)) => {
                out.hit(rule, i, end);
                i = resume;
            }
            None => i += 1,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Encoded and look-alike spellings.

/// The frame's own name, which no honest text puts in brackets: `[/rune-memory]`,
/// `{rune_memory}`, `</rune memory` (unclosed) count as well as the angle-bracket tag.
fn rune_memory_at(b: &[u8], i: usize) -> Option<usize> {
    let name = b.get(i..i + 4)?;
    if !name.eq_ignore_ascii_case(b"rune") {
        return None;
    }
    let mut j = i + 4;
    if matches!(b.get(j), Some(b'-' | b'_' | b' ' | b'.')) {
        j += 1;
    }
    let rest = b.get(j..j + 6)?;
    (rest.eq_ignore_ascii_case(b"memory") && !b.get(j + 6).is_some_and(u8::is_ascii_alphanumeric))
        .then_some(j + 6)
}

/// The end of a frame-name tag in a bracket other than `<…>` (or an unclosed `<…`) starting
/// at `b[i]`.
fn bracketed_frame(b: &[u8], i: usize) -> Option<usize> {
    let close = match b[i] {
        b'[' => b']',
        b'{' => b'}',
        b'(' => b')',
        b'<' => b'>',
        _ => return None,
    };
    let mut j = skip_blanks(b, i + 1);
    j = skip_blanks(b, j + usize::from(b.get(j) == Some(&b'/')));
    let end = rune_memory_at(b, j)?;
    let k = skip_blanks(b, end);
    Some(if b.get(k) == Some(&close) { k + 1 } else { end })
}

/// A copy of a text with encoded and look-alike brackets decoded, and the offset in the text
/// each of its bytes came from.
struct Decoded {
    text: Vec<u8>,
    map: Vec<usize>,
}

/// What a look-alike stands for: angle brackets drawn otherwise, slashes and dashes.
fn look_alike(c: char) -> Option<u8> {
    Some(match c {
        '\u{02C2}' | '\u{1438}' | '\u{27E8}' | '\u{3008}' | '\u{276E}' | '\u{29FC}'
        | '\u{2329}' | '\u{276C}' | '\u{2770}' | '\u{FE64}' | '\u{FF1C}' => b'<',
        '\u{02C3}' | '\u{1433}' | '\u{27E9}' | '\u{3009}' | '\u{276F}' | '\u{29FD}'
        | '\u{232A}' | '\u{276D}' | '\u{2771}' | '\u{FE65}' | '\u{FF1E}' => b'>',
        '\u{2215}' | '\u{2044}' | '\u{29F8}' | '\u{FF0F}' => b'/',
        '\u{2010}'..='\u{2015}' | '\u{2212}' => b'-',
        _ => return None,
    })
}

/// The ASCII character an entity names (`lt`, `#60`, `#x3c`), printable ASCII only.
fn entity(name: &[u8]) -> Option<u8> {
    let lower = name.to_ascii_lowercase();
    let named = match lower.as_slice() {
        b"lt" => Some(b'<'),
        b"gt" => Some(b'>'),
        b"sol" => Some(b'/'),
        b"verbar" | b"vert" => Some(b'|'),
        b"lsqb" | b"lbrack" => Some(b'['),
        b"rsqb" | b"rbrack" => Some(b']'),
        b"lcub" | b"lbrace" => Some(b'{'),
        b"rcub" | b"rbrace" => Some(b'}'),
        b"lpar" => Some(b'('),
        b"rpar" => Some(b')'),
        b"amp" => Some(b'&'),
        b"percnt" => Some(b'%'),
        b"bsol" => Some(b'\\'),
        _ => None,
    };
    if named.is_some() {
        return named;
    }
    let n = lower.strip_prefix(b"#")?;
    let v = match n.strip_prefix(b"x") {
        Some(h) => u32::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()?,
        None => std::str::from_utf8(n).ok()?.parse().ok()?,
    };
    (0x20..0x7F).contains(&v).then_some(v as u8)
}

fn hex(b: &[u8]) -> Option<u8> {
    let v = u32::from_str_radix(std::str::from_utf8(b).ok()?, 16).ok()?;
    (0x20..0x7F).contains(&v).then_some(v as u8)
}

/// One round of decoding: entities, `%XX`, `\\uXXXX`, `\\xXX`, `\\u{XX}` to printable ASCII, and
/// look-alikes. `None` when nothing changed.
fn decode_round(t: &[u8]) -> Option<Decoded> {
    let mut out = Decoded {
        text: Vec::with_capacity(t.len()),
        map: Vec::with_capacity(t.len() + 1),
    };
    let mut changed = false;
    let mut i = 0;
    while i < t.len() {
        let c = t[i];
        let (byte, len) = match c {
            b'&' => {
                let e = t[i + 1..]
                    .iter()
                    .take(10)
                    .position(|&x| !(x.is_ascii_alphanumeric() || x == b'#'))
                    .map_or((t.len() - i - 1).min(10), |p| p);
                let semi = usize::from(t.get(i + 1 + e) == Some(&b';'));
                let x = (e > 0).then(|| entity(&t[i + 1..i + 1 + e])).flatten();
                x.map_or((None, 1), |x| (Some(x), 1 + e + semi))
            }
            b'%' => t
                .get(i + 1..i + 3)
                .and_then(hex)
                .map_or((None, 1), |x| (Some(x), 3)),
            b'\\' => {
                let r = &t[i + 1..];
                if r.starts_with(b"u{") {
                    let e = r.iter().take(10).position(|&x| x == b'}');
                    let x = e.and_then(|e| hex(&r[2..e]).map(|x| (x, e)));
                    x.map_or((None, 1), |(x, e)| (Some(x), 2 + e))
                } else if r.first().is_some_and(|&x| x == b'u' || x == b'U') {
                    r.get(1..5)
                        .and_then(hex)
                        .map_or((None, 1), |x| (Some(x), 6))
                } else if r.first() == Some(&b'x') {
                    r.get(1..3)
                        .and_then(hex)
                        .map_or((None, 1), |x| (Some(x), 4))
                } else {
                    (None, 1)
                }
            }
            c if c >= 0x80 => {
                let ch = std::str::from_utf8(&t[i..(i + 4).min(t.len())])
                    .or_else(|e| std::str::from_utf8(&t[i..i + e.valid_up_to()]))
                    .ok()
                    .and_then(|s| s.chars().next());
                ch.map_or((None, 1), |ch| (look_alike(ch), ch.len_utf8()))
            }
            _ => (None, 1),
        };
        match byte {
            Some(x) => {
                changed = true;
                out.text.push(x);
                out.map.push(i);
            }
            None => {
                out.text.extend_from_slice(&t[i..i + len]);
                out.map.extend(i..i + len);
            }
        }
        i += len;
    }
    out.map.push(t.len());
    changed.then_some(out)
}

/// `t` decoded until nothing changes (at most three rounds, for `&amp;lt;` and `%253C`), with
/// offsets into `t`; `None` when there is nothing to decode.
fn decode(t: &[u8]) -> Option<Decoded> {
    let quick = t
        .iter()
        .any(|&c| matches!(c, b'&' | b'%' | b'\\') || c >= 0x80);
    if !quick {
        return None;
    }
    let mut d = decode_round(t)?;
    for _ in 0..2 {
        match decode_round(&d.text) {
            Some(next) => {
                let map = next.map.iter().map(|&k| d.map[k]).collect();
                d = Decoded {
                    text: next.text,
                    map,
                };
            }
            None => break,
        }
    }
    Some(d)
}

/// How a frame tag found in a text is written.
#[derive(Debug, PartialEq)]
pub(super) enum Tag {
    /// `<…>`, brackets possibly full width or drawn by look-alikes that NFKD folds.
    Angle,
    /// `[INST]`, which [`escape_framing`] leaves alone.
    Inst,
    /// Anything else (encoded, look-alike brackets, the frame's name in other brackets):
    /// the tag as a model reads it (`</rune-memory>`).
    Other(String),
}

/// The frame tag starting at `b[i]`, and its end.
fn tag_at(b: &[u8], i: usize) -> Option<(usize, Tag)> {
    let other = |e: usize| {
        (
            e,
            Tag::Other(String::from_utf8_lossy(&b[i..e]).into_owned()),
        )
    };
    match b[i] {
        b'<' => frame_tag(b, i).map(|e| (e, Tag::Angle)),
        b'[' => inst_tag(b, i).map(|e| (e, Tag::Inst)),
        _ => None,
    }
    .or_else(|| bracketed_frame(b, i).map(other))
}

/// The frame tags of `b`, left to right, as (start, end, tag).
fn tags(b: &[u8]) -> Vec<(usize, usize, Tag)> {
    let (mut out, mut i) = (Vec::new(), 0);
    while i < b.len() {
        match tag_at(b, i) {
            Some((e, tag)) => {
                out.push((i, e, tag));
                i = e;
            }
            None => i += 1,
        }
    }
    out
}

/// The frame tags of normal form `t` (angle-bracket ones, `[INST]`, and the frame's name in
/// any bracket, also through entities, URL encoding, escapes and look-alike brackets), as
/// sorted spans of `t`.
pub(super) fn frame_spans(t: &str) -> Vec<(usize, usize, Tag)> {
    let mut spans = tags(t.as_bytes());
    if let Some(d) = decode(t.as_bytes()) {
        for (i, e, tag) in tags(&d.text) {
            let (s, e2) = (d.map[i], d.map[e]);
            if !spans.iter().any(|(a, z, _)| *a < e2 && s < *z) {
                // A decoded `<…>` is shown as a model reads it.
                let tag = match tag {
                    Tag::Angle => Tag::Other(String::from_utf8_lossy(&d.text[i..e]).into_owned()),
                    tag => tag,
                };
                spans.push((s, e2, tag));
            }
        }
        spans.sort_unstable_by_key(|s| s.0);
    }
    spans
}

/// Delimiter lines that pose as a frame's edge in no tag syntax: `<<END_OF_MEMORY>>`,
/// `-----END MEMORY BLOCK-----`, `### BEGIN SYSTEM PROMPT ###`. The line is the words alone
/// between runs of delimiter signs (two at least); the words are an edge (`@frame-edges`), a
/// frame's noun (`@frame-nouns`) and fillers, written in capitals or joined by underscores, as
/// no sentence is. `-----END CERTIFICATE-----` names no frame. SUSPICIOUS `role-marker`: an
/// order after it is read by the order rules.
fn frame_delimiters(text: &str) -> Vec<(usize, usize)> {
    const SIGNS: &str = "<>[]{}()-=#*_~|/: ";
    let sets = super::tables::sets();
    let (edges, nouns, fillers) = (
        sets.set("frame-edges"),
        sets.set("frame-nouns"),
        sets.set("frame-fillers"),
    );
    let mut out = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let body = line.trim();
        if body.len() > 80 {
            continue;
        }
        let inner = body.trim_matches(|c| SIGNS.contains(c));
        let signs_in = |s: &str| {
            s.chars()
                .filter(|c| SIGNS.contains(*c) && *c != ' ')
                .count()
        };
        let signs = signs_in(body) - signs_in(inner);
        if signs < 2 || inner.is_empty() {
            continue;
        }
        let shouted = !inner.chars().any(char::is_lowercase) || inner.contains('_');
        let words = super::mentions::lower_words(inner);
        let has = |set: &[&str], w: &String| set.contains(&w.as_str());
        if shouted
            && (2..=6).contains(&words.len())
            && words.iter().any(|w| has(edges, w))
            && words.iter().any(|w| has(nouns, w))
            && words
                .iter()
                .all(|w| has(edges, w) || has(nouns, w) || has(fillers, w))
        {
            let s = start + (line.len() - line.trim_start().len());
            out.push((s, s + body.len()));
        }
    }
    out
}
