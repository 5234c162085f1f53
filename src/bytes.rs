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

/// The first index at or after `i` that is not a space or tab.
pub fn skip_blanks(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
        i += 1;
    }
    i
}

// Shell tokens (a command line split at blanks).

/// What a token names: quotes and `$(`-style openers stripped, leading directories dropped.
pub fn command_name(tok: &[u8]) -> &[u8] {
    let (mut s, mut e) = (0, tok.len());
    while s < e && b"`'\"($<{".contains(&tok[s]) {
        s += 1;
    }
    while e > s && b"`'\");,}.".contains(&tok[e - 1]) {
        e -= 1;
    }
    let mut base = e;
    while base > s && tok[base - 1] != b'/' {
        base -= 1;
    }
    if base == e {
        &tok[s..e]
    } else {
        &tok[base..e]
    }
}

/// `tok` without quotes and parentheses around it.
pub fn unquoted(tok: &[u8]) -> &[u8] {
    let (mut s, mut e) = (0, tok.len());
    while s < e && b"`'\"(".contains(&tok[s]) {
        s += 1;
    }
    while e > s && b"`'\");,".contains(&tok[e - 1]) {
        e -= 1;
    }
    &tok[s..e]
}

/// The file a path or URL token names (after its last `/`, before `?` or `#`).
pub fn basename(tok: &[u8]) -> &[u8] {
    let t = unquoted(tok);
    let t = &t[..t.iter().position(|c| b"?#".contains(c)).unwrap_or(t.len())];
    &t[t.iter()
        .rposition(|&c| c == b'/' || c == b'\\')
        .map_or(0, |p| p + 1)..]
}
