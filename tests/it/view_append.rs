//! Writes that only add records at the ends of the lists the view shows (issue 16): the view
//! is brought up to date by appending, and load's digest grown from the last one. After each
//! step the view must be byte for byte what rendering every file afresh writes, and `load`
//! what the whole fold gives; the manifest shows which steps appended.

use std::collections::BTreeMap;

use crate::common::{assert_view_clean, TestRepo};

fn view_files(repo: &TestRepo) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(repo.root.join(".rune")).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        out.insert(name.clone(), repo.read(&format!(".rune/{name}")));
    }
    out
}

/// Whether the last refresh appended to learnings.jsonl (its content id names parts).
fn learnings_appended(repo: &TestRepo) -> bool {
    appended(repo, "learnings.jsonl")
}

/// Whether a refresh appended to a view file since it was last rendered whole.
fn appended(repo: &TestRepo, file: &str) -> bool {
    let manifest: serde_json::Value =
        serde_json::from_str(&repo.read(".git/rune/view.json")).unwrap();
    manifest["files"][file]["blob"]
        .as_str()
        .unwrap()
        .contains('+')
}

/// The view and `load` as they are equal a full render and a load from the whole fold.
fn compare(repo: &TestRepo, step: &str) {
    assert_view_clean(repo);
    let load = repo.rune(&["load"]).success().stdout;
    let files = view_files(repo);
    std::fs::remove_dir_all(repo.root.join(".git/rune/cache/digest")).unwrap();
    assert_eq!(
        load,
        repo.rune(&["load"]).success().stdout,
        "load after {step}"
    );
    std::fs::remove_dir_all(repo.root.join(".rune")).unwrap();
    repo.rune(&["-q", "restore"]).success();
    assert_eq!(files, view_files(repo), "view after {step}");
}

#[test]
fn writes_that_add_at_the_ends_append_and_leave_what_a_full_render_would() {
    let repo = TestRepo::new();
    repo.commit_file("a.rs", "fn a() {}\n", "start");
    repo.rune(&["-q", "init"]).success();
    for i in 0..5 {
        repo.learn(&format!("k{i}"), &format!("insight {i}"));
    }
    repo.decide("first", "d", &[]);
    repo.rune(&["-q", "save", "-m", "base"]).success();
    // The first render after the save is a full one: it leaves the index appends start from.
    compare(&repo, "the base");

    repo.learn("k-new", "a new key");
    assert!(learnings_appended(&repo), "a new key appends");
    // The echoes' caches of the new trees are there: the next `echo search` is warm.
    let key = format!(
        "{}-{}",
        repo.git(&["rev-parse", "refs/rune/memory^{tree}"]).trim(),
        repo.git(&["rev-parse", "refs/rune/branches/main^{tree}"])
            .trim()
    );
    for dir in ["echoes", "echo-index"] {
        let path = repo.root.join(".git/rune/cache").join(dir).join(&key);
        assert!(path.exists(), "{}", path.display());
    }
    compare(&repo, "learn, new key");

    repo.learn("k-files", "names a file");
    repo.rune(&[
        "-q",
        "learn",
        "--type",
        "error",
        "--key",
        "f",
        "--insight",
        "i",
        "--files",
        "a.rs",
    ])
    .success();
    repo.decide("second", "d2", &["--files", "a.rs"]);
    compare(&repo, "learn with files, decide");

    // The same key again takes the place of the line shown (the file is written whole).
    repo.learn("k1", "a newer insight");
    repo.learn("k-new", "newer again, and its line had been appended");
    let text = repo.read(".rune/learnings.jsonl");
    assert_eq!(text.matches("\"key\":\"k1\"").count(), 1, "{text}");
    assert!(
        text.ends_with("newer again, and its line had been appended\",\"confidence\":0.7}\n"),
        "{text}"
    );
    compare(&repo, "learn, same key");

    // Lines an agent appends, stamped now or not stamped at all, then saved.
    repo.learn("k-before", "so the next step appends");
    repo.append(
        ".rune/learnings.jsonl",
        "{\"type\":\"insight\",\"key\":\"appended-1\",\"insight\":\"one\",\"confidence\":0.5}\n\
         {\"ts\":\"2030-01-01T00:00:00Z\",\"type\":\"error\",\"key\":\"appended-2\",\"insight\":\"two\"}\n",
    );
    let out = repo.rune(&["save"]).success();
    assert!(out.stdout.contains("2 added"), "{}", out.stdout);
    assert!(
        learnings_appended(&repo),
        "an appended line is saved by appending"
    );
    compare(&repo, "append + save");

    // A line dated before the newest one belongs further up: the log takes it there.
    repo.append(
        ".rune/learnings.jsonl",
        "{\"ts\":\"2020-01-01T00:00:00Z\",\"type\":\"insight\",\"key\":\"old\",\"insight\":\"x\"}\n",
    );
    repo.rune(&["-q", "save"]).success();
    assert!(!learnings_appended(&repo));
    let text = repo.read(".rune/learnings.jsonl");
    assert!(
        text.starts_with("{\"ts\":\"2020-01-01T00:00:00Z\""),
        "{text}"
    );
    compare(&repo, "append of an older line + save");

    // A seed's log imported: dated between lines shown, a key shown with a newer line (not
    // shown), a key shown with an older line (takes its place), and one at the end.
    let seed = tempfile::tempdir().unwrap();
    std::fs::write(
        seed.path().join("learnings.jsonl"),
        "{\"ts\":\"2021-01-01T00:00:00Z\",\"type\":\"insight\",\"key\":\"seed-1\",\"insight\":\"a\"}\n\
         {\"ts\":\"2021-06-01T00:00:00Z\",\"type\":\"insight\",\"key\":\"k2\",\"insight\":\"older than k2's\"}\n\
         {\"ts\":\"2029-01-01T00:00:00Z\",\"type\":\"insight\",\"key\":\"old\",\"insight\":\"newer than old's\"}\n\
         {\"ts\":\"2031-01-01T00:00:00Z\",\"type\":\"insight\",\"key\":\"seed-2\",\"insight\":\"b\"}\n",
    )
    .unwrap();
    repo.rune(&["-q", "import", "rune-dir", seed.path().to_str().unwrap()])
        .success();
    let text = repo.read(".rune/learnings.jsonl");
    assert!(!text.contains("older than k2's"), "{text}");
    assert!(text.contains("newer than old's"), "{text}");
    // The 2020 line of "old" gave its place up to the 2029 one.
    assert!(
        text.starts_with("{\"ts\":\"2021-01-01T00:00:00Z\"") && !text.contains("2020-01-01"),
        "{text}"
    );
    compare(&repo, "import of a dated seed");
}

#[test]
fn an_appended_line_edited_while_or_after_a_write_is_never_lost() {
    let repo = TestRepo::new();
    repo.commit_file("a.rs", "fn a() {}\n", "start");
    repo.rune(&["-q", "init"]).success();
    repo.learn("k0", "zero");
    repo.rune(&["-q", "save", "-m", "base"]).success();
    repo.learn("k1", "one");
    // Unsaved lines at the end, then a write: the file is kept as the agent left it.
    repo.append(
        ".rune/learnings.jsonl",
        "{\"type\":\"insight\",\"key\":\"mine\",\"insight\":\"not saved yet\"}\n",
    );
    repo.learn("k2", "two");
    assert!(repo.read(".rune/learnings.jsonl").contains("not saved yet"));
    repo.rune(&["-q", "save"]).success();
    let text = repo.read(".rune/learnings.jsonl");
    assert!(
        text.contains("not saved yet") && text.contains("\"k2\""),
        "{text}"
    );
    compare(&repo, "save after a write");
    // An edit in the middle of the file is not an append: the whole save takes it.
    let text = repo
        .read(".rune/learnings.jsonl")
        .replace("\"zero\"", "\"zero, edited\"");
    repo.write(".rune/learnings.jsonl", &text);
    repo.append(
        ".rune/learnings.jsonl",
        "{\"type\":\"insight\",\"key\":\"more\",\"insight\":\"and one more\"}\n",
    );
    let out = repo.rune(&["save"]).success();
    assert!(
        out.stdout.contains("1 added") && out.stdout.contains("1 changed"),
        "{}",
        out.stdout
    );
    compare(&repo, "edit + append + save");
}

#[test]
fn the_first_writes_after_a_branch_switch_append_too() {
    let repo = TestRepo::new();
    repo.commit_file("a.rs", "fn a() {}\n", "start");
    repo.rune(&["-q", "init", "--hooks"]).success();
    repo.learn("k0", "zero");
    repo.rune(&["-q", "progress", "--next", "main's next"])
        .success();
    repo.rune(&["-q", "save", "-m", "on main"]).success();
    repo.learn("k1", "one");
    for (round, (args, branch)) in [
        (&["checkout", "-q", "-b", "feature"][..], "feature"),
        (&["checkout", "-q", "main"][..], "main"),
        (&["checkout", "-q", "feature"][..], "feature"),
    ]
    .into_iter()
    .enumerate()
    {
        repo.git(args);
        // Session state written on the branch: its own lists' ends move with the switch.
        repo.rune(&["-q", "progress", "--next", &format!("{branch}'s next")])
            .success();
        assert!(
            appended(&repo, "progress.md"),
            "the first write after `git {}` appends",
            args.join(" ")
        );
        repo.learn(&format!("after-{round}"), "written right after a switch");
        assert!(
            learnings_appended(&repo),
            "the first learn after `git {}`",
            args.join(" ")
        );
        repo.rune(&["-q", "save", "-m", &format!("on {branch}")])
            .success();
        compare(&repo, &format!("writes after `git {}`", args.join(" ")));
    }
}
