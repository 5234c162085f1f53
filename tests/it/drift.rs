//! Drift end to end: branch changes, commits ahead / behind, a lost saved commit, stale records.

use crate::common::{decide_args, TestRepo};

fn status(repo: &TestRepo) -> serde_json::Value {
    serde_json::from_str(repo.rune(&["status", "--json"]).success().stdout.trim()).unwrap()
}

#[test]
fn ahead_behind_and_branch_change() {
    let repo = TestRepo::new();
    repo.commit_file("a", "1", "one");
    repo.commit_file("a", "2", "two");
    repo.rune(&["save", "-m", "at two"]).success();
    assert_eq!(status(&repo)["drift"]["ahead"], 0);
    repo.commit_file("a", "3", "three");
    repo.commit_file("a", "4", "four");
    let d = &status(&repo)["drift"];
    assert_eq!(
        (d["ahead"].as_u64(), d["behind"].as_u64()),
        (Some(2), Some(0))
    );
    assert_eq!(d["branch_changed"], false);

    // Back in time and onto another branch: behind, and the branch changed.
    repo.git(&["checkout", "-q", "-b", "other", "HEAD~3"]);
    repo.commit_file("b", "x", "side");
    let d = &status(&repo)["drift"];
    assert_eq!(d["branch_changed"], true, "{d}");
    assert_eq!(d["saved_branch"], "main");
    assert_eq!(
        (d["ahead"].as_u64(), d["behind"].as_u64()),
        (Some(1), Some(1))
    );
    let expected = repo.git(&["rev-list", "--left-right", "--count", "main~2...HEAD"]);
    assert_eq!(expected, "1\t1");
    let text = repo.rune(&["status"]).success().stdout;
    assert!(
        text.contains("branch changed: saved on main, now on other"),
        "{text}"
    );
    assert!(
        text.contains("HEAD is 1 commit ahead of and 1 behind the saved commit"),
        "{text}"
    );
}

#[test]
fn saved_commit_gone_after_rewrite_and_gc() {
    let repo = TestRepo::new();
    repo.commit_file("a", "1", "one");
    repo.commit_file("a", "2", "two");
    repo.rune(&["save", "-m", "at two"]).success();
    repo.git(&["reset", "-q", "--hard", "HEAD~1"]);
    repo.commit_file("a", "2b", "two again");
    repo.git(&["reflog", "expire", "--expire=now", "--all"]);
    repo.git(&["gc", "-q", "--prune=now"]);
    let d = &status(&repo)["drift"];
    assert_eq!(d["saved_commit_missing"], true, "{d}");
    assert!(repo
        .rune(&["load"])
        .success()
        .stdout
        .contains("the saved commit no longer exists"));
}

#[test]
fn records_naming_changed_files_are_stale() {
    let repo = TestRepo::new();
    repo.commit_file("src/lib.rs", "v1", "lib");
    repo.rune(&decide_args(
        "Lib shape",
        &["--files", "src/lib.rs,missing.rs"],
    ))
    .success();
    repo.rune(&["save"]).success();
    let d = &status(&repo)["drift"];
    assert_eq!(d["stale"].as_array().unwrap().len(), 0, "{d}");
    repo.write("src/lib.rs", "v2");
    let d = &status(&repo)["drift"];
    assert_eq!(
        d["stale"][0]["files"],
        serde_json::json!(["src/lib.rs"]),
        "{d}"
    );
    let load = repo.rune(&["load"]).success().stdout;
    assert!(load.contains("[stale: src/lib.rs changed since]"), "{load}");
}

/// A decision recorded before the code it is about is not stale because of that code: the
/// commit whose note carries it is its baseline. It goes stale when the files change after.
#[test]
fn the_commit_that_carries_a_record_is_its_baseline() {
    let repo = TestRepo::new();
    repo.commit_file("src/lib.rs", "v1", "lib");
    repo.rune(&["-q", "init", "--hooks"]).success();
    repo.decide("Lib shape", "d", &["--files", "src/lib.rs"]);
    let implemented = repo.commit_file("src/lib.rs", "v2", "implement the decision");
    let note = repo.git(&["notes", "--ref=rune", "show", "HEAD"]);
    assert!(note.contains("Lib shape"), "{note}");
    let d = &status(&repo)["drift"];
    assert_eq!(d["stale"].as_array().unwrap().len(), 0, "{d}");
    repo.commit_file("src/lib.rs", "v3", "later change");
    let d = &status(&repo)["drift"];
    assert_eq!(
        d["stale"][0]["files"],
        serde_json::json!(["src/lib.rs"]),
        "{d}"
    );
    // As of the implementing commit, nothing was stale yet: drift is the commit's, not today's.
    let at = repo
        .rune(&["--json", "load", "--at", &implemented])
        .success();
    let v: serde_json::Value = serde_json::from_str(&at.stdout).unwrap();
    assert_eq!(v["drift"]["stale"].as_array().unwrap().len(), 0, "{v}");
    assert_eq!(v["head"], implemented.as_str());
    // Editing the record renews its baseline.
    let text = repo
        .read(".rune/decisions.md")
        .replace("**Decision:** d", "**Decision:** d, still");
    repo.write(".rune/decisions.md", &text);
    repo.rune(&["-q", "save"]).success();
    let d = &status(&repo)["drift"];
    assert_eq!(d["stale"].as_array().unwrap().len(), 0, "{d}");
}
