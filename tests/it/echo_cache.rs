//! `echo search`, `echo show` and `load --role` read the echoes folded once per tree pair and
//! cached under `<git-dir>/rune/cache/echoes/` (and `echo search` its index, `<git-dir>/rune/
//! cache/echo-index/`): the output is the same with the caches, without them and with damaged ones,
//! also after new entries and references are written; a missing or damaged cache is made
//! again, and a write leaves the caches of the trees it made.

use std::path::PathBuf;

use crate::common::TestRepo;

fn cache_dir(repo: &TestRepo) -> PathBuf {
    repo.root.join(".git/rune/cache/echoes")
}

fn index_dir(repo: &TestRepo) -> PathBuf {
    repo.root.join(".git/rune/cache/echo-index")
}

/// The cache key of memory now (the memory tree, the branch's session-state tree).
fn key_now(repo: &TestRepo) -> String {
    let tree = |r: &str| {
        let out = repo.git_output(&["rev-parse", "-q", "--verify", &format!("{r}^{{tree}}")]);
        let id = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        if id.is_empty() {
            "-".to_owned()
        } else {
            id
        }
    };
    format!(
        "{}-{}",
        tree("refs/rune/memory"),
        tree("refs/rune/branches/main")
    )
}

/// Whether both caches of memory now are stored (a reader will not fold).
fn warm(repo: &TestRepo) -> bool {
    let key = key_now(repo);
    cache_dir(repo).join(&key).is_file() && index_dir(repo).join(&key).is_file()
}

fn cached(repo: &TestRepo) -> Vec<PathBuf> {
    list(cache_dir(repo))
}

fn list(dir: PathBuf) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    out.sort();
    out
}

fn add(repo: &TestRepo, role: &str, title: &str, evidence: &str, confidence: &str) {
    repo.rune(&[
        "-q",
        "echo",
        "add",
        title,
        "--role",
        role,
        "--layer",
        "inscribed",
        "--evidence",
        evidence,
        "--confidence",
        confidence,
        "--source",
        "rune:review PR #42",
        "--text",
        "The query cache misses when the module reloads.",
    ])
    .success();
}

/// Everything the readers of echoes say, in text and JSON.
fn readings(repo: &TestRepo) -> Vec<String> {
    [
        vec!["echo", "search", "query cache"],
        vec!["--json", "echo", "search", "query cache"],
        vec!["--json", "echo", "search", "module", "--role", "planner"],
        vec!["echo", "show"],
        vec!["--json", "echo", "show", "--role", "reviewer"],
        vec!["load", "--role", "reviewer"],
        vec!["load", "--role", "planner", "--json"],
        vec!["load", "--role", "reviewer", "--budget", "50000"],
    ]
    .iter()
    .map(|args| repo.rune(args).success().stdout)
    .collect()
}

/// The readings with the cache as the writes left it, then with none, then with a damaged
/// one; all the same, and the cache made again.
fn same_with_and_without_cache(repo: &TestRepo) -> Vec<String> {
    assert!(warm(repo), "the last write left no cache of its trees");
    let with = readings(repo);
    // Without the index (made again from the cached echoes), then without either.
    std::fs::remove_dir_all(index_dir(repo)).unwrap();
    assert_eq!(readings(repo), with);
    assert!(warm(repo));
    std::fs::remove_dir_all(cache_dir(repo)).unwrap();
    std::fs::remove_dir_all(index_dir(repo)).unwrap();
    assert_eq!(readings(repo), with);
    let made = cached(repo);
    assert!(!made.is_empty());
    let whole: Vec<Vec<u8>> = made.iter().map(|p| std::fs::read(p).unwrap()).collect();
    for (path, bytes) in made.iter().zip(&whole) {
        std::fs::write(path, &bytes[..bytes.len() / 2]).unwrap();
    }
    let indexes = list(index_dir(repo));
    assert_eq!(indexes.len(), 1);
    let index = std::fs::read(&indexes[0]).unwrap();
    std::fs::write(&indexes[0], &index[..index.len() / 2]).unwrap();
    assert_eq!(readings(repo), with);
    // Made again, whole.
    for (path, bytes) in made.iter().zip(&whole) {
        assert_eq!(&std::fs::read(path).unwrap(), bytes);
    }
    assert_eq!(std::fs::read(&indexes[0]).unwrap(), index);
    with
}

#[test]
fn echo_readers_are_the_same_with_without_and_with_a_damaged_cache() {
    let repo = TestRepo::new();
    repo.commit_file("README", "hi\n", "start");
    repo.rune(&["-q", "init"]).success();
    repo.decide("Use the query cache", "d", &[]);
    for i in 0..6 {
        let role = if i % 2 == 0 { "reviewer" } else { "planner" };
        add(
            &repo,
            role,
            &format!("Pattern: query cache finding {i}"),
            &format!("`src/m{i}.rs:{i}`"),
            &format!("0.{}", i + 3),
        );
    }
    let first = same_with_and_without_cache(&repo);
    assert!(first[0].contains("query cache finding"), "{}", first[0]);
    assert!(first[5].contains("Echoes: reviewer"), "{}", first[5]);

    // New entries and references: new trees, a new cache, the same outputs as a fresh fold.
    add(
        &repo,
        "reviewer",
        "Pattern: module reload drops the cache",
        "`src/reload.rs:7`",
        "0.9",
    );
    let shown = repo.rune(&["--json", "echo", "show"]).success().stdout;
    let uid = crate::common::json_lines(&shown)[0]["uid"]
        .as_str()
        .unwrap()
        .to_owned();
    repo.rune(&["-q", "echo", "ref", &uid, "--workflow", "review-7"])
        .success();
    repo.rune(&["-q", "echo", "ref", &uid, "--workflow", "review-8"])
        .success();
    // `echo ref` renders no echoes file: the view refresh after its commit stored the caches.
    assert!(warm(&repo));
    let second = same_with_and_without_cache(&repo);
    assert_ne!(second, first);
    assert!(
        second[3].contains("module reload drops the cache"),
        "{}",
        second[3]
    );
}
