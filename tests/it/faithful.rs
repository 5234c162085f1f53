//! Memory never silently lies (issue 23): what agents write under `.rune/` reaches a fresh
//! clone line for line, or is named as local; a save that fails says so at the next session.

use crate::common::{Remote, TestRepo};

/// A repository with one commit and memory initialised.
fn repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a\n", "first");
    repo.rune(&["init"]).success();
    repo
}

const PLAN: &str = "# Plan: auth refactor\n\n## Phase 1\n- [x] extract the token service\n- [ ] move sessions\n\n```rust\nfn main() {}\n```\n";
const CONTINUE: &str = "Resume at phase 2, step 3: the session store.\n";
const ADR: &str = "# ADR 001: Postgres\n\nStatus: accepted\n";

#[test]
fn documents_reach_a_fresh_clone_and_local_files_are_named() {
    let remote = Remote::new();
    let a = remote.clone("alice");
    a.commit_file("a.txt", "a\n", "first");
    a.git(&["push", "-q", "origin", "main"]);
    a.rune(&["init"]).success();
    a.write(".rune/plan-auth.md", PLAN);
    a.write(".rune/.continue-here.md", CONTINUE);
    a.write(".rune/adr/001-postgres.md", ADR);
    a.write(
        ".rune/artifacts/artifact-20260101T000000Z-Grep.md",
        "# Artifact\n",
    );
    std::fs::write(a.root.join(".rune/diagram.png"), b"\x89PNG\r\n\x1a\n\0\0").unwrap();
    a.rune(&[
        "echo",
        "add",
        "Pattern: Retry storms",
        "--role",
        "reviewer",
        "--layer",
        "inscribed",
        "--confidence",
        "0.7",
        "--evidence",
        "`net.rs:3`",
        "--text",
        "Cap retries.",
    ])
    .success();
    a.write(
        ".claude/echoes/reviewer/archive/MEMORY-2026-01-01.md",
        "backup\n",
    );

    let st = a.rune(&["status"]).success().stdout;
    assert!(!st.contains("is clean"), "{st}");
    assert!(st.contains("added:    .rune/plan-auth.md"), "{st}");
    assert!(st.contains("added:    .rune/.continue-here.md"), "{st}");
    assert!(st.contains("added:    .rune/adr/001-postgres.md"), "{st}");
    assert!(st.contains("local:    .rune/artifacts/"), "{st}");
    assert!(
        st.contains("refused:  .rune/diagram.png: it is binary"),
        "{st}"
    );
    let json = a.rune(&["status", "--json"]).success().stdout;
    assert!(
        json.contains("\"file\":\"plan-auth.md\",\"state\":\"added\""),
        "{json}"
    );

    let saved = a.rune(&["save"]).success();
    assert!(
        saved
            .stderr
            .contains(".rune/diagram.png is not kept in memory"),
        "{}",
        saved.stderr
    );
    let st = a.rune(&["status"]).success().stdout;
    assert!(
        st.contains(".rune/: everything memory stores is saved"),
        "{st}"
    );
    assert!(!st.contains("added:"), "{st}");
    a.rune(&["sync"]).success();

    let b = remote.clone("bob");
    b.rune(&["init"]).success();
    // init brings memory in and renders both directories.
    assert!(b
        .read(".claude/echoes/reviewer/MEMORY.md")
        .contains("Pattern: Retry storms"));
    assert_eq!(
        b.read(".claude/echoes/reviewer/archive/MEMORY-2026-01-01.md"),
        "backup\n"
    );
    b.rune(&["sync"]).success();
    assert_eq!(b.read(".rune/plan-auth.md"), PLAN);
    assert_eq!(b.read(".rune/.continue-here.md"), CONTINUE);
    assert_eq!(b.read(".rune/adr/001-postgres.md"), ADR);
    assert!(!b.root.join(".rune/artifacts").exists());
    assert!(!b.root.join(".rune/diagram.png").exists());
    let st = b.rune(&["status"]).success().stdout;
    assert!(st.contains(".rune/ is clean"), "{st}");

    // An edit in one clone, a deletion in another: latest writer per path.
    b.write(".rune/plan-auth.md", &format!("{PLAN}- [ ] phase 3\n"));
    std::fs::remove_file(b.root.join(".rune/.continue-here.md")).unwrap();
    let st = b.rune(&["status"]).success().stdout;
    assert!(st.contains("modified: .rune/plan-auth.md"), "{st}");
    assert!(st.contains("deleted:  .rune/.continue-here.md"), "{st}");
    let saved = b.rune(&["save"]).success();
    assert!(
        saved
            .stderr
            .contains(".rune/.continue-here.md was deleted: it is deleted from memory"),
        "{}",
        saved.stderr
    );
    b.rune(&["sync"]).success();
    a.rune(&["sync"]).success();
    assert!(a.read(".rune/plan-auth.md").ends_with("- [ ] phase 3\n"));
    assert!(!a.root.join(".rune/.continue-here.md").exists());
}

#[test]
fn a_document_deleted_by_hand_is_not_brought_back_before_save() {
    let repo = repo();
    repo.write(".rune/notes.md", "scratch\n");
    repo.rune(&["save"]).success();
    std::fs::remove_file(repo.root.join(".rune/notes.md")).unwrap();
    // Another write re-renders the view: the deletion stands until it is saved.
    repo.learn("k", "an insight");
    assert!(!repo.root.join(".rune/notes.md").exists());
    repo.rune(&["restore", ".rune/notes.md"]).success();
    assert_eq!(repo.read(".rune/notes.md"), "scratch\n");
}

#[test]
fn record_files_written_into_the_view_take_effect() {
    let repo = repo();
    repo.write(
        ".rune/checkpoint.md",
        "# Checkpoint — 2026-01-02 10:00\n\n## What I Was Doing\nWiring the parser\n",
    );
    repo.rune(&["save"]).success();
    // The seed's way to resolve a checkpoint: rename it to its archive.
    std::fs::rename(
        repo.root.join(".rune/checkpoint.md"),
        repo.root.join(".rune/checkpoint-2026-01-02.resolved.md"),
    )
    .unwrap();
    repo.write(
        ".rune/oracle-pending/oracle-1714234500-abc123.json",
        r#"{"sessionId":"oracle-1714234500-abc123","dispatchedAt":"2026-01-02T12:34:56Z","triggerSignal":"agent.stuck","sourceSkill":"debug","targetModel":"claude-opus-4-7","bundleHash":"sha256:9f3a0000","status":"pending","timeoutAt":"2026-01-02T12:44:56Z","responseId":null,"responseExcerpt":null}"#,
    );
    let saved = repo.rune(&["save"]).success();
    assert!(saved.stderr.contains("imported"), "{}", saved.stderr);
    let list = repo.rune(&["oracle", "list"]).success().stdout;
    assert!(list.contains("oracle-1714234500-abc123"), "{list}");
    let all = repo.rune(&["show", "checkpoint", "--all"]).success().stdout;
    assert!(all.contains("resolved"), "{all}");
    assert!(!repo.root.join(".rune/checkpoint.md").exists());
    // Both files are now rendered from memory: the view is clean.
    let st = repo.rune(&["status"]).success().stdout;
    assert!(st.contains(".rune/ is clean"), "{st}");
    assert!(repo
        .read(".rune/checkpoint-2026-01-02.resolved.md")
        .contains("Wiring the parser"));
    assert!(repo
        .read(".rune/oracle-pending/oracle-1714234500-abc123.json")
        .contains("\"status\": \"pending\""));
}

#[test]
fn prose_before_the_first_entry_saves_and_comes_back() {
    let repo = repo();
    let text = "# Decisions Log\n\nArchitecture choices for billing. Newest last.\n\n> Write one entry per decision.\n<!-- kept by the session bridge -->\n\n## [2026-01-02 09:00] Decision: Postgres\n**Context:** c\n**Decision:** Postgres 16\n**Rationale:** r\n**Impact:** db/\n";
    repo.write(".rune/decisions.md", text);
    repo.rune(&["save"]).success();
    assert_eq!(repo.read(".rune/decisions.md"), text);
    // A new decision recorded elsewhere keeps the frame.
    repo.decide("Redis", "Redis 7", &[]);
    let now = repo.read(".rune/decisions.md");
    assert!(
        now.starts_with("# Decisions Log\n\nArchitecture choices for billing."),
        "{now}"
    );
    assert!(now.contains("Decision: Redis"), "{now}");
}

#[test]
fn an_odd_heading_never_joins_the_entry_above() {
    let repo = repo();
    repo.write(
        ".rune/decisions.md",
        "# Decisions Log\n\n## [2026-01-02 09:00] Decision: Use Postgres\n**Context:** c\n**Decision:** Postgres 16\n\n## 2026-11-25 — Decision: Use Redis\n**Context:** c\n**Decision:** Redis 7\n",
    );
    let out = repo.rune(&["save"]).success();
    assert!(out.stdout.contains("2 added"), "{}", out.stdout);
    let shown = repo.rune(&["show", "decisions", "--json"]).success().stdout;
    assert!(shown.contains("\"decision\":\"Postgres 16\""), "{shown}");
    assert!(shown.contains("\"decision\":\"Redis 7\""), "{shown}");
    repo.write(
        ".rune/decisions.md",
        &format!(
            "{}\n## [2026-13-45] Decision: Bad date\n**Decision:** x\n",
            repo.read(".rune/decisions.md")
        ),
    );
    let out = repo.rune(&["save"]).failure();
    assert!(
        out.stderr.contains(".rune/decisions.md:")
            && out.stderr.contains("\"2026-13-45\" is not a date")
            && out
                .stderr
                .contains("## [YYYY-MM-DD HH:MM] Decision: <title>"),
        "{}",
        out.stderr
    );
}

#[test]
fn the_onboard_template_saves_and_comes_back_byte_for_byte() {
    let repo = repo();
    let template = include_str!("../fixtures/invariants/onboard-template.md");
    repo.write(".rune/INVARIANTS.md", template);
    repo.rune(&["save"]).success();
    assert_eq!(repo.read(".rune/INVARIANTS.md"), template);
    let filled = include_str!("../fixtures/invariants/loader-sample.md");
    repo.write(".rune/INVARIANTS.md", filled);
    repo.rune(&["save"]).success();
    assert_eq!(repo.read(".rune/INVARIANTS.md"), filled);
    let json = repo
        .rune(&["show", "invariants", "--json"])
        .success()
        .stdout;
    assert!(json.contains("\"count\":5"), "{json}");
    assert!(!json.contains("legacy-cron"), "{json}");
    // export rune-dir writes the same file.
    let out = repo.root.join("../export");
    repo.rune(&["export", "rune-dir", out.to_str().unwrap()])
        .success();
    assert_eq!(
        std::fs::read_to_string(out.join("INVARIANTS.md")).unwrap(),
        filled
    );
}

/// Runs an agent hook: it always exits 0, and prints nothing on stderr.
fn hook(repo: &TestRepo, event: &str, input: &str) -> String {
    let out = repo
        .rune_stdin(&["agent", "hook", event], input.as_bytes())
        .success();
    assert_eq!(out.stderr, "", "{event}: {}", out.snapshot());
    out.stdout
}

#[test]
fn a_failed_hook_save_is_reported_until_a_save_succeeds() {
    let repo = repo();
    let cwd = repo.root.display().to_string();
    let input = |event: &str| {
        format!(
            r#"{{"session_id":"s1","hook_event_name":"{event}","cwd":"{cwd}","stop_hook_active":false}}"#
        )
    };
    hook(&repo, "SessionStart", &input("SessionStart"));
    repo.write(
        ".rune/decisions.md",
        "# Decisions Log\n\n## [2026-13-45] Decision: Bad date\n**Decision:** x\n",
    );
    // The Stop hook cannot save: it still exits 0 and says nothing.
    hook(&repo, "Stop", &input("Stop"));
    hook(&repo, "SessionEnd", &input("SessionEnd"));
    let want = ".rune/decisions.md:3: \"2026-13-45\" is not a date";
    let st = repo.rune(&["status"]).success().stdout;
    assert!(st.contains("the last save") && st.contains(want), "{st}");
    assert!(st.contains("run `git rune save`"), "{st}");
    let load = repo.rune(&["load"]).success().stdout;
    assert!(load.starts_with("git-rune: the last save"), "{load}");
    assert!(load.lines().next().unwrap().contains(want), "{load}");
    let json = repo.rune(&["load", "--json"]).success().stdout;
    assert!(
        json.contains("\"notices\":[\"git-rune: the last save"),
        "{json}"
    );
    let start = hook(&repo, "SessionStart", &input("SessionStart"));
    assert!(
        start.contains("the last save") && start.contains("is not a date"),
        "{start}"
    );

    // Fixed and saved: the notice is gone.
    repo.write(
        ".rune/decisions.md",
        "# Decisions Log\n\n## [2026-12-25] Decision: Good date\n**Decision:** x\n",
    );
    repo.rune(&["save"]).success();
    let st = repo.rune(&["status"]).success().stdout;
    assert!(!st.contains("failed"), "{st}");
    assert!(!repo
        .rune(&["load"])
        .success()
        .stdout
        .contains("the last save ("));
}

const PROGRESS_MAIN: &str =
    "# Progress\n\n## [2026-01-02 10:00] Session Summary\n**Completed:**\n- [x] main's parser\n";

#[test]
fn the_view_follows_head_without_hooks() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a\n", "first");
    repo.rune(&["init", "--no-hooks"]).success();
    repo.write(".rune/progress.md", PROGRESS_MAIN);
    repo.rune(&["save"]).success();

    // A switch without hooks: the next command renders the branch's own (empty) progress.
    repo.git(&["switch", "-q", "-c", "feature"]);
    let st = repo.rune(&["status"]).success().stdout;
    assert!(st.contains("On branch feature"), "{st}");
    assert!(st.contains(".rune/ is clean"), "{st}");
    assert!(!repo.read(".rune/progress.md").contains("main's parser"));

    // An edit made on feature, then a switch back without hooks: never saved to main.
    repo.write(
        ".rune/progress.md",
        "# Progress\n\n## [2026-01-03 10:00] Session Summary\n**In Progress:**\n- [ ] feature's renderer\n",
    );
    repo.git(&["switch", "-q", "main"]);
    let st = repo.rune(&["status"]).success().stdout;
    assert!(
        st.contains("modified: .rune/progress.md (rendered for branch feature"),
        "{st}"
    );
    let saved = repo.rune(&["save"]).success();
    assert!(
        saved
            .stderr
            .contains(".rune/progress.md was rendered for branch feature"),
        "{}",
        saved.stderr
    );
    let main = repo.rune(&["show", "progress"]).success().stdout;
    assert!(
        main.contains("main's parser") && !main.contains("feature's renderer"),
        "{main}"
    );
    assert!(repo.read(".rune/progress.md").contains("main's parser"));
    repo.git(&["switch", "-q", "feature"]);
    let feature = repo.rune(&["show", "progress"]).success().stdout;
    assert!(feature.contains("feature's renderer"), "{feature}");
    assert!(repo
        .read(".rune/progress.md")
        .contains("feature's renderer"));
}

#[test]
fn skipped_hooks_and_linked_worktrees_still_see_the_right_view() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a\n", "first");
    repo.rune(&["init", "--hooks"]).success();
    repo.write(".rune/progress.md", PROGRESS_MAIN);
    repo.rune(&["save"]).success();
    let mut cmd = std::process::Command::new("git");
    repo.env(&mut cmd);
    let out = cmd
        .env("GIT_RUNE_SKIP_HOOKS", "1")
        .args(["switch", "-q", "-c", "other"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let st = repo.rune(&["status"]).success().stdout;
    assert!(st.contains(".rune/ is clean"), "{st}");
    assert!(!repo.read(".rune/progress.md").contains("main's parser"));

    // A linked worktree sees another worktree's write at its next command.
    let wt = repo.root.join("../linked");
    repo.git(&[
        "worktree",
        "add",
        "-q",
        wt.to_str().unwrap(),
        "-b",
        "linked",
    ]);
    repo.rune_in(&wt, &["status"]).success();
    repo.decide("Shared cache", "Redis", &[]);
    repo.rune_in(&wt, &["status"]).success();
    let there = std::fs::read_to_string(wt.join(".rune/decisions.md")).unwrap();
    assert!(there.contains("Decision: Shared cache"), "{there}");
}

#[test]
fn a_tree_the_echoes_plugin_wrote_imports_entry_for_entry() {
    let repo = repo();
    let dir = format!(
        "{}/tests/fixtures/echoes-plugin",
        env!("CARGO_MANIFEST_DIR")
    );
    let out = repo.rune(&["import", "echoes", &dir]).success();
    assert!(!out.stderr.contains("kept raw"), "{}", out.stderr);
    let shown = crate::common::json_lines(&repo.rune(&["--json", "echo", "show"]).success().stdout);
    let archived = crate::common::json_lines(
        &repo
            .rune(&["--json", "echo", "show", "--archived"])
            .success()
            .stdout,
    );
    // 11 entries in the role files, 1 in the archive backup.
    assert_eq!(shown.len(), 11, "{shown:#?}");
    assert_eq!(archived.len(), 1, "{archived:#?}");
    let layers: Vec<&str> = shown.iter().filter_map(|e| e["layer"].as_str()).collect();
    for l in ["etched", "notes", "inscribed", "observations", "traced"] {
        assert!(layers.contains(&l), "{l}: {layers:?}");
    }
    let token = shown
        .iter()
        .find(|e| e["title"] == "Session Token Handling Review")
        .unwrap();
    assert_eq!(token["confidence"], 0.9);
    assert!(token["text"]
        .as_str()
        .unwrap()
        .contains("### Key Learnings"));
    // Importing again adds nothing; the view writes the seed's format.
    let again = repo.rune(&["import", "echoes", &dir]).success();
    assert!(
        again.stdout.contains("0 new") || again.stdout.contains("added 0"),
        "{}",
        again.stdout
    );
    let reviewer = repo.read(".claude/echoes/reviewer/MEMORY.md");
    assert!(
        reviewer
            .contains("### [2026-01-14] Session Token Handling Review\n- **layer**: inscribed\n"),
        "{reviewer}"
    );
    assert!(
        reviewer.contains("- **confidence as written**: HIGH (3 Ashes, all completed)"),
        "{reviewer}"
    );
}

const FINDING_WITH_SECRET: &str = "### [2026-02-01] Pattern: Tokens in logs\n- **layer**: inscribed\n- **source**: rune:review PR #9\n- **confidence**: 0.8\n- **evidence**: `src/log.ts:4` — logged ghp_0123456789abcdefABCDEF0123456789abcd\n- **verified**: 2026-02-01\n- **supersedes**: none\n- Request headers are logged at debug level; redact them first.\n";

/// Regression: a findings file kept unsaved because of a later entry said of an earlier one
/// that its evidence was stripped and "the learning kept", though nothing of the file was saved.
#[test]
fn a_findings_file_kept_unsaved_claims_nothing_of_its_entries() {
    let repo = repo();
    let dir = repo.root.join(".claude/echoes/reviewer");
    std::fs::create_dir_all(&dir).unwrap();
    let bad = "\n### [2026-02-02] Pattern: Odd\n- **layer**: bogus\n- **confidence**: 0.5\n- x\n";
    std::fs::write(
        dir.join("ward-findings.md"),
        format!("{FINDING_WITH_SECRET}{bad}"),
    )
    .unwrap();
    let before = repo.refs();
    let saved = repo.rune(&["save"]).success();
    assert!(
        saved
            .stderr
            .contains("kept .claude/echoes/reviewer/ward-findings.md")
            && saved.stderr.contains("layer"),
        "{}",
        saved.stderr
    );
    assert!(
        !saved.stderr.contains("the learning kept") && !saved.stderr.contains("ghp_"),
        "{}",
        saved.stderr
    );
    assert_eq!(repo.refs(), before, "nothing of the file was saved");
    assert!(dir.join("ward-findings.md").exists());
}

#[test]
fn echo_files_findings_and_documents_are_saved_and_reported() {
    let repo = repo();
    let dir = repo.root.join(".claude/echoes/reviewer");
    std::fs::create_dir_all(dir.join("archive")).unwrap();
    std::fs::write(dir.join("ward-findings.md"), FINDING_WITH_SECRET).unwrap();
    std::fs::write(
        dir.join("archive/MEMORY-2026-01-01.md"),
        "# Reviewer Memory (backup before pruning)\n\nold entries\n",
    )
    .unwrap();
    let st = repo.rune(&["status"]).success().stdout;
    assert!(
        st.contains("findings: .claude/echoes/reviewer/ward-findings.md"),
        "{st}"
    );
    assert!(
        st.contains("added:    .claude/echoes/reviewer/archive/MEMORY-2026-01-01.md"),
        "{st}"
    );
    let saved = repo.rune(&["save"]).success();
    assert!(
        saved.stderr.contains("evidence held a secret") && !saved.stderr.contains("ghp_"),
        "{}",
        saved.stderr
    );
    let shown = crate::common::json_lines(&repo.rune(&["--json", "echo", "show"]).success().stdout);
    assert_eq!(shown.len(), 1, "{shown:?}");
    assert_eq!(
        shown[0]["text"],
        "Request headers are logged at debug level; redact them first."
    );
    assert!(shown[0]["evidence"].is_null(), "{:?}", shown[0]);
    assert!(!repo
        .git(&["log", "-p", "refs/rune/memory"])
        .contains("ghp_0123"));
    let st = repo.rune(&["status"]).success().stdout;
    assert!(!st.contains("echoes with changes"), "{st}");

    // The same pattern on the same evidence location, another description: the same entry.
    std::fs::write(
        dir.join("quill-findings.md"),
        "### [2026-02-05] Pattern: Tokens in logs\n- **confidence**: 0.9\n- **evidence**: `src/log.ts:4` — still there\n- **verified**: 2026-02-05\n- Still logged.\n",
    )
    .unwrap();
    repo.rune(&["echo", "consolidate"]).success();
    let shown = crate::common::json_lines(&repo.rune(&["--json", "echo", "show"]).success().stdout);
    assert_eq!(shown.len(), 1, "{shown:?}");
    assert_eq!(shown[0]["confidence"], 0.9);
    assert_eq!(shown[0]["verified"], "2026-02-05");

    // A document deleted by hand stays deleted until saved; restore brings the directory back.
    std::fs::remove_dir_all(repo.root.join(".claude/echoes")).unwrap();
    let st = repo.rune(&["status"]).success().stdout;
    assert!(
        st.contains("deleted:  .claude/echoes/reviewer/archive/MEMORY-2026-01-01.md"),
        "{st}"
    );
    repo.rune(&["restore"]).success();
    assert!(repo.root.join(".claude/echoes/reviewer/MEMORY.md").exists());
    assert_eq!(
        repo.read(".claude/echoes/reviewer/archive/MEMORY-2026-01-01.md"),
        "# Reviewer Memory (backup before pruning)\n\nold entries\n"
    );
}

#[test]
fn supersedes_retires_the_entry_it_names() {
    let repo = repo();
    let add = |title: &str, evidence: &str, supersedes: &str| {
        let mut args = vec![
            "echo",
            "add",
            title,
            "--role",
            "reviewer",
            "--layer",
            "inscribed",
            "--confidence",
            "0.7",
            "--evidence",
            evidence,
            "--text",
            "a learning",
        ];
        if !supersedes.is_empty() {
            args.extend(["--supersedes", supersedes]);
        }
        repo.rune(&args).success();
    };
    add("Pattern: Use moment.js", "`a.ts:1`", "");
    add(
        "Pattern: Use date-fns",
        "`a.ts:1`",
        "Pattern: Use moment.js",
    );
    let shown = crate::common::json_lines(&repo.rune(&["--json", "echo", "show"]).success().stdout);
    let titles: Vec<&str> = shown.iter().filter_map(|e| e["title"].as_str()).collect();
    assert_eq!(titles, vec!["Pattern: Use date-fns"], "{shown:?}");
    let archived = repo.rune(&["echo", "show", "--archived"]).success().stdout;
    assert!(archived.contains("Use moment.js"), "{archived}");
}

const CHECKPOINT: &str = "# Checkpoint — [2026-01-02 10:00]\n\n## What I Was Doing\nWiring the retry loop\n\n## Current Git State\n- Branch: main\n- Last commit: 0000000 add the retry client\n- Uncommitted changes: src/api/client.ts\n- Stashed: no\n\n## What's Left (Ordered)\n1. Handle 429\n\n## Context the Next Session Needs\n- The happy path passes\n\n## Resume Command\nContinue with the 429 branch\n";

#[test]
fn a_checkpoint_keeps_the_agents_git_state_and_warns_when_it_moved() {
    let repo = repo();
    repo.write(".rune/checkpoint.md", CHECKPOINT);
    repo.rune(&["save"]).success();
    // Kept as written, beside the state git-rune captured.
    assert_eq!(repo.read(".rune/checkpoint.md"), CHECKPOINT);
    let shown = repo
        .rune(&["show", "checkpoint", "--json"])
        .success()
        .stdout;
    assert!(shown.contains("0000000 add the retry client"), "{shown}");
    assert!(shown.contains("\"git\":{\"branch\":\"main\""), "{shown}");
    let load = repo.rune(&["load"]).success().stdout;
    assert!(
        load.contains("checkpoint may be outdated: it was written on main @ 0000000"),
        "{load}"
    );

    // On another branch, the open checkpoint of the branch it came from is offered.
    repo.git(&["switch", "-q", "-c", "feature"]);
    let load = repo.rune(&["load"]).success().stdout;
    assert!(
        load.contains("## Checkpoint (open on branch main, not this one)"),
        "{load}"
    );
    assert!(load.contains("branch mismatch"), "{load}");
    assert!(load.contains("Wiring the retry loop"), "{load}");
}

#[test]
fn sp_json_keeps_unknown_fields_reads_a_bom_and_warns_of_drift() {
    let repo = repo();
    let head = repo.git(&["rev-parse", "HEAD"]);
    let file = "\u{feff}{\"metadata\":{\"version\":\"2.0\",\"created\":\"2026-01-01T00:00:00Z\",\"updated\":\"2026-01-02T00:00:00Z\",\"git_branch\":\"feature/auth\",\"git_commit\":\"abc123f5d2e8\",\"tool\":\"other\"},\"tasks\":[{\"id\":\"TASK_001\",\"title\":\"Fix auth\",\"status\":\"pending\",\"priority\":\"P1\",\"created\":\"2026-01-01T00:00:00Z\",\"completed\":null,\"consolidated\":false,\"consolidated_count\":0,\"estimate_hours\":3,\"owner\":{\"name\":\"ada\"}}]}";
    repo.write("sp.json", file);
    let out = repo.rune(&["import", "sp-json", "sp.json"]).success();
    assert!(
        out.stderr
            .contains("Git state changed: the file was saved at abc123f")
            && out.stderr.contains("Branch: feature/auth → main"),
        "{}",
        out.stderr
    );
    // Edited through tasks.md, the unknown keys stay.
    let md = repo
        .read(".rune/tasks.md")
        .replace("Fix auth", "Fix auth middleware");
    assert!(!md.contains("estimate_hours"), "{md}");
    repo.write(".rune/tasks.md", &md);
    repo.rune(&["save"]).success();
    let exported = repo.rune(&["export", "sp-json", "-"]).success().stdout;
    assert!(
        exported.contains("\"title\":\"Fix auth middleware\"")
            && exported.contains("\"estimate_hours\":3,\"owner\":{\"name\":\"ada\"}"),
        "{exported}"
    );
    // Saved here, exported with HEAD's state: importing it warns of nothing.
    assert!(
        exported.contains(&format!("\"git_commit\":\"{head}\"")),
        "{exported}"
    );
    repo.write("again.json", &exported);
    let out = repo.rune(&["import", "sp-json", "again.json"]).success();
    assert!(!out.stderr.contains("Git state changed"), "{}", out.stderr);
}

#[test]
fn load_skips_an_oversized_learning_and_fold_caps_its_preview() {
    let repo = repo();
    repo.learn("small-old", "Run migrations before tests.");
    repo.learn("small-mid", "Pin the base image digest.");
    let huge = "x".repeat(3000);
    repo.rune(&[
        "-q",
        "learn",
        "--type",
        "insight",
        "--key",
        "huge-new",
        "--insight",
        &huge,
        "--confidence",
        "0.9",
    ])
    .success();
    let load = repo.rune(&["load", "--budget", "500"]).success().stdout;
    assert!(!load.contains(&huge), "{load}");
    assert!(
        load.contains("Run migrations before tests.")
            && load.contains("Pin the base image digest."),
        "{load}"
    );

    // A one-line output of 160,000 characters: a preview of at most a few hundred.
    let big = format!("{{\"data\":[{}]}}", vec!["1234567890"; 16_000].join(","));
    repo.write("big.json", &big);
    let out = repo
        .rune(&["fold", "--tool", "Bash", "--", "cat", "big.json"])
        .success();
    assert!(out.stdout.len() < 1500, "{}", out.stdout.len());
    assert!(
        out.stdout.contains("[FOLDED: Bash output — 1 lines"),
        "{}",
        out.stdout
    );
}

#[test]
fn multi_line_values_keep_their_blank_lines_and_indentation() {
    let repo = repo();
    let text = "# Decisions Log\n\n## [2026-01-02 09:00] Decision: Layers\n**Context:** Two teams share the core.\n**Decision:** Split the core:\n\n```text\ncore/\n  domain/\n\n  adapters/\n```\n**Rationale:** r\n**Impact:** i\n";
    repo.write(".rune/decisions.md", text);
    repo.rune(&["save"]).success();
    let shown = repo.rune(&["show", "decisions", "--json"]).success().stdout;
    assert!(
        shown.contains("core/\\n  domain/\\n\\n  adapters/"),
        "{shown}"
    );
    assert_eq!(repo.read(".rune/decisions.md"), text);
    // Prose after a blank line keeps its indentation.
    let text = "# Decisions Log\n\n## [2026-01-03 09:00] Decision: B\n**Context:** line one\n    indented two\n\n  indented after a blank line\nmore\n**Decision:** d\n**Rationale:** r\n**Impact:** i\n";
    repo.write(".rune/decisions.md", text);
    repo.rune(&["save"]).success();
    assert_eq!(repo.read(".rune/decisions.md"), text);
}

/// What an agent following the seeds writes in a session, with a model's usual variations.
const SESSION: &[(&str, &str)] = &[
    ("decisions.md", "# Decisions Log\n\nArchitecture decisions for the dashboard.\n\n## [2026-04-04 14:30] Decision: Zustand for client state\n**Context:** The dashboard re-renders 50+ widgets on every tick\n**Decision:** Use Zustand instead of Redux\n**Rationale:** Fewer re-renders, less boilerplate\n**Impact:** src/store/, src/widgets/\n\n## 2026-04-05 — Decision: Retry with jitter\n**Context:** The API throttles bursts\n**Decision:** Exponential backoff with full jitter\n**Rationale:** Avoids synchronized retries\n**Impact:** src/api/client.ts\n**Alternatives considered:** fixed delay (rejected)\n"),
    ("conventions.md", "# Conventions\n\n## [2026-04-04] Convention: Async-First I/O\n**Pattern:** All I/O functions use `async def`\n**Example:** `async def fetch_data(): ...`\n**Applies to:** All modules in `src/`\n"),
    ("progress.md", "# Progress\n\n## [2026-04-05 18:00] Session Summary\n**Completed:**\n- [x] Move the store to Zustand\n**In Progress:**\n- [ ] Retry logic (step 2/3)\n**Blocked:**\n- [ ] Load test — staging is down\n**Next Session Should:**\n- Start with the 429 branch\n"),
    ("session-log.md", "# Session Log\n\n[2026-04-04 17:00] — Moved the dashboard to Zustand\n[2026-04-05 18:00] — Retry logic half done\n"),
    ("instincts.md", "# Instincts\n\n## [2026-04-05] Instinct: run migrations before tests\n**Trigger:** a test fails with \"relation does not exist\"\n**Action:** run `make migrate` first\n**Confidence:** 0.7\n**Evidence:** three failed CI runs on 2026-04-05\n"),
    ("cumulative-notes.md", "# Cumulative Project Notes\n\n## Project Profile\n- A real-time dashboard in TypeScript\n\n## Active Topics\n- Retry logic for the API client\n\n## Follow-Up Items\n- [ ] Document the store layout\n"),
    ("learnings.jsonl", "{\"ts\":\"2026-04-04T14:30:00Z\",\"skill\":\"cook\",\"type\":\"decision\",\"key\":\"state-lib\",\"insight\":\"Chose Zustand over Redux — fewer re-renders\",\"confidence\":0.8,\"files\":[\"src/store/index.ts\"]}\n"),
    ("checkpoint.md", "# Checkpoint — 2026-04-05 18:05\n\n## What I Was Doing\nAdding error handling to the retry loop in src/api/client.ts\n\n## Current Git State\n- Branch: main\n- Last commit: 1a2b3c4 retry: backoff\n- Uncommitted changes: src/api/client.ts\n- Stashed: no\n\n## Decisions Made This Session (Load-Bearing)\n- Backoff: exponential, because the upstream throttles\n\n## What's Left (Ordered)\n1. Handle 429 in src/api/client.ts\n2. Add tests\n\n## Context the Next Session Needs\n- The happy path passes\n\n## Resume Command\nContinue with the 429 branch in src/api/client.ts\n"),
    ("task-notes.md", "# Task Notes: retry logic\n\n## What Worked (with evidence)\n- Full jitter: the reconnect storm test passes\n\n## What Failed\n- Fixed delay: synchronized retries\n\n## What's Left\n- [ ] Handle 429\n\n## Key Context for Next Iteration\n- The API sends Retry-After in seconds\n"),
    ("plan-retry.md", "# Plan: retry logic\n\n## Phase 1\n- [x] backoff\n- [ ] jitter\n"),
    (".continue-here.md", "Paused at phase 1, step 2: add jitter to src/api/client.ts.\n"),
    ("adr/001-state.md", "# ADR 001: client state\n\nStatus: accepted\n"),
];

#[test]
fn a_seed_session_reaches_a_fresh_clone_line_for_line() {
    let remote = Remote::new();
    let a = remote.clone("alice");
    a.commit_file("a.txt", "a\n", "first");
    a.git(&["push", "-q", "origin", "main"]);
    a.rune(&["init"]).success();
    for (name, text) in SESSION {
        a.write(&format!(".rune/{name}"), text);
    }
    a.write(
        ".rune/artifacts/artifact-20260405T180000Z-Grep.md",
        "# Artifact: Grep output\n",
    );
    a.write(
        ".rune/INVARIANTS.md",
        include_str!("../fixtures/invariants/template-filled.md"),
    );
    a.rune(&["save", "-m", "session"]).success();
    a.rune(&["sync"]).success();

    let b = remote.clone("bob");
    b.rune(&["init"]).success();
    let mut lost = Vec::new();
    let mut check = |name: &str, text: &str| {
        let there = std::fs::read_to_string(b.root.join(".rune").join(name)).unwrap_or_default();
        let words = |s: &str| -> Vec<String> {
            s.split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(str::to_lowercase)
                .collect()
        };
        let there_words = words(&there);
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            // The line as written, or (a field or heading in the view's spelling) its words.
            let kept =
                there.contains(line.trim()) || words(line).iter().all(|w| there_words.contains(w));
            if !kept {
                lost.push(format!("{name}: {line}"));
            }
        }
    };
    for (name, text) in SESSION {
        check(name, text);
    }
    check(
        "INVARIANTS.md",
        include_str!("../fixtures/invariants/template-filled.md"),
    );
    assert!(
        lost.is_empty(),
        "lost on the way to a fresh clone:\n{}",
        lost.join("\n")
    );
    // Named as local, and not there.
    assert!(!b.root.join(".rune/artifacts").exists());
}

/// `/rune:echoes init` writes a role file with a placeholder and no entry: it blocks no save,
/// is no edit, and the placeholder stays in place when entries come.
#[test]
fn the_echoes_plugins_placeholder_blocks_nothing() {
    let repo = repo();
    let placeholder = "<!-- echo-schema: v1 -->\n# Reviewer Memory\n\n*No echoes yet. Run workflows to start building memory.*\n";
    repo.write(".claude/echoes/reviewer/MEMORY.md", placeholder);
    repo.write(".rune/plan.md", "# Plan\n");
    let out = repo.rune(&["save"]).success();
    assert!(out.stdout.contains("plan.md"), "{}", out.stdout);
    let st = repo.rune(&["status"]).success().stdout;
    assert!(!st.contains("MEMORY.md"), "{st}");
    assert_eq!(repo.read(".claude/echoes/reviewer/MEMORY.md"), placeholder);

    repo.write(
        ".claude/echoes/reviewer/MEMORY.md",
        &format!("{placeholder}\n## Inscribed — Use Redis for cache (2026-01-15)\n\n**Source**: rune:review\n**Confidence**: HIGH (verified)\n\nRedis is used.\n"),
    );
    repo.rune(&["save"]).success();
    let text = repo.read(".claude/echoes/reviewer/MEMORY.md");
    assert!(text.contains("*No echoes yet."), "{text}");
    assert!(text.contains("Use Redis for cache"), "{text}");
}

/// One save: a `.rune/` file that does not read back stops the save before the echoes
/// directory is written, so nothing is half saved; fixed, both land.
#[test]
fn a_parse_error_in_rune_leaves_the_echoes_unsaved_too() {
    let repo = repo();
    let before = repo.git(&["for-each-ref", "refs/rune/"]);
    repo.write(
        ".claude/echoes/reviewer/MEMORY.md",
        "<!-- echo-schema: v1 -->\n# Reviewer Memory\n\n### [2026-01-15] Pattern: Retry storms\n- **layer**: inscribed\n- **confidence**: 0.7\n- Cap retries.\n",
    );
    let decisions = repo.read(".rune/decisions.md");
    repo.write(
        ".rune/decisions.md",
        &format!("{decisions}\n## [2026-13-45] Decision: Bad date\n\n**Decision:** x\n"),
    );
    let err = repo.rune(&["save"]).failure();
    assert!(err.stderr.contains("decisions.md"), "{}", err.stderr);
    assert_eq!(repo.git(&["for-each-ref", "refs/rune/"]), before);
    let st = repo.rune(&["status"]).success().stdout;
    assert!(st.contains("MEMORY.md"), "{st}");

    repo.write(".rune/decisions.md", &decisions);
    repo.rune(&["save"]).success();
    let show = repo
        .rune(&["echo", "show", "--role", "reviewer"])
        .success()
        .stdout;
    assert!(show.contains("Retry storms"), "{show}");
}
