//! Reading objects so that a concurrent `git gc` cannot make one look missing.
//!
//! gix's object store checks that a loose object's file exists and then opens it. A `git gc`
//! running meanwhile (git-rune starts git's automatic maintenance after its writes, and git's
//! own commands do after theirs) can pack the object and delete the file between the two, and
//! gix then reports the object as missing without looking in the new pack. Git answers a miss
//! by listing the pack directory again and looking once more; so do these functions: the
//! second lookup no longer finds the loose file, which makes gix load the new pack's index.
//! Every object git-rune reads goes through here (records, trees, commits, notes, the drift
//! walk); a lookup that succeeds costs nothing extra.

use gix::objs::Kind;
use gix::ObjectId;

/// A failed object read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ObjectError {
    #[error("an object with id {0} could not be found")]
    Missing(ObjectId),
    #[error("object {id} is a {actual}, not a {expected}")]
    Kind {
        id: ObjectId,
        expected: Kind,
        actual: Kind,
    },
    #[error(transparent)]
    Find(#[from] gix::Error),
}

/// Object `id`, or `None` when the repository does not have it (after looking twice).
pub(crate) fn find(
    repo: &gix::Repository,
    id: ObjectId,
) -> Result<Option<gix::Object<'_>>, gix::Error> {
    match repo.try_find_object(id) {
        Ok(Some(object)) => Ok(Some(object)),
        _ => repo.try_find_object(id),
    }
}

/// Reads object `id` into `buf` (exactly its data) and says its kind, for loops that decode
/// in place (the drift walk); `None` when the repository does not have it (after looking
/// twice).
pub(crate) fn find_data(
    repo: &gix::Repository,
    id: &gix::oid,
    buf: &mut Vec<u8>,
) -> Result<Option<Kind>, gix::Error> {
    use gix::objs::Find;
    let mut last = Ok(None);
    for _ in 0..2 {
        // gix hands back the buffer it filled: keep the kind and length, not the borrow.
        last = repo
            .objects
            .try_find(id, buf)
            .map(|found| found.map(|d| (d.kind, d.data.as_ptr() as usize, d.data.len())));
        if let Ok(Some(_)) = last {
            break;
        }
    }
    let Some((kind, at, len)) = last? else {
        return Ok(None);
    };
    if at == buf.as_ptr() as usize && len <= buf.len() {
        buf.truncate(len);
    } else {
        // Never seen: data outside the buffer. Read it as an owned object instead.
        let Some(object) = find(repo, id.to_owned())? else {
            return Ok(None);
        };
        buf.clear();
        buf.extend_from_slice(&object.data);
    }
    Ok(Some(kind))
}

/// Object `id`, which must exist.
pub(crate) fn object(repo: &gix::Repository, id: ObjectId) -> Result<gix::Object<'_>, ObjectError> {
    find(repo, id)?.ok_or(ObjectError::Missing(id))
}

fn of_kind(
    repo: &gix::Repository,
    id: ObjectId,
    expected: Kind,
) -> Result<gix::Object<'_>, ObjectError> {
    let object = object(repo, id)?;
    if object.kind != expected {
        return Err(ObjectError::Kind {
            id,
            expected,
            actual: object.kind,
        });
    }
    Ok(object)
}

/// Tree `id`.
pub(crate) fn tree(repo: &gix::Repository, id: ObjectId) -> Result<gix::Tree<'_>, ObjectError> {
    Ok(of_kind(repo, id, Kind::Tree)?.into_tree())
}

/// Commit `id`.
pub(crate) fn commit(repo: &gix::Repository, id: ObjectId) -> Result<gix::Commit<'_>, ObjectError> {
    Ok(of_kind(repo, id, Kind::Commit)?.into_commit())
}

/// Blob `id`.
pub(crate) fn blob(repo: &gix::Repository, id: ObjectId) -> Result<gix::Blob<'_>, ObjectError> {
    Ok(of_kind(repo, id, Kind::Blob)?.into_blob())
}

/// The commit `id` names, through any annotated tags.
pub(crate) fn peel_to_commit(
    repo: &gix::Repository,
    id: ObjectId,
) -> Result<gix::Commit<'_>, ObjectError> {
    let mut id = id;
    loop {
        let object = object(repo, id)?;
        match object.kind {
            Kind::Commit => return Ok(object.into_commit()),
            Kind::Tag => {
                id = object
                    .into_tag()
                    .target_id()
                    .map_err(|_| ObjectError::Missing(id))?
                    .detach();
            }
            actual => {
                return Err(ObjectError::Kind {
                    id,
                    expected: Kind::Commit,
                    actual,
                })
            }
        }
    }
}

/// The mode and id of the entry at `path` in the tree of the commit `id` names (through
/// annotated tags).
pub(crate) fn entry_in_commit(
    repo: &gix::Repository,
    id: ObjectId,
    path: &str,
) -> Result<Option<(gix::object::tree::EntryMode, ObjectId)>, ObjectError> {
    let commit = peel_to_commit(repo, id)?;
    let root = commit_tree(repo, commit.id)?;
    entry_at(repo, &root, path)
}

/// The tree of commit `id`.
pub(crate) fn commit_tree(
    repo: &gix::Repository,
    id: ObjectId,
) -> Result<gix::Tree<'_>, ObjectError> {
    let commit = commit(repo, id)?;
    let root = commit.tree_id().map_err(|_| ObjectError::Missing(id))?;
    tree(repo, root.detach())
}

/// The mode and id of the entry at `path` (names separated by `/`) under tree `root`, or
/// `None` when there is none.
pub(crate) fn entry_at(
    repo: &gix::Repository,
    root: &gix::Tree<'_>,
    path: &str,
) -> Result<Option<(gix::object::tree::EntryMode, ObjectId)>, ObjectError> {
    let mut names = path.split('/').filter(|n| !n.is_empty()).peekable();
    let mut current: Option<gix::Tree<'_>> = None;
    while let Some(name) = names.next() {
        let within = current.as_ref().unwrap_or(root);
        let Some(entry) = within.find_entry(name) else {
            return Ok(None);
        };
        let (mode, id) = (entry.mode(), entry.object_id());
        if names.peek().is_none() {
            return Ok(Some((mode, id)));
        }
        if !mode.is_tree() {
            return Ok(None);
        }
        current = Some(tree(repo, id)?);
    }
    Ok(None)
}

/// The reads above as methods of the repository, where gix's own would be called: every
/// `repo.find_tree(id)` in the store is `repo.read_tree(id)`.
pub(crate) trait ReadObjects {
    fn read_tree(&self, id: ObjectId) -> Result<gix::Tree<'_>, ObjectError>;
    fn read_commit(&self, id: ObjectId) -> Result<gix::Commit<'_>, ObjectError>;
    fn read_blob(&self, id: ObjectId) -> Result<gix::Blob<'_>, ObjectError>;
}

impl ReadObjects for gix::Repository {
    fn read_tree(&self, id: ObjectId) -> Result<gix::Tree<'_>, ObjectError> {
        tree(self, id)
    }
    fn read_commit(&self, id: ObjectId) -> Result<gix::Commit<'_>, ObjectError> {
        commit(self, id)
    }
    fn read_blob(&self, id: ObjectId) -> Result<gix::Blob<'_>, ObjectError> {
        blob(self, id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::{Command, Stdio};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};

    fn git(dir: &std::path::Path, args: &[&str], stdin: &str) -> String {
        use std::io::Write;
        let mut child = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "git {args:?}");
        String::from_utf8(out.stdout).unwrap()
    }

    /// A reader that keeps reading objects while another process packs them and deletes their
    /// loose files (what `git gc` does) never sees one missing. (The window gix leaves is a
    /// few microseconds wide, so this does not fail on every run without the second look; it
    /// did fail a CI run of the eight parallel writers, whose gc starts mid-run.)
    #[test]
    fn objects_packed_and_pruned_meanwhile_are_found() {
        let (dir, _store) = crate::store::scratch();
        let path = dir.path().to_owned();
        let ids: Arc<Mutex<Vec<ObjectId>>> = Arc::default();
        let done = Arc::new(AtomicBool::new(false));
        let reader = {
            let (path, ids, done) = (path.clone(), ids.clone(), done.clone());
            std::thread::spawn(move || {
                let (mut reads, mut missing) = (0usize, Vec::new());
                while !done.load(Ordering::Relaxed) {
                    // A new process's view each pass (no pack index loaded yet), as each
                    // git-rune command has; no object cache, so every read goes to disk.
                    let mut repo = gix::open(&path).unwrap();
                    repo.object_cache_size(None);
                    let round: Vec<ObjectId> = ids.lock().unwrap().clone();
                    for id in round {
                        reads += 1;
                        match blob(&repo, id) {
                            Ok(_) => {}
                            Err(e) => missing.push(e.to_string()),
                        }
                    }
                }
                (reads, missing)
            })
        };
        for round in 0..8 {
            let files: String = (0..300)
                .map(|i| {
                    let f = path.join(format!("b{i}"));
                    std::fs::write(&f, format!("round {round} blob {i}\n")).unwrap();
                    format!("{}\n", f.display())
                })
                .collect();
            let written = git(&path, &["hash-object", "-w", "--stdin-paths"], &files);
            let new: Vec<ObjectId> = written
                .lines()
                .map(|l| ObjectId::from_hex(l.as_bytes()).unwrap())
                .collect();
            *ids.lock().unwrap() = new;
            std::thread::sleep(std::time::Duration::from_millis(20));
            git(
                &path,
                &["pack-objects", "-q", ".git/objects/pack/pack"],
                &written,
            );
            git(&path, &["prune-packed"], "");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        done.store(true, Ordering::Relaxed);
        let (reads, missing) = reader.join().unwrap();
        assert!(reads > 1000, "the reader ran ({reads} reads)");
        assert!(
            missing.is_empty(),
            "{} of {reads} reads failed: {:?}",
            missing.len(),
            &missing[..missing.len().min(3)]
        );
    }
}
