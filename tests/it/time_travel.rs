//! Memory as it was: `load --at` and `show --at` a code commit.

use crate::common::{json_lines, TestRepo};

fn decide(repo: &TestRepo, title: &str) {
    repo.decide(title, "d", &[]);
}

#[test]
fn load_and_show_at_an_old_commit_show_the_old_decisions() {
    let repo = TestRepo::new();
    decide(&repo, "First");
    let old = repo.commit_file("a", "1", "one");
    decide(&repo, "Second");
    repo.commit_file("a", "2", "two");
    decide(&repo, "Third");

    let titles = |args: &[&str]| -> Vec<String> {
        json_lines(&repo.rune(args).success().stdout)
            .iter()
            .map(|l| l["title"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        titles(&["show", "decisions", "--json"]),
        ["First", "Second", "Third"]
    );
    assert_eq!(
        titles(&["show", "decisions", "--json", "--at", &old]),
        ["First"]
    );
    assert_eq!(
        titles(&["show", "decisions", "--json", "--at", "HEAD"]),
        ["First", "Second"]
    );
    let load = repo.rune(&["load", "--at", "HEAD~1"]).success().stdout;
    assert!(load.contains("First") && !load.contains("Second"), "{load}");
    let bad = repo.rune(&["load", "--at", "no-such-rev"]).failure();
    assert!(
        bad.stderr
            .contains("\"no-such-rev\" does not name a commit here"),
        "{}",
        bad.stderr
    );
}
