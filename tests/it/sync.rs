//! Memory that travels: `git rune sync` between clones of one remote, over `file://` and
//! `git daemon` started by the tests, converging to identical trees whatever the order, and
//! losing nothing in the failure cases.

use std::process::{Child, Command, Stdio};

use crate::common::{json_lines, learn_args, Remote, TestRepo};

fn tree(repo: &TestRepo, name: &str) -> String {
    repo.git(&["rev-parse", &format!("{name}^{{tree}}")])
}

fn learnings(repo: &TestRepo) -> Vec<String> {
    let mut keys: Vec<String> =
        json_lines(&repo.rune(&["show", "learnings", "--json"]).success().stdout)
            .iter()
            .map(|l| {
                format!(
                    "{}={}",
                    l["key"].as_str().unwrap(),
                    l["insight"].as_str().unwrap()
                )
            })
            .collect();
    keys.sort();
    keys
}

fn sync(repo: &TestRepo) -> String {
    repo.rune(&["sync"]).success().stdout
}

/// Two clones with a first commit on the remote.
fn two_clones(remote: &Remote) -> (TestRepo, TestRepo) {
    let a = remote.clone("ada");
    a.commit_file("README", "hi\n", "start");
    a.git(&["push", "-q", "origin", "main"]);
    let b = remote.clone("bob");
    (a, b)
}

#[test]
fn two_clones_share_memory_and_converge() {
    let remote = Remote::new();
    let (a, b) = two_clones(&remote);
    a.learn("a1", "from ada");
    a.rune(&[
        "decide",
        "Use Postgres",
        "--context",
        "c",
        "--decision",
        "d",
        "--rationale",
        "r",
        "--impact",
        "i",
    ])
    .success();
    let out = sync(&a);
    assert_eq!(out, "origin: went out: 1 decision, 1 learning\n");
    b.learn("b1", "from bob");
    let out = sync(&b);
    assert!(
        out.contains("origin: came in: 1 decision, 1 learning"),
        "{out}"
    );
    assert!(out.contains("origin: went out: 1 learning"), "{out}");
    assert_eq!(sync(&a), "origin: came in: 1 learning\n");
    assert_eq!(sync(&a), "origin: memory already in sync\n");
    assert_eq!(learnings(&a), learnings(&b));
    assert_eq!(learnings(&a), vec!["a1=from ada", "b1=from bob"]);
    assert_eq!(tree(&a, "refs/rune/memory"), tree(&b, "refs/rune/memory"));
    assert_eq!(
        remote.git(&["rev-parse", "refs/rune/memory^{tree}"]),
        tree(&a, "refs/rune/memory")
    );
    // The view shows what came in.
    assert!(a.read(".rune/learnings.jsonl").contains("from bob"));
    // The remote's tracking refs live outside refs/rune/.
    assert!(a
        .git(&["for-each-ref", "refs/rune-remotes/"])
        .contains("refs/rune-remotes/origin/rune/memory"));
    let json = a.rune(&["sync", "--json"]).success().stdout;
    let v: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    assert_eq!(v["version"], 1);
    assert_eq!(v["remote"], "origin");
}

#[test]
fn three_clones_converge_whatever_the_order() {
    let remote = Remote::new();
    let (a, b) = two_clones(&remote);
    let c = remote.clone("cy");
    for (i, repo) in [&a, &b, &c].iter().enumerate() {
        for j in 0..3 {
            repo.learn(&format!("k{i}{j}"), &format!("v{i}{j}"));
        }
        // A key all three edit concurrently: one winner everywhere.
        repo.learn("shared", &format!("from clone {i}"));
    }
    for repo in [&c, &a, &b, &c, &a] {
        repo.rune(&["-q", "sync"]).success();
    }
    let t = tree(&a, "refs/rune/memory");
    assert_eq!(t, tree(&b, "refs/rune/memory"));
    assert_eq!(t, tree(&c, "refs/rune/memory"));
    assert_eq!(learnings(&a).len(), 10);
    assert_eq!(learnings(&a), learnings(&c));
    // The outvoted edits stay in history, visible with --all.
    let all = json_lines(
        &a.rune(&["show", "learnings", "--all", "--json"])
            .success()
            .stdout,
    );
    let shared: Vec<&serde_json::Value> = all.iter().filter(|l| l["key"] == "shared").collect();
    assert_eq!(shared.len(), 3);
    assert_eq!(shared.iter().filter(|l| l["status"] == "live").count(), 1);
    assert_eq!(
        shared.iter().filter(|l| l["status"] == "outvoted").count(),
        2
    );
}

#[test]
fn notes_of_the_same_commit_are_joined_not_lost() {
    let remote = Remote::new();
    let (a, b) = two_clones(&remote);
    a.rune(&["-q", "init", "--hooks"]).success();
    b.rune(&["-q", "init", "--hooks"]).success();
    let base = a.git(&["rev-parse", "HEAD"]);
    a.git(&[
        "notes",
        "--ref=rune",
        "add",
        "-f",
        "-m",
        "rune: from ada\n\nRune-Memory: aaaa\nada's line",
        &base,
    ]);
    b.git(&[
        "notes",
        "--ref=rune",
        "add",
        "-f",
        "-m",
        "rune: from bob\n\nRune-Memory: bbbb\nbob's line",
        &base,
    ]);
    sync(&a);
    sync(&b);
    sync(&a);
    let na = a.git(&["notes", "--ref=rune", "show", &base]);
    let nb = b.git(&["notes", "--ref=rune", "show", &base]);
    assert_eq!(na, nb);
    for line in [
        "Rune-Memory: aaaa",
        "Rune-Memory: bbbb",
        "ada's line",
        "bob's line",
    ] {
        assert!(na.contains(line), "{na}");
    }
    assert_eq!(na.matches("Rune-Memory: aaaa").count(), 1);
}

#[test]
fn a_fresh_clone_brings_memory_in_with_init_and_a_plain_fetch_is_merged() {
    let remote = Remote::new();
    let (a, _) = two_clones(&remote);
    a.learn("k", "shared knowledge");
    sync(&a);
    let fresh = remote.clone("cy");
    let out = fresh.rune(&["init"]).success().stdout;
    assert!(
        out.contains("brought in 1 memory record from origin"),
        "{out}"
    );
    assert!(fresh
        .rune(&["load"])
        .success()
        .stdout
        .contains("shared knowledge"));
    // init added fetch refspecs: a plain `git fetch` brings new memory, and the next
    // command merges it.
    a.learn("k2", "fetched by git");
    sync(&a);
    fresh.git(&["fetch", "-q"]);
    let out = fresh.rune(&["show", "learnings", "--json"]).success();
    assert!(out.stdout.contains("fetched by git"), "{}", out.stdout);
    assert!(
        out.stderr
            .contains("merged memory `git fetch` brought from origin: 1 learning new"),
        "{}",
        out.stderr
    );
    // No push refspec was added.
    let config = fresh.git_output(&["config", "--get-all", "remote.origin.push"]);
    assert!(config.stdout.is_empty());
}

#[test]
fn an_unreachable_remote_changes_nothing_and_a_later_sync_works() {
    let remote = Remote::new();
    let (a, _) = two_clones(&remote);
    a.learn("k", "v");
    let before = a.refs();
    a.git(&[
        "remote",
        "set-url",
        "origin",
        "file:///nonexistent/remote.git",
    ]);
    let out = a.rune(&["sync"]).failure();
    assert!(
        out.stderr.contains("cannot fetch memory from origin"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("nothing here was changed"),
        "{}",
        out.stderr
    );
    assert_eq!(a.refs(), before);
    a.git(&["remote", "set-url", "origin", &remote.url()]);
    assert!(sync(&a).contains("went out: 1 learning"));
}

#[test]
fn a_remote_without_memory_receives_it() {
    let remote = Remote::new();
    let (a, _) = two_clones(&remote);
    assert_eq!(sync(&a), "origin: memory already in sync\n");
    a.learn("k", "v");
    assert_eq!(sync(&a), "origin: went out: 1 learning\n");
    assert_eq!(
        remote.git(&["rev-parse", "refs/rune/memory"]),
        a.git(&["rev-parse", "refs/rune/memory"])
    );
}

#[test]
fn a_delete_on_one_side_and_an_edit_on_the_other_follow_the_clock() {
    let remote = Remote::new();
    let (a, b) = two_clones(&remote);
    a.rune(&[
        "decide",
        "Cache",
        "--context",
        "c",
        "--decision",
        "redis",
        "--rationale",
        "r",
        "--impact",
        "i",
    ])
    .success();
    sync(&a);
    sync(&b);
    // Ada deletes it in her view; Bob edits it in his (both from the same clock).
    a.write(".rune/decisions.md", "# Decisions\n");
    a.rune(&["-q", "save", "--allow-delete"]).success();
    let text = b.read(".rune/decisions.md").replace("redis", "memcached");
    b.write(".rune/decisions.md", &text);
    b.rune(&["-q", "save"]).success();
    sync(&a);
    sync(&b);
    sync(&a);
    // The tombstone and the edit carry the same Lamport clock: the tombstone wins over an
    // edit no newer than itself (docs/storage.md), on both clones.
    let show = |r: &TestRepo| r.rune(&["show", "decisions", "--json"]).success().stdout;
    assert_eq!(show(&a), show(&b));
    assert_eq!(show(&a), "");
    // An edit made after the tombstone was seen resurrects it.
    b.rune(&[
        "decide",
        "Cache",
        "--context",
        "c",
        "--decision",
        "valkey",
        "--rationale",
        "r",
        "--impact",
        "i",
    ])
    .success();
    sync(&b);
    sync(&a);
    assert!(show(&a).contains("valkey"));
}

#[test]
fn a_record_that_fails_the_seal_is_refused_and_the_rest_merges() {
    let remote = Remote::new();
    let (a, b) = two_clones(&remote);
    a.learn("good", "fine");
    sync(&a);
    // Tamper with the remote's memory: a line whose id does not match its content.
    let c = remote.clone("mallory");
    c.git(&["fetch", "-q", "origin", "refs/rune/*:refs/rune/*"]);
    let blob = c.git(&["rev-parse", "refs/rune/memory:learning/all.jsonl"]);
    let text = c.git(&["cat-file", "-p", &blob]);
    let forged = format!(
        "{text}\n{}",
        text.replace("fine", "forged")
            .replace("\"good\"", "\"evil\"")
    );
    let new_blob = c.git_stdin(&["hash-object", "-w", "--stdin"], &format!("{forged}\n"));
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
        "tampered",
        &tree,
    ]);
    c.git(&[
        "push",
        "-q",
        "origin",
        &format!("{commit}:refs/rune/memory"),
    ]);
    b.learn("bob", "his own");
    let out = b.rune(&["sync"]).success();
    assert!(
        out.stderr.contains("refused a record from origin"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("not the hash of its content"),
        "{}",
        out.stderr
    );
    let keys = learnings(&b);
    assert!(keys.contains(&"good=fine".to_owned()), "{keys:?}");
    assert!(!keys.iter().any(|k| k.starts_with("evil")), "{keys:?}");
    assert!(b.rune(&["verify"]).success().stdout.contains("CLEAN"));
}

#[test]
fn a_server_hook_refusing_memory_is_quoted() {
    let remote = Remote::new();
    let (a, _) = two_clones(&remote);
    let hook = remote.path.join("hooks/pre-receive");
    std::fs::write(
        &hook,
        "#!/bin/sh\necho 'memory is not welcome here' >&2\nexit 1\n",
    )
    .unwrap();
    crate::common::make_executable(&hook);
    a.learn("k", "v");
    let before = a.refs();
    let out = a.rune(&["sync"]).failure();
    assert!(
        out.stderr.contains("origin refused refs/rune/memory"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("the remote said: memory is not welcome here"),
        "{}",
        out.stderr
    );
    assert_eq!(
        a.refs()
            .lines()
            .filter(|l| l.starts_with("refs/rune/memory"))
            .count(),
        1
    );
    assert!(a.refs().contains(before.lines().next().unwrap()));
}

#[test]
fn gc_compacts_and_other_clones_keep_their_unsynced_records() {
    let remote = Remote::new();
    let (a, b) = two_clones(&remote);
    for i in 0..4 {
        a.learn("same", &format!("take {i}"));
    }
    a.learn("other", "kept");
    sync(&a);
    sync(&b);
    b.learn("unsynced", "bob's, made before the compaction reached him");
    let out = a.rune(&["gc"]).success().stdout;
    assert!(out.contains("refs/rune/memory: "), "{out}");
    assert!(out.contains("-> 1 commit, 2 records"), "{out}");
    assert!(
        out.contains("published the compacted history to origin"),
        "{out}"
    );
    assert_eq!(
        remote.git(&["rev-list", "--count", "refs/rune/memory"]),
        "1"
    );
    let out = sync(&b);
    assert!(out.contains("went out: 1 learning"), "{out}");
    // The old history was not pushed back: the remote's memory is the compacted root and
    // Bob's one commit on top.
    assert_eq!(
        remote.git(&["rev-list", "--count", "refs/rune/memory"]),
        "2"
    );
    sync(&a);
    assert_eq!(learnings(&a), learnings(&b));
    assert_eq!(
        learnings(&a),
        vec![
            "other=kept",
            "same=take 3",
            "unsynced=bob's, made before the compaction reached him"
        ]
    );
    assert_eq!(tree(&a, "refs/rune/memory"), tree(&b, "refs/rune/memory"));
    assert!(a.rune(&["verify"]).success().stdout.contains("CLEAN"));
}

/// Regression: a `gc` whose publish the remote refused said only "memory was not pushed",
/// though the history here was already compacted. It says so now (nothing is lost, and a
/// later sync publishes it), with the remote's reason and the documented exit code; the
/// remote's refs stay as they were, and once it takes memory again a sync publishes.
#[test]
fn a_gc_whose_publish_is_refused_says_the_history_here_was_compacted() {
    let remote = Remote::new();
    let (a, _) = two_clones(&remote);
    for i in 0..3 {
        a.learn("same", &format!("take {i}"));
    }
    sync(&a);
    let remote_refs = remote.git(&["for-each-ref"]);
    let hook = remote.path.join("hooks/pre-receive");
    std::fs::write(
        &hook,
        "#!/bin/sh\necho 'memory is read-only here' >&2\nexit 1\n",
    )
    .unwrap();
    crate::common::make_executable(&hook);
    let out = a.rune(&["gc"]);
    assert_eq!(out.code, 69, "{}", out.snapshot());
    assert!(
        out.stdout
            .contains("refs/rune/memory: 3 commits, 3 records -> 1 commit, 1 records"),
        "{}",
        out.snapshot()
    );
    assert!(
        out.stderr.contains(
            "memory history here was compacted (nothing is lost), but it was not published to origin"
        ),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("`git rune sync origin` publishes it"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("the remote said: memory is read-only here"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("hint: "), "{}", out.stderr);
    assert_eq!(remote.git(&["for-each-ref"]), remote_refs);
    assert_eq!(a.git(&["rev-list", "--count", "refs/rune/memory"]), "1");
    // The remote takes memory again: a sync publishes the compacted history.
    std::fs::remove_file(&hook).unwrap();
    a.rune(&["-q", "sync"]).success();
    assert_eq!(
        remote.git(&["rev-parse", "refs/rune/memory"]),
        a.git(&["rev-parse", "refs/rune/memory"])
    );
    assert_eq!(learnings(&a), vec!["same=take 2"]);
}

/// A remote whose memory refs move under every push (its update hook writes a new commit on
/// top of the ref being pushed while the push is in flight): `sync` and `gc`'s publish merge what came in,
/// give up after their rounds, and exit 75 (run again), where `gc` exited 0. The history `gc`
/// compacted here stands either way, and nothing is lost.
#[test]
fn a_remote_that_keeps_moving_makes_sync_and_gc_exit_75() {
    let remote = Remote::new();
    let (a, _) = two_clones(&remote);
    for i in 0..3 {
        a.learn("same", &format!("take {i}"));
    }
    sync(&a);
    let hook = remote.path.join("hooks/update");
    std::fs::write(
        &hook,
        "#!/bin/sh\ncur=$(git rev-parse -q --verify \"$1\") || exit 0\n\
         export GIT_AUTHOR_NAME=r GIT_AUTHOR_EMAIL=r@x GIT_COMMITTER_NAME=r GIT_COMMITTER_EMAIL=r@x\n\
         c=$(git commit-tree \"$cur^{tree}\" -p \"$cur\" -m moved)\n\
         git update-ref \"$1\" \"$c\" \"$cur\"\n",
    )
    .unwrap();
    crate::common::make_executable(&hook);
    a.learn("more", "one more");
    let out = a.rune(&["sync"]);
    assert_eq!(out.code, 75, "{}", out.snapshot());
    assert!(out.stderr.contains("origin kept moving"), "{}", out.stderr);
    let out = a.rune(&["gc"]);
    assert_eq!(out.code, 75, "{}", out.snapshot());
    assert!(
        out.stdout.contains("refs/rune/memory: ")
            && out.stderr.contains("origin kept moving")
            && out.stderr.contains("refs/rune/memory: merging origin's memory, written to meanwhile on top of the old history, brought that history back here"),
        "{}",
        out.snapshot()
    );
    assert_eq!(learnings(&a), vec!["more=one more", "same=take 2"]);
    std::fs::remove_file(&hook).unwrap();
    a.rune(&["-q", "sync"]).success();
    assert_eq!(
        remote.git(&["rev-parse", "refs/rune/memory"]),
        a.git(&["rev-parse", "refs/rune/memory"])
    );
}

/// `receive.denyNonFastForwards` and `receive.denyDeletes` guard only branches
/// (`refs/heads/`): a bare remote with both set takes a compacted memory history like any
/// other, and the clones converge.
#[test]
fn gc_publishes_to_a_remote_that_denies_non_fast_forwards_of_branches() {
    let remote = Remote::new();
    remote.git(&["config", "receive.denyNonFastForwards", "true"]);
    remote.git(&["config", "receive.denyDeletes", "true"]);
    let (a, b) = two_clones(&remote);
    for i in 0..3 {
        a.learn("same", &format!("take {i}"));
    }
    sync(&a);
    sync(&b);
    b.learn("bob", "unsynced");
    let out = a.rune(&["gc"]).success();
    assert!(
        out.stdout
            .contains("published the compacted history to origin"),
        "{}",
        out.snapshot()
    );
    assert_eq!(
        remote.git(&["rev-list", "--count", "refs/rune/memory"]),
        "1"
    );
    sync(&b);
    sync(&a);
    assert_eq!(learnings(&a), vec!["bob=unsynced", "same=take 2"]);
    assert_eq!(tree(&a, "refs/rune/memory"), tree(&b, "refs/rune/memory"));
}

/// An update hook taking only fast-forwards, and no deletions, on every ref (as a server's
/// push rules may).
const FAST_FORWARDS_ONLY: &str = "#!/bin/sh
zero=0000000000000000000000000000000000000000
if [ \"$3\" = \"$zero\" ]; then echo \"deleting $1 is not allowed\" >&2; exit 1; fi
if [ \"$2\" != \"$zero\" ] && ! git merge-base --is-ancestor \"$2\" \"$3\"; then
  echo \"only fast-forwards to $1\" >&2; exit 1
fi
";

/// Regression: against a remote that takes only fast-forwards, `gc` compacted the history
/// here, failed to publish it ("ask its administrator to allow refs/rune/*"), and every
/// later `sync` failed the same way: this clone's memory never left again. The compacted
/// history is joined onto the remote's instead (nothing either side holds is dropped), `gc`
/// says the remote keeps its history and what would let it compact there, and syncs go on.
#[test]
fn gc_against_a_remote_that_takes_only_fast_forwards_loses_nothing_and_syncs_go_on() {
    let remote = Remote::new();
    let (a, b) = two_clones(&remote);
    for i in 0..3 {
        a.learn("same", &format!("take {i}"));
    }
    sync(&a);
    sync(&b);
    let hook = remote.path.join("hooks/update");
    std::fs::write(&hook, FAST_FORWARDS_ONLY).unwrap();
    crate::common::make_executable(&hook);
    b.learn("bob", "unsynced");
    let before = remote.git(&["rev-parse", "refs/rune/memory"]);
    let out = a.rune(&["gc"]).success();
    assert!(
        out.stderr
            .contains("origin does not let memory history be replaced"),
        "{}",
        out.snapshot()
    );
    assert!(
        out.stderr.contains("only fast-forwards to"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("allow non-fast-forward pushes to refs/rune/*"),
        "{}",
        out.stderr
    );
    assert!(
        !out.stdout.contains("published the compacted"),
        "{}",
        out.stdout
    );
    // The remote kept its history: the old tip is an ancestor of the new one.
    let after = remote.git(&["rev-parse", "refs/rune/memory"]);
    assert_ne!(after, before);
    let ancestor = std::process::Command::new("git")
        .arg("--git-dir")
        .arg(&remote.path)
        .args(["merge-base", "--is-ancestor", &before, &after])
        .status()
        .unwrap();
    assert!(ancestor.success());
    // Syncs go on both ways, and the clones converge with every record.
    a.learn("ada", "after the gc");
    let out = sync(&a);
    assert!(out.contains("went out: 1 learning"), "{out}");
    sync(&b);
    sync(&a);
    assert_eq!(
        learnings(&a),
        vec!["ada=after the gc", "bob=unsynced", "same=take 2"]
    );
    assert_eq!(learnings(&a), learnings(&b));
    assert_eq!(tree(&a, "refs/rune/memory"), tree(&b, "refs/rune/memory"));
    assert!(a.rune(&["verify"]).success().stdout.contains("CLEAN"));
    // A history compacted here alone (after a sync that took in every clone's refs) is
    // joined the same way by the next sync, which says so.
    sync(&b);
    b.learn("bob", "again");
    b.rune(&["-q", "gc", "--local"]).success();
    let out = b.rune(&["sync"]).success();
    assert!(
        out.stderr
            .contains("origin does not let the history of refs/rune-clones/"),
        "{}",
        out.stderr
    );
    sync(&a);
    assert_eq!(learnings(&a), learnings(&b));
}

/// Regression: a `gc` in a clone whose history had moved onto another clone's compacted
/// history printed its compaction, then its own publish moved it back onto the remote's
/// history (taken for the newer compaction), so nothing was compacted or published.
#[test]
fn a_gc_after_another_clones_gc_is_published_not_undone() {
    let remote = Remote::new();
    let (a, b) = two_clones(&remote);
    for i in 0..3 {
        a.learn("same", &format!("a {i}"));
    }
    sync(&a);
    a.rune(&["-q", "gc"]).success();
    sync(&b);
    for i in 0..2 {
        b.learn("bob", &format!("b {i}"));
    }
    sync(&b);
    let out = b.rune(&["gc"]).success();
    assert!(
        out.stdout.contains("-> 1 commit, 2 records"),
        "{}",
        out.snapshot()
    );
    assert!(
        out.stdout
            .contains("published the compacted history to origin"),
        "{}",
        out.snapshot()
    );
    assert_eq!(b.git(&["rev-list", "--count", "refs/rune/memory"]), "1");
    assert_eq!(
        remote.git(&["rev-list", "--count", "refs/rune/memory"]),
        "1"
    );
    a.learn("ada", "unsynced");
    sync(&a);
    sync(&b);
    assert_eq!(learnings(&a), vec!["ada=unsynced", "bob=b 1", "same=a 2"]);
    assert_eq!(learnings(&a), learnings(&b));
    assert_eq!(tree(&a, "refs/rune/memory"), tree(&b, "refs/rune/memory"));
}

#[test]
fn two_syncs_at_once_and_a_killed_sync_lose_nothing() {
    let remote = Remote::new();
    let (a, b) = two_clones(&remote);
    a.learn("a", "1");
    b.learn("b", "1");
    // Two syncs of the same clone at once.
    let spawn = |repo: &TestRepo| -> Child {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_git-rune"));
        repo.env(&mut cmd);
        cmd.args(["-q", "sync"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        cmd.spawn().unwrap()
    };
    let (x, y) = (spawn(&a), spawn(&a));
    for c in [x, y] {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // A sync killed at once, then again.
    let mut killed = spawn(&b);
    std::thread::sleep(std::time::Duration::from_millis(15));
    let _ = killed.kill();
    let _ = killed.wait();
    sync(&b);
    sync(&a);
    assert_eq!(learnings(&a), vec!["a=1", "b=1"]);
    assert_eq!(learnings(&a), learnings(&b));
    assert!(b.rune(&["verify"]).success().stdout.contains("CLEAN"));
}

/// 8 processes across 2 clones, each recording and syncing in a loop: every record written
/// is in both clones at the end, and the trees agree.
#[test]
fn eight_writers_across_two_clones_lose_nothing() {
    let remote = Remote::new();
    let (a, b) = two_clones(&remote);
    let rounds = 4;
    let mut workers = Vec::new();
    for w in 0..8 {
        let repo = if w % 2 == 0 { &a } else { &b };
        let mut script = String::new();
        for r in 0..rounds {
            script.push_str(&format!(
                "git rune -q learn --type insight --key w{w}r{r} --insight x && git rune -q sync || exit 1\n"
            ));
        }
        let mut cmd = Command::new("sh");
        repo.env(&mut cmd);
        cmd.args(["-c", &script])
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        workers.push(cmd.spawn().unwrap());
    }
    for w in workers {
        let out = w.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    sync(&a);
    sync(&b);
    sync(&a);
    assert_eq!(learnings(&a).len(), 8 * rounds);
    assert_eq!(learnings(&a), learnings(&b));
    assert_eq!(tree(&a, "refs/rune/memory"), tree(&b, "refs/rune/memory"));
}

#[test]
fn trusted_authors_mark_everyone_else_suspicious() {
    let remote = Remote::new();
    let (a, b) = two_clones(&remote);
    b.learn("theirs", "from bob");
    sync(&b);
    sync(&a);
    a.learn("mine", "from ada");
    a.git(&["config", "rune.trustedAuthors", "ada@example.com"]);
    let load = a.rune(&["load", "--authors"]).success().stdout;
    assert!(load.contains("[SUSPICIOUS: untrusted-author]"), "{load}");
    assert!(
        load.contains("- [SUSPICIOUS: untrusted-author] [insight] theirs: from bob"),
        "{load}"
    );
    assert!(load.contains("(by bob <bob@example.com>)"), "{load}");
    let mine = load.lines().find(|l| l.contains("from ada")).unwrap();
    assert!(!mine.contains("SUSPICIOUS"), "{mine}");
    let json = a.rune(&["load", "--json"]).success().stdout;
    let v: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    let theirs = v["learnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["key"] == "theirs")
        .unwrap();
    assert_eq!(theirs["author"], "bob <bob@example.com>");
    assert_eq!(theirs["integrity"]["rules"][0], "untrusted-author");
}

/// A real network transport: `git daemon` on 127.0.0.1 with receive-pack, started and
/// stopped by the test.
#[test]
fn sync_over_git_daemon() {
    let remote = Remote::new();
    let base = remote.path.parent().unwrap().to_path_buf();
    let port = free_port();
    let mut daemon = Command::new("git")
        .args([
            "daemon",
            "--reuseaddr",
            "--listen=127.0.0.1",
            &format!("--port={port}"),
            "--export-all",
            "--enable=receive-pack",
            &format!("--base-path={}", base.display()),
        ])
        .arg(&base)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("git daemon");
    let _stop = KillOnDrop(&mut daemon);
    let url = format!("git://127.0.0.1:{port}/remote.git");
    // Wait for the daemon to listen.
    let ready = (0..100).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(30));
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    });
    assert!(ready, "git daemon did not start");
    let clone = |name: &str| {
        let repo = TestRepo::empty_dir();
        repo.git(&["init", "-q", "-b", "main"]);
        repo.git(&["config", "user.name", name]);
        repo.git(&["config", "user.email", &format!("{name}@example.com")]);
        repo.git(&["remote", "add", "origin", &url]);
        repo
    };
    let a = clone("ada");
    let b = clone("bob");
    a.rune(&learn_args("a", "over the wire", &[])).success();
    b.rune(&learn_args("b", "over the wire too", &[])).success();
    assert!(sync(&a).contains("went out: 1 learning"));
    let out = sync(&b);
    assert!(
        out.contains("came in: 1 learning") && out.contains("went out: 1 learning"),
        "{out}"
    );
    sync(&a);
    assert_eq!(learnings(&a), learnings(&b));
    assert_eq!(tree(&a, "refs/rune/memory"), tree(&b, "refs/rune/memory"));
}

struct KillOnDrop<'a>(&'a mut Child);

impl Drop for KillOnDrop<'_> {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}
