//! The tree layout's migration: memory written in layout 1 (one blob per kind up to 1,024
//! records, two-hex-digit shards beyond) is read as it is, laid out in layout 2 by the next
//! write, and a clone on layout 1 and a clone on layout 2 converge to one tree after sync.

use std::collections::BTreeMap;
use std::process::Command;

use crate::common::{json_lines, Remote, TestRepo};

const MEMORY: &str = "refs/rune/memory";

/// Commits on top of `name` a tree holding the same records in layout 1, as the previous
/// version of git-rune wrote it (the commit message, with its trailers, is the tip's).
fn rewrite_as_layout_1(repo: &TestRepo, name: &str) {
    let tip = repo.git(&["rev-parse", name]);
    let mut kinds: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for entry in repo.git(&["ls-tree", "-r", &tip]).lines() {
        let (meta, path) = entry.split_once('\t').expect("ls-tree line");
        let Some((kind, _)) = path.split_once('/') else {
            continue;
        };
        let blob = meta.split_whitespace().nth(2).expect("blob id");
        let text = repo.git(&["cat-file", "blob", blob]);
        kinds
            .entry(kind.to_owned())
            .or_default()
            .extend(text.lines().map(str::to_owned));
    }
    let index = repo.root.join(".git/layout-1-index");
    let add = |path: &str, data: &str| {
        let blob = repo.git_stdin(&["hash-object", "-w", "--stdin"], data);
        let mut cmd = Command::new("git");
        repo.env(&mut cmd);
        let ok = cmd
            .env("GIT_INDEX_FILE", &index)
            .args(["update-index", "--add", "--cacheinfo"])
            .arg(format!("100644,{blob},{path}"))
            .status()
            .expect("run git")
            .success();
        assert!(ok, "update-index {path}");
    };
    add("VERSION", "git-rune records 1\n");
    for (kind, mut lines) in kinds {
        // Every line starts `{"id":"<id>"`, so sorting lines sorts by id.
        lines.sort();
        assert!(lines.len() <= 1024, "layout 1 kept small kinds in one blob");
        let mut data = lines.join("\n");
        data.push('\n');
        add(&format!("{kind}/all.jsonl"), &data);
    }
    let mut cmd = Command::new("git");
    repo.env(&mut cmd);
    let out = cmd
        .env("GIT_INDEX_FILE", &index)
        .arg("write-tree")
        .output()
        .expect("run git");
    assert!(out.status.success());
    let tree = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let message = repo.git(&["log", "-1", "--format=%B", &tip]);
    let commit = repo.git_stdin(&["commit-tree", &tree, "-p", &tip], &message);
    repo.git(&["update-ref", name, &commit, &tip]);
}

fn version(repo: &TestRepo) -> String {
    repo.git(&["cat-file", "blob", &format!("{MEMORY}:VERSION")])
}

fn blobs(repo: &TestRepo) -> Vec<String> {
    repo.git(&["ls-tree", "-r", "--name-only", MEMORY])
        .lines()
        .map(str::to_owned)
        .collect()
}

fn learning_keys(repo: &TestRepo) -> Vec<String> {
    let out = repo.rune(&["show", "learnings", "--json"]).success().stdout;
    let mut keys: Vec<String> = json_lines(&out)
        .iter()
        .map(|l| l["key"].as_str().expect("key").to_owned())
        .collect();
    keys.sort();
    keys
}

fn learn_many(repo: &TestRepo, prefix: &str, n: usize) {
    let mut lines = String::new();
    for i in 0..n {
        lines.push_str(&format!(
            "{{\"type\":\"insight\",\"key\":\"{prefix}{i:03}\",\"insight\":\"note {i}\",\"confidence\":0.5}}\n"
        ));
    }
    repo.append(".rune/learnings.jsonl", &lines);
    repo.rune(&["-q", "save"]).success();
}

#[test]
fn layout_1_memory_is_read_migrated_by_the_next_write_and_converges_with_layout_2_after_sync() {
    let remote = Remote::new();
    let a = remote.clone("ada");
    a.commit_file("README", "hi\n", "start");
    a.git(&["push", "-q", "origin", "main"]);
    a.rune(&["-q", "init"]).success();
    learn_many(&a, "shared", 60);
    a.rune(&["-q", "sync"]).success();
    let b = remote.clone("bob");
    b.rune(&["-q", "init"]).success();
    b.rune(&["-q", "sync"]).success();
    assert_eq!(learning_keys(&b).len(), 60);

    // Layout 2: past 32 records a kind is split by id digit; no blob holds more than 32.
    assert_eq!(version(&b), "git-rune records 2");
    let paths = blobs(&b);
    assert!(
        !paths.iter().any(|p| p == "learning/all.jsonl"),
        "{paths:?}"
    );
    for p in paths.iter().filter(|p| p.starts_with("learning/")) {
        let lines = b.git(&["cat-file", "blob", &format!("{MEMORY}:{p}")]);
        assert!(lines.lines().count() <= 32, "{p} holds at most 32 records");
    }

    // Ada's clone holds what the previous version wrote, plus a learning bob lacks.
    learn_many(&a, "ada", 1);
    rewrite_as_layout_1(&a, MEMORY);
    assert_eq!(version(&a), "git-rune records 1");
    assert!(blobs(&a).iter().any(|p| p == "learning/all.jsonl"));
    let mut want = learning_keys(&a);
    assert_eq!(want.len(), 61, "layout 1 is read as it is");
    a.rune(&["verify"]).success();

    // Bob writes in layout 2 meanwhile. Ada pushes her layout-1 commit; bob merges it into his
    // layout-2 tree.
    learn_many(&b, "bob", 1);
    want.push("bob000".into());
    a.rune(&["-q", "sync"]).success();
    b.rune(&["-q", "sync"]).success();
    a.rune(&["-q", "sync"]).success();
    want.sort();
    converged(&a, &b, &want);

    // Again, the other way round: bob pushes first, and ada merges his records into her
    // layout-1 tree, which the merge lays out afresh.
    learn_many(&a, "ada", 2);
    rewrite_as_layout_1(&a, MEMORY);
    learn_many(&b, "bob", 2);
    b.rune(&["-q", "sync"]).success();
    a.rune(&["-q", "sync"]).success();
    assert_eq!(version(&a), "git-rune records 2");
    b.rune(&["-q", "sync"]).success();
    want.extend(["ada001".to_owned(), "bob001".to_owned()]);
    want.sort();
    converged(&a, &b, &want);
}

/// Both clones hold the learnings `want` in the same tree, in layout 2, and it verifies.
fn converged(a: &TestRepo, b: &TestRepo, want: &[String]) {
    assert_eq!(learning_keys(a), want);
    assert_eq!(learning_keys(b), want);
    assert_eq!(version(a), "git-rune records 2");
    assert_eq!(
        a.git(&["rev-parse", &format!("{MEMORY}^{{tree}}")]),
        b.git(&["rev-parse", &format!("{MEMORY}^{{tree}}")]),
        "both clones hold the same tree"
    );
    a.rune(&["verify"]).success();
}

#[test]
fn a_layout_newer_than_this_build_is_refused_without_writing() {
    let repo = TestRepo::new();
    repo.learn("k", "v");
    let tip = repo.git(&["rev-parse", MEMORY]);
    let tree = repo.git(&["rev-parse", &format!("{MEMORY}^{{tree}}")]);
    let version = repo.git_stdin(&["hash-object", "-w", "--stdin"], "git-rune records 9\n");
    let listing = repo
        .git(&["ls-tree", &tree])
        .lines()
        .map(|l| {
            if l.ends_with("\tVERSION") {
                format!("100644 blob {version}\tVERSION")
            } else {
                l.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let newer = repo.git_stdin(&["mktree"], &format!("{listing}\n"));
    let message = repo.git(&["log", "-1", "--format=%B", &tip]);
    let commit = repo.git_stdin(&["commit-tree", &newer, "-p", &tip], &message);
    repo.git(&["update-ref", MEMORY, &commit]);

    let out = repo
        .rune(&crate::common::learn_args("k2", "v2", &[]))
        .failure();
    assert!(out.stderr.contains("newer layout"), "{}", out.stderr);
    assert!(out.stderr.contains("upgrade git-rune"), "{}", out.stderr);
    assert_eq!(
        repo.git(&["rev-parse", MEMORY]),
        commit,
        "nothing was written"
    );
}
