//! OpenCode: no command hooks, so git-rune ships a plugin module
//! (`.opencode/plugin/git-rune.js`, or `~/.config/opencode/plugin/git-rune.js`) that runs
//! `git-rune agent hook --agent opencode <Event>` itself: the briefing through the system
//! prompt transform, a tick from `tool.execute.after`, the state saved at
//! `experimental.session.compacting`, a stop at `session.idle`. The module is git-rune's own
//! file: install writes it whole, uninstall removes it while it is still git-rune's.

use std::path::{Path, PathBuf};

use super::event::{self, Mapped, ToolKind, UseCase};
use super::settings_file::{io_error, read, write, SettingsError};

/// The plugin module's text (data, not code of this crate: it runs inside OpenCode).
pub const PLUGIN: &str = include_str!("data/opencode-plugin.js");
/// The module's file name in a plugin directory.
pub const FILE: &str = "git-rune.js";
/// The first line every version of the module starts with.
const MARKER: &str = "// git-rune: project memory for OpenCode";

/// OpenCode's tool names for reading and editing.
const TOOLS: &[(&str, ToolKind)] = &[
    ("read", ToolKind::Read),
    ("write", ToolKind::Write),
    ("edit", ToolKind::Edit),
    ("patch", ToolKind::Edit),
    ("todowrite", ToolKind::Todos),
];
const PATHS: &[&str] = &["filePath", "file_path", "path"];

/// The user's plugin directory: `$XDG_CONFIG_HOME/opencode/plugin`, else
/// `~/.config/opencode/plugin`.
pub fn user_dir() -> Option<PathBuf> {
    super::settings_file::env_or_home("XDG_CONFIG_HOME", ".config")
        .map(|c| c.join("opencode").join("plugin"))
}

/// The plugin's events are Claude Code's names; its payload names OpenCode's tools.
pub fn map(name: &str, input: &[u8]) -> Mapped {
    let raw = event::parse(input).unwrap_or_default();
    match name {
        "SessionStart" => event::lifecycle(&raw, UseCase::SessionStart, None),
        "PostToolUse" => event::tick(&raw, TOOLS, PATHS),
        "PreCompact" => event::lifecycle(&raw, UseCase::PreCompact, None),
        "Stop" => event::lifecycle(&raw, UseCase::Stop, None),
        "SessionEnd" => event::lifecycle(&raw, UseCase::SessionEnd, None),
        _ => Mapped::Skip,
    }
}

/// Whether `path` holds git-rune's module (any version).
pub fn installed(path: &Path) -> Result<bool, SettingsError> {
    Ok(read(path)?.is_some_and(|t| t.starts_with(MARKER)))
}

/// Whether the module at `path` is this version's, byte for byte.
pub fn current(path: &Path) -> Result<bool, SettingsError> {
    Ok(read(path)?.is_some_and(|t| t == PLUGIN))
}

/// Writes the module. A file of that name that is not git-rune's is refused; an older
/// version of git-rune's is replaced. Returns whether anything was written.
pub fn install(path: &Path) -> Result<bool, SettingsError> {
    match read(path)? {
        Some(t) if t == PLUGIN => Ok(false),
        Some(t) if !t.starts_with(MARKER) => Err(SettingsError::Shape {
            path: path.to_owned(),
            what: "the file".into(),
            expected: "git-rune's plugin (another plugin has that name: move it aside)",
        }),
        _ => {
            write(path, PLUGIN)?;
            Ok(true)
        }
    }
}

/// Removes the module while it is git-rune's; a file edited by hand (no longer starting with
/// git-rune's line) is left. Returns whether it was removed.
pub fn uninstall(path: &Path) -> Result<bool, SettingsError> {
    if !installed(path)? {
        return Ok(false);
    }
    std::fs::remove_file(path).map_err(io_error("remove", path))?;
    // The plugin directory install made goes when it is left empty.
    if let Some(dir) = path.parent() {
        let _ = std::fs::remove_dir(dir);
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_module_is_written_whole_and_taken_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".opencode/plugin").join(FILE);
        assert!(install(&path).unwrap());
        assert!(current(&path).unwrap());
        assert!(!install(&path).unwrap());
        assert!(uninstall(&path).unwrap());
        assert!(!path.exists() && !path.parent().unwrap().exists());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "export const Mine = 1\n").unwrap();
        assert!(install(&path).is_err());
        assert!(!uninstall(&path).unwrap());
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "export const Mine = 1\n"
        );
    }

    #[test]
    fn the_plugin_names_the_hook_program() {
        assert!(PLUGIN.starts_with(MARKER));
        for event in [
            "SessionStart",
            "PostToolUse",
            "PreCompact",
            "Stop",
            "SessionEnd",
        ] {
            assert!(PLUGIN.contains(&format!("\"{event}\"")), "{event}");
            assert!(matches!(map(event, b"{}"), Mapped::Run { .. }), "{event}");
        }
    }
}
