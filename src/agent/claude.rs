//! Wiring Claude Code: git-rune's hooks merged into a settings file (`.claude/settings.json`,
//! `.claude/settings.local.json` or `~/.claude/settings.json`) with a concrete syntax tree, so
//! everything else in the file stays exactly as it was written — other hooks, permissions,
//! unknown keys, key order, layout — and uninstall removes only what install added.

use std::path::Path;

use jsonc_parser::json;

use super::settings_file::{
    event_array, hooks_at, label, open_for_install, ours_at, remove_hooks, string_at, write, Layout,
};
pub use super::settings_file::{Change, SettingsError};

/// The events git-rune handles, with the matchers it registers for each (`None`: no matcher).
/// `PostToolUseFailure` is where Claude Code sends a tool call that failed: it counts too.
pub const EVENTS: [(&str, &[Option<&str>]); 6] = [
    (
        "SessionStart",
        &[
            Some("startup"),
            Some("resume"),
            Some("clear"),
            Some("compact"),
        ],
    ),
    ("PreCompact", &[None]),
    ("PostToolUse", &[Some("*")]),
    ("PostToolUseFailure", &[Some("*")]),
    ("Stop", &[None]),
    ("SessionEnd", &[None]),
];

/// The command a hook entry runs: `git-rune agent hook <Event>`, the program `git rune agent
/// hook` runs, without git's own process in front of it. PostToolUse runs on every tool
/// call, and that process (git reading its config and finding the repository before it
/// starts git-rune) costs as much as the hook itself: measured, `git rune …` is 2.2–2.9× and
/// `git-rune …` 1.4× `git rev-parse HEAD` (docs/performance.md).
///
/// It is guarded as the git hooks are: where git-rune is not on PATH (a teammate who opens a
/// repository whose settings are committed, an agent started with another PATH) the command
/// does nothing and exits 0, leaving `<git-dir>/rune/agent-hook-missing` behind, so `git rune
/// agent status` there can say the hooks ran without it.
pub fn command(event: &str) -> String {
    format!("{GUARD} exec git-rune agent hook {event}")
}

/// What a hook command runs before git-rune: nothing at all, and exit 0, when git-rune is not
/// on PATH (the shell builtins `command -v` and `:`, plus git and mkdir only in that case).
pub const GUARD: &str = "command -v git-rune >/dev/null 2>&1 || { d=$(git rev-parse --git-dir 2>/dev/null) && mkdir -p \"$d/rune\" && : > \"$d/rune/agent-hook-missing\"; exit 0; };";

/// The file the guard leaves in `<git-dir>/rune/` when a hook ran without git-rune.
pub const MISSING_MARK: &str = "agent-hook-missing";

/// The event a git-rune hook command runs (either spelling, guarded or not), or `None` for
/// other commands. A command that does more than run git-rune's hook (after a guard of its
/// own that names git-rune) is the user's.
fn event_of(command: &str) -> Option<&str> {
    let c = command.trim();
    let (before, event) = ["git-rune agent hook ", "git rune agent hook "]
        .iter()
        .filter_map(|p| c.rfind(p).map(|i| (&c[..i], &c[i + p.len()..])))
        .max_by_key(|(before, _)| before.len())?;
    let event = event.trim();
    if event.is_empty() || event.contains(char::is_whitespace) {
        return None;
    }
    let before = before.trim_end();
    let before = before.strip_suffix("exec").unwrap_or(before).trim_end();
    let guarded = before.is_empty()
        || (before.contains("command -v git-rune") && before.ends_with([';', '&', '|']));
    guarded.then_some(event)
}

/// Whether a hook command is git-rune's (whatever the event, either spelling).
pub fn is_ours(command: &str) -> bool {
    event_of(command).is_some()
}

/// The hook entries of git-rune a settings file holds, as `Event` or `Event (matcher)`.
pub fn installed(path: &Path) -> Result<Vec<String>, SettingsError> {
    let ours = |h: &_| string_at(h, "command").is_some_and(|c| is_ours(&c));
    let at = ours_at(path, Layout::Grouped, &ours)?;
    Ok(at.iter().map(|(e, m, ..)| label(e, m.as_deref())).collect())
}

/// Merges git-rune's hooks into the settings file at `path` (created if missing).
/// Idempotent: an entry already there is not added again.
pub fn install(path: &Path) -> Result<Change, SettingsError> {
    let (root, obj, mut change) = open_for_install(path)?;
    let hooks = hooks_at(&obj, path, &mut change)?;
    for (event, matchers) in EVENTS {
        let arr = event_array(&hooks, event, path, &mut change)?;
        let cmd = command(event);
        for matcher in matchers.iter() {
            let mut present = false;
            for g in arr.elements() {
                let Some(g) = g.as_object() else { continue };
                if string_at(&g, "matcher").as_deref() != *matcher {
                    continue;
                }
                for h in g
                    .array_value("hooks")
                    .map(|a| a.elements())
                    .unwrap_or_default()
                {
                    let Some(prop) = h.as_object().and_then(|o| o.get("command")) else {
                        continue;
                    };
                    let Some(c) = string_of(&prop) else { continue };
                    if event_of(&c) != Some(event) {
                        continue;
                    }
                    present = true;
                    // An entry an older install wrote (unguarded, or `git rune …`) is
                    // brought up to date in place.
                    if c != cmd {
                        prop.set_value(json!(cmd.as_str()));
                        change.upgraded.push(label(event, *matcher));
                    }
                }
            }
            if present {
                continue;
            }
            let c = cmd.as_str();
            match matcher {
                Some(m) => {
                    let m = *m;
                    arr.append(json!({
                        "matcher": m,
                        "hooks": [{ "type": "command", "command": c }]
                    }))
                }
                None => arr.append(json!({
                    "hooks": [{ "type": "command", "command": c }]
                })),
            };
            change.entries.push(label(event, *matcher));
        }
    }
    if change.entries.is_empty() {
        change.created.clear();
    }
    if change.entries.is_empty() && change.upgraded.is_empty() {
        return Ok(change);
    }
    write(path, &root.to_string())?;
    Ok(change)
}

fn string_of(prop: &jsonc_parser::cst::CstObjectProp) -> Option<String> {
    prop.value()?.as_string_lit()?.decoded_value().ok()
}

/// Removes git-rune's hook entries from the settings file at `path`: a matcher group left
/// without hooks goes, and so does a container in `created` (what install made) left empty —
/// or, when that is unknown, any `hooks` container git-rune's removal left empty. A file that
/// ends as `{}` and that install created is removed.
pub fn uninstall(
    path: &Path,
    created: Option<&[String]>,
    file_created: bool,
) -> Result<Change, SettingsError> {
    remove_hooks(path, created, file_created, &is_ours)
}

#[cfg(test)]
#[path = "claude_tests.rs"]
mod tests;
