//! Git hooks: installed beside the user's own, found where git runs them, and never breaking git.

use crate::common::TestRepo;

const USER_HOOK: &str = "#!/bin/sh\n# the user's own hook\necho user-hook-ran >> \"$(git rev-parse --git-dir)/user-hook.log\"\n";

#[test]
fn install_beside_a_user_hook_both_run_and_uninstall_restores_it() {
    let repo = TestRepo::new();
    repo.commit_file("a", "a", "first");
    repo.write(".git/hooks/post-checkout", USER_HOOK);
    crate::common::make_executable(&repo.root.join(".git/hooks/post-checkout"));
    repo.rune(&["init", "--hooks"]).success();
    let status = repo.rune(&["hooks", "status"]).success().stdout;
    assert!(
        status.contains("post-checkout: installed inside your own hook"),
        "{status}"
    );
    assert!(status.contains("post-commit: installed\n"), "{status}");

    repo.rune(&["progress", "--next", "main work"]).success();
    repo.git(&["checkout", "-q", "-b", "feature"]);
    assert!(repo.read(".git/user-hook.log").contains("user-hook-ran"));
    assert!(
        !repo.read(".rune/progress.md").contains("main work"),
        "the view follows the branch"
    );
    repo.git(&["checkout", "-q", "main"]);
    assert!(repo.read(".rune/progress.md").contains("main work"));

    // Installing twice changes nothing; uninstall restores the user's hook byte for byte.
    let installed = repo.read(".git/hooks/post-checkout");
    repo.rune(&["hooks", "install"]).success();
    assert_eq!(repo.read(".git/hooks/post-checkout"), installed);
    repo.rune(&["hooks", "uninstall"]).success();
    assert_eq!(repo.read(".git/hooks/post-checkout"), USER_HOOK);
    assert!(!repo.root.join(".git/hooks/post-commit").exists());
}

#[test]
fn unsaved_view_edits_survive_a_branch_switch() {
    let repo = TestRepo::new();
    repo.commit_file("a", "a", "first");
    repo.rune(&["init", "--hooks"]).success();
    repo.rune(&["progress", "--next", "main work"]).success();
    let mut text = repo.read(".rune/progress.md");
    text.push_str("\n## Session Summary\n**Next Session Should:**\n- hand edit\n");
    repo.write(".rune/progress.md", &text);
    let mut cmd = std::process::Command::new("git");
    repo.env(&mut cmd);
    let out = cmd.args(["checkout", "-b", "feature"]).output().unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("has unsaved edits"), "{stderr}");
    assert_eq!(repo.read(".rune/progress.md"), text, "untouched");
}

#[test]
fn hooks_go_to_core_hooks_path() {
    let repo = TestRepo::new();
    repo.git(&["config", "core.hooksPath", "my-hooks"]);
    repo.rune(&["hooks", "install"]).success();
    assert!(repo.root.join("my-hooks/post-commit").exists());
    assert!(!repo.root.join(".git/hooks/post-commit").exists());
}

#[test]
fn skip_variable_and_foreign_hooks() {
    let repo = TestRepo::new();
    repo.write(
        ".git/hooks/pre-push",
        "#!/usr/bin/env python3\nprint('mine')\n",
    );
    let out = repo.rune(&["hooks", "install"]).failure();
    assert!(
        out.stderr.contains("is not a shell script"),
        "{}",
        out.stderr
    );
    assert_eq!(
        repo.read(".git/hooks/pre-push"),
        "#!/usr/bin/env python3\nprint('mine')\n"
    );
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_git-rune"));
    repo.env(&mut cmd);
    let out = cmd
        .env("GIT_RUNE_SKIP_HOOKS", "1")
        .args(["hook", "bogus"])
        .output()
        .unwrap();
    assert!(out.status.success() && out.stderr.is_empty());
}

#[test]
fn pre_push_syncs_memory_and_a_refusal_never_blocks_the_code_push() {
    let repo = TestRepo::new();
    let remote = repo.root.parent().unwrap().join("remote.git");
    repo.git(&["init", "-q", "--bare", remote.to_str().unwrap()]);
    repo.git(&["remote", "add", "origin", remote.to_str().unwrap()]);
    repo.commit_file("a", "a", "first");
    repo.rune(&["init", "--hooks"]).success();
    repo.learn("k", "shared");
    repo.git(&["push", "-q", "origin", "main"]);
    let remote_dir = remote.to_str().unwrap();
    let theirs = repo.git(&["--git-dir", remote_dir, "rev-parse", "refs/rune/memory"]);
    assert_eq!(theirs, repo.git(&["rev-parse", "refs/rune/memory"]));

    // The remote's memory moves on without us: the hook merges it and pushes the merge.
    let other = repo.git(&[
        "-c",
        "user.name=Other",
        "-c",
        "user.email=o@example.com",
        "--git-dir",
        remote_dir,
        "commit-tree",
        "-m",
        "elsewhere",
        &format!("{theirs}^{{tree}}"),
        "-p",
        &theirs,
    ]);
    repo.git(&[
        "--git-dir",
        remote_dir,
        "update-ref",
        "refs/rune/memory",
        &other,
    ]);
    repo.learn("k2", "mine");
    repo.commit_file("b", "b", "second");
    let out = repo.git_output(&["push", "origin", "main"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("pushed memory to origin"), "{stderr}");
    let now = repo.git(&["--git-dir", remote_dir, "rev-parse", "refs/rune/memory"]);
    assert_eq!(now, repo.git(&["rev-parse", "refs/rune/memory"]));
    repo.git(&[
        "--git-dir",
        remote_dir,
        "merge-base",
        "--is-ancestor",
        &other,
        &now,
    ]);

    // A remote that refuses memory refs: reported, and the code push still goes...
    let hook = remote.join("hooks/pre-receive");
    std::fs::write(
        &hook,
        "#!/bin/sh\nwhile read old new ref; do case \"$ref\" in refs/rune/*) echo no memory here >&2; exit 1;; esac; done\n",
    )
    .unwrap();
    crate::common::make_executable(&hook);
    repo.learn("k3", "refused");
    repo.commit_file("c", "c", "third");
    let out = repo.git_output(&["push", "origin", "main"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("memory was not pushed to origin"),
        "{stderr}"
    );
    assert_eq!(
        repo.git(&["--git-dir", remote_dir, "rev-parse", "main"]),
        repo.git(&["rev-parse", "main"])
    );
    assert!(repo.read(".git/rune/hooks.log").contains("pre-push"));

    // ...unless rune.strictPush is set.
    repo.git(&["config", "rune.strictPush", "true"]);
    repo.commit_file("d", "d", "fourth");
    assert!(!repo
        .git_output(&["push", "origin", "main"])
        .status
        .success());
}

/// A remote whose pre-receive hook refuses memory refs: the user hears the remote's own
/// words, not that the remote has memory this clone lacks.
#[test]
fn a_remote_that_refuses_memory_refs_is_quoted() {
    let repo = TestRepo::new();
    let remote = repo.root.parent().unwrap().join("strict.git");
    repo.git(&["init", "-q", "--bare", remote.to_str().unwrap()]);
    let hook = remote.join("hooks/pre-receive");
    std::fs::write(
        &hook,
        "#!/bin/sh\nwhile read old new ref; do\n  case \"$ref\" in refs/rune/*|refs/notes/*) echo \"memory refs are not allowed on this server\" >&2; exit 1;; esac\ndone\n",
    )
    .unwrap();
    crate::common::make_executable(&hook);
    repo.git(&["remote", "add", "origin", remote.to_str().unwrap()]);
    repo.commit_file("a", "a", "first");
    repo.rune(&["-q", "init", "--hooks"]).success();
    repo.learn("k", "shared");
    repo.commit_file("b", "b", "second");
    let out = repo.git_output(&["push", "origin", "main"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("origin refused refs/rune/memory (pre-receive hook declined)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("the remote said: memory refs are not allowed on this server"),
        "{stderr}"
    );
    assert!(!stderr.contains("this clone lacks"), "{stderr}");
}
