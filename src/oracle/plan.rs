//! The pure rules of oracle dispatches: what a dispatch finds already there, what a
//! reattach does with a record as of a time, the excerpt cap. No git. (Which dispatches are
//! orphaned, and the time arithmetic, are in `model::oracle`: session start needs them.)

use crate::model::oracle::{
    moved, secs_between, status_of, COMPLETE, CONSUMED, FAILED, MAX_EXCERPT, PENDING,
    REASON_TIMEOUT,
};
use crate::model::{Body, Record, State};

/// The excerpt as kept: at most [`MAX_EXCERPT`] characters (the rest cut, the cut said).
pub fn cap_excerpt(text: &str, max: usize) -> (String, bool) {
    let text = text.trim();
    match text.char_indices().nth(max.min(MAX_EXCERPT)) {
        Some((i, _)) => (text[..i].trim_end().to_owned(), true),
        None => (text.to_owned(), false),
    }
}

/// The live state of one session.
pub fn find<'a>(state: &'a State, session_id: &str) -> Option<&'a Record> {
    state.oracles.iter().find(|r| status_of(r).1 == session_id)
}

/// What a dispatch of `session_id` with `bundle_hash` meets in `state`.
#[derive(Debug, PartialEq, Eq)]
pub enum Meets {
    /// Nothing: record it.
    Nothing,
    /// A pending dispatch of the same bundle (the seed's idempotency): its session id.
    SameBundle(String),
    /// The session id is taken by another dispatch (with its status).
    IdTaken(String),
}

pub fn meets(state: &State, session_id: &str, bundle_hash: &str) -> Meets {
    if let Some(r) = state
        .oracles
        .iter()
        .find(|r| status_of(r).0 == PENDING && status_of(r).2 == bundle_hash)
    {
        return Meets::SameBundle(status_of(r).1.to_owned());
    }
    match find(state, session_id) {
        Some(r) => Meets::IdTaken(status_of(r).0.to_owned()),
        None => Meets::Nothing,
    }
}

/// What a reattach does with a session's live record at `now`.
#[derive(Debug, PartialEq, Eq)]
pub enum Step {
    /// Complete: hand the excerpt over and record it consumed.
    Consume,
    /// Consumed already: hand the excerpt over again, write nothing.
    Again,
    /// Pending before `timeoutAt`: not ready, write nothing.
    NotReady,
    /// Pending at or after `timeoutAt`: record it failed (reason timeout).
    TimeOut,
    /// Failed or orphaned already, with the reason: write nothing.
    Failed(String),
}

pub fn reattach_step(r: &Record, now: &str) -> Step {
    let Body::Oracle(o) = &r.body else {
        return Step::Failed("not an oracle dispatch".into());
    };
    match o.status.as_str() {
        COMPLETE => Step::Consume,
        CONSUMED => Step::Again,
        PENDING if secs_between(&o.timeout_at, now) >= 0 => Step::TimeOut,
        PENDING => Step::NotReady,
        _ if o.reason.is_empty() => Step::Failed(o.status.clone()),
        _ => Step::Failed(o.reason.clone()),
    }
}

/// The failed form of a timed-out dispatch.
pub fn timed_out(r: &Record) -> Option<Body> {
    moved(r, FAILED, REASON_TIMEOUT, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::kinds::Oracle;
    use crate::model::oracle::{add_secs, orphans, ORPHANED, REASON_ORPHANED};
    use crate::model::{fold, Meta};

    pub fn oracle(session: &str, hash: &str, status: &str, at: &str) -> Body {
        Body::Oracle(Oracle {
            session_id: session.into(),
            dispatched_at: at.into(),
            trigger_signal: "manual".into(),
            source_skill: "debug".into(),
            target_model: "m".into(),
            bundle_hash: hash.into(),
            status: status.into(),
            timeout_at: add_secs(at, 600).unwrap(),
            response_id: String::new(),
            response_excerpt: String::new(),
            reason: String::new(),
        })
    }

    fn rec(body: Body, clock: u64, supersedes: Vec<String>) -> Record {
        Record::new(
            Meta {
                ts: "2026-04-27T12:34:56Z".into(),
                clock,
                author: "A <a@example.com>".into(),
                supersedes,
            },
            body,
        )
    }

    const T0: &str = "2026-04-27T12:34:56Z";

    #[test]
    fn time_arithmetic() {
        assert_eq!(add_secs(T0, 600).as_deref(), Some("2026-04-27T12:44:56Z"));
        assert_eq!(secs_between(T0, "2026-04-27T12:44:56Z"), 600);
        assert_eq!(add_secs("nope", 1), None);
    }

    #[test]
    fn excerpt_is_capped_in_characters() {
        let (s, cut) = cap_excerpt(&"é".repeat(600), 500);
        assert_eq!(s.chars().count(), 500);
        assert!(cut);
        assert_eq!(cap_excerpt("  short \n", 500), ("short".into(), false));
    }

    #[test]
    fn a_pending_bundle_is_found_by_its_hash() {
        let a = rec(
            oracle("oracle-1-a", "sha256:aaaaaaaa", PENDING, T0),
            1,
            vec![],
        );
        let state = fold([&a]);
        assert_eq!(
            meets(&state, "oracle-2-b", "sha256:aaaaaaaa"),
            Meets::SameBundle("oracle-1-a".into())
        );
        assert_eq!(
            meets(&state, "oracle-1-a", "sha256:bbbbbbbb"),
            Meets::IdTaken("pending".into())
        );
        assert_eq!(
            meets(&state, "oracle-2-b", "sha256:bbbbbbbb"),
            Meets::Nothing
        );
        // A completed dispatch of the same bundle does not stop a new one.
        let done = rec(
            moved(&a, COMPLETE, "", Some(("r1", "answer"))).unwrap(),
            2,
            vec![a.id.clone()],
        );
        let state = fold([&a, &done]);
        assert_eq!(
            meets(&state, "oracle-2-b", "sha256:aaaaaaaa"),
            Meets::Nothing
        );
    }

    #[test]
    fn reattach_steps_follow_status_and_time() {
        let a = rec(
            oracle("oracle-1-a", "sha256:aaaaaaaa", PENDING, T0),
            1,
            vec![],
        );
        assert_eq!(reattach_step(&a, "2026-04-27T12:40:00Z"), Step::NotReady);
        assert_eq!(reattach_step(&a, "2026-04-27T12:44:56Z"), Step::TimeOut);
        let done = rec(
            moved(&a, COMPLETE, "", Some(("r1", "answer"))).unwrap(),
            2,
            vec![],
        );
        assert_eq!(reattach_step(&done, "2030-01-01T00:00:00Z"), Step::Consume);
        let failed = rec(timed_out(&a).unwrap(), 2, vec![]);
        assert_eq!(reattach_step(&failed, T0), Step::Failed("timeout".into()));
    }

    #[test]
    fn orphans_are_pending_and_older_than_a_day() {
        let a = rec(
            oracle("oracle-1-a", "sha256:aaaaaaaa", PENDING, T0),
            1,
            vec![],
        );
        let state = fold([&a]);
        assert!(orphans(&state, "2026-04-28T12:34:56Z").is_empty());
        let due = orphans(&state, "2026-04-28T12:34:57Z");
        assert_eq!(due.len(), 1);
        assert!(
            matches!(&due[0].1, Body::Oracle(Oracle { status, reason, .. })
            if status == ORPHANED && reason == REASON_ORPHANED)
        );
    }

    #[test]
    fn concurrent_status_changes_fold_by_precedence() {
        let a = rec(
            oracle("oracle-1-a", "sha256:aaaaaaaa", PENDING, T0),
            1,
            vec![],
        );
        // Two clones changed the same record: one completed it, one orphaned it (with a
        // higher clock). Complete wins whatever the order the records are folded in.
        let done = rec(
            moved(&a, COMPLETE, "", Some(("r1", "answer"))).unwrap(),
            2,
            vec![a.id.clone()],
        );
        let orphaned = rec(
            moved(&a, ORPHANED, REASON_ORPHANED, None).unwrap(),
            9,
            vec![a.id.clone()],
        );
        for set in [vec![&a, &done, &orphaned], vec![&orphaned, &done, &a]] {
            let state = fold(set);
            assert_eq!(state.oracles.len(), 1);
            assert_eq!(status_of(&state.oracles[0]).0, COMPLETE);
        }
        // Same status: the higher clock, then the greater id.
        let f1 = rec(timed_out(&a).unwrap(), 3, vec![a.id.clone()]);
        let f2 = rec(timed_out(&a).unwrap(), 4, vec![a.id.clone()]);
        assert_eq!(fold([&a, &f1, &f2]).oracles[0].id, f2.id);
    }
}
