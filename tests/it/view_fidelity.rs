//! Nothing an agent writes into `.rune/` is lost by `save`: hand-written dates are the
//! records' times, extra fields come back, checkpoints behave as the seed says, and a file
//! that would delete everything is refused.

use crate::assert_rune_snapshot;
use crate::common::{assert_view_clean, json_lines, TestRepo};

fn show(repo: &TestRepo, kind: &str) -> Vec<serde_json::Value> {
    json_lines(&repo.rune(&["--json", "show", kind]).success().stdout)
}

#[test]
fn hand_written_entries_keep_their_dates_and_every_line() {
    let repo = TestRepo::new();
    repo.rune(&["-q", "init"]).success();
    repo.append(
        ".rune/decisions.md",
        "\n### [2025-11-02 09:30] Decision: Use SQS\n- **Context:** Jobs pile up\n- **Decision:** SQS\n**Alternatives considered:** Kafka\n\nRevisit at 10x volume.\n",
    );
    repo.append(
        ".rune/learnings.jsonl",
        "{\"ts\":\"2025-10-01T08:00:00Z\",\"type\":\"error\",\"key\":\"flaky\",\"insight\":\"shared tmp\",\"source\":\"ci\"}\n",
    );
    let out = repo.rune(&["save", "-m", "import"]).success();
    assert!(
        out.stdout
            .starts_with("saved 2 added, 0 changed, 0 removed"),
        "{}",
        out.stdout
    );
    let d = &show(&repo, "decisions")[0];
    assert_eq!(d["ts"], "2025-11-02T09:30:00Z");
    assert_eq!(d["extra"][0]["label"], "Alternatives considered");
    assert_eq!(d["extra"][1]["text"], "Revisit at 10x volume.");
    let l = &show(&repo, "learnings")[0];
    assert_eq!(l["ts"], "2025-10-01T08:00:00Z");
    assert_eq!(l["confidence"], 0.7);
    assert_eq!(l["extra"][0]["label"], "source");
    // The view shows everything back, in the canonical form, and is clean.
    let view = repo.read(".rune/decisions.md");
    assert!(
        view.contains("## [2025-11-02 09:30] Decision: Use SQS"),
        "{view}"
    );
    assert!(
        view.contains("**Alternatives considered:** Kafka"),
        "{view}"
    );
    assert!(view.contains("\nRevisit at 10x volume.\n"), "{view}");
    assert!(repo
        .read(".rune/learnings.jsonl")
        .contains("\"source\":\"ci\""));
    assert_view_clean(&repo);
}

#[test]
fn an_older_learning_appended_later_does_not_win() {
    let repo = TestRepo::new();
    repo.rune(&["-q", "init"]).success();
    repo.append(
        ".rune/learnings.jsonl",
        "{\"ts\":\"2026-03-01T00:00:00Z\",\"type\":\"decision\",\"key\":\"db\",\"insight\":\"Postgres\",\"confidence\":0.8}\n",
    );
    repo.rune(&["-q", "save", "-m", "first"]).success();
    repo.append(
        ".rune/learnings.jsonl",
        "{\"ts\":\"2026-02-01T00:00:00Z\",\"type\":\"decision\",\"key\":\"db\",\"insight\":\"MySQL\",\"confidence\":0.8}\n",
    );
    repo.rune(&["-q", "save", "-m", "second"]).success();
    let l = show(&repo, "learnings");
    assert_eq!(l.len(), 1, "{l:?}");
    assert_eq!(l[0]["insight"], "Postgres", "the newest ts wins: {l:?}");
}

#[test]
fn a_file_emptied_of_entries_is_refused_unless_meant() {
    let repo = TestRepo::new();
    repo.decide("Alpha", "a", &[]);
    repo.decide("Beta", "b", &[]);
    let refs = repo.refs();
    // An overwritten file: its header is left, its entries are gone.
    repo.write(".rune/decisions.md", "# Decisions Log\n");
    let out = repo.rune(&["save"]).failure();
    assert_rune_snapshot!(repo, out);
    assert_eq!(repo.refs(), refs);
    assert_eq!(repo.read(".rune/decisions.md"), "# Decisions Log\n");
    let out = repo.rune(&["save", "--allow-delete"]).success();
    assert!(out.stdout.contains("2 removed"), "{}", out.stdout);
    assert!(show(&repo, "decisions").is_empty());
    // A truly empty file deletes too, without the flag.
    repo.decide("Gamma", "c", &[]);
    repo.write(".rune/decisions.md", "");
    repo.rune(&["save"]).success();
    assert!(show(&repo, "decisions").is_empty());
}

#[test]
fn cr_only_files_read_like_any_other() {
    let repo = TestRepo::new();
    repo.decide("Alpha", "a", &[]);
    let text = repo.read(".rune/decisions.md").replace('\n', "\r");
    repo.write(
        ".rune/decisions.md",
        &format!("{text}\r## Decision: Beta\r**Decision:** b\r"),
    );
    let out = repo.rune(&["save"]).success();
    assert!(
        out.stdout
            .starts_with("saved 1 added, 0 changed, 0 removed"),
        "{}",
        out.stdout
    );
    assert_eq!(show(&repo, "decisions").len(), 2);
}

#[test]
fn checkpoints_written_in_the_view_follow_the_seed() {
    let repo = TestRepo::new();
    let head = repo.commit_file("a.txt", "a\n", "base");
    repo.rune(&["-q", "init"]).success();
    repo.write(
        ".rune/checkpoint.md",
        "# Checkpoint — [2026-01-01 00:05]\n\n## What I Was Doing\nWiring the parser\n\n## Current Git State\n- Branch: old\n- Stashed: no\n\n## Decisions Made This Session (Load-Bearing)\n- Parser: hand-written\n\n## Resume Command\nFinish the parser\n",
    );
    repo.rune(&["-q", "save"]).success();
    let cps = show(&repo, "checkpoint");
    assert_eq!(cps.len(), 1, "{cps:?}");
    // The git state is captured at save, as the CLI does; the rest is kept.
    assert_eq!(cps[0]["git"]["head"], head.as_str());
    assert_eq!(cps[0]["git"]["branch"], "main");
    assert_eq!(cps[0]["ts"], "2026-01-01T00:05:00Z");
    let view = repo.read(".rune/checkpoint.md");
    assert!(view.contains("- Stashed: no"), "{view}");
    assert!(view.contains("## Decisions Made This Session (Load-Bearing)\n- Parser: hand-written"));

    // Overwriting it with another task is a new checkpoint: the old one is resolved.
    repo.write(
        ".rune/checkpoint.md",
        "# Checkpoint\n\n## What I Was Doing\nWriting the tests\n",
    );
    repo.rune(&["-q", "save"]).success();
    let cps = show(&repo, "checkpoint");
    assert_eq!(cps.len(), 2, "{cps:?}");
    assert_eq!(cps[0]["status"], "resolved");
    assert_eq!(cps[1]["status"], "open");

    // The seed resolves a checkpoint by renaming the file away.
    std::fs::rename(
        repo.root.join(".rune/checkpoint.md"),
        repo.root.join(".rune/checkpoint-2026-01-01.resolved.md"),
    )
    .unwrap();
    let out = repo.rune(&["save"]).success();
    assert!(out.stderr.contains("resolved"), "{}", out.stderr);
    let cps = show(&repo, "checkpoint");
    assert!(cps.iter().all(|c| c["status"] == "resolved"), "{cps:?}");
    assert!(!repo.root.join(".rune/checkpoint.md").exists());
    assert_view_clean(&repo);
}

#[test]
fn restore_discards_view_edits() {
    let repo = TestRepo::new();
    repo.decide("Alpha", "a", &[]);
    let rendered = repo.read(".rune/decisions.md");
    repo.append(".rune/decisions.md", "\nnot wanted after all\n");
    let out = repo.rune(&["restore", ".rune/decisions.md"]).success();
    assert_eq!(out.stdout, "restored .rune/decisions.md\n");
    assert_eq!(repo.read(".rune/decisions.md"), rendered);
    std::fs::remove_file(repo.root.join(".rune/conventions.md")).unwrap();
    let out = repo.rune(&["restore"]).success();
    assert_eq!(out.stdout, "restored .rune/conventions.md\n");
    assert_view_clean(&repo);
    let out = repo.rune(&["restore", "nosuch.md"]).failure();
    assert!(out.stderr.contains("is not a view file"), "{}", out.stderr);
    repo.append(".rune/decisions.md", "\nagain\n");
    let out = repo.rune(&["restore", "decisions", "--json"]).success();
    assert_eq!(
        out.stdout,
        "{\"restored\":[\"decisions.md\"],\"version\":1}\n"
    );
    let out = repo.rune(&["-q", "restore"]).success();
    assert_eq!((out.stdout.as_str(), out.stderr.as_str()), ("", ""));
}

#[test]
fn a_commit_saves_view_edits_left_unsaved() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a\n", "base");
    repo.rune(&["-q", "init", "--hooks"]).success();
    repo.append(
        ".rune/decisions.md",
        "\n## Decision: Written by an agent\n**Decision:** saved by the commit\n",
    );
    repo.commit_file("a.txt", "b\n", "the agent's change");
    let d = show(&repo, "decisions");
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0]["title"], "Written by an agent");
    let note = repo.git(&["notes", "--ref=rune", "show", "HEAD"]);
    assert!(note.contains("Written by an agent"), "{note}");
    assert_view_clean(&repo);
    // Nothing to save: the hook leaves memory alone.
    let memory = repo.git(&["rev-parse", "refs/rune/memory"]);
    repo.commit_file("a.txt", "c\n", "another");
    assert_eq!(repo.git(&["rev-parse", "refs/rune/memory"]), memory);
}

#[test]
fn invariants_load_as_the_seed_loader_reports_them() {
    let repo = TestRepo::new();
    repo.rune(&["-q", "init"]).success();
    repo.write(
        ".rune/INVARIANTS.md",
        "# Invariants\n\n## Danger Zones\n\n#### Never bypass the router\n- **What:** L0 router, never bypass\n- **Where:** `skills/skill-router/**`\n- **Why:** skipping it loses auth checks\n\n## Critical Contracts\n\n#### IR schema\n- **What:** the adapter contract\n\n## Archived\n\n#### Old rule\n- **What:** retired\n",
    );
    repo.rune(&["-q", "save"]).success();
    let out = repo.rune(&["--json", "show", "invariants"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["loaded"], true);
    assert_eq!(v["count"], 2);
    assert_eq!(v["rules"][0]["title"], "Never bypass the router");
    assert_eq!(v["rules"][0]["where"][0], "skills/skill-router/**");
    assert_eq!(v["stats"]["danger"], 1);
    assert_eq!(v["stats"]["critical"], 1);
    assert_eq!(v["stats"]["archivedSkipped"], 1);
    assert_eq!(v["stale"], false);
    assert!(v["path"].as_str().unwrap().ends_with(".rune/INVARIANTS.md"));
    // The seed's own example is not SUSPICIOUS: load shows it unmarked.
    let load = repo.rune(&["load"]).success();
    assert!(
        load.stdout.contains("## 📎 Active Invariants (.rune/INVARIANTS.md)\n⚠ skills/skill-router/** — Never bypass the router: L0 router, never bypass\n"),
        "{}",
        load.stdout
    );
    assert!(!load.stdout.contains("SUSPICIOUS"), "{}", load.stdout);
    // A save without -m records which files it saved, not a bare "session saved".
    assert!(
        load.stdout.contains("] edited .rune/INVARIANTS.md\n"),
        "{}",
        load.stdout
    );
    assert!(repo.rune(&["verify"]).success().stdout.starts_with("CLEAN"));
    // A budget that holds one rule says how many more there are.
    let small = repo.rune(&["load", "--budget", "150"]).success();
    assert!(
        small
            .stdout
            .contains("…+1 more rules in .rune/INVARIANTS.md"),
        "{}",
        small.stdout
    );
}
