//! Echoes (seed 002): `git rune echo …`, the `.claude/echoes/` view saved back by `save`,
//! findings files consolidated by concurrent processes, and two clones converging.

use std::process::Command;

use crate::common::{json_lines, Output, Remote, TestRepo};

fn repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.commit_file("a", "a\n", "init");
    repo.rune(&["init"]).success();
    repo
}

fn add<'a>(role: &'a str, layer: &'a str, title: &'a str, evidence: &'a str) -> Vec<&'a str> {
    vec![
        "echo",
        "add",
        title,
        "--role",
        role,
        "--layer",
        layer,
        "--evidence",
        evidence,
        "--confidence",
        "0.8",
        "--source",
        "rune:review PR #42",
        "--text",
        "Codebase tends to leave unused imports in new files.",
    ]
}

fn shown(repo: &TestRepo, extra: &[&str]) -> Vec<serde_json::Value> {
    let mut args = vec!["--json", "echo", "show"];
    args.extend_from_slice(extra);
    json_lines(&repo.rune(&args).success().stdout)
}

const MEMORY: &str = ".claude/echoes/reviewer/MEMORY.md";

#[test]
fn add_show_and_the_view_file() {
    let repo = repo();
    repo.rune(&add(
        "reviewer",
        "inscribed",
        "Pattern: Unused imports in new files",
        "`src/auth.py:1-5` — 3 unused imports found",
    ))
    .success();
    let text = repo.read(MEMORY);
    assert_eq!(
        text,
        "<!-- echo-schema: v1 -->\n# Reviewer Memory\n\n### [2026-01-01] Pattern: Unused imports in new files\n- **layer**: inscribed\n- **source**: rune:review PR #42\n- **confidence**: 0.8\n- **evidence**: `src/auth.py:1-5` — 3 unused imports found\n- **verified**: 2026-01-01\n- **supersedes**: none\n- Codebase tends to leave unused imports in new files.\n"
    );
    // Out of `git status`, like .rune/.
    let status = repo.git(&["status", "--porcelain"]);
    assert!(!status.contains(".claude"), "{status}");
    let list = shown(&repo, &["--role", "reviewer"]);
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["layer"], "inscribed");
    assert_eq!(list[0]["confidence"], 0.8);
    // The same pattern and evidence again, more confident: merged, not duplicated.
    let mut again = add(
        "reviewer",
        "inscribed",
        "pattern:  unused imports in new files",
        "`src/auth.py:1-5` — 3 unused imports found",
    );
    again[10] = "0.95";
    let out = repo.rune(&again).success();
    assert!(out.stdout.contains("merged"), "{}", out.snapshot());
    let list = shown(&repo, &[]);
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["confidence"], 0.95);
    assert!(shown(&repo, &["--role", "auditor"]).is_empty());
    // Less confident and verified no later: already recorded, nothing written.
    let head = repo.git(&["rev-parse", "refs/rune/memory"]);
    let out = repo
        .rune(
            &again
                .iter()
                .map(|a| if *a == "0.95" { "0.5" } else { a })
                .collect::<Vec<_>>(),
        )
        .success();
    assert!(
        out.stdout.contains("already recorded"),
        "{}",
        out.snapshot()
    );
    assert_eq!(repo.git(&["rev-parse", "refs/rune/memory"]), head);
    assert_eq!(shown(&repo, &[])[0]["confidence"], 0.95);
    // Archived, the same finding again makes it active again.
    let uid = list[0]["uid"].as_str().unwrap().to_owned();
    repo.rune(&["echo", "archive", &uid[..8]]).success();
    assert!(shown(&repo, &[]).is_empty());
    let out = repo.rune(&again).success();
    assert!(out.stdout.contains("merged"), "{}", out.snapshot());
    assert_eq!(shown(&repo, &[])[0]["confidence"], 0.95);
}

#[test]
fn etched_needs_confirmation_and_archive_restore_reset() {
    let repo = repo();
    let args = add(
        "team",
        "etched",
        "Architecture: Express + Prisma async",
        "`package.json:5-15`",
    );
    let out = repo.rune(&args).failure();
    assert!(
        out.stderr.contains("needs confirmation"),
        "{}",
        out.snapshot()
    );
    assert!(shown(&repo, &[]).is_empty());
    let mut confirmed = args.clone();
    confirmed.push("--confirm");
    repo.rune(&confirmed).success();
    repo.rune(&add("team", "traced", "Observation: Slow CI", "CI logs"))
        .success();
    let list = shown(&repo, &[]);
    assert_eq!(list.len(), 2);
    let etched = list.iter().find(|e| e["layer"] == "etched").unwrap()["uid"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        list.iter().find(|e| e["layer"] == "etched").unwrap()["score"],
        1.0
    );
    // Reset archives what is not etched; etched stays without --confirm.
    let out = repo.rune(&["echo", "reset", "--role", "team"]).success();
    assert!(
        out.stdout.contains("archived 1 entries"),
        "{}",
        out.snapshot()
    );
    assert_eq!(shown(&repo, &[]).len(), 1);
    assert_eq!(shown(&repo, &["--archived"]).len(), 1);
    assert!(repo
        .read(".claude/echoes/team/archive/MEMORY.md")
        .contains("Observation: Slow CI"));
    repo.rune(&["echo", "archive", &etched[..8]]).failure();
    repo.rune(&["echo", "archive", &etched[..8], "--confirm"])
        .success();
    assert!(shown(&repo, &[]).is_empty());
    repo.rune(&["echo", "restore", &etched[..8]]).success();
    assert_eq!(shown(&repo, &[])[0]["uid"], etched.as_str());
}

#[test]
fn search_ranks_by_relevance_and_ref_records_use() {
    let repo = repo();
    repo.rune(&add(
        "reviewer",
        "inscribed",
        "Pattern: N+1 queries in services",
        "`app/users.rb:10`",
    ))
    .success();
    repo.rune(&add(
        "reviewer",
        "inscribed",
        "Pattern: Unused imports",
        "`src/a.py:1`",
    ))
    .success();
    repo.rune(&add(
        "planner",
        "traced",
        "Observation: Query cache misses",
        "`db/cache.rs:3`",
    ))
    .success();
    let hits = json_lines(
        &repo
            .rune(&["--json", "echo", "search", "queries"])
            .success()
            .stdout,
    );
    assert_eq!(hits.len(), 2, "{hits:?}");
    assert_eq!(hits[0]["title"], "Pattern: N+1 queries in services");
    let hits = json_lines(
        &repo
            .rune(&["--json", "echo", "search", "queries", "--role", "planner"])
            .success()
            .stdout,
    );
    assert_eq!(hits.len(), 1);
    let uid = hits[0]["uid"].as_str().unwrap().to_owned();
    let before = hits[0]["score"].as_f64().unwrap();
    repo.rune(&["echo", "ref", &uid, "--workflow", "review-7"])
        .success();
    let after = json_lines(
        &repo
            .rune(&["--json", "echo", "search", "queries", "--role", "planner"])
            .success()
            .stdout,
    )[0]["score"]
        .as_f64()
        .unwrap();
    assert!(after > before, "{before} -> {after}");
    repo.rune(&["echo", "ref", "ffff"]).failure();
}

#[test]
fn an_email_in_evidence_is_stripped_and_a_secret_refused() {
    let repo = repo();
    let out = repo
        .rune(&add(
            "workers",
            "inscribed",
            "Gotcha: Flaky login test",
            "reported by jane@corp.example.com",
        ))
        .success();
    assert!(
        out.stderr.contains("e-mail address in evidence"),
        "{}",
        out.snapshot()
    );
    let list = shown(&repo, &[]);
    assert_eq!(list[0]["evidence"], serde_json::Value::Null);
    assert!(list[0]["text"].as_str().unwrap().contains("unused imports"));
    let mut secret = add("workers", "inscribed", "Gotcha: Token", "`a.rs:1`");
    let text = "uses ghp_0123456789abcdefABCDEF0123456789abcd";
    secret[14] = text;
    let out = repo.rune(&secret).failure();
    assert!(
        out.stderr.contains("refusing to record a secret"),
        "{}",
        out.snapshot()
    );
    assert_eq!(shown(&repo, &[]).len(), 1);
}

#[test]
fn hand_edits_are_saved_losslessly() {
    let repo = repo();
    repo.rune(&add("reviewer", "inscribed", "Pattern: A", "`a.rs:1`"))
        .success();
    repo.rune(&add("reviewer", "inscribed", "Pattern: B", "`b.rs:1`"))
        .success();
    let text = repo.read(MEMORY);
    // Change A's learning, add a labelled line and prose, remove B, add C.
    let edited = text
        .replace(
            "- **layer**: inscribed\n- **source**: rune:review PR #42\n- **confidence**: 0.8\n- **evidence**: `a.rs:1`",
            "- **layer**: inscribed\n- **tags**: imports\n- **source**: rune:review PR #42\n- **confidence**: 0.8\n- **evidence**: `a.rs:1`",
        );
    let b_start = edited.find("### [2026-01-01] Pattern: B").unwrap();
    let mut edited = edited[..b_start].to_owned();
    edited = edited.replace(
        "- Codebase tends to leave unused imports in new files.\n\n",
        "- Codebase tends to leave unused imports in new files.\na remark of mine\n\n",
    );
    edited.push_str(
        "### [2026-01-01] Pattern: C\n- **layer**: traced\n- **confidence**: 0.4\n- Seen once.\n",
    );
    std::fs::write(repo.root.join(MEMORY), &edited).unwrap();
    let out = repo.rune(&["save"]).success();
    assert!(
        out.stderr
            .contains("saved .claude/echoes/reviewer/MEMORY.md"),
        "{}",
        out.snapshot()
    );
    let list = shown(&repo, &[]);
    let titles: Vec<&str> = list.iter().map(|e| e["title"].as_str().unwrap()).collect();
    assert_eq!(titles, ["Pattern: A", "Pattern: C"]);
    assert_eq!(shown(&repo, &["--archived"])[0]["title"], "Pattern: B");
    let now = repo.read(MEMORY);
    assert!(now.contains("- **tags**: imports\n"), "{now}");
    assert!(now.contains("a remark of mine\n"), "{now}");
    // Saved: a second save has nothing to do, and the file is as written (canonical form).
    let out = repo.rune(&["save"]).success();
    assert!(!out.stderr.contains("saved .claude"), "{}", out.snapshot());
    // A file that does not parse stops the save with nothing written.
    std::fs::write(
        repo.root.join(MEMORY),
        format!("{now}\n### [2026-01-01] Pattern: D\n- **confidence**: lots\n- x\n"),
    )
    .unwrap();
    let before = repo.git(&["rev-parse", "refs/rune/memory"]);
    let out = repo.rune(&["save"]).failure();
    assert!(out.stderr.contains("MEMORY.md: line"), "{}", out.snapshot());
    assert_eq!(repo.git(&["rev-parse", "refs/rune/memory"]), before);
}

fn finding(title: &str, evidence: &str, confidence: &str, verified: &str) -> String {
    format!(
        "### [{verified}] {title}\n- **layer**: inscribed\n- **source**: rune:review\n- **confidence**: {confidence}\n- **evidence**: {evidence}\n- **verified**: {verified}\n- **supersedes**: none\n- Learned from {title}.\n\n"
    )
}

#[test]
fn four_processes_consolidating_findings_lose_nothing() {
    let repo = repo();
    let dir = repo.root.join(".claude/echoes/reviewer");
    std::fs::create_dir_all(&dir).unwrap();
    for agent in 0..4 {
        // Each agent found its own pattern, and all of them found the shared one.
        let text = finding(
            &format!("Pattern: own {agent}"),
            "`x.rs:1`",
            "0.5",
            "2026-01-01",
        ) + &finding(
            "Pattern: shared",
            "`shared.rs:1`",
            &format!("0.{}", agent + 5),
            "2026-01-01",
        );
        std::fs::write(dir.join(format!("agent{agent}-findings.md")), text).unwrap();
    }
    let children: Vec<_> = (0..4)
        .map(|_| {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_git-rune"));
            repo.env(&mut cmd);
            cmd.args(["echo", "consolidate"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        Output::of(c.wait_with_output().unwrap()).success();
    }
    let list = shown(&repo, &[]);
    let mut titles: Vec<&str> = list.iter().map(|e| e["title"].as_str().unwrap()).collect();
    titles.sort();
    assert_eq!(
        titles,
        [
            "Pattern: own 0",
            "Pattern: own 1",
            "Pattern: own 2",
            "Pattern: own 3",
            "Pattern: shared"
        ]
    );
    let shared = list
        .iter()
        .find(|e| e["title"] == "Pattern: shared")
        .unwrap();
    assert_eq!(shared["confidence"], 0.8, "the highest confidence wins");
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with("-findings.md"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn two_clones_consolidating_converge_after_sync() {
    let remote = Remote::new();
    let a = remote.clone("alice");
    a.commit_file("a", "a\n", "init");
    a.git(&["push", "-q", "origin", "main"]);
    a.rune(&["init"]).success();
    let b = remote.clone("bob");
    b.rune(&["init"]).success();
    let write = |repo: &TestRepo, agent: &str, text: String| {
        let dir = repo.root.join(".claude/echoes/auditor");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("{agent}-findings.md")), text).unwrap();
    };
    write(
        &a,
        "a1",
        finding("Pattern: shared", "`s.rs:1`", "0.6", "2026-01-01"),
    );
    write(
        &b,
        "b1",
        finding("Pattern: shared", "`s.rs:1`", "0.9", "2026-01-01")
            + &finding("Pattern: only bob", "`b.rs:2`", "0.7", "2026-01-01"),
    );
    a.rune(&["echo", "consolidate"]).success();
    b.rune(&["echo", "consolidate"]).success();
    a.rune(&["sync"]).success();
    b.rune(&["sync"]).success();
    a.rune(&["sync"]).success();
    let sa = shown(&a, &[]);
    let sb = shown(&b, &[]);
    assert_eq!(sa, sb);
    assert_eq!(sa.len(), 2);
    let shared = sa.iter().find(|e| e["title"] == "Pattern: shared").unwrap();
    assert_eq!(shared["confidence"], 0.9);
    assert_eq!(
        a.git(&["rev-parse", "refs/rune/memory^{tree}"]),
        b.git(&["rev-parse", "refs/rune/memory^{tree}"])
    );
    assert_eq!(
        a.read(".claude/echoes/auditor/MEMORY.md"),
        b.read(".claude/echoes/auditor/MEMORY.md")
    );
}

#[test]
fn compress_groups_related_entries_into_knowledge_blocks() {
    let repo = repo();
    repo.rune(&add(
        "reviewer",
        "inscribed",
        "Pattern: N+1 queries in user service",
        "`app/users.rb:10`",
    ))
    .success();
    repo.rune(&add(
        "reviewer",
        "inscribed",
        "Pattern: Missing index on users",
        "`app/users.rb:40`",
    ))
    .success();
    repo.rune(&add(
        "reviewer",
        "traced",
        "Observation: Unrelated thing",
        "`x.py:1`",
    ))
    .success();
    let out = repo.rune(&["echo", "compress"]).success();
    assert!(
        out.stdout.contains("nothing to compress"),
        "{}",
        out.snapshot()
    );
    let out = repo.rune(&["echo", "compress", "--force"]).success();
    assert!(
        out.stdout
            .contains("compressed 2 entries into 1 knowledge blocks"),
        "{}",
        out.snapshot()
    );
    assert!(out.stdout.contains("% saved"), "{}", out.snapshot());
    let knowledge = repo.read(".claude/echoes/reviewer/knowledge.md");
    assert!(
        knowledge.starts_with("<!-- echo-schema: v1 -->\n# Reviewer Knowledge\n"),
        "{knowledge}"
    );
    assert!(
        knowledge.contains("`app/users.rb:10`") && knowledge.contains("`app/users.rb:40`"),
        "{knowledge}"
    );
    assert!(knowledge.contains("- **compresses**: "), "{knowledge}");
    assert_eq!(shown(&repo, &["--archived"]).len(), 2);
    let active = shown(&repo, &[]);
    assert_eq!(active.len(), 2);
    // Saving the untouched view changes nothing.
    let before = repo.git(&["rev-parse", "refs/rune/memory"]);
    repo.rune(&["save"]).success();
    assert_eq!(repo.git(&["rev-parse", "refs/rune/memory"]), before);
}

#[test]
fn promote_writes_remembrance_and_verify_reports_stale_refs() {
    let repo = repo();
    let mut etched = add(
        "reviewer",
        "etched",
        "Pattern: N+1 queries in user list",
        "`app/users.rb:10`",
    );
    etched.push("--confirm");
    repo.rune(&etched).success();
    repo.rune(&add(
        "reviewer",
        "inscribed",
        "Pattern: Unused imports",
        "`a.py:1`",
    ))
    .success();
    let list = shown(&repo, &[]);
    let uid = |title: &str| {
        list.iter().find(|e| e["title"] == title).unwrap()["uid"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let (n1, unused) = (
        uid("Pattern: N+1 queries in user list"),
        uid("Pattern: Unused imports"),
    );
    // No problem-solution pair yet; not etched; security needs a person.
    let out = repo
        .rune(&["echo", "promote", &n1, "--category", "performance"])
        .failure();
    assert!(
        out.stderr.contains("problem-solution pair"),
        "{}",
        out.snapshot()
    );
    let out = repo
        .rune(&["echo", "promote", &unused, "--category", "tooling"])
        .failure();
    assert!(out.stderr.contains("only etched"), "{}", out.snapshot());
    // The pair, written into the entry by hand and saved (the entry stays etched).
    let text = repo.read(MEMORY).replace(
        "- **supersedes**: none\n- Codebase",
        "- **supersedes**: none\n- **symptom**: User list takes 5+ seconds\n- **root_cause**: N+1 query in user.posts\n- **solution_summary**: includes(:posts) in User.list\n- **tags**: n-plus-one, orm\n- Codebase",
    );
    std::fs::write(repo.root.join(MEMORY), &text).unwrap();
    repo.rune(&["save"]).success();
    let out = repo
        .rune(&[
            "echo",
            "promote",
            &n1,
            "--category",
            "security",
            "--verified-by-human",
        ])
        .failure();
    assert!(out.stderr.contains("BLOCKED"), "{}", out.snapshot());
    let out = repo
        .rune(&["echo", "promote", &n1, "--category", "performance"])
        .success();
    let path = "docs/solutions/performance/n-1-queries-in-user-list.md";
    assert!(out.stdout.contains(path), "{}", out.snapshot());
    let doc = repo.read(path);
    assert!(doc.starts_with("---\ntitle: \"N+1 queries in user list\"\ncategory: performance\ntags: [n-plus-one, orm]\n"), "{doc}");
    assert!(
        doc.contains(&format!(
            "echo_ref: \".claude/echoes/reviewer/MEMORY.md#{n1}@sha256:"
        )),
        "{doc}"
    );
    assert!(doc.contains("verified_by: agent\n"), "{doc}");
    // A second promotion is a duplicate.
    let out = repo
        .rune(&["echo", "promote", &n1, "--category", "performance"])
        .failure();
    assert!(out.stderr.contains(path), "{}", out.snapshot());
    let docs = json_lines(
        &repo
            .rune(&["--json", "echo", "remembrance"])
            .success()
            .stdout,
    );
    assert_eq!(docs.len(), 1);
    assert_eq!(docs[0]["symptom"], "User list takes 5+ seconds");
    let found = json_lines(
        &repo
            .rune(&[
                "--json",
                "echo",
                "remembrance",
                "--search",
                "slow user list",
            ])
            .success()
            .stdout,
    );
    assert_eq!(found.len(), 1);
    let out = repo.rune(&["verify"]);
    assert!(!out.stdout.contains("stale-echo-ref"), "{}", out.snapshot());
    // The entry changes: the document's echo_ref is stale.
    let text = repo
        .read(MEMORY)
        .replace("- Codebase tends", "- The codebase tends");
    std::fs::write(repo.root.join(MEMORY), &text).unwrap();
    repo.rune(&["save"]).success();
    let out = repo.rune(&["verify"]).failure();
    assert!(out.stdout.contains("stale-echo-ref"), "{}", out.snapshot());
    assert!(out.stdout.contains(path), "{}", out.snapshot());
}

#[test]
fn migrate_renames_metadata_only_and_history_keeps_the_old_names() {
    let repo = repo();
    let mut args = add(
        "workers",
        "inscribed",
        "Pattern: tarnished retries",
        "`src/tarnished.rs:1` — tarnished loop",
    );
    args[12] = "rune:tarnished session-1";
    repo.rune(&args).success();
    let out = repo
        .rune(&["echo", "migrate", "--rename", "tarnished=runebearer"])
        .success();
    assert!(
        out.stdout
            .contains("source: rune:tarnished session-1 -> rune:runebearer session-1"),
        "{}",
        out.snapshot()
    );
    assert!(
        out.stdout.contains("changed 2 fields"),
        "{}",
        out.snapshot()
    );
    let e = &shown(&repo, &[])[0];
    assert_eq!(
        e["title"], "Pattern: tarnished retries",
        "the title is content, not metadata"
    );
    assert_eq!(e["evidence"], "`src/runebearer.rs:1` — runebearer loop");
    let log = repo.git(&["log", "--format=%s", "refs/rune/memory"]);
    assert!(log.starts_with("echo: migrate"), "{log}");
    repo.rune(&["echo", "migrate", "--rename", "nonsense"])
        .failure();
}

#[test]
fn load_role_shows_the_best_scored_entries_within_the_budget() {
    let repo = repo();
    let mut etched = add(
        "planner",
        "etched",
        "Architecture: Hexagonal core",
        "`src/core/mod.rs:1`",
    );
    etched.push("--confirm");
    repo.rune(&etched).success();
    repo.rune(&add(
        "planner",
        "traced",
        "Observation: Slow build today",
        "CI logs",
    ))
    .success();
    repo.rune(&add(
        "reviewer",
        "inscribed",
        "Pattern: Reviewer only",
        "`r.rs:1`",
    ))
    .success();
    let out = repo.rune(&["load", "--role", "planner"]).success().stdout;
    assert!(out.contains("## Echoes: planner (by Echo Score)"), "{out}");
    let etched_at = out.find("Architecture: Hexagonal core").unwrap();
    let traced_at = out.find("Observation: Slow build today").unwrap();
    assert!(etched_at < traced_at, "{out}");
    assert!(!out.contains("Reviewer only"), "{out}");
    let plain = repo.rune(&["load"]).success().stdout;
    assert!(!plain.contains("## Echoes"), "{plain}");
    let small = repo
        .rune(&["load", "--role", "planner", "--budget", "120"])
        .success()
        .stdout;
    assert!(small.len() <= 120 * 4, "{small}");
}

/// The seed's three example entries, in its entry format.
const SEED: &str = include_str!("../fixtures/echoes/team/MEMORY.md");

#[test]
fn import_an_existing_tree_and_export_it_back() {
    let repo = repo();
    let seed = repo.root.join("seed-echoes");
    std::fs::create_dir_all(seed.join("team")).unwrap();
    std::fs::create_dir_all(seed.join("reviewer/archive")).unwrap();
    std::fs::write(seed.join("team/MEMORY.md"), SEED).unwrap();
    std::fs::write(
        seed.join("reviewer/MEMORY.md"),
        "<!-- echo-schema: v1 -->\n# Reviewer Memory\n\n### [2026-01-02] Pattern: Good one\n- **layer**: inscribed\n- **confidence**: 0.7\n- fine\n\n### [2026-01-03] Pattern: Broken one\n- **confidence**: lots\n- kept raw\n",
    )
    .unwrap();
    std::fs::write(
        seed.join("reviewer/archive/MEMORY-2026-01-01.md"),
        "### [2025-10-01] Observation: Old thing\n- **layer**: traced\n- **confidence**: 0.3\n- long ago\n",
    )
    .unwrap();
    std::fs::write(
        seed.join("reviewer/alice-findings.md"),
        "### [2026-01-04] Pattern: Good one\n- **layer**: inscribed\n- **confidence**: 0.9\n- **verified**: 2026-01-04\n- fine\n",
    )
    .unwrap();
    let out = repo.rune(&["import", "echoes", "seed-echoes"]).success();
    assert!(
        out.stderr
            .contains("reviewer/MEMORY.md:10: confidence \"lots\""),
        "{}",
        out.snapshot()
    );
    assert!(
        out.stdout.contains("read 6 entries from 4 files"),
        "{}",
        out.snapshot()
    );
    let active = shown(&repo, &[]);
    assert_eq!(active.len(), 4, "{active:?}");
    let good = active
        .iter()
        .find(|e| e["title"] == "Pattern: Good one")
        .unwrap();
    assert_eq!(
        (good["confidence"].as_f64(), good["verified"].as_str()),
        (Some(0.9), Some("2026-01-04"))
    );
    assert_eq!(
        shown(&repo, &["--archived"])[0]["title"],
        "Observation: Old thing"
    );
    let etched = active.iter().find(|e| e["layer"] == "etched").unwrap();
    assert_eq!(etched["title"], "Architecture: Express + Prisma async");
    let notes = repo.read(".rune/cumulative-notes.md");
    assert!(notes.contains("Broken one"), "{notes}");
    // Twice: nothing new.
    let out = repo.rune(&["import", "echoes", "seed-echoes"]).success();
    assert!(
        out.stdout.contains("added 0 records (1 kept raw)"),
        "{}",
        out.snapshot()
    );
    // Export writes the seed's format back: the seed's own file byte for byte.
    repo.rune(&["export", "echoes", "out"]).success();
    assert_eq!(repo.read("out/team/MEMORY.md"), SEED);
    assert!(repo
        .read("out/reviewer/archive/MEMORY.md")
        .contains("Old thing"));
    repo.rune(&["export", "echoes", "out"]).failure();
    repo.rune(&["export", "echoes", "out", "--force"]).success();
}
