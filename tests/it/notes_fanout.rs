//! Notes interoperate with git both ways, including a fanned-out notes tree.

use std::io::Write;
use std::process::{Command, Stdio};

use git_rune::store::Store;

use crate::common::TestRepo;

#[test]
fn git_written_fanned_out_notes_are_read_and_ours_are_read_by_git() {
    let repo = TestRepo::new();
    // 300 commits and a note on each, written by git fast-import (git fans notes out past 256).
    let n = 300;
    let mut stream = String::new();
    for i in 1..=n {
        stream.push_str(&format!(
            "commit refs/heads/main\nmark :{i}\ncommitter T <t@example.com> {} +0000\ndata {}\nc{i}\n",
            1_700_000_000 + i,
            format!("c{i}\n").len()
        ));
    }
    stream.push_str(
        "commit refs/notes/rune\ncommitter T <t@example.com> 1700001000 +0000\ndata 6\nnotes\n",
    );
    for i in 1..=n {
        let body = format!("git note {i}\n");
        stream.push_str(&format!("N inline :{i}\ndata {}\n{body}", body.len()));
    }
    let mut cmd = Command::new("git");
    repo.env(&mut cmd);
    let mut child = cmd
        .args(["fast-import", "--quiet"])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stream.as_bytes())
        .unwrap();
    assert!(child.wait().unwrap().success());
    let top = repo.git(&["ls-tree", "--name-only", "refs/notes/rune"]);
    assert!(top.lines().all(|l| l.len() == 2), "fanned out: {top}");

    let store = Store::open(&repo.root).unwrap();
    let commits: Vec<String> = repo
        .git(&["rev-list", "main"])
        .lines()
        .map(str::to_owned)
        .collect();
    let oid = |h: &str| gix::ObjectId::from_hex(h.as_bytes()).unwrap();
    // rev-list is newest first: commit c300 is first.
    assert_eq!(
        store.note(oid(&commits[0])).unwrap().as_deref(),
        Some("git note 300\n")
    );
    assert_eq!(
        store
            .note(oid(&commits[n as usize - 1]))
            .unwrap()
            .as_deref(),
        Some("git note 1\n")
    );

    store.set_note(oid(&commits[10]), "ours", "test").unwrap();
    let store = Store::open(&repo.root).unwrap();
    assert_eq!(
        store.note(oid(&commits[10])).unwrap().as_deref(),
        Some("ours\n")
    );
    assert_eq!(
        repo.git(&["notes", "--ref=rune", "show", &commits[10]]),
        "ours"
    );
    assert_eq!(
        repo.git(&["notes", "--ref=rune", "show", &commits[11]]),
        format!("git note {}", n - 11)
    );
    assert_eq!(
        repo.git(&["notes", "--ref=rune", "list"]).lines().count(),
        n as usize
    );
}
