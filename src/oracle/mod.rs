//! Oracle detach records (seed 000's detach mode): a slow model asked in the background and
//! its answer picked up later. Dispatch, complete, reattach and list, as records on the
//! branch ref (`Body::Oracle`); each status change is a new record superseding the previous
//! one. The decisions that need no git are in `plan`; the orphaning at session start is
//! `memory::record::orphan_oracles`.

pub mod plan;

use anyhow::Result;

use crate::error;
use crate::memory::seal::{SealError, Sealer};
use crate::memory::write::{write_records, Written};
use crate::memory::Snapshot;
use crate::model::kinds::Oracle;
use crate::model::oracle::{
    add_secs, moved, parse_timeout, status_of, COMPLETE, CONSUMED, MAX_EXCERPT, PENDING,
    REASON_TIMEOUT,
};
use crate::model::{Body, Draft, Record, Scope};
use crate::store::Store;
use plan::{Meets, Step};

/// The default `--timeout`.
pub const DEFAULT_TIMEOUT: &str = "10m";

/// A dispatch as the caller states it.
#[derive(Debug, Clone)]
pub struct NewDispatch {
    pub session_id: String,
    pub trigger: String,
    pub source: String,
    pub model: String,
    pub bundle_hash: String,
    /// `10m`, `30s`, `1h`.
    pub timeout: String,
}

/// What a dispatch did.
#[derive(Debug)]
pub enum Dispatched {
    /// Recorded, pending: the write, whose one record is the dispatch.
    New(Box<Written>),
    /// A pending dispatch of the same bundle was there: its session id; nothing written.
    Existing(String),
}

/// Records a pending dispatch, unless one of the same bundle is pending (then its session
/// id, and nothing written). The check runs inside the compare-and-swap write, which runs it
/// again on the fresh state when another process wins the race: concurrent dispatches of one
/// bundle leave one record.
pub fn dispatch(store: &Store, sealer: &mut Sealer, d: NewDispatch) -> Result<Dispatched> {
    let secs = parse_timeout(&d.timeout).ok_or_else(|| {
        error::input(
            format!("--timeout {:?} is not a duration", d.timeout),
            "pass seconds, minutes or hours up to a week: 30s, 10m, 1h",
        )
    })?;
    let now = store.now();
    let timeout_at = add_secs(&now, secs).expect("the store's time is RFC 3339");
    let body = Body::Oracle(Oracle {
        session_id: d.session_id.clone(),
        dispatched_at: now,
        trigger_signal: d.trigger,
        source_skill: d.source,
        target_model: d.model,
        bundle_hash: d.bundle_hash.clone(),
        status: PENDING.into(),
        timeout_at,
        response_id: String::new(),
        response_excerpt: String::new(),
        reason: String::new(),
    });
    let sealed = sealer
        .seal(Draft::new(body), &|field, _| format!("field `{field}`"))
        .map_err(invalid)?;
    let mut existing = None;
    let written = write_records(
        store,
        Scope::Branch,
        &format!("oracle: dispatch {}", d.session_id),
        |state| {
            existing = None;
            match plan::meets(state, &d.session_id, &d.bundle_hash) {
                Meets::Nothing => Ok(vec![sealed.clone()]),
                Meets::SameBundle(id) => {
                    existing = Some(id);
                    Ok(Vec::new())
                }
                Meets::IdTaken(status) => Err(error::input(
                    format!(
                        "session {} is already dispatched (status {status})",
                        d.session_id
                    ),
                    "pick a new session id: oracle-<unix time>-<random lowercase letters and digits>",
                )),
            }
        },
    )?;
    match (written, existing) {
        (_, Some(id)) => Ok(Dispatched::Existing(id)),
        (Some(written), None) => Ok(Dispatched::New(Box::new(written))),
        (None, None) => unreachable!("a dispatch writes or finds one"),
    }
}

/// What a completion did.
#[derive(Debug)]
pub struct Completed {
    pub written: Written,
    pub record: Record,
    /// The excerpt was longer than [`MAX_EXCERPT`] characters and was cut.
    pub cut: bool,
}

/// Records the answer to a dispatch: status complete, the response id and the excerpt (at
/// most [`MAX_EXCERPT`] characters; the secret filter applies). A pending, failed or
/// orphaned dispatch can complete (a late answer is still an answer); a completed one cannot.
pub fn complete(
    store: &Store,
    sealer: &mut Sealer,
    session_id: &str,
    response_id: &str,
    excerpt: &str,
) -> Result<Completed> {
    let (mut text, cut) = plan::cap_excerpt(excerpt, MAX_EXCERPT);
    if text.is_empty() {
        return Err(error::input(
            "the excerpt is empty",
            error::pass(
                "excerpt-file",
                "<file>",
                " with the answer's text (a file, or - for stdin)",
            ),
        ));
    }
    loop {
        let result = write_records(
            store,
            Scope::Branch,
            &format!("oracle: complete {session_id}"),
            |state| {
                let r = plan::find(state, session_id).ok_or_else(|| unknown(session_id))?;
                let (status, ..) = status_of(r);
                if matches!(status, COMPLETE | CONSUMED) {
                    return Err(error::input(
                        format!("session {session_id} is already {status}"),
                        error::run("oracle reattach", " to hand its answer over"),
                    ));
                }
                let body =
                    moved(r, COMPLETE, "", Some((response_id, &text))).expect("an oracle record");
                let sealed = sealer
                    .seal(Draft::superseding(body, vec![r.id.clone()]), &|field, _| {
                        format!("field `{field}` of {session_id}")
                    })
                    .map_err(anyhow::Error::from)?;
                Ok(vec![sealed])
            },
        );
        match result {
            Ok(Some(written)) => {
                let record = written.records[0].clone();
                return Ok(Completed {
                    written,
                    record,
                    cut,
                });
            }
            Ok(None) => unreachable!("a completion writes one record"),
            // Redaction made the excerpt longer than the cap: cut more and seal again.
            Err(e)
                if matches!(
                    e.downcast_ref::<SealError>(),
                    Some(SealError::Invalid { error, .. }) if error.field == "responseExcerpt"
                ) && text.chars().count() > 50 =>
            {
                let keep = text.chars().count() - 50;
                text = plan::cap_excerpt(&text, keep).0;
            }
            Err(e) => return Err(invalid_any(e)),
        }
    }
}

/// What a reattach found.
#[derive(Debug)]
pub enum Reattached {
    /// The answer (the record as it was read, complete or consumed); `written` when this
    /// reattach marked it consumed. `suspicious`: the load gate's rules for it.
    Ready {
        record: Record,
        written: Option<Written>,
        suspicious: Vec<&'static str>,
    },
    /// Still pending, before `timeoutAt`.
    NotReady(Record),
    /// Failed or orphaned, with the reason; `written` when this reattach recorded the
    /// timeout.
    Failed {
        record: Record,
        reason: String,
        written: Option<Written>,
    },
    /// The load gate withholds the answer as TAINTED; nothing written.
    Withheld(Record),
}

/// Picks up a dispatch's answer at the store's time: a complete one is handed over (through
/// the load gate) and recorded consumed; a pending one is not ready, or failed with reason
/// timeout once `timeoutAt` passed (recorded). Decided inside the write, so two reattaches
/// racing record one change.
pub fn reattach(store: &Store, session_id: &str) -> Result<Reattached> {
    use crate::integrity::gate::{gate, Gate};
    let now = store.now();
    let mut sealer = Sealer::default();
    let mut out = None;
    let written = write_records(
        store,
        Scope::Branch,
        &format!("oracle: reattach {session_id}"),
        |state| {
            let r = plan::find(state, session_id).ok_or_else(|| unknown(session_id))?;
            let step = plan::reattach_step(r, &now);
            let verdict = match step {
                Step::Consume | Step::Again => Some(gate(r)),
                _ => None,
            };
            let failed = |reason| Reattached::Failed {
                record: r.clone(),
                reason,
                written: None,
            };
            let (result, body) = match (step, verdict) {
                (_, Some(Gate::Withheld)) => (Reattached::Withheld(r.clone()), None),
                (step, Some(verdict)) => {
                    let suspicious = match verdict {
                        Gate::Suspicious(rules) => rules,
                        _ => Vec::new(),
                    };
                    let body = (step == Step::Consume)
                        .then(|| moved(r, CONSUMED, "", None))
                        .flatten();
                    let ready = Reattached::Ready {
                        record: r.clone(),
                        written: None,
                        suspicious,
                    };
                    (ready, body)
                }
                (Step::NotReady, _) => (Reattached::NotReady(r.clone()), None),
                (Step::TimeOut, _) => (failed(REASON_TIMEOUT.into()), plan::timed_out(r)),
                (Step::Failed(reason), _) => (failed(reason), None),
                (Step::Consume | Step::Again, None) => unreachable!("judged above"),
            };
            out = Some(result);
            match body {
                Some(body) => Ok(vec![sealer.seal_body(body, vec![r.id.clone()])?]),
                None => Ok::<_, anyhow::Error>(Vec::new()),
            }
        },
    )?;
    let mut out = out.expect("the write ran");
    match &mut out {
        Reattached::Ready { written: w, .. } | Reattached::Failed { written: w, .. } => {
            *w = written
        }
        _ => {}
    }
    Ok(out)
}

/// This branch's dispatches, each in its live state, oldest first.
pub fn list(store: &Store) -> Result<Vec<Record>> {
    Ok(Snapshot::read(store)?.state.oracles)
}

fn unknown(session_id: &str) -> anyhow::Error {
    error::input(
        format!("no oracle dispatch {session_id:?} on this branch"),
        error::run("oracle list", " to see the dispatches"),
    )
}

/// A seal error as the user sees it: a schema error names the field and what it allows,
/// nothing written.
fn invalid(e: SealError) -> anyhow::Error {
    invalid_any(e.into())
}

fn invalid_any(e: anyhow::Error) -> anyhow::Error {
    match e.downcast_ref::<SealError>() {
        Some(SealError::Invalid { error, .. }) => error::input(
            format!("invalid oracle dispatch: {error}"),
            "nothing was recorded; see `git rune oracle dispatch --help` for the schema",
        ),
        _ => e,
    }
}
