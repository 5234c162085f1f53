//! Tasks and context blocks (the seed's session protocol): the commands end to end, the
//! tasks.md view saved back, task numbers across two clones that sync, consolidation with
//! pinned dates.

use std::process::Command;

use crate::common::{json_lines, Output, Remote, TestRepo};

/// `git-rune` with the clock pinned at `ts`.
fn rune_at(repo: &TestRepo, ts: &str, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_git-rune"));
    repo.env(&mut cmd);
    cmd.env("GIT_RUNE_TIMESTAMP", ts).args(args);
    let out = cmd.output().unwrap();
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn ids(repo: &TestRepo) -> Vec<String> {
    json_lines(
        &repo
            .rune(&["task", "list", "--all", "--json"])
            .success()
            .stdout,
    )
    .iter()
    .map(|t| {
        format!(
            "{} {}{}",
            t["task_id"].as_str().unwrap(),
            t["title"].as_str().unwrap(),
            t["aliases"]
                .as_array()
                .map(|a| format!(
                    " (was {})",
                    a.iter()
                        .map(|x| x.as_str().unwrap())
                        .collect::<Vec<_>>()
                        .join(",")
                ))
                .unwrap_or_default()
        )
    })
    .collect()
}

fn repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.commit_file("README", "hi\n", "start");
    repo.rune(&["init", "-q"]).success();
    repo
}

#[test]
fn task_commands_end_to_end() {
    let repo = repo();
    let out = repo
        .rune(&[
            "task",
            "add",
            "Fix auth middleware",
            "--priority",
            "P1",
            "--category",
            "bugfix",
            "--context",
            "JWT RS256 fails",
            "--files",
            "src/auth.rs:45,config/jwt.rs",
        ])
        .success();
    assert_eq!(
        out.stdout,
        "TASK_001 [ ] [P1] [BUGFIX] Fix auth middleware\nSaved 1 pend, 0 done. Next: TASK_001 - Fix auth middleware\n"
    );
    repo.rune(&["task", "add", "Write docs", "--category", "DOCS"])
        .success();
    let out = repo.rune(&["task", "start", "TASK_002"]).success();
    assert!(
        out.stdout.ends_with("Next: TASK_002 - Write docs\n"),
        "{}",
        out.stdout
    );
    repo.rune(&["task", "done", "1"]).success();
    repo.rune(&["task", "edit", "2", "--title", "Write the docs", "--keep"])
        .success();
    // Nothing changes: nothing is written.
    let before = repo.git(&["rev-parse", "refs/rune/branches/main"]);
    repo.rune(&["task", "edit", "2", "--keep"]).success();
    assert_eq!(before, repo.git(&["rev-parse", "refs/rune/branches/main"]));
    let out = repo.rune(&["task", "list"]).success();
    assert_eq!(
        out.stdout,
        "TASK_002 [~] [DOCS] Write the docs (keep)\n0 pend, 1 prog, 1 done\nNext: TASK_002 - Write the docs\n"
    );
    let all = ids(&repo);
    assert_eq!(
        all,
        vec!["TASK_001 Fix auth middleware", "TASK_002 Write the docs"]
    );
    let json = json_lines(
        &repo
            .rune(&["task", "list", "--all", "--json"])
            .success()
            .stdout,
    );
    assert_eq!(json[0]["status"], "completed");
    assert_eq!(
        json[0]["files"],
        serde_json::json!(["src/auth.rs:45", "config/jwt.rs"])
    );

    // Errors change nothing and say what to do.
    let tip = repo.git(&["rev-parse", "refs/rune/branches/main"]);
    let out = repo.rune(&["task", "done", "TASK_009"]).failure();
    assert!(
        out.stderr.contains("there is no task TASK_009"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("task list --all"), "{}", out.stderr);
    let out = repo.rune(&["task", "start", "banana"]).failure();
    assert!(out.stderr.contains("is not a task id"), "{}", out.stderr);
    let out = repo.rune(&["task", "add", "  "]).failure();
    assert!(out.stderr.contains("title"), "{}", out.stderr);
    assert_eq!(tip, repo.git(&["rev-parse", "refs/rune/branches/main"]));

    // Context blocks.
    repo.rune(&[
        "context-block",
        "add",
        "JWT Auth Setup",
        "--content",
        "RS256, TTL 1h",
        "--related",
        "1",
    ])
    .success();
    repo.rune(&[
        "context-block",
        "add",
        "JWT Auth Setup",
        "--content",
        "again",
    ])
    .failure();
    repo.rune(&[
        "context-block",
        "edit",
        "jwt auth setup",
        "--content",
        "RS256, TTL 2h",
    ])
    .success();
    let out = repo.rune(&["context-block", "show"]).success();
    assert!(
        out.stdout.starts_with("## JWT Auth Setup\n"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("Related: TASK_001\nRS256, TTL 2h\n"),
        "{}",
        out.stdout
    );
    repo.rune(&["context-block", "edit", "Nope", "--content", "x"])
        .failure();
}

#[test]
fn tasks_md_is_saved_back() {
    let repo = repo();
    repo.rune(&["task", "add", "One"]).success();
    repo.rune(&["task", "add", "Two"]).success();
    let text = repo.read(".rune/tasks.md");
    assert!(
        text.starts_with("# Tasks\n\n## Pending\n- [ ] TASK_001 One\n"),
        "{text}"
    );
    let edited = text.replace(
        "- [ ] TASK_002 Two",
        "- [x] TASK_002 Two\n  a remark of mine",
    ) + "- [ ] [P2] [TEST] Three, typed in the view\n";
    repo.write(".rune/tasks.md", &edited);
    repo.rune(&["save", "-m", "tasks"]).success();
    assert_eq!(
        ids(&repo),
        vec![
            "TASK_001 One",
            "TASK_002 Two",
            "TASK_003 Three, typed in the view"
        ]
    );
    let text = repo.read(".rune/tasks.md");
    assert!(text.contains("- [x] TASK_002 Two\n  Created: "), "{text}");
    assert!(text.contains("  a remark of mine\n"), "{text}");
    assert!(text.contains("- [ ] TASK_003 [P2] [TEST] Three"), "{text}");
    // Saving again changes nothing.
    let out = repo.rune(&["save"]).success();
    assert!(
        out.stderr.contains("nothing to save") || out.stdout.contains("nothing to save"),
        "{}",
        out.snapshot()
    );
    // A broken time is refused with its line, and nothing is written.
    let tip = repo.git(&["rev-parse", "refs/rune/branches/main"]);
    repo.write(
        ".rune/tasks.md",
        &text.replacen("Created: 2", "Created: soon 2", 1),
    );
    let out = repo.rune(&["save"]).failure();
    assert!(out.stderr.contains(".rune/tasks.md:5"), "{}", out.stderr);
    assert_eq!(tip, repo.git(&["rev-parse", "refs/rune/branches/main"]));
}

#[test]
fn context_blocks_md_is_saved_back() {
    let repo = repo();
    assert!(
        !repo.root.join(".rune/context-blocks.md").exists(),
        "no blocks, no file"
    );
    rune_at(
        &repo,
        "2026-04-04T10:00:00Z",
        &[
            "context-block",
            "add",
            "JWT Auth Setup",
            "--content",
            "RS256.\n\n## Rotation\nmonthly",
        ],
    )
    .success();
    let text = repo.read(".rune/context-blocks.md");
    assert_eq!(
        text,
        "# Context Blocks\n\n## JWT Auth Setup\n**Updated:** 2026-04-04T10:00:00Z\n\n  RS256.\n\n  ## Rotation\n  monthly\n"
    );
    // An edit of the content, a block typed by hand without a time, related tasks.
    let edited = text.replace("  monthly", "  weekly")
        + "\n## Error patterns\nRelated: TASK_001\nTimeouts come from the proxy.\n";
    repo.write(".rune/context-blocks.md", &edited);
    rune_at(&repo, "2026-04-06T08:00:00Z", &["save", "-m", "blocks"]).success();
    let shown = repo
        .rune(&["context-block", "show", "JWT Auth Setup"])
        .success()
        .stdout;
    assert!(shown.contains("## Rotation\nweekly"), "{shown}");
    let text = repo.read(".rune/context-blocks.md");
    assert!(
        text.contains("## JWT Auth Setup\n**Updated:** 2026-04-06T08:00:00Z\n"),
        "an edited block is updated now: {text}"
    );
    assert!(
        text.contains(
            "## Error patterns\n**Updated:** 2026-04-06T08:00:00Z\n**Related tasks:** TASK_001\n\n  Timeouts come from the proxy.\n"
        ),
        "{text}"
    );
    // sp.json sees the blocks the view saved.
    let sp = repo.rune(&["export", "sp-json", "-"]).success().stdout;
    assert!(sp.contains("\"title\":\"Error patterns\""), "{sp}");
    // Saving again changes nothing; a second block of one title is refused with its line.
    let tip = repo.git(&["rev-parse", "refs/rune/branches/main"]);
    repo.rune(&["save"]).success();
    assert_eq!(tip, repo.git(&["rev-parse", "refs/rune/branches/main"]));
    repo.write(
        ".rune/context-blocks.md",
        &(text.clone() + "\n## Error patterns\nagain\n"),
    );
    let out = repo.rune(&["save"]).failure();
    assert!(
        out.stderr
            .contains(".rune/context-blocks.md:17: a second block"),
        "{}",
        out.stderr
    );
    assert_eq!(tip, repo.git(&["rev-parse", "refs/rune/branches/main"]));
    // Removing a block in the view deletes it (history keeps it).
    let cut = text[..text.find("\n## Error patterns").unwrap() + 1].to_owned();
    repo.write(".rune/context-blocks.md", &cut);
    repo.rune(&["save"]).success();
    let all = repo.rune(&["context-block", "show"]).success().stdout;
    assert!(!all.contains("Error patterns"), "{all}");
}

#[test]
fn numbers_stay_unique_and_stable_across_clones() {
    let remote = Remote::new();
    let a = remote.clone("ada");
    a.commit_file("README", "hi\n", "start");
    a.git(&["push", "-q", "origin", "main"]);
    a.rune(&["init", "-q"]).success();
    a.rune(&["task", "add", "Shared first"]).success();
    a.rune(&["sync"]).success();
    let b = remote.clone("bob");
    b.rune(&["init", "-q"]).success();
    assert_eq!(ids(&b), vec!["TASK_001 Shared first"]);

    // Both clones add a task offline: both claim TASK_002. Ada claims it a minute earlier.
    rune_at(&a, "2026-02-01T10:00:00Z", &["task", "add", "Ada's task"]).success();
    rune_at(&b, "2026-02-01T10:01:00Z", &["task", "add", "Bob's task"]).success();
    rune_at(&b, "2026-02-01T10:02:00Z", &["task", "add", "Bob's second"]).success();
    assert_eq!(
        ids(&b)[1..],
        ["TASK_002 Bob's task", "TASK_003 Bob's second"]
    );

    a.rune(&["sync"]).success();
    b.rune(&["sync"]).success();
    a.rune(&["sync"]).success();
    // One numbering everywhere: the earlier claim keeps TASK_002; Bob's later claim of it
    // moves past the highest number kept and remembers what it was. Bob's TASK_003 was
    // claimed by nobody else: it keeps its number. Only the one id claimed twice changes.
    let want = vec![
        "TASK_001 Shared first",
        "TASK_002 Ada's task",
        "TASK_003 Bob's second",
        "TASK_004 Bob's task (was TASK_002)",
    ];
    assert_eq!(ids(&a), want);
    assert_eq!(ids(&b), want);
    // TASK_002 names the task that holds it now (Ada's); Bob's is TASK_004.
    let out = b.rune(&["task", "start", "TASK_004"]).success();
    assert!(
        out.stdout
            .starts_with("TASK_004 [~] Bob's task (was TASK_002)"),
        "{}",
        out.stdout
    );
    // The next write pinned the new numbers; a new task takes the next free one.
    b.rune(&["task", "add", "After the merge"]).success();
    b.rune(&["sync"]).success();
    a.rune(&["sync"]).success();
    let mut want: Vec<String> = want.into_iter().map(String::from).collect();
    want.push("TASK_005 After the merge".into());
    assert_eq!(ids(&a), want);
    assert_eq!(ids(&b), want);
    // Shown ids stay: more syncs and more writes change none of them.
    a.rune(&["task", "done", "2"]).success();
    a.rune(&["sync"]).success();
    b.rune(&["sync"]).success();
    assert_eq!(ids(&a), want);
    assert_eq!(ids(&b), want);
    assert_eq!(
        a.git(&["rev-parse", "refs/rune/branches/main^{tree}"]),
        b.git(&["rev-parse", "refs/rune/branches/main^{tree}"])
    );
}

#[test]
fn consolidation_with_pinned_dates() {
    let repo = repo();
    for i in 1..=6 {
        let day = format!("2026-04-0{i}T00:00:00Z");
        rune_at(
            &repo,
            &day,
            &[
                "task",
                "add",
                &format!("Redesign homepage part {i}"),
                "--category",
                "FEATURE",
                "--files",
                "docs/plan.md",
            ],
        )
        .success();
        rune_at(&repo, &day, &["task", "done", &i.to_string()]).success();
    }
    rune_at(
        &repo,
        "2026-04-06T00:00:00Z",
        &[
            "task",
            "add",
            "Fix the parser crash",
            "--category",
            "BUGFIX",
            "--priority",
            "P1",
        ],
    )
    .success();
    rune_at(&repo, "2026-04-06T00:00:00Z", &["task", "done", "7"]).success();
    rune_at(
        &repo,
        "2026-04-06T00:00:00Z",
        &["task", "add", "Still open"],
    )
    .success();
    // Two days later, the newest is too recent: the area fails one criterion but holds three.
    let out = rune_at(
        &repo,
        "2026-04-08T00:00:00Z",
        &["task", "consolidate", "--dry-run"],
    )
    .success();
    assert_eq!(
        out.stdout,
        "would consolidate Redesign homepage (5 tasks: TASK_001, TASK_002, TASK_003, TASK_004, TASK_005) [area, 5+ related, no critical finding]\n"
    );
    let tip = repo.git(&["rev-parse", "refs/rune/branches/main"]);
    assert_eq!(tip, repo.git(&["rev-parse", "refs/rune/branches/main"]));
    let out = rune_at(&repo, "2026-04-20T00:00:00Z", &["task", "consolidate"]).success();
    assert_eq!(
        out.stdout,
        "consolidated Redesign homepage (6 tasks: TASK_001, TASK_002, TASK_003, TASK_004, TASK_005, TASK_006) -> TASK_009 [area, 5+ related, no critical finding, older than 3 days]\nSaved 1 pend, 2 done (6 consolidated). Next: TASK_008 - Still open\n"
    );
    assert_eq!(
        ids(&repo),
        vec![
            "TASK_007 Fix the parser crash",
            "TASK_008 Still open",
            "TASK_009 Redesign homepage"
        ]
    );
    let json = json_lines(
        &repo
            .rune(&["task", "list", "--all", "--json"])
            .success()
            .stdout,
    );
    assert_eq!(json[2]["consolidated_count"], 6);
    assert_eq!(json[2]["completed"], "2026-04-06T00:00:00Z");
    assert!(json[2]["context"].as_str().unwrap().contains("TASK_006"));
    // The members stay in history.
    let all = repo.rune(&["show", "tasks", "--all"]).success().stdout;
    assert_eq!(all.matches("Redesign homepage part").count(), 12, "{all}");
    let out = rune_at(&repo, "2026-04-20T00:00:00Z", &["task", "consolidate"]).success();
    assert_eq!(out.stdout, "nothing to consolidate\nSaved 1 pend, 2 done (6 consolidated). Next: TASK_008 - Still open\n");
}

#[test]
fn todo_write_updates_the_tasks_and_an_unchanged_list_writes_nothing() {
    let repo = repo();
    repo.rune(&["task", "add", "Read the index loader"])
        .success();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/claude-code/PostToolUse-TodoWrite.json");
    let input = std::fs::read_to_string(path)
        .unwrap()
        .replace("/home/user/project", &repo.root.to_string_lossy());
    let out = repo
        .rune_stdin(&["agent", "hook", "PostToolUse"], input.as_bytes())
        .success();
    assert_eq!(out.stderr, "", "{}", out.snapshot());
    assert_eq!(
        ids(&repo),
        vec![
            "TASK_001 Read the index loader",
            "TASK_002 Return an error instead of panicking on a corrupt index",
            "TASK_003 Add a test with a truncated index file",
        ]
    );
    let json = json_lines(
        &repo
            .rune(&["task", "list", "--all", "--json"])
            .success()
            .stdout,
    );
    let status: Vec<&str> = json.iter().map(|t| t["status"].as_str().unwrap()).collect();
    assert_eq!(status, ["completed", "in_progress", "pending"]);
    assert!(repo
        .read(".rune/tasks.md")
        .contains("- [~] TASK_002 Return an error"));
    // The same list again: nothing is written.
    let tip = repo.git(&["rev-parse", "refs/rune/branches/main"]);
    repo.rune_stdin(&["agent", "hook", "PostToolUse"], input.as_bytes())
        .success();
    assert_eq!(tip, repo.git(&["rev-parse", "refs/rune/branches/main"]));
    // Other tools open no repository and write nothing.
    let edit = input.replace("\"TodoWrite\"", "\"Edit\"");
    repo.rune_stdin(&["agent", "hook", "PostToolUse"], edit.as_bytes())
        .success();
    assert_eq!(tip, repo.git(&["rev-parse", "refs/rune/branches/main"]));
}

#[test]
fn sp_json_imports_exports_and_round_trips() {
    let repo = repo();
    let fixture = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/sp-json/seed-example.json"),
    )
    .unwrap();
    // Errors first: the seed's messages, nothing written.
    repo.write("bad.json", "{\"metadata\":");
    let out = repo.rune(&["import", "sp-json", "bad.json"]).failure();
    assert!(
        out.stderr.starts_with("error: Cannot load: invalid JSON\n"),
        "{}",
        out.stderr
    );
    repo.write("sp.json", "{\"tasks\":[]}");
    let out = repo.rune(&["import", "sp-json"]).failure();
    assert!(
        out.stderr
            .starts_with("error: Cannot load: missing metadata\n"),
        "{}",
        out.stderr
    );
    assert_eq!(repo.git(&["for-each-ref", "refs/rune/branches/"]), "");

    // The default name: session-protocol.json before sp.json.
    repo.write("session-protocol.json", fixture.trim());
    let out = repo.rune(&["import", "sp-json"]).success();
    assert_eq!(
        out.stdout,
        "imported 2 tasks and 1 context blocks from session-protocol.json\nSaved 1 pend, 1 done (12 consolidated). Next: TASK_001 - Fix auth middleware\n"
    );
    // Importing again changes nothing.
    let tip = repo.git(&["rev-parse", "refs/rune/branches/main"]);
    repo.rune(&["import", "sp-json", "session-protocol.json"])
        .success();
    assert_eq!(tip, repo.git(&["rev-parse", "refs/rune/branches/main"]));

    // Export: one minified line; tasks and blocks exactly as they came in.
    let out = repo.rune(&["export", "sp-json", "-"]).success().stdout;
    assert_eq!(out.lines().count(), 1);
    let body = |s: &str| s[s.find(",\"tasks\":").unwrap()..].trim().to_owned();
    assert_eq!(body(&out), body(&fixture));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["metadata"]["version"], "2.0");
    assert_eq!(v["metadata"]["git_branch"], "main");
    assert_eq!(
        v["metadata"]["git_commit"],
        repo.git(&["rev-parse", "HEAD"])
    );
    assert!(v["metadata"]["updated"].as_str().unwrap().ends_with('Z'));
    repo.rune(&["export", "sp-json"]).success();
    let file = repo.read("sp.json");
    assert!(!file.contains('\n'));
    assert_eq!(body(&file), body(&out));
}

#[test]
fn sp_json_export_caps_individual_tasks_and_keeps_paths_private() {
    let repo = repo();
    let root = repo.root.to_string_lossy().into_owned();
    let home = repo.home.to_string_lossy().into_owned();
    for i in 1..=8 {
        let day = format!("2026-03-0{i}T00:00:00Z");
        let title = format!("Task number {i} of many");
        let context = format!("see {root}/src/x{i}.rs and {home}/notes.txt");
        rune_at(&repo, &day, &["task", "add", &title, "--context", &context]).success();
        rune_at(&repo, &day, &["task", "done", &i.to_string()]).success();
    }
    let out = repo.rune(&["export", "sp-json", "-"]).success().stdout;
    assert!(!out.contains(&root) && !out.contains(&home), "{out}");
    assert!(out.contains("see src/x8.rs and ~/notes.txt"), "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let tasks = v["tasks"].as_array().unwrap();
    let individual = tasks.iter().filter(|t| t["consolidated"] == false).count();
    assert_eq!(individual, 5, "{out}");
    let groups: Vec<&serde_json::Value> =
        tasks.iter().filter(|t| t["consolidated"] == true).collect();
    assert_eq!(groups.len(), 1);
    assert_eq!(groups[0]["consolidated_count"], 3);
    // Nothing in the store changed.
    assert_eq!(ids(&repo).len(), 8);
}

/// Regression: Claude Code 2.1.142 and later (the pinned client is 2.1.197) track work with
/// its Task tools (TaskCreate, TaskUpdate) in place of TodoWrite, and the tasks followed only
/// TodoWrite: what the agent planned was silently never recorded. A created task is a task;
/// an update by the session's id changes its status or title; a task the agent deletes from its
/// list stays a task.
#[test]
fn claude_code_task_tools_update_the_tasks() {
    let repo = repo();
    let fixture = |name: &str| {
        std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(format!("tests/fixtures/claude-code/{name}.json")),
        )
        .unwrap()
        .replace("/home/user/project", &repo.root.to_string_lossy())
    };
    let hook = |input: &str| {
        let out = repo
            .rune_stdin(&["agent", "hook", "PostToolUse"], input.as_bytes())
            .success();
        assert_eq!(out.stderr, "", "{}", out.snapshot());
    };
    let status = || {
        json_lines(
            &repo
                .rune(&["task", "list", "--all", "--json"])
                .success()
                .stdout,
        )
        .iter()
        .map(|t| {
            format!(
                "{} {}",
                t["title"].as_str().unwrap(),
                t["status"].as_str().unwrap()
            )
        })
        .collect::<Vec<_>>()
    };
    let create = fixture("PostToolUse-TaskCreate");
    hook(&create);
    let title = "Return an error instead of panicking on a corrupt index";
    assert_eq!(status(), [format!("{title} pending")]);
    // Created again (a resumed session): nothing new.
    let tip = repo.git(&["rev-parse", "refs/rune/branches/main"]);
    hook(&create);
    assert_eq!(tip, repo.git(&["rev-parse", "refs/rune/branches/main"]));
    let update = fixture("PostToolUse-TaskUpdate");
    hook(&update);
    assert_eq!(status(), [format!("{title} in_progress")]);
    hook(&update.replace(
        "\"status\": \"in_progress\"",
        "\"subject\": \"Return IndexError::Corrupt for a truncated index\"",
    ));
    assert_eq!(
        status(),
        ["Return IndexError::Corrupt for a truncated index in_progress"]
    );
    hook(&update.replace("\"in_progress\"", "\"completed\""));
    assert_eq!(
        status(),
        ["Return IndexError::Corrupt for a truncated index completed"]
    );
    let tip = repo.git(&["rev-parse", "refs/rune/branches/main"]);
    hook(&update.replace("\"in_progress\"", "\"deleted\""));
    assert_eq!(tip, repo.git(&["rev-parse", "refs/rune/branches/main"]));
}
