//! What seed 000 asks of memory beyond recording it: stale weak instincts pruned at session
//! start (recorded, so clones agree), learnings compacted to the winner per key and type in
//! the view while history keeps every entry.

use std::process::Command;

use crate::common::{Output, TestRepo};

/// `git-rune` at a given time.
fn rune_at(repo: &TestRepo, ts: &str, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_git-rune"));
    repo.env(&mut cmd);
    cmd.env("GIT_RUNE_TIMESTAMP", ts).args(args);
    Output::of(cmd.output().unwrap())
}

#[test]
fn stale_weak_instincts_are_pruned_when_a_session_starts() {
    let repo = TestRepo::new();
    repo.commit_file("a", "a\n", "init");
    for (name, confidence) in [("weak", "0.3"), ("strong", "0.8")] {
        repo.rune(&[
            "instinct",
            name,
            "--trigger",
            "t",
            "--action",
            "a",
            "--confidence",
            confidence,
            "--evidence",
            "e",
            "-q",
        ])
        .success();
    }
    let out = rune_at(&repo, "2026-01-20T00:00:00Z", &["load"]).success();
    assert!(!out.stderr.contains("pruned"), "{}", out.snapshot());
    let out = rune_at(&repo, "2026-03-01T00:00:00Z", &["load"]).success();
    assert!(
        out.stderr
            .contains("pruned 1 instinct older than 30 days with confidence below 0.5"),
        "{}",
        out.snapshot()
    );
    assert!(
        !out.stdout.contains("weak:") && out.stdout.contains("strong:"),
        "{}",
        out.stdout
    );
    let all = repo
        .rune(&["show", "instincts", "--all", "--json"])
        .success()
        .stdout;
    assert!(
        all.contains("\"weak\"") && all.contains("\"deleted\""),
        "{all}"
    );
    // Nothing left to prune: nothing written.
    let refs = repo.git(&["for-each-ref", "refs/rune/"]);
    let out = rune_at(&repo, "2026-03-02T00:00:00Z", &["load"]).success();
    assert!(!out.stderr.contains("pruned"), "{}", out.snapshot());
    assert_eq!(repo.git(&["for-each-ref", "refs/rune/"]), refs);
}

/// Reads are reads: `load --no-upkeep`, `load --at`, `show`, `status`, `log` and `why` write
/// no memory commit even when upkeep is due; `load` runs it and says so, on stderr and in
/// `--json`'s `wrote`.
#[test]
fn only_load_writes_and_it_says_what_it_wrote() {
    let repo = TestRepo::new();
    repo.commit_file("a", "a\n", "init");
    repo.rune(&[
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
        "-q",
    ])
    .success();
    let refs = repo.git(&["for-each-ref", "refs/rune/", "refs/notes/"]);
    let later = "2026-03-01T00:00:00Z";
    for args in [
        &["load", "--no-upkeep"][..],
        &["load", "--at", "HEAD"],
        &["load", "--no-upkeep", "--json"],
        &["show", "instincts"],
        &["status"],
        &["log"],
        &["why", "HEAD"],
    ] {
        let out = rune_at(&repo, later, args);
        assert!(
            !out.stderr.contains("pruned"),
            "{args:?}: {}",
            out.snapshot()
        );
        assert_eq!(
            repo.git(&["for-each-ref", "refs/rune/", "refs/notes/"]),
            refs,
            "{args:?} wrote"
        );
    }
    let out = rune_at(&repo, later, &["load", "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(out.stdout.trim()).unwrap();
    assert_eq!(v["wrote"]["commits"], 1, "{}", out.stdout);
    assert_eq!(v["wrote"]["pruned_instincts"], 1, "{}", out.stdout);
    assert_ne!(repo.git(&["for-each-ref", "refs/rune/"]), refs);
    // Nothing due any more: `load` writes nothing and says so.
    let refs = repo.git(&["for-each-ref", "refs/rune/", "refs/notes/"]);
    let out = rune_at(&repo, later, &["load", "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(out.stdout.trim()).unwrap();
    assert_eq!(v["wrote"]["commits"], 0, "{}", out.stdout);
    assert_eq!(
        repo.git(&["for-each-ref", "refs/rune/", "refs/notes/"]),
        refs
    );
}

#[test]
fn learnings_compact_in_the_view_and_history_keeps_every_entry() {
    let repo = TestRepo::new();
    let mut jsonl = String::new();
    for i in 0..105 {
        jsonl.push_str(&format!(
            "{{\"ts\":\"2026-01-01T00:{:02}:{:02}Z\",\"type\":\"insight\",\"key\":\"k{}\",\"insight\":\"take {}\",\"confidence\":0.5}}\n",
            i / 60,
            i % 60,
            i % 35,
            i / 35
        ));
    }
    repo.rune(&["init", "-q"]).success();
    repo.write(".rune/learnings.jsonl", &jsonl);
    repo.rune(&["save", "-q"]).success();
    let view = repo.read(".rune/learnings.jsonl");
    assert_eq!(view.lines().count(), 35, "{view}");
    assert!(
        view.contains("\"insight\":\"take 2\"") && !view.contains("\"take 0\""),
        "{view}"
    );
    let all = repo
        .rune(&["show", "learnings", "--all", "--json"])
        .success()
        .stdout;
    assert_eq!(all.lines().count(), 105);
}
