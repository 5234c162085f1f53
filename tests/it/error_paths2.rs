//! Failures found by the second error-path sweep (sharing, git hooks): each exits with its
//! documented code, says what to do, and leaves memory as it was.

use crate::common::{decide_args, Remote, TestRepo};

/// A clone of `remote` with a code commit pushed and one decision shared.
fn shared_clone(remote: &Remote) -> TestRepo {
    let a = remote.clone("ada");
    a.commit_file("README", "hi\n", "start");
    a.git(&["push", "-q", "origin", "main"]);
    a.rune(&decide_args("Use X", &[])).success();
    a.rune(&["-q", "sync", "origin"]).success();
    a
}

/// Regression: a remote whose refs/rune/memory named a code commit (no `VERSION`, no records)
/// was merged as memory: the project's whole code history became part of memory's, and went
/// with it to every remote memory is shared with. Now it is skipped, named, and left for
/// `repair`.
#[test]
fn a_remote_memory_ref_naming_a_code_commit_is_not_merged() {
    let remote = Remote::new();
    let a = shared_clone(&remote);
    let code = remote.git(&["rev-parse", "main"]);
    remote.git(&["update-ref", "refs/rune/memory", code.trim()]);
    let before = a.git(&["rev-parse", "refs/rune/memory"]);
    let out = a.rune(&["sync", "origin"]).success();
    assert!(
        out.stderr.contains(
            "skipped origin's refs/rune/memory: it points at a commit that is not memory"
        ) && out.stderr.contains("git rune repair origin"),
        "{}",
        out.snapshot()
    );
    assert_eq!(a.git(&["rev-parse", "refs/rune/memory"]), before);
    let merged = a.git_output(&[
        "merge-base",
        "--is-ancestor",
        code.trim(),
        "refs/rune/memory",
    ]);
    assert!(
        !merged.status.success(),
        "the code commit joined memory's history"
    );
    // `repair` puts a clean tip back.
    a.rune(&["repair", "origin"]).success();
    assert_eq!(remote.git(&["rev-parse", "refs/rune/memory"]), before);
}

/// Regression: a remote whose own rules (a pre-receive hook) refuse the memory refs exited 75
/// ("another process…, run the command again"), which no retry fixes; it is the surroundings.
#[test]
fn a_remote_that_refuses_memory_is_environment_not_conflict() {
    let remote = Remote::new();
    let a = shared_clone(&remote);
    let hook = remote.path.join("hooks/pre-receive");
    std::fs::write(&hook, "#!/bin/sh\necho 'no memory here' >&2\nexit 1\n").unwrap();
    crate::common::make_executable(&hook);
    a.rune(&decide_args("Use Y", &[])).success();
    let before = a.refs();
    for args in [vec!["sync", "origin"], vec!["--json", "sync", "origin"]] {
        let out = a.rune(&args).failure();
        assert_eq!(out.code, 69, "{}", out.snapshot());
        assert!(
            out.stderr.contains("ask its administrator") && out.stdout.is_empty(),
            "{}",
            out.snapshot()
        );
        assert_eq!(a.refs(), before);
    }
}

/// Regression: `hooks install` into git's own `.git/hooks` said it was "inside the work tree
/// (core.hooksPath)" and wrote `/.git/hooks/…` lines into `.git/info/exclude`.
#[test]
fn hooks_in_the_git_dir_are_not_in_the_work_tree() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a\n", "init");
    let out = repo.rune(&["hooks", "install"]).success();
    assert!(
        !out.stderr.contains("inside the work tree"),
        "{}",
        out.snapshot()
    );
    let exclude = std::fs::read_to_string(repo.root.join(".git/info/exclude")).unwrap_or_default();
    assert!(!exclude.contains(".git/hooks"), "{exclude}");
}

/// Regression: a hooks directory that is a file failed with "cannot create …: File exists (os
/// error 17)" and a hint to edit the hook by hand; now the message names the file and how to
/// point git at a folder.
#[test]
fn a_hooks_directory_that_is_a_file_is_named() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a\n", "init");
    std::fs::remove_dir_all(repo.root.join(".git/hooks")).ok();
    std::fs::write(repo.root.join(".git/hooks"), "x\n").unwrap();
    for args in [vec!["hooks", "install"], vec!["hooks", "status"]] {
        let out = repo.rune(&args).failure();
        assert_eq!(out.code, 69, "{}", out.snapshot());
        assert!(
            out.stderr.contains(".git/hooks is a file, not a folder")
                && out.stderr.contains("hint: move that file aside")
                && !out.stderr.contains("os error"),
            "{}",
            out.snapshot()
        );
    }
    repo.git(&["config", "core.hooksPath", "a.txt"]);
    let out = repo.rune(&["init", "--hooks"]).failure();
    assert_eq!(out.code, 69, "{}", out.snapshot());
    assert!(
        out.stderr.contains("core.hooksPath names a file"),
        "{}",
        out.snapshot()
    );
    assert_eq!(repo.read("a.txt"), "a\n");
}

/// Regression: a git hook that failed (here post-commit, whose note could not be written)
/// printed one line at commit time and was silent afterwards. Now `status`, `load` and
/// `status --json` say so until the hook runs again without failing.
#[test]
fn a_failed_hook_is_reported_by_the_next_command() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a\n", "init");
    repo.rune(&["-q", "init", "--hooks"]).success();
    repo.rune(&decide_args("Use X", &[])).success();
    std::fs::create_dir_all(repo.root.join(".git/refs/notes")).unwrap();
    std::fs::write(repo.root.join(".git/refs/notes/rune"), "garbage\n").unwrap();
    repo.commit_file("b.txt", "b\n", "second");
    let said = "the post-commit hook failed";
    let out = repo.rune(&["status"]).success();
    assert!(
        out.stdout.contains(said) && out.stdout.contains("git update-ref -d refs/notes/rune"),
        "{}",
        out.snapshot()
    );
    let out = repo.rune(&["load"]).success();
    assert!(out.stdout.contains(said), "{}", out.snapshot());
    let out = repo.rune(&["--json", "status"]).success();
    let json: serde_json::Value = serde_json::from_str(out.stdout.trim()).unwrap();
    assert!(
        json["hook_failures"][0].as_str().unwrap().contains(said),
        "{}",
        out.stdout
    );
    // Once the hook runs cleanly, it is no longer reported.
    std::fs::remove_file(repo.root.join(".git/refs/notes/rune")).unwrap();
    repo.commit_file("c.txt", "c\n", "third");
    let out = repo.rune(&["status"]).success();
    assert!(!out.stdout.contains(said), "{}", out.snapshot());
}

/// Regression: `import rune-dir` followed a symbolic link in the seed's folder: a
/// `decisions.md` linking to a file outside it (here outside the repository) was stored in
/// memory as a document with that file's content, ready to be shared by the next sync.
#[test]
fn import_rune_dir_refuses_a_symbolic_link() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a\n", "init");
    repo.rune(&["-q", "init"]).success();
    let seed = repo.home.join("seed");
    std::fs::create_dir_all(&seed).unwrap();
    let secret = repo.home.join("private.txt");
    std::fs::write(&secret, "not for memory\n").unwrap();
    std::os::unix::fs::symlink(&secret, seed.join("decisions.md")).unwrap();
    let before = repo.refs();
    let out = repo
        .rune(&["import", "rune-dir", seed.to_str().unwrap()])
        .failure();
    assert_eq!(out.code, 1, "{}", out.snapshot());
    assert!(
        out.stderr
            .contains("decisions.md is a symbolic link; nothing was imported")
            && out
                .stderr
                .contains("hint: git-rune imports only the folder's own files"),
        "{}",
        out.snapshot()
    );
    assert_eq!(repo.refs(), before);
}
