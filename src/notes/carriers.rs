//! Which commit carries a record in its note: the commit made right after the record was
//! written, which usually implements it. Drift uses it as a record's baseline.

use std::collections::HashMap;

use super::CommitNote;
use crate::drift::{self, Code, Drift};
use crate::memory::load::digest::Digest;
use crate::store::{self, HeadInfo, ObjectId, Store};

/// Walking back further than this many commits for notes gives up.
const MAX_WALK: usize = 1_000;

/// For each id, the nearest commit on `from`'s first-parent history whose note lists it.
pub fn carriers(
    store: &Store,
    from: Option<ObjectId>,
    ids: &[&str],
) -> store::Result<HashMap<String, ObjectId>> {
    let mut found = HashMap::new();
    let mut next = from;
    for _ in 0..MAX_WALK {
        let Some(commit) = next.filter(|_| found.len() < ids.len()) else {
            break;
        };
        if let Some(text) = store.note(commit)? {
            for (_, id, _) in CommitNote::parse(&text).records {
                // Notes list full ids; a hand-written one may shorten them.
                if let Some(want) = ids.iter().find(|w| w.starts_with(&id) && id.len() >= 8) {
                    found.entry((*want).to_owned()).or_insert(commit);
                }
            }
        }
        next = store.commit_info(commit).ok().and_then(|c| c.first_parent);
    }
    Ok(found)
}

/// Drift of the code against the memory `digest` holds (the records naming files and the last
/// session) of the session-state ref `branch_ref`: of the work tree, or of the commit `head`
/// names (`at`, for `load --at`).
pub fn drift_for(
    store: &Store,
    head: &HeadInfo,
    digest: &Digest,
    branch_ref: &str,
    at: bool,
) -> store::Result<Drift> {
    let code = match (at, head.head) {
        (true, Some(c)) => Code::Commit(c),
        _ => Code::WorkTree,
    };
    let from = head.head;
    let last_session = digest.state.last_session();
    drift::drift(
        store,
        head,
        &digest.watched,
        last_session,
        branch_ref,
        code,
        &|ids| carriers(store, from, ids),
    )
}
