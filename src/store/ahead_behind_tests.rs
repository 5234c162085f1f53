//! Tests of `ahead_behind.rs` (moved out of the file they test, which stays under 600 lines).

use super::*;

#[test]
fn errors_say_what_happened_in_lower_case() {
    let id = ObjectId::null(gix::hash::Kind::Sha1);
    let missing = AheadBehindError::MissingCommit { id }.to_string();
    assert_eq!(
        missing,
        "commit 0000000000000000000000000000000000000000 is missing from the object database"
    );
    let blob = AheadBehindError::NotACommit {
        id,
        kind: gix::objs::Kind::Blob,
    }
    .to_string();
    assert_eq!(
        blob,
        "object 0000000000000000000000000000000000000000 is a blob, not a commit"
    );
}

#[test]
fn only_a_slow_count_that_left_nothing_behind_gets_a_hint() {
    let slow = WalkCost {
        commits_read: WalkCost::SLOW,
        uncached: true,
    };
    assert!(slow
        .hint()
        .is_some_and(|h| h.contains("git commit-graph write")));
    let cached = WalkCost {
        uncached: false,
        ..slow
    };
    assert_eq!(cached.hint(), None);
    let quick = WalkCost {
        commits_read: WalkCost::SLOW - 1,
        ..slow
    };
    assert_eq!(quick.hint(), None);
}

#[test]
fn flags_do_not_overlap() {
    let all = [LEFT, RIGHT, QUEUED, EXPANDED, ON_STACK, FRESH];
    for (i, a) in all.iter().enumerate() {
        assert_eq!(a.count_ones(), 1);
        for b in &all[i + 1..] {
            assert_eq!(a & b, 0);
        }
    }
}
