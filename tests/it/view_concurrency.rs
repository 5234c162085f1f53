//! The view stays consistent under parallel writers, and `save` never deletes what nobody
//! deleted: the repro from the view-fidelity issue (8 concurrent `learn`, then `save`), and a
//! mixed run of 8 workers recording, saving and committing at once.

use std::process::{Child, Command, Stdio};

use crate::common::{assert_view_clean, decide_args, json_lines, path_with_binary, TestRepo};

/// Starts `git-rune args…` in the repository without waiting for it.
fn spawn(repo: &TestRepo, args: &[String]) -> Child {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_git-rune"));
    repo.env(&mut cmd);
    cmd.env("PATH", path_with_binary())
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn git-rune")
}

fn wait_all(children: Vec<Child>) {
    for child in children {
        let out = child.wait_with_output().expect("wait for git-rune");
        assert!(
            out.status.success(),
            "a worker failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

fn count(repo: &TestRepo, kind: &str) -> usize {
    json_lines(&repo.rune(&["--json", "show", kind]).success().stdout).len()
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn parallel_learns_then_save_lose_nothing() {
    let repo = TestRepo::new();
    repo.rune(&["-q", "init"]).success();
    let trials = 200;
    for trial in 0..trials {
        let workers = (0..8)
            .map(|w| {
                let key = format!("k{trial}-{w}");
                spawn(
                    &repo,
                    &args(&[
                        "-q",
                        "learn",
                        "--type",
                        "insight",
                        "--key",
                        &key,
                        "--insight",
                        "x",
                    ]),
                )
            })
            .collect();
        wait_all(workers);
        repo.rune(&["-q", "save", "-m", &format!("trial {trial}")])
            .success();
        let have = count(&repo, "learnings");
        assert_eq!(have, 8 * (trial + 1), "trial {trial} lost learnings");
    }
    // No record anyone wrote was deleted, and the view shows them all.
    let jsonl = repo.read(".rune/learnings.jsonl");
    assert_eq!(jsonl.lines().count(), 8 * trials);
    let deletes = repo.git(&["ls-tree", "-r", "--name-only", "refs/rune/memory"]);
    assert!(!deletes.contains("delete/"), "{deletes}");
}

#[test]
fn mixed_workers_keep_every_record_and_the_last_checkpoint() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "0\n", "base");
    repo.rune(&["-q", "init", "--hooks"]).success();
    let rounds = 6;
    let mut checkpoints = 0;
    let mut last_checkpoint = String::new();
    for round in 0..rounds {
        let mut workers = Vec::new();
        for w in 0..8 {
            let tag = format!("r{round}w{w}");
            let a = match w % 4 {
                0 => args(&[
                    "-q",
                    "learn",
                    "--type",
                    "insight",
                    "--key",
                    &tag,
                    "--insight",
                    "x",
                ]),
                1 => args(&[&["-q"], decide_args(&tag, &[]).as_slice()].concat()),
                2 => args(&["-q", "remember", "--section", "Active Topics", &tag]),
                _ => args(&["-q", "save", "-m", &tag]),
            };
            workers.push(spawn(&repo, &a));
        }
        // A commit (post-commit hook) in the middle of it all.
        repo.commit_file(
            "a.txt",
            &format!("{}\n", round + 1),
            &format!("round {round}"),
        );
        wait_all(workers);
        // One checkpoint per round, after the round's workers: the last one written wins.
        last_checkpoint = format!("step {round}");
        repo.rune(&["-q", "checkpoint", "--doing", &last_checkpoint])
            .success();
        checkpoints += 1;
    }
    assert_eq!(count(&repo, "learnings"), 2 * rounds);
    assert_eq!(count(&repo, "decisions"), 2 * rounds);
    assert_eq!(count(&repo, "cumulative-notes"), 2 * rounds);
    let cps = json_lines(
        &repo
            .rune(&["--json", "show", "checkpoint"])
            .success()
            .stdout,
    );
    assert_eq!(
        cps.len(),
        checkpoints,
        "no checkpoint came from a stale view"
    );
    let open: Vec<_> = cps.iter().filter(|c| c["status"] == "open").collect();
    assert_eq!(open.len(), 1);
    assert_eq!(open[0]["doing"], last_checkpoint.as_str());
    // And nothing was ever deleted or resolved by a save.
    let tree = repo.git(&["ls-tree", "-r", "--name-only", "refs/rune/memory"]);
    assert!(!tree.contains("delete/"), "{tree}");
    assert_view_clean(&repo);
}
