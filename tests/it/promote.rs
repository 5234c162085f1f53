//! Instinct promotion to the user-level memory (seed 000): two projects, one temporary data
//! directory; sightings, candidates, `--dry-run`, promotion, and `load`'s own section.

use std::path::Path;
use std::process::Command;

use crate::common::{Output, TestRepo};

/// `git-rune` in `repo` with the user-level memory in `data`.
fn rune_with(repo: &TestRepo, data: &Path, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_git-rune"));
    repo.env(&mut cmd);
    cmd.env("GIT_RUNE_DATA_DIR", data).args(args);
    Output::of(cmd.output().unwrap())
}

fn project(file: &str, instincts: &[(&str, &str, &str, &str)]) -> TestRepo {
    let repo = TestRepo::new();
    repo.commit_file(file, "x\n", "start");
    for (name, trigger, action, confidence) in instincts {
        repo.rune(&[
            "-q",
            "instinct",
            name,
            "--trigger",
            trigger,
            "--action",
            action,
            "--confidence",
            confidence,
            "--evidence",
            "corrected twice",
        ])
        .success();
    }
    repo
}

/// `for-each-ref` of the user-level repository.
fn user_refs(data: &Path) -> String {
    let out = Command::new("git")
        .arg("--git-dir")
        .arg(data.join("memory.git"))
        .args(["for-each-ref", "--format=%(refname) %(objectname)"])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn an_instinct_held_in_two_projects_is_promoted_and_loaded() {
    let data_dir = tempfile::tempdir().unwrap();
    let data = data_dir.path();
    let a = project(
        "a.txt",
        &[
            ("pnpm", "Installing packages", "Use pnpm, not npm.", "0.85"),
            ("weak", "Formatting", "Use tabs", "0.6"),
        ],
    );
    let b = project(
        "b.txt",
        &[("use-pnpm", "installing packages", "use pnpm not npm", "0.9")],
    );

    // Nothing leaves a project without the command.
    a.rune(&["load"]).success();
    assert!(!data.join("memory.git").exists());

    // The first project's strong instinct is sighted; no other project yet.
    let out = rune_with(&a, data, &["instinct", "promote"]).success();
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr.contains("recorded 1 of 1 instincts"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("(0 other projects sighted)"),
        "{}",
        out.stderr
    );
    let root_a = a.git(&["rev-list", "--max-parents=0", "HEAD"]);
    let refs = user_refs(data);
    assert!(
        refs.contains(&format!("refs/rune/sightings/{}", root_a.trim())),
        "{refs}"
    );
    assert!(!refs.contains("refs/rune/memory"), "{refs}");
    // Again: already sighted, nothing new.
    let again = rune_with(&a, data, &["instinct", "promote"]).success();
    assert!(again.stderr.contains("recorded 0 of 1"), "{}", again.stderr);
    assert_eq!(user_refs(data), refs);

    // The second project holds it too: offered. A dry run writes nothing, anywhere.
    let dry = rune_with(&b, data, &["instinct", "promote", "--all", "--dry-run"]).success();
    assert_eq!(
        dry.stdout,
        "use-pnpm  2 projects  0.90  installing packages -> use pnpm not npm\n"
    );
    assert!(dry.stderr.contains("would promote 1"), "{}", dry.stderr);
    assert_eq!(user_refs(data), refs, "a dry run wrote");

    let json = rune_with(&b, data, &["--json", "instinct", "promote"]).success();
    let v: serde_json::Value = serde_json::from_str(json.stdout.trim()).unwrap();
    assert_eq!(v["version"], 1);
    assert_eq!(v["other_projects"], 1);
    assert_eq!(v["candidates"][0]["name"], "use-pnpm", "{v}");
    assert_eq!(v["candidates"][0]["projects"], 2, "{v}");
    assert_eq!(v["promoted"], serde_json::json!([]));

    // A name that is not offered is refused, and nothing is promoted.
    let refused = rune_with(&b, data, &["instinct", "promote", "nope"]).failure();
    assert!(
        refused.stderr.contains("\"nope\" is not offered"),
        "{}",
        refused.stderr
    );
    assert!(!user_refs(data).contains("refs/rune/memory"));

    let done = rune_with(&b, data, &["instinct", "promote", "USE-PNPM"]).success();
    assert!(
        done.stderr
            .contains("promoted 1 to the user-level memory: use-pnpm"),
        "{}",
        done.stderr
    );
    assert!(user_refs(data).contains("refs/rune/memory"));
    // Promoted: offered no more, in either project.
    let after = rune_with(&a, data, &["instinct", "promote"]).success();
    assert_eq!(after.stdout, "");

    // `load` shows it as a section of its own, in every project; the project's own
    // instincts are untouched.
    let loaded = rune_with(&a, data, &["load"]).success().stdout;
    assert!(
        loaded.contains("## Global instincts (user-level, seen in 2+ projects)\n- use-pnpm: when installing packages → use pnpm not npm (0.9,"),
        "{loaded}"
    );
    assert!(
        loaded.contains("- pnpm: when Installing packages"),
        "{loaded}"
    );
    let json = rune_with(&a, data, &["--json", "load"]).success().stdout;
    assert!(json.contains("\"global_instincts\""), "{json}");
    // Without the user-level memory, no such section.
    assert!(!a
        .rune(&["load"])
        .success()
        .stdout
        .contains("Global instincts"));
}

#[test]
fn an_instinct_named_like_the_subcommand_needs_its_fields() {
    let repo = project("a.txt", &[]);
    // `instinct NAME --trigger …` still records an instinct.
    repo.rune(&[
        "instinct",
        "x",
        "--trigger",
        "t",
        "--action",
        "a",
        "--confidence",
        "0.5",
        "--evidence",
        "e",
    ])
    .success();
    let out = repo.rune(&["instinct", "y"]).failure();
    assert!(out.stderr.contains("--trigger"), "{}", out.stderr);
    let empty = TestRepo::new();
    let data = tempfile::tempdir().unwrap();
    let out = rune_with(&empty, data.path(), &["instinct", "promote"]).failure();
    assert!(out.stderr.contains("no commits yet"), "{}", out.stderr);
}
