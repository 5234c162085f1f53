//! The view after a branch switch (post-checkout, issue 16): when memory did not move, only
//! the branch's files are rendered, and the view is byte for byte what a full checkout
//! writes — with memory unchanged, changed between the switches, and moved by a sync.

use std::collections::BTreeMap;

use crate::common::{Remote, TestRepo};

/// The `.rune/` files by name.
fn view_files(repo: &TestRepo) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(repo.root.join(".rune")).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            let name = e.file_name().to_string_lossy().into_owned();
            out.insert(name.clone(), repo.read(&format!(".rune/{name}")));
        }
    }
    out
}

/// Switches branches with git (the hooks installed) and checks that the view it left is
/// exactly what rendering every file afresh writes.
fn switch_and_compare(repo: &TestRepo, args: &[&str]) {
    switch(repo, args);
    compare(repo, args);
}

fn switch(repo: &TestRepo, args: &[&str]) {
    let mut cmd = std::process::Command::new("git");
    repo.env(&mut cmd);
    let out = cmd.args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    // `git checkout -q` quiets the hook's view line too (issue 28).
    assert_eq!(
        stderr.contains(".rune/ now shows"),
        !args.contains(&"-q"),
        "{stderr}"
    );
}

fn compare(repo: &TestRepo, args: &[&str]) {
    let switched = view_files(repo);
    std::fs::remove_dir_all(repo.root.join(".rune")).unwrap();
    repo.rune(&["-q", "restore"]).success();
    assert_eq!(switched, view_files(repo), "after `git {}`", args.join(" "));
    crate::common::assert_view_clean(repo);
}

fn memory_tree(repo: &TestRepo) -> String {
    repo.git(&["rev-parse", "refs/rune/memory^{tree}"])
}

fn session_work(repo: &TestRepo, what: &str) {
    repo.rune(&["progress", "--next", &format!("{what} next")])
        .success();
    repo.rune(&["task", "add", &format!("{what} task")])
        .success();
    repo.rune(&["checkpoint", "--doing", &format!("{what} step")])
        .success();
}

#[test]
fn a_switch_renders_what_a_full_checkout_renders() {
    let repo = TestRepo::new();
    repo.commit_file("a", "a", "first");
    repo.rune(&["init", "--hooks"]).success();
    session_work(&repo, "main");
    repo.learn("k1", "first insight");
    repo.learn("k2", "second insight");
    repo.decide("Use Postgres", "Postgres", &[]);

    // Memory did not move: only the branch's files are rendered, so no digest is stored
    // for the new pair of trees (a full render stores one).
    switch(&repo, &["checkout", "-q", "-b", "feature"]);
    let digest = repo
        .root
        .join(".git/rune/cache/digest")
        .join(format!("{}--", memory_tree(&repo)));
    assert!(!digest.exists(), "the switch folded all of memory");
    compare(&repo, &["checkout", "-b", "feature"]);
    session_work(&repo, "feature");
    switch_and_compare(&repo, &["checkout", "-q", "main"]);

    // A task deleted in the view: a tombstone on the branch's ref, naming its own record.
    repo.rune(&["-q", "task", "add", "kept task"]).success();
    let tasks = repo.read(".rune/tasks.md");
    let mut kept = String::new();
    let mut in_task = false;
    for line in tasks.lines() {
        if line.starts_with("- [") || line.starts_with('#') {
            in_task = line.contains("main task");
        }
        if !in_task {
            kept.push_str(line);
            kept.push('\n');
        }
    }
    assert_ne!(kept, tasks);
    repo.write(".rune/tasks.md", &kept);
    repo.rune(&["-q", "save"]).success();
    switch_and_compare(&repo, &["checkout", "-q", "feature"]);
    switch_and_compare(&repo, &["checkout", "-q", "main"]);

    // Memory moved between the switches: everything is rendered again.
    repo.learn("k3", "third insight");
    switch_and_compare(&repo, &["checkout", "-q", "feature"]);
    assert!(repo.read(".rune/learnings.jsonl").contains("third insight"));
    switch_and_compare(&repo, &["checkout", "-q", "main"]);
    // A detached HEAD has no session state of its own.
    switch_and_compare(&repo, &["checkout", "-q", "--detach"]);
    switch_and_compare(&repo, &["checkout", "-q", "feature"]);
}

#[test]
fn a_switch_after_a_sync_renders_the_merged_memory() {
    let remote = Remote::new();
    let a = remote.clone("ada");
    a.commit_file("README", "hi\n", "start");
    a.git(&["push", "-q", "origin", "main"]);
    let b = remote.clone("bob");
    b.rune(&["init", "--hooks"]).success();
    b.learn("b1", "from bob");
    session_work(&b, "bob main");
    b.git(&["branch", "feature"]);

    a.learn("a1", "from ada");
    a.rune(&["-q", "sync"]).success();
    b.rune(&["-q", "sync"]).success();
    switch_and_compare(&b, &["checkout", "-q", "feature"]);
    assert!(b.read(".rune/learnings.jsonl").contains("from ada"));
    switch_and_compare(&b, &["checkout", "-q", "main"]);

    // Memory fetched and merged by a plain fetch + sync while on a branch, then a switch.
    a.learn("a2", "more from ada");
    a.rune(&["-q", "sync"]).success();
    b.git(&["fetch", "-q", "origin"]);
    b.rune(&["-q", "sync"]).success();
    switch_and_compare(&b, &["checkout", "-q", "feature"]);
    assert!(b.read(".rune/learnings.jsonl").contains("more from ada"));
}

/// Regression: after `git branch -m A B` (a `master` renamed `main`, say) the branch's tasks,
/// checkpoint and progress stayed under `refs/rune/branches/A`: B showed none, and what was
/// recorded next started B's session state afresh. The state ref follows the rename (no
/// commit made) when B has none yet and no branch is called A any more; a new branch that
/// takes the old name starts empty.
#[test]
fn session_state_follows_a_branch_rename() {
    let repo = TestRepo::new();
    repo.commit_file("a", "1", "base");
    repo.rune(&["-q", "init", "--hooks"]).success();
    repo.rune(&["-q", "task", "add", "Main task"]).success();
    repo.git(&["checkout", "-q", "-b", "topic"]);
    repo.rune(&["-q", "task", "add", "Topic task"]).success();
    let tasks = |repo: &TestRepo| repo.rune(&["task", "list"]).success().stdout;
    // The branch checked out, renamed twice: read first, then written.
    repo.git(&["branch", "-m", "topic", "topic2"]);
    assert!(tasks(&repo).contains("Topic task"), "{}", tasks(&repo));
    assert!(repo.read(".rune/tasks.md").contains("Topic task"));
    repo.git(&["branch", "-m", "topic2", "topic3"]);
    repo.rune(&["-q", "task", "add", "Second topic task"])
        .success();
    let t = tasks(&repo);
    assert!(
        t.contains("Topic task") && t.contains("Second topic task"),
        "{t}"
    );
    // Another branch, renamed while not checked out.
    repo.git(&["branch", "-m", "main", "trunk"]);
    repo.git(&["checkout", "-q", "trunk"]);
    assert!(tasks(&repo).contains("Main task"), "{}", tasks(&repo));
    assert_eq!(
        repo.git(&["for-each-ref", "--format=%(refname)", "refs/rune/branches"]),
        "refs/rune/branches/topic3\nrefs/rune/branches/trunk"
    );
    // A new branch under an old name has its own, empty session state.
    repo.git(&["checkout", "-q", "-b", "main"]);
    assert!(!tasks(&repo).contains("Main task"), "{}", tasks(&repo));
}

/// Regression: in a linked worktree made without git-rune's hooks, `status` said ".rune/ is
/// clean" where there was no `.rune/` at all. It says the view is not checked out there, and
/// how to check it out.
#[test]
fn status_says_when_the_view_is_not_checked_out_in_a_worktree() {
    let repo = TestRepo::new();
    repo.commit_file("a", "1", "base");
    repo.rune(&["-q", "init"]).success();
    let wt = repo.root.join("wt");
    repo.git(&["worktree", "add", "-q", "-b", "other", wt.to_str().unwrap()]);
    let out = repo.rune_in(&wt, &["status"]).success().stdout;
    assert!(
        out.contains(".rune/ is not checked out in this work tree: `git rune init` checks it out"),
        "{out}"
    );
    let json = repo.rune_in(&wt, &["status", "--json"]).success().stdout;
    assert!(json.contains("\"checked_out\":false"), "{json}");
    repo.rune_in(&wt, &["-q", "init"]).success();
    assert!(repo
        .rune_in(&wt, &["status"])
        .success()
        .stdout
        .contains(".rune/ is clean"));
}
