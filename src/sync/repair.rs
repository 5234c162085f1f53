//! `git rune repair`: after a sync has quarantined what a remote holds that this clone
//! refuses (a damaged record, a note past the limit, a ref that is not a memory commit), write
//! clean tips without those objects and share them: a shared ref, or this clone's own
//! published ref, is replaced by this clone's tip with a lease on the bad value; another
//! clone's published ref is removed with a lease (everything of it that was admitted is in
//! this clone's refs, which the same push publishes). A ref written in a newer layout is left
//! alone: it is not damaged, this build is old.

use anyhow::Result;

use super::share::{clone_id, sharing};
use super::{sync, SyncOptions, SyncReport};
use crate::error;
use crate::store::{ObjectId, PushOutcome, Store};

/// What a repair did.
#[derive(Debug, Default)]
pub struct Repaired {
    /// The sync that found what to repair (and then published this clone's memory).
    pub report: SyncReport,
    /// Remote refs replaced by a clean tip.
    pub replaced: Vec<String>,
    /// Remote refs removed (another clone's, or one with no clean counterpart here).
    pub removed: Vec<String>,
    /// Remote refs that could not be replaced (moved meanwhile: run repair again), with why.
    pub failed: Vec<(String, String)>,
}

/// Repairs `remote` (see the module docs). Only a remote memory goes to can be repaired.
pub fn repair(store: &Store, remote: &str, slow: &dyn Fn(&str)) -> Result<Repaired> {
    let share = sharing(store, remote);
    if !share.pushes() {
        return Err(error::input(
            format!(
                "memory does not go to {remote} ({}), so git-rune will not write to it",
                share.why()
            ),
            format!("opt it in with `git rune remote add {remote}` first"),
        ));
    }
    let opts = SyncOptions {
        no_push: true,
        ..SyncOptions::default()
    };
    let found = sync(store, remote, opts, slow)?;
    let me = clone_id(store)?;
    let mut plan: Vec<(String, String, Option<ObjectId>)> = Vec::new();
    let mut replacing = Vec::new();
    for src in &found.quarantined {
        let ours = store.ref_id(&src.local)?;
        let mine = src.clone.as_deref().is_none_or(|c| c == me);
        match ours {
            Some(_) if mine => {
                plan.push((src.local.clone(), src.remote_ref.clone(), Some(src.id)));
                replacing.push((src.remote_ref.clone(), true));
            }
            _ => {
                plan.push((String::new(), src.remote_ref.clone(), Some(src.id)));
                replacing.push((src.remote_ref.clone(), false));
            }
        }
    }
    let mut out = Repaired::default();
    if !plan.is_empty() {
        let outcome = store.push_refs(remote, &plan, &|| {
            slow(&format!("pushing clean memory to {remote}…"))
        })?;
        let rejected = match outcome {
            PushOutcome::Pushed => Vec::new(),
            PushOutcome::Rejected { refs, stderr, .. } => {
                if refs.is_empty() {
                    return Err(error::environment(
                        format!("the repair of {remote} was not pushed: {stderr}"),
                        "check that the remote is reachable and run `git rune repair` again",
                    ));
                }
                refs
            }
        };
        for (name, replaced) in replacing {
            if let Some(r) = rejected.iter().find(|r| r.name == name) {
                out.failed.push((name, r.reason.clone()));
            } else if replaced {
                out.replaced.push(name);
            } else {
                out.removed.push(name);
            }
        }
    }
    // Then everything else, as a sync does: this clone's refs carry what was admitted.
    out.report = sync(store, remote, SyncOptions::default(), slow)?;
    Ok(out)
}
