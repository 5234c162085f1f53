//! Secrets never enter the refs: every write path refuses them (or redacts with --redact),
//! and no git object holds the secret afterwards.

use std::process::Command;

use crate::common::TestRepo;

/// Built by concatenation so no literal secret sits in the source.
fn aws_key() -> String {
    ["AKIA", "Q3EGRE7K", "HX2WZJ5T"].concat()
}

fn github_token() -> String {
    ["ghp_", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z", "Z"].concat()
}

/// Every object in the repository, contents included.
fn all_objects(repo: &TestRepo) -> String {
    let mut cmd = Command::new("git");
    repo.env(&mut cmd);
    let out = cmd
        .args(["cat-file", "--batch-all-objects", "--batch", "--unordered"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn every_record_command_refuses_a_secret_and_changes_nothing() {
    let repo = TestRepo::new();
    repo.rune(&["init"]).success();
    let key = aws_key();
    let with = |s: &str| format!("use {s} for the bucket");
    let v = with(&key);
    let cases: Vec<Vec<&str>> = vec![
        vec![
            "decide",
            "t",
            "--context",
            &v,
            "--decision",
            "d",
            "--rationale",
            "r",
            "--impact",
            "i",
        ],
        vec!["convention", "t", "--pattern", "p", "--example", &v],
        vec!["learn", "--type", "insight", "--key", "k", "--insight", &v],
        vec![
            "instinct",
            "n",
            "--trigger",
            "t",
            "--action",
            "a",
            "--confidence",
            "0.5",
            "--evidence",
            &v,
        ],
        vec!["progress", "--blocked", &v],
        vec!["checkpoint", "--doing", "x", "--resume", &v],
        vec!["remember", "--section", "Attention Points", &v],
        vec!["save", "-m", &v],
    ];
    // Where each refusal says the secret was: an argument that exists.
    let wheres = [
        "--context",
        "--example",
        "--insight",
        "--evidence",
        "--blocked",
        "--resume",
        "<TEXT>",
        "-m",
    ];
    for (args, place) in cases.into_iter().zip(wheres) {
        let out = repo.rune(&args).failure();
        assert_eq!(out.code, 1, "{args:?}");
        assert!(out.stderr.contains(place), "{args:?}: {}", out.stderr);
        assert!(
            out.stderr
                .contains("refusing to record a secret (aws-access-key)"),
            "{args:?}: {}",
            out.stderr
        );
        assert!(
            !out.stderr.contains(&key),
            "the secret is never echoed: {}",
            out.stderr
        );
        assert_eq!(repo.refs(), "", "{args:?} wrote a ref");
    }
    assert!(!all_objects(&repo).contains(&key));
}

#[test]
fn redact_keeps_the_record_without_the_secret() {
    let repo = TestRepo::new();
    let key = aws_key();
    let out = repo
        .rune(&[
            "learn",
            "--redact",
            "--type",
            "insight",
            "--key",
            "s3",
            "--insight",
            &format!("the key {key} is in CI"),
        ])
        .success();
    assert!(
        out.stderr
            .contains("redacted a secret (aws-access-key) in --insight"),
        "{}",
        out.stderr
    );
    let show = repo.rune(&["show", "learnings", "--json"]).success().stdout;
    assert!(
        show.contains("the key AKIA***REDACTED*** is in CI"),
        "{show}"
    );
    assert!(!all_objects(&repo).contains(&key[4..]));
}

#[test]
fn save_refuses_a_secret_in_a_view_edit_with_file_and_line() {
    let repo = TestRepo::new();
    repo.rune(&["init"]).success();
    let token = github_token();
    let path = ".rune/decisions.md";
    let mut text = repo.read(path);
    text.push_str(&format!("\n## Decision: CI token\n**Context:** deploys\n**Decision:** use {token} in the workflow\n"));
    repo.write(path, &text);
    // The entry is refused with its file and line, never blocking the rest of the save;
    // the file is left as written, so the entry is not lost.
    let out = repo.rune(&["save"]).success();
    assert!(
        out.stderr
            .contains("refusing to record a secret (github-token) in .rune/decisions.md:5"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains(&token));
    assert!(!all_objects(&repo).contains(&token[4..]));
    assert_eq!(repo.read(path), text, "the user's text is kept");
    // Until it is saved, every status says so.
    let st = repo.rune(&["status"]).success();
    assert!(
        st.stdout.contains("left entries unsaved") || st.stderr.contains("left entries unsaved"),
        "{}{}",
        st.stdout,
        st.stderr
    );
    // With --redact the record is kept, the view loses the secret, no object has it.
    repo.rune(&["save", "--redact"]).success();
    assert!(!repo.read(path).contains(&token));
    assert!(
        repo.read(path).contains("ghp_***REDACTED***"),
        "{}",
        repo.read(path)
    );
    assert!(!all_objects(&repo).contains(&token[4..]));
}
