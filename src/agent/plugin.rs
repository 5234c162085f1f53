//! The Claude Code plugin (`claude-plugin/` in git-rune's repository, listed by
//! `.claude-plugin/marketplace.json`) and `git rune agent install claude` must never both
//! answer one event: Claude Code does not de-duplicate a plugin's hooks against the settings
//! files' hooks, so both would count every tool twice and send the briefing twice. The
//! plugin's hooks run `git-rune agent hook --plugin <Event>`, and step aside whenever a
//! settings file wires git-rune's hook for that event.

use std::path::{Path, PathBuf};

use super::claude;

/// The plugin's name, as `enabledPlugins` keys name it (`git-rune@<marketplace>`).
pub const NAME: &str = "git-rune";

/// Claude Code's settings files for a project: the project's shared and local files, then
/// the user's.
pub fn settings_files(work_tree: Option<&Path>) -> Vec<PathBuf> {
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty());
    files(work_tree, home.as_deref().map(Path::new))
}

/// [`settings_files`] with the user's home named (tests name none, so the machine's own
/// settings never decide them).
fn files(work_tree: Option<&Path>, home: Option<&Path>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(w) = work_tree {
        out.push(w.join(".claude/settings.json"));
        out.push(w.join(".claude/settings.local.json"));
    }
    if let Some(home) = home {
        out.push(home.join(".claude/settings.json"));
    }
    out
}

/// Whether a settings file of the project wires git-rune's hook for `event`: then the
/// plugin's hook for it does nothing. A file that cannot be read counts as not wiring it.
pub fn settings_wire(work_tree: Option<&Path>, event: &str) -> bool {
    wired_in(&settings_files(work_tree), event)
}

fn wired_in(files: &[PathBuf], event: &str) -> bool {
    files.iter().any(|p| {
        claude::installed(p).is_ok_and(|entries| {
            entries
                .iter()
                .any(|e| e == event || e.starts_with(&format!("{event} (")))
        })
    })
}

/// The settings files that enable git-rune's plugin (`enabledPlugins["git-rune@…"]: true`).
pub fn enabled_in(work_tree: Option<&Path>) -> Vec<PathBuf> {
    enabling(settings_files(work_tree))
}

fn enabling(files: Vec<PathBuf>) -> Vec<PathBuf> {
    files
        .into_iter()
        .filter(|p| {
            std::fs::read(p)
                .ok()
                .and_then(|d| serde_json::from_slice::<serde_json::Value>(&d).ok())
                .and_then(|v| v.get("enabledPlugins").cloned())
                .and_then(|e| e.as_object().cloned())
                .is_some_and(|m| {
                    m.iter().any(|(k, v)| {
                        k.split('@').next() == Some(NAME) && v.as_bool() == Some(true)
                    })
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plugin wires every event `agent install claude` wires, with the same matchers.
    #[test]
    fn the_plugin_wires_what_the_settings_install_wires() {
        let hooks: serde_json::Value =
            serde_json::from_str(include_str!("../../claude-plugin/hooks/hooks.json")).unwrap();
        let hooks = hooks["hooks"].as_object().unwrap();
        let mut events: Vec<&str> = claude::EVENTS.iter().map(|(e, _)| *e).collect();
        events.sort_unstable();
        assert_eq!(hooks.keys().map(String::as_str).collect::<Vec<_>>(), events);
        for (event, matchers) in claude::EVENTS {
            let got: Vec<Option<&str>> = hooks[event]
                .as_array()
                .unwrap()
                .iter()
                .map(|g| g["matcher"].as_str())
                .collect();
            assert_eq!(got, matchers.to_vec(), "{event}");
            for g in hooks[event].as_array().unwrap() {
                let cmd = g["hooks"][0]["command"].as_str().unwrap();
                assert!(
                    cmd.contains(&format!("agent hook --plugin {event} ")),
                    "{cmd}"
                );
            }
        }
    }

    #[test]
    fn the_plugin_steps_aside_for_the_settings_wiring() {
        let dir = tempfile::tempdir().unwrap();
        let w = dir.path();
        let settings_wire = |w, event| wired_in(&files(Some(w), None), event);
        assert!(!settings_wire(w, "PostToolUse"));
        claude::install(&w.join(".claude/settings.local.json")).unwrap();
        assert!(settings_wire(w, "PostToolUse"));
        assert!(settings_wire(w, "SessionStart"));
        assert!(!settings_wire(w, "Post"));
        std::fs::write(
            w.join(".claude/settings.json"),
            r#"{"enabledPlugins": {"git-rune@git-rune": true, "other@x": true}}"#,
        )
        .unwrap();
        assert_eq!(enabling(files(Some(w), None)).len(), 1);
    }
}
