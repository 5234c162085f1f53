//! Text helpers every layer shares: removing what must not reach a terminal or an agent
//! unseen (control sequences, bidi controls, zero-width characters in text that agents or
//! other clones wrote), and the short forms memory is shown in (ids, times, one-line
//! fields). Pure.

/// The blank-separated items of `s`, `"…"` quoting one that holds blanks (the data files'
/// lists); `None` when a quote is left open.
pub fn split_quoted(s: &str) -> Option<Vec<&str>> {
    let (mut out, mut rest) = (Vec::new(), s.trim_start());
    while !rest.is_empty() {
        let (item, after) = match rest.strip_prefix('"') {
            Some(q) => q.split_at(q.find('"')?),
            None => rest.split_at(rest.find(char::is_whitespace).unwrap_or(rest.len())),
        };
        out.push(item);
        // (past a quoted item's closing quote)
        rest = after.strip_prefix('"').unwrap_or(after).trim_start();
    }
    Some(out)
}

/// Removes terminal control sequences and bidi/zero-width characters, keeping newlines and
/// tabs. Applied to everything printed that came from records.
pub fn sanitize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' | '\t' => out.push(c),
            '\u{1b}' => {
                // Skip an escape sequence: ESC [ ... final byte, or ESC ] ... BEL/ST, or ESC x.
                match chars.peek() {
                    Some('[') => {
                        chars.next();
                        for d in chars.by_ref() {
                            if ('@'..='~').contains(&d) {
                                break;
                            }
                        }
                    }
                    Some(']') => {
                        chars.next();
                        while let Some(d) = chars.next() {
                            if d == '\u{7}' {
                                break;
                            }
                            if d == '\u{1b}' && chars.peek() == Some(&'\\') {
                                chars.next();
                                break;
                            }
                        }
                    }
                    Some(_) => {
                        chars.next();
                    }
                    None => {}
                }
            }
            c if c.is_control() => {}
            c if is_invisible(c) => {}
            c => out.push(c),
        }
    }
    out
}

/// Characters that hide text from a reader or reorder it: bidi controls, zero-width
/// characters, line separators, the soft hyphen, the BOM, invisible fillers, interlinear
/// annotation marks, Unicode tag characters (U+E0000–E007F, which can spell out a whole
/// hidden message) and the variation selectors that carry no presentation (U+FE00–FE0D,
/// U+E0100–E01EF: they too can smuggle bytes behind a visible character). Text and emoji
/// presentation selectors (U+FE0E, U+FE0F) stay.
fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{200b}'..='\u{200f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2028}' | '\u{2029}'
        | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{206f}'
        | '\u{00ad}'
        | '\u{034f}'
        | '\u{061c}'
        | '\u{115f}' | '\u{1160}' | '\u{3164}' | '\u{ffa0}'
        | '\u{180e}'
        | '\u{feff}'
        | '\u{fe00}'..='\u{fe0d}'
        | '\u{fff9}'..='\u{fffb}'
        | '\u{e0000}'..='\u{e007f}'
        | '\u{e0100}'..='\u{e01ef}'
    )
}

/// The first eight hex digits of an id.
pub fn short(id: &str) -> &str {
    &id[..id.len().min(8)]
}

/// `2026-04-04T14:30:00Z` as `2026-04-04 14:30`.
pub fn pretty_time(ts: &str) -> String {
    if ts.len() >= 16 {
        format!("{} {}", &ts[..10], &ts[11..16])
    } else {
        ts.to_owned()
    }
}

/// Whole days from one RFC 3339 time to another (0 when either does not parse).
pub fn days_between(earlier: &str, later: &str) -> i64 {
    secs_between(earlier, later) / 86_400
}

/// Seconds from `earlier` to `later` (negative when `later` is earlier; 0 when either is not
/// a time).
pub fn secs_between(earlier: &str, later: &str) -> i64 {
    let parse = |s: &str| chrono::DateTime::parse_from_rfc3339(s).ok();
    match (parse(earlier), parse(later)) {
        (Some(a), Some(b)) => (b - a).num_seconds(),
        _ => 0,
    }
}

/// `ts` plus `secs` seconds, as RFC 3339 UTC to the second; `None` when `ts` is not a time.
pub fn add_secs(ts: &str, secs: i64) -> Option<String> {
    let t = chrono::DateTime::parse_from_rfc3339(ts).ok()?;
    let t = t.with_timezone(&chrono::Utc) + chrono::Duration::seconds(secs);
    Some(t.format("%Y-%m-%dT%H:%M:%SZ").to_string())
}

/// The first line of `s` (empty for an empty text).
pub fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

/// A field on one line, sanitised: runs of whitespace (newlines included) become one space.
pub fn one_line(s: &str) -> String {
    sanitize(&s.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// `text` without the lines from a `begin` line to the next `end` line (both included): the
/// marked block git-rune adds to a file the user owns, taken out byte for byte.
pub fn without_block(text: &str, begin: &str, end: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut inside = false;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches('\n').trim_end_matches('\r');
        if !inside && bare == begin {
            inside = true;
            continue;
        }
        if inside {
            if bare == end {
                inside = false;
            }
            continue;
        }
        out.push_str(line);
    }
    out
}

/// The gate's SUSPICIOUS mark for `rules`, as every reader shows it at the start of a text.
pub fn mark(rules: &[&str]) -> String {
    format!("[SUSPICIOUS: {}] ", rules.join(", "))
}

/// `text` without the gate's own SUSPICIOUS mark at its start ([`mark`]: one a reader printed
/// that came back in, a re-imported export, a view file saved back, a copied line); what it
/// marked is judged afresh.
pub fn unmark(text: &str) -> &str {
    text.strip_prefix("[SUSPICIOUS: ")
        .and_then(|rest| rest.split_once("] "))
        .filter(|(rules, _)| {
            !rules.is_empty()
                && (rules.bytes()).all(|b| b.is_ascii_lowercase() || b"0123456789-, ".contains(&b))
        })
        .map_or(text, |(_, rest)| rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitize_strips_escapes_and_bidi() {
        assert_eq!(sanitize("a\u{1b}[31mred\u{1b}[0m b"), "ared b");
        assert_eq!(sanitize("x\u{1b}]0;title\u{7}y"), "xy");
        assert_eq!(sanitize("ab\u{202e}cd\u{200b}e"), "abcde");
        assert_eq!(sanitize("line\nnext\ttab\r"), "line\nnext\ttab");
        // C1 controls, BEL, tag characters, hidden variation selectors, fillers.
        assert_eq!(sanitize("a\u{9b}31mb\u{7}c\u{85}d"), "a31mbcd");
        assert_eq!(sanitize("ok\u{e0041}\u{e0042}\u{e007f}!"), "ok!");
        assert_eq!(sanitize("😀\u{fe00}\u{e0100}x\u{3164}y"), "😀xy");
        // Emoji presentation stays.
        assert_eq!(sanitize("❤\u{fe0f}"), "❤\u{fe0f}");
    }

    #[test]
    fn forms() {
        assert_eq!(short("0123456789abcdef"), "01234567");
        assert_eq!(short("ab"), "ab");
        assert_eq!(pretty_time("2026-04-04T14:30:00Z"), "2026-04-04 14:30");
        assert_eq!(pretty_time("2026-04-04"), "2026-04-04");
        assert_eq!(one_line(" a\n b\tc "), "a b c");
    }
}
