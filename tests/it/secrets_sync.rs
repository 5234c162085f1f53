//! Issue 29: secrets that arrive from elsewhere — a teammate's memory by sync, or an agent's
//! todo list — are refused and reported, never kept silently: a remote history holding a
//! secret is reachable from no ref of the clone (its tracking ref included), and a todo item
//! holding one is named to the agent and the log while the others are followed.

use std::process::{Command, Stdio};

use git_rune::model::{decode_line, Body, Record};

use crate::common::{Remote, TestRepo};
use crate::secrets::{all_objects, families};

/// The contents of every object reachable from a ref (what `git gc` keeps).
fn reachable_objects(repo: &TestRepo) -> String {
    let list = repo.git(&["rev-list", "--objects", "--all", "--reflog"]);
    let ids: String = list
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(|id| format!("{id}\n"))
        .collect();
    let mut cmd = Command::new("git");
    repo.env(&mut cmd);
    let mut child = cmd
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        use std::io::Write as _;
        stdin.write_all(ids.as_bytes()).unwrap();
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A record whose id is the hash of its content, written with no filter (an old git-rune, or
/// another tool) onto the remote's `refs/rune/memory`: a learning `key` saying `insight`.
fn push_unfiltered_learning(remote: &Remote, key: &str, insight: &str) {
    let c = remote.clone("mallory");
    c.git(&["fetch", "-q", "origin", "refs/rune/*:refs/rune/*"]);
    let blob = c.git(&["rev-parse", "refs/rune/memory:learning/all.jsonl"]);
    let text = c.git(&["cat-file", "-p", &blob]);
    let first: Record = decode_line(text.lines().next().unwrap()).unwrap();
    let mut body = first.body.clone();
    if let Body::Learning(l) = &mut body {
        l.key = key.to_owned();
        l.insight = insight.to_owned();
    }
    let mut meta = first.meta.clone();
    meta.clock += 1;
    let line = Record::new(meta, body).to_line();
    let new_blob = c.git_stdin(
        &["hash-object", "-w", "--stdin"],
        &format!("{text}\n{line}\n"),
    );
    let tree = c.git_stdin(
        &["mktree"],
        &format!(
            "100644 blob {}\tVERSION\n040000 tree {}\tlearning\n",
            c.git(&["rev-parse", "refs/rune/memory:VERSION"]),
            c.git_stdin(&["mktree"], &format!("100644 blob {new_blob}\tall.jsonl\n"))
        ),
    );
    let commit = c.git(&[
        "commit-tree",
        "-p",
        "refs/rune/memory",
        "-m",
        "unfiltered",
        &tree,
    ]);
    c.git(&[
        "push",
        "-q",
        "origin",
        &format!("{commit}:refs/rune/memory"),
    ]);
}

/// Whether the clone tracks the remote's memory ref.
fn tracked(repo: &TestRepo) -> bool {
    repo.git(&["for-each-ref", "--format=%(refname)", "refs/rune-remotes/"])
        .lines()
        .any(|l| l == "refs/rune-remotes/origin/rune/memory")
}

fn learnings(repo: &TestRepo) -> String {
    repo.rune(&["show", "learnings"]).success().stdout
}

#[track_caller]
fn assert_reported(stderr: &str, rule: &str, secret: &str) {
    assert!(stderr.contains("refused a record from origin"), "{stderr}");
    assert!(
        stderr.contains(&format!("refusing to record a secret ({rule})")),
        "{stderr}"
    );
    assert!(
        !stderr.contains(secret),
        "the warning echoes the secret: {stderr}"
    );
}

/// A secret in the remote's memory: `init` in a fresh clone, `sync` in an older one and the
/// merge after a plain `git fetch` each report it (rule and record, never the value); the other
/// records come in; no ref keeps the remote's history (refs/rune-remotes/ included); the ref
/// is not pushed back, until `git rune gc` replaces the remote's history with one that never
/// held the secret.
#[test]
fn a_secret_arriving_by_sync_is_reported_and_kept_by_no_ref() {
    let remote = Remote::new();
    let ada = remote.clone("ada");
    ada.commit_file("README", "hi\n", "start");
    ada.git(&["push", "-q", "origin", "main"]);
    ada.learn("good", "fine");
    ada.rune(&["sync"]).success();
    let bob = remote.clone("bob");
    bob.rune(&["-q", "init"]).success();
    bob.learn("bob", "his own");
    let (rule, text, secret) = families().swap_remove(5);
    assert_eq!(rule, "login-credentials");
    push_unfiltered_learning(&remote, "staging", &text);

    // A fresh clone: init reports it, and brings in the rest.
    let carol = remote.clone("carol");
    let out = carol.rune(&["init"]).success();
    assert_reported(&out.stderr, rule, &secret);
    assert!(!out.stdout.contains(&secret), "{}", out.stdout);
    assert!(learnings(&carol).contains("fine"));
    assert!(!tracked(&carol));
    assert!(!reachable_objects(&carol).contains(&secret));

    // A plain `git fetch` brings the ref back; the next command merges and reports it again.
    carol.git(&["fetch", "-q", "origin"]);
    assert!(tracked(&carol));
    let out = carol.rune(&["show", "learnings"]).success();
    assert_reported(&out.stderr, rule, &secret);
    assert!(!tracked(&carol));
    assert!(!reachable_objects(&carol).contains(&secret));

    // An older clone with records of its own: sync merges the rest, leaves the remote's
    // shared ref alone (its own records go to its published refs) and says how to repair it.
    let before = remote.git(&["rev-parse", "refs/rune/memory"]);
    let out = bob.rune(&["sync"]).success();
    assert_reported(&out.stderr, rule, &secret);
    assert!(
        out.stderr.contains("git rune repair origin"),
        "{}",
        out.stderr
    );
    assert_eq!(remote.git(&["rev-parse", "refs/rune/memory"]), before);
    let seen = learnings(&bob);
    assert!(seen.contains("fine") && seen.contains("his own"), "{seen}");
    assert!(!reachable_objects(&bob).contains(&secret));
    // Synced again: reported again, nothing new written here.
    let tip = bob.git(&["rev-parse", "refs/rune/memory"]);
    let out = bob.rune(&["sync"]).success();
    assert_reported(&out.stderr, rule, &secret);
    assert_eq!(bob.git(&["rev-parse", "refs/rune/memory"]), tip);

    let history = |r: &Remote| r.git(&["log", "-p", "refs/rune/memory"]);
    assert!(history(&remote).contains(&secret), "the remote holds it");
    // repair here: tips without what was refused replace the remote's.
    let out = bob.rune(&["repair"]).success();
    assert!(!out.stderr.contains(&secret), "{}", out.stderr);
    assert_ne!(remote.git(&["rev-parse", "refs/rune/memory"]), before);
    let on_remote = {
        let dave = remote.clone("dave");
        let out = dave.rune(&["init"]).success();
        assert!(!out.stderr.contains("refused"), "{}", out.stderr);
        let seen = learnings(&dave);
        assert!(seen.contains("fine") && seen.contains("his own"), "{seen}");
        reachable_objects(&dave)
    };
    assert!(!on_remote.contains(&secret));
    assert!(!history(&remote).contains(&secret));
}

/// The agent's todo list (TodoWrite, through PostToolUse) with a secret in one item: that item
/// is not recorded and the agent hears so at once (its place and the rule, not the text); the
/// other items become tasks; the log has it, and the next session start says so.
#[test]
fn a_todo_item_holding_a_secret_is_reported_not_dropped_silently() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a\n", "first");
    repo.rune(&["-q", "init"]).success();
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/claude-code/PostToolUse-TodoWrite.json");
    let mut input: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    input["cwd"] = repo.root.to_string_lossy().into_owned().into();
    input["session_id"] = "s-todo".into();
    for (rule, text, secret) in families() {
        input["tool_input"]["todos"][1]["content"] = format!("Deploy: {text}").into();
        let out = repo.rune_stdin(
            &["agent", "hook", "PostToolUse"],
            input.to_string().as_bytes(),
        );
        assert_eq!(out.code, 0, "{}", out.snapshot());
        let said: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        let context = said["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap_or_default();
        assert!(
            context.contains(&format!("item 2 ({rule})")),
            "{}",
            out.stdout
        );
        assert!(!out.stdout.contains(&secret) && !out.stderr.contains(&secret));
        assert!(!all_objects(&repo).contains(&secret), "{rule}");
    }
    let tasks = repo.rune(&["task", "list", "--all"]).success().stdout;
    assert!(tasks.contains("Read the index loader"), "{tasks}");
    assert!(
        tasks.contains("Add a test with a truncated index file"),
        "{tasks}"
    );
    let log = repo.read(".git/rune/agent.log");
    assert!(log.contains("TodoWrite: item 2 (basic-auth)"), "{log}");
    let start = serde_json::json!({
        "session_id": "s-todo-2", "transcript_path": "/dev/null",
        "cwd": repo.root.to_string_lossy(), "hook_event_name": "SessionStart",
        "source": "startup"
    })
    .to_string();
    let start = repo.rune_stdin(&["agent", "hook", "SessionStart"], start.as_bytes());
    assert!(
        start
            .stdout
            .contains("hook failures since the last session start"),
        "{}",
        start.stdout
    );
    assert!(
        start.stdout.contains("not recorded as a task"),
        "{}",
        start.stdout
    );
    for (_, _, secret) in families() {
        assert!(!log.contains(&secret) && !start.stdout.contains(&secret));
    }
}
