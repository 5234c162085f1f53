//! Partial clones (`git clone --filter=blob:none` and the like): the memory blobs such a clone
//! lacks are fetched from its promisor remote when first read, in one `git fetch` for all
//! that a read needs (git fetches what it misses the same way). Nothing happens in a full
//! clone: there every object is local, and no lookup is added.

use std::io::Write as _;
use std::process::{Command, Stdio};

use gix::ObjectId;

use super::objects::ReadObjects as _;
use super::{git_err, Result, StoreError};

/// The remotes a partial clone may fetch missing objects from (`remote.<name>.promisor`).
fn promisor_remotes(repo: &gix::Repository) -> Vec<String> {
    let config = repo.config_snapshot();
    repo.remote_names()
        .into_iter()
        .map(|n| n.to_string())
        .filter(|n| config.boolean(format!("remote.{n}.promisor").as_str()) == Some(true))
        .collect()
}

/// Makes sure the objects `ids` are in the object database: in a partial clone the missing
/// ones are fetched from the promisor remote(s). A full clone returns at once.
pub(super) fn prefetch(repo: &gix::Repository, ids: &[ObjectId]) -> Result<()> {
    let remotes = promisor_remotes(repo);
    if remotes.is_empty() {
        return Ok(());
    }
    let missing: Vec<ObjectId> = ids
        .iter()
        .copied()
        .filter(|id| !repo.has_object(id))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let mut last = String::new();
    for remote in &remotes {
        match fetch(repo, remote, &missing) {
            Ok(()) if missing.iter().all(|id| repo.has_object(id)) => return Ok(()),
            Ok(()) => last = format!("{remote} did not send them"),
            Err(e) => last = e,
        }
    }
    Err(StoreError::PartialClone {
        missing: missing.len(),
        remotes: remotes.join(", "),
        detail: last,
    })
}

/// Reads blob `id`, fetching it first if a partial clone lacks it; `what` names it for errors.
pub(super) fn find_blob<'r>(
    repo: &'r gix::Repository,
    id: ObjectId,
    what: &dyn Fn() -> String,
) -> Result<gix::Blob<'r>> {
    if !repo.has_object(id) {
        prefetch(repo, &[id])?;
    }
    repo.read_blob(id).map_err(git_err(what()))
}

/// `git fetch` of exactly `ids` from `remote`, as git asks a promisor remote for objects.
fn fetch(
    repo: &gix::Repository,
    remote: &str,
    ids: &[ObjectId],
) -> std::result::Result<(), String> {
    let mut child = Command::new("git")
        .arg("--git-dir")
        .arg(repo.git_dir())
        .args([
            "-c",
            "fetch.negotiationAlgorithm=noop",
            "fetch",
            remote,
            "--no-tags",
            "--no-write-fetch-head",
            "--recurse-submodules=no",
            "--filter=blob:none",
            "--stdin",
        ])
        .env("GIT_RUNE_SKIP_HOOKS", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            format!(
                "cannot run git fetch (is git on PATH?): {}",
                crate::error::io_text(&e)
            )
        })?;
    if let Some(mut stdin) = child.stdin.take() {
        let list: String = ids.iter().map(|id| format!("{id}\n")).collect();
        let _ = stdin.write_all(list.as_bytes());
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("git fetch failed: {}", crate::error::io_text(&e)))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_owned())
    }
}
