//! Tests of `claude.rs` (moved out of the file they test, which stays under 600 lines).

use super::*;
use jsonc_parser::cst::CstRootNode;
use jsonc_parser::ParseOptions;

/// A settings file as Claude Code writes it (2-space layout), with the user's own hook.
const SETTINGS: &str = r#"{
  "permissions": {
"allow": [
  "Bash(npm run test:*)"
],
"deny": []
  },
  "hooks": {
"PostToolUse": [
  {
    "matcher": "Edit|Write",
    "hooks": [
      {
        "type": "command",
        "command": "npx prettier --write \"$CLAUDE_FILE_PATHS\""
      }
    ]
  }
]
  },
  "zUnknownKey": {"kept": true},
  "model": "opus"
}
"#;

fn roundtrip(original: Option<&str>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".claude/settings.json");
    if let Some(text) = original {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
    }
    let added = install(&path).unwrap();
    assert_eq!(added.entries.len(), 9, "{added:?}");
    let text = std::fs::read_to_string(&path).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["hooks"]["SessionStart"].as_array().unwrap().len(), 4);
    assert!(v["hooks"]["PostToolUse"]
        .as_array()
        .unwrap()
        .iter()
        .any(|g| g["matcher"] == "*" && g["hooks"][0]["command"] == command("PostToolUse")));
    assert!(v["hooks"]["PostToolUseFailure"]
        .as_array()
        .unwrap()
        .iter()
        .any(|g| g["matcher"] == "*" && g["hooks"][0]["command"] == command("PostToolUseFailure")));
    assert_eq!(installed(&path).unwrap().len(), 9);
    // Idempotent.
    assert!(install(&path).unwrap().entries.is_empty());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    let removed = uninstall(&path, Some(&added.created), added.file_created).unwrap();
    assert_eq!(removed.entries.len(), 9);
    match original {
        Some(o) => assert_eq!(std::fs::read_to_string(&path).unwrap(), o),
        None => assert!(!path.exists()),
    }
}

#[test]
fn install_then_uninstall_gives_the_file_back_byte_for_byte() {
    roundtrip(Some(SETTINGS));
    roundtrip(Some("{}\n"));
    roundtrip(Some("{\n  \"model\": \"opus\"\n}\n"));
    roundtrip(Some("{\"model\":\"opus\",\"hooks\":{}}"));
    roundtrip(None);
}

/// Entries written as `git rune agent hook …` (either spelling is git-rune's) count as
/// installed, and uninstall takes them out.
#[test]
fn the_git_rune_spelling_is_recognised() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    install(&path).unwrap();
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for groups in v["hooks"].as_object_mut().unwrap().values_mut() {
        for g in groups.as_array_mut().unwrap() {
            let c = &mut g["hooks"][0]["command"];
            let event = c.as_str().unwrap().rsplit(' ').next().unwrap().to_owned();
            *c = format!("git rune agent hook {event}").into();
        }
    }
    std::fs::write(&path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    assert_eq!(installed(&path).unwrap().len(), 9);
    // Install brings them up to date (guarded), adding nothing.
    let up = install(&path).unwrap();
    assert!(up.entries.is_empty(), "{up:?}");
    assert_eq!(up.upgraded.len(), 9, "{up:?}");
    assert!(install(&path).unwrap().upgraded.is_empty());
    assert_eq!(uninstall(&path, None, true).unwrap().entries.len(), 9);
}

/// An install by an older git-rune: the eight unguarded entries, without
/// PostToolUseFailure, over the user's own settings.
fn old_install(original: &str) -> (String, Vec<String>) {
    let v: serde_json::Value = serde_json::from_str(original).unwrap();
    let had_hooks = v.get("hooks").is_some();
    let had_post = v["hooks"].get("PostToolUse").is_some();
    let root = CstRootNode::parse(original, &ParseOptions::default()).unwrap();
    let obj = root.object_value().unwrap();
    let hooks = obj.object_value_or_set("hooks");
    let mut created = Vec::new();
    if !had_hooks {
        created.push("hooks".to_owned());
    }
    for (event, matchers) in EVENTS {
        if event == "PostToolUseFailure" {
            continue;
        }
        if !(event == "PostToolUse" && had_post) {
            created.push(format!("hooks.{event}"));
        }
        let arr = hooks.array_value_or_set(event);
        for m in matchers.iter() {
            let owned = format!("git-rune agent hook {event}");
            let c = owned.as_str();
            match m {
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
        }
    }
    (root.to_string(), created)
}

/// Regression (issue 24): an install made before PostToolUseFailure was wired and before
/// the commands were guarded is brought up to date by `install`, idempotently, and
/// uninstall still gives the user's file back byte for byte.
#[test]
fn an_older_install_is_upgraded_and_still_uninstalls_byte_for_byte() {
    for original in [SETTINGS, "{}\n", "{\n  \"model\": \"opus\"\n}\n"] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        let (old, mut created) = old_install(original);
        std::fs::write(&path, &old).unwrap();
        assert_eq!(installed(&path).unwrap().len(), 8);
        let up = install(&path).unwrap();
        assert_eq!(up.entries, vec!["PostToolUseFailure (*)"], "{up:?}");
        assert_eq!(up.upgraded.len(), 8, "{up:?}");
        assert_eq!(up.created, vec!["hooks.PostToolUseFailure"]);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains("\"git-rune agent hook"), "{text}");
        // Idempotent.
        let again = install(&path).unwrap();
        assert!(
            again.entries.is_empty() && again.upgraded.is_empty(),
            "{again:?}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        created.extend(up.created);
        let removed = uninstall(&path, Some(&created), false).unwrap();
        assert_eq!(removed.entries.len(), 9);
        let back = std::fs::read_to_string(&path).unwrap();
        let want: serde_json::Value = serde_json::from_str(original).unwrap();
        let got: serde_json::Value = serde_json::from_str(&back).unwrap();
        assert_eq!(got, want);
        if original.contains("\n  ") || original == "{}\n" {
            assert_eq!(back, original);
        }
    }
}

#[test]
fn only_commands_that_run_the_hook_are_ours() {
    for c in [
        "git-rune agent hook Stop",
        "git rune agent hook Stop",
        &command("Stop"),
        "command -v git-rune >/dev/null || exit 0; git-rune agent hook Stop",
    ] {
        assert_eq!(event_of(c), Some("Stop"), "{c}");
    }
    for c in [
        "echo git-rune agent hook Stop",
        "git-rune agent hook Stop && rm -rf x",
        "npx prettier --write",
        "git-rune agent hook",
    ] {
        assert_eq!(event_of(c), None, "{c}");
    }
}

#[test]
fn bad_json_is_refused_with_its_line_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    std::fs::write(&path, "{\n  \"a\": 1,\n  oops\n}\n").unwrap();
    let e = install(&path).unwrap_err();
    assert!(e.to_string().contains("settings.json:3:"), "{e}");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "{\n  \"a\": 1,\n  oops\n}\n"
    );
    std::fs::write(&path, "[1]").unwrap();
    assert!(matches!(
        install(&path),
        Err(SettingsError::NotAnObject { .. })
    ));
}
