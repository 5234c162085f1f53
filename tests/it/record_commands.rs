//! The record-adding commands, init, show and log, end to end.

use crate::assert_rune_snapshot;
use crate::common::{decide_args, json_lines, TestRepo};

#[test]
fn init_is_idempotent_and_creates_no_refs() {
    let repo = TestRepo::new();
    let first = repo.rune(&["init"]).success();
    assert_rune_snapshot!(repo, first);
    let second = repo.rune(&["init"]).success();
    assert_eq!(
        second.stdout,
        "git-rune is already set up here; nothing to do\n"
    );
    let exclude = repo.read(".git/info/exclude");
    assert_eq!(exclude.matches("/.rune/").count(), 1, "{exclude}");
    // notes.rewriteRef waits for the notes ref (the first note sets it).
    assert!(!repo
        .git(&["config", "--list", "--local"])
        .contains("notes.rewriteref"));
    assert_eq!(repo.refs(), "", "init must not create refs");
    assert!(repo.root.join(".rune/decisions.md").exists());
    // The view is ignored by git.
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
}

#[test]
fn decide_commits_once_and_renders_the_view() {
    let repo = TestRepo::new();
    repo.rune(&["init"]).success();
    let out = repo
        .rune(&[
            "decide",
            "Use Postgres",
            "--context",
            "We need transactions",
            "--decision",
            "Postgres 16 for all services",
            "--rationale",
            "Team knows it",
            "--impact",
            "db/ and the migrations",
        ])
        .success();
    assert_rune_snapshot!(repo, out);
    insta::assert_snapshot!(repo.read(".rune/decisions.md"));
    assert_eq!(repo.git(&["rev-list", "--count", "refs/rune/memory"]), "1");
    let show = repo.rune(&["show", "decisions", "--json"]).success();
    let lines = json_lines(&show.stdout);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["title"], "Use Postgres");
    assert_eq!(lines[0]["id"].as_str().unwrap().len(), 64);
}

#[test]
fn bad_values_are_refused_and_change_nothing() {
    let repo = TestRepo::new();
    repo.rune(&["learn", "--type", "insight", "--key", "k", "--insight", "x"])
        .success();
    let before = repo.refs();
    let out = repo
        .rune(&[
            "learn",
            "--type",
            "insight",
            "--key",
            "k",
            "--insight",
            "x",
            "--confidence",
            "1.5",
        ])
        .failure();
    assert_eq!(out.code, 1);
    assert_rune_snapshot!(repo, out);
    let out = repo
        .rune(&["learn", "--type", "gossip", "--key", "k", "--insight", "x"])
        .failure();
    assert_eq!(out.code, 2, "clap usage error: {}", out.stderr);
    assert!(
        out.stderr
            .contains("decision, error, insight, convention, performance"),
        "{}",
        out.stderr
    );
    let out = repo
        .rune(&[
            "instinct",
            "n",
            "--trigger",
            "t",
            "--action",
            "a",
            "--confidence",
            "0.95",
            "--evidence",
            "e",
        ])
        .failure();
    assert!(out.stderr.contains("0.3 to 0.9"), "{}", out.stderr);
    let out = repo.rune(&decide_args("  ", &[])).failure();
    assert!(
        out.stderr.contains("title: must not be empty"),
        "{}",
        out.stderr
    );
    assert_eq!(repo.refs(), before);
}

#[test]
fn learnings_are_latest_winner_per_key_and_type() {
    let repo = TestRepo::new();
    repo.rune(&[
        "learn",
        "--type",
        "decision",
        "--key",
        "state-lib",
        "--insight",
        "Chose Redux",
    ])
    .success();
    repo.rune(&[
        "learn",
        "--type",
        "decision",
        "--key",
        "state-lib",
        "--insight",
        "Chose Zustand",
        "--confidence",
        "0.8",
        "--skill",
        "cook",
    ])
    .success();
    repo.rune(&[
        "learn",
        "--type",
        "error",
        "--key",
        "state-lib",
        "--insight",
        "Redux store leaked",
    ])
    .success();
    let lines = json_lines(&repo.rune(&["show", "learnings", "--json"]).success().stdout);
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["insight"], "Chose Zustand");
    assert_eq!(lines[0]["skill"], "cook");
    assert_eq!(lines[1]["type"], "error");
    let jsonl = repo.read(".rune/learnings.jsonl");
    assert_eq!(jsonl.lines().count(), 2, "{jsonl}");
    let first: serde_json::Value = serde_json::from_str(jsonl.lines().next().unwrap()).unwrap();
    assert_eq!(first["key"], "state-lib");
    assert_eq!(first["confidence"], 0.8);
}

#[test]
fn instincts_are_capped_at_twenty_evicting_the_least_confident() {
    let repo = TestRepo::new();
    for i in 0..21 {
        let conf = format!("{:.2}", 0.3 + 0.02 * f64::from(i));
        repo.rune(&[
            "-q",
            "instinct",
            &format!("inst-{i:02}"),
            "--trigger",
            "t",
            "--action",
            "a",
            "--confidence",
            &conf,
            "--evidence",
            "e",
        ])
        .success();
    }
    let lines = json_lines(&repo.rune(&["show", "instincts", "--json"]).success().stdout);
    assert_eq!(lines.len(), 20);
    assert!(
        lines.iter().all(|l| l["name"] != "inst-00"),
        "the least confident is evicted"
    );
    // Recording a name again replaces it instead of adding a second one.
    repo.rune(&[
        "instinct",
        "inst-05",
        "--trigger",
        "t2",
        "--action",
        "a2",
        "--confidence",
        "0.9",
        "--evidence",
        "e2",
    ])
    .success();
    let lines = json_lines(&repo.rune(&["show", "instincts", "--json"]).success().stdout);
    assert_eq!(lines.iter().filter(|l| l["name"] == "inst-05").count(), 1);
    let below = repo
        .rune(&[
            "instinct",
            "weak",
            "--trigger",
            "t",
            "--action",
            "a",
            "--confidence",
            "0.3",
            "--evidence",
            "e",
        ])
        .failure();
    assert!(
        below.stderr.contains("instincts are full"),
        "{}",
        below.stderr
    );
}

#[test]
fn checkpoint_resume_keeps_history() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a", "first");
    repo.rune(&["checkpoint", "--doing", "Phase 1", "--resume", "old resume"])
        .success();
    repo.rune(&[
        "checkpoint",
        "--doing",
        "Phase 2 task 3",
        "--left",
        "write retry",
        "--left",
        "test it",
        "--context",
        "happy path done",
        "--resume",
        "Continue Phase 2 Task 3",
    ])
    .success();
    insta::with_settings!({filters => vec![(r"\b[0-9a-f]{40}\b", "[OID]")]}, {
        insta::assert_snapshot!(repo.read(".rune/checkpoint.md"));
    });
    let expected = "Continue Phase 2 Task 3\n1. write retry\n2. test it\n";
    let refs_before = repo.git(&["for-each-ref", "refs/rune/"]);
    let out = repo.rune(&["resume"]).success();
    assert_eq!(out.stdout, expected);
    assert_eq!(
        repo.git(&["for-each-ref", "refs/rune/"]),
        refs_before,
        "reading the resume point writes nothing"
    );
    assert!(repo.root.join(".rune/checkpoint.md").exists());
    let json = repo.rune(&["resume", "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["checkpoint"]["resume"], "Continue Phase 2 Task 3", "{v}");
    assert_eq!(v["checkpoint"]["status"], "open", "{v}");
    let out = repo.rune(&["resume", "--done"]).success();
    assert_eq!(out.stdout, expected);
    assert!(
        !repo.root.join(".rune/checkpoint.md").exists(),
        "no open checkpoint, no file"
    );
    let lines = json_lines(
        &repo
            .rune(&["show", "checkpoint", "--json"])
            .success()
            .stdout,
    );
    assert_eq!(lines.len(), 2);
    assert!(lines.iter().all(|l| l["status"] == "resolved"), "{lines:?}");
    let again = repo.rune(&["resume"]).failure();
    assert!(
        again.stderr.contains("no open checkpoint"),
        "{}",
        again.stderr
    );
}

#[test]
fn progress_and_remember_land_in_their_files() {
    let repo = TestRepo::new();
    repo.rune(&[
        "progress",
        "--completed",
        "parser",
        "--in-progress",
        "renderer (step 2/3)",
        "--blocked",
        "deploy — waiting on creds",
        "--next",
        "Start with the renderer",
    ])
    .success();
    repo.rune(&[
        "remember",
        "--section",
        "attention-points",
        "The cache is fragile",
    ])
    .success();
    repo.rune(&[
        "remember",
        "--section",
        "What Failed",
        "--task",
        "retry logic",
        "exponential backoff without jitter",
    ])
    .success();
    insta::assert_snapshot!("progress_md", repo.read(".rune/progress.md"));
    let notes = repo.read(".rune/cumulative-notes.md");
    assert!(
        notes.contains("## Attention Points\n- The cache is fragile"),
        "{notes}"
    );
    let tasks = repo.read(".rune/task-notes.md");
    assert!(tasks.contains("# Task Notes: retry logic"), "{tasks}");
    assert!(
        tasks.contains("- exponential backoff without jitter"),
        "{tasks}"
    );
    let bad = repo
        .rune(&["remember", "--section", "Gossip", "x"])
        .failure();
    assert_rune_snapshot!(repo, bad);
}

#[test]
fn log_lists_memory_commits_newest_first() {
    let repo = TestRepo::new();
    repo.rune(&decide_args("A", &[])).success();
    repo.rune(&["progress", "--next", "x"]).success();
    repo.rune(&["save", "-m", "did things"]).success();
    let out = repo.rune(&["log"]).success();
    assert_rune_snapshot!(repo, out);
    let json = json_lines(&repo.rune(&["log", "--json"]).success().stdout);
    assert_eq!(json.len(), 3);
    assert_eq!(json[0]["summary"], "did things");
    assert_eq!(json[2]["records"], 1);
}

#[test]
fn recording_without_init_keeps_the_view_out_of_git_status() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a", "first");
    repo.rune(&decide_args("No init", &[])).success();
    assert!(repo.root.join(".rune/decisions.md").exists());
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
}

#[test]
fn quiet_silences_status_and_json_reports_what_was_written() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a", "first");
    let init = repo.rune(&["-q", "init"]).success();
    assert_eq!((init.stdout.as_str(), init.stderr.as_str()), ("", ""));
    let mut args = vec!["-q"];
    args.extend(decide_args("Quiet", &[]));
    let decide = repo.rune(&args).success();
    assert_eq!((decide.stdout.as_str(), decide.stderr.as_str()), ("", ""));
    let save = repo.rune(&["-q", "save", "-m", "quiet"]).success();
    assert_eq!((save.stdout.as_str(), save.stderr.as_str()), ("", ""));

    let out = repo
        .rune(&["checkpoint", "--doing", "d", "--resume", "r", "--json"])
        .success();
    let v: serde_json::Value = serde_json::from_str(out.stdout.trim()).unwrap();
    assert_eq!(v["version"], 1, "{v}");
    assert_eq!(v["records"][0]["kind"], "checkpoint", "{v}");
    assert_eq!(v["records"][0]["id"].as_str().unwrap().len(), 64, "{v}");
    assert_eq!(v["commit"].as_str().unwrap().len(), 40, "{v}");
    assert_eq!(
        v["commit"].as_str().unwrap(),
        repo.git(&["rev-parse", v["ref"].as_str().unwrap()])
    );
}

#[test]
fn log_max_count_zero_prints_nothing() {
    let repo = TestRepo::new();
    repo.rune(&decide_args("A", &[])).success();
    let out = repo.rune(&["log", "-n", "0"]).success();
    assert_eq!((out.stdout.as_str(), out.stderr.as_str()), ("", ""));
    let out = repo.rune(&["log", "-n", "1"]).success();
    assert_eq!(out.stdout.lines().count(), 1, "{}", out.stdout);
}

#[test]
fn why_names_a_missing_file_plainly() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a", "first");
    let out = repo.rune(&["why", "nosuch.rs:3"]).failure();
    assert!(
        out.stderr
            .contains("nosuch.rs does not exist in the work tree"),
        "{}",
        out.stderr
    );
    let out = repo.rune(&["why", "nosuch"]).failure();
    assert!(
        out.stderr.contains("does not name a commit here"),
        "{}",
        out.stderr
    );
}
