//! git-rune starts git's automatic maintenance after it writes, as git commands do: with
//! `gc.auto` low enough, a memory write leads to a `git gc --auto` that packs it.

use std::time::{Duration, Instant};

use crate::common::TestRepo;

/// Pack files in the object database.
fn packs(repo: &TestRepo) -> usize {
    std::fs::read_dir(repo.root.join(".git/objects/pack"))
        .map(|d| {
            d.filter(|e| {
                e.as_ref()
                    .is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".pack"))
            })
            .count()
        })
        .unwrap_or(0)
}

/// Loose objects under `objects/17/`, the directory `gc --auto` samples.
fn loose_in_17(repo: &TestRepo) -> usize {
    std::fs::read_dir(repo.root.join(".git/objects/17"))
        .map(|d| d.count())
        .unwrap_or(0)
}

#[test]
fn a_write_starts_git_maintenance_which_honours_gc_auto() {
    let repo = TestRepo::new();
    repo.learn("first", "before maintenance is asked for");
    // Enough loose objects for `gc --auto` with gc.auto=1: two in objects/17/.
    let files = repo.root.join(".git/filler");
    std::fs::create_dir_all(&files).expect("filler dir");
    let mut paths = String::new();
    for i in 0..2000 {
        let path = files.join(format!("f{i}"));
        std::fs::write(&path, format!("filler {i}\n")).expect("write filler");
        paths.push_str(&format!("{}\n", path.display()));
    }
    repo.git_stdin(&["hash-object", "-w", "--stdin-paths"], &paths);
    assert!(
        loose_in_17(&repo) >= 2,
        "the sample directory is full enough"
    );
    repo.git(&["config", "gc.auto", "1"]);
    repo.git(&["config", "gc.autoDetach", "false"]);

    assert_eq!(packs(&repo), 0);

    repo.learn("second", "after");
    // The maintenance runs beside the command, which does not wait for it. (gc packs what is
    // reachable; the filler stays loose until it expires.)
    let deadline = Instant::now() + Duration::from_secs(60);
    while packs(&repo) == 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(packs(&repo) > 0, "git gc --auto packed memory's objects");
    let memory = repo.git(&["rev-parse", "refs/rune/memory"]);
    assert_eq!(
        repo.git(&["cat-file", "-t", &memory]),
        "commit",
        "memory is intact after the gc"
    );
}

/// A write of many objects lands as one pack (as git keeps a large fetch), which git reads and
/// checks whole; a small write stays loose.
#[test]
fn a_bulk_write_is_one_pack_and_a_small_one_stays_loose() {
    let repo = TestRepo::new();
    repo.rune(&["-q", "init"]).success();
    let lines: String = (0..3000)
        .map(|i| {
            format!(
                "{{\"ts\":\"2026-01-01T00:00:00Z\",\"type\":\"insight\",\"key\":\"bulk-{i}\",\"insight\":\"line {i}\",\"confidence\":0.5}}\n"
            )
        })
        .collect();
    let path = repo.root.join(".rune/learnings.jsonl");
    let mut text = std::fs::read_to_string(&path).unwrap_or_default();
    text.push_str(&lines);
    std::fs::write(&path, text).expect("append lines");
    repo.rune(&["-q", "save", "-m", "bulk"]).success();
    assert_eq!(packs(&repo), 1, "the bulk save wrote one pack");
    let names: Vec<String> = std::fs::read_dir(repo.root.join(".git/objects/pack"))
        .expect("pack dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    // The pack, its index and nothing else: no `.keep`, no staging directory left.
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(
        names
            .iter()
            .all(|n| n.ends_with(".pack") || n.ends_with(".idx")),
        "{names:?}"
    );
    repo.git(&["fsck", "--strict", "--no-progress"]);
    let count = |repo: &TestRepo| {
        crate::common::json_lines(&repo.rune(&["--json", "show", "learnings"]).success().stdout)
            .len()
    };
    assert_eq!(count(&repo), 3000);

    repo.learn("one-more", "a small write");
    assert_eq!(packs(&repo), 1, "a small write adds no pack");
    assert_eq!(count(&repo), 3001);
    repo.git(&["fsck", "--strict", "--no-progress"]);
}
