//! `Store::note` / `Store::set_note` against git's own notes, flat and fanned out.

use git_rune::store::Store;
use git_rune::store::NOTES_REF;

use crate::common::{oid, TestRepo};

/// `n` commits on `main`, oldest first.
fn commits(repo: &TestRepo, n: usize) -> Vec<String> {
    (0..n)
        .map(|i| repo.commit_file("f.txt", &format!("{i}\n"), &format!("c{i}")))
        .collect()
}

fn fast_import(repo: &TestRepo, stream: &str) {
    repo.git_stdin(&["fast-import", "--quiet"], stream);
}

/// `n` commits on `refs/heads/many` via fast-import; returns their ids, oldest first.
fn import_commits(repo: &TestRepo, n: usize) -> Vec<String> {
    let mut stream = String::new();
    for i in 1..=n {
        let msg = format!("m{i}\n");
        stream.push_str(&format!(
            "commit refs/heads/many\nmark :{i}\ncommitter T <t@example.com> {} +0000\ndata {}\n{msg}",
            1_700_000_000 + i,
            msg.len()
        ));
    }
    fast_import(repo, &stream);
    let mut ids: Vec<String> = repo
        .git(&["rev-list", "refs/heads/many"])
        .lines()
        .map(str::to_owned)
        .collect();
    ids.reverse();
    ids
}

fn note_count(repo: &TestRepo) -> usize {
    repo.git(&["notes", "--ref=rune", "list"]).lines().count()
}

#[test]
fn ours_are_read_by_git() {
    let repo = TestRepo::new();
    let c = commits(&repo, 2);
    let store = Store::open(&repo.root).unwrap();
    assert_eq!(store.note(oid(&c[0])).unwrap(), None, "no notes ref yet");

    let first = store
        .set_note(oid(&c[0]), "Rune-Branch: main\nhello", "note c0")
        .unwrap();
    assert_eq!(repo.git(&["rev-parse", NOTES_REF]), first.to_string());
    assert_eq!(
        repo.git(&["notes", "--ref=rune", "show", &c[0]]),
        "Rune-Branch: main\nhello"
    );
    assert_eq!(
        store.note(oid(&c[0])).unwrap().as_deref(),
        Some("Rune-Branch: main\nhello\n"),
        "stored with git's final newline"
    );
    assert_eq!(store.note(oid(&c[1])).unwrap(), None);

    let second = store.set_note(oid(&c[1]), "two\n", "note c1").unwrap();
    assert_eq!(repo.git(&["notes", "--ref=rune", "show", &c[1]]), "two");
    assert_eq!(
        repo.git(&["rev-parse", &format!("{second}^")]),
        first.to_string()
    );
    let msg = repo.git(&["log", "-1", "--format=%B", NOTES_REF]);
    assert_eq!(msg, "Notes added by 'git rune'\n\nnote c1");
    assert_eq!(
        repo.git(&["log", "-1", "--format=%N", "--notes=rune", &c[1]]),
        "two"
    );
    // A note past the size written uncompressed goes through gix's compressing writer.
    let big = "x".repeat(40_000);
    store.set_note(oid(&c[1]), &big, "big note").unwrap();
    assert_eq!(
        repo.git(&["notes", "--ref=rune", "show", &c[1]]).len(),
        40_000
    );
    repo.git(&["fsck", "--strict", "--no-progress"]);
}

#[test]
fn git_written_notes_are_read() {
    let repo = TestRepo::new();
    let c = commits(&repo, 4);
    for (i, id) in c.iter().enumerate().take(3) {
        repo.git(&[
            "notes",
            "--ref=rune",
            "add",
            "-m",
            &format!("git note {i}"),
            id,
        ]);
    }
    let store = Store::open(&repo.root).unwrap();
    for (i, id) in c.iter().enumerate().take(3) {
        assert_eq!(
            store.note(oid(id)).unwrap(),
            Some(format!("git note {i}\n")),
            "note of c{i}"
        );
    }
    assert_eq!(store.note(oid(&c[3])).unwrap(), None);
    // Another notes ref is not ours.
    repo.git(&["notes", "add", "-m", "default ref", &c[3]]);
    assert_eq!(store.note(oid(&c[3])).unwrap(), None);
}

#[test]
fn fanned_out_notes_written_by_git_are_read_and_kept() {
    let repo = TestRepo::new();
    let n = 300;
    let ids = import_commits(&repo, n);
    let mut stream = String::from(
        "commit refs/notes/rune\ncommitter T <t@example.com> 1700001000 +0000\ndata 6\nnotes\n",
    );
    for (i, id) in ids.iter().enumerate() {
        let body = format!("git note {i}\n");
        stream.push_str(&format!("N inline {id}\ndata {}\n{body}", body.len()));
    }
    fast_import(&repo, &stream);
    let top = repo.git(&["ls-tree", "--name-only", NOTES_REF]);
    assert!(
        top.lines().all(|l| l.len() == 2) && top.lines().count() > 1,
        "git fanned the notes out: {top}"
    );
    assert_eq!(note_count(&repo), n);

    let store = Store::open(&repo.root).unwrap();
    for i in [0, 1, 150, n - 1] {
        assert_eq!(
            store.note(oid(&ids[i])).unwrap(),
            Some(format!("git note {i}\n"))
        );
    }

    // A new note on a fresh commit, and a replaced one, both in the fanned-out tree.
    let fresh = commits(&repo, 1).remove(0);
    store.set_note(oid(&fresh), "ours", "fresh").unwrap();
    store.set_note(oid(&ids[7]), "replaced", "replace").unwrap();
    assert_eq!(repo.git(&["notes", "--ref=rune", "show", &fresh]), "ours");
    assert_eq!(
        repo.git(&["notes", "--ref=rune", "show", &ids[7]]),
        "replaced"
    );
    assert_eq!(
        repo.git(&["notes", "--ref=rune", "show", &ids[8]]),
        "git note 8"
    );
    assert_eq!(note_count(&repo), n + 1);
    let top = repo.git(&["ls-tree", "--name-only", NOTES_REF]);
    assert!(top.lines().all(|l| l.len() == 2), "still fanned out: {top}");
    // git sees every old note unchanged.
    let listed = repo.git(&["notes", "--ref=rune", "list"]);
    for (i, id) in ids.iter().enumerate() {
        assert!(listed.contains(&format!(" {id}")), "note {i} listed");
    }
    let shown = repo.git(&["log", "--notes=rune", "--format=%N", "refs/heads/many"]);
    assert_eq!(shown.matches("git note ").count(), n - 1);
    repo.git(&["fsck", "--strict", "--no-progress"]);
}

#[test]
fn two_level_fanout_is_read_and_kept() {
    // git writes `ab/cd/<36hex>` only past 65536 notes; build that layout directly.
    let repo = TestRepo::new();
    let c = commits(&repo, 3);
    let mut stream = String::from(
        "commit refs/notes/rune\ncommitter T <t@example.com> 1700001000 +0000\ndata 6\nnotes\n",
    );
    for (i, id) in c.iter().enumerate().take(2) {
        let body = format!("deep {i}\n");
        let path = format!("{}/{}/{}", &id[..2], &id[2..4], &id[4..]);
        stream.push_str(&format!(
            "M 100644 inline {path}\ndata {}\n{body}",
            body.len()
        ));
    }
    fast_import(&repo, &stream);
    assert_eq!(repo.git(&["notes", "--ref=rune", "show", &c[0]]), "deep 0");

    let store = Store::open(&repo.root).unwrap();
    assert_eq!(store.note(oid(&c[0])).unwrap().as_deref(), Some("deep 0\n"));
    assert_eq!(store.note(oid(&c[1])).unwrap().as_deref(), Some("deep 1\n"));
    store.set_note(oid(&c[2]), "flat", "add").unwrap();
    store.set_note(oid(&c[1]), "deep again", "replace").unwrap();
    assert_eq!(repo.git(&["notes", "--ref=rune", "show", &c[0]]), "deep 0");
    assert_eq!(
        repo.git(&["notes", "--ref=rune", "show", &c[1]]),
        "deep again"
    );
    assert_eq!(repo.git(&["notes", "--ref=rune", "show", &c[2]]), "flat");
    assert_eq!(note_count(&repo), 3);
}

#[test]
fn replacing_keeps_one_note() {
    let repo = TestRepo::new();
    let c = commits(&repo, 1).remove(0);
    let store = Store::open(&repo.root).unwrap();
    let first = store.set_note(oid(&c), "first", "one").unwrap();
    let second = store.set_note(oid(&c), "second", "two").unwrap();
    assert_ne!(first, second);
    assert_eq!(repo.git(&["notes", "--ref=rune", "show", &c]), "second");
    assert_eq!(note_count(&repo), 1);
    assert_eq!(
        repo.git(&["rev-parse", &format!("{second}^")]),
        first.to_string()
    );

    // The same text again writes nothing.
    let again = store.set_note(oid(&c), "second", "three").unwrap();
    assert_eq!(again, second);
    assert_eq!(repo.git(&["rev-parse", NOTES_REF]), second.to_string());

    // git replaces ours, and we read git's replacement.
    repo.git(&["notes", "--ref=rune", "add", "-f", "-m", "by git", &c]);
    assert_eq!(store.note(oid(&c)).unwrap().as_deref(), Some("by git\n"));
    assert_eq!(note_count(&repo), 1);
}

#[test]
fn missing_target_is_refused() {
    let repo = TestRepo::new();
    commits(&repo, 1);
    let store = Store::open(&repo.root).unwrap();
    let missing = oid("1234567890123456789012345678901234567890");
    assert!(store.set_note(missing, "x", "x").is_err());
    assert_eq!(repo.refs(), "");
}

#[test]
fn concurrent_writers_all_land() {
    let repo = TestRepo::new();
    let threads = 8;
    let per_thread = 3;
    let c = import_commits(&repo, threads * per_thread);
    let root = repo.root.clone();
    std::thread::scope(|s| {
        for t in 0..threads {
            let root = root.clone();
            let c = &c;
            s.spawn(move || {
                let store = Store::open(&root).unwrap();
                for k in 0..per_thread {
                    let i = t * per_thread + k;
                    store
                        .set_note(oid(&c[i]), &format!("thread {t} note {i}"), "concurrent")
                        .unwrap();
                }
            });
        }
    });
    assert_eq!(note_count(&repo), threads * per_thread);
    for (i, id) in c.iter().enumerate() {
        let t = i / per_thread;
        assert_eq!(
            repo.git(&["notes", "--ref=rune", "show", id]),
            format!("thread {t} note {i}")
        );
    }
    let chain = repo.git(&["rev-list", "--count", NOTES_REF]);
    assert_eq!(
        chain,
        (threads * per_thread).to_string(),
        "one commit per note"
    );
}
