//! Codex CLI: hooks in `.codex/hooks.json` (or `$CODEX_HOME/hooks.json`), Claude-shaped
//! payloads and answers, and Codex's trust step. Codex runs a hook only once its exact
//! definition is trusted: a `trusted_hash` per hook under `[hooks.state."<file>:<event>:<group>:<handler>"]`
//! in the user's `config.toml`, the sha256 of the hook's normalized identity. Install records
//! that trust for git-rune's own hooks, as Codex's `/hooks` review does; status checks it.
//! A project's `.codex/` is read only when Codex trusts the project
//! (`[projects."<path>"] trust_level = "trusted"`), which install reports and status checks.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use toml_edit::{Item, Table};

use super::event::{claude_payload, Mapped, Raw, ToolKind, UseCase};
use super::hook_file::{self, Layout, Spec};
use super::mcp_config::{implicit_table, parse_toml, write_toml_back};
use super::settings_file::{read, write, SettingsError};

/// Seconds Codex gives a hook (written explicitly: the trust hash covers it).
const TIMEOUT: u64 = 60;
/// Codex clamps SessionEnd hooks to 1–3 seconds.
const END_TIMEOUT: u64 = 3;

/// The hooks git-rune wires into Codex.
pub const SPEC: Spec = Spec {
    layout: Layout::Grouped,
    version: None,
    events: &[
        ("SessionStart", None),
        ("PostToolUse", None),
        ("PreCompact", None),
        ("Stop", None),
        ("SessionEnd", None),
    ],
    command_key: "command",
    timeout: Some(("timeout", TIMEOUT)),
    event_timeouts: &[("SessionEnd", END_TIMEOUT)],
    typed: true,
    agent: "codex",
};

/// Codex's directory for the user: `$CODEX_HOME`, else `~/.codex`.
pub fn home_dir() -> Option<PathBuf> {
    super::settings_file::env_or_home("CODEX_HOME", ".codex")
}

/// Maps a Codex hook call: its payloads are Claude Code's, so they pass through, except an
/// `apply_patch`, which names the file it changed inside the patch.
pub fn map(event: &str, input: &[u8]) -> Mapped {
    let case = match event {
        "SessionStart" => UseCase::SessionStart,
        "PostToolUse" => UseCase::ToolTick,
        "PreCompact" => UseCase::PreCompact,
        "Stop" => UseCase::Stop,
        "SessionEnd" => UseCase::SessionEnd,
        _ => return Mapped::Skip,
    };
    if case == UseCase::ToolTick {
        if let Ok(raw) = serde_json::from_slice::<Raw<'_>>(input) {
            if raw.tool() == Some("apply_patch") {
                let args = raw.args();
                let patch = args
                    .get("command")
                    .or_else(|| args.get("input"))
                    .and_then(Value::as_str)
                    .or(args.as_str())
                    .unwrap_or("");
                let file = patched_file(patch);
                let kind = if file.is_some() {
                    ToolKind::Edit
                } else {
                    ToolKind::Other
                };
                return Mapped::Run {
                    event: case.claude_event(),
                    input: claude_payload(&raw, case, None, kind, file),
                };
            }
        }
    }
    Mapped::Run {
        event: case.claude_event(),
        input: input.to_vec(),
    }
}

/// The first file an apply_patch names (`*** Update File: path`, `Add`, `Delete`).
fn patched_file(patch: &str) -> Option<&str> {
    patch.lines().find_map(|l| {
        ["*** Update File: ", "*** Add File: ", "*** Delete File: "]
            .iter()
            .find_map(|p| l.strip_prefix(p))
            .map(str::trim)
            .filter(|f| !f.is_empty())
    })
}

/// Codex's label for an event in hook-state keys.
fn label(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Codex's identity hash of one command hook: the event's label and the group (its matcher,
/// and the one normalized handler: type, command, timeout, async), as JSON with sorted keys,
/// compact, sha256, hex, prefixed `sha256:`.
pub fn trusted_hash(event: &str, matcher: Option<&str>, command: &str, timeout: u64) -> String {
    // serde_json's map is sorted by key: the canonical form Codex hashes.
    let mut group = json!({
        "event_name": label(event),
        "hooks": [{ "async": false, "command": command, "timeout": timeout, "type": "command" }],
    });
    if let Some(m) = matcher {
        group["matcher"] = json!(m);
    }
    let bytes = serde_json::to_vec(&group).unwrap_or_default();
    let digest = Sha256::digest(&bytes);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// The trust entries git-rune's hooks in `hooks_json` need: state key and hash.
pub fn trust_entries(hooks_json: &Path) -> Result<Vec<(String, String)>, SettingsError> {
    let source = hooks_json.display().to_string();
    let mut out = Vec::new();
    for (event, group, handler) in hook_file::positions(hooks_json, &SPEC)? {
        let Some((_, matcher)) = SPEC.events.iter().find(|(e, _)| *e == event) else {
            continue;
        };
        let key = format!("{source}:{}:{group}:{handler}", label(&event));
        let hash = trusted_hash(
            &event,
            *matcher,
            &hook_file::command(SPEC.agent, &event),
            SPEC.timeout_of(&event).map_or(TIMEOUT, |(_, t)| t),
        );
        out.push((key, hash));
    }
    Ok(out)
}

/// What install wrote to the user's config.toml for trust, so uninstall removes exactly that.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Trusted {
    pub keys: Vec<String>,
    /// Containers install created (`hooks`, `hooks.state`) and line breaks it added.
    pub created: Vec<String>,
    pub file_created: bool,
}

/// Records trust for `entries` in `config` (created if missing); a key already holding the
/// same hash is left alone. Returns what was written.
pub fn trust(config: &Path, entries: &[(String, String)]) -> Result<Trusted, SettingsError> {
    let existing = read(config)?;
    let mut done = Trusted {
        file_created: existing.is_none(),
        ..Trusted::default()
    };
    let text = existing.unwrap_or_default();
    let mut doc = parse_toml(config, &text)?;
    let hooks = implicit_table(&mut doc, "hooks", config, &mut done.created)?;
    let state = implicit_table(hooks, "hooks.state", config, &mut done.created)?;
    for (key, hash) in entries {
        let current = state
            .get(key)
            .and_then(|s| s.get("trusted_hash"))
            .and_then(Item::as_str);
        if current == Some(hash.as_str()) {
            continue;
        }
        if let Some(t) = state.get_mut(key).and_then(Item::as_table_like_mut) {
            t.insert("trusted_hash", toml_edit::value(hash.as_str()));
        } else {
            let mut t = Table::new();
            t.insert("trusted_hash", toml_edit::value(hash.as_str()));
            state.insert(key, Item::Table(t));
        }
        done.keys.push(key.clone());
    }
    if done.keys.is_empty() {
        return Ok(Trusted::default());
    }
    let mut out = doc.to_string();
    if !text.is_empty() && !text.ends_with('\n') {
        done.created.push("final-newline".into());
    }
    if !text.trim().is_empty() && !text.ends_with("\n\n") {
        if let Some(i) = out.find("[hooks.state.").filter(|i| *i > 0) {
            if !out[..i].ends_with("\n\n") && out[..i].len() >= text.len() {
                out.insert(i, '\n');
                done.created.push("blank-line".into());
            }
        }
    }
    write(config, &out)?;
    Ok(done)
}

/// Removes the trust entries install wrote (`how`), and the containers it created left empty.
pub fn untrust(config: &Path, how: &Trusted) -> Result<bool, SettingsError> {
    let Some(text) = read(config)? else {
        return Ok(false);
    };
    let mut doc = parse_toml(config, &text)?;
    let mut removed = false;
    let created = |what: &str| how.created.iter().any(|c| c == what);
    if let Some(hooks) = doc.get_mut("hooks").and_then(Item::as_table_like_mut) {
        if let Some(state) = hooks.get_mut("state").and_then(Item::as_table_like_mut) {
            for key in &how.keys {
                removed |= state.remove(key).is_some();
            }
            if state.is_empty() && created("hooks.state") {
                hooks.remove("state");
            }
        }
        if hooks.is_empty() && created("hooks") {
            doc.remove("hooks");
        }
    }
    if !removed {
        return Ok(false);
    }
    write_toml_back(config, &doc, how.file_created, &created)?;
    Ok(true)
}

/// How Codex will treat git-rune's hooks in `hooks_json`, per the user's `config`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustState {
    /// Hooks whose trust is recorded with the current hash.
    pub trusted: usize,
    /// Hooks without trust, or trusted with another hash (changed since).
    pub untrusted: Vec<String>,
}

pub fn trust_state(hooks_json: &Path, config: &Path) -> Result<TrustState, SettingsError> {
    let entries = trust_entries(hooks_json)?;
    let text = read(config)?.unwrap_or_default();
    let doc = parse_toml(config, &text)?;
    let state = doc.get("hooks").and_then(|h| h.get("state"));
    let mut out = TrustState {
        trusted: 0,
        untrusted: Vec::new(),
    };
    for (key, hash) in entries {
        let have = state
            .and_then(|s| s.get(&key))
            .and_then(|s| s.get("trusted_hash"))
            .and_then(Item::as_str);
        if have == Some(hash.as_str()) {
            out.trusted += 1;
        } else {
            out.untrusted.push(key);
        }
    }
    Ok(out)
}

/// Whether the user's `config` marks `project` trusted (`[projects."<path>"]`).
pub fn project_trusted(config: &Path, project: &Path) -> Result<bool, SettingsError> {
    let text = read(config)?.unwrap_or_default();
    let doc = parse_toml(config, &text)?;
    let key = project.display().to_string();
    Ok(doc
        .get("projects")
        .and_then(|p| p.get(&key))
        .and_then(|p| p.get("trust_level"))
        .and_then(Item::as_str)
        == Some("trusted"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_codexs() {
        assert_eq!(label("SessionStart"), "session_start");
        assert_eq!(label("PostToolUse"), "post_tool_use");
        assert_eq!(label("Stop"), "stop");
    }

    /// The hash of a hook Codex trusted (a SessionStart `echo hi`, timeout 600), as Codex's
    /// own normalization gives it: sorted keys, compact JSON.
    #[test]
    fn the_identity_is_hashed_as_codex_does() {
        let h = trusted_hash("SessionStart", None, "echo hi", 600);
        let canonical = r#"{"event_name":"session_start","hooks":[{"async":false,"command":"echo hi","timeout":600,"type":"command"}]}"#;
        let want: String = Sha256::digest(canonical.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(h, format!("sha256:{want}"));
    }

    #[test]
    fn apply_patch_names_its_file() {
        let patch = "*** Begin Patch\n*** Update File: src/lib.rs\n@@\n-a\n+b\n*** End Patch\n";
        assert_eq!(patched_file(patch), Some("src/lib.rs"));
        assert_eq!(patched_file("nothing"), None);
    }

    #[test]
    fn trust_is_recorded_and_taken_back_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        let hooks = dir.path().join("hooks.json");
        hook_file::install(&hooks, &SPEC).unwrap();
        let config = dir.path().join("config.toml");
        for original in [
            None,
            Some("# mine\nmodel = \"o3\"\n"),
            Some("model = \"o3\""),
            Some("[hooks.state.\"/x:stop:0:0\"]\nenabled = false\n"),
        ] {
            match original {
                Some(o) => std::fs::write(&config, o).unwrap(),
                None => {
                    let _ = std::fs::remove_file(&config);
                }
            }
            let entries = trust_entries(&hooks).unwrap();
            assert_eq!(entries.len(), 5);
            let before = trust_state(&hooks, &config).unwrap();
            assert_eq!(before.trusted, 0);
            let done = trust(&config, &entries).unwrap();
            assert_eq!(done.keys.len(), 5);
            let after = trust_state(&hooks, &config).unwrap();
            assert_eq!((after.trusted, after.untrusted.len()), (5, 0));
            assert_eq!(trust(&config, &entries).unwrap(), Trusted::default());
            assert!(untrust(&config, &done).unwrap());
            match original {
                Some(o) => assert_eq!(std::fs::read_to_string(&config).unwrap(), o),
                None => assert!(!config.exists()),
            }
        }
    }
}
