//! Hidden and control characters: invisible, bidirectional and tag characters, and control
//! bytes that terminals and models read differently from people.

use super::*;

// ---------------------------------------------------------------------------------------------
// Hidden and control characters.

/// Characters that render as nothing (or reorder what is rendered), with a short name.
pub(super) fn hidden_kind(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{00AD}' => "soft hyphen",
        '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}' => "hangul filler",
        '\u{180E}' => "mongolian vowel separator",
        '\u{200B}' => "zero width space",
        '\u{200C}' => "zero width non-joiner",
        '\u{200D}' => "zero width joiner",
        '\u{2028}' => "line separator",
        '\u{2029}' => "paragraph separator",
        '\u{202A}'..='\u{202E}' => "bidi embedding/override",
        '\u{2060}' => "word joiner",
        '\u{2061}'..='\u{2064}' => "invisible math operator",
        '\u{2066}'..='\u{2069}' => "bidi isolate",
        '\u{FEFF}' => "zero width no-break space",
        '\u{FFF9}'..='\u{FFFB}' => "interlinear annotation",
        '\u{E0000}'..='\u{E007F}' => "tag character",
        '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}' => "variation selector",
        _ => return None,
    })
}

pub(super) fn is_emoji(c: char) -> bool {
    matches!(c as u32, 0x1F000..=0x1FAFF | 0x2300..=0x23FF | 0x2600..=0x27BF | 0x2B00..=0x2BFF)
}

pub(super) fn is_emoji_modifier(c: char) -> bool {
    matches!(c as u32, 0xFE0E | 0xFE0F | 0x1F3FB..=0x1F3FF)
}

pub(super) fn is_variation_selector(c: char) -> bool {
    matches!(c as u32, 0xFE00..=0xFE0F | 0xE0100..=0xE01EF)
}

/// Scripts that need joiners between letters: Arabic and Persian (ZWNJ in می‌خواهم), Syriac,
/// N'Ko, the Indic scripts, Mongolian.
pub(super) fn is_joining_script(c: char) -> bool {
    matches!(c as u32, 0x0600..=0x08FF | 0xFB50..=0xFDFF | 0xFE70..=0xFEFE | 0x0900..=0x0DFF | 0x1800..=0x18AF)
}

/// Scripts written without spaces, where ZWSP marks word breaks: Thai, Lao, Tibetan, Myanmar,
/// Khmer.
pub(super) fn is_unspaced_script(c: char) -> bool {
    matches!(c as u32, 0x0E00..=0x0FFF | 0x1000..=0x109F | 0x1780..=0x17FF)
}

/// `hidden-character` (TAINTED): zero-width characters, bidi controls, soft hyphens, line and
/// paragraph separators, Unicode tag characters and runs of variation selectors let a text
/// carry instructions a reviewer cannot see (tag characters spell ASCII invisibly; bidi
/// controls make text display in another order than it is read, as in "Trojan Source").
///
/// Allowed, because real text needs them and alone they carry no payload:
/// * one ZWJ between emoji (👩‍💻, 🏳️‍🌈; skin tones and U+FE0F may sit before it);
/// * one ZWJ or ZWNJ between two letters of a joining script (Persian, Arabic, Indic, Mongolian);
/// * one ZWSP between two letters of a script written without spaces (Thai, Lao, Khmer …);
/// * tag characters inside an emoji subdivision flag (🏴 + 1–7 tag letters + cancel tag);
/// * a single variation selector after any character (only runs can encode data);
/// * U+FEFF at offset 0 (a byte-order mark).
///
/// A lone ZWJ between Latin letters, or any run of invisible characters, is hidden text. A run
/// is reported once, at its first character. The directional marks U+200E, U+200F and U+061C
/// are left alone: right-to-left text needs them, and they only change how neutral characters
/// such as punctuation are placed, so they cannot reorder words.
///
/// `control-character` (SUSPICIOUS): C0/C1 controls other than tab, LF and CR have no place in
/// memory prose, and ANSI escapes can hide or rewrite text on a terminal. Often innocent (a
/// pasted coloured test log), so a warning rather than a withheld record.
pub(super) fn scan_hidden(text: &str, out: &mut Sink) {
    if text
        .bytes()
        .all(|c| matches!(c, b' '..=b'~' | b'\t' | b'\n' | b'\r'))
    {
        return; // plain printable ASCII, the common case
    }
    let mut chars = text.char_indices().peekable();
    let mut prev: Option<char> = None; // the last character, whatever it was
    let mut base: Option<char> = None; // the last character neither hidden nor a modifier
    let mut run: Option<(usize, char, usize, &'static str)> = None;
    let flush = |run: &mut Option<(usize, char, usize, &'static str)>, out: &mut Sink| {
        if let Some((at, first, n, rule)) = run.take() {
            let name = hidden_kind(first).unwrap_or("control");
            let s = if n == 1 { "" } else { "s" };
            out.note_original(rule, at, || {
                format!("{n} character{s} from U+{:04X} ({name})", first as u32)
            });
        }
    };
    while let Some((i, c)) = chars.next() {
        if c == '\u{1F3F4}' {
            // An emoji subdivision flag: 🏴 + tag letters + cancel tag, skipped whole.
            let mut look = chars.clone();
            let mut n = 0;
            while look
                .next_if(|&(_, t)| ('\u{E0020}'..='\u{E007E}').contains(&t))
                .is_some()
            {
                n += 1;
            }
            if (1..=7).contains(&n) && look.next_if(|&(_, t)| t == '\u{E007F}').is_some() {
                flush(&mut run, out);
                (chars, prev, base) = (look, Some('\u{E007F}'), Some(c));
                continue;
            }
        }
        let next = chars.peek().map(|&(_, n)| n);
        let rule = if hidden_kind(c).is_some() {
            let between =
                |f: fn(char) -> bool| prev == base && base.is_some_and(f) && next.is_some_and(f);
            let allowed = match c {
                '\u{200D}' => {
                    let after_emoji = prev.is_some_and(|p| is_emoji(p) || is_emoji_modifier(p));
                    (after_emoji && base.is_some_and(is_emoji) && next.is_some_and(is_emoji))
                        || between(is_joining_script)
                }
                '\u{200C}' => between(is_joining_script),
                '\u{200B}' => between(is_unspaced_script),
                '\u{FEFF}' => i == 0,
                c if is_variation_selector(c) => {
                    !prev.is_some_and(is_variation_selector)
                        && !next.is_some_and(is_variation_selector)
                }
                _ => false,
            };
            (!allowed).then_some("hidden-character")
        } else if c.is_control() && !matches!(c, '\t' | '\n' | '\r') {
            Some("control-character")
        } else {
            None
        };
        match (rule, &mut run) {
            (Some(r), Some((_, _, n, rr))) if *rr == r => *n += 1,
            (Some(r), _) => {
                flush(&mut run, out);
                run = Some((i, c, 1, r));
            }
            (None, _) => flush(&mut run, out),
        }
        prev = Some(c);
        if hidden_kind(c).is_none() && !is_emoji_modifier(c) {
            base = Some(c);
        }
    }
    flush(&mut run, out);
}
