//! `git rune diff`: how memory changed, per view file, between memory commits, code commits
//! (through their notes) and the last save.

use crate::assert_rune_snapshot;
use crate::common::{json_lines, TestRepo};

#[test]
fn diff_since_the_last_save_shows_what_was_recorded_after_it() {
    let repo = TestRepo::new();
    repo.rune(&["-q", "init"]).success();
    repo.decide("Use Postgres", "Postgres it is", &[]);
    repo.rune(&["-q", "save", "-m", "first session"]).success();
    repo.learn("pool-size", "Ten connections per worker are enough");
    repo.decide("Use Redis", "Redis for the cache", &[]);
    let out = repo.rune(&["diff"]).success();
    assert_rune_snapshot!(repo, out);
    let only = repo.rune(&["diff", "--kind", "learnings"]).success();
    assert!(
        only.stdout.starts_with("diff learnings (1 added"),
        "{}",
        only.stdout
    );
    assert!(!only.stdout.contains("decisions"), "{}", only.stdout);
}

#[test]
fn diff_between_memory_commits_and_code_commits() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a\n", "base");
    repo.rune(&["-q", "init", "--hooks"]).success();
    repo.decide("First", "one", &[]);
    let c1 = repo.commit_file("a.txt", "b\n", "after first");
    repo.decide("Second", "two", &[]);
    // Editing a record through the view is a change, not an addition and a removal.
    let text = repo
        .read(".rune/decisions.md")
        .replace("**Decision:** one", "**Decision:** 1");
    repo.write(".rune/decisions.md", &text);
    repo.rune(&["-q", "save"]).success();
    let c2 = repo.commit_file("a.txt", "c\n", "after second");

    let range = format!("{c1}..{c2}");
    let out = repo.rune(&["--json", "diff", &range]).success();
    let v = &json_lines(&out.stdout)[0];
    assert_eq!(v["version"], 1);
    let files = v["files"].as_array().unwrap();
    let decisions = files.iter().find(|f| f["kind"] == "decisions").unwrap();
    assert_eq!(decisions["added"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(decisions["changed"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(decisions["removed"].as_array().unwrap().len(), 0, "{v}");
    assert!(
        decisions["diff"]
            .as_str()
            .unwrap()
            .contains("+**Decision:** 1"),
        "{v}"
    );

    // The first memory commit against memory now: within refs/rune/memory only.
    let log = repo.rune(&["--json", "log"]).success();
    let first = json_lines(&log.stdout)
        .into_iter()
        .rfind(|e| e["ref"] == "refs/rune/memory")
        .unwrap();
    let out = repo
        .rune(&["diff", first["commit"].as_str().unwrap()])
        .success();
    assert!(
        out.stdout
            .starts_with("diff decisions (1 added, 1 changed, 0 removed) refs/rune/memory@"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("session-log"), "{}", out.stdout);

    // The same point on both sides: nothing to show, and it says so.
    let same = repo.rune(&["diff", &format!("{c2}..{c2}")]).success();
    assert_eq!(same.stdout, "");
    assert!(
        same.stderr.contains("no change in memory"),
        "{}",
        same.stderr
    );
}

#[test]
fn diff_of_something_that_is_not_a_commit_says_what_to_pass() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a\n", "base");
    let refs = repo.refs();
    let out = repo.rune(&["diff", "nosuch"]).failure();
    assert_rune_snapshot!(repo, out);
    assert_eq!(repo.refs(), refs);
}
