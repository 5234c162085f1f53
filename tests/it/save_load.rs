//! save (view edits parsed back into records), load (the session summary) and status.

use crate::assert_rune_snapshot;
use crate::common::{assert_view_clean, decide_args, json_lines, learn_args, TestRepo};

fn decide(repo: &TestRepo, title: &str) {
    repo.decide(title, &format!("{title} it is"), &[]);
}

#[test]
fn save_picks_up_a_seed_style_decision_appended_by_an_agent() {
    let repo = TestRepo::new();
    repo.commit_file("README", "hi", "init");
    repo.rune(&["init"]).success();
    repo.append(
        ".rune/decisions.md",
        "\n## [2026-04-04 14:30] Decision: Cache with Redis\n**Context:** Reads dominate\n**Decision:** Redis in front of Postgres\n**Rationale:** Fewer round trips\n**Impact:** src/cache/\n",
    );
    let status = repo.rune(&["status"]).success();
    assert!(
        status.stdout.contains("modified: .rune/decisions.md"),
        "{}",
        status.stdout
    );
    let out = repo.rune(&["save", "-m", "added caching"]).success();
    assert_rune_snapshot!(repo, out);
    let lines = json_lines(&repo.rune(&["show", "decisions", "--json"]).success().stdout);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["decision"], "Redis in front of Postgres");
    assert_eq!(lines[0]["impact"], "src/cache/");
    assert_view_clean(&repo);
    // Saving again with no edits and no summary writes nothing, and says so.
    let refs = repo.refs();
    let again = repo.rune(&["save"]).success();
    assert_eq!(
        again.stdout,
        "nothing to save: .rune/ has no edits; to record the session anyway, run `git rune save -m \"summary\"`\n"
    );
    assert_eq!(repo.refs(), refs);
    let again = repo.rune(&["save", "-m", "just the session"]).success();
    assert_eq!(again.stdout, "saved session: just the session\n");
    let log = repo.read(".rune/session-log.md");
    assert!(log.contains("— added caching"), "{log}");
}

#[test]
fn edits_and_removals_in_the_view_become_supersedes_and_tombstones() {
    let repo = TestRepo::new();
    decide(&repo, "Alpha");
    decide(&repo, "Beta");
    let before = json_lines(&repo.rune(&["show", "decisions", "--json"]).success().stdout);
    let text = repo.read(".rune/decisions.md");
    let edited = text.replace("Alpha it is", "Alpha, revised");
    let beta_start = edited
        .find("## [")
        .and_then(|first| edited[first + 1..].find("## [").map(|i| i + first + 1))
        .unwrap();
    let edited = edited[..beta_start].trim_end().to_owned() + "\n";
    repo.write(".rune/decisions.md", &edited);
    let out = repo.rune(&["save", "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(out.stdout.trim()).unwrap();
    assert_eq!(
        (
            v["added"].as_u64(),
            v["changed"].as_u64(),
            v["removed"].as_u64()
        ),
        (Some(0), Some(1), Some(1)),
        "{v}"
    );
    let after = json_lines(&repo.rune(&["show", "decisions", "--json"]).success().stdout);
    assert_eq!(after.len(), 1);
    assert_eq!(after[0]["decision"], "Alpha, revised");
    assert_eq!(after[0]["supersedes"][0], before[0]["id"]);
}

#[test]
fn unparseable_edit_is_reported_with_line_and_loses_nothing() {
    let repo = TestRepo::new();
    decide(&repo, "Alpha");
    let refs = repo.refs();
    let mut text = repo.read(".rune/instincts.md");
    text.push_str("\n## [2026-01-01] Instinct: flaky\n**Trigger:** tests time out\n**Action:** rerun once\n**Confidence:** very\n**Evidence:** CI\n");
    repo.write(".rune/instincts.md", &text);
    repo.append(
        ".rune/decisions.md",
        "\n## Decision: Also good\n**Decision:** yes\n",
    );
    let out = repo.rune(&["save", "-m", "x"]).failure();
    assert_rune_snapshot!(repo, out);
    assert_eq!(repo.refs(), refs, "refs unchanged");
    assert_eq!(
        repo.read(".rune/instincts.md"),
        text,
        "file as the user left it"
    );
    assert!(repo.read(".rune/decisions.md").contains("Also good"));
}

#[test]
fn invalid_utf8_is_refused_and_kept() {
    let repo = TestRepo::new();
    decide(&repo, "Alpha");
    let refs = repo.refs();
    let path = repo.root.join(".rune/conventions.md");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.extend_from_slice(b"\n## Convention: bad \xff\xfe bytes\n**Pattern:** x\n");
    std::fs::write(&path, &bytes).unwrap();
    let out = repo.rune(&["save"]).failure();
    assert!(
        out.stderr.contains("conventions.md:3: not valid UTF-8"),
        "{}",
        out.stderr
    );
    assert_eq!(repo.refs(), refs);
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
}

#[test]
fn unsaved_view_edits_survive_other_writes() {
    let repo = TestRepo::new();
    decide(&repo, "Alpha");
    repo.append(
        ".rune/decisions.md",
        "\n## Decision: Hand written\n**Decision:** by an agent\n",
    );
    let edited = repo.read(".rune/decisions.md");
    let out = repo.rune(&decide_args("Gamma", &[])).success();
    assert!(
        out.stderr.contains("decisions.md has unsaved edits"),
        "{}",
        out.stderr
    );
    assert_eq!(repo.read(".rune/decisions.md"), edited, "not clobbered");
    repo.rune(&["save"]).success();
    let titles: Vec<String> =
        json_lines(&repo.rune(&["show", "decisions", "--json"]).success().stdout)
            .iter()
            .map(|l| l["title"].as_str().unwrap().to_owned())
            .collect();
    // Gamma was written after the view was checked out: saving the older view keeps it.
    assert_eq!(titles, ["Alpha", "Gamma", "Hand written"]);
    assert!(repo.read(".rune/decisions.md").contains("Gamma"));
}

#[test]
fn deleted_view_file_is_restored_not_emptied() {
    let repo = TestRepo::new();
    decide(&repo, "Alpha");
    std::fs::remove_file(repo.root.join(".rune/decisions.md")).unwrap();
    assert!(repo
        .rune(&["status"])
        .success()
        .stdout
        .contains("missing:  .rune/decisions.md"));
    repo.rune(&["save"]).success();
    assert!(repo.read(".rune/decisions.md").contains("Alpha"));
    assert_eq!(
        json_lines(&repo.rune(&["show", "decisions", "--json"]).success().stdout).len(),
        1
    );
}

fn fixture() -> TestRepo {
    let repo = TestRepo::new();
    repo.commit_file("src/db.rs", "fn db() {}", "db");
    for t in ["Use Postgres", "Cache with Redis", "Hexagonal layout"] {
        decide(&repo, t);
    }
    repo.rune(&[
        "-q",
        "convention",
        "Errors",
        "--pattern",
        "thiserror inside, anyhow at edges",
    ])
    .success();
    repo.rune(&[
        "-q",
        "learn",
        "--type",
        "error",
        "--key",
        "flaky-ci",
        "--insight",
        "Root cause was a shared temp dir",
        "--confidence",
        "0.9",
    ])
    .success();
    repo.rune(&learn_args(
        "fast-path",
        "Load reads two refs only",
        &["--files", "src/db.rs"],
    ))
    .success();
    repo.rune(&[
        "-q",
        "instinct",
        "Run fmt",
        "--trigger",
        "before commit",
        "--action",
        "cargo fmt",
        "--confidence",
        "0.8",
        "--evidence",
        "CI failed twice",
    ])
    .success();
    repo.rune(&[
        "-q",
        "progress",
        "--completed",
        "schema",
        "--in-progress",
        "migrations (2/3)",
        "--next",
        "Write the rollback",
    ])
    .success();
    repo.rune(&[
        "-q",
        "checkpoint",
        "--doing",
        "Migrations step 2",
        "--left",
        "rollback",
        "--resume",
        "Continue with the rollback in db/migrate.rs",
    ])
    .success();
    repo.rune(&[
        "-q",
        "remember",
        "--section",
        "Active Topics",
        "Migration tooling",
    ])
    .success();
    repo.write(
        ".rune/INVARIANTS.md",
        "# Invariants\n\n## Danger Zones\n\n### Router is L0\n- **What:** never bypass the router\n- **Where:** `src/router/**`\n- **Why:** everything depends on it\n\n## Archived\n\n### Old rule\n- **What:** retired\n",
    );
    repo.rune(&["-q", "save", "-m", "first session"]).success();
    repo
}

#[test]
fn load_prints_the_session_summary() {
    let repo = fixture();
    repo.commit_file("src/db.rs", "fn db() { changed() }", "change db");
    let out = repo.rune(&["load"]).success();
    assert_rune_snapshot!(repo, out);
    assert!(
        !out.stdout.contains("Old rule"),
        "archived invariants are skipped"
    );
    let json: serde_json::Value =
        serde_json::from_str(repo.rune(&["load", "--json"]).success().stdout.trim()).unwrap();
    assert_eq!(json["version"], 1);
    assert_eq!(json["drift"]["ahead"], 1);
    assert_eq!(json["decisions"].as_array().unwrap().len(), 3);
    assert_eq!(
        json["checkpoint"][0]["resume"],
        "Continue with the rollback in db/migrate.rs"
    );
    let stale: Vec<_> = json["learnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["stale"] == true)
        .collect();
    assert_eq!(stale.len(), 1, "the learning naming src/db.rs is stale");
}

#[test]
fn load_respects_the_budget_and_says_what_was_left_out() {
    let repo = fixture();
    for i in 0..40 {
        repo.rune(&[
            "-q",
            "learn",
            "--type",
            "insight",
            "--key",
            &format!("k{i}"),
            "--insight",
            &format!("insight number {i} with some words to take room"),
        ])
        .success();
    }
    // The budget is a ceiling, frame included, however small.
    for budget in [1, 5, 20, 60, 100, 150, 300, 700] {
        let out = repo
            .rune(&["load", "--budget", &budget.to_string()])
            .success();
        assert!(
            out.stdout.len() <= budget * 4,
            "--budget {budget}: {} chars\n{}",
            out.stdout.len(),
            out.stdout
        );
    }
    let tiny = repo.rune(&["load", "--budget", "40"]).success();
    assert!(
        tiny.stdout.contains("Resume: Continue with the rollback"),
        "{}",
        tiny.stdout
    );
    assert!(tiny.stdout.ends_with("</rune-memory>\n"), "{}", tiny.stdout);
    let out = repo.rune(&["load", "--budget", "300"]).success();
    assert!(out.stdout.len() <= 300 * 4, "{} chars", out.stdout.len());
    let lines: Vec<&str> = out.stdout.trim_end().lines().collect();
    assert_eq!(lines[lines.len() - 1], "</rune-memory>");
    let last = lines[lines.len() - 2];
    assert!(last.starts_with("(left out to fit the budget:"), "{last}");
    assert!(last.contains("git rune show learnings"), "{last}");
    assert!(
        out.stdout.contains("Continue with the rollback"),
        "the checkpoint comes first"
    );
    let full = repo.rune(&["load", "--budget", "100000"]).success();
    assert!(full
        .stdout
        .trim_end()
        .ends_with("(nothing left out)\n</rune-memory>"));
}

/// Regression: removing a learning from the view removed only the latest winner, and the older
/// record with the same type+key came back on the next checkout. Same for lowering an instinct's
/// confidence, which the fold's highest-confidence rule undid.
#[test]
fn removing_a_grouped_entry_covers_its_older_copies() {
    let repo = TestRepo::new();
    repo.rune(&learn_args("k", "old", &[])).success();
    repo.rune(&learn_args("k", "new", &[])).success();
    repo.rune(&[
        "-q",
        "learn",
        "--type",
        "insight",
        "--key",
        "keep",
        "--insight",
        "kept",
    ])
    .success();
    repo.rune(&[
        "-q",
        "instinct",
        "fmt",
        "--trigger",
        "t",
        "--action",
        "a",
        "--confidence",
        "0.9",
        "--evidence",
        "e",
    ])
    .success();
    let jsonl = repo.read(".rune/learnings.jsonl");
    let kept: String = jsonl
        .lines()
        .filter(|l| !l.contains("\"new\""))
        .map(|l| format!("{l}\n"))
        .collect();
    repo.write(".rune/learnings.jsonl", &kept);
    let instincts = repo
        .read(".rune/instincts.md")
        .replace("**Confidence:** 0.9", "**Confidence:** 0.4");
    repo.write(".rune/instincts.md", &instincts);
    repo.rune(&["save"]).success();
    let learnings = json_lines(&repo.rune(&["show", "learnings", "--json"]).success().stdout);
    assert_eq!(learnings.len(), 1, "{learnings:?}");
    assert_eq!(learnings[0]["key"], "keep");
    let inst = json_lines(&repo.rune(&["show", "instincts", "--json"]).success().stdout);
    assert_eq!(inst[0]["confidence"], 0.4);
}
