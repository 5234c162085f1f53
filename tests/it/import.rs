//! `git rune import rune-dir` / `export rune-dir`: a seed's `.rune/` folder in and out.

use std::path::PathBuf;

use crate::common::TestRepo;

fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/rune-dir")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn imports_every_seed_file_and_twice_adds_nothing() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a\n", "first");
    let seed = fixture("seed");
    let dry = repo
        .rune(&["import", "rune-dir", &seed, "--dry-run"])
        .success();
    // 22 entries, the snapshot as a document, and the frames of three files whose titles
    // are not the view's own (`# Decisions`, `# Cumulative Notes`, `# Invariants`).
    assert!(
        dry.stdout.contains("would add 25 records"),
        "{}",
        dry.stdout
    );
    assert!(dry.stdout.contains("decisions.md: 2 entries, 0 kept raw"));
    assert!(dry
        .stdout
        .contains("pre-compact-snapshot.md: 1 entries, 0 kept raw"));
    assert_eq!(repo.refs(), repo.refs(), "stable");
    assert!(
        !repo
            .git(&["for-each-ref", "refs/rune/"])
            .contains("refs/rune"),
        "dry run wrote"
    );

    let out = repo.rune(&["import", "rune-dir", &seed]).success();
    assert!(out.stdout.contains("added 25 records"), "{}", out.stdout);
    // The shared memory commit names the folder, not where it lies on this machine.
    let message = repo.git(&["log", "-1", "--format=%s", "refs/rune/memory"]);
    let name = std::path::Path::new(&seed)
        .file_name()
        .unwrap()
        .to_string_lossy();
    assert_eq!(message, format!("import rune-dir: {name}"));
    // A file no parser reads is a document, written back whole.
    assert_eq!(
        repo.read(".rune/pre-compact-snapshot.md"),
        std::fs::read_to_string(format!("{seed}/pre-compact-snapshot.md")).unwrap()
    );
    assert!(repo.read(".rune/decisions.md").starts_with("# Decisions\n"));
    // The oracle dispatch is an oracle record, not a raw note.
    assert!(!out.stderr.contains("oracle-pending"), "{}", out.stderr);
    let oracles = repo.rune(&["oracle", "list"]).success().stdout;
    assert!(
        oracles.contains("oracle-1714234500-abc123") && oracles.contains("claude-opus-4-7"),
        "{oracles}"
    );

    // Dates in headings are the entries' times.
    let decisions = repo.read(".rune/decisions.md");
    assert!(
        decisions.contains("## [2026-04-04 14:30] Decision: Zustand for client state"),
        "{decisions}"
    );
    assert!(repo
        .read(".rune/learnings.jsonl")
        .contains("\"ts\":\"2026-04-05T08:00:00Z\""));
    assert!(repo.read(".rune/tasks.md").contains("TASK_002"));
    assert!(repo.read(".rune/checkpoint.md").contains("handle 429"));
    let notes = repo.read(".rune/cumulative-notes.md");
    assert!(!notes.contains("## Imported"), "{notes}");
    assert!(!notes.contains("bundleHash"), "{notes}");
    // The archive is a resolved checkpoint, in history.
    let all = repo.rune(&["show", "checkpoint", "--all"]).success().stdout;
    assert!(
        all.contains("resolved") && all.contains("Moving the store to Zustand"),
        "{all}"
    );
    assert!(
        all.contains("open") && all.contains("Adding error handling"),
        "{all}"
    );

    let refs = repo.refs();
    let again = repo.rune(&["import", "rune-dir", &seed]).success();
    assert!(again.stdout.contains("added 0 records"), "{}", again.stdout);
    assert_eq!(repo.refs(), refs, "a second import wrote");
}

#[test]
fn sloppy_files_are_read_and_what_fails_is_kept_raw() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a\n", "first");
    let out = repo
        .rune(&["import", "rune-dir", &fixture("sloppy")])
        .success();
    assert!(
        out.stdout.contains("decisions.md: 2 entries, 0 kept raw"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("progress.md: 1 entries"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("session-log.md: 2 entries"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("learnings.jsonl: 1 entries, 1 kept raw"),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr.contains("instincts.md: line 2: confidence"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("learnings.jsonl: line 4"),
        "{}",
        out.stderr
    );
    let decisions = repo.read(".rune/decisions.md");
    assert!(decisions.contains("Keep CRLF files readable") && !decisions.contains('\r'));
    assert!(decisions.contains("2026-04-07"), "{decisions}");
    let notes = repo.read(".rune/cumulative-notes.md");
    assert!(
        repo.read(".rune/notes-to-self.md")
            .contains("Stray notes a model left here."),
        "a file no parser reads is a document"
    );
    assert!(notes.contains("overconfident"), "{notes}");

    // oracle-pending/: CRLF, snake_case keys, a date without seconds, no timeoutAt, a field
    // the record has no place for (kept raw); a hash cut short by a model (kept raw whole).
    assert!(
        out.stdout
            .contains("oracle-pending/oracle-1714234600-def456.json: 1 entries, 1 kept raw"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("oracle-pending/oracle-1714234700-ghi789.json: 0 entries, 1 kept raw"),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr.contains(
            "oracle-pending/oracle-1714234700-ghi789.json: line 1: bundleHash: \"sha256:9f3a...\""
        ),
        "{}",
        out.stderr
    );
    assert!(notes.contains("\"attempts\":2"), "{notes}");
    assert!(notes.contains("oracle-1714234700-ghi789"), "{notes}");
    let list = repo.rune(&["--json", "oracle", "list"]).success().stdout;
    assert!(list.contains("\"2026-04-27T13:00:00Z\""), "{list}");
    assert!(list.contains("\"2026-04-27T13:10:00Z\""), "{list}");
    assert!(list.contains("\"complete\""), "{list}");
    assert!(!list.contains("ghi789"), "{list}");
}

#[test]
fn an_imported_checkpoint_resolves_the_open_one() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a\n", "first");
    repo.rune(&["checkpoint", "--doing", "Writing the parser"])
        .success();
    repo.rune(&["import", "rune-dir", &fixture("seed")])
        .success();
    let all = repo.rune(&["show", "checkpoint", "--all"]).success().stdout;
    let line = all
        .lines()
        .find(|l| l.contains("Writing the parser"))
        .unwrap_or_else(|| panic!("{all}"));
    assert!(line.contains("resolved"), "{all}");
    assert!(
        repo.read(".rune/checkpoint.md")
            .contains("Adding error handling"),
        "the imported one is open"
    );
    // Importing again resolves nothing more and adds nothing.
    let again = repo
        .rune(&["import", "rune-dir", &fixture("seed")])
        .success();
    assert!(again.stdout.contains("added 0 records"), "{}", again.stdout);
}

#[test]
fn a_secret_refuses_the_whole_import_unless_redact() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a\n", "first");
    let dir = repo.root.parent().unwrap().join("seed");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("decisions.md"),
        "## [2026-04-04 10:00] Decision: fine\n**Decision:** ok\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("task-notes.md"),
        format!(
            "## What Failed\n- the key {} leaked\n",
            ["AKIA", "Q3EGRE7K", "HX2WZJ5T"].concat()
        ),
    )
    .unwrap();
    let d = dir.display().to_string();
    let out = repo.rune(&["import", "rune-dir", &d]).failure();
    assert!(out.stderr.contains("task-notes.md:2"), "{}", out.stderr);
    assert!(!repo
        .git(&["for-each-ref", "refs/rune/"])
        .contains("refs/rune"));
    let out = repo.rune(&["import", "rune-dir", &d, "--redact"]).success();
    assert!(out.stdout.contains("added 2 records"), "{}", out.stdout);
}

#[test]
fn the_live_view_is_saved_not_imported() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a\n", "first");
    repo.rune(&["init", "--no-hooks"]).success();
    let out = repo.rune(&["import", "rune-dir"]).failure();
    assert!(out.stderr.contains("git rune save"), "{}", out.stderr);
}

#[test]
fn a_seed_folder_in_the_work_tree_before_init_is_imported() {
    let repo = TestRepo::new();
    repo.write(
        ".rune/decisions.md",
        "## [2026-04-04 10:00] Decision: committed by a seed\n**Decision:** yes\n",
    );
    repo.git(&["add", ".rune"]);
    repo.git(&["commit", "-q", "-m", "seed memory"]);
    let out = repo.rune(&["import", "rune-dir"]).success();
    assert!(out.stdout.contains("added 1 records"), "{}", out.stdout);
}

#[test]
fn init_hints_at_a_committed_rune_folder() {
    let repo = TestRepo::new();
    let seed = "## [2026-04-04 10:00] Decision: d\n**Decision:** yes\n";
    repo.write(".rune/decisions.md", seed);
    repo.git(&["add", ".rune"]);
    repo.git(&["commit", "-q", "-m", "seed memory"]);
    let out = repo.rune(&["init", "--no-hooks"]).success();
    // Regression: init took the committed folder for unsaved edits of its view, wrote its
    // manifest, and `import rune-dir` then refused the folder as git-rune's view.
    assert!(
        out.stderr
            .contains("this branch commits a .rune/ folder (a seed's memory)"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("`git rune import rune-dir`"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("git rune save"), "{}", out.stderr);
    assert_eq!(
        repo.read(".rune/decisions.md"),
        seed,
        "init touched the seed's file"
    );
    assert_eq!(repo.git(&["status", "--porcelain"]), "");

    let out = repo.rune(&["import", "rune-dir"]).success();
    assert!(out.stdout.contains("added 1 records"), "{}", out.stdout);
    assert!(
        out.stderr.contains("git rm -r -q --cached .rune"),
        "{}",
        out.stderr
    );
    // The view took the folder's place, rendered from memory.
    let view = repo.read(".rune/decisions.md");
    assert!(view.contains("Decision: d") && view != seed, "{view}");
    repo.git(&["rm", "-r", "-q", "--cached", ".rune"]);
    repo.git(&["commit", "-q", "-m", "memory moved to git-rune"]);
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    let status = repo.rune(&["status"]).success();
    assert!(!status.stdout.contains("added"), "{}", status.stdout);
    let again = repo.rune(&["init", "--no-hooks"]).success();
    assert!(
        !again.stderr.contains("import rune-dir"),
        "{}",
        again.stderr
    );

    let plain = TestRepo::new();
    plain.commit_file("a.txt", "a\n", "first");
    let out = plain.rune(&["init", "--no-hooks"]).success();
    assert!(!out.stderr.contains("import rune-dir"), "{}", out.stderr);
}

#[test]
fn export_then_import_into_a_fresh_repository_round_trips() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a\n", "first");
    repo.rune(&["import", "rune-dir", &fixture("seed")])
        .success();
    let out_dir = repo.root.parent().unwrap().join("exported");
    let d = out_dir.display().to_string();
    repo.rune(&["export", "rune-dir", &d]).success();
    assert!(out_dir.join("checkpoint-2026-04-04.resolved.md").exists());
    // No overwrite without --force.
    let refused = repo.rune(&["export", "rune-dir", &d]).failure();
    assert!(refused.stderr.contains("--force"), "{}", refused.stderr);
    repo.rune(&["export", "rune-dir", &d, "--force"]).success();

    let fresh = TestRepo::new();
    fresh.commit_file("a.txt", "a\n", "first");
    fresh.rune(&["import", "rune-dir", &d]).success();
    for f in [
        "decisions.md",
        "conventions.md",
        "learnings.jsonl",
        "instincts.md",
        "cumulative-notes.md",
        "INVARIANTS.md",
        "progress.md",
        "session-log.md",
        "checkpoint.md",
        "task-notes.md",
        "tasks.md",
    ] {
        assert_eq!(
            fresh.read(&format!(".rune/{f}")),
            repo.read(&format!(".rune/{f}")),
            "{f}"
        );
    }
    // Oracle dispatches go out as the seed's files and come back as the same records.
    let exported =
        std::fs::read_to_string(out_dir.join("oracle-pending/oracle-1714234500-abc123.json"))
            .unwrap();
    assert!(
        exported.starts_with("{\n  \"sessionId\": \"oracle-1714234500-abc123\",")
            && exported.contains("\"responseId\": null"),
        "{exported}"
    );
    assert_eq!(
        fresh.rune(&["--json", "oracle", "list"]).success().stdout,
        repo.rune(&["--json", "oracle", "list"]).success().stdout
    );
    let all = fresh
        .rune(&["show", "checkpoint", "--all"])
        .success()
        .stdout;
    assert!(
        all.contains("resolved") && all.contains("Moving the store to Zustand"),
        "{all}"
    );
    // Exported into the same repository, it is all already there.
    let again = repo.rune(&["import", "rune-dir", &d]).success();
    assert!(again.stdout.contains("added 0 records"), "{}", again.stdout);
}

#[test]
fn init_in_a_clone_with_a_symbolic_remote_head_gives_the_hint_once() {
    let origin = TestRepo::new();
    origin.commit_file("a.txt", "a\n", "first");
    origin.git(&["branch", "plain"]);
    origin.write(
        ".rune/decisions.md",
        "## [2026-04-04 10:00] Decision: d\n**Decision:** yes\n",
    );
    origin.git(&["add", ".rune"]);
    origin.git(&["commit", "-q", "-m", "seed memory"]);
    let clone = TestRepo::empty_dir();
    let src = origin.root.display().to_string();
    let dst = clone.root.display().to_string();
    clone.git(&["clone", "-q", "-b", "plain", &src, &dst]);
    let out = clone.rune(&["init", "--no-hooks"]).success();
    // origin/HEAD names origin/main, listed once; the checked-out branch holds no folder.
    assert!(
        out.stderr
            .contains("hint: origin/main holds a committed .rune/ folder"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("git archive origin/main .rune"),
        "{}",
        out.stderr
    );
}

#[test]
fn import_and_export_json_shapes() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a\n", "first");
    let parse = |s: &str| -> serde_json::Value { serde_json::from_str(s.trim()).unwrap() };
    let dry = parse(
        &repo
            .rune(&[
                "--json",
                "import",
                "rune-dir",
                &fixture("sloppy"),
                "--dry-run",
            ])
            .success()
            .stdout,
    );
    assert_eq!(dry["version"], 1);
    assert_eq!(dry["dry_run"], true);
    assert_eq!(dry["commits"], serde_json::json!({}));
    assert_eq!(dry["in_work_tree"], false);
    let f = dry["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["file"] == "learnings.jsonl")
        .unwrap()
        .clone();
    assert_eq!(
        (f["entries"].clone(), f["raw"].clone(), f["present"].clone()),
        (1.into(), 1.into(), 0.into()),
        "{f}"
    );
    assert!(
        f["notes"][0].as_str().unwrap().starts_with("line 4:"),
        "{f}"
    );
    let done = parse(
        &repo
            .rune(&["--json", "import", "rune-dir", &fixture("sloppy")])
            .success()
            .stdout,
    );
    assert_eq!(done["added"], dry["added"]);
    assert!(
        done["commits"]["refs/rune/memory"].is_string()
            && done["commits"]["refs/rune/branches/main"].is_string(),
        "{done}"
    );

    let out_dir = repo.root.parent().unwrap().join("exported");
    let d = out_dir.display().to_string();
    let exported = parse(
        &repo
            .rune(&["--json", "export", "rune-dir", &d])
            .success()
            .stdout,
    );
    assert_eq!(exported["version"], 1);
    assert_eq!(exported["dir"], d.as_str());
    let files = exported["files"].as_array().unwrap();
    assert!(
        files.contains(&"decisions.md".into())
            && files.contains(&"oracle-pending/oracle-1714234600-def456.json".into()),
        "{exported}"
    );

    repo.rune(&["task", "add", "One"]).success();
    let sp = parse(
        &repo
            .rune(&["--json", "export", "sp-json", "sp.json"])
            .success()
            .stdout,
    );
    assert!(sp["file"].as_str().unwrap().ends_with("sp.json"), "{sp}");
    let fresh = TestRepo::new();
    fresh.commit_file("a.txt", "a\n", "first");
    std::fs::copy(repo.root.join("sp.json"), fresh.root.join("sp.json")).unwrap();
    let imported = parse(
        &fresh
            .rune(&["--json", "import", "sp-json"])
            .success()
            .stdout,
    );
    assert_eq!(imported["version"], 1);
    assert_eq!(imported["tasks"], 1);
    assert_eq!(imported["renumbered"], serde_json::json!([]));
    assert_eq!(imported["summary"]["pending"], 1, "{imported}");
    assert_eq!(imported["ref"], "refs/rune/branches/main");
}

/// Seed 000: "Learnings JSONL grows unbounded → auto-compact at 100 entries, keep only the
/// latest winner per key+type". Here the view always shows the latest winner per key+type
/// (the fold), however many entries there are, while the ref keeps every entry.
#[test]
fn learnings_past_100_entries_show_the_latest_winner_and_history_keeps_all() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a\n", "first");
    let dir = repo.root.parent().unwrap().join("seed");
    std::fs::create_dir_all(&dir).unwrap();
    let mut jsonl = String::new();
    // 120 entries: 10 keys, 2 types, 6 entries each, one a minute.
    for i in 0..120 {
        let (key, ty) = (i % 10, if i % 20 < 10 { "decision" } else { "error" });
        jsonl.push_str(&format!(
            "{{\"ts\":\"2025-04-04T{:02}:{:02}:00Z\",\"skill\":\"cook\",\"type\":\"{ty}\",\"key\":\"k{key}\",\"insight\":\"entry {i}\",\"confidence\":0.7}}\n",
            10 + i / 60,
            i % 60
        ));
    }
    std::fs::write(dir.join("learnings.jsonl"), &jsonl).unwrap();
    let d = dir.display().to_string();
    let out = repo.rune(&["import", "rune-dir", &d]).success();
    assert!(out.stdout.contains("added 120 records"), "{}", out.stdout);

    // The view: one line per key+type, each the newest entry.
    let view = repo.read(".rune/learnings.jsonl");
    assert_eq!(view.lines().count(), 20, "{view}");
    for (key, ty, newest) in [(0, "decision", 100), (0, "error", 110), (9, "error", 119)] {
        let line = view
            .lines()
            .find(|l| l.contains(&format!("\"key\":\"k{key}\"")) && l.contains(ty))
            .unwrap_or_else(|| panic!("{view}"));
        assert!(line.contains(&format!("\"entry {newest}\"")), "{line}");
    }
    // A new entry for a key (now, newer than the file's) outvotes the old winner; the view
    // stays at 20 lines.
    repo.rune(&[
        "learn",
        "--type",
        "decision",
        "--key",
        "k0",
        "--insight",
        "entry 120",
    ])
    .success();
    let view = repo.read(".rune/learnings.jsonl");
    assert_eq!(view.lines().count(), 20, "{view}");
    assert!(
        view.contains("\"entry 120\"") && !view.contains("\"entry 100\""),
        "{view}"
    );

    // The ref keeps every entry: 121 records, 20 live.
    let all = repo.rune(&["show", "learnings", "--all"]).success().stdout;
    assert_eq!(all.lines().count(), 121, "{all}");
    assert_eq!(
        all.lines().filter(|l| l.starts_with("live")).count(),
        20,
        "{all}"
    );
    let json = repo
        .rune(&["--json", "show", "learnings", "--all"])
        .success()
        .stdout;
    assert!(
        json.contains("\"insight\":\"entry 0\""),
        "the oldest entry is still there"
    );
    // Importing the file again adds nothing.
    let again = repo.rune(&["import", "rune-dir", &d]).success();
    assert!(again.stdout.contains("added 0 records"), "{}", again.stdout);
}

/// Regression: `import sp-json /dev/null` said "null is not JSON" (the file's base name), and
/// a path that could not be read, or a folder to import, was named joined to the current
/// directory. Every import form's errors name the path as it was typed.
#[test]
fn import_errors_name_the_path_as_it_was_typed() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a\n", "first");
    repo.rune(&["-q", "init"]).success();
    repo.write("sub/bad.json", "{\"metadata\":");
    repo.write("sub/nometa.json", "{\"tasks\":[]}");
    let root = repo.root.display().to_string();
    let cases: [(&[&str], &str); 9] = [
        (
            &["import", "sp-json", "/dev/null"],
            "hint: /dev/null is not JSON (",
        ),
        (
            &["import", "sp-json", "sub/bad.json"],
            "hint: sub/bad.json is not JSON (",
        ),
        (
            &["import", "sp-json", "sub/nometa.json"],
            "hint: sub/nometa.json has no \"metadata\" object",
        ),
        (
            &["import", "sp-json", "sub/missing.json"],
            "error: cannot read sub/missing.json: ",
        ),
        (
            &["-C", "sub", "import", "sp-json", "bad.json"],
            "hint: bad.json is not JSON (",
        ),
        (
            &["import", "rune-dir", "sub/missing"],
            "error: sub/missing is not a folder\n",
        ),
        (
            &["import", "rune-dir", "/dev/null"],
            "error: /dev/null is not a folder\n",
        ),
        (
            &["import", "echoes", "sub/missing"],
            "error: cannot read the folder sub/missing: ",
        ),
        (
            &["import", "echoes", "sub/bad.json"],
            "error: cannot read the folder sub/bad.json: ",
        ),
    ];
    for (args, said) in cases {
        let out = repo.rune(args);
        assert_eq!(out.code, 1, "{args:?}: {}", out.snapshot());
        assert!(out.stderr.contains(said), "{args:?}: {}", out.stderr);
        assert!(!out.stderr.contains(&root), "{args:?}: {}", out.stderr);
    }
    // A file inside a folder being imported is named below the folder as typed.
    std::fs::create_dir_all(repo.root.join("ec/planner")).unwrap();
    std::fs::write(repo.root.join("ec/planner/MEMORY.md"), b"\xff\xfe\n").unwrap();
    let out = repo.rune(&["import", "echoes", "ec"]).failure();
    assert!(
        out.stderr.contains("cannot read ec/planner/MEMORY.md: "),
        "{}",
        out.stderr
    );
    std::fs::create_dir_all(repo.root.join("seed")).unwrap();
    std::os::unix::fs::symlink("/etc/hostname", repo.root.join("seed/notes.md")).unwrap();
    let out = repo.rune(&["import", "rune-dir", "./seed"]).failure();
    assert!(
        out.stderr
            .contains("error: ./seed/notes.md is a symbolic link"),
        "{}",
        out.stderr
    );
    assert_eq!(repo.git(&["for-each-ref", "refs/rune/"]), "");
}

/// Regression: a path that could not be read was reported in the system's words ("No such
/// file or directory (os error 2)", "stream did not contain valid UTF-8"). Each import now
/// says why in plain words, exits 1 and imports nothing.
#[test]
fn unreadable_import_paths_are_said_in_plain_words() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a\n", "first");
    std::fs::write(repo.root.join("bad.json"), b"{\xff}").unwrap();
    let before = repo.git_output(&["for-each-ref", "refs/rune"]);
    for (args, says) in [
        (
            &["import", "echoes", "missing"][..],
            "cannot read the folder missing: no such file or folder",
        ),
        (
            &["import", "echoes", "a.txt"],
            "cannot read the folder a.txt: not a directory",
        ),
        (
            &["import", "sp-json", "missing.json"],
            "cannot read missing.json: no such file or folder",
        ),
        (
            &["import", "sp-json", "bad.json"],
            "cannot read bad.json: not UTF-8 text",
        ),
        (
            &[
                "decide",
                "T",
                "--context-file",
                "missing",
                "--decision",
                "d",
                "--rationale",
                "r",
                "--impact",
                "i",
            ],
            "cannot read missing for --context: no such file or folder",
        ),
    ] {
        let out = repo.rune(args);
        assert_eq!(out.code, 1, "{}", out.snapshot());
        assert!(
            out.stderr.contains(says) && !out.stderr.contains("os error"),
            "{args:?}: {}",
            out.snapshot()
        );
    }
    assert_eq!(repo.git_output(&["for-each-ref", "refs/rune"]), before);
}
