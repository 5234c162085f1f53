//! Byte-slice helpers shared by the scanners (secrets, integrity). Needles are non-empty
//! literals.

/// `needle` occurs in `hay`.
pub fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// `needle` occurs in `hay`, ASCII case-insensitively.
pub fn contains_ci(hay: &[u8], needle: &[u8]) -> bool {
    find_ci(hay, needle).is_some()
}

/// Where `needle` first occurs in `hay`, ASCII case-insensitively.
pub fn find_ci(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
}

/// `hay` ends with `needle`, ASCII case-insensitively.
pub fn ends_with_ci(hay: &[u8], needle: &[u8]) -> bool {
    hay.len() >= needle.len() && hay[hay.len() - needle.len()..].eq_ignore_ascii_case(needle)
}

/// `hay` starts with `needle`, ASCII case-insensitively.
pub fn starts_with_ci(hay: &[u8], needle: &[u8]) -> bool {
    hay.len() >= needle.len() && hay[..needle.len()].eq_ignore_ascii_case(needle)
}

/// The first index at or after `i` (and at most `end`) whose byte `f` rejects.
pub fn run_while(b: &[u8], mut i: usize, end: usize, f: impl Fn(u8) -> bool) -> usize {
    while i < end && f(b[i]) {
        i += 1;
    }
    i
}

/// The first index at or after `i` that is not a space or tab.
pub fn skip_blanks(b: &[u8], i: usize) -> usize {
    run_while(b, i, b.len(), |c| c == b' ' || c == b'\t')
}

// Shell tokens (a command line split at blanks).

/// `tok` without the bytes of `lead` at its start and of `trail` at its end.
fn trimmed<'a>(tok: &'a [u8], lead: &[u8], trail: &[u8]) -> &'a [u8] {
    let s = tok
        .iter()
        .position(|c| !lead.contains(c))
        .unwrap_or(tok.len());
    let e = tok[s..]
        .iter()
        .rposition(|c| !trail.contains(c))
        .map_or(s, |p| s + p + 1);
    &tok[s..e]
}

/// What a token names: quotes and `$(`-style openers stripped, leading directories dropped.
pub fn command_name(tok: &[u8]) -> &[u8] {
    let t = trimmed(tok, b"`'\"($<{", b"`'\");,}.");
    match t.iter().rposition(|&c| c == b'/') {
        Some(p) if p + 1 < t.len() => &t[p + 1..],
        _ => t,
    }
}

/// `tok` without quotes and parentheses around it.
pub fn unquoted(tok: &[u8]) -> &[u8] {
    trimmed(tok, b"`'\"(", b"`'\");,")
}

/// The file a path or URL token names (after its last `/`, before `?` or `#`).
pub fn basename(tok: &[u8]) -> &[u8] {
    let t = unquoted(tok);
    let t = &t[..t.iter().position(|c| b"?#".contains(c)).unwrap_or(t.len())];
    &t[t.iter()
        .rposition(|&c| c == b'/' || c == b'\\')
        .map_or(0, |p| p + 1)..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_lose_their_quotes_and_commands_their_directories() {
        assert_eq!(unquoted(b"\"(x)\";"), b"x");
        assert_eq!(unquoted(b"''"), b"");
        assert_eq!(command_name(b"$(/usr/bin/curl"), b"curl");
        assert_eq!(command_name(b"`sh`;"), b"sh");
        assert_eq!(command_name(b"/"), b"/");
        assert_eq!(command_name(b"dir/"), b"dir/");
        assert_eq!(command_name(b""), b"");
    }
}
