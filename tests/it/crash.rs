//! A git-rune killed at any point leaves nothing that blocks the next command: stale ref
//! locks it held and temporary files it wrote are cleared by the next writer, a lock held by
//! someone else is reported the way git reports it, and hooks give up quickly on a held lock
//! and write the missing note on their next run.

use std::process::Command;
use std::time::Duration;

use crate::common::{json_lines, TestRepo};

fn verify_clean(repo: &TestRepo) {
    let out = repo.rune(&["verify"]);
    assert!(
        out.stdout.lines().last().unwrap_or("").starts_with("CLEAN"),
        "{}{}",
        out.stdout,
        out.stderr
    );
}

/// Kills `git rune save` at pseudo-random points; after each kill the next command works
/// and memory verifies CLEAN, and nothing any successful command wrote is lost.
#[test]
fn a_save_killed_anywhere_leaves_memory_usable() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a\n", "first");
    repo.rune(&["-q", "init"]).success();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut learned = 0;
    // Rounds whose kill left: a lock, a temporary object, an owner file, a view temp file.
    let mut left = [0usize; 4];
    for round in 0..24 {
        repo.append(
            ".rune/decisions.md",
            &format!(
                "\n## Decision: Round {round}\n**Context:** c\n**Decision:** d\n**Rationale:** r\n**Impact:** i\n"
            ),
        );
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_git-rune"));
        repo.env(&mut cmd);
        cmd.args(["-q", "save", "-m", &format!("round {round}")]);
        let mut child = cmd.spawn().expect("spawn save");
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        // 0–12 ms: start-up, reading, writing objects, the ref transaction, the view.
        std::thread::sleep(Duration::from_micros(seed % 12_000));
        let _ = child.kill();
        let _ = child.wait();
        let git_files = walk(&repo.root.join(".git"));
        left[0] += usize::from(
            git_files
                .iter()
                .any(|p| p.ends_with(".lock") && !p.ends_with("view.lock")),
        );
        left[1] += usize::from(git_files.iter().any(|p| p.contains("tmp_obj_")));
        left[2] += usize::from(git_files.iter().any(|p| p.contains("/owners/")));
        left[3] += usize::from(
            walk(&repo.root.join(".rune"))
                .iter()
                .any(|p| p.contains(".tmp-")),
        );
        // The next write goes through, whatever the kill left.
        repo.rune(&[
            "-q",
            "learn",
            "--type",
            "insight",
            "--key",
            &format!("k{round}"),
            "--insight",
            "after the kill",
        ])
        .success();
        learned += 1;
        // The killed save's edits, if it did not get to write them, are still in the view.
        repo.rune(&["-q", "save", "-m", "after the kill"]).success();
        verify_clean(&repo);
    }
    // Finish the last edits and check nothing written was lost.
    println!(
        "24 kills left: a lock {} times, temporary objects {}, an owner file {}, a view temp file {}",
        left[0], left[1], left[2], left[3]
    );
    // A registration cut short is cleared once it is a second old.
    std::thread::sleep(Duration::from_millis(1100));
    repo.rune(&["-q", "save", "-m", "final"]).success();
    verify_clean(&repo);
    let learnings = json_lines(&repo.rune(&["show", "learnings", "--json"]).success().stdout);
    assert_eq!(learnings.len(), learned);
    let decisions = json_lines(&repo.rune(&["show", "decisions", "--json"]).success().stdout);
    assert_eq!(decisions.len(), 24, "every round's decision was saved once");
    let common = repo.root.join(".git");
    let owners: Vec<_> = walk(&common.join("rune/owners"));
    assert!(owners.is_empty(), "owner files left: {owners:?}");
    let stray: Vec<_> = walk(&common.join("objects"))
        .into_iter()
        .filter(|p| p.contains("tmp_obj_"))
        .collect();
    assert!(stray.is_empty(), "temporary objects left: {stray:?}");
    let view_tmp: Vec<_> = walk(&repo.root.join(".rune"))
        .into_iter()
        .filter(|p| p.contains(".tmp-"))
        .collect();
    assert!(
        view_tmp.is_empty(),
        "temporary view files left: {view_tmp:?}"
    );
}

fn walk(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p.display().to_string());
        }
    }
    out
}

/// What a git-rune killed mid-write leaves, built by hand: an owner file nobody holds,
/// listing the lock it took and where its temporary objects went.
#[test]
fn a_dead_writers_lock_and_temporary_files_are_cleared() {
    let repo = TestRepo::new();
    repo.learn("first", "x");
    let git = repo.root.join(".git");
    let lock = git.join("refs/rune/memory.lock");
    std::fs::write(&lock, "0000000000000000000000000000000000000000\n").unwrap();
    let fanout = git.join("objects/ab");
    std::fs::create_dir_all(&fanout).unwrap();
    let tmp_obj = fanout.join("tmp_obj_4242-0000abcd_0");
    std::fs::write(&tmp_obj, "partial").unwrap();
    let owners = git.join("rune/owners");
    std::fs::create_dir_all(&owners).unwrap();
    std::fs::write(
        owners.join("4242-0000abcd"),
        format!("objects {}\nlock {}\n", fanout.display(), lock.display()),
    )
    .unwrap();
    let view_tmp = repo.root.join(".rune/.learnings.jsonl.tmp-4242");
    std::fs::write(&view_tmp, "half a file").unwrap();

    repo.learn("second", "y");
    assert!(!lock.exists(), "the dead writer's lock was removed");
    assert!(!tmp_obj.exists(), "its temporary object was removed");
    assert!(!owners.join("4242-0000abcd").exists());
    assert!(!view_tmp.exists(), "the view's temporary file was removed");
    verify_clean(&repo);
}

/// A lock nobody in git-rune owns (git itself, or a crash of another tool) is not removed:
/// the write waits, then says what git says, and changes nothing.
#[test]
fn a_foreign_lock_is_reported_like_git_reports_it() {
    let repo = TestRepo::new();
    repo.learn("first", "x");
    let refs_before = repo.refs();
    let lock = repo.root.join(".git/refs/rune/memory.lock");
    std::fs::write(&lock, "").unwrap();
    let out = repo
        .rune(&["learn", "--type", "insight", "--key", "k", "--insight", "i"])
        .failure();
    assert!(
        out.stderr.contains(&format!("'{}' exists", lock.display())),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("another git or git-rune process"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("remove the file"), "{}", out.stderr);
    assert_eq!(repo.refs(), refs_before, "nothing was written");
    assert!(lock.exists(), "a lock git-rune does not own is left alone");
    std::fs::remove_file(&lock).unwrap();
    repo.learn("k", "now it works");
}

/// post-commit gives up on a held notes lock within the hook's patience, remembers the
/// commit, and the next post-commit writes both notes.
#[test]
fn a_held_notes_lock_costs_the_commit_nothing_and_the_note_comes_later() {
    let repo = TestRepo::new();
    repo.commit_file("a", "1", "base");
    repo.rune(&["-q", "init", "--hooks"]).success();
    repo.commit_file("a", "2", "noted");
    let lock = repo.root.join(".git/refs/notes/rune.lock");
    std::fs::write(&lock, "").unwrap();
    let started = std::time::Instant::now();
    let out = repo.git_output(&["commit", "-q", "--allow-empty", "-m", "while locked"]);
    let took = started.elapsed();
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("refs/notes/rune.lock"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Not a timing test: the point is that it does not wait the commands' 3 s.
    assert!(took < Duration::from_millis(2500), "{took:?}");
    let locked = repo.git(&["rev-parse", "HEAD"]);
    assert!(repo
        .git_output(&["notes", "--ref=rune", "show", &locked])
        .stdout
        .is_empty());
    std::fs::remove_file(&lock).unwrap();
    repo.commit_file("a", "3", "after");
    let note = repo.git(&["notes", "--ref=rune", "show", &locked]);
    assert!(note.starts_with("rune: "), "{note}");
    assert!(!repo.root.join(".git/rune/pending-notes").exists());
}
