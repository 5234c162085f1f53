//! Writing records: one compare-and-swap commit on the ref a scope lives in, then the view
//! refreshed (files with unsaved edits are kept as they are).

use anyhow::Result;

use super::seal::Sealed;
use super::view_dir::{Refresh, View, VIEW_DIR};
use super::Wrote;
use crate::model::{fold, Record, Scope, State};
use crate::store::{branch_ref, MemoryCommit, ObjectId, Store, StoreError, MEMORY_REF};

/// What a write did.
#[derive(Debug)]
pub struct Written {
    pub refname: String,
    pub commit: ObjectId,
    pub summary: String,
    pub records: Vec<Record>,
    /// The view refresh after the write (`None` in a bare repository).
    pub view: Option<Refresh>,
}

/// The ref a scope's records go to on the current branch.
pub fn scope_ref(store: &Store, scope: Scope) -> Result<String, StoreError> {
    Ok(match scope {
        Scope::Memory => MEMORY_REF.to_owned(),
        Scope::Branch => {
            let branch = branch_ref(store.head_info()?.branch.as_deref());
            follow_rename(store, &branch)?;
            branch
        }
    })
}

/// After `git branch -m A B`, A's session state goes with the branch: its ref is renamed to
/// `branch` (B's state ref; no commit is made) when B has none yet, B's reflog says it was
/// called A, and no branch is called A any more (one that is has its own). Returns whether
/// it moved.
pub(crate) fn follow_rename(store: &Store, branch: &str) -> Result<bool, StoreError> {
    let Some(to) = branch.strip_prefix("refs/rune/branches/") else {
        return Ok(false);
    };
    if store.ref_id(branch)?.is_some() {
        return Ok(false);
    }
    for from in store.renamed_from(to) {
        if store.ref_id(&format!("refs/heads/{from}"))?.is_some() {
            break;
        }
        let old = branch_ref(Some(&from));
        if store.ref_id(&old)?.is_some() {
            // Another process may have moved it first: what counts is where it is now.
            let _ = store.rename_ref(&old, branch);
            return Ok(store.ref_id(branch)?.is_some());
        }
    }
    Ok(false)
}

/// Commits what `make` returns to the ref of `scope` for the current branch, then refreshes
/// the view. `make` sees the folded state of that ref at commit time, and runs again if
/// another process wins the race. `None` when `make` has nothing to write.
pub fn write_records<E>(
    store: &Store,
    scope: Scope,
    summary: &str,
    mut make: impl FnMut(&State) -> Result<Vec<Sealed>, E>,
) -> Result<Option<Written>>
where
    E: From<StoreError> + Into<anyhow::Error>,
{
    check_view_writable(store)?;
    let refname = scope_ref(store, scope)?;
    let summary = &crate::integrity::gate::gated_summary(summary);
    let commit = store
        .commit(&refname, summary, |current: &[Record]| make(&fold(current)))
        .map_err(Into::into)?;
    written(store, refname, summary, commit)
}

/// Commits records that do not depend on what the ref holds (the common case: one new
/// record) to the ref of `scope`: like [`write_records`], without folding the ref's records
/// on every attempt.
pub fn append(
    store: &Store,
    scope: Scope,
    summary: &str,
    records: Vec<Sealed>,
) -> Result<Option<Written>> {
    check_view_writable(store)?;
    let refname = scope_ref(store, scope)?;
    let summary = &crate::integrity::gate::gated_summary(summary);
    let commit = store.append(&refname, summary, records)?;
    written(store, refname, summary, commit)
}

/// Refuses to write when the view cannot be checked out afterwards (a file named `.rune`
/// where the folder goes, or a memory ref it shows that cannot be read: a write of session
/// state beside a damaged `refs/rune/memory` landed, then failed its refresh): checked
/// before anything is written, so a command that fails leaves memory as it was, and a retry
/// after fixing it does not record the same thing twice. A few object reads per ref (its
/// commit, root tree and `VERSION`), no records.
pub fn check_view_writable(store: &Store) -> Result<()> {
    let Some(root) = store.workdir() else {
        return Ok(());
    };
    let path = root.join(VIEW_DIR);
    if let Ok(m) = std::fs::symlink_metadata(&path) {
        if !m.is_dir() {
            return Err(crate::error::environment(
                format!(
                    "{} is a file, where git-rune checks out its {VIEW_DIR}/ view; nothing was written",
                    path.display()
                ),
                format!(
                    "rename or move that file (`git mv {VIEW_DIR} <other name>` if git tracks it), then try again"
                ),
            ));
        }
    }
    for scope in [Scope::Memory, Scope::Branch] {
        store.check_readable(&scope_ref(store, scope)?)?;
    }
    Ok(())
}

/// What a write did, once the view shows it.
fn written(
    store: &Store,
    refname: String,
    summary: &str,
    commit: Option<MemoryCommit>,
) -> Result<Option<Written>> {
    let Some(commit) = commit else {
        return Ok(None);
    };
    let told = wrote(store, &refname, &commit)?;
    let view = refresh_view_told(store, &told)?;
    Ok(Some(Written {
        refname,
        commit: commit.id,
        summary: summary.to_owned(),
        records: commit.records,
        view,
    }))
}

/// Re-renders the view from the refs, keeping files with unsaved edits (listed in the
/// result). `None` in a bare repository.
pub fn refresh_view(store: &Store) -> Result<Option<Refresh>> {
    refresh_view_told(store, &[])
}

/// Brings the view to the refs as they are and to the branch HEAD is on, if it shows
/// anything else (a branch switched without hooks, a fresh clone on another branch, another
/// worktree's write): clean files are rendered again, files with unsaved edits are kept (and
/// `save` saves them to the branch they were rendered for). Cheap when the view is current.
/// `None` when there is no view of git-rune's here (a bare repository, a seed's folder).
pub fn sync_view(store: &Store) -> Result<Option<Refresh>> {
    let Some(view) = View::open(store) else {
        return Ok(None);
    };
    if !view.checked_out() || view.shows(store)? {
        return Ok(None);
    }
    let head = store.head_info()?;
    let branch = crate::store::branch_ref(head.branch.as_deref());
    let manifest = view.manifest();
    let shown = view.rendered_for(&manifest);
    let renamed = follow_rename(store, &branch)?;
    Ok(Some(
        if renamed || shown.as_deref() == Some(branch.as_str()) {
            view.checkout(store, &[])?
        } else {
            view.switch(store)?
        },
    ))
}

/// [`refresh_view`] after writes that say what they added, which the refresh then need not
/// diff the trees for.
pub fn refresh_view_told(store: &Store, told: &[Wrote]) -> Result<Option<Refresh>> {
    let Some(view) = View::open(store) else {
        return Ok(None);
    };
    Ok(Some(view.checkout_told(store, told)?))
}

/// What `commit` on `refname` added, told as a [`Wrote`] (none for a ref's first commit).
pub fn wrote(store: &Store, refname: &str, commit: &MemoryCommit) -> Result<Vec<Wrote>> {
    let Some(parent) = commit.parent else {
        return Ok(Vec::new());
    };
    Ok(vec![Wrote {
        refname: refname.to_owned(),
        from: Some(store.tip_of(refname, parent)?.tree),
        to: store.tip_of(refname, commit.id)?.tree,
        records: commit.records.clone(),
    }])
}
