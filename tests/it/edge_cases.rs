//! Situations that must give a clear message and lose nothing.

use crate::assert_rune_snapshot;
use crate::common::{decide_args, TestRepo};
use std::process::{Command, Stdio};

#[test]
fn outside_a_repository() {
    let dir = TestRepo::empty_dir();
    let out = dir.rune(&["load"]).failure();
    // Not a repository is the environment's failure (docs/cli.md, "Exit status").
    assert_eq!(out.code, 69);
    assert_rune_snapshot!(dir, out);
}

#[test]
fn bare_repository_keeps_refs_without_a_view() {
    let repo = TestRepo::empty_dir();
    repo.git(&["init", "-q", "--bare", "-b", "main"]);
    repo.rune(&["init"]).success();
    repo.rune(&decide_args("Bare", &[])).success();
    assert!(repo.refs().contains("refs/rune/memory"));
    assert!(!repo.root.join(".rune").exists());
    let out = repo.rune(&["load"]).success();
    assert!(out.stdout.contains("Bare: d"), "{}", out.stdout);
    let status = repo.rune(&["status"]).success();
    assert!(
        status.stdout.contains("bare repository"),
        "{}",
        status.stdout
    );
    repo.rune(&["save", "-m", "bare save"]).success();
}

#[test]
fn unborn_head_saves_and_loads() {
    let repo = TestRepo::new();
    repo.rune(&["save", "-m", "before any commit"]).success();
    assert!(repo.refs().contains("refs/rune/branches/main"));
    let out = repo.rune(&["load"]).success();
    assert!(out.stdout.contains("main @ (no commits)"), "{}", out.stdout);
    let status = repo.rune(&["status", "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(status.stdout.trim()).unwrap();
    assert_eq!(v["head"], serde_json::Value::Null);
    // The first commit afterwards is not drift against a missing commit.
    repo.commit_file("a", "a", "first");
    let v: serde_json::Value =
        serde_json::from_str(repo.rune(&["status", "--json"]).success().stdout.trim()).unwrap();
    assert_eq!(v["drift"]["saved_commit_missing"], false);
    // ...but the commits made since are counted.
    assert_eq!(v["drift"]["ahead"], 1, "{v}");
    repo.commit_file("b", "b", "second");
    let out = repo.rune(&["status"]).success();
    assert!(
        out.stdout
            .contains("2 commits since the last save, which was made before the first commit"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("main @ (before the first commit)"),
        "{}",
        out.stdout
    );
}

#[test]
fn detached_head_uses_the_detached_ref() {
    let repo = TestRepo::new();
    let c = repo.commit_file("a", "a", "first");
    repo.git(&["checkout", "-q", "--detach", &c]);
    repo.rune(&["progress", "--next", "look around"]).success();
    repo.rune(&["save", "-m", "detached"]).success();
    assert!(
        repo.refs().contains("refs/rune/detached "),
        "{}",
        repo.refs()
    );
    let out = repo.rune(&["status"]).success();
    assert!(out.stdout.starts_with("HEAD detached"), "{}", out.stdout);
}

#[test]
fn linked_worktree_has_its_own_view_and_shares_refs() {
    let repo = TestRepo::new();
    repo.commit_file("a", "a", "first");
    repo.rune(&["init"]).success();
    let wt = repo.root.parent().unwrap().join("wt");
    repo.git(&[
        "worktree",
        "add",
        "-q",
        "-b",
        "feature",
        wt.to_str().unwrap(),
    ]);
    repo.rune_in(&wt, &["init"]).success();
    repo.rune_in(&wt, &decide_args("From the worktree", &[]))
        .success();
    repo.rune_in(&wt, &["progress", "--next", "feature work"])
        .success();
    assert!(std::fs::read_to_string(wt.join(".rune/decisions.md"))
        .unwrap()
        .contains("From the worktree"));
    assert!(repo.refs().contains("refs/rune/branches/feature"));
    // The main worktree sees the shared memory after a refresh, but not the feature branch state.
    repo.rune(&["save"]).success();
    assert!(repo
        .read(".rune/decisions.md")
        .contains("From the worktree"));
    assert!(!repo.read(".rune/progress.md").contains("feature work"));
    assert!(std::fs::read_to_string(wt.join(".git")).is_ok_and(|s| s.starts_with("gitdir:")));
}

#[test]
fn no_identity_falls_back_with_a_hint() {
    let repo = TestRepo::empty_dir();
    repo.git(&["init", "-q", "-b", "main"]);
    let out = repo
        .rune(&[
            "learn",
            "--type",
            "insight",
            "--key",
            "k",
            "--insight",
            "works anyway",
        ])
        .success();
    assert!(
        out.stderr.contains("no git identity is configured"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("git config user.name"),
        "{}",
        out.stderr
    );
    let author = repo.git(&["log", "-1", "--format=%an <%ae>", "refs/rune/memory"]);
    assert_eq!(author, "git-rune <git-rune@localhost>");
}

#[test]
fn a_memory_ref_that_is_not_a_commit_is_reported() {
    let repo = TestRepo::new();
    repo.rune(&["learn", "--type", "insight", "--key", "k", "--insight", "x"])
        .success();
    let blob = repo.git(&["rev-parse", "refs/rune/memory^{tree}"]);
    repo.git(&["update-ref", "refs/rune/memory", &blob]);
    let refs = repo.refs();
    let out = repo
        .rune(&[
            "learn",
            "--type",
            "insight",
            "--key",
            "k2",
            "--insight",
            "y",
        ])
        .failure();
    assert_rune_snapshot!(repo, out);
    assert_eq!(repo.refs(), refs);
    let out = repo.rune(&["load"]).failure();
    assert!(out.stderr.contains("not a commit"), "{}", out.stderr);
}

/// A reader that goes away is not an error worth a message, and never kills git-rune
/// half-way (SIGPIPE is ignored; the binary sets that up itself, see src/main.rs).
#[test]
fn a_closed_pipe_ends_quietly() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a\n", "first");
    repo.rune(&["-q", "init"]).success();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_git-rune"));
    repo.env(&mut cmd);
    let mut child = cmd
        .arg("load")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Closed before git-rune has started, so its first write finds no reader.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

/// With stdout closed a command still works and leaves nothing stray in the view (the
/// binary fills closed standard streams with /dev/null, as Rust's runtime does).
#[test]
fn a_closed_stdout_changes_nothing() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a\n", "first");
    repo.rune(&["-q", "init"]).success();
    let mut cmd = Command::new("sh");
    repo.env(&mut cmd);
    let mut script = String::from("exec \"$0\"");
    for arg in decide_args("Closed", &[]) {
        script.push_str(&format!(" '{arg}'"));
    }
    script.push_str(" >&-");
    let out = cmd
        .args(["-c", &script, env!("CARGO_BIN_EXE_git-rune")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let view = repo.read(".rune/decisions.md");
    assert!(view.contains("Decision: Closed"), "{view}");
    assert!(!view.contains("refs/rune/memory"), "{view}");
}

/// A reftable repository is refused before anything is written: a loose ref git cannot see
/// would be garbage-collected away.
#[test]
fn a_reftable_repository_is_refused_untouched() {
    let repo = TestRepo::empty_dir();
    let out = repo.git_output(&["init", "-q", "--ref-format=reftable", "-b", "main"]);
    if !out.status.success() {
        // git older than 2.45 has no reftable: nothing to test.
        return;
    }
    repo.git(&["config", "user.name", "T"]);
    repo.git(&["config", "user.email", "t@example.com"]);
    repo.commit_file("a", "a", "first");
    for args in [
        &["learn", "--type", "insight", "--key", "k", "--insight", "i"][..],
        &["init", "--hooks"],
        &["status"],
    ] {
        let out = repo.rune(args).failure();
        assert!(out.stderr.contains("reftable format"), "{}", out.stderr);
        assert!(out.stderr.contains("git refs migrate"), "{}", out.stderr);
    }
    assert!(!repo.root.join(".git/refs/rune").exists());
    assert!(!repo.root.join(".rune").exists());
    assert!(!repo.root.join(".git/hooks/post-commit").exists());
}

/// A SHA-256 repository is named as unsupported, not "not a git repository".
#[test]
fn a_sha256_repository_is_named_unsupported() {
    let repo = TestRepo::empty_dir();
    repo.git(&["init", "-q", "--object-format=sha256", "-b", "main"]);
    let out = repo.rune(&["status"]).failure();
    assert!(out.stderr.contains("sha256 object ids"), "{}", out.stderr);
    assert!(
        !out.stderr.contains("not a git repository"),
        "{}",
        out.stderr
    );
}

/// In a partial clone the memory blobs the clone lacks are fetched on first read; offline,
/// the error says what is missing and what to do, and no memory is called TAINTED.
#[test]
fn a_partial_clone_fetches_memory_blobs_on_demand() {
    let origin = TestRepo::new();
    origin.commit_file("a", "a", "first");
    origin.learn("partial", "fetched when read");
    origin.git(&["config", "uploadpack.allowFilter", "true"]);
    let clone = TestRepo::empty_dir();
    let url = format!("file://{}", origin.root.display());
    clone.git(&["clone", "-q", "--filter=blob:none", &url, "."]);
    clone.git(&["fetch", "-q", "origin", "refs/rune/*:refs/rune/*"]);
    let memory_tree = clone.git(&["rev-parse", "refs/rune/memory^{tree}"]);
    let blob = clone.git(&["rev-parse", &format!("{memory_tree}:learning/all.jsonl")]);
    assert_eq!(
        clone
            .git_output(&["--no-lazy-fetch", "cat-file", "-e", &blob])
            .status
            .code(),
        Some(1),
        "the clone lacks the blob before the first read"
    );
    let load = clone.rune(&["load"]).success();
    assert!(load.stdout.contains("fetched when read"), "{}", load.stdout);
    assert!(clone.rune(&["verify"]).success().stdout.contains("CLEAN"));

    // Offline: the promisor remote is gone.
    let offline = TestRepo::empty_dir();
    offline.git(&["clone", "-q", "--filter=blob:none", &url, "."]);
    offline.git(&["fetch", "-q", "origin", "refs/rune/*:refs/rune/*"]);
    offline.git(&["remote", "set-url", "origin", "file:///nonexistent/repo"]);
    let out = offline.rune(&["load"]).failure();
    assert!(
        out.stderr.contains("missing from this partial clone"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("hint: connect to origin"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("TAINTED"), "{}", out.stderr);
}
