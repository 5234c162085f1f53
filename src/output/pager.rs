//! The pager `log`, `diff` and `show` write through on a terminal, chosen as git chooses
//! its own (GIT_PAGER, core.pager, PAGER, then `less`), and whether to colour.

use std::io::IsTerminal;
use std::process::{Child, Command, Stdio};

/// The pager to use, or `None`: not on a terminal, `--no-pager` (or `git --no-pager`, which
/// sets GIT_PAGER=cat), git already paging (`git -p rune log`), or a pager set to `cat` or
/// to nothing. `core_pager` is the `core.pager` setting.
pub fn choose(no_pager: bool, core_pager: Option<String>) -> Option<String> {
    if no_pager || !std::io::stdout().is_terminal() {
        return None;
    }
    pick(
        std::env::var("GIT_PAGER_IN_USE").ok().as_deref(),
        std::env::var("GIT_PAGER").ok(),
        core_pager,
        std::env::var("PAGER").ok(),
    )
}

/// git's order, without the terminal check.
fn pick(
    in_use: Option<&str>,
    git_pager: Option<String>,
    core_pager: Option<String>,
    pager: Option<String>,
) -> Option<String> {
    if in_use.is_some_and(|v| crate::settings::parse_bool(Some(v)) == Some(true)) {
        return None;
    }
    let chosen = git_pager
        .or(core_pager)
        .or(pager)
        .unwrap_or_else(|| "less".to_owned());
    let trimmed = chosen.trim();
    (!trimmed.is_empty() && trimmed != "cat").then(|| trimmed.to_owned())
}

/// Starts `cmd` through the shell with its input piped, setting `LESS=FRX` and `LV=-c` when
/// unset, as git does (quit when the text fits, keep colours, leave the screen as it is).
pub fn spawn(cmd: &str) -> std::io::Result<Child> {
    let mut c = Command::new("sh");
    c.arg("-c").arg(cmd).stdin(Stdio::piped());
    if std::env::var_os("LESS").is_none() {
        c.env("LESS", "FRX");
    }
    if std::env::var_os("LV").is_none() {
        c.env("LV", "-c");
    }
    c.env("GIT_PAGER_IN_USE", "true");
    c.spawn()
}

/// Whether to colour: `--color` first, then NO_COLOR, then `color.ui` (`color_ui`), then
/// whether stdout is a terminal that is not dumb.
pub fn color(flag: Option<&str>, color_ui: Option<String>) -> bool {
    decide_color(
        flag,
        std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
        color_ui.as_deref(),
        std::io::stdout().is_terminal() && std::env::var("TERM").map_or(true, |t| t != "dumb"),
    )
}

fn decide_color(
    flag: Option<&str>,
    no_color: bool,
    color_ui: Option<&str>,
    terminal: bool,
) -> bool {
    match flag {
        Some("always") => return true,
        Some("never") => return false,
        _ => {}
    }
    if no_color {
        return false;
    }
    match color_ui.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
        Some("always") => true,
        Some("never" | "false" | "no" | "off" | "0") => false,
        _ => terminal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pager_is_chosen_as_git_chooses() {
        let s = |v: &str| Some(v.to_owned());
        assert_eq!(pick(None, None, None, None), s("less"));
        assert_eq!(pick(None, s("most"), s("more"), s("pg")), s("most"));
        assert_eq!(pick(None, None, s("more"), s("pg")), s("more"));
        assert_eq!(pick(None, None, None, s("pg")), s("pg"));
        assert_eq!(pick(None, s("cat"), None, None), None);
        assert_eq!(pick(None, s(""), None, s("pg")), None);
        assert_eq!(pick(Some("true"), None, None, None), None);
    }

    #[test]
    fn colour_follows_flag_no_color_and_color_ui() {
        assert!(decide_color(Some("always"), true, Some("never"), false));
        assert!(!decide_color(Some("never"), false, Some("always"), true));
        assert!(!decide_color(None, true, Some("always"), true));
        assert!(decide_color(None, false, Some("always"), false));
        assert!(!decide_color(None, false, Some("false"), true));
        assert!(decide_color(None, false, Some("auto"), true));
        assert!(!decide_color(None, false, None, false));
    }
}
