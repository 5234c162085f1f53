//! `git rune --help` works once the manual pages are installed (git turns it into
//! `man git-rune`); shell completions.

use std::process::Command;

use crate::common::TestRepo;

#[test]
fn git_rune_help_works_before_init_and_init_writes_no_pages() {
    let repo = TestRepo::new();
    // A layout like cargo's: <prefix>/bin/git-rune and <prefix>/share/man/man1.
    let prefix = repo.home.join("prefix");
    let bin = prefix.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    // A hard link where it can be: a copy is written through a file descriptor that another
    // test thread's fork may still hold when this one executes it ("Text file busy").
    let exe = bin.join("git-rune");
    if std::fs::hard_link(env!("CARGO_BIN_EXE_git-rune"), &exe).is_err() {
        std::fs::copy(env!("CARGO_BIN_EXE_git-rune"), &exe).unwrap();
    }
    let run = |args: &[&str]| {
        let mut tries = 0;
        loop {
            let mut cmd = Command::new(&exe);
            repo.env(&mut cmd);
            cmd.env_remove("GIT_RUNE_MAN_DIR");
            match cmd.args(args).output() {
                // ETXTBSY: the copy's descriptor is still open in a forked child.
                Err(e) if e.raw_os_error() == Some(26) && tries < 100 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                other => break other.unwrap(),
            }
        }
    };
    let man1 = prefix.join("share/man/man1");
    // Before any page is installed, help falls back to the long help.
    let out = run(&["help"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Record memory:") && text.contains("Exit status:"),
        "{text}"
    );
    let out = run(&["help", "decide"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("--context-file"));
    assert!(!run(&["help", "nosuch"]).status.success());
    // init does not write pages beside the binary, and says how to install them.
    let out = run(&["init"]);
    assert!(out.status.success());
    assert!(!man1.exists(), "init wrote manual pages");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("git rune install-man"), "{stderr}");
    // The binary's own command installs them beside it.
    let out = run(&["install-man"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(man1.join("git-rune.1").is_file());
    assert!(man1.join("git-rune-save.1").is_file());
    assert!(man1.join("git-rune-task-add.1").is_file());
    let page = std::fs::read_to_string(man1.join("git-rune-decide.1")).unwrap();
    for section in [
        ".SH NAME",
        ".SH SYNOPSIS",
        ".SH DESCRIPTION",
        ".SH OPTIONS",
        ".SH EXAMPLES",
        ".SH \"EXIT STATUS\"",
        ".SH ENVIRONMENT",
        ".SH CONFIGURATION",
        ".SH FILES",
        ".SH \"SEE ALSO\"",
    ] {
        assert!(page.contains(section), "git-rune-decide.1 lacks {section}");
    }
    assert!(
        page.contains("\\-\\-context <TEXT>"),
        "value names in the synopsis"
    );
    assert!(page.contains("GIT_RUNE_SKIP_HOOKS") && page.contains("GIT_RUNE_DATA_DIR"));
    assert!(page.contains("rune.strictPush"));
    // Installing again changes nothing.
    let out = run(&["install-man", "--dir", man1.to_str().unwrap()]);
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
            out.status.success() && text.contains("git-rune") && text.contains("EXIT STATUS"),
            "{text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn read_only_commands_do_not_take_redact() {
    let repo = TestRepo::new();
    for cmd in ["load", "status", "log", "show", "diff", "why", "verify"] {
        let help = repo.rune(&[cmd, "--help"]).success().stdout;
        assert!(!help.contains("--redact"), "{cmd} --help shows --redact");
    }
    for cmd in [
        &["decide", "--help"][..],
        &["learn", "--help"],
        &["save", "--help"],
        &["task", "add", "--help"],
        &["import", "sp-json", "--help"],
    ] {
        let help = repo.rune(cmd).success().stdout;
        assert!(help.contains("--redact"), "{cmd:?} --help lacks --redact");
    }
    let out = repo.rune(&["load", "--redact"]).failure();
    assert_eq!(out.code, 2, "{}", out.stderr);
}

#[test]
fn top_level_help_is_grouped() {
    let repo = TestRepo::new();
    let help = repo.rune(&["-h"]).success().stdout;
    for heading in ["Start and share memory:", "Record memory:", "Read memory:"] {
        assert!(help.contains(heading), "{help}");
    }
    let record = help.find("Record memory:").unwrap();
    let read = help.find("Read memory:").unwrap();
    let decide = help.find("\n  decide").unwrap();
    let load = help.find("\n  load").unwrap();
    assert!(record < decide && decide < read && read < load, "{help}");
    let long = repo.rune(&["--help"]).success().stdout;
    assert!(
        long.contains("Exit status:") && long.contains("65"),
        "{long}"
    );
}

/// Runs bash's completion for `line` (the way bash calls the function `complete` names for
/// its first word, with git's own completion for `git`) and returns the candidates.
fn complete(repo: &TestRepo, line: &str) -> Vec<String> {
    let script = repo.rune(&["completions", "bash"]).success().stdout;
    let path = repo.home.join("git-rune.bash");
    std::fs::write(&path, script).unwrap();
    let git_completion = [
        "/usr/share/bash-completion/completions/git",
        "/etc/bash_completion.d/git",
        "/usr/share/git/completion/git-completion.bash",
    ]
    .into_iter()
    .find(|p| std::path::Path::new(p).is_file())
    .expect("git's bash completion is installed (the bash-completion and git packages)");
    let driver = format!(
        r#"
source {git_completion}
source {script}
COMP_LINE="$1"; COMP_POINT=${{#COMP_LINE}}
read -ra COMP_WORDS <<< "$COMP_LINE"
[[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))
COMPREPLY=()
f=$(complete -p "${{COMP_WORDS[0]}}" | sed -E 's/.*-F ([^ ]+).*/\1/')
if [[ ${{COMP_WORDS[0]}} == git ]]; then "$f"; else "$f" "${{COMP_WORDS[0]}}" "${{COMP_WORDS[COMP_CWORD]}}" "${{COMP_WORDS[COMP_CWORD-1]}}"; fi
printf '%s\n' "${{COMPREPLY[@]}}"
"#,
        script = path.display()
    );
    let mut cmd = Command::new("bash");
    repo.env(&mut cmd);
    let out = cmd
        .args(["-c", &driver, "complete", line])
        .output()
        .expect("run bash");
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .map(str::to_owned)
        .collect()
}

#[test]
fn bash_completes_past_the_first_word() {
    let repo = TestRepo::new();
    for prog in ["git rune", "git-rune"] {
        let got = complete(&repo, &format!("{prog} decide --"));
        for want in [
            "--context",
            "--decision",
            "--files",
            "--decision-file",
            "--redact",
        ] {
            assert!(got.iter().any(|g| g == want), "{prog} decide --: {got:?}");
        }
        let got = complete(&repo, &format!("{prog} learn --type "));
        assert_eq!(
            got,
            ["decision", "error", "insight", "convention", "performance"],
            "{prog} learn --type"
        );
        let got = complete(&repo, &format!("{prog} agent install "));
        for want in ["claude", "agents-md", "cursor", "codex"] {
            assert!(
                got.iter().any(|g| g == want),
                "{prog} agent install: {got:?}"
            );
        }
        let got = complete(&repo, &format!("{prog} show "));
        for want in ["decisions", "learnings", "invariants"] {
            assert!(got.iter().any(|g| g == want), "{prog} show: {got:?}");
        }
        let got = complete(&repo, &format!("{prog} de"));
        assert_eq!(got, ["decide"], "{prog} de");
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
