//! A bad remote object is quarantined, never contagious (issue 26): a damaged record line, a
//! memory or notes ref pointing at a blob, tree or tag, a newer layout, a record or note past
//! the limits. Each leaves the rest syncing, errors name the remote ref that is broken, no
//! tracking ref keeps refused objects reachable, and `git rune repair` restores clean tips.

use crate::common::{Remote, TestRepo};

fn two_clones(remote: &Remote) -> (TestRepo, TestRepo) {
    let a = remote.clone("ada");
    a.commit_file("README", "hi\n", "start");
    a.git(&["push", "-q", "origin", "main"]);
    a.rune(&["-q", "init"]).success();
    let b = remote.clone("bob");
    b.rune(&["-q", "init"]).success();
    (a, b)
}

/// A third clone that writes straight into the remote with git.
fn mallory(remote: &Remote) -> TestRepo {
    let m = remote.clone("mallory");
    m.git(&["fetch", "-q", "origin", "+refs/rune/*:refs/rune/*"]);
    m
}

fn keys(repo: &TestRepo) -> Vec<String> {
    let out = repo.rune(&["show", "learnings", "--json"]).success().stdout;
    let mut k: Vec<String> = out
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["key"].to_string())
        .collect();
    k.sort();
    k
}

/// Whether `repo` has any ref (tracking or local) that reaches object `id`.
fn reachable(repo: &TestRepo, id: &str) -> bool {
    let out = repo.git(&["rev-list", "--all", "--objects"]);
    out.lines().any(|l| l.starts_with(id))
}

#[test]
fn a_damaged_record_line_is_refused_alone_and_repair_removes_it() {
    let remote = Remote::new();
    let (a, b) = two_clones(&remote);
    a.learn("good", "fine");
    a.rune(&["-q", "sync"]).success();
    // A line that is not a record at all, appended to the remote's blob.
    let m = mallory(&remote);
    let blob = m.git(&["rev-parse", "refs/rune/memory:learning/all.jsonl"]);
    let text = m.git(&["cat-file", "-p", &blob]);
    let bad_blob = m.git_stdin(
        &["hash-object", "-w", "--stdin"],
        &format!("{text}\n{{\"id\":\"zz\",\"kind\":\n"),
    );
    let version = m.git(&["rev-parse", "refs/rune/memory:VERSION"]);
    let sub = m.git_stdin(&["mktree"], &format!("100644 blob {bad_blob}\tall.jsonl\n"));
    let tree = m.git_stdin(
        &["mktree"],
        &format!("100644 blob {version}\tVERSION\n040000 tree {sub}\tlearning\n"),
    );
    let bad = m.git(&["commit-tree", "-p", "refs/rune/memory", "-m", "bad", &tree]);
    m.git(&["push", "-q", "origin", &format!("{bad}:refs/rune/memory")]);
    // Bob's sync merges the rest, says which remote ref held it, and pushes his own.
    b.learn("bob", "his own");
    let out = b.rune(&["sync"]).success();
    assert!(
        out.stderr.contains("refused a record from origin"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("refs/rune/memory"), "{}", out.stderr);
    assert!(
        out.stderr.contains("git rune repair origin"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("update-ref -d"), "{}", out.stderr);
    assert!(keys(&b).contains(&"\"good\"".to_owned()));
    // Nothing here keeps the bad objects reachable.
    assert!(
        !reachable(&b, &bad_blob),
        "a ref still reaches the refused blob"
    );
    // Ada still gets Bob's record, through his own ref.
    a.rune(&["-q", "sync"]).success();
    assert!(keys(&a).contains(&"\"bob\"".to_owned()), "{:?}", keys(&a));
    // Repair replaces the damaged tip and shares it; then nothing is refused.
    let out = b.rune(&["repair"]).success();
    assert!(
        out.stdout.contains("replaced refs/rune/memory"),
        "{}",
        out.stdout
    );
    let listing = remote.git(&["ls-tree", "-r", "refs/rune/memory"]);
    assert!(!listing.contains(&bad_blob), "{listing}");
    let out = a.rune(&["sync"]).success();
    assert!(!out.stderr.contains("refused"), "{}", out.stderr);
    assert!(b.rune(&["verify"]).success().stdout.contains("CLEAN"));
}

#[test]
fn refs_that_are_not_memory_commits_are_skipped_and_the_rest_syncs() {
    let remote = Remote::new();
    let (a, b) = two_clones(&remote);
    a.learn("a", "from ada");
    a.rune(&["-q", "sync"]).success();
    let m = mallory(&remote);
    let blob = m.git_stdin(&["hash-object", "-w", "--stdin"], "not memory\n");
    let tree = m.git(&["rev-parse", "HEAD^{tree}"]);
    m.git(&["tag", "-a", "-m", "t", "atag", "HEAD"]);
    let tag = m.git(&["rev-parse", "atag"]);
    m.git(&["push", "-q", "origin", &format!("+{blob}:refs/rune/memory")]);
    m.git(&[
        "push",
        "-q",
        "origin",
        &format!("+{tree}:refs/rune/branches/evil"),
    ]);
    m.git(&["push", "-q", "origin", &format!("+{tag}:refs/notes/rune")]);
    b.learn("b", "from bob");
    let out = b.rune(&["sync"]).success();
    for (r, what) in [
        ("refs/rune/memory", "blob"),
        ("refs/rune/branches/evil", "tree"),
        ("refs/notes/rune", "tag"),
    ] {
        assert!(
            out.stderr
                .contains(&format!("skipped origin's {r}: it points at a {what}")),
            "{}",
            out.stderr
        );
    }
    assert!(!out.stderr.contains("update-ref -d"), "{}", out.stderr);
    // Ada's memory came in through her own ref; Bob's went out through his.
    assert!(keys(&b).contains(&"\"a\"".to_owned()), "{:?}", keys(&b));
    a.rune(&["-q", "sync"]).success();
    assert!(keys(&a).contains(&"\"b\"".to_owned()), "{:?}", keys(&a));
    // A fresh clone's init brings memory in all the same.
    let c = remote.clone("cy");
    let out = c.rune(&["init"]).success();
    assert!(out.stdout.contains("brought in"), "{}", out.stdout);
    assert!(
        out.stderr.contains("skipped origin's refs/rune/memory"),
        "{}",
        out.stderr
    );
    // Repair puts memory commits back.
    b.rune(&["repair"]).success();
    let kind = |r: &str| remote.git(&["cat-file", "-t", r]);
    assert_eq!(kind("refs/rune/memory"), "commit");
    // Bob has no notes: the clean tip of a notes ref that was a tag is no ref at all.
    assert_ne!(kind("refs/notes/rune"), "tag");
    assert!(remote
        .git(&[
            "for-each-ref",
            "--format=%(refname)",
            "refs/rune/branches/evil"
        ])
        .is_empty());
    let out = a.rune(&["sync"]).success();
    assert!(!out.stderr.contains("skipped"), "{}", out.stderr);
}

#[test]
fn a_newer_layout_is_skipped_with_advice_to_upgrade_and_repair_leaves_it() {
    let remote = Remote::new();
    let (a, b) = two_clones(&remote);
    a.learn("a", "from ada");
    a.rune(&["-q", "sync"]).success();
    let m = mallory(&remote);
    let version = m.git_stdin(&["hash-object", "-w", "--stdin"], "git-rune records 3\n");
    let tree = m.git_stdin(&["mktree"], &format!("100644 blob {version}\tVERSION\n"));
    let newer = m.git(&[
        "commit-tree",
        "-p",
        "refs/rune/memory",
        "-m",
        "layout 3",
        &tree,
    ]);
    m.git(&["push", "-q", "origin", &format!("{newer}:refs/rune/memory")]);
    b.learn("b", "from bob");
    let out = b.rune(&["sync"]).success();
    assert!(out.stderr.contains("newer layout"), "{}", out.stderr);
    assert!(out.stderr.contains("upgrade git-rune"), "{}", out.stderr);
    assert!(keys(&b).contains(&"\"a\"".to_owned()));
    b.rune(&["repair"]).success();
    assert_eq!(remote.git(&["rev-parse", "refs/rune/memory"]), newer);
}

#[test]
fn records_and_notes_past_the_limits_are_refused() {
    let remote = Remote::new();
    let (a, b) = two_clones(&remote);
    a.rune(&["-q", "hooks", "install"]).success();
    a.learn("small", "fine");
    a.learn("large", &"x".repeat(3000));
    a.commit_file("f", "f\n", "noted");
    let head = a.git(&["rev-parse", "HEAD"]);
    a.git(&[
        "notes",
        "--ref=rune",
        "add",
        "-f",
        "-m",
        &"n".repeat(5000),
        &head,
    ]);
    a.git(&["push", "-q", "origin", "main"]);
    a.rune(&["-q", "sync"]).success();
    b.git(&["fetch", "-q", "origin", "main"]);
    b.git(&["config", "rune.maxRecordBytes", "2k"]);
    b.git(&["config", "rune.maxNoteBytes", "4k"]);
    let out = b.rune(&["sync"]).success();
    assert!(
        out.stderr.contains("more than rune.maxRecordBytes"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("more than rune.maxNoteBytes"),
        "{}",
        out.stderr
    );
    assert_eq!(keys(&b), vec!["\"small\"".to_owned()]);
    assert!(b
        .git_output(&["notes", "--ref=rune", "show", &head])
        .stdout
        .is_empty());
}

#[test]
fn a_tree_past_the_entry_limit_is_skipped_and_repair_replaces_it() {
    let remote = Remote::new();
    let (a, b) = two_clones(&remote);
    a.learn("a", "from ada");
    a.rune(&["-q", "sync"]).success();
    // One record blob of 40 lines: past a limit of 16 entries.
    let m = mallory(&remote);
    let lines: String = (0..40).map(|i| format!("{{\"id\":\"{i}\"}}\n")).collect();
    let blob = m.git_stdin(&["hash-object", "-w", "--stdin"], &lines);
    let version = m.git(&["rev-parse", "refs/rune/memory:VERSION"]);
    let sub = m.git_stdin(&["mktree"], &format!("100644 blob {blob}\tall.jsonl\n"));
    let tree = m.git_stdin(
        &["mktree"],
        &format!("100644 blob {version}\tVERSION\n040000 tree {sub}\tlearning\n"),
    );
    let big = m.git(&["commit-tree", "-p", "refs/rune/memory", "-m", "big", &tree]);
    m.git(&["push", "-q", "origin", &format!("{big}:refs/rune/memory")]);
    b.git(&["config", "rune.maxTreeEntries", "16"]);
    b.learn("b", "from bob");
    let out = b.rune(&["sync"]).success();
    assert!(
        out.stderr.contains("skipped origin's refs/rune/memory"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("more than rune.maxTreeEntries"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("update-ref -d"), "{}", out.stderr);
    // Bob's record still left, through his own published ref; Ada gets it.
    a.rune(&["-q", "sync"]).success();
    assert!(keys(&a).contains(&"\"b\"".to_owned()), "{:?}", keys(&a));
    let json = b.rune(&["sync", "--json"]).success().stdout;
    let v: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    assert_eq!(v["skipped"][0]["ref"], "refs/rune/memory", "{v}");
    assert_eq!(v["quarantined"][0], "refs/rune/memory", "{v}");
    // Repair puts a clean tip in its place.
    let json = b.rune(&["repair", "--json"]).success().stdout;
    let v: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    assert_eq!(v["replaced"][0], "refs/rune/memory", "{v}");
    assert_ne!(remote.git(&["rev-parse", "refs/rune/memory"]), big);
    let out = b.rune(&["sync"]).success();
    assert!(!out.stderr.contains("skipped"), "{}", out.stderr);
}

/// Beside a remote holding a damaged record, a fresh clone's `init` brings the rest, and `gc`
/// (which merges the remote first) compacts and shares without taking the damage in.
#[test]
fn init_and_gc_work_beside_a_damaged_remote() {
    let remote = Remote::new();
    let (a, _b) = two_clones(&remote);
    a.learn("good", "fine");
    a.rune(&["-q", "sync"]).success();
    let m = mallory(&remote);
    let blob = m.git(&["rev-parse", "refs/rune/memory:learning/all.jsonl"]);
    let text = m.git(&["cat-file", "-p", &blob]);
    let bad_blob = m.git_stdin(
        &["hash-object", "-w", "--stdin"],
        &format!("{text}\n{{\"id\":\"zz\",\"kind\":\n"),
    );
    let version = m.git(&["rev-parse", "refs/rune/memory:VERSION"]);
    let sub = m.git_stdin(&["mktree"], &format!("100644 blob {bad_blob}\tall.jsonl\n"));
    let tree = m.git_stdin(
        &["mktree"],
        &format!("100644 blob {version}\tVERSION\n040000 tree {sub}\tlearning\n"),
    );
    let bad = m.git(&["commit-tree", "-p", "refs/rune/memory", "-m", "bad", &tree]);
    m.git(&["push", "-q", "origin", &format!("{bad}:refs/rune/memory")]);
    let c = remote.clone("cy");
    let out = c.rune(&["init"]).success();
    assert!(out.stderr.contains("refused a record"), "{}", out.stderr);
    assert_eq!(keys(&c), vec!["\"good\"".to_owned()]);
    c.learn("cy", "from cy");
    let out = c.rune(&["gc"]).success();
    assert!(!out.stderr.contains("update-ref -d"), "{}", out.stderr);
    assert!(!reachable(&c, &bad_blob));
    a.rune(&["-q", "sync"]).success();
    assert!(keys(&a).contains(&"\"cy\"".to_owned()), "{:?}", keys(&a));
    c.rune(&["load"]).success();
    c.rune(&["verify"]).success();
}

/// Regression: a sync that skipped the remote's shared memory ref (a newer layout, or not a
/// commit) and pushed this clone's records to its own published ref said "memory already in
/// sync": what went out was measured against the skipped ref's tree, and the summary never
/// named what it skipped.
#[test]
fn a_sync_that_skips_a_remote_ref_says_what_went_out_and_what_was_skipped() {
    let remote = Remote::new();
    let (a, b) = two_clones(&remote);
    a.learn("a", "from ada");
    a.rune(&["-q", "sync"]).success();
    b.rune(&["-q", "sync"]).success();
    let m = mallory(&remote);
    let version = m.git_stdin(&["hash-object", "-w", "--stdin"], "git-rune records 3\n");
    let tree = m.git_stdin(&["mktree"], &format!("100644 blob {version}\tVERSION\n"));
    let newer = m.git(&["commit-tree", "-p", "refs/rune/memory", "-m", "l3", &tree]);
    m.git(&["push", "-q", "origin", &format!("{newer}:refs/rune/memory")]);
    b.learn("b", "from bob");
    let out = b.rune(&["sync"]).success();
    assert!(out.stderr.contains("newer layout"), "{}", out.stderr);
    assert!(!out.stdout.contains("already in sync"), "{}", out.stdout);
    assert!(
        out.stdout.contains("origin: went out: 1 learning"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("origin: skipped refs/rune/memory"),
        "{}",
        out.stdout
    );
    // It did go out, through Bob's own ref.
    a.rune(&["-q", "sync"]).success();
    assert!(keys(&a).contains(&"\"b\"".to_owned()), "{:?}", keys(&a));
    // Nothing new since: still the skipped ref is named, never "already in sync".
    let out = b.rune(&["sync"]).success();
    assert!(!out.stdout.contains("already in sync"), "{}", out.stdout);
    assert!(
        out.stdout.contains("origin: skipped refs/rune/memory"),
        "{}",
        out.stdout
    );

    // A shared ref that is not a commit at all: skipped, left for repair, named too.
    let blob = m.git_stdin(&["hash-object", "-w", "--stdin"], "not memory\n");
    m.git(&["push", "-q", "origin", &format!("+{blob}:refs/rune/memory")]);
    b.learn("b2", "more from bob");
    let out = b.rune(&["sync"]).success();
    assert!(
        out.stdout.contains("origin: went out: 1 learning"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("origin: skipped refs/rune/memory"),
        "{}",
        out.stdout
    );
}
