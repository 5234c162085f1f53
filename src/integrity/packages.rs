//! Look-alike package names (`typosquat-package`): a name one edit away from a package most
//! projects depend on (`axois` for `axios`, `requets` for `requests`, `urllib4` for `urllib3`),
//! written where a package is named: in quotes or a code span, with a version, or after an
//! install command's verb.

use super::tables::{any_in, sets};
use super::*;

/// `typosquat-package` (SUSPICIOUS). The well-known names are `@popular-packages`, the verbs
/// `@install-verbs`. Plurals (`panda` for `pandas`) are words, not look-alikes.
pub(super) fn scan_packages(text: &str, out: &mut Sink) {
    let b = text.as_bytes();
    let popular = sets().set("popular-packages");
    let name_char = |c: u8| c.is_ascii_alphanumeric() || b"-_.".contains(&c);
    let mut i = 0;
    while i < b.len() {
        // (Not inside a word, a path or a URL: `/search`, `https://`.)
        if !b[i].is_ascii_alphanumeric() || (i > 0 && (name_char(b[i - 1]) || b[i - 1] == b'/')) {
            i += 1;
            continue;
        }
        let s = i;
        i = run_while(b, i, b.len(), name_char);
        if b.get(i) == Some(&b':') || b.get(i) == Some(&b'/') {
            continue;
        }
        let word = b[s..i].strip_suffix(b".").unwrap_or(&b[s..i]);
        if word.len() < 5 || word.len() > 40 {
            continue;
        }
        let lower = word.to_ascii_lowercase();
        let Some(real) = popular
            .iter()
            .map(|p| p.as_bytes())
            .filter(|p| p.len() >= 5)
            .find(|p| one_edit(&lower, p))
        else {
            continue;
        };
        if popular.iter().any(|p| p.as_bytes() == lower.as_slice())
            || lower.strip_suffix(b"s") == Some(real)
            || real.strip_suffix(b"s") == Some(lower.as_slice())
        {
            continue;
        }
        let quoted = text[..s]
            .chars()
            .next_back()
            .is_some_and(|c| "`'\"\u{201C}\u{201E}\u{AB}\u{300C}".contains(c));
        let versioned = matches!(b.get(i..i + 2), Some(b"==" | b"@^" | b"@~" | b">="))
            || b.get(i) == Some(&b'@') && b.get(i + 1).is_some_and(u8::is_ascii_digit);
        // Right after an install command's verb (`pip install X`, `yarn add -D X`).
        let previous = b[..s]
            .rsplit(|c| c.is_ascii_whitespace())
            .filter(|w| !w.is_empty() && !w.starts_with(b"-"))
            .nth(usize::from(s > 0 && !b[s - 1].is_ascii_whitespace()))
            .unwrap_or_default();
        let cued = any_in("install-verbs", |v| previous.eq_ignore_ascii_case(v));
        if quoted || versioned || cued {
            out.hit("typosquat-package", s, s + word.len());
        }
    }
}

/// Whether `a` is one edit from `b`: one character replaced, added or dropped, or two
/// neighbours swapped.
fn one_edit(a: &[u8], b: &[u8]) -> bool {
    if a == b || a.len().abs_diff(b.len()) > 1 {
        return false;
    }
    let p = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (ra, rb) = (&a[p..], &b[p..]);
    match a.len().cmp(&b.len()) {
        std::cmp::Ordering::Equal => {
            ra[1..] == rb[1..]
                || ra.len() >= 2 && ra[0] == rb[1] && ra[1] == rb[0] && ra[2..] == rb[2..]
        }
        std::cmp::Ordering::Less => ra == &rb[1..],
        std::cmp::Ordering::Greater => &ra[1..] == rb,
    }
}
