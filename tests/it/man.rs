//! `git rune --help` works once the manual pages are installed (git turns it into
//! `man git-rune`); shell completions.

use std::process::Command;

use crate::common::TestRepo;

#[test]
fn git_rune_help_shows_the_manual_page() {
    let repo = TestRepo::new();
    // A layout like cargo's: <prefix>/bin/git-rune and <prefix>/share/man/man1.
    let prefix = repo.home.join("prefix");
    let bin = prefix.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_git-rune"), bin.join("git-rune")).unwrap();
    let run = |args: &[&str], extra: &[(&str, &str)]| {
        let mut cmd = Command::new(bin.join("git-rune"));
        repo.env(&mut cmd);
        for (k, v) in extra {
            cmd.env(k, v);
        }
        cmd.args(args).output().unwrap()
    };
    // Without GIT_RUNE_MAN_DIR, init puts the pages beside the binary.
    let out = run(&["init"], &[("GIT_RUNE_MAN_DIR", "")]);
    assert!(out.status.success());
    let mut cmd = Command::new(bin.join("git-rune"));
    repo.env(&mut cmd);
    cmd.env_remove("GIT_RUNE_MAN_DIR");
    let out = cmd.args(["init"]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("installed manual pages in"), "{stdout}");
    let man1 = prefix.join("share/man/man1");
    assert!(man1.join("git-rune.1").is_file());
    assert!(man1.join("git-rune-save.1").is_file());
    let page = std::fs::read_to_string(man1.join("git-rune.1")).unwrap();
    assert!(
        page.contains(".TH git-rune 1"),
        "{}",
        &page[..200.min(page.len())]
    );
    // Installing again changes nothing.
    let out = run(&["install-man", "--dir", man1.to_str().unwrap()], &[]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!(
            "manual pages in {} (0 written); `git rune --help` shows them\n",
            man1.display()
        )
    );
    // git finds it: `git rune --help` is `man git-rune`, and man looks beside PATH's bin dirs.
    if Command::new("man").arg("--version").output().is_ok() {
        let mut git = Command::new("git");
        repo.env(&mut git);
        let path = format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let out = git
            .env("PATH", path)
            .env("MANPAGER", "cat")
            .env("PAGER", "cat")
            .env_remove("MANPATH")
            .args(["rune", "--help"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("git-rune") && text.contains("save"),
            "{text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn completions_are_generated_for_each_shell() {
    let repo = TestRepo::new();
    let bash = repo.rune(&["completions", "bash"]).success().stdout;
    assert!(bash.contains("_git__rune()"), "{bash}");
    assert!(
        bash.contains("_git_rune()"),
        "git's completion hook is there"
    );
    for shell in ["zsh", "fish"] {
        let out = repo.rune(&["completions", shell]).success().stdout;
        assert!(out.contains("decide"), "{shell}: {out}");
    }
    repo.rune(&["completions", "tcsh"]).failure();
    let out = repo.rune(&["completions", "bash", "--json"]).failure();
    assert!(out.stderr.contains("drop --json"), "{}", out.stderr);
}
