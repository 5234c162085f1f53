//! The core commands run in process, their output written to buffers through the
//! injectable [`Ui`] and snapshotted (load, status, show, log, why, and a failure's report).

use std::path::Path;
use std::process::{Command as Git, ExitCode};

use clap::FromArgMatches as _;

use super::{dispatch, Context};
use crate::output::Ui;

/// A scratch repository made with the git CLI, with a first commit.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["init", "-q", "-b", "main"][..],
        &["config", "user.name", "Ada"],
        &["config", "user.email", "ada@example.com"],
        &["config", "color.ui", "never"],
    ] {
        git(dir.path(), args);
    }
    std::fs::write(dir.path().join("parser.js"), "one\ntwo\nthree\n").unwrap();
    git(dir.path(), &["add", "parser.js"]);
    git(dir.path(), &["commit", "-q", "-m", "parser"]);
    dir
}

fn git(dir: &Path, args: &[&str]) {
    let out = Git::new("git")
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_DATE", "1767225600 +0000")
        .env("GIT_COMMITTER_DATE", "1767225600 +0000")
        .env("GIT_RUNE_SKIP_HOOKS", "1")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs `git rune <args>` in process in `dir`: exit code, stdout and stderr.
fn rune(dir: &Path, args: &[&str]) -> (u8, String, String) {
    let matches = crate::cli::command()
        .try_get_matches_from(std::iter::once("git-rune").chain(args.iter().copied()))
        .unwrap_or_else(|e| panic!("{args:?}: {e}"));
    let cli = crate::cli::Cli::from_arg_matches(&matches).unwrap();
    let (ui, out, err) = Ui::capture(cli.global.quiet, cli.global.json);
    let ctx = Context::new(
        dir.to_path_buf(),
        crate::cli::command,
        &cli.global,
        &cli.command,
        ui,
    );
    let code = match dispatch(&ctx, cli.command) {
        Ok(code) => (0..=255u8)
            .find(|n| ExitCode::from(*n) == code)
            .unwrap_or(255),
        Err(e) => {
            let mut buf = Vec::new();
            crate::output::write_report(&mut buf, &e).unwrap();
            ctx.ui.notice(String::from_utf8_lossy(&buf).trim_end());
            crate::output::kind_of(&e).exit_code()
        }
    };
    (code, out.text(), err.text())
}

/// Exit code, stdout and stderr together, with times, ids and the path made stable.
fn shown(dir: &Path, (code, out, err): (u8, String, String)) -> String {
    let text = format!("exit: {code}\n--- stdout\n{out}--- stderr\n{err}");
    let text = text.replace(&dir.display().to_string(), "[REPO]");
    regex_lite(&text)
}

/// Times and hex ids replaced by placeholders (no regex crate for one test: a scan).
fn regex_lite(text: &str) -> String {
    let mut out = String::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        // 2026-01-01T00:00:00Z / 2026-01-01 00:00 / 2026-01-01
        if i + 10 <= b.len()
            && b[i..i + 4].iter().all(u8::is_ascii_digit)
            && b[i + 4] == b'-'
            && b[i + 7] == b'-'
        {
            let mut j = i + 10;
            let digits = |from: usize| {
                from + 2 <= b.len() && b[from..from + 2].iter().all(u8::is_ascii_digit)
            };
            if j + 6 <= b.len()
                && (b[j] == b'T' || b[j] == b' ')
                && digits(j + 1)
                && b[j + 3] == b':'
                && digits(j + 4)
            {
                j += 6;
                if j + 3 <= b.len() && b[j] == b':' && digits(j + 1) {
                    j += 3;
                }
                if j < b.len() && b[j] == b'Z' {
                    j += 1;
                }
            }
            out.push_str("[TIME]");
            i = j;
            continue;
        }
        // A run of 7 or more hex digits standing alone is an id.
        let start = i;
        let mut j = i;
        while j < b.len() && b[j].is_ascii_hexdigit() && !b[j].is_ascii_uppercase() {
            j += 1;
        }
        let alone = |k: usize| k >= b.len() || !b[k].is_ascii_alphanumeric();
        if j - start >= 7
            && (start == 0 || !b[start - 1].is_ascii_alphanumeric())
            && alone(j)
            && b[start..j].iter().any(|c| c.is_ascii_digit())
        {
            out.push_str("[ID]");
            i = j;
            continue;
        }
        let ch = text[i..].chars().next().unwrap();
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

#[test]
fn core_commands_in_process() {
    let dir = repo();
    let d = dir.path();
    assert_eq!(rune(d, &["-q", "init", "--no-hooks"]).0, 0);
    let (code, _, err) = rune(
        d,
        &[
            "-q",
            "decide",
            "Use Postgres",
            "--context",
            "We need transactions",
            "--decision",
            "Postgres 16",
            "--rationale",
            "The team knows it",
            "--impact",
            "db/",
            "--files",
            "parser.js",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        rune(
            d,
            &[
                "-q",
                "learn",
                "--type",
                "error",
                "--key",
                "flaky-ci",
                "--insight",
                "A shared temp dir"
            ]
        )
        .0,
        0
    );
    assert_eq!(
        rune(
            d,
            &[
                "-q",
                "checkpoint",
                "--doing",
                "Migrations, step 2",
                "--resume",
                "Write the rollback"
            ]
        )
        .0,
        0
    );
    insta::assert_snapshot!("load", shown(d, rune(d, &["load"])));
    insta::assert_snapshot!("status", shown(d, rune(d, &["status"])));
    insta::assert_snapshot!("show_decisions", shown(d, rune(d, &["show", "decision"])));
    insta::assert_snapshot!(
        "show_learnings_json",
        shown(d, rune(d, &["show", "learnings", "--json"]))
    );
    // Three writes may share a second: the lines' order is by time, so compare them sorted.
    let mut log: Vec<String> = shown(d, rune(d, &["log"]))
        .lines()
        .map(str::to_owned)
        .collect();
    log.sort();
    insta::assert_snapshot!("log", log.join("\n"));
    insta::assert_snapshot!("why_line", shown(d, rune(d, &["why", "parser.js:2"])));
    insta::assert_snapshot!("task_unknown", shown(d, rune(d, &["task", "start", "7"])));
}

/// `git for-each-ref refs/rune` in `dir`: what memory's refs point at.
fn rune_refs(dir: &Path) -> String {
    let out = Git::new("git")
        .current_dir(dir)
        .args(["for-each-ref", "refs/rune"])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

/// The write path in process: a hand edit of `.rune/` saved, a save that nothing changed, a
/// view file that does not parse (exit 65, nothing written, the file as written), and a
/// `load` on memory that needs no upkeep (no commit, and its JSON says so).
#[test]
fn saving_view_edits_in_process() {
    let dir = repo();
    let d = dir.path();
    assert_eq!(rune(d, &["-q", "init", "--no-hooks"]).0, 0);
    let decisions = d.join(".rune/decisions.md");
    let text = std::fs::read_to_string(&decisions).unwrap();
    let added = "\n## [2026-01-01 10:00] Decision: Keep the parser\n\n\
                 **Context:** It is small\n**Decision:** Keep it\n**Rationale:** Works\n\
                 **Impact:** parser.js\n";
    std::fs::write(&decisions, format!("{text}{added}")).unwrap();
    insta::assert_snapshot!(
        "save_edit",
        shown(d, rune(d, &["save", "-m", "kept the parser"]))
    );
    insta::assert_snapshot!("save_nothing", shown(d, rune(d, &["save"])));

    let refs = rune_refs(d);
    let saved = std::fs::read_to_string(&decisions).unwrap();
    let broken = format!("{saved}\n## [2026-1-45] Decision: Bad date\n\n**Decision:** x\n");
    std::fs::write(&decisions, &broken).unwrap();
    insta::assert_snapshot!("save_parse_error", shown(d, rune(d, &["save"])));
    assert_eq!(rune_refs(d), refs, "a failed save writes nothing");
    assert_eq!(std::fs::read_to_string(&decisions).unwrap(), broken);
    std::fs::write(&decisions, &saved).unwrap();

    let (code, out, _) = rune(d, &["load", "--json"]);
    assert_eq!(code, 0);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["wrote"]["commits"], 0, "{out}");
    assert_eq!(rune_refs(d), refs, "load wrote no memory commit");
}
