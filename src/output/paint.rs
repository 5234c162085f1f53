//! Colours for the commands git would colour (`log`, `diff`, `show`), as git paints its
//! own: ids yellow, added lines green, removed red, headings bold. Applied to sanitized
//! lines only, and only when [`super::Ui::color`] is on.

const YELLOW: &str = "\x1b[33m";
const GREEN: &str = "\x1b[32m";
const RED: &str = "\x1b[31m";
const CYAN: &str = "\x1b[36m";
const BOLD: &str = "\x1b[1m";
const RESET: &str = "\x1b[m";

fn wrap(style: &str, s: &str) -> String {
    format!("{style}{s}{RESET}")
}

/// A `log` line: the short id in yellow, as `git log --oneline` shows it.
pub fn log_line(line: &str) -> String {
    match line.split_once(' ') {
        Some((id, rest)) if id.chars().all(|c| c.is_ascii_hexdigit()) && !id.is_empty() => {
            format!("{} {rest}", wrap(YELLOW, id))
        }
        _ => line.to_owned(),
    }
}

/// A `diff` line: file headers bold, hunks cyan, added lines green, removed red.
pub fn diff_line(line: &str) -> String {
    if line.starts_with("diff ") || line.starts_with("--- ") || line.starts_with("+++ ") {
        wrap(BOLD, line)
    } else if line.starts_with("@@") {
        wrap(CYAN, line)
    } else if line.starts_with('+') {
        wrap(GREEN, line)
    } else if line.starts_with('-') {
        wrap(RED, line)
    } else {
        line.to_owned()
    }
}

/// A `show` line: markdown headings bold.
pub fn show_line(line: &str) -> String {
    if line.starts_with('#') {
        wrap(BOLD, line)
    } else {
        line.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_painted_as_git_paints_them() {
        assert_eq!(
            log_line("abc123 2026 memory: x"),
            "\x1b[33mabc123\x1b[m 2026 memory: x"
        );
        assert_eq!(diff_line("+ added"), "\x1b[32m+ added\x1b[m");
        assert_eq!(diff_line("- gone"), "\x1b[31m- gone\x1b[m");
        assert_eq!(diff_line(" same"), " same");
        assert_eq!(
            show_line("## [2026-01-01] Decision"),
            "\x1b[1m## [2026-01-01] Decision\x1b[m"
        );
    }
}
