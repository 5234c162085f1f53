//! One save, one memory transaction (docs/storage.md, "One save"): `.rune/` and the echoes
//! directory share one manifest and one lock, their edits land in one memory commit or not at
//! all, a save cut short after its commit is finished by the next one without duplicates, and
//! a manifest written by an older version (`echoes.json`) is taken over without spurious
//! edits or lost ones.

use crate::common::{json_lines, TestRepo};

const MEMORY: &str = ".claude/echoes/reviewer/MEMORY.md";

fn repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.commit_file("a", "a\n", "init");
    repo.rune(&["-q", "init"]).success();
    repo.rune(&[
        "-q",
        "echo",
        "add",
        "Pattern: Retry storms",
        "--role",
        "reviewer",
        "--layer",
        "inscribed",
        "--evidence",
        "`a.rs:1`",
        "--confidence",
        "0.7",
        "--text",
        "Cap retries.",
    ])
    .success();
    repo.decide("Use Postgres", "Postgres for storage", &[]);
    repo
}

/// A new echo entry appended to the role's `MEMORY.md`.
fn edit_echoes(repo: &TestRepo) {
    repo.append(
        MEMORY,
        "\n### [2026-01-15] Pattern: Timeouts\n- **layer**: inscribed\n- **confidence**: 0.6\n- Set a timeout on every call.\n",
    );
}

/// A new decision appended to `.rune/decisions.md`.
fn edit_rune(repo: &TestRepo) {
    repo.append(
        ".rune/decisions.md",
        "\n## Decision: Use Redis\n**Context:** c\n**Decision:** Redis for the cache\n**Rationale:** r\n**Impact:** i\n",
    );
}

fn commits(repo: &TestRepo, refname: &str) -> usize {
    repo.git(&["rev-list", "--count", refname])
        .trim()
        .parse()
        .unwrap()
}

fn titles(repo: &TestRepo, args: &[&str]) -> Vec<String> {
    json_lines(&repo.rune(args).success().stdout)
        .iter()
        .map(|v| v["title"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// Active and archived entries.
fn echo_titles(repo: &TestRepo) -> Vec<String> {
    let mut all = titles(repo, &["--json", "echo", "show"]);
    all.extend(titles(repo, &["--json", "echo", "show", "--archived"]));
    all
}

fn decision_titles(repo: &TestRepo) -> Vec<String> {
    titles(repo, &["--json", "show", "decisions", "--all"])
}

fn manifest(repo: &TestRepo) -> serde_json::Value {
    serde_json::from_str(&repo.read(".git/rune/view.json")).unwrap()
}

#[test]
fn edits_in_both_directories_make_one_memory_commit() {
    let repo = repo();
    edit_echoes(&repo);
    edit_rune(&repo);
    let before = commits(&repo, "refs/rune/memory");
    let out = repo.rune(&["save", "-m", "both"]).success();
    assert_eq!(
        commits(&repo, "refs/rune/memory"),
        before + 1,
        "{}",
        out.snapshot()
    );
    // The one commit holds both directories' records.
    let tip = repo.git(&["log", "-1", "--format=%B", "refs/rune/memory"]);
    assert!(
        tip.contains("decisions.md") && tip.contains(".claude/echoes"),
        "{tip}"
    );
    assert!(echo_titles(&repo).contains(&"Pattern: Timeouts".to_owned()));
    assert!(decision_titles(&repo).contains(&"Use Redis".to_owned()));
    assert!(
        out.stderr
            .contains("saved .claude/echoes/reviewer/MEMORY.md"),
        "{}",
        out.snapshot()
    );
    // Both directories are clean again.
    let again = repo.rune(&["save"]).success();
    assert_eq!(
        commits(&repo, "refs/rune/memory"),
        before + 1,
        "{}",
        again.snapshot()
    );
    assert!(
        again.stdout.contains("nothing to save"),
        "{}",
        again.snapshot()
    );
}

#[test]
fn a_parse_error_in_rune_saves_nothing_and_leaves_both_files_as_written() {
    let repo = repo();
    edit_echoes(&repo);
    let decisions = repo.read(".rune/decisions.md");
    repo.write(
        ".rune/decisions.md",
        &format!("{decisions}\n## [2026-13-45] Decision: Bad date\n\n**Decision:** x\n"),
    );
    let (echoes_text, rune_text) = (repo.read(MEMORY), repo.read(".rune/decisions.md"));
    let (refs, manifest_before) = (repo.refs(), repo.read(".git/rune/view.json"));
    let out = repo.rune(&["save", "-m", "half"]).failure();
    assert!(out.stderr.contains("decisions.md"), "{}", out.snapshot());
    assert_eq!(repo.refs(), refs, "no record landed");
    assert_eq!(
        repo.read(".git/rune/view.json"),
        manifest_before,
        "no manifest moved"
    );
    assert_eq!(repo.read(MEMORY), echoes_text);
    assert_eq!(repo.read(".rune/decisions.md"), rune_text);
    // An echoes file that does not read back stops `.rune/`'s edits the same way.
    repo.write(".rune/decisions.md", &decisions);
    edit_rune(&repo);
    repo.append(
        MEMORY,
        "\n### [2026-01-15] Pattern: Bad\n- **confidence**: lots\n- x\n",
    );
    let out = repo.rune(&["save"]).failure();
    assert!(out.stderr.contains("MEMORY.md: line"), "{}", out.snapshot());
    assert_eq!(repo.refs(), refs);
    assert!(!decision_titles(&repo).contains(&"Use Redis".to_owned()));
}

/// What a save killed between its memory commit and the manifest update leaves — the records
/// in memory, the files and the manifest as before — is finished by the next save, without a
/// second copy of anything.
#[test]
fn a_save_cut_short_after_its_commit_is_finished_without_duplicates() {
    let repo = repo();
    edit_echoes(&repo);
    edit_rune(&repo);
    let (echoes_text, rune_text) = (repo.read(MEMORY), repo.read(".rune/decisions.md"));
    let manifest_before = repo.read(".git/rune/view.json");
    repo.rune(&["-q", "save", "-m", "cut short"]).success();
    let (echoes_after, decisions_after) = (echo_titles(&repo), decision_titles(&repo));
    let memory = repo.git(&["rev-parse", "refs/rune/memory"]);
    // The crash: nothing after the commit happened.
    repo.write(".git/rune/view.json", &manifest_before);
    repo.write(MEMORY, &echoes_text);
    repo.write(".rune/decisions.md", &rune_text);
    let out = repo.rune(&["save"]).success();
    assert_eq!(echo_titles(&repo), echoes_after, "{}", out.snapshot());
    assert_eq!(
        decision_titles(&repo),
        decisions_after,
        "{}",
        out.snapshot()
    );
    let added = repo.git(&["rev-list", &format!("{}..refs/rune/memory", memory.trim())]);
    for c in added.lines() {
        let msg = repo.git(&["log", "-1", "--format=%B", c]);
        assert!(
            !msg.contains("Use Redis") && !msg.contains("Timeouts"),
            "{msg}"
        );
    }
    // Both directories are as memory renders them, and clean.
    let st = repo.rune(&["status"]).success().stdout;
    assert!(
        !st.contains("MEMORY.md") && !st.contains("decisions.md"),
        "{st}"
    );
}

/// A repository checked out by a version that kept the echoes directory's manifest in
/// `<git-dir>/rune/echoes.json` (git blob ids, one base commit).
fn downgrade_manifest(repo: &TestRepo) {
    let mut view = manifest(repo);
    let section = view
        .as_object_mut()
        .unwrap()
        .remove("echoes")
        .expect("the echoes section");
    let blob = |rel: &str| {
        repo.git(&["hash-object", &format!(".claude/echoes/{rel}")])
            .trim()
            .to_owned()
    };
    let files: serde_json::Map<String, serde_json::Value> = section["files"]
        .as_object()
        .unwrap()
        .keys()
        .map(|k| (k.clone(), blob(k).into()))
        .collect();
    let base = section["files"]
        .as_object()
        .unwrap()
        .values()
        .next()
        .unwrap()["base"]
        .clone();
    let old = serde_json::json!({"dir": section["dir"], "base": base, "files": files});
    repo.write(".git/rune/echoes.json", &old.to_string());
    repo.write(".git/rune/view.json", &view.to_string());
}

#[test]
fn upgrading_from_the_old_echoes_manifest_shows_no_edits_and_loses_none() {
    let repo = repo();
    downgrade_manifest(&repo);
    let st = repo.rune(&["status"]).success().stdout;
    assert!(!st.contains("MEMORY.md"), "{st}");
    let before = commits(&repo, "refs/rune/memory");
    let out = repo.rune(&["save"]).success();
    assert_eq!(
        commits(&repo, "refs/rune/memory"),
        before,
        "{}",
        out.snapshot()
    );
    assert!(!out.stderr.contains(".claude/echoes"), "{}", out.snapshot());
    // A write moves the section into the one manifest.
    repo.decide("Use Redis", "Redis for the cache", &[]);
    assert!(!repo.root.join(".git/rune/echoes.json").exists());
    assert!(manifest(&repo)["echoes"]["files"]["reviewer/MEMORY.md"].is_object());

    // An edit made before the upgrade is still an edit after it, and is saved.
    let repo = self::repo();
    downgrade_manifest(&repo);
    edit_echoes(&repo);
    let st = repo.rune(&["status"]).success().stdout;
    assert!(st.contains("MEMORY.md"), "{st}");
    repo.rune(&["-q", "save"]).success();
    assert!(echo_titles(&repo).contains(&"Pattern: Timeouts".to_owned()));
    assert!(!repo.root.join(".git/rune/echoes.json").exists());
}

/// Commits on every memory ref (`refs/rune/`: memory and the branches' session state).
fn all_commits(repo: &TestRepo) -> usize {
    let refs = repo.git(&["for-each-ref", "--format=%(refname)", "refs/rune/"]);
    let mut args = vec!["rev-list", "--count"];
    args.extend(refs.lines());
    repo.git(&args).trim().parse().unwrap()
}

const ORACLE: &str = r#"{"sessionId":"oracle-1714234500-abc123","dispatchedAt":"2026-01-02T12:34:56Z","triggerSignal":"agent.stuck","sourceSkill":"debug","targetModel":"claude-opus-4-7","bundleHash":"sha256:9f3a0000","status":"pending","timeoutAt":"2026-01-02T12:44:56Z","responseId":null,"responseExcerpt":null}"#;

#[test]
fn the_seeds_record_files_land_in_the_saves_one_transaction() {
    let repo = repo();
    edit_rune(&repo);
    repo.write(".rune/oracle-pending/oracle-1714234500-abc123.json", ORACLE);
    let (memory, all) = (commits(&repo, "refs/rune/memory"), all_commits(&repo));
    let out = repo.rune(&["save", "-m", "both"]).success();
    // One commit on memory (the decision), one on the branch's state (the oracle dispatch,
    // branch-scoped, and the session): no commit of its own for the record file.
    assert_eq!(
        (commits(&repo, "refs/rune/memory"), all_commits(&repo)),
        (memory + 1, all + 2),
        "{}",
        out.snapshot()
    );
    assert!(decision_titles(&repo).contains(&"Use Redis".to_owned()));
    let list = repo.rune(&["oracle", "list"]).success().stdout;
    assert!(list.contains("oracle-1714234500-abc123"), "{list}");
    assert!(out.stderr.contains("imported"), "{}", out.snapshot());
    // A record file alone is a save of its own: one commit, and nothing the next time.
    repo.write(
        ".rune/oracle-pending/oracle-1714234600-def456.json",
        &ORACLE
            .replace("abc123", "def456")
            .replace("1714234500", "1714234600"),
    );
    let out = repo.rune(&["save"]).success();
    assert_eq!(all_commits(&repo), all + 3, "{}", out.snapshot());
    assert!(out.stderr.contains("imported"), "{}", out.snapshot());
    let list = repo.rune(&["oracle", "list"]).success().stdout;
    assert!(list.contains("oracle-1714234600-def456"), "{list}");
    repo.rune(&["save"]).success();
    assert_eq!(all_commits(&repo), all + 3);
}

/// One finding as an agent writes it to `<agent>-findings.md`.
fn finding(n: usize) -> String {
    format!(
        "### [2025-06-{:02}] Pattern: Finding {n}\n- **layer**: traced\n- **source**: rune:review\n- **confidence**: 0.05\n- **evidence**: `f{n}.rs:1`\n- **verified**: 2025-06-{:02}\n- **supersedes**: none\n- Seen once in f{n}.rs.\n\n",
        1 + n % 28,
        1 + n % 28
    )
}

#[test]
fn findings_that_push_a_role_past_its_limit_are_pruned_in_the_same_commit() {
    let repo = repo();
    let text: String = (0..40).map(finding).collect();
    repo.write(".claude/echoes/reviewer/bot-findings.md", &text);
    let before = commits(&repo, "refs/rune/memory");
    let out = repo.rune(&["save"]).success();
    assert_eq!(
        commits(&repo, "refs/rune/memory"),
        before + 1,
        "{}",
        out.snapshot()
    );
    // The role is back under the seed's limit, and what was pruned is archived, not lost.
    let lines = repo.read(MEMORY).lines().count();
    assert!(lines <= 150, "{lines} lines\n{}", out.snapshot());
    let archived = titles(&repo, &["--json", "echo", "show", "--archived"]);
    assert!(!archived.is_empty(), "{}", out.snapshot());
    assert_eq!(echo_titles(&repo).len(), 41, "{:?}", echo_titles(&repo));
    assert!(out.stderr.contains("archived"), "{}", out.snapshot());
}
