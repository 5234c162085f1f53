//! Removing what must not reach a terminal or an agent unseen: control sequences, bidi
//! controls and zero-width characters in text that agents or other clones wrote.

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

/// Bidi controls, zero-width characters and line separators that hide text from a reader.
fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{200b}'..='\u{200f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2028}' | '\u{2029}'
        | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{2069}'
        | '\u{00ad}'
        | '\u{feff}'
    )
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
    }
}
