//! Failures found by the second error-path sweep (sharing, git hooks): each exits with its
//! documented code, says what to do, and leaves memory as it was.

use crate::common::{decide_args, Remote, TestRepo};

/// A clone of `remote` with a code commit pushed and one decision shared.
fn shared_clone(remote: &Remote) -> TestRepo {
    let a = remote.clone("ada");
    a.commit_file("README", "hi\n", "start");
    a.git(&["push", "-q", "origin", "main"]);
    a.rune(&decide_args("Use X", &[])).success();
    a.rune(&["-q", "sync", "origin"]).success();
    a
}

/// Regression: a remote whose refs/rune/memory named a code commit (no `VERSION`, no records)
/// was merged as memory: the project's whole code history became part of memory's, and went
/// with it to every remote memory is shared with. Now it is skipped, named, and left for
/// `repair`.
#[test]
fn a_remote_memory_ref_naming_a_code_commit_is_not_merged() {
    let remote = Remote::new();
    let a = shared_clone(&remote);
    let code = remote.git(&["rev-parse", "main"]);
    remote.git(&["update-ref", "refs/rune/memory", code.trim()]);
    let before = a.git(&["rev-parse", "refs/rune/memory"]);
    let out = a.rune(&["sync", "origin"]).success();
    assert!(
        out.stderr.contains(
            "skipped origin's refs/rune/memory: it points at a commit that is not memory"
        ) && out.stderr.contains("git rune repair origin"),
        "{}",
        out.snapshot()
    );
    assert_eq!(a.git(&["rev-parse", "refs/rune/memory"]), before);
    let merged = a.git_output(&[
        "merge-base",
        "--is-ancestor",
        code.trim(),
        "refs/rune/memory",
    ]);
    assert!(
        !merged.status.success(),
        "the code commit joined memory's history"
    );
    // `repair` puts a clean tip back.
    a.rune(&["repair", "origin"]).success();
    assert_eq!(remote.git(&["rev-parse", "refs/rune/memory"]), before);
}
