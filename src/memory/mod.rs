//! The use cases of memory itself — reading it (snapshot, load, history, diff), writing it
//! (the seal, record, save) and keeping the `.rune/` view on disk — for the commands, hooks and
//! agents above. No clap and no printing: each returns what it did.

pub mod cache;
pub mod diff;
pub mod history;
pub mod hook_failure;
pub mod init;
pub mod load;
pub mod record;
pub mod rune_dir;
pub mod save;
pub mod save_failure;
mod save_tail;
mod saved;
pub mod seal;
mod snapshot;
pub mod user;
pub mod verify;
pub mod view_dir;
pub mod write;

pub use snapshot::{Snapshot, Tips};

/// The hint of the first error in the chain that has one, worded for the command line: each
/// typed error of memory and below that can say what to do is asked (the CLI's report, and
/// the failures a save or a hook leaves for the next command).
pub fn hint_of(err: &anyhow::Error) -> Option<String> {
    err.chain().find_map(|e| {
        if let Some(u) = e.downcast_ref::<crate::error::Error>() {
            return u.hint.as_ref().map(crate::error::Hint::for_cli);
        }
        if let Some(s) = e.downcast_ref::<seal::SealError>() {
            return s.hint();
        }
        if let Some(v) = e.downcast_ref::<view_dir::ViewError>() {
            return v.hint();
        }
        e.downcast_ref::<crate::store::StoreError>()
            .and_then(crate::store::StoreError::hint)
    })
}

/// What one write added to one memory ref: the ref's tree went from `from` to `to` by
/// exactly `records`. A command that just wrote tells the view refresh and the load gate
/// this, so they need not diff the trees for it; it applies only while the ref is still at
/// `to` and the reader's own state is at `from`.
#[derive(Debug, Clone)]
pub struct Wrote {
    pub refname: String,
    pub from: Option<crate::store::ObjectId>,
    pub to: crate::store::ObjectId,
    pub records: Vec<crate::model::Record>,
}

impl Wrote {
    /// What `wrote` says `name` gained between the trees `from` and `to`, if it says.
    pub fn find<'a>(
        wrote: &'a [Wrote],
        name: &str,
        from: Option<crate::store::ObjectId>,
        to: crate::store::ObjectId,
    ) -> Option<&'a [crate::model::Record]> {
        wrote
            .iter()
            .find(|w| w.refname == name && from.is_some() && w.from == from && w.to == to)
            .map(|w| w.records.as_slice())
    }
}
