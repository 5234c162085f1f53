//! `Store::ahead_behind` agrees with a brute-force oracle and with `git rev-list --left-right --count`
//! on histories with merges, several roots and backdated commits, with and without a commit-graph.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::common::oid;
use git_rune::store::{AheadBehind, AheadBehindError, Store};

const BASE_TIME: i64 = 1_600_000_000;
const YEAR: i64 = 365 * 24 * 3600;

/// A throwaway repository driven by the `git` CLI with a pinned environment.
struct Repo {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Repo {
    fn new() -> Repo {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path().join("repo");
        std::fs::create_dir_all(&root).expect("create repo dir");
        let repo = Repo { _tmp: tmp, root };
        repo.git(&["init", "-q", "-b", "main"]);
        repo
    }

    fn command(dir: &Path, date: i64) -> Command {
        let date = format!("{date} +0000");
        let mut cmd = Command::new("git");
        cmd.current_dir(dir)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "Drift Test")
            .env("GIT_AUTHOR_EMAIL", "drift@example.com")
            .env("GIT_COMMITTER_NAME", "Drift Test")
            .env("GIT_COMMITTER_EMAIL", "drift@example.com")
            .env("GIT_AUTHOR_DATE", &date)
            .env("GIT_COMMITTER_DATE", &date)
            .env("LC_ALL", "C")
            .env("TZ", "UTC");
        cmd
    }

    fn run(&self, dir: &Path, args: &[&str], date: i64, stdin: Option<&[u8]>) -> String {
        let mut cmd = Repo::command(dir, date);
        cmd.args(args)
            .stdin(if stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("spawn git");
        if let Some(input) = stdin {
            let mut pipe = child.stdin.take().expect("stdin pipe");
            pipe.write_all(input).expect("write to git");
        }
        let out = child.wait_with_output().expect("wait for git");
        assert!(
            out.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim_end().to_owned()
    }

    fn git(&self, args: &[&str]) -> String {
        self.run(&self.root, args, BASE_TIME, None)
    }

    /// An empty commit with the given parents and committer/author date, via `git commit-tree`.
    fn commit(&self, parents: &[&str], date: i64) -> String {
        let tree = self.run(
            &self.root,
            &["hash-object", "-t", "tree", "-w", "--stdin"],
            date,
            Some(b""),
        );
        let mut args = vec!["commit-tree", tree.as_str(), "-m", "c"];
        for parent in parents {
            args.extend(["-p", parent]);
        }
        self.run(&self.root, &args, date, None)
    }

    fn open(&self) -> gix::Repository {
        open(&self.root)
    }

    fn has_commit_graph(&self) -> bool {
        let info = self.root.join(".git/objects/info");
        info.join("commit-graph").exists() || info.join("commit-graphs").exists()
    }
}

fn open(dir: &Path) -> gix::Repository {
    gix::open_opts(dir, gix::open::Options::isolated()).expect("open repository with gix")
}

fn counts(behind: usize, ahead: usize) -> AheadBehind {
    AheadBehind { ahead, behind }
}

/// `git rev-list --left-right --count saved...now`, run in `dir`.
fn git_counts(repo: &Repo, dir: &Path, saved: &str, now: &str) -> AheadBehind {
    let range = format!("{saved}...{now}");
    let out = repo.run(
        dir,
        &["rev-list", "--left-right", "--count", &range],
        BASE_TIME,
        None,
    );
    let (left, right) = out
        .split_once('\t')
        .unwrap_or_else(|| panic!("unexpected rev-list output {out:?}"));
    counts(
        left.parse().expect("left count"),
        right.parse().expect("right count"),
    )
}

fn ours(store: &Store, saved: &str, now: &str) -> AheadBehind {
    store
        .ahead_behind(oid(saved), oid(now))
        .unwrap_or_else(|e| panic!("ahead_behind({saved}, {now}): {e}"))
}

fn store(dir: &Path) -> Store {
    Store::open(dir).expect("open repository")
}

/// Asserts that gix-based counting and git agree with `expected`, in the main repository directory.
#[track_caller]
fn check(repo: &Repo, saved: &str, now: &str, expected: AheadBehind) {
    check_in(repo, &repo.root, saved, now, expected);
}

#[track_caller]
fn check_in(repo: &Repo, dir: &Path, saved: &str, now: &str, expected: AheadBehind) {
    assert_eq!(
        git_counts(repo, dir, saved, now),
        expected,
        "git rev-list {saved}...{now}"
    );
    assert_eq!(
        ours(&store(dir), saved, now),
        expected,
        "ahead_behind({saved}, {now})"
    );
}

/// A tiny deterministic generator, so the graph is "random" yet identical on every run.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A generated history: parents per commit (by index, parents always before children) and dates.
#[derive(Default)]
struct History {
    parents: Vec<Vec<usize>>,
    dates: Vec<i64>,
    /// Tips of the lines of development commits are added to.
    branches: Vec<usize>,
}

impl History {
    /// Appends `count` commits: plain commits, new branches, merges of tips, merges of arbitrary old
    /// commits, octopus merges and new roots, a quarter of them dated years before their parents.
    fn grow(&mut self, rng: &mut Lcg, count: usize) {
        for _ in 0..count {
            let i = self.parents.len();
            let mut parents = Vec::new();
            if i > 0 {
                let roll = rng.below(100);
                let b = rng.below(self.branches.len());
                if roll < 3 {
                    // another root: disjoint history until something merges it
                    self.branches.push(i);
                } else if roll < 10 {
                    parents.push(rng.below(i));
                    self.branches.push(i);
                } else if roll < 22 && self.branches.len() > 1 {
                    parents.push(self.branches[b]);
                    let other = self.branches
                        [(b + 1 + rng.below(self.branches.len() - 1)) % self.branches.len()];
                    parents.push(other);
                    if roll < 14 {
                        parents.push(rng.below(i));
                    }
                    self.branches[b] = i;
                } else if roll < 28 {
                    parents.push(self.branches[b]);
                    parents.push(rng.below(i));
                    self.branches[b] = i;
                } else {
                    parents.push(self.branches[b]);
                    self.branches[b] = i;
                }
            } else {
                self.branches.push(0);
            }
            parents.dedup();
            let mut seen = Vec::new();
            parents.retain(|p| {
                let new = !seen.contains(p);
                seen.push(*p);
                new
            });

            let newest_parent = parents
                .iter()
                .map(|&p| self.dates[p])
                .max()
                .unwrap_or(BASE_TIME);
            let date = match rng.below(8) {
                // backdated: years before its parents
                0 | 1 => {
                    newest_parent - YEAR * (1 + rng.below(5) as i64) - rng.below(100_000) as i64
                }
                // same second as a parent
                2 => newest_parent,
                // from the future, which makes its honest children look older than it
                3 => newest_parent + YEAR * (1 + rng.below(3) as i64),
                _ => newest_parent + 60 + rng.below(7200) as i64,
            };
            self.parents.push(parents);
            self.dates.push(date);
        }
    }

    /// The `git fast-import` stream for commits `from..`, each on its own ref so all stay reachable.
    fn fast_import_stream(&self, from: usize) -> Vec<u8> {
        let mut out = String::new();
        for i in from..self.parents.len() {
            let mark = i + 1;
            let date = self.dates[i];
            let _ = write!(
                out,
                "commit refs/heads/c{i}\nmark :{mark}\ncommitter Drift Test <drift@example.com> {date} +0000\ndata 0\n"
            );
            for (n, p) in self.parents[i].iter().enumerate() {
                let verb = if n == 0 { "from" } else { "merge" };
                let _ = writeln!(out, "{verb} :{}", p + 1);
            }
            out.push('\n');
        }
        out.into_bytes()
    }

    /// Ancestor sets (including the commit itself) as bitsets: the ground truth.
    fn ancestors(&self) -> Vec<Vec<u64>> {
        let words = self.parents.len().div_ceil(64);
        let mut sets: Vec<Vec<u64>> = Vec::with_capacity(self.parents.len());
        for (i, parents) in self.parents.iter().enumerate() {
            let mut set = vec![0u64; words];
            set[i / 64] |= 1 << (i % 64);
            for &p in parents {
                for (w, v) in set.iter_mut().zip(&sets[p]) {
                    *w |= v;
                }
            }
            sets.push(set);
        }
        sets
    }
}

fn oracle(sets: &[Vec<u64>], saved: usize, now: usize) -> AheadBehind {
    let only = |a: &[u64], b: &[u64]| {
        a.iter()
            .zip(b)
            .map(|(x, y)| (x & !y).count_ones() as usize)
            .sum()
    };
    counts(
        only(&sets[saved], &sets[now]),
        only(&sets[now], &sets[saved]),
    )
}

/// Imports commits `from..` of `history` and returns the ids of all commits so far.
fn import(repo: &Repo, history: &History, from: usize, ids: &mut Vec<String>) {
    let marks = repo.root.join(".git/drift-marks");
    let marks = marks.to_str().expect("utf-8 temp path");
    let export = format!("--export-marks={marks}");
    let import = format!("--import-marks={marks}");
    let mut args = vec!["fast-import", "--quiet", export.as_str()];
    if from > 0 {
        args.push(import.as_str());
    }
    repo.run(
        &repo.root,
        &args,
        BASE_TIME,
        Some(&history.fast_import_stream(from)),
    );
    let text = std::fs::read_to_string(marks).expect("read marks");
    ids.clear();
    ids.resize(history.parents.len(), String::new());
    for line in text.lines() {
        let (mark, id) = line.split_once(' ').expect("mark line");
        let mark: usize = mark.trim_start_matches(':').parse().expect("mark number");
        ids[mark - 1] = id.to_owned();
    }
    assert!(
        ids.iter().all(|id| id.len() == 40),
        "every commit got an id"
    );
}

/// Compares `ahead_behind` with the oracle on `pairs`, and git with the oracle on the first `git_pairs`.
/// Returns the pairs where git disagreed with the oracle.
fn compare(
    repo: &Repo,
    ids: &[String],
    sets: &[Vec<u64>],
    pairs: &[(usize, usize)],
    git_pairs: usize,
) -> Vec<(usize, usize, AheadBehind, AheadBehind)> {
    let ours_store = store(&repo.root);
    for &(saved, now) in pairs {
        let want = oracle(sets, saved, now);
        let got = ours(&ours_store, &ids[saved], &ids[now]);
        assert_eq!(got, want, "ahead_behind(c{saved}, c{now})");
    }
    let mut git_wrong = Vec::new();
    for &(saved, now) in pairs.iter().take(git_pairs) {
        let want = oracle(sets, saved, now);
        let git = git_counts(repo, &repo.root, &ids[saved], &ids[now]);
        if git != want {
            git_wrong.push((saved, now, git, want));
        }
    }
    git_wrong
}

fn pairs(rng: &mut Lcg, history: &History, lo: usize, count: usize) -> Vec<(usize, usize)> {
    let n = history.parents.len();
    let mut out = Vec::with_capacity(count + history.branches.len() * history.branches.len());
    // Branch tips against each other are the interesting, far-diverged cases; put them first so git
    // checks them too.
    for &a in &history.branches {
        for &b in &history.branches {
            if a != b && out.len() < count / 4 {
                out.push((a, b));
            }
        }
    }
    while out.len() < count {
        let (a, b) = match rng.below(3) {
            0 => (lo + rng.below(n - lo), rng.below(n)),
            1 => (rng.below(n), lo + rng.below(n - lo)),
            _ => (rng.below(n), rng.below(n)),
        };
        out.push((a, b));
    }
    out
}

#[test]
fn skewed_history_matches_oracle_and_git_with_and_without_commit_graph() {
    let repo = Repo::new();
    let mut rng = Lcg(0x5eed_d71f);
    let mut history = History::default();
    history.grow(&mut rng, 300);
    let mut ids = Vec::new();
    import(&repo, &history, 0, &mut ids);
    let sets = history.ancestors();
    let backdated = (0..history.parents.len())
        .filter(|&i| {
            history.parents[i]
                .iter()
                .any(|&p| history.dates[p] > history.dates[i])
        })
        .count();
    assert!(
        backdated > 50,
        "the history has plenty of children older than a parent ({backdated})"
    );
    assert!(
        history.parents.iter().filter(|p| p.len() > 1).count() > 30,
        "plenty of merges"
    );
    assert!(
        history.parents.iter().filter(|p| p.len() > 2).count() > 3,
        "some octopus merges"
    );
    assert!(
        history.parents.iter().filter(|p| p.is_empty()).count() > 3,
        "several roots"
    );

    let sample = pairs(&mut rng, &history, 0, 500);
    assert!(
        !repo.has_commit_graph(),
        "fast-import wrote no commit-graph"
    );
    // With no generation numbers at hand (no commit-graph, no cache: a fresh clone), every
    // count is exact too: commits on a straight line of single parents (counted along it)
    // and all the others (the walk that fills the cache). The cache is removed before each.
    let cache = repo.root.join(".git/rune/generations");
    let mut lines = 0;
    let fresh = store(&repo.root);
    for i in 0..history.parents.len() {
        let (mut j, mut steps) = (i, 0);
        while let [only] = history.parents[j].as_slice() {
            j = *only;
            steps += 1;
            if steps == 5 {
                break;
            }
        }
        if steps == 0 || i % 7 != 0 {
            continue;
        }
        lines += 1;
        for (saved, now) in [(j, i), (i, j)] {
            let _ = std::fs::remove_file(&cache);
            let got = ours(&fresh, &ids[saved], &ids[now]);
            assert_eq!(got, oracle(&sets, saved, now), "line c{saved}..c{now}");
        }
    }
    assert!(lines > 10, "straight lines checked: {lines}");
    for &(saved, now) in sample.iter().take(20) {
        let _ = std::fs::remove_file(&cache);
        let got = ours(&fresh, &ids[saved], &ids[now]);
        assert_eq!(got, oracle(&sets, saved, now), "cold c{saved}..c{now}");
    }
    assert!(repo
        .open()
        .commit_graph_if_enabled()
        .expect("probe commit-graph")
        .is_none());
    let git_wrong_without_graph = compare(&repo, &ids, &sets, &sample, 60);

    repo.git(&["commit-graph", "write", "--reachable"]);
    {
        let gix_repo = repo.open();
        let graph = gix_repo
            .commit_graph_if_enabled()
            .expect("read commit-graph")
            .expect("commit-graph present");
        assert_eq!(
            graph.num_commits() as usize,
            ids.len(),
            "every commit is in the commit-graph"
        );
    }
    let git_wrong = compare(&repo, &ids, &sets, &sample, 60);
    assert!(
        git_wrong.is_empty(),
        "git with a commit-graph disagrees with the oracle: {git_wrong:?}"
    );

    // Commits made after the commit-graph was written are read from the object database and
    // mixed with commits found in the graph.
    let old = history.parents.len();
    history.grow(&mut rng, 100);
    import(&repo, &history, old, &mut ids);
    let sets = history.ancestors();
    let sample = pairs(&mut rng, &history, old, 300);
    let git_wrong = compare(&repo, &ids, &sets, &sample, 40);
    assert!(
        git_wrong.is_empty(),
        "git with a partial commit-graph disagrees with the oracle: {git_wrong:?}"
    );

    // Git without a commit-graph orders its walk by commit date, so it is not held to the oracle;
    // this only reports what it got wrong.
    if !git_wrong_without_graph.is_empty() {
        eprintln!(
            "git rev-list without a commit-graph disagreed with the oracle on {} of 60 pairs, e.g. {:?}",
            git_wrong_without_graph.len(),
            git_wrong_without_graph.first()
        );
    }
}

/// Grows `history` by `count` commits whose dates are all distinct: two generated commits with the
/// same parents and date would be one git object, which the oracle counts twice.
fn grow_unique(history: &mut History, rng: &mut Lcg, count: usize) {
    let old = history.parents.len();
    history.grow(rng, count);
    for (i, date) in history.dates.iter_mut().enumerate().skip(old) {
        *date += i as i64;
    }
    let mut seen = std::collections::HashSet::new();
    assert!(
        history
            .parents
            .iter()
            .zip(&history.dates)
            .all(|commit| seen.insert(commit)),
        "every generated commit is its own object"
    );
}

/// Drift without a commit-graph keeps the generation numbers it computed in
/// `<git-dir>/rune/generations`; counts that use them (whole, then with new commits the cache lacks) still match the oracle, and a cache that contradicts the history is noticed,
/// not trusted, and rewritten.
#[test]
fn generation_cache_stays_exact_as_history_grows_and_is_rewritten_when_wrong() {
    let repo = Repo::new();
    let cache = repo.root.join(".git/rune/generations");
    let mut rng = Lcg(0x0ca_c4e6);
    let mut history = History::default();
    grow_unique(&mut history, &mut rng, 1200);
    let mut ids = Vec::new();
    import(&repo, &history, 0, &mut ids);
    assert!(!repo.has_commit_graph());
    assert!(!cache.exists());

    let sets = history.ancestors();
    let sample = pairs(&mut rng, &history, 0, 200);
    compare(&repo, &ids, &sets, &sample, 0);
    let first = std::fs::read(&cache).expect("the first count over the history fills the cache");
    // Warm: a new process reads the numbers instead of computing them.
    compare(&repo, &ids, &sets, &sample, 0);
    assert_eq!(
        std::fs::read(&cache).expect("cache"),
        first,
        "nothing new to add"
    );

    // New commits the cache lacks are computed from their cached ancestors.
    let old = history.parents.len();
    grow_unique(&mut history, &mut rng, 50);
    import(&repo, &history, old, &mut ids);
    let sets = history.ancestors();
    let sample = pairs(&mut rng, &history, old, 200);
    compare(&repo, &ids, &sets, &sample, 0);
    let old = history.parents.len();
    grow_unique(&mut history, &mut rng, 600);
    import(&repo, &history, old, &mut ids);
    let sets = history.ancestors();
    let sample = pairs(&mut rng, &history, old, 200);
    compare(&repo, &ids, &sets, &sample, 0);
    let grown = std::fs::read(&cache).expect("cache");
    assert!(grown.len() >= first.len(), "the cache only grows");

    // Every cached generation set to 1: the first edge walked contradicts it.
    let count = u32::from_be_bytes(grown[8..12].try_into().expect("count")) as usize;
    let mut wrong = grown.clone();
    let at = wrong.len() - count * 4;
    for g in wrong[at..].chunks_exact_mut(4) {
        g.copy_from_slice(&1u32.to_be_bytes());
    }
    std::fs::write(&cache, &wrong).expect("write a wrong cache");
    let sample = pairs(&mut rng, &history, 0, 100);
    compare(&repo, &ids, &sets, &sample, 0);
    let rewritten = std::fs::read(&cache).expect("cache");
    assert_ne!(rewritten, wrong, "a contradicted cache is replaced");
}

/// root - a1 - a2 - a3 with a side branch b1 off a1, a merge of a3 and b1, and an unrelated root.
struct Small {
    repo: Repo,
    root: String,
    a1: String,
    a2: String,
    a3: String,
    b1: String,
    merge: String,
    other_root: String,
    other_tip: String,
}

fn small() -> Small {
    let repo = Repo::new();
    let t = BASE_TIME;
    let root = repo.commit(&[], t);
    let a1 = repo.commit(&[&root], t + 100);
    // children dated before their parents throughout
    let a2 = repo.commit(&[&a1], t - 5 * YEAR);
    let a3 = repo.commit(&[&a2], t - 6 * YEAR);
    let b1 = repo.commit(&[&a1], t + 10 * YEAR);
    let merge = repo.commit(&[&a3, &b1], t - 10 * YEAR);
    let other_root = repo.commit(&[], t + 50);
    let other_tip = repo.commit(&[&other_root], t - YEAR);
    repo.git(&["update-ref", "refs/heads/main", &merge]);
    repo.git(&["update-ref", "refs/heads/other", &other_tip]);
    Small {
        repo,
        root,
        a1,
        a2,
        a3,
        b1,
        merge,
        other_root,
        other_tip,
    }
}

fn check_edge_cases(s: &Small) {
    let r = &s.repo;
    // equal
    check(r, &s.a2, &s.a2, counts(0, 0));
    check(r, &s.root, &s.root, counts(0, 0));
    // linear, saved behind now: HEAD moved ahead
    check(r, &s.root, &s.a3, counts(0, 3));
    check(r, &s.a1, &s.a2, counts(0, 1));
    // linear, saved ahead of now: HEAD was reset back
    check(r, &s.a3, &s.root, counts(3, 0));
    // diverged
    check(r, &s.a3, &s.b1, counts(2, 1));
    check(r, &s.b1, &s.a3, counts(1, 2));
    // through a merge
    check(r, &s.a3, &s.merge, counts(0, 2));
    check(r, &s.b1, &s.merge, counts(0, 3));
    check(r, &s.merge, &s.root, counts(5, 0));
    // disjoint roots
    check(r, &s.other_tip, &s.merge, counts(2, 6));
    check(r, &s.merge, &s.other_root, counts(6, 1));
    check(r, &s.root, &s.other_root, counts(1, 1));
}

#[test]
fn edge_cases_from_loose_objects() {
    let s = small();
    assert!(!s.repo.has_commit_graph());
    check_edge_cases(&s);
}

#[test]
fn edge_cases_through_commit_graph() {
    let s = small();
    s.repo.git(&["commit-graph", "write", "--reachable"]);
    assert!(s.repo.has_commit_graph());
    check_edge_cases(&s);
}

#[test]
fn annotated_tags_are_peeled() {
    let s = small();
    let r = &s.repo;
    r.run(
        &r.root,
        &["tag", "-a", "-m", "t", "v1", &s.a3],
        BASE_TIME,
        None,
    );
    r.run(
        &r.root,
        &["tag", "-a", "-m", "t", "v1-again", "v1"],
        BASE_TIME,
        None,
    );
    let tag = r.git(&["rev-parse", "v1-again"]);
    assert_ne!(tag, s.a3, "a tag object, not the commit");
    check(r, &s.root, &tag, counts(0, 3));
    check(r, &tag, &s.a3, counts(0, 0));
}

#[test]
fn shallow_commits_have_no_parents() {
    let s = small();
    let r = &s.repo;
    let clone = r.root.parent().expect("temp dir").join("shallow");
    let url = format!("file://{}", r.root.display());
    let clone_str = clone.to_str().expect("utf-8 temp path");
    r.run(
        &r.root,
        &["clone", "-q", "--depth", "2", "--no-local", &url, clone_str],
        BASE_TIME,
        None,
    );
    assert!(clone.join(".git/shallow").exists(), "the clone is shallow");
    // Only merge, a3 and b1 are present; a3 and b1 are cut off from their parents.
    check_in(r, &clone, &s.a3, &s.merge, counts(0, 2));
    check_in(r, &clone, &s.b1, &s.a3, counts(1, 1));
    check_in(r, &clone, &s.merge, &s.b1, counts(2, 0));
}

#[test]
fn missing_and_non_commit_objects_are_typed_errors() {
    let s = small();
    let repo = store(&s.repo.root);
    let missing = oid("1234567890123456789012345678901234567890");
    match repo.ahead_behind(missing, oid(&s.a1)) {
        Err(AheadBehindError::MissingCommit { id }) => assert_eq!(id, missing),
        other => panic!("expected a missing commit, got {other:?}"),
    }
    let tree = s.repo.run(
        &s.repo.root,
        &["rev-parse", &format!("{}^{{tree}}", s.a1)],
        BASE_TIME,
        None,
    );
    match repo.ahead_behind(oid(&s.a1), oid(&tree)) {
        Err(err @ AheadBehindError::NotACommit { .. }) => {
            assert_eq!(
                err.to_string(),
                format!("object {tree} is a tree, not a commit")
            );
        }
        other => panic!("expected a non-commit error, got {other:?}"),
    }
}

#[test]
fn replace_refs_that_form_a_cycle_are_reported() {
    let s = small();
    let r = &s.repo;
    // Pretend a1's parent is a3, a descendant of a1.
    let fake_a1 = r.commit(&[&s.a3], BASE_TIME);
    r.git(&["replace", &s.a1, &fake_a1]);
    let repo = store(&s.repo.root);
    match repo.ahead_behind(oid(&s.root), oid(&s.a3)) {
        Err(AheadBehindError::Cycle { .. }) => {}
        other => panic!("expected a cycle, got {other:?}"),
    }
}
