//! Every code commit carries a note linking it to memory; `why` reads it back.

use crate::common::{learn_args, TestRepo};

fn decide(repo: &TestRepo, title: &str, files: &str) {
    repo.decide(title, &format!("{title}, decided"), &["--files", files]);
}

#[test]
fn post_commit_attaches_a_note_git_can_read_and_why_expands_it() {
    let repo = TestRepo::new();
    repo.commit_file("src/a.rs", "fn a() {}\n", "first");
    repo.rune(&["init", "--hooks"]).success();
    decide(&repo, "Retry with jitter", "src/a.rs");
    repo.rune(&[
        "-q",
        "checkpoint",
        "--doing",
        "retries",
        "--resume",
        "Add the backoff cap",
    ])
    .success();
    let c = repo.commit_file("src/a.rs", "fn a() { retry() }\n", "retry");
    let note = repo.git(&["notes", "--ref=rune", "show", &c]);
    assert!(
        note.starts_with("rune: 1 decision recorded for this commit"),
        "{note}"
    );
    assert!(
        note.contains("Rune-Decision: ") && note.contains(" Retry with jitter"),
        "{note}"
    );
    assert!(
        note.contains("Rune-Checkpoint: Add the backoff cap"),
        "{note}"
    );
    assert!(
        note.contains(&format!(
            "Rune-Memory: {}",
            repo.git(&["rev-parse", "refs/rune/memory"])
        )),
        "{note}"
    );

    // A commit with nothing new still gets a short note.
    let c2 = repo.commit_file("b.txt", "b", "unrelated");
    let note2 = repo.git(&["notes", "--ref=rune", "show", &c2]);
    assert!(note2.starts_with("rune: no new memory"), "{note2}");
    // The session did not change: the open checkpoint is carried from the parent's note.
    assert!(
        note2.contains("Rune-Checkpoint: Add the backoff cap"),
        "{note2}"
    );
    repo.rune(&[
        "-q",
        "checkpoint",
        "--doing",
        "caps",
        "--resume",
        "Test the cap",
    ])
    .success();
    let c3 = repo.commit_file("b.txt", "bb", "after a new checkpoint");
    let note3 = repo.git(&["notes", "--ref=rune", "show", &c3]);
    assert!(note3.contains("Rune-Checkpoint: Test the cap"), "{note3}");

    let why = repo.rune(&["why", &c]).success().stdout;
    assert!(
        why.contains("decision: Retry with jitter, decided"),
        "{why}"
    );
    assert!(
        why.contains("open checkpoint then: Add the backoff cap"),
        "{why}"
    );
    // Through blame: line 1 of src/a.rs was last changed by `c`.
    let why_line = repo.rune(&["why", "src/a.rs:1"]).success().stdout;
    assert!(
        why_line.starts_with("src/a.rs:1 was last changed by"),
        "{why_line}"
    );
    assert!(why_line.contains("Retry with jitter"), "{why_line}");
}

#[test]
fn notes_follow_amend_and_rebase() {
    let repo = TestRepo::new();
    repo.commit_file("a", "1", "base");
    repo.rune(&["init", "--hooks"]).success();
    repo.git(&["checkout", "-q", "-b", "topic"]);
    decide(&repo, "Topic choice", "a");
    repo.commit_file("t", "t", "topic work");
    repo.git(&["commit", "-q", "--amend", "-m", "topic work, amended"]);
    let amended = repo.git(&["notes", "--ref=rune", "show", "HEAD"]);
    assert!(amended.contains("Topic choice"), "{amended}");
    repo.git(&["checkout", "-q", "main"]);
    repo.commit_file("m", "m", "main moves");
    repo.git(&["checkout", "-q", "topic"]);
    repo.git(&["rebase", "-q", "main"]);
    let rebased = repo.git(&["notes", "--ref=rune", "show", "HEAD"]);
    assert!(rebased.contains("Topic choice"), "{rebased}");
    let why = repo.rune(&["why", "HEAD"]).success().stdout;
    assert!(why.contains("Topic choice, decided"), "{why}");
}

#[test]
fn why_walks_back_to_the_nearest_noted_commit() {
    let repo = TestRepo::new();
    repo.commit_file("f.txt", "one\n", "before hooks");
    let out = repo.rune(&["why", "HEAD"]).failure();
    assert!(out.stdout.contains("no git-rune note"), "{}", out.stdout);
    repo.rune(&["init", "--hooks"]).success();
    decide(&repo, "Format", "f.txt");
    repo.commit_file("f.txt", "one\ntwo\n", "noted");
    repo.git(&[
        "-c",
        "core.hooksPath=/dev/null",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "no note",
    ]);
    let why = repo.rune(&["why", "HEAD"]).success().stdout;
    assert!(
        why.contains("has no note; the nearest ancestor with one is"),
        "{why}"
    );
    assert!(why.contains("Format, decided"), "{why}");
    let json = repo.rune(&["why", "HEAD", "--json"]).success().stdout;
    let v: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    assert_eq!(v["version"], 1, "{v}");
    assert_ne!(v["noted"], v["commit"], "{v}");
    assert_eq!(v["noted"], repo.git(&["rev-parse", "HEAD~1"]), "{v}");
    assert_eq!(v["records"][0]["kind"], "decision", "{v}");
    assert_eq!(v["records"][0]["title"], "Format", "{v}");
    assert!(v["summary"].as_str().unwrap().starts_with("rune: "), "{v}");
    let json = repo.rune(&["why", "f.txt:2", "--json"]).success().stdout;
    let v: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    assert_eq!(v["line"]["file"], "f.txt", "{v}");
    assert_eq!(v["line"]["line"], 2, "{v}");
}

#[test]
fn a_bulk_import_is_counted_and_the_next_note_lists_only_what_is_new() {
    let repo = TestRepo::new();
    repo.commit_file("a", "1", "base");
    repo.rune(&["-q", "init", "--hooks"]).success();
    // 1,100 learnings: past the one-blob layout, so the learning tree becomes shards.
    let mut lines = String::new();
    for i in 0..1100 {
        lines.push_str(&format!(
            "{{\"type\":\"insight\",\"key\":\"k{i}\",\"insight\":\"i{i}\",\"confidence\":0.5}}\n"
        ));
    }
    let view = repo.root.join(".rune/learnings.jsonl");
    let mut text = std::fs::read_to_string(&view).unwrap_or_default();
    text.push_str(&lines);
    std::fs::write(&view, text).unwrap();
    repo.rune(&["-q", "save", "-m", "import"]).success();
    decide(&repo, "After the import", "a");
    repo.commit_file("b", "2", "with the import");
    let note = repo.git(&["notes", "--ref=rune", "show", "HEAD"]);
    assert!(
        note.starts_with(
            "rune: 1 decision, 99 learnings recorded for this commit (and 1001 more)\n"
        ),
        "{}",
        &note[..200]
    );
    assert!(
        note.ends_with("\nRune-Omitted: 1001"),
        "{}",
        &note[note.len() - 100..]
    );
    assert!(note
        .lines()
        .nth(2)
        .unwrap()
        .starts_with("Rune-Branch: main"));
    assert!(
        note.contains(" After the import"),
        "decisions are listed first"
    );

    repo.rune(&learn_args("only-new", "x", &[])).success();
    repo.commit_file("c", "3", "one more");
    let note = repo.git(&["notes", "--ref=rune", "show", "HEAD"]);
    assert!(
        note.starts_with("rune: 1 learning recorded for this commit\n"),
        "{note}"
    );
    assert!(note.contains(" only-new"), "{note}");
}

/// The first commit off a parent made long before, with more memory commits since than a
/// note's walk from the tip looks at: the note counts exactly what memory gained since the
/// parent's time (read from the cached chain of memory commits), on the first such commit and
/// on the next, whose chain is cached already. A branch made from an older commit (`base`,
/// behind where main recorded its memory) is credited with none of it: that memory was
/// recorded on main's later line of history (issue 28).
#[test]
fn a_commit_off_an_old_unnoted_parent_counts_what_memory_gained_since() {
    let repo = TestRepo::new();
    let base = repo.commit_file("a", "1", "base");
    repo.rune(&["-q", "init"]).success();
    let learn = |i: usize| repo.learn(&format!("k{i}"), "x");
    (0..10).for_each(learn);
    // No hooks yet: this commit gets no note.
    let mid = repo.commit_file("b", "2", "mid");
    (10..120).for_each(learn);
    repo.rune(&["-q", "hooks", "install"]).success();
    for (n, (from, gained)) in [(&mid, 110), (&base, 0), (&mid, 110)]
        .into_iter()
        .enumerate()
    {
        repo.git(&["checkout", "-q", "-b", &format!("side-{n}"), from]);
        repo.commit_file(&format!("side-{n}"), "x", "off an old parent");
        let note = repo.git(&["notes", "--ref=rune", "show", "HEAD"]);
        if gained == 0 {
            assert!(
                note.starts_with("rune: no new memory since the previous commit\n"),
                "{n}: {}",
                &note[..note.len().min(200)]
            );
            continue;
        }
        let head = format!(
            "rune: 100 learnings recorded for this commit (and {} more)\n",
            gained - 100
        );
        assert!(
            note.starts_with(&head),
            "{n}: {}",
            &note[..note.len().min(200)]
        );
        assert!(
            note.ends_with(&format!("\nRune-Omitted: {}", gained - 100)),
            "{n}"
        );
        // The chain of memory commits was cached by the first such note.
        assert!(repo.root.join(".git/rune/cache/chain").is_dir(), "{n}");
    }
}
