//! Oracle detach records (seed 000): dispatch, complete, reattach, list, orphaning at session
//! start, idempotency under concurrent processes, and two clones converging.

use std::process::Command;

use crate::common::{Output, Remote, TestRepo};

const HASH: &str = "sha256:9f3a0b1c2d3e4f50";
const T0: &str = "2026-04-27T12:34:56Z";

fn rune_at(repo: &TestRepo, ts: &str, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_git-rune"));
    repo.env(&mut cmd);
    cmd.env("GIT_RUNE_TIMESTAMP", ts).args(args);
    Output::of(cmd.output().unwrap())
}

fn dispatch_args<'a>(id: &'a str, hash: &'a str) -> Vec<&'a str> {
    vec![
        "oracle",
        "dispatch",
        "--session-id",
        id,
        "--trigger",
        "agent.stuck",
        "--source",
        "debug",
        "--model",
        "claude-opus-4-7",
        "--bundle-hash",
        hash,
    ]
}

fn repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.commit_file("a", "a\n", "init");
    repo.rune(&["init"]).success();
    repo
}

fn list(repo: &TestRepo) -> Vec<serde_json::Value> {
    let out = repo.rune(&["--json", "oracle", "list"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    v["oracles"].as_array().unwrap().clone()
}

/// The status of every oracle record the branch ref holds, in the order written.
fn stored(repo: &TestRepo) -> Vec<String> {
    let text = repo.git(&["show", "refs/rune/branches/main:oracle/all.jsonl"]);
    let mut records: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    records.sort_by_key(|r| r["clock"].as_u64());
    records
        .iter()
        .map(|r| r["status"].as_str().unwrap().to_owned())
        .collect()
}

fn branch_commits(repo: &TestRepo) -> String {
    repo.git(&["rev-list", "--count", "refs/rune/branches/main"])
}

#[test]
fn dispatch_records_the_seeds_schema_and_list_shows_it() {
    let repo = repo();
    let out = rune_at(&repo, T0, &dispatch_args("oracle-1714234500-abc123", HASH)).success();
    assert_eq!(out.stdout, "oracle-1714234500-abc123\n");
    let all = list(&repo);
    assert_eq!(all.len(), 1);
    let r = &all[0];
    assert_eq!(r["kind"], "oracle");
    assert_eq!(r["sessionId"], "oracle-1714234500-abc123");
    assert_eq!(r["dispatchedAt"], T0);
    assert_eq!(r["triggerSignal"], "agent.stuck");
    assert_eq!(r["sourceSkill"], "debug");
    assert_eq!(r["targetModel"], "claude-opus-4-7");
    assert_eq!(r["bundleHash"], HASH);
    assert_eq!(r["status"], "pending");
    assert_eq!(r["timeoutAt"], "2026-04-27T12:44:56Z");
    assert!(r["responseId"].is_null());
    assert!(r["responseExcerpt"].is_null());
    // On the branch ref, where session state lives.
    assert!(repo.refs().contains("refs/rune/branches/main"));
    let text = repo.rune(&["oracle", "list"]).success().stdout;
    assert!(
        text.contains("oracle-1714234500-abc123  pending  claude-opus-4-7  debug/agent.stuck"),
        "{text}"
    );
    // A custom timeout.
    rune_at(
        &repo,
        T0,
        &[
            dispatch_args("oracle-2-x", "sha256:0123456789abcdef").as_slice(),
            &["--timeout", "1h"],
        ]
        .concat(),
    )
    .success();
    assert_eq!(list(&repo)[1]["timeoutAt"], "2026-04-27T13:34:56Z");
}

#[test]
fn invalid_dispatches_say_why_and_write_nothing() {
    let repo = repo();
    let before = repo.refs();
    let cases: [(Vec<&str>, &str); 7] = [
        (dispatch_args("oracle-x-1", HASH), "sessionId"),
        (dispatch_args("oracle-1-ABC", HASH), "sessionId"),
        (dispatch_args("oracle-1-a", "sha256:9F3A0B1C"), "bundleHash"),
        (dispatch_args("oracle-1-a", "sha256:9f3a"), "bundleHash"),
        (
            [
                &dispatch_args("oracle-1-a", HASH)[..],
                &["--timeout", "10x"],
            ]
            .concat(),
            "--timeout",
        ),
        (
            dispatch_args("oracle-1-a", HASH)
                .into_iter()
                .map(|a| if a == "debug" { "review" } else { a })
                .collect(),
            "sourceSkill",
        ),
        (
            dispatch_args("oracle-1-a", HASH)
                .into_iter()
                .map(|a| if a == "agent.stuck" { "cron" } else { a })
                .collect(),
            "triggerSignal",
        ),
    ];
    for (args, field) in cases {
        let out = repo.rune(&args).failure();
        assert_eq!(out.code, 1, "{}", out.snapshot());
        assert!(out.stderr.contains(field), "{field}: {}", out.stderr);
        assert!(out.stdout.is_empty());
    }
    assert_eq!(repo.refs(), before, "nothing written");
}

#[test]
fn a_pending_bundle_is_dispatched_once() {
    let repo = repo();
    repo.rune(&dispatch_args("oracle-1-a", HASH)).success();
    let commits = branch_commits(&repo);
    let out = repo.rune(&dispatch_args("oracle-2-b", HASH)).success();
    assert_eq!(out.stdout, "oracle-1-a\n", "the existing session id");
    assert!(out.stderr.contains("nothing recorded"), "{}", out.stderr);
    let json = repo
        .rune(&[&["--json"][..], &dispatch_args("oracle-3-c", HASH)].concat())
        .success();
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["status"], "existing");
    assert_eq!(v["sessionId"], "oracle-1-a");
    assert_eq!(branch_commits(&repo), commits, "no duplicate written");
    assert_eq!(list(&repo).len(), 1);
    // The same session id for another bundle is refused.
    let out = repo
        .rune(&dispatch_args("oracle-1-a", "sha256:aaaaaaaaaaaa"))
        .failure();
    assert!(out.stderr.contains("already dispatched"), "{}", out.stderr);
}

#[test]
fn four_concurrent_dispatches_of_one_bundle_leave_one_record() {
    let repo = repo();
    let exe = env!("CARGO_BIN_EXE_git-rune");
    for round in 0..3 {
        let hash = format!("sha256:{round:08x}cafe");
        let children: Vec<_> = (0..4)
            .map(|p| {
                let mut cmd = Command::new(exe);
                repo.env(&mut cmd);
                cmd.args(dispatch_args(&format!("oracle-{round}-p{p}"), &hash))
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let ids: Vec<String> = children
            .into_iter()
            .map(|c| {
                let out = Output::of(c.wait_with_output().unwrap()).success();
                out.stdout.trim().to_owned()
            })
            .collect();
        // Every process printed the one session id that was recorded.
        assert!(ids.iter().all(|i| *i == ids[0]), "{ids:?}");
        let of_round: Vec<_> = list(&repo)
            .into_iter()
            .filter(|r| r["bundleHash"] == hash.as_str())
            .collect();
        assert_eq!(of_round.len(), 1, "{of_round:?}");
        assert_eq!(of_round[0]["sessionId"], ids[0].as_str());
    }
}

#[test]
fn complete_then_reattach_hands_the_excerpt_over_once_and_marks_it_consumed() {
    let repo = repo();
    rune_at(&repo, T0, &dispatch_args("oracle-1-a", HASH)).success();
    // Not ready while pending, before the timeout: exit 3, nothing written.
    let commits = branch_commits(&repo);
    let out = rune_at(
        &repo,
        "2026-04-27T12:40:00Z",
        &["oracle", "reattach", "oracle-1-a"],
    );
    assert_eq!(out.code, 3, "{}", out.snapshot());
    assert_eq!(
        out.stdout,
        "not_ready oracle-1-a (times out at 2026-04-27T12:44:56Z)\n"
    );
    assert_eq!(branch_commits(&repo), commits);

    let long = format!("The race is in the retry loop. {}", "x".repeat(600));
    repo.write("answer.txt", &long);
    let out = rune_at(
        &repo,
        "2026-04-27T12:41:00Z",
        &[
            "oracle",
            "complete",
            "oracle-1-a",
            "--response-id",
            "resp_42",
            "--excerpt-file",
            "answer.txt",
        ],
    )
    .success();
    assert!(
        out.stderr.contains("cut to 500 characters"),
        "{}",
        out.stderr
    );
    let r = &list(&repo)[0];
    assert_eq!(r["status"], "complete");
    assert_eq!(r["responseId"], "resp_42");
    assert_eq!(r["responseExcerpt"].as_str().unwrap().chars().count(), 500);
    // A second completion is refused.
    repo.rune(&[
        "oracle",
        "complete",
        "oracle-1-a",
        "--response-id",
        "r",
        "--excerpt-file",
        "answer.txt",
    ])
    .failure();

    // Reattach after the timeout still hands a complete answer over, framed as load frames
    // memory, and records it consumed.
    let out = rune_at(
        &repo,
        "2026-04-27T13:00:00Z",
        &["oracle", "reattach", "oracle-1-a"],
    )
    .success();
    assert!(
        out.stdout.starts_with("<rune-memory source=\"git-rune\">"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("The race is in the retry loop."));
    assert!(out.stdout.contains("resp_42"));
    assert!(out.stdout.trim_end().ends_with("</rune-memory>"));
    assert_eq!(list(&repo)[0]["status"], "consumed");
    // History keeps every state.
    assert_eq!(stored(&repo), ["pending", "complete", "consumed"]);
    // Reattaching a consumed answer hands it over again, writing nothing.
    let commits = branch_commits(&repo);
    let out = repo
        .rune(&["--json", "oracle", "reattach", "oracle-1-a"])
        .success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["status"], "ready");
    assert_eq!(v["consumed"], false);
    assert_eq!(v["responseId"], "resp_42");
    assert_eq!(branch_commits(&repo), commits);
}

#[test]
fn the_excerpt_passes_the_secret_filter_and_stdin_works() {
    let repo = repo();
    repo.rune(&dispatch_args("oracle-1-a", HASH)).success();
    let key = ["AKIA", "Q3EGRE7K", "HX2WZJ5T"].concat();
    let secret = format!("use key {key} to reach the bucket");
    let args = [
        "oracle",
        "complete",
        "oracle-1-a",
        "--response-id",
        "r1",
        "--excerpt-file",
        "-",
    ];
    let out = repo.rune_stdin(&args, secret.as_bytes()).failure();
    assert!(out.stderr.contains("secret"), "{}", out.stderr);
    assert_eq!(list(&repo)[0]["status"], "pending", "nothing recorded");
    repo.rune_stdin(&[&args[..], &["--redact"]].concat(), secret.as_bytes())
        .success();
    let r = &list(&repo)[0];
    assert_eq!(r["status"], "complete");
    let excerpt = r["responseExcerpt"].as_str().unwrap();
    assert!(excerpt.contains("REDACTED"), "{excerpt}");
    assert!(!excerpt.contains(&key));
}

#[test]
fn a_pending_dispatch_past_its_timeout_fails_on_reattach() {
    let repo = repo();
    rune_at(
        &repo,
        T0,
        &[
            &dispatch_args("oracle-1-a", HASH)[..],
            &["--timeout", "30s"],
        ]
        .concat(),
    )
    .success();
    let out = rune_at(
        &repo,
        "2026-04-27T12:35:26Z",
        &["oracle", "reattach", "oracle-1-a"],
    );
    assert_eq!(out.code, 4, "{}", out.snapshot());
    assert_eq!(out.stdout, "failed oracle-1-a: timeout\n");
    let r = &list(&repo)[0];
    assert_eq!(r["status"], "failed");
    assert_eq!(r["reason"], "timeout");
    // Again: still failed, nothing more written.
    let commits = branch_commits(&repo);
    let out = repo.rune(&["--json", "oracle", "reattach", "oracle-1-a"]);
    assert_eq!(out.code, 4);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["status"], "failed");
    assert_eq!(v["reason"], "timeout");
    assert_eq!(branch_commits(&repo), commits);
    // A failed bundle may be dispatched again.
    repo.rune(&dispatch_args("oracle-2-b", HASH)).success();
    // Unknown ids are errors.
    let out = repo.rune(&["oracle", "reattach", "oracle-9-z"]);
    assert_eq!(out.code, 1, "{}", out.snapshot());
}

#[test]
fn dispatches_pending_over_a_day_are_orphaned_when_a_session_starts() {
    let repo = repo();
    rune_at(&repo, T0, &dispatch_args("oracle-1-old", HASH)).success();
    rune_at(
        &repo,
        "2026-04-28T12:00:00Z",
        &dispatch_args("oracle-2-new", "sha256:bbbbbbbbbbbb"),
    )
    .success();
    // Within the day: load shows both as pending and orphans nothing.
    let out = rune_at(&repo, "2026-04-28T12:30:00Z", &["load"]).success();
    assert!(
        out.stdout.contains("## Oracle dispatches"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("oracle-1-old"), "{}", out.stdout);
    assert!(!out.stderr.contains("orphaned"), "{}", out.stderr);

    let commits = branch_commits(&repo);
    let out = rune_at(&repo, "2026-04-28T13:00:00Z", &["load"]).success();
    assert!(
        out.stderr
            .contains("marked 1 oracle dispatch pending for more than 24 hours orphaned"),
        "{}",
        out.stderr
    );
    assert!(!out.stdout.contains("oracle-1-old"), "{}", out.stdout);
    assert!(out.stdout.contains("oracle-2-new"), "{}", out.stdout);
    assert_eq!(
        branch_commits(&repo).parse::<u32>().unwrap(),
        commits.parse::<u32>().unwrap() + 1,
        "one write"
    );
    let all = list(&repo);
    assert_eq!(all[0]["status"], "orphaned");
    assert_eq!(all[1]["status"], "pending");
    // Never deleted: the ref holds the pending record too.
    assert_eq!(stored(&repo), ["pending", "pending", "orphaned"]);
    // Reattach says why.
    let out = repo.rune(&["oracle", "reattach", "oracle-1-old"]);
    assert_eq!(out.code, 4);
    assert_eq!(out.stdout, "failed oracle-1-old: orphaned\n");
    // A second load writes nothing.
    let commits = branch_commits(&repo);
    rune_at(&repo, "2026-04-28T13:30:00Z", &["load"]).success();
    assert_eq!(branch_commits(&repo), commits);
}

#[test]
fn the_session_start_hook_orphans_too() {
    let repo = repo();
    rune_at(&repo, T0, &dispatch_args("oracle-1-old", HASH)).success();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_git-rune"));
    repo.env(&mut cmd);
    cmd.env("GIT_RUNE_TIMESTAMP", "2026-04-29T00:00:00Z")
        .args(["agent", "hook", "SessionStart"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    {
        use std::io::Write as _;
        let mut stdin = child.stdin.take().unwrap();
        stdin
            .write_all(
                br#"{"session_id":"s1","hook_event_name":"SessionStart","source":"startup"}"#,
            )
            .unwrap();
    }
    Output::of(child.wait_with_output().unwrap()).success();
    assert_eq!(list(&repo)[0]["status"], "orphaned");
}

#[test]
fn two_clones_changing_one_dispatch_converge() {
    let remote = Remote::new();
    let a = remote.clone("ada");
    a.commit_file("README", "hi\n", "start");
    a.git(&["push", "-q", "origin", "main"]);
    let b = remote.clone("bob");
    rune_at(&a, T0, &dispatch_args("oracle-1-a", HASH)).success();
    a.rune(&["sync"]).success();
    b.rune(&["sync"]).success();
    assert_eq!(list(&b)[0]["status"], "pending");

    // Concurrently: ada completes it, bob's session start a day later orphans it.
    repo_complete(&a, "oracle-1-a", "from ada");
    rune_at(&b, "2026-04-29T00:00:00Z", &["load"]).success();
    assert_eq!(list(&b)[0]["status"], "orphaned");
    a.rune(&["sync"]).success();
    b.rune(&["sync"]).success();
    a.rune(&["sync"]).success();
    // Both fold to the completed answer (complete outranks orphaned), and agree.
    for repo in [&a, &b] {
        let all = list(repo);
        assert_eq!(all.len(), 1);
        assert_eq!(all[0]["status"], "complete");
        assert_eq!(all[0]["responseExcerpt"], "from ada");
    }
    assert_eq!(
        a.git(&["rev-parse", "refs/rune/branches/main^{tree}"]),
        b.git(&["rev-parse", "refs/rune/branches/main^{tree}"])
    );
    // Either clone reattaches it.
    let out = b.rune(&["oracle", "reattach", "oracle-1-a"]).success();
    assert!(out.stdout.contains("from ada"));
}

fn repo_complete(repo: &TestRepo, id: &str, text: &str) {
    repo.write("answer.txt", text);
    repo.rune(&[
        "oracle",
        "complete",
        id,
        "--response-id",
        "r1",
        "--excerpt-file",
        "answer.txt",
    ])
    .success();
}

#[test]
fn show_knows_the_oracle_kind() {
    let repo = repo();
    let empty = repo.rune(&["show", "oracles"]).success();
    assert_eq!(empty.stdout, "");
    rune_at(&repo, T0, &dispatch_args("oracle-1714234500-abc123", HASH)).success();
    let out = rune_at(&repo, T0, &["show", "oracles"]).success();
    assert!(
        out.stdout
            .starts_with("oracle-1714234500-abc123  pending  claude-opus-4-7"),
        "{}",
        out.stdout
    );
    let json = rune_at(&repo, T0, &["--json", "show", "oracles"]).success();
    let v: serde_json::Value = serde_json::from_str(json.stdout.trim()).unwrap();
    assert_eq!(v["kind"], "oracle", "{v}");
    assert_eq!(v["sessionId"], "oracle-1714234500-abc123", "{v}");
    repo.rune_stdin(
        &[
            "oracle",
            "complete",
            "oracle-1714234500-abc123",
            "--response-id",
            "r1",
            "--excerpt-file",
            "-",
        ],
        b"Use a token bucket.",
    )
    .success();
    let all = repo.rune(&["show", "oracles", "--all"]).success().stdout;
    let lines: Vec<&str> = all.lines().collect();
    assert_eq!(lines.len(), 2, "{all}");
    assert!(lines.iter().any(|l| l.starts_with("edited")), "{all}");
    assert!(lines.iter().any(|l| l.starts_with("live")), "{all}");
    assert!(all.contains("oracle-1714234500-abc123"), "{all}");
}
