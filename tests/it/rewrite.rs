//! Rewrite survival: amend, rebase and squash keep each commit's note whole, and saved session
//! heads and open checkpoints follow the rewritten commits.

use crate::common::{json_lines, TestRepo};

fn decide(repo: &TestRepo, title: &str) {
    repo.decide(title, "d", &[]);
}

fn note(repo: &TestRepo, rev: &str) -> String {
    repo.git(&["notes", "--ref=rune", "show", rev])
}

/// How many notes a note text holds (git concatenates on rewrite; we combine them into one).
fn blocks(note: &str) -> usize {
    note.lines().filter(|l| l.starts_with("rune: ")).count()
}

fn trailer<'a>(note: &'a str, key: &str) -> Option<&'a str> {
    note.lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(": "))
}

/// The `git.head` of the newest record `show <kind> --json` lists.
fn saved_head(repo: &TestRepo, kind: &str) -> String {
    let out = repo.rune(&["--json", "show", kind]).success().stdout;
    let last = json_lines(&out).pop().expect("a record");
    last["git"]["head"].as_str().unwrap_or_default().to_owned()
}

fn topic_repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.commit_file("a", "1", "base");
    repo.rune(&["-q", "init", "--hooks"]).success();
    repo.git(&["checkout", "-q", "-b", "topic"]);
    repo
}

/// Regression: `git commit --amend` right after `init` warned "notes ref refs/notes/rune is
/// invalid", because init set notes.rewriteRef before the notes ref existed.
#[test]
fn amend_right_after_init_is_quiet_and_the_first_note_sets_the_rewrite_ref() {
    let repo = TestRepo::new();
    repo.commit_file("a", "1", "base");
    repo.rune(&["-q", "init"]).success();
    let mut git = std::process::Command::new("git");
    repo.env(&mut git);
    let out = git
        .args(["commit", "-q", "--amend", "-m", "amended"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    repo.rune(&["-q", "hooks", "install"]).success();
    repo.commit_file("a", "2", "noted");
    assert_eq!(
        repo.git(&["config", "--get-all", "notes.rewriteRef"]),
        "refs/notes/rune"
    );
}

#[test]
fn amend_combines_the_notes_and_moves_the_saved_head() {
    let repo = topic_repo();
    decide(&repo, "First choice");
    let old = repo.commit_file("t", "t", "topic work");
    repo.rune(&["-q", "save", "-m", "after topic work"])
        .success();
    repo.rune(&["-q", "checkpoint", "--doing", "polish"])
        .success();
    assert_eq!(saved_head(&repo, "session-log"), old);

    decide(&repo, "Second choice");
    repo.git(&["commit", "-q", "--amend", "-m", "topic work, amended"]);
    let new = repo.git(&["rev-parse", "HEAD"]);
    let text = note(&repo, "HEAD");
    assert_eq!(blocks(&text), 1, "one note, not two concatenated:\n{text}");
    assert!(text.starts_with("rune: 2 decisions recorded"), "{text}");
    assert!(
        text.contains(" First choice") && text.contains(" Second choice"),
        "{text}"
    );
    // The amend is made now: its note names memory as it is now.
    assert_eq!(
        trailer(&text, "Rune-Memory"),
        Some(repo.git(&["rev-parse", "refs/rune/memory"]).as_str()),
        "{text}"
    );

    assert_eq!(saved_head(&repo, "session-log"), new);
    assert_eq!(saved_head(&repo, "checkpoint"), new);
    let status = repo.rune(&["--json", "status"]).success().stdout;
    let status: serde_json::Value = serde_json::from_str(&status).unwrap();
    assert_eq!(status["drift"]["saved_commit_missing"], false, "{status}");
    assert_eq!(status["drift"]["ahead"], 0, "{status}");
    // The session history keeps the old head: the remap supersedes, it does not rewrite.
    let log = repo.rune(&["log"]).success().stdout;
    assert!(log.contains("follow rewritten commits"), "{log}");
}

#[test]
fn rebase_keeps_the_original_memory_and_squash_keeps_every_record() {
    let repo = topic_repo();
    decide(&repo, "Topic choice");
    repo.commit_file("t", "t", "topic one");
    let first_note = note(&repo, "HEAD");
    decide(&repo, "Later choice");
    repo.commit_file("u", "u", "topic two");
    repo.rune(&["-q", "save", "-m", "two commits in"]).success();
    repo.git(&["checkout", "-q", "main"]);
    repo.commit_file("m", "m", "main moves");
    decide(&repo, "Made while on main");
    repo.git(&["checkout", "-q", "topic"]);

    repo.git(&["rebase", "-q", "main"]);
    let one = note(&repo, "HEAD~1");
    assert_eq!(blocks(&one), 1, "{one}");
    // A rebase replays old work: the note keeps the memory that produced it.
    assert_eq!(
        trailer(&one, "Rune-Memory"),
        trailer(&first_note, "Rune-Memory"),
        "{one}"
    );
    assert_eq!(trailer(&one, "Rune-Branch"), Some("topic"), "{one}");
    assert!(one.contains(" Topic choice"), "{one}");
    assert!(!one.contains("Made while on main"), "{one}");
    assert_eq!(
        saved_head(&repo, "session-log"),
        repo.git(&["rev-parse", "HEAD"])
    );

    // Squash the two topic commits (interactive rebase, scripted).
    let mut cmd = std::process::Command::new("git");
    repo.env(&mut cmd);
    let out = cmd
        .env("GIT_SEQUENCE_EDITOR", "sed -i -e '2s/^pick/squash/'")
        .env("GIT_EDITOR", "true")
        .args(["rebase", "-q", "-i", "HEAD~2"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(repo.git(&["rev-list", "--count", "main..HEAD"]), "1");
    let squashed = note(&repo, "HEAD");
    assert_eq!(blocks(&squashed), 1, "{squashed}");
    assert!(
        squashed.starts_with("rune: 2 decisions recorded"),
        "{squashed}"
    );
    assert!(
        squashed.contains(" Topic choice") && squashed.contains(" Later choice"),
        "{squashed}"
    );
    assert_eq!(
        saved_head(&repo, "session-log"),
        repo.git(&["rev-parse", "HEAD"])
    );
    let why = repo.rune(&["why", "HEAD"]).success().stdout;
    assert!(
        why.contains("Topic choice") && why.contains("Later choice"),
        "{why}"
    );
}

#[test]
fn without_notes_rewrite_ref_the_hook_carries_notes_itself() {
    let repo = topic_repo();
    decide(&repo, "Kept anyway");
    repo.commit_file("t", "t", "topic work");
    // The first note set notes.rewriteRef; without it, the hook carries notes itself.
    repo.git(&["config", "--unset", "notes.rewriteRef"]);
    repo.git(&["commit", "-q", "--amend", "-m", "amended"]);
    assert!(note(&repo, "HEAD").contains(" Kept anyway"));
    repo.git(&["checkout", "-q", "main"]);
    repo.commit_file("m", "m", "main moves");
    repo.git(&["checkout", "-q", "topic"]);
    repo.git(&["rebase", "-q", "main"]);
    let text = note(&repo, "HEAD");
    assert_eq!(blocks(&text), 1, "{text}");
    assert!(text.contains(" Kept anyway"), "{text}");

    // Turning notes.rewrite.amend off is respected: the new commit keeps only its own note.
    repo.git(&["config", "notes.rewrite.amend", "false"]);
    repo.git(&["commit", "-q", "--amend", "-m", "amended again"]);
    assert!(!note(&repo, "HEAD").contains(" Kept anyway"));
}

#[test]
fn the_users_own_post_rewrite_hook_still_reads_its_input() {
    let repo = TestRepo::new();
    repo.commit_file("a", "1", "base");
    let hook = repo.root.join(".git/hooks/post-rewrite");
    std::fs::write(
        &hook,
        "#!/bin/sh\ncat > \"$(git rev-parse --git-dir)/user-hook-input\"\necho \"$1\" >> \"$(git rev-parse --git-dir)/user-hook-input\"\n",
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    repo.rune(&["-q", "init", "--hooks"]).success();
    let old = repo.commit_file("t", "t", "work");
    repo.rune(&["-q", "save", "-m", "s"]).success();
    repo.git(&["commit", "-q", "--amend", "-m", "amended"]);
    let new = repo.git(&["rev-parse", "HEAD"]);
    assert_eq!(
        repo.read(".git/user-hook-input"),
        format!("{old} {new}\namend\n")
    );
    // Both ran: git-rune moved the saved head too.
    assert_eq!(saved_head(&repo, "session-log"), new);
}

#[test]
fn a_cherry_picked_commit_carries_the_picked_commits_memory() {
    let repo = topic_repo();
    decide(&repo, "Picked reason");
    repo.commit_file("b", "b", "the fix");
    let picked = repo.git(&["rev-parse", "HEAD"]);
    repo.git(&["checkout", "-q", "main"]);
    decide(&repo, "Main's own");
    repo.git(&["cherry-pick", "-x", &picked]);
    let n = note(&repo, "HEAD");
    assert_eq!(blocks(&n), 1, "{n}");
    assert!(n.contains("Picked reason"), "{n}");
    assert!(n.contains("Main's own"), "{n}");
    assert_eq!(trailer(&n, "Rune-Branch"), Some("main"), "{n}");
    let why = repo.rune(&["why", "b:1"]).success().stdout;
    assert!(why.contains("title: Picked reason"), "{why}");
}

/// Regression: during a rebase (HEAD detached while git replays the branch), tasks and
/// checkpoints went to `refs/rune/detached`: the view, which stays with the branch being
/// rebased, then lost the branch's tasks, and once the rebase was done the branch had none of
/// what was recorded during it. They belong to the branch being rebased.
#[test]
fn session_state_written_during_a_rebase_stays_with_the_branch() {
    let repo = topic_repo();
    repo.rune(&["-q", "task", "add", "Before the rebase"])
        .success();
    repo.commit_file("a", "topic", "topic change");
    repo.git(&["checkout", "-q", "main"]);
    repo.commit_file("a", "main", "main change");
    repo.git(&["checkout", "-q", "topic"]);
    // A conflict stops the rebase half way, HEAD detached.
    assert!(!repo.git_output(&["rebase", "main"]).status.success());
    let during = repo.rune(&["task", "add", "During the rebase"]).success();
    assert!(during.stdout.contains("2 pend"), "{}", during.snapshot());
    repo.rune(&["-q", "checkpoint", "--doing", "Resolving a"])
        .success();
    assert!(repo.read(".rune/tasks.md").contains("Before the rebase"));
    repo.write("a", "resolved");
    repo.git(&["add", "a"]);
    let done = repo.git_output(&["-c", "core.editor=true", "rebase", "--continue"]);
    assert!(done.status.success(), "{done:?}");
    let tasks = repo.rune(&["task", "list"]).success().stdout;
    assert!(
        tasks.contains("Before the rebase") && tasks.contains("During the rebase"),
        "{tasks}"
    );
    let load = repo.rune(&["load"]).success().stdout;
    assert!(load.contains("Resolving a"), "{load}");
    assert_eq!(repo.git(&["for-each-ref", "refs/rune/detached"]), "");
}
