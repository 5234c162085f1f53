//! Failures found by the error-path sweep: each exits with its documented code, says what to
//! do, and leaves refs and the user's files as they were.

use crate::assert_rune_snapshot;
use crate::common::{decide_args, TestRepo};

/// A repository with memory in both scopes: a decision, a task, an open checkpoint, an echo.
fn repo_with_memory() -> TestRepo {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a\n", "init");
    repo.rune(&["init"]).success();
    repo.rune(&decide_args("Use X", &[])).success();
    repo.rune(&["task", "add", "Do a thing"]).success();
    repo.rune(&["checkpoint", "--doing", "working"]).success();
    repo.rune(&[
        "echo",
        "add",
        "--role",
        "reviewer",
        "--layer",
        "notes",
        "--confidence",
        "0.8",
        "--text",
        "look at imports",
        "Pattern: imports",
    ])
    .success();
    repo
}

/// Regression: with a file named `.rune` where the view goes, these commands committed their
/// record and only then failed to check the view out (exit 69 after a write, so a retry
/// recorded it twice). Now each refuses before writing.
#[test]
fn a_file_where_the_view_goes_stops_every_write_before_it_writes() {
    let repo = repo_with_memory();
    let echo_id = repo.rune(&["--json", "echo", "show"]).success().stdout;
    let echo_id: serde_json::Value = serde_json::from_str(echo_id.lines().next().unwrap()).unwrap();
    let echo_id = echo_id["uid"].as_str().unwrap().to_owned();
    std::fs::remove_dir_all(repo.root.join(".rune")).unwrap();
    repo.write(".rune", "not a folder\n");
    let before = repo.refs();
    for args in [
        vec!["task", "add", "another"],
        vec!["task", "done", "1"],
        vec!["resume", "--done"],
        vec!["context-block", "add", "--content", "x", "Pitfall"],
        vec!["echo", "archive", &echo_id],
        vec!["save"],
        vec!["save", "-m", "session"],
    ] {
        let out = repo.rune(&args).failure();
        assert_eq!(out.code, 69, "{args:?}: {}", out.snapshot());
        assert!(
            out.stderr.contains("nothing was written"),
            "{args:?}: {}",
            out.stderr
        );
        assert_eq!(repo.refs(), before, "{args:?} changed memory");
    }
    assert_eq!(repo.read(".rune"), "not a folder\n");
    assert_rune_snapshot!(repo, repo.rune(&["save", "-m", "session"]).failure());
    // Commands that only render the view say what is in the way.
    let out = repo.rune(&["restore"]).failure();
    assert_eq!(out.code, 69);
    assert!(
        out.stderr.contains("hint: something is in the way"),
        "{}",
        out.stderr
    );
    let out = repo.rune(&["mode", "research"]).failure();
    assert_eq!(out.code, 69);
    assert!(out.stderr.contains("hint: "), "{}", out.stderr);
}

/// Regression: a role file of the echoes directory that is not UTF-8 stopped `save` as an
/// internal error (exit 70, "this is a bug"); a findings file as an environment error with no
/// hint. Both are damaged data the user fixes.
#[test]
fn an_echo_file_that_is_not_text_is_a_data_error_that_keeps_it() {
    let repo = repo_with_memory();
    let memory = repo.root.join(".claude/echoes/reviewer/MEMORY.md");
    let mut bytes = std::fs::read(&memory).unwrap();
    bytes.extend_from_slice(b"\xff\xfe\n");
    std::fs::write(&memory, &bytes).unwrap();
    let before = repo.refs();
    let out = repo.rune(&["save", "-m", "session"]).failure();
    assert_eq!(out.code, 65, "{}", out.snapshot());
    assert_rune_snapshot!(repo, out);
    assert_eq!(repo.refs(), before);
    assert_eq!(std::fs::read(&memory).unwrap(), bytes);

    repo.rune(&["restore"]).success();
    let findings = repo.root.join(".claude/echoes/reviewer/bob-findings.md");
    std::fs::write(&findings, b"\xff").unwrap();
    let before = repo.refs();
    for args in [vec!["echo", "consolidate"], vec!["save", "-m", "x"]] {
        let out = repo.rune(&args).failure();
        assert_eq!(out.code, 65, "{args:?}: {}", out.snapshot());
        assert!(
            out.stderr.contains("bob-findings.md is not UTF-8 text")
                && out.stderr.contains("hint: fix"),
            "{}",
            out.stderr
        );
    }
    assert_eq!(repo.refs(), before);
    assert_eq!(std::fs::read(&findings).unwrap(), b"\xff");
}

/// Regression: a memory ref whose file holds no object id printed gix's "The reference at …
/// could not be decoded" with no hint; a symbolic memory ref read as a commit id of "" and,
/// on a write, was retried 32 times as if another process kept moving it.
#[test]
fn a_damaged_memory_ref_says_how_to_repair_it() {
    let repo = repo_with_memory();
    let ref_file = repo.root.join(".git/refs/rune/memory");
    std::fs::write(&ref_file, "garbage\n").unwrap();
    let out = repo.rune(&["load"]).failure();
    assert_eq!(out.code, 65);
    assert_rune_snapshot!(repo, out);
    let out = repo.rune(&decide_args("Another", &[])).failure();
    assert_eq!(out.code, 65, "{}", out.snapshot());
    assert!(
        out.stderr.contains("git update-ref -d refs/rune/memory"),
        "{}",
        out.stderr
    );
    // `verify` lists it as damaged, as it does a ref naming a blob, and checks the rest.
    let out = repo.rune(&["verify"]);
    assert_eq!(out.code, 1, "{}", out.snapshot());
    assert!(
        out.stdout
            .contains("TAINTED refs/rune/memory: unreadable (refs/rune/memory is damaged")
            && out.stdout.contains("1 refs"),
        "{}",
        out.stdout
    );
    assert_eq!(std::fs::read_to_string(&ref_file).unwrap(), "garbage\n");

    for target in ["refs/rune/memory", "refs/heads/main"] {
        std::fs::write(&ref_file, format!("ref: {target}\n")).unwrap();
        for args in [vec!["load"], decide_args("Another", &[])] {
            let out = repo.rune(&args).failure();
            assert_eq!(out.code, 65, "{args:?}: {}", out.snapshot());
            assert!(
                out.stderr
                    .contains(&format!("it is a symbolic ref to {target}")),
                "{}",
                out.stderr
            );
        }
        assert_eq!(
            std::fs::read_to_string(&ref_file).unwrap(),
            format!("ref: {target}\n")
        );
    }
}

/// Regression: a local memory ref pointed at a code commit (no `VERSION` in its tree, as a
/// remote one is checked for) was read as memory: the project's top-level files made an
/// empty memory that `load` briefed and the next write built on, carrying the code's history
/// into memory, and a folder named like a kind was parsed as records. It is damaged data now,
/// named with the repair, and `verify` lists it and checks the rest.
#[test]
fn a_memory_ref_at_a_code_commit_is_damaged_not_memory() {
    let repo = repo_with_memory();
    repo.commit_file("learning/all.jsonl", "{\"not\": \"a record\"}\n", "code");
    let code = repo.git(&["rev-parse", "HEAD~1"]);
    // Each ref with the reads and a write of its own scope.
    for (name, write) in [
        ("refs/rune/memory", decide_args("Another", &[])),
        (
            "refs/rune/branches/main",
            vec!["task", "add", "Another thing"],
        ),
    ] {
        let kept = repo.git(&["rev-parse", name]);
        repo.git(&["update-ref", name, &code]);
        let before = repo.refs();
        for args in [
            vec!["load"],
            vec!["show", "decisions"],
            vec!["status"],
            write,
        ] {
            let out = repo.rune(&args).failure();
            assert_eq!(out.code, 65, "{args:?}: {}", out.snapshot());
            assert!(
                out.stderr.contains(&format!(
                    "{name} is damaged: it points at a commit that is not memory (its tree holds no VERSION)"
                )),
                "{args:?}: {}",
                out.stderr
            );
            assert!(
                out.stderr.contains(&format!("git update-ref -d {name}")),
                "{}",
                out.stderr
            );
            assert_eq!(repo.refs(), before, "{args:?} moved a ref");
        }
        let out = repo.rune(&["verify"]);
        assert_eq!(out.code, 1, "{}", out.snapshot());
        assert!(
            out.stdout
                .contains(&format!("TAINTED {name}: unreadable ({name} is damaged"))
                && out.stdout.contains("2 refs"),
            "{}",
            out.stdout
        );
        repo.git(&["update-ref", name, &kept]);
    }
    // A commit whose tree has a folder named like a kind is no memory either.
    let code = repo.git(&["rev-parse", "HEAD"]);
    repo.git(&["update-ref", "refs/rune/memory", &code]);
    let out = repo.rune(&["load"]).failure();
    assert_eq!(out.code, 65, "{}", out.snapshot());
    assert!(
        out.stderr.contains("its tree holds no VERSION"),
        "{}",
        out.stderr
    );
}

/// Regression: beside a damaged memory ref, a write to the other one (`task add` beside a
/// damaged `refs/rune/memory`, `decide` beside a damaged branch ref) landed, then failed to
/// refresh the view (exit 65 after a write, so a retry recorded it twice). Now it refuses
/// before writing.
#[test]
fn a_write_beside_a_damaged_memory_ref_refuses_before_it_writes() {
    let repo = repo_with_memory();
    let code = repo.git(&["rev-parse", "HEAD"]);
    for (damaged, write) in [
        ("refs/rune/memory", vec!["task", "add", "Another thing"]),
        ("refs/rune/branches/main", decide_args("Another", &[])),
        ("refs/rune/memory", vec!["checkpoint", "--doing", "more"]),
    ] {
        let kept = repo.git(&["rev-parse", damaged]);
        repo.git(&["update-ref", damaged, &code]);
        let before = repo.refs();
        let out = repo.rune(&write).failure();
        assert_eq!(out.code, 65, "{write:?}: {}", out.snapshot());
        assert!(
            out.stderr.contains(&format!("{damaged} is damaged")),
            "{}",
            out.stderr
        );
        assert_eq!(repo.refs(), before, "{write:?} wrote beside {damaged}");
        repo.git(&["update-ref", damaged, &kept]);
    }
    // A ref file that holds no id, too.
    let ref_file = repo.root.join(".git/refs/rune/memory");
    let kept = std::fs::read_to_string(&ref_file).unwrap();
    std::fs::write(&ref_file, "garbage\n").unwrap();
    let branch = repo.git(&["rev-parse", "refs/rune/branches/main"]);
    repo.rune(&["task", "add", "Another thing"]).failure();
    assert_eq!(repo.git(&["rev-parse", "refs/rune/branches/main"]), branch);
    std::fs::write(&ref_file, kept).unwrap();
    repo.rune(&["task", "add", "Another thing"]).success();
}

/// Regression: `verify` listed a tip it could not read twice (once for the records, once for
/// the history it then tried to walk).
#[test]
fn verify_reports_an_unreadable_tip_once() {
    let repo = repo_with_memory();
    let blob = repo.git(&["rev-parse", "HEAD:a.txt"]);
    repo.git(&["update-ref", "refs/rune/memory", blob.trim()]);
    let out = repo.rune(&["verify"]);
    assert_eq!(out.code, 1, "{}", out.snapshot());
    assert_eq!(
        out.stdout.matches("TAINTED refs/rune/memory").count(),
        1,
        "{}",
        out.stdout
    );
}

/// Regression: a `packed-refs.lock` left behind (with no `packed-refs` file yet) failed every
/// write as "refs/rune/memory kept changing under us (32 attempts)", which no retry fixes.
#[test]
fn a_stale_packed_refs_lock_is_named() {
    let repo = repo_with_memory();
    std::fs::write(repo.root.join(".git/packed-refs.lock"), "").unwrap();
    let before = repo.refs();
    let out = repo.rune(&decide_args("Another", &[])).failure();
    assert_eq!(out.code, 75, "{}", out.snapshot());
    assert!(
        out.stderr.contains("packed-refs.lock' exists"),
        "{}",
        out.stderr
    );
    assert_eq!(repo.refs(), before);
}

/// Regression: `gc <unknown remote>` failed in `git fetch` (exit 69, git's own words), where
/// `sync` and `repair` say the remote does not exist (exit 1).
#[test]
fn gc_names_an_unknown_remote_as_input() {
    let repo = repo_with_memory();
    let before = repo.refs();
    let out = repo.rune(&["gc", "nosuch"]).failure();
    assert_eq!(out.code, 1, "{}", out.snapshot());
    assert!(
        out.stderr.contains("\"nosuch\" is not a remote"),
        "{}",
        out.stderr
    );
    assert_eq!(repo.refs(), before);
}

/// Regression: `import echoes` of a folder that does not exist (or a file) was an environment
/// error (69) with no hint; a path the command line names is the user's input.
#[test]
fn import_echoes_from_a_missing_folder_is_input() {
    let repo = repo_with_memory();
    let before = repo.refs();
    for dir in ["nosuch", "a.txt"] {
        let out = repo.rune(&["import", "echoes", dir]).failure();
        assert_eq!(out.code, 1, "{}", out.snapshot());
        assert!(
            out.stderr.contains("hint: name the echoes folder"),
            "{}",
            out.stderr
        );
    }
    assert_eq!(repo.refs(), before);
}

/// Regression: `git rune mcp` with no client on stdin ended as an internal error (70, "this is
/// a bug in git-rune").
#[cfg(feature = "mcp")]
#[test]
fn mcp_without_a_client_is_not_a_bug() {
    let repo = repo_with_memory();
    let out = repo.rune(&["mcp"]).failure();
    assert_eq!(out.code, 69, "{}", out.snapshot());
    assert!(!out.stderr.contains("bug"), "{}", out.stderr);
    assert!(
        out.stderr.contains("agent install claude-mcp"),
        "{}",
        out.stderr
    );
}

/// Regression: registering with Codex (whose MCP servers live in the user's config only)
/// without HOME or CODEX_HOME said "install for this repository only (without --user)", which
/// no command line does.
#[test]
fn codex_without_a_home_says_what_to_set() {
    let repo = repo_with_memory();
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_git-rune"));
    repo.env(&mut cmd);
    cmd.env_remove("HOME").args(["agent", "install", "codex"]);
    let out = crate::common::Output::of(cmd.output().unwrap());
    assert_eq!(out.code, 69, "{}", out.snapshot());
    assert!(
        out.stderr.contains("set CODEX_HOME (or HOME)"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("--user"), "{}", out.stderr);
}

/// Regression: a file put where a role's echoes folder goes (`.claude/echoes/reviewer`) was
/// saved as a document, and only the checkout after the commit failed (exit 69 after a write).
/// Now `save` refuses it first: memory, the file and the other edits are as they were.
#[test]
fn a_file_where_a_role_folder_goes_is_refused_before_the_save() {
    let repo = repo_with_memory();
    std::fs::remove_dir_all(repo.root.join(".claude/echoes/reviewer")).unwrap();
    repo.write(".claude/echoes/reviewer", "a note\n");
    let before = repo.refs();
    let out = repo.rune(&["save", "-m", "session"]).failure();
    assert_eq!(out.code, 69, "{}", out.snapshot());
    assert!(
        out.stderr
            .contains("reviewer is a file, where the reviewer role's echoes are checked out")
            && out.stderr.contains("nothing was saved")
            && out.stderr.contains("hint: rename or move that file"),
        "{}",
        out.stderr
    );
    assert_eq!(repo.refs(), before);
    assert_eq!(repo.read(".claude/echoes/reviewer"), "a note\n");
    // Moved aside, the note saves as a document and the role's folder comes back.
    std::fs::rename(
        repo.root.join(".claude/echoes/reviewer"),
        repo.root.join(".claude/echoes/reviewer-note.md"),
    )
    .unwrap();
    repo.rune(&["save", "-m", "session"]).success();
    assert!(repo
        .root
        .join(".claude/echoes/reviewer/MEMORY.md")
        .is_file());
    assert_eq!(repo.read(".claude/echoes/reviewer-note.md"), "a note\n");
}

/// Regression (second sweep): answers that named the wrong thing or passed git's words on.
#[test]
fn errors_name_what_the_user_set() {
    let repo = repo_with_memory();
    // GIT_DIR pointing nowhere: the message names it, not the current folder.
    let out = rune_env(&repo, &["status"], &[("GIT_DIR", "/nowhere/at/all")]).failure();
    assert_eq!(out.code, 69, "{}", out.snapshot());
    assert!(
        out.stderr.contains("GIT_DIR is set to /nowhere/at/all")
            && out.stderr.contains("hint: point GIT_DIR at"),
        "{}",
        out.stderr
    );
    // A HOME that is a file: Codex's config cannot be written there (environment), it is
    // not a damaged file to fix.
    let home = repo.root.join("a.txt");
    let out = rune_env(
        &repo,
        &["agent", "install", "codex"],
        &[("HOME", home.to_str().unwrap()), ("CODEX_HOME", "")],
    )
    .failure();
    assert_eq!(out.code, 69, "{}", out.snapshot());
    assert!(
        out.stderr.contains("can be read and written"),
        "{}",
        out.stderr
    );
    // A line past the end of a file: said in git-rune's words, not as a failed `git blame`.
    let out = repo.rune(&["why", "a.txt:99"]).failure();
    assert_eq!(out.code, 1, "{}", out.snapshot());
    assert!(
        out.stderr
            .contains("cannot say who wrote a.txt:99: file a.txt has only 1 line")
            && !out.stderr.contains("fatal:"),
        "{}",
        out.stderr
    );
    // A caller no config key can name gets no config key made of it.
    let out = repo
        .rune(&["context", "preview", "--caller", "", "a.txt"])
        .failure();
    assert_eq!(out.code, 1, "{}", out.snapshot());
    assert!(
        out.stderr.contains("rune.context.preview.<name>"),
        "{}",
        out.stderr
    );
}

/// Runs git-rune in `repo` with `vars` set over the pinned environment.
fn rune_env(repo: &TestRepo, args: &[&str], vars: &[(&str, &str)]) -> crate::common::Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_git-rune"));
    repo.env(&mut cmd);
    cmd.current_dir(&repo.root)
        .envs(vars.iter().copied())
        .args(args);
    crate::common::Output::of(cmd.output().unwrap())
}

/// A damaged notes ref is repaired with a notes commit, not "a memory commit".
#[test]
fn a_damaged_notes_ref_names_notes_in_its_repair() {
    let repo = repo_with_memory();
    let blob = repo.git(&["rev-parse", "HEAD:a.txt"]);
    repo.git(&["update-ref", "refs/notes/rune", blob.trim()]);
    let out = repo.rune(&["why", "HEAD"]).failure();
    assert_eq!(out.code, 65, "{}", out.snapshot());
    assert!(
        out.stderr.contains("back at a notes commit")
            && out.stderr.contains("to start the commit notes afresh")
            && !out.stderr.contains("memory commit"),
        "{}",
        out.stderr
    );
}

/// A revision that names nothing because there is no commit yet, or because a shallow clone
/// lacks the history, says so rather than only "does not name a commit".
#[test]
fn a_revision_missing_for_a_reason_says_the_reason() {
    let repo = TestRepo::new();
    for args in [["why", "HEAD"], ["diff", "HEAD~1"]] {
        let out = repo.rune(&args).failure();
        assert_eq!(out.code, 1, "{}", out.snapshot());
        assert!(
            out.stderr.contains("(this repository has no commits yet)"),
            "{args:?}: {}",
            out.stderr
        );
    }
    for n in 1..=3 {
        repo.commit_file("a.txt", &format!("{n}\n"), &format!("c{n}"));
    }
    let shallow = repo.home.join("shallow");
    let url = format!("file://{}", repo.root.display());
    repo.git(&[
        "clone",
        "-q",
        "--depth",
        "1",
        &url,
        shallow.to_str().unwrap(),
    ]);
    for args in [["why", "HEAD~1"], ["diff", "HEAD~1"]] {
        let out = repo.rune_in(&shallow, &args).failure();
        assert_eq!(out.code, 1, "{}", out.snapshot());
        assert!(
            out.stderr.contains("this clone is shallow") && out.stderr.contains("--unshallow"),
            "{args:?}: {}",
            out.stderr
        );
    }
    // A plain typo in a full repository gets no such reason.
    let out = repo.rune(&["why", "nosuch"]).failure();
    assert!(!out.stderr.contains("(this"), "{}", out.stderr);
}
