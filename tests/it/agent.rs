//! Agents using memory by themselves: Claude Code's hooks driven with the recorded payloads
//! (tests/fixtures/claude-code/) through whole sessions, the wiring commands, and the
//! context engine's commands.

use crate::common::TestRepo;

/// A recorded payload, pointed at `repo` (its `cwd` and file paths).
fn payload(repo: &TestRepo, name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/claude-code")
        .join(format!("{name}.json"));
    std::fs::read_to_string(path)
        .unwrap()
        .replace("/home/user/project", &repo.root.to_string_lossy())
        .into_bytes()
}

/// Runs `agent hook <event>` with a payload; returns its parsed stdout (Null when empty).
fn hook(repo: &TestRepo, event: &str, input: &[u8]) -> serde_json::Value {
    let out = repo.rune_stdin(&["agent", "hook", event], input).success();
    assert_eq!(out.stderr, "", "{event}: {}", out.snapshot());
    if out.stdout.is_empty() {
        serde_json::Value::Null
    } else {
        serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{event}: {e}: {}", out.stdout))
    }
}

fn context_of(v: &serde_json::Value) -> &str {
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or("")
}

fn memory_refs(repo: &TestRepo) -> String {
    repo.git(&["for-each-ref", "refs/rune/", "refs/notes/"])
}

/// startup → 130 tool calls (levels, the large-file multiplier, debounce, caveman, the RED
/// save) → PreCompact → SessionStart(compact) with the summary and resume line → Stop.
#[test]
fn a_whole_claude_code_session() {
    let repo = TestRepo::new();
    repo.commit_file("src/lib.rs", "pub fn f() {}\n", "init");
    repo.rune(&["init", "-q"]).success();
    repo.decide("Use Zod", "validate with Zod schemas", &[]);
    repo.rune(&[
        "progress",
        "--in-progress",
        "validation logic",
        "--next",
        "implement validate() in src/lib.rs:1",
    ])
    .success();
    repo.rune(&["agent", "install", "claude", "-q"]).success();

    // SessionStart: memory framed as data, a date marker, no mode yet.
    let start = hook(
        &repo,
        "SessionStart",
        &payload(&repo, "SessionStart-startup"),
    );
    assert_eq!(start["hookSpecificOutput"]["hookEventName"], "SessionStart");
    let text = context_of(&start);
    assert!(
        text.starts_with("git-rune: session context of 2026-01-01 (UTC)."),
        "{text}"
    );
    assert!(
        text.contains("<rune-memory source=\"git-rune\">") && text.contains("Use Zod"),
        "{text}"
    );
    assert!(!text.contains("Output density: caveman"), "{text}");

    let refs_before = memory_refs(&repo);
    let read_large = payload(&repo, "PostToolUse-Read-large");
    let edit = payload(&repo, "PostToolUse-Edit");
    let bash = payload(&repo, "PostToolUse-Bash");
    let mut advised = Vec::new();
    let mut blocked = Vec::new();
    for call in 1..=130u32 {
        let input = match call {
            1..=3 => &read_large,
            _ if call % 10 == 0 => &edit,
            _ => &bash,
        };
        let out = hook(&repo, "PostToolUse", input);
        if out.is_null() {
            if call <= 100 {
                // Counting writes no memory commit.
                assert_eq!(memory_refs(&repo), refs_before, "call {call}");
            }
            continue;
        }
        if out["decision"] == "block" {
            blocked.push((call, out["reason"].as_str().unwrap().to_owned()));
        } else {
            advised.push((call, context_of(&out).to_owned()));
        }
    }
    // Three reads over 500 lines shrink the thresholds to 40/65/100; advice every 5 calls.
    let calls: Vec<u32> = advised.iter().map(|(c, _)| *c).collect();
    assert_eq!(calls, [40, 45, 50, 55, 60, 65, 70, 75, 80, 85, 90, 95, 100]);
    assert!(
        advised[0]
            .1
            .starts_with("40 tool calls. Load only essential files."),
        "{}",
        advised[0].1
    );
    let orange = &advised[5].1;
    assert!(
        orange.starts_with("65 tool calls. Recommend /compact at next phase boundary"),
        "{orange}"
    );
    assert!(
        orange.contains("Output density is now caveman")
            && orange.contains("# Output density: caveman")
    );
    assert!(
        !advised[6].1.contains("# Output density: caveman"),
        "the rules are given once"
    );
    // RED (above 100): the state is saved first, then the agent is told at once.
    let red: Vec<u32> = blocked.iter().map(|(c, _)| *c).collect();
    assert_eq!(red, [101, 106, 111, 116, 121, 126]);
    assert!(blocked[0].1.starts_with("Context CRITICAL (101 tool calls, likely near limit). State saved to .rune/. Run /compact now."), "{}", blocked[0].1);
    assert_ne!(memory_refs(&repo), refs_before, "RED saved a checkpoint");
    let cp = repo.read(".rune/checkpoint.md");
    assert!(
        cp.contains(
            "## What I Was Doing\nContext compacted (at 101 tool calls): validation logic\n"
        ),
        "{cp}"
    );
    assert!(
        cp.contains("\n## Compaction Summary (generated at 101 tool calls)\n"),
        "{cp}"
    );

    let status = repo.rune(&["context", "status"]).success().stdout;
    assert!(
        status.contains(
            "- **Tool Calls**: 130\n- **Status**: RED\n- **Recommendation**: compact-immediately"
        ),
        "{status}"
    );
    assert!(
        status.contains("- **Large-file multiplier**: on")
            && status.contains("- Files touched: src/lib.rs"),
        "{status}"
    );
    assert!(status.contains("- **Output density**: caveman"), "{status}");

    // PreCompact writes the summary as the checkpoint; SessionStart(compact) shows it.
    let before = memory_refs(&repo);
    assert!(hook(&repo, "PreCompact", &payload(&repo, "PreCompact-auto")).is_null());
    assert_ne!(memory_refs(&repo), before);
    let resumed = hook(
        &repo,
        "SessionStart",
        &payload(&repo, "SessionStart-compact"),
    );
    let text = context_of(&resumed);
    assert!(text.contains("The context was just compacted."), "{text}");
    assert!(
        text.contains("## Compaction Summary (generated at 130 tool calls)"),
        "{text}"
    );
    assert!(
        text.contains("### Active Threads\n- validation logic\n- Current file: src/lib.rs"),
        "{text}"
    );
    assert!(
        text.contains("### Continuation Point\n> Resume: implement validate() in src/lib.rs:1"),
        "{text}"
    );
    let status = repo.rune(&["context", "status", "--json"]).success().stdout;
    let v: serde_json::Value = serde_json::from_str(&status).unwrap();
    assert_eq!(v["health"]["tool_calls"], 0, "the counter starts again");
    assert_eq!(
        v["health"]["density"], "normal",
        "compaction ends the automatic caveman"
    );

    // Stop records the session once; again with nothing new, it writes nothing.
    assert!(hook(&repo, "Stop", &payload(&repo, "Stop-active-false")).is_null());
    let log = repo.rune(&["log"]).success().stdout;
    assert!(
        log.contains("agent session 3f6a2c1e: 130 tool calls; touched src/lib.rs"),
        "{log}"
    );
    let after_stop = memory_refs(&repo);
    assert!(hook(&repo, "Stop", &payload(&repo, "Stop-active-true")).is_null());
    assert!(hook(
        &repo,
        "SessionEnd",
        &payload(&repo, "SessionEnd-prompt_input_exit")
    )
    .is_null());
    assert_eq!(memory_refs(&repo), after_stop);
    let status = repo.rune(&["agent", "status", "--json"]).success().stdout;
    assert!(status.contains("\"log\":[]"), "{status}");
}

/// Whatever goes wrong, the hook exits 0, prints nothing harmful and logs one line.
#[test]
fn the_hook_never_fails_the_agent() {
    let repo = TestRepo::new();
    repo.commit_file("a", "a\n", "init");
    for (event, input) in [
        ("PostToolUse", &b"not json"[..]),
        ("SessionStart", b""),
        ("PostToolUse", b"[1,2,3]"),
        ("Bogus", b"{}"),
    ] {
        let out = repo.rune_stdin(&["agent", "hook", event], input).success();
        assert_eq!(out.stdout, "", "{event}");
    }
    // A repository without memory still gets a session start, and a broken ref is logged.
    let start = hook(
        &repo,
        "SessionStart",
        &payload(&repo, "SessionStart-startup"),
    );
    assert!(context_of(&start).contains("<rune-memory"));
    std::fs::create_dir_all(repo.root.join(".git/refs/rune")).unwrap();
    std::fs::write(
        repo.root.join(".git/refs/rune/memory"),
        "0123456789012345678901234567890123456789\n",
    )
    .unwrap();
    let out = repo
        .rune_stdin(
            &["agent", "hook", "SessionStart"],
            &payload(&repo, "SessionStart-startup"),
        )
        .success();
    assert_eq!(out.stdout, "");
    let status = repo.rune(&["agent", "status"]).success().stdout;
    assert!(status.contains("recent agent hook failures"), "{status}");
    let log = repo.read(".git/rune/agent.log");
    assert_eq!(log.lines().count(), 5, "{log}");
    assert!(
        log.contains("PostToolUse: input not used") && log.contains("unknown event \"Bogus\""),
        "{log}"
    );
    // A bad threshold setting is logged by name; the session still gets its memory.
    std::fs::remove_file(repo.root.join(".git/refs/rune/memory")).unwrap();
    repo.git(&["config", "rune.context.red", "lots"]);
    let start = hook(
        &repo,
        "SessionStart",
        &payload(&repo, "SessionStart-startup"),
    );
    assert!(context_of(&start).contains("<rune-memory"));
    assert!(repo
        .read(".git/rune/agent.log")
        .contains("settings: rune.context.red = \"lots\" is not a valid value"));
    // Outside a repository: nothing at all.
    let outside = TestRepo::empty_dir();
    let out = outside
        .rune_stdin(&["agent", "hook", "PostToolUse"], b"{}")
        .success();
    assert_eq!((out.stdout.as_str(), out.stderr.as_str()), ("", ""));
}

/// install + uninstall gives the settings file back byte for byte; bad JSON is refused.
#[test]
fn wiring_claude_code_and_agents_md() {
    let repo = TestRepo::new();
    repo.commit_file("a", "a\n", "init");
    let settings = "{\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(npm test)\"\n    ]\n  },\n  \"model\": \"opus\"\n}\n";
    repo.write(".claude/settings.local.json", settings);
    repo.rune(&["agent", "install", "claude", "--local"])
        .success();
    repo.rune(&["agent", "install", "claude", "--local"])
        .success();
    let v: serde_json::Value =
        serde_json::from_str(&repo.read(".claude/settings.local.json")).unwrap();
    assert_eq!(v["hooks"]["SessionStart"].as_array().unwrap().len(), 4);
    assert_eq!(v["permissions"]["allow"][0], "Bash(npm test)");
    let out = repo
        .rune(&["agent", "uninstall", "claude", "--local"])
        .success();
    assert!(out.stdout.contains("removed"), "{}", out.snapshot());
    assert_eq!(repo.read(".claude/settings.local.json"), settings);

    repo.write(".claude/settings.json", "{\n  \"hooks\": {,\n}\n");
    let out = repo.rune(&["agent", "install", "claude"]).failure();
    assert!(
        out.stderr.contains(".claude/settings.json:2:"),
        "{}",
        out.snapshot()
    );
    assert!(
        out.stderr.contains("it was not changed"),
        "{}",
        out.snapshot()
    );
    assert_eq!(
        repo.read(".claude/settings.json"),
        "{\n  \"hooks\": {,\n}\n"
    );

    repo.write("CLAUDE.md", "# Project\n");
    repo.rune(&["agent", "install", "agents-md", "--file", "CLAUDE.md"])
        .success();
    assert!(repo.read("CLAUDE.md").contains("git rune load"));
    assert!(repo
        .rune(&["agent", "status"])
        .success()
        .stdout
        .contains("CLAUDE.md: block present"));
    repo.rune(&["agent", "uninstall", "agents-md", "--file", "CLAUDE.md"])
        .success();
    assert_eq!(repo.read("CLAUDE.md"), "# Project\n");
    // The wiring files are the user's: nothing of it lands in git status but their own edits.
    assert_eq!(repo.git(&["status", "--porcelain", "--", ".rune"]), "");
}

#[test]
fn fold_preview_budget_and_modes() {
    let repo = TestRepo::new();
    repo.commit_file("a", "a\n", "init");
    repo.rune(&["init", "-q"]).success();
    // Small output passes through; large output is folded; the exit status is kept.
    let out = repo.rune(&["fold", "--", "sh", "-c", "echo hi; exit 3"]);
    assert_eq!((out.code, out.stdout.as_str()), (3, "hi\n"));
    let out = repo
        .rune(&["fold", "--tool", "Grep", "--", "seq", "1", "500"])
        .success();
    assert!(
        out.stdout.starts_with(
            "[FOLDED: Grep output — 500 lines, 1892 chars]\nPreview (first 10 lines):\n1\n"
        ),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("Full output: .rune/artifacts/artifact-20260101T"),
        "{}",
        out.stdout
    );
    let listed = repo.rune(&["context", "artifacts"]).success().stdout;
    assert!(
        listed.starts_with(".rune/artifacts/artifact-") && listed.contains("-Grep.md"),
        "{listed}"
    );
    assert_eq!(
        repo.git(&["status", "--porcelain"]),
        "",
        "artifacts stay out of git"
    );

    // Preview: exit 3 on block.
    repo.write("big.txt", &"x".repeat(400_000));
    let out = repo.rune(&[
        "context", "preview", "--caller", "team", "--json", "big.txt",
    ]);
    assert_eq!(out.code, 3, "{}", out.snapshot());
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        (v["estimated_tokens"].as_u64(), v["action"].as_str()),
        (Some(100_000), Some("block"))
    );
    repo.git(&["config", "rune.context.preview.team", "200000,300000"]);
    let out = repo
        .rune(&["context", "preview", "--caller", "team", "big.txt"])
        .success();
    assert!(out.stdout.contains(": proceed"), "{}", out.stdout);
    let out = repo
        .rune(&["context", "preview", "--caller", "nobody", "big.txt"])
        .failure();
    assert!(
        out.stderr.contains("rune.context.preview.nobody"),
        "{}",
        out.stderr
    );

    // Budget from .mcp.json.
    repo.write(".mcp.json", r#"{"mcpServers":{"github":{"command":"x"}}}"#);
    let out = repo.rune(&["context", "budget"]).success().stdout;
    assert!(
        out.contains("- MCP servers: 1 (10 tools × 500 tokens)"),
        "{out}"
    );

    // Modes: written to the view, injected at SessionStart; density by hand.
    repo.rune(&["mode", "review", "-q"]).success();
    assert!(repo
        .read(".rune/active-context.md")
        .starts_with("# Mode: review"));
    repo.rune(&["mode", "--density", "caveman", "-q"]).success();
    assert_eq!(
        repo.rune(&["mode"]).success().stdout,
        "mode: review\ndensity: caveman (manual)\n"
    );
    let start = hook(
        &repo,
        "SessionStart",
        &payload(&repo, "SessionStart-startup"),
    );
    let text = context_of(&start);
    assert!(
        text.contains("Active mode: review") && text.contains("# Output density: caveman"),
        "{text}"
    );
    repo.rune(&["mode", "off", "-q"]).success();
    repo.rune(&["mode", "--density", "normal", "-q"]).success();
    assert_eq!(
        repo.rune(&["mode"]).success().stdout,
        "mode: none\ndensity: normal (manual)\n"
    );
    assert_eq!(repo.git(&["status", "--porcelain", "--", ".rune"]), "");
}

#[test]
fn session_start_briefs_memory_a_plain_git_pull_brought() {
    let remote = crate::common::Remote::new();
    let ada = remote.clone("ada");
    ada.commit_file("README", "hi\n", "start");
    ada.git(&["push", "-q", "origin", "main"]);
    ada.rune(&["-q", "init"]).success();
    let bob = remote.clone("bob");
    bob.rune(&["-q", "init"]).success();
    ada.learn("ports", "flaky ports come from parallel test servers");
    ada.rune(&["-q", "sync"]).success();
    // init added git-rune's fetch refspecs: `git pull` brings the memory along.
    bob.git(&["pull", "-q"]);
    let start = hook(&bob, "SessionStart", &payload(&bob, "SessionStart-startup"));
    assert!(
        context_of(&start).contains("parallel test servers"),
        "{start}"
    );
}
