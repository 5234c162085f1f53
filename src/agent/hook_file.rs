//! One editor for every agent's JSON hook file (Codex's `.codex/hooks.json`, Gemini CLI's
//! `.gemini/settings.json`, Copilot CLI's `.github/hooks/git-rune.json`, Cursor's
//! `.cursor/hooks.json`): git-rune's entries merged in through a concrete syntax tree, so the
//! rest of the file stays as written (other hooks, comments-free layout, key order, unknown
//! keys), and uninstall takes out exactly what install added.
//!
//! Two layouts exist: Claude Code's, which the Codex and Gemini CLI files share
//! (`hooks.<Event>` is a list of matcher groups, each with its own `hooks` list), and the flat
//! one of Copilot CLI and Cursor (`hooks.<event>` is a list of handlers, beside a top-level
//! `"version": 1`).

use std::path::Path;

use jsonc_parser::cst::{CstInputValue, CstObject};

pub use super::settings_file::Layout;
use super::settings_file::{
    event_array, hooks_at, label, open_for_install, ours_at, remove_hooks, write, Change,
    SettingsError,
};

/// One agent's hook file: its layout, the events git-rune wires (with a matcher or not), and
/// how one handler is written.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    pub layout: Layout,
    /// Top-level keys the file must have (created when missing, e.g. `"version": 1`).
    pub version: Option<u32>,
    /// Events in the agent's spelling, with the matcher of their group (grouped layout).
    pub events: &'static [(&'static str, Option<&'static str>)],
    /// The handler's key holding the shell command (`command`, or `bash` for Copilot CLI).
    pub command_key: &'static str,
    /// The timeout key and value written beside the command (`timeout` in seconds for
    /// Codex, in milliseconds for Gemini CLI; `timeoutSec` for Copilot CLI), if any.
    pub timeout: Option<(&'static str, u64)>,
    /// Events whose timeout differs from `timeout`'s value (Codex clamps SessionEnd to 3 s).
    pub event_timeouts: &'static [(&'static str, u64)],
    /// Whether the handler carries `"type": "command"`.
    pub typed: bool,
    /// The agent name the command passes (`git-rune agent hook --agent <name> <Event>`).
    pub agent: &'static str,
}

impl Spec {
    /// The timeout key and value written beside `event`'s command, if any.
    pub fn timeout_of(&self, event: &str) -> Option<(&'static str, u64)> {
        let (key, value) = self.timeout?;
        let own = self.event_timeouts.iter().find(|(e, _)| *e == event);
        Some((key, own.map_or(value, |(_, t)| *t)))
    }
}

/// The command a hook runs: git-rune's hook program, guarded so that a clone used on a
/// machine without git-rune on PATH does nothing and exits 0 instead of failing every event.
pub fn command(agent: &str, event: &str) -> String {
    format!(
        "command -v git-rune >/dev/null 2>&1 && git-rune agent hook --agent {agent} {event} || true"
    )
}

/// Whether a command is git-rune's (any agent, any event, guarded or not, either spelling).
pub fn is_ours(command: &str) -> bool {
    command.contains("git-rune agent hook") || command.contains("git rune agent hook")
}

/// Whether a handler object runs git-rune's hook.
fn handler_is_ours(obj: &CstObject) -> bool {
    super::settings_file::handler_is_ours(obj, &is_ours)
}

fn handler(spec: &Spec, event: &str) -> CstInputValue {
    let mut fields = Vec::new();
    if spec.typed {
        fields.push(("type".to_owned(), CstInputValue::from("command")));
    }
    fields.push((
        spec.command_key.to_owned(),
        CstInputValue::String(command(spec.agent, event)),
    ));
    if let Some((key, value)) = spec.timeout_of(event) {
        fields.push((key.to_owned(), CstInputValue::from(value)));
    }
    CstInputValue::Object(fields)
}

/// git-rune's entries in the file, as `Event` or `Event (matcher)`.
pub fn installed(path: &Path, spec: &Spec) -> Result<Vec<String>, SettingsError> {
    let at = ours_at(path, spec.layout, &handler_is_ours)?;
    Ok(at.iter().map(|(e, m, ..)| label(e, m.as_deref())).collect())
}

/// Where git-rune's handler of `event` sits: the index of its group in `hooks.<event>` and
/// its own index in that group (grouped layout), as the agent counts them.
pub fn positions(path: &Path, spec: &Spec) -> Result<Vec<(String, usize, usize)>, SettingsError> {
    let at = ours_at(path, spec.layout, &handler_is_ours)?;
    Ok(at
        .into_iter()
        .flat_map(|(e, _, g, hs)| hs.into_iter().map(move |h| (e.clone(), g, h)))
        .collect())
}

/// Merges git-rune's hooks into the file at `path` (created if missing); idempotent.
pub fn install(path: &Path, spec: &Spec) -> Result<Change, SettingsError> {
    let (root, obj, mut change) = open_for_install(path)?;
    if let Some(v) = spec.version {
        if obj.get("version").is_none() {
            obj.append("version", CstInputValue::from(u64::from(v)));
            change.created.push("version".into());
        }
    }
    let hooks = hooks_at(&obj, path, &mut change)?;
    for (event, matcher) in spec.events {
        let arr = event_array(&hooks, event, path, &mut change)?;
        let present = arr.elements().iter().any(|item| {
            item.as_object().is_some_and(|o| match spec.layout {
                Layout::Flat => handler_is_ours(&o),
                Layout::Grouped => o
                    .array_value("hooks")
                    .map(|a| a.elements())
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|h| h.as_object())
                    .any(|h| handler_is_ours(&h)),
            })
        });
        if present {
            continue;
        }
        let entry = match spec.layout {
            Layout::Flat => handler(spec, event),
            Layout::Grouped => {
                let mut group = Vec::new();
                if let Some(m) = matcher {
                    group.push(("matcher".to_owned(), CstInputValue::from(*m)));
                }
                group.push((
                    "hooks".to_owned(),
                    CstInputValue::Array(vec![handler(spec, event)]),
                ));
                CstInputValue::Object(group)
            }
        };
        arr.append(entry);
        change.entries.push(label(event, *matcher));
    }
    if change.entries.is_empty() {
        return Ok(Change::default());
    }
    write(path, &root.to_string())?;
    Ok(change)
}

/// Removes git-rune's entries: a group left without handlers goes, and so does a container in
/// `created` (what install made) left empty — or, when that is unknown, any container
/// git-rune's removal left empty. A file that install created and that ends as `{}` (or
/// holding only the `version` install wrote) is removed.
pub fn uninstall(
    path: &Path,
    created: Option<&[String]>,
    file_created: bool,
) -> Result<Change, SettingsError> {
    remove_hooks(path, created, file_created, &is_ours)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GROUPED: Spec = Spec {
        layout: Layout::Grouped,
        version: None,
        events: &[("SessionStart", None), ("PostToolUse", Some("*"))],
        command_key: "command",
        timeout: Some(("timeout", 60)),
        event_timeouts: &[],
        typed: true,
        agent: "codex",
    };
    const FLAT: Spec = Spec {
        layout: Layout::Flat,
        version: Some(1),
        events: &[("sessionStart", None), ("postToolUse", None)],
        command_key: "bash",
        timeout: Some(("timeoutSec", 30)),
        event_timeouts: &[],
        typed: true,
        agent: "copilot",
    };

    fn roundtrip(spec: &Spec, original: Option<&str>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hooks.json");
        if let Some(o) = original {
            std::fs::write(&path, o).unwrap();
        }
        let added = install(&path, spec).unwrap();
        assert_eq!(added.entries.len(), 2, "{added:?}");
        let text = std::fs::read_to_string(&path).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert!(text.contains("git-rune agent hook --agent"), "{text}");
        if spec.version.is_some() {
            assert_eq!(v["version"], 1);
        }
        assert_eq!(installed(&path, spec).unwrap().len(), 2);
        assert!(install(&path, spec).unwrap().entries.is_empty());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        let removed = uninstall(&path, Some(&added.created), added.file_created).unwrap();
        assert_eq!(removed.entries.len(), 2);
        match original {
            Some(o) => assert_eq!(std::fs::read_to_string(&path).unwrap(), o),
            None => assert!(!path.exists()),
        }
    }

    #[test]
    fn install_then_uninstall_gives_the_file_back_byte_for_byte() {
        let user = "{\n  \"hooks\": {\n    \"PostToolUse\": [\n      {\n        \"matcher\": \"Bash\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"./lint.sh\"\n          }\n        ]\n      }\n    ]\n  },\n  \"zUnknown\": [1, 2]\n}\n";
        for spec in [&GROUPED, &FLAT] {
            roundtrip(spec, None);
            roundtrip(spec, Some("{}\n"));
            roundtrip(spec, Some("{\n  \"theme\": \"dark\"\n}\n"));
            roundtrip(spec, Some(user));
        }
        roundtrip(
            &FLAT,
            Some("{\n  \"version\": 1,\n  \"hooks\": {\n    \"postToolUse\": [\n      {\n        \"type\": \"command\",\n        \"bash\": \"./audit.sh\"\n      }\n    ]\n  }\n}\n"),
        );
    }

    #[test]
    fn positions_follow_the_users_own_groups() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hooks.json");
        std::fs::write(&path, "{\"hooks\":{\"SessionStart\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"echo hi\"}]}]}}").unwrap();
        install(&path, &GROUPED).unwrap();
        let mut p = positions(&path, &GROUPED).unwrap();
        p.sort();
        assert_eq!(
            p,
            [
                ("PostToolUse".to_owned(), 0, 0),
                ("SessionStart".to_owned(), 1, 0)
            ]
        );
    }

    #[test]
    fn bad_files_are_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hooks.json");
        std::fs::write(&path, "{\n  \"hooks\": [\n").unwrap();
        let e = install(&path, &FLAT).unwrap_err().to_string();
        assert!(e.contains("hooks.json:3:"), "{e}");
        std::fs::write(&path, "{\"hooks\": []}").unwrap();
        assert!(matches!(
            install(&path, &FLAT),
            Err(SettingsError::Shape { .. })
        ));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"hooks\": []}");
    }

    #[test]
    fn the_guard_does_nothing_without_git_rune() {
        let out = std::process::Command::new("/bin/sh")
            .arg("-c")
            .arg(command("codex", "SessionStart"))
            .env("PATH", "/nonexistent")
            .output()
            .unwrap();
        assert!(out.status.success());
        assert!(out.stdout.is_empty() && out.stderr.is_empty());
    }
}
