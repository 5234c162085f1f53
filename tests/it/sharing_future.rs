//! Forward compatibility (issue 26), two versions against one remote: records a newer
//! git-rune would write (a kind this build does not know, a known kind with a field it does
//! not know), crafted here with their ids computed as every build computes them, survive this
//! build's merges, writes, sync and gc byte for byte, in its own tips and on the remote, and
//! never make a command fail.

use std::process::Command;

use sha2::{Digest, Sha256};

use crate::common::{Remote, TestRepo};

/// A stored line: `rest` is the content after the id (without its opening brace); the id is
/// the sha256 of `{` + rest.
fn line(rest: &str) -> String {
    let id: String = Sha256::digest(format!("{{{rest}").as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("{{\"id\":\"{id}\",{rest}")
}

const META: &str =
    r#""ts":"2026-01-01T00:00:00Z","clock":90,"author":"Future <future@example.com>""#;

/// Commits onto `refs/rune/memory` of `repo` (and pushes to its origin) a tree holding what it
/// had plus `files` (path, text), as a newer build would write them.
fn write_as_newer_build(repo: &TestRepo, files: &[(&str, String)]) {
    let index = repo.root.join(".git/newer-index");
    let git = |args: &[&str]| {
        let mut cmd = Command::new("git");
        repo.env(&mut cmd);
        let out = cmd
            .env("GIT_INDEX_FILE", &index)
            .args(args)
            .output()
            .expect("git");
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    git(&["read-tree", "refs/rune/memory"]);
    for (path, text) in files {
        let blob = repo.git_stdin(&["hash-object", "-w", "--stdin"], &format!("{text}\n"));
        git(&[
            "update-index",
            "--add",
            "--cacheinfo",
            &format!("100644,{blob},{path}"),
        ]);
    }
    let tree = git(&["write-tree"]);
    let commit = repo.git(&[
        "commit-tree",
        "-p",
        "refs/rune/memory",
        "-m",
        "written by a newer git-rune\n\nRune-Records: 2 records\nRune-Clock: 90",
        &tree,
    ]);
    repo.git(&["update-ref", "refs/rune/memory", &commit]);
    repo.git(&["push", "-q", "origin", "refs/rune/memory:refs/rune/memory"]);
}

#[test]
fn records_from_a_newer_build_survive_an_older_clone_in_both_directions() {
    let remote = Remote::new();
    let newer = remote.clone("newer");
    newer.commit_file("README", "hi\n", "start");
    newer.git(&["push", "-q", "origin", "main"]);
    newer.learn("base", "written by both");
    newer.git(&["push", "-q", "origin", "refs/rune/memory:refs/rune/memory"]);
    let widget = line(&format!(
        r#"{META},"kind":"widget","size":3,"label":"gizmo"}}"#
    ));
    let decision = line(&format!(
        r#"{META},"kind":"decision","title":"Use Postgres","context":"c","decision":"Postgres 16","rationale":"r","impact":"i","status":"accepted"}}"#
    ));
    // A known kind whose fields no longer decode here (a learning type added later).
    let pattern = line(&format!(
        r#"{META},"kind":"learning","type":"pattern","key":"retry","insight":"back off","confidence":0.7}}"#
    ));
    write_as_newer_build(
        &newer,
        &[
            ("widget/all.jsonl", widget.clone()),
            ("decision/all.jsonl", decision.clone()),
            ("learning/f.jsonl", pattern.clone()),
        ],
    );

    // The older clone (this build), with memory of its own, merges, writes and syncs.
    let old = remote.clone("old");
    let out = old.rune(&["init"]).success();
    assert!(out.stdout.contains("brought in"), "{}", out.stdout);
    assert!(!out.stderr.contains("refused"), "{}", out.stderr);
    old.learn("mine", "an older clone's own");
    let out = old.rune(&["sync"]).success();
    assert!(!out.stderr.contains("refused"), "{}", out.stderr);
    for args in [
        vec!["load"],
        vec!["status"],
        vec!["show", "decisions"],
        vec!["save"],
    ] {
        old.rune(&args).success();
    }
    old.learn("after", "written after the merge");
    // An agent's session starts with that memory.
    let payload = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/claude-code/SessionStart-startup.json"),
    )
    .unwrap()
    .replace("/home/user/project", &old.root.to_string_lossy());
    let start = old
        .rune_stdin(&["agent", "hook", "SessionStart"], payload.as_bytes())
        .success()
        .stdout;
    assert!(start.contains("Use Postgres"), "{start}");
    let shown = old.rune(&["show", "decisions"]).success().stdout;
    assert!(shown.contains("Use Postgres"), "{shown}");
    let all = old.rune(&["show", "decisions", "--all"]).success().stdout;
    assert!(all.contains("(from a newer git-rune)"), "{all}");
    let verify = old.rune(&["verify"]).success().stdout;
    assert!(verify.contains("newer-version"), "{verify}");
    assert!(verify.contains("from a newer git-rune"), "{verify}");
    assert!(verify.contains("CLEAN:"), "{verify}");
    old.rune(&["-q", "sync"]).success();
    old.rune(&["-q", "gc"]).success();
    old.rune(&["-q", "sync"]).success();
    // Byte for byte in the older clone's own tip and on the remote (its own ref and the
    // shared one).
    let clone_refs = remote.git(&["for-each-ref", "--format=%(refname)", "refs/rune-clones/"]);
    let own = clone_refs
        .lines()
        .find(|r| r.ends_with("/memory"))
        .expect("the older clone published its memory")
        .to_owned();
    for (who, rev) in [
        ("old", "refs/rune/memory".to_owned()),
        ("remote", "refs/rune/memory".to_owned()),
        ("remote", own),
    ] {
        let show = |path: &str| match who {
            "old" => old.git(&["show", &format!("{rev}:{path}")]),
            _ => remote.git(&["show", &format!("{rev}:{path}")]),
        };
        assert!(
            show("widget/all.jsonl").lines().any(|l| l == widget),
            "{who} {rev} lost the widget"
        );
        assert!(
            show("decision/all.jsonl").lines().any(|l| l == decision),
            "{who} {rev} lost the decision's new field"
        );
        // Wherever a write put it, the learning of a newer type is there as it was.
        let grep = ["grep", "-h", "-F", "-e", &pattern, &rev];
        let found = match who {
            "old" => old.git(&grep),
            _ => remote.git(&grep),
        };
        assert_eq!(
            found, pattern,
            "{who} {rev} lost the learning of a newer type"
        );
    }

    // The newer clone gets everything back, its own records unchanged.
    newer.git(&["fetch", "-q", "origin", "+refs/rune/*:refs/rune/*"]);
    let text = newer.git(&["show", "refs/rune/memory:widget/all.jsonl"]);
    assert!(text.lines().any(|l| l == widget));
    let found = newer.git(&["grep", "-h", "-F", "-e", &pattern, "refs/rune/memory"]);
    assert_eq!(found, pattern);
    let learnings = newer.git(&["ls-tree", "-r", "--name-only", "refs/rune/memory"]);
    assert!(learnings.contains("learning/"), "{learnings}");
    let all = newer.git(&["log", "-p", "refs/rune/memory"]);
    assert!(all.contains("an older clone's own"));
}

/// `verify` reads each line once, with the blob it is in: 16,000 records in one blob (what a
/// remote or an old layout may hold) took 85 s when it looked each record's blob up again.
#[test]
fn verify_is_linear_in_the_records_of_one_tree() {
    let repo = TestRepo::new();
    repo.commit_file("README", "hi\n", "start");
    let lines = |n: usize| -> String {
        (0..n)
            .map(|i| {
                line(&format!(
                    r#""ts":"2026-01-01T00:00:00Z","clock":{i},"author":"A <a@example.com>","kind":"learning","type":"insight","key":"k{i}","insight":"learned {i}","confidence":0.8}}"#
                ))
            })
            .collect::<Vec<_>>()
            .join("\n")
            + "\n"
    };
    let mut took = Vec::new();
    for n in [2_000, 16_000] {
        let blob = repo.git_stdin(&["hash-object", "-w", "--stdin"], &lines(n));
        let version = repo.git_stdin(&["hash-object", "-w", "--stdin"], "git-rune records 2\n");
        let sub = repo.git_stdin(&["mktree"], &format!("100644 blob {blob}\tall.jsonl\n"));
        let tree = repo.git_stdin(
            &["mktree"],
            &format!("100644 blob {version}\tVERSION\n040000 tree {sub}\tlearning\n"),
        );
        let commit = repo.git(&["commit-tree", "-m", &format!("{n} records"), &tree]);
        repo.git(&["update-ref", "refs/rune/memory", &commit]);
        let start = std::time::Instant::now();
        let out = repo.rune(&["verify"]);
        took.push(start.elapsed().as_secs_f64());
        assert!(
            out.stdout.contains(&format!("{n} records")),
            "{}",
            out.stdout
        );
    }
    eprintln!(
        "verify: 2,000 records {:.2} s, 16,000 {:.2} s",
        took[0], took[1]
    );
    // Linear is 8 times the smaller run (plus a fixed start); quadratic would be 64 times.
    assert!(
        took[1] < 24.0 * took[0] + 2.0,
        "verify took {:.2} s for 2,000 records and {:.2} s for 16,000",
        took[0],
        took[1]
    );
}
