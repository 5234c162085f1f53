//! A burst of writers sharing one remote over `git daemon` on 127.0.0.1: N clones, each
//! recording a learning, committing (the post-commit hook writes a note) and pushing its
//! branch (the pre-push hook syncs memory, `rune.strictPush` set so a memory push that gives
//! up fails it), ROUNDS times back to back, all at once. Reports the syncs that gave up, the median
//! and p90 sync time, and whether every note and record is on the remote right after the
//! burst; then the same burst against N separate remotes (one clone each: nobody to contend
//! with), the floor the machine itself sets.
//!
//!     cargo bench --locked --bench burst                 # N=16, 3 rounds
//!     BURST_N=32 BURST_ROUNDS=3 cargo bench --locked --bench burst
//!     RUNE=target/debug/git-rune cargo bench --locked --bench burst   # another binary
//!
//! docs/performance.md has the figures and the model for larger teams, whose measured part is
//!
//!     BURST_MODEL=32,64,128,256 cargo bench --locked --bench burst
//!
//! (one sync against a remote holding N clones' published refs, all of them moved since that
//! clone last synced, then again with nothing moved).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn rune_bin() -> PathBuf {
    std::env::var_os("RUNE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_git-rune")))
}

/// A git command in `dir` with a pinned environment and git-rune on PATH.
fn git(dir: &Path, home: &Path, args: &[&str]) -> std::process::Output {
    cmd("git", dir, home).args(args).output().expect("git")
}

fn cmd(program: &str, dir: &Path, home: &Path) -> Command {
    let bin = rune_bin();
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut c = Command::new(program);
    c.current_dir(dir)
        .env("PATH", path)
        .env("HOME", home)
        .env("GIT_CONFIG_GLOBAL", home.join(".gitconfig"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_RUNE_MAN_DIR", "")
        .env("TZ", "UTC")
        .env("LC_ALL", "C")
        .stdin(Stdio::null());
    c
}

fn ok(out: std::process::Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

#[path = "../tests/support/daemon.rs"]
mod daemon;
use daemon::GitDaemon;

/// What one burst measured.
struct Burst {
    syncs: Vec<Duration>,
    gave_up: usize,
    failed: usize,
    wall: Duration,
}

/// Runs a burst: `clones[i]` syncs with its own `origin`; returns the timings.
fn burst(clones: &[PathBuf], home: &Path, rounds: usize) -> Burst {
    let start = Instant::now();
    let handles: Vec<_> = clones
        .iter()
        .enumerate()
        .map(|(i, dir)| {
            let dir = dir.clone();
            let home = home.to_path_buf();
            std::thread::spawn(move || {
                let mut times = Vec::new();
                let (mut gave_up, mut failed) = (0, 0);
                for r in 0..rounds {
                    let key = format!("w{i}r{r}");
                    ok(
                        cmd(rune_bin().to_str().unwrap(), &dir, &home)
                            .args(["-q", "learn", "--type", "insight", "--key", &key])
                            .args(["--insight", "a burst"])
                            .output()
                            .unwrap(),
                        "learn",
                    );
                    std::fs::write(dir.join(format!("f{i}-{r}")), "x\n").unwrap();
                    ok(git(&dir, &home, &["add", "."]), "add");
                    ok(git(&dir, &home, &["commit", "-q", "-m", &key]), "commit");
                    // The code push: the pre-push hook syncs memory with it (strict, so
                    // memory that gave up fails the push and is counted).
                    let t = Instant::now();
                    let out = git(
                        &dir,
                        &home,
                        &["push", "-q", "origin", &format!("HEAD:refs/heads/w{i}")],
                    );
                    times.push(t.elapsed());
                    if !out.status.success() {
                        let err = String::from_utf8_lossy(&out.stderr);
                        if err.contains("kept moving") || err.contains("memory was not pushed") {
                            gave_up += 1;
                        } else {
                            failed += 1;
                            eprintln!("push failed: {err}");
                        }
                    }
                }
                (times, gave_up, failed)
            })
        })
        .collect();
    let mut b = Burst {
        syncs: Vec::new(),
        gave_up: 0,
        failed: 0,
        wall: Duration::ZERO,
    };
    for h in handles {
        let (t, g, f) = h.join().unwrap();
        b.syncs.extend(t);
        b.gave_up += g;
        b.failed += f;
    }
    b.wall = start.elapsed();
    b.syncs.sort();
    b
}

fn pct(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i].as_secs_f64() * 1000.0
}

/// A bare remote in `base` named `name`, with a first commit on main.
fn bare(base: &Path, home: &Path, name: &str) {
    let path = base.join(name);
    ok(
        git(
            base,
            home,
            &["init", "-q", "--bare", "-b", "main", path.to_str().unwrap()],
        ),
        "init",
    );
}

/// A clone of `url` set up as a team member's: identity, git-rune with its hooks.
fn member(root: &Path, home: &Path, url: &str, i: usize) -> PathBuf {
    let dir = root.join(format!("c{i}"));
    ok(
        git(root, home, &["clone", "-q", url, dir.to_str().unwrap()]),
        "clone",
    );
    ok(
        git(&dir, home, &["config", "user.name", &format!("w{i}")]),
        "cfg",
    );
    ok(
        git(
            &dir,
            home,
            &["config", "user.email", &format!("w{i}@example.com")],
        ),
        "cfg",
    );
    ok(
        cmd(rune_bin().to_str().unwrap(), &dir, home)
            .args(["-q", "init", "--hooks"])
            .output()
            .unwrap(),
        "init",
    );
    ok(
        git(&dir, home, &["config", "rune.strictPush", "true"]),
        "cfg",
    );
    dir
}

fn main() {
    let n: usize = std::env::var("BURST_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(16);
    let rounds: usize = std::env::var("BURST_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    if let Ok(ns) = std::env::var("BURST_MODEL") {
        let ns: Vec<usize> = ns
            .split(',')
            .filter_map(|n| n.trim().parse().ok())
            .collect();
        model(&ns);
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let base = tmp.path().join("srv");
    let work = tmp.path().join("work");
    for d in [&home, &base, &work, &work.join("team"), &work.join("solo")] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(home.join(".gitconfig"), "").unwrap();
    let daemon = GitDaemon::start(&base);
    let port = daemon.port;
    let url = |name: &str| format!("git://127.0.0.1:{port}/{name}");

    // One shared remote, seeded with a first commit.
    bare(&base, &home, "shared.git");
    let seed = work.join("seed");
    ok(
        git(
            &work,
            &home,
            &["init", "-q", "-b", "main", seed.to_str().unwrap()],
        ),
        "init",
    );
    ok(git(&seed, &home, &["config", "user.name", "seed"]), "cfg");
    ok(
        git(&seed, &home, &["config", "user.email", "seed@example.com"]),
        "cfg",
    );
    ok(
        git(
            &seed,
            &home,
            &["commit", "-q", "--allow-empty", "-m", "start"],
        ),
        "commit",
    );
    ok(
        git(&seed, &home, &["push", "-q", &url("shared.git"), "main"]),
        "push",
    );
    let team: Vec<PathBuf> = (0..n)
        .map(|i| member(&work.join("team"), &home, &url("shared.git"), i))
        .collect();
    // N separate remotes, one clone each.
    let mut alone = Vec::new();
    for i in 0..n {
        let name = format!("solo{i}.git");
        bare(&base, &home, &name);
        ok(
            git(&seed, &home, &["push", "-q", &url(&name), "main"]),
            "push",
        );
        alone.push(member(&work.join("solo"), &home, &url(&name), i));
    }

    let shared = burst(&team, &home, rounds);
    let solo = burst(&alone, &home, rounds);

    // Right after the burst: every record and every note on the remote (the union of its
    // refs, as any clone reads it), read by a fresh clone.
    let check = member(&work, &home, &url("shared.git"), 9999);
    let keys = ok(
        cmd(rune_bin().to_str().unwrap(), &check, &home)
            .args(["show", "learnings", "--json"])
            .output()
            .unwrap(),
        "show",
    );
    let records = keys.lines().count();
    // Notes by annotated commit: every one a team member wrote, found on the remote.
    let listed = |dir: &Path| -> std::collections::BTreeSet<String> {
        ok(
            git(dir, &home, &["notes", "--ref=rune", "list"]),
            "notes list",
        )
        .lines()
        .filter_map(|l| l.split_whitespace().nth(1).map(str::to_owned))
        .collect()
    };
    let on_remote = listed(&check);
    let mut expected_notes = 0;
    let mut notes = 0;
    for dir in &team {
        for c in listed(dir) {
            expected_notes += 1;
            notes += usize::from(on_remote.contains(&c));
        }
    }
    let syncs = n * rounds;
    println!("burst: {n} clones x {rounds} rounds of learn + commit + push (pre-push syncs memory) over git daemon");
    for (name, b) in [
        ("one shared remote", &shared),
        (&*format!("{n} separate remotes"), &solo),
    ] {
        println!(
            "  {name:<20} syncs {syncs}, gave up {}, failed {}, median {:.0} ms, p90 {:.0} ms, max {:.0} ms, wall {:.1} s",
            b.gave_up,
            b.failed,
            pct(&b.syncs, 0.5),
            pct(&b.syncs, 0.9),
            pct(&b.syncs, 1.0),
            b.wall.as_secs_f64()
        );
    }
    println!(
        "  p90 ratio shared / separate: {:.2}",
        pct(&shared.syncs, 0.9) / pct(&solo.syncs, 0.9)
    );
    println!(
        "  on the remote right after the burst: {records} of {syncs} records, {notes} of {expected_notes} notes"
    );
}

/// What one sync costs as the team grows: a remote holding the published refs of N clones, each
/// of which moved (one record this clone lacks) since this clone last synced (the worst a sync
/// meets inside a burst of N writers), then the same sync again with nothing moved. One process
/// publishes under N clone ids in turn (its `clone-id` rewritten), so the set-up costs a learn
/// and a sync per ref rather than N clones. `ns` grow: the ids of a smaller N are reused.
fn model(ns: &[usize]) {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let base = tmp.path().join("srv");
    let work = tmp.path().join("work");
    for d in [&home, &base, &work] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(home.join(".gitconfig"), "").unwrap();
    let daemon = GitDaemon::start(&base);
    let port = daemon.port;
    let url = format!("git://127.0.0.1:{port}/shared.git");
    bare(&base, &home, "shared.git");
    let seed = work.join("seed");
    ok(
        git(
            &work,
            &home,
            &["init", "-q", "-b", "main", seed.to_str().unwrap()],
        ),
        "init",
    );
    ok(git(&seed, &home, &["config", "user.name", "seed"]), "cfg");
    ok(
        git(&seed, &home, &["config", "user.email", "s@example.com"]),
        "cfg",
    );
    ok(
        git(
            &seed,
            &home,
            &["commit", "-q", "--allow-empty", "-m", "start"],
        ),
        "commit",
    );
    ok(git(&seed, &home, &["push", "-q", &url, "main"]), "push");
    let x = member(&work, &home, &url, 0);
    let publisher = member(&work, &home, &url, 1);
    let rune = |dir: &Path, args: &[&str]| {
        ok(
            cmd(rune_bin().to_str().unwrap(), dir, &home)
                .args(args)
                .output()
                .unwrap(),
            "git rune",
        )
    };
    rune(&x, &["-q", "sync"]);
    println!("model: one sync of one clone against a remote holding N clones' published refs, over git daemon");
    for &n in ns {
        for j in 0..n {
            std::fs::write(
                publisher.join(".git/rune/clone-id"),
                format!("{:016x}\n", j + 1),
            )
            .unwrap();
            let key = format!("n{n}-{j}");
            rune(
                &publisher,
                &[
                    "-q",
                    "learn",
                    "--type",
                    "insight",
                    "--key",
                    &key,
                    "--insight",
                    "x",
                ],
            );
            rune(&publisher, &["-q", "sync"]);
        }
        let refs = ok(
            git(
                &base.join("shared.git"),
                &home,
                &["for-each-ref", "--format=%(refname)"],
            ),
            "refs",
        )
        .lines()
        .count();
        let t = Instant::now();
        rune(&x, &["-q", "sync"]);
        let moved = t.elapsed().as_secs_f64() * 1000.0;
        let t = Instant::now();
        rune(&x, &["-q", "sync"]);
        let idle = t.elapsed().as_secs_f64() * 1000.0;
        println!(
            "  N={n:<4} refs on the remote {refs:>4}: sync after all N moved {moved:>6.0} ms, with nothing moved {idle:>5.0} ms"
        );
    }
}
