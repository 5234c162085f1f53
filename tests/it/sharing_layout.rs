//! The sharing layout (issue 26): each clone publishes its own refs
//! (`refs/rune-clones/<clone>/…`) and reads the union, so a burst of writers never contends on
//! one ref; the shared refs older versions read are kept up to date beside them, so clones of
//! both versions converge; notes of commits no branch reaches expire by `gc`, and no sync brings
//! them back.

use std::process::{Command, Stdio};

use crate::common::{Remote, TestRepo};

fn keys(repo: &TestRepo) -> Vec<String> {
    let out = repo.rune(&["show", "learnings", "--json"]).success().stdout;
    let mut k: Vec<String> = out
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["key"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    k.sort();
    k
}

/// Over `git daemon` on 127.0.0.1, as the issue measured it (benches/burst.rs has the
/// N=16 figures).
#[test]
fn a_burst_of_clones_loses_nothing_and_never_gives_up() {
    let remote = Remote::new();
    let served = remote.serve();
    let first = served.clone("c0");
    first.commit_file("README", "hi\n", "start");
    first.git(&["push", "-q", "origin", "main"]);
    let n = 6;
    let rounds = 2;
    let clones: Vec<TestRepo> = (0..n)
        .map(|i| {
            let c = served.clone(&format!("w{i}"));
            c.rune(&["-q", "init", "--hooks"]).success();
            // A push whose memory gave up fails, so the burst sees it.
            c.git(&["config", "rune.strictPush", "true"]);
            c
        })
        .collect();
    let mut workers = Vec::new();
    for (i, c) in clones.iter().enumerate() {
        let mut script = String::new();
        for r in 0..rounds {
            script.push_str(&format!(
                "git rune -q learn --type insight --key w{i}r{r} --insight x && echo {r} > f{i}{r} && git add . && git commit -q -m w{i}r{r} && git push -q origin HEAD:refs/heads/w{i} || exit 1\n"
            ));
        }
        let mut cmd = Command::new("sh");
        c.env(&mut cmd);
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
    // Right after the burst, a fresh clone finds every record and every note.
    let check = served.clone("check");
    check.rune(&["-q", "init"]).success();
    assert_eq!(keys(&check).len(), n * rounds);
    let listed = |r: &TestRepo| -> std::collections::BTreeSet<String> {
        r.git(&["notes", "--ref=rune", "list"])
            .lines()
            .filter_map(|l| l.split_whitespace().nth(1).map(str::to_owned))
            .collect()
    };
    let on_remote = listed(&check);
    for c in &clones {
        for note in listed(c) {
            assert!(on_remote.contains(&note), "a note is missing on the remote");
        }
    }
    // Each clone published under its own name.
    let published = remote.git(&["for-each-ref", "--format=%(refname)", "refs/rune-clones/"]);
    assert_eq!(
        published.lines().filter(|r| r.ends_with("/memory")).count(),
        n,
        "{published}"
    );
    // After one more round of syncs everyone holds the same tree.
    for c in &clones {
        c.rune(&["-q", "sync"]).success();
    }
    for c in &clones {
        c.rune(&["-q", "sync"]).success();
    }
    let tree = |r: &TestRepo| r.git(&["rev-parse", "refs/rune/memory^{tree}"]);
    for c in &clones {
        assert_eq!(tree(c), tree(&clones[0]));
    }
}

#[test]
fn a_clone_of_an_older_version_and_a_new_one_converge() {
    let remote = Remote::new();
    // The older clone shares through refs/rune/memory alone, as earlier versions did.
    let old = remote.clone("old");
    old.commit_file("README", "hi\n", "start");
    old.git(&["push", "-q", "origin", "main"]);
    old.learn("from-old", "written by the older version");
    old.git(&["push", "-q", "origin", "refs/rune/memory:refs/rune/memory"]);
    // A new clone reads it and publishes its own records both ways.
    let new = remote.clone("new");
    new.rune(&["-q", "init"]).success();
    assert_eq!(keys(&new), vec!["from-old"]);
    new.learn("from-new", "written by this version");
    new.rune(&["-q", "sync"]).success();
    // What the older version reads (refs/rune/memory) now holds both, as one tree.
    old.git(&["fetch", "-q", "origin", "refs/rune/memory:refs/rune/memory"]);
    assert_eq!(keys(&old), vec!["from-new", "from-old"]);
    assert_eq!(
        old.git(&["rev-parse", "refs/rune/memory^{tree}"]),
        new.git(&["rev-parse", "refs/rune/memory^{tree}"])
    );
    // The older clone adds more the way it always did: the new one merges it.
    old.learn("old-again", "more from the older version");
    old.git(&["push", "-q", "origin", "refs/rune/memory:refs/rune/memory"]);
    new.rune(&["-q", "sync"]).success();
    assert_eq!(keys(&new), vec!["from-new", "from-old", "old-again"]);
}

#[test]
fn notes_of_commits_no_branch_reaches_expire_and_stay_expired() {
    let remote = Remote::new();
    let a = remote.clone("ada");
    a.commit_file("README", "hi\n", "start");
    a.git(&["push", "-q", "origin", "main"]);
    a.rune(&["-q", "init", "--hooks"]).success();
    let b = remote.clone("bob");
    b.rune(&["-q", "init"]).success();
    // A commit noted, shared, then rewritten away (amend) and never pushed again.
    a.learn("k", "v");
    let gone = a.commit_file("f", "1\n", "first try");
    a.git(&["push", "-q", "origin", "main"]);
    a.git(&["commit", "-q", "--amend", "-m", "second try"]);
    let kept = a.git(&["rev-parse", "HEAD"]);
    a.git(&["push", "-q", "-f", "origin", "main"]);
    b.rune(&["-q", "sync"]).success();
    let has_note = |r: &TestRepo, c: &str| {
        r.git(&["notes", "--ref=rune", "list"])
            .lines()
            .any(|l| l.ends_with(c))
    };
    assert!(has_note(&b, &gone));
    // gc expires it (the amended commit is on no branch) and keeps the one main reaches.
    let out = a.rune(&["gc"]).success().stdout;
    assert!(out.contains("expired 1 note"), "{out}");
    assert!(!has_note(&a, &gone));
    assert!(has_note(&a, &kept));
    // Bob still publishes it; Ada's next sync does not take it back.
    b.rune(&["-q", "sync"]).success();
    a.rune(&["-q", "sync"]).success();
    assert!(!has_note(&a, &gone), "a sync brought an expired note back");
    assert!(has_note(&a, &kept));
}
