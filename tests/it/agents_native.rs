//! Every agent wired natively, without its client: `agent install|uninstall <agent>` gives
//! the user's files back byte for byte (project and user scope), refuses invalid files with
//! path, line and column, and the recorded payloads of each agent (tests/fixtures/<agent>/)
//! drive the same use cases through `agent hook --agent <agent>`, answered in the agent's
//! own shape.

use crate::common::TestRepo;

fn fixture(repo: &TestRepo, agent: &str, name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(agent)
        .join(name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .replace("/home/user/project", &repo.root.to_string_lossy())
        .into_bytes()
}

fn hook(repo: &TestRepo, agent: &str, event: &str, input: &[u8]) -> serde_json::Value {
    let out = repo
        .rune_stdin(&["agent", "hook", "--agent", agent, event], input)
        .success();
    assert_eq!(out.stderr, "", "{agent} {event}: {}", out.snapshot());
    if out.stdout.trim().is_empty() {
        serde_json::Value::Null
    } else {
        serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout))
    }
}

fn tool_calls(repo: &TestRepo) -> Vec<u64> {
    let out = repo.rune(&["agent", "status", "--json"]).success().stdout;
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    v["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["tool_calls"].as_u64())
        .collect()
}

fn memory_repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.commit_file("src/lib.rs", "pub fn f() {}\n", "init");
    repo.rune(&["init", "-q"]).success();
    repo.decide("Use Zod", "validate with Zod schemas", &[]);
    repo
}

/// (agent, hook file relative to the work tree, other files install touches)
const PROJECT: [(&str, &str); 5] = [
    ("codex", ".codex/hooks.json"),
    ("gemini", ".gemini/settings.json"),
    ("copilot", ".github/hooks/git-rune.json"),
    ("cursor", ".cursor/hooks.json"),
    ("opencode", ".opencode/plugin/git-rune.js"),
];

#[test]
fn install_then_uninstall_gives_every_file_back_byte_for_byte() {
    let repo = TestRepo::new();
    repo.commit_file("a", "a\n", "init");
    let gemini = "{\n  \"theme\": \"GitHub\",\n  \"hooks\": {\n    \"AfterTool\": [\n      {\n        \"matcher\": \"write_file\",\n        \"hooks\": [{ \"type\": \"command\", \"command\": \"./fmt.sh\" }]\n      }\n    ]\n  }\n}\n";
    repo.write(".gemini/settings.json", gemini);
    repo.write(".cursor/mcp.json", "{\n  \"mcpServers\": {}\n}\n");
    repo.write("AGENTS.md", "# Agents\n");
    let codex_config = "# mine\nmodel = \"o3\"\n";
    repo.write("../home/.codex/config.toml", codex_config);
    for (agent, file) in PROJECT {
        let out = repo.rune(&["agent", "install", agent]).success();
        assert!(out.stdout.contains(file), "{agent}: {}", out.snapshot());
        assert!(repo.root.join(file).exists(), "{agent}");
        // Idempotent.
        let again = repo.rune(&["agent", "install", agent]).success();
        assert!(
            !again.stdout.contains("added"),
            "{agent}: {}",
            again.snapshot()
        );
    }
    let status = repo.rune(&["agent", "status"]).success().stdout;
    for (agent, file) in PROJECT {
        assert!(
            status
                .lines()
                .any(|l| l.starts_with(&format!("{agent} (project)"))
                    && l.contains(file)
                    && !l.contains("not wired")),
            "{agent}: {status}"
        );
    }
    assert!(status.contains("trusted in"), "{status}");
    assert!(status.contains("NOT trusted by codex"), "{status}");
    assert!(repo.read("AGENTS.md").contains("git rune load"));
    for (agent, _) in PROJECT {
        repo.rune(&["agent", "uninstall", agent]).success();
    }
    for (_, file) in PROJECT {
        if file != ".gemini/settings.json" {
            assert!(!repo.root.join(file).exists(), "{file} left behind");
        }
    }
    assert_eq!(repo.read(".gemini/settings.json"), gemini);
    assert_eq!(
        repo.read(".cursor/mcp.json"),
        "{\n  \"mcpServers\": {}\n}\n"
    );
    assert_eq!(repo.read("AGENTS.md"), "# Agents\n");
    assert_eq!(repo.read("../home/.codex/config.toml"), codex_config);
    assert!(!repo.root.join(".mcp.json").exists());
    assert_eq!(
        repo.git(&["status", "--porcelain"]),
        "?? .cursor/\n?? .gemini/\n?? AGENTS.md"
    );
}

#[test]
fn user_scope_uses_the_home_directory() {
    let repo = TestRepo::new();
    repo.commit_file("a", "a\n", "init");
    for (agent, file) in [
        ("codex", ".codex/hooks.json"),
        ("gemini", ".gemini/settings.json"),
        ("copilot", ".copilot/hooks/git-rune.json"),
        ("cursor", ".cursor/hooks.json"),
        ("opencode", ".config/opencode/plugin/git-rune.js"),
    ] {
        repo.rune(&["agent", "install", agent, "--user"]).success();
        assert!(repo.home.join(file).exists(), "{agent}");
        repo.rune(&["agent", "uninstall", agent, "--user"])
            .success();
        assert!(!repo.home.join(file).exists(), "{agent}");
    }
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    let out = repo
        .rune(&["agent", "install", "codex", "--local"])
        .failure();
    assert!(out.stderr.contains("--local"), "{}", out.snapshot());
}

#[test]
fn invalid_files_are_refused_with_path_line_and_column_and_nothing_is_written() {
    let repo = TestRepo::new();
    repo.commit_file("a", "a\n", "init");
    repo.write(
        ".cursor/hooks.json",
        "{\n  \"version\": 1,\n  \"hooks\": {,}\n}\n",
    );
    let out = repo.rune(&["agent", "install", "cursor"]).failure();
    assert!(
        out.stderr.contains(".cursor/hooks.json:3:"),
        "{}",
        out.snapshot()
    );
    assert!(
        out.stderr.contains("it was not changed"),
        "{}",
        out.snapshot()
    );
    assert!(!repo.root.join(".cursor/mcp.json").exists());
    assert!(!repo.root.join("AGENTS.md").exists());
    repo.write("../home/.codex/config.toml", "model = \n");
    let out = repo.rune(&["agent", "install", "codex"]).failure();
    assert!(out.stderr.contains("config.toml:1:"), "{}", out.snapshot());
    assert!(!repo.root.join(".codex/hooks.json").exists());
    repo.write(".github/hooks/git-rune.json", "{\"hooks\": []}");
    let out = repo.rune(&["agent", "install", "copilot"]).failure();
    assert!(out.stderr.contains("hooks"), "{}", out.snapshot());
    assert_eq!(repo.read(".github/hooks/git-rune.json"), "{\"hooks\": []}");
}

/// Each agent's recorded session: its start gets the briefing in the agent's shape, its tool
/// calls are counted, and its stop records the session.
#[test]
fn every_agents_payloads_reach_the_same_use_cases() {
    for (agent, start, tick, stop, context) in [
        (
            "codex",
            "SessionStart",
            "PostToolUse",
            "Stop",
            "/hookSpecificOutput/additionalContext",
        ),
        (
            "gemini",
            "SessionStart",
            "AfterTool",
            "AfterAgent",
            "/hookSpecificOutput/additionalContext",
        ),
        (
            "copilot",
            "sessionStart",
            "postToolUse",
            "agentStop",
            "/additionalContext",
        ),
        (
            "cursor",
            "sessionStart",
            "postToolUse",
            "stop",
            "/additional_context",
        ),
        (
            "opencode",
            "SessionStart",
            "PostToolUse",
            "Stop",
            "/additionalContext",
        ),
    ] {
        let repo = memory_repo();
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(agent);
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".json"))
            .collect();
        names.sort();
        let first = |event: &str| {
            names
                .iter()
                .find(|n| n.starts_with(&format!("{event}-")) || **n == format!("{event}.json"))
                .unwrap_or_else(|| panic!("{agent}: no {event} fixture in {names:?}"))
                .clone()
        };
        let v = hook(&repo, agent, start, &fixture(&repo, agent, &first(start)));
        let text = v.pointer(context).and_then(|t| t.as_str()).unwrap_or("");
        assert!(
            text.starts_with("git-rune: session context of") && text.contains("Use Zod"),
            "{agent}: {v}"
        );
        let ticks: Vec<&String> = names
            .iter()
            .filter(|n| n.starts_with(&format!("{tick}-")))
            .collect();
        assert!(!ticks.is_empty(), "{agent}: no {tick} fixtures");
        for t in &ticks {
            assert!(
                hook(&repo, agent, tick, &fixture(&repo, agent, t)).is_null(),
                "{agent} {t}"
            );
        }
        assert_eq!(tool_calls(&repo), [ticks.len() as u64], "{agent}");
        let before = repo.refs();
        assert!(hook(&repo, agent, stop, &fixture(&repo, agent, &first(stop))).is_null());
        let log = repo.rune(&["log"]).success().stdout;
        assert!(
            log.contains("agent session"),
            "{agent}: a stop after an edit records the session\n{log}"
        );
        assert_ne!(repo.refs(), before, "{agent}");
    }
}

/// Gemini CLI's PreCompress fires before every turn (`trigger: auto`): no checkpoint per turn;
/// a manual one (`/compress`) saves the state.
#[test]
fn gemini_precompress_before_every_turn_writes_nothing() {
    let repo = memory_repo();
    hook(
        &repo,
        "gemini",
        "SessionStart",
        &fixture(&repo, "gemini", "SessionStart-startup.json"),
    );
    let before = repo.refs();
    for _ in 0..3 {
        assert!(hook(
            &repo,
            "gemini",
            "PreCompress",
            &fixture(&repo, "gemini", "PreCompress-auto.json")
        )
        .is_null());
    }
    assert_eq!(repo.refs(), before);
    hook(
        &repo,
        "gemini",
        "PreCompress",
        &fixture(&repo, "gemini", "PreCompress-manual.json"),
    );
    assert_ne!(repo.refs(), before);
    assert!(repo
        .read(".rune/checkpoint.md")
        .contains("Compaction Summary"));
}

/// Copilot CLI runs `.claude/settings.json` hooks too: with both wirings, its calls through
/// Claude Code's are skipped, so a tool is counted once; with Claude Code's wiring alone, they
/// are answered in Copilot's shape.
#[test]
fn copilot_through_claude_codes_wiring_is_counted_once() {
    let repo = memory_repo();
    repo.rune(&["agent", "install", "claude"]).success();
    let compat = fixture(&repo, "copilot", "claude-compat-PostToolUse-create.json");
    let start = fixture(&repo, "copilot", "claude-compat-SessionStart.json");
    // Claude Code's wiring alone: Copilot's call is answered as Copilot reads it.
    let out = repo
        .rune_stdin(&["agent", "hook", "SessionStart"], &start)
        .success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert!(
        v["additionalContext"].as_str().unwrap().contains("Use Zod"),
        "{v}"
    );
    repo.rune_stdin(&["agent", "hook", "PostToolUse"], &compat)
        .success();
    assert_eq!(tool_calls(&repo), [1]);
    // Both wirings: the call through Claude Code's steps aside.
    repo.rune(&["agent", "install", "copilot"]).success();
    let out = repo
        .rune_stdin(&["agent", "hook", "PostToolUse"], &compat)
        .success();
    assert_eq!(out.stdout, "");
    assert_eq!(tool_calls(&repo), [1]);
    hook(
        &repo,
        "copilot",
        "postToolUse",
        &fixture(&repo, "copilot", "postToolUse-create.json"),
    );
    assert_eq!(tool_calls(&repo), [2]);
}

/// The Claude Code plugin's hooks step aside for events a settings file wires.
#[test]
fn the_claude_plugin_never_answers_beside_the_settings_wiring() {
    let repo = memory_repo();
    let start = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/claude-code/SessionStart-startup.json"),
    )
    .unwrap()
    .replace("/home/user/project", &repo.root.to_string_lossy());
    let out = repo
        .rune_stdin(
            &["agent", "hook", "--plugin", "SessionStart"],
            start.as_bytes(),
        )
        .success();
    assert!(
        out.stdout.contains("additionalContext"),
        "{}",
        out.snapshot()
    );
    repo.rune(&["agent", "install", "claude", "--local"])
        .success();
    let out = repo
        .rune_stdin(
            &["agent", "hook", "--plugin", "SessionStart"],
            start.as_bytes(),
        )
        .success();
    assert_eq!(out.stdout, "");
    let out = repo
        .rune_stdin(&["agent", "hook", "SessionStart"], start.as_bytes())
        .success();
    assert!(out.stdout.contains("additionalContext"));
}

/// The plugin in the repository names the hook program and MCP server git-rune answers.
#[test]
fn the_claude_plugin_in_the_repository_is_complete() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |p: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(root.join(p)).unwrap()).unwrap()
    };
    let market = read(".claude-plugin/marketplace.json");
    assert_eq!(market["plugins"][0]["name"], "git-rune");
    assert_eq!(market["plugins"][0]["source"], "./claude-plugin");
    assert_eq!(
        read("claude-plugin/.claude-plugin/plugin.json")["name"],
        "git-rune"
    );
    assert_eq!(
        read("claude-plugin/.mcp.json")["mcpServers"]["git-rune"]["args"][1],
        "mcp"
    );
    let hooks = read("claude-plugin/hooks/hooks.json");
    for event in [
        "SessionStart",
        "PreCompact",
        "PostToolUse",
        "Stop",
        "SessionEnd",
    ] {
        let cmd = hooks["hooks"][event][0]["hooks"][0]["command"]
            .as_str()
            .unwrap();
        assert!(
            cmd.contains(&format!("git-rune agent hook --plugin {event}")),
            "{cmd}"
        );
        assert!(cmd.starts_with("command -v git-rune"), "{cmd}");
    }
}

/// Regression: the branch's tasks followed Claude Code's TodoWrite only; Gemini CLI's
/// `write_todos` and OpenCode's `todowrite` lists were counted as tool calls and dropped. They
/// are followed the same way (a cancelled item changes nothing), and the same list again
/// writes nothing.
#[test]
fn gemini_and_opencode_todo_lists_become_tasks() {
    for (agent, event, file) in [
        ("gemini", "AfterTool", "AfterTool-write_todos.json"),
        ("opencode", "PostToolUse", "PostToolUse-todowrite.json"),
    ] {
        let repo = memory_repo();
        let input = fixture(&repo, agent, file);
        hook(&repo, agent, event, &input);
        let tasks = repo.rune(&["task", "list", "--all"]).success().stdout;
        for line in [
            "[x] Read the index loader",
            "[~] Return an error instead of panicking on a corrupt index",
            "[ ] Add a test with a truncated index file",
        ] {
            assert!(tasks.contains(line), "{agent}: {tasks}");
        }
        assert!(
            !tasks.contains("Rewrite the loader in C"),
            "{agent}: {tasks}"
        );
        let refs = repo.refs();
        hook(&repo, agent, event, &input);
        assert_eq!(repo.refs(), refs, "{agent}: the same list again");
        // An item holding a secret is left out, and the agent is told in its own tool's name.
        let secret = String::from_utf8(input).unwrap().replace(
            "Add a test with a truncated index file",
            "rotate the key AKIAIOSFODNN7EXAMPLQ in prod",
        );
        let told = hook(&repo, agent, event, secret.as_bytes()).to_string();
        let tool = &file[file.find('-').unwrap() + 1..file.len() - ".json".len()];
        assert!(
            told.contains(&format!("{tool}: item 3 (aws-access-key)")),
            "{agent}: {told}"
        );
        assert!(!told.contains("AKIAIOSFODNN7EXAMPLQ"), "{agent}: {told}");
    }
}
