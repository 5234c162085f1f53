//! Small text forms shared by everything that shows memory: short ids, times, one-line
//! fields. Pure.

use super::sanitize;

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

/// A field on one line, sanitised: runs of whitespace (newlines included) become one space.
pub fn one_line(s: &str) -> String {
    sanitize(&s.split_whitespace().collect::<Vec<_>>().join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms() {
        assert_eq!(short("0123456789abcdef"), "01234567");
        assert_eq!(short("ab"), "ab");
        assert_eq!(pretty_time("2026-04-04T14:30:00Z"), "2026-04-04 14:30");
        assert_eq!(pretty_time("2026-04-04"), "2026-04-04");
        assert_eq!(one_line(" a\n b\tc "), "a b c");
    }
}
