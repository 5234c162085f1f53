//! The `.rune/` directory in the work tree: checking it out from a snapshot, the manifest that
//! records what was checked out (by git blob id), and finding the files a user or agent has
//! edited since. The text of each file is `view`'s business; this is the disk side.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use anyhow::{Context, Result};

use super::Snapshot;
use crate::files::{stat_of, write_atomic};
use crate::model::{fold, Body, Kind, Record, Scope};
use crate::store::{self, HashKind, ObjectId, Store, Tip, MEMORY_REF};
use crate::view::{self, ViewFile};

/// The renderer this build is: the view is rendered again when it changes.
fn renderer() -> String {
    format!(
        "git-rune {} gate {}",
        env!("CARGO_PKG_VERSION"),
        super::gate_cache::VERSION
    )
}

/// How long [`View::lock`] waits for another process.
const LOCK_PATIENCE: std::time::Duration = std::time::Duration::from_secs(10);

/// The view's lock, held until dropped.
#[derive(Debug)]
pub struct ViewLock {
    _file: std::fs::File,
}

/// Why the view could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {}", path.display())]
pub struct ViewError {
    pub path: PathBuf,
    #[source]
    pub source: std::io::Error,
}

/// The view directory, relative to the work tree root.
pub const VIEW_DIR: &str = ".rune";
const MANIFEST_VERSION: u32 = 1;

/// What was checked out for one file: its blob id (empty when nothing was written because
/// the file renders empty), the ref and the commit it was rendered from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    pub blob: String,
    #[serde(rename = "ref")]
    pub refname: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// The file's size and modification time (ns) when written: a file whose stat still
    /// matches is not read and hashed again (as git's index does).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stat: Option<(u64, i128)>,
}

/// The checked-out state of the view, kept in the per-worktree git dir.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub version: u32,
    /// Which renderer wrote the files (git-rune's version and the gate's): another one
    /// renders again even when the refs did not move.
    #[serde(default)]
    pub renderer: String,
    pub files: BTreeMap<String, FileEntry>,
}

/// How a view file compares with what was checked out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileState {
    /// On disk exactly as checked out (or absent as checked out).
    Clean,
    /// Changed since checkout.
    Modified,
    /// On disk, but checkout wrote nothing there (or there was no checkout yet).
    Added,
    /// Checked out, then deleted.
    Missing,
}

impl FileState {
    /// The wire name (`--json`).
    pub fn as_str(self) -> &'static str {
        match self {
            FileState::Clean => "clean",
            FileState::Modified => "modified",
            FileState::Added => "added",
            FileState::Missing => "missing",
        }
    }
}

/// The view of one work tree.
pub struct View {
    pub dir: PathBuf,
    manifest_path: PathBuf,
    hash: HashKind,
}

/// The outcome of a checkout.
#[derive(Debug, Default)]
pub struct Refresh {
    pub written: Vec<ViewFile>,
    /// Files left alone because they hold edits not yet saved.
    pub kept: Vec<ViewFile>,
}

impl View {
    /// The view of the store's work tree; `None` in a bare repository.
    pub fn open(store: &Store) -> Option<View> {
        let workdir = store.workdir()?;
        Some(View {
            dir: workdir.join(VIEW_DIR),
            manifest_path: store.git_dir().join("rune").join("view.json"),
            hash: store.hash_kind(),
        })
    }

    /// Whether git-rune has checked the view out here (its manifest exists): the folder is
    /// then git-rune's, not a seed's.
    pub fn checked_out(&self) -> bool {
        self.manifest_path.exists()
    }

    pub fn path(&self, file: ViewFile) -> PathBuf {
        self.dir.join(file.name())
    }

    /// The manifest, or an empty one before the first checkout (or if it is unreadable:
    /// then every file on disk counts as added, which is the safe side).
    pub fn manifest(&self) -> Manifest {
        std::fs::read(&self.manifest_path)
            .ok()
            .and_then(|d| serde_json::from_slice(&d).ok())
            .unwrap_or_default()
    }

    /// The blob id of a file on disk, as the manifest records it.
    pub fn blob_of(&self, path: &Path) -> Option<String> {
        let data = std::fs::read(path).ok()?;
        store::blob_id(self.hash, &data).map(|id| id.to_string())
    }

    /// Compares one file with the manifest.
    pub fn file_state(&self, manifest: &Manifest, file: ViewFile) -> FileState {
        let path = self.path(file);
        if let Some(e) = manifest.files.get(file.name()) {
            if e.stat.is_some() && e.stat == stat_of(&path) {
                return FileState::Clean;
            }
        }
        let on_disk = self.blob_of(&path);
        match (manifest.files.get(file.name()), on_disk) {
            (Some(e), Some(b)) if e.blob == b => FileState::Clean,
            (Some(e), Some(_)) if e.blob.is_empty() => FileState::Added,
            (Some(_), Some(_)) => FileState::Modified,
            (Some(e), None) if e.blob.is_empty() => FileState::Clean,
            (Some(_), None) => FileState::Missing,
            (None, Some(_)) => FileState::Added,
            (None, None) => FileState::Clean,
        }
    }

    /// Every view file with its state.
    pub fn states(&self, manifest: &Manifest) -> Vec<(ViewFile, FileState)> {
        ViewFile::ALL
            .into_iter()
            .map(|f| (f, self.file_state(manifest, f)))
            .collect()
    }

    /// The files checked out and deleted since.
    pub fn missing(&self) -> Vec<ViewFile> {
        let manifest = self.manifest();
        self.states(&manifest)
            .into_iter()
            .filter(|(_, s)| *s == FileState::Missing)
            .map(|(f, _)| f)
            .collect()
    }

    /// The files holding edits not saved to memory yet (modified, or added by hand).
    pub fn unsaved(&self) -> Vec<ViewFile> {
        let manifest = self.manifest();
        self.states(&manifest)
            .into_iter()
            .filter(|(_, s)| matches!(s, FileState::Modified | FileState::Added))
            .map(|(f, _)| f)
            .collect()
    }

    /// Takes the view's lock: one process at a time reads the refs for the view, writes its
    /// files and writes its manifest, so a rendering is never older than one already on disk
    /// and the manifest always describes the files. Released when the guard drops, and by the
    /// system when its holder dies, so a crash never leaves the view locked.
    pub fn lock(&self) -> Result<ViewLock, ViewError> {
        let path = self.manifest_path.with_file_name("view.lock");
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io_err(parent))?;
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io_err(&path))?;
        // Waits a bounded time: a holder that hangs must not hang every later command.
        let mut waited = std::time::Duration::ZERO;
        loop {
            match file.try_lock() {
                Ok(()) => {
                    self.remove_stray_temps();
                    return Ok(ViewLock { _file: file });
                }
                Err(std::fs::TryLockError::WouldBlock) if waited < LOCK_PATIENCE => {
                    let step = std::time::Duration::from_millis(2 + waited.as_millis() as u64 / 10);
                    std::thread::sleep(step);
                    waited += step;
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(ViewError {
                        path,
                        source: std::io::Error::new(
                            std::io::ErrorKind::WouldBlock,
                            "another git-rune process has held the view's lock for 10 s; \
                             if none is running, remove this file",
                        ),
                    })
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(io_err(&path)(e)),
            }
        }
    }

    /// Removes the temporary files (`.<name>.tmp-<pid>`) a process killed while writing the
    /// view left. Only called by the lock's holder: every writer of the view holds it, so no
    /// temporary file there belongs to a live process.
    /// The manifest's temporary files are cleared the same way (it too is written under the
    /// lock); the gate cache's, written without it, only once they are a minute old.
    fn remove_stray_temps(&self) {
        let stray = |e: &std::fs::DirEntry, locked_prefix: &str| {
            let name = e.file_name();
            let Some(name) = name.to_str() else {
                return false;
            };
            if !(name.starts_with('.') && name.contains(".tmp-")) {
                return false;
            }
            name.starts_with(locked_prefix)
                || e.metadata()
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| t.elapsed().ok())
                    .is_some_and(|age| age.as_secs() >= 60)
        };
        let dirs = [
            (Some(self.dir.as_path()), "."),
            (self.manifest_path.parent(), ".view.json.tmp-"),
        ];
        for (dir, locked_prefix) in dirs {
            let Some(Ok(entries)) = dir.map(std::fs::read_dir) else {
                continue;
            };
            for e in entries.flatten() {
                if stray(&e, locked_prefix) {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
    }

    /// Renders the view from the refs as they are now, leaving files with unsaved edits
    /// untouched; `force` lists files whose edits were just saved (their content is now in the
    /// refs). Takes the view's lock.
    pub fn checkout(&self, store: &Store, force: &[ViewFile]) -> Result<Refresh> {
        let guard = self.lock()?;
        self.render(&guard, store, force, false)
    }

    /// [`View::checkout`] after a branch switch (post-checkout): when the memory files were
    /// rendered from the memory commit that is current, are on disk as rendered, and neither
    /// the old nor the new branch's session state holds anything that could change how
    /// memory's records fold, only the branch's files are rendered, from a fold of the
    /// branch's records and the few memory records that can reach them (see
    /// [`branch_snapshot`]), not from all of memory. The files are byte for byte what a full
    /// checkout writes. It stores no digest for the new pair of trees (that needs the whole
    /// fold): `load` makes it on its first read, unless an earlier render of this branch did.
    pub fn switch(&self, store: &Store) -> Result<Refresh> {
        let guard = self.lock()?;
        self.render(&guard, store, &[], true)
    }

    /// [`View::checkout`] by a caller that holds the lock.
    pub fn checkout_locked(
        &self,
        guard: &ViewLock,
        store: &Store,
        force: &[ViewFile],
    ) -> Result<Refresh> {
        self.render(guard, store, force, false)
    }

    fn render(
        &self,
        _guard: &ViewLock,
        store: &Store,
        force: &[ViewFile],
        switch: bool,
    ) -> Result<Refresh> {
        // Read under the lock: what another process rendered is never newer than this.
        let mut manifest = self.manifest();
        let head = store.head_info()?;
        let branch_ref = store::branch_ref(head.branch.as_deref());
        let tips = (store.tip(MEMORY_REF)?, store.tip(&branch_ref)?);
        if force.is_empty() && self.is_current(&manifest, &branch_ref, tips) {
            // Another process (or an earlier command) already rendered these very refs.
            return Ok(Refresh::default());
        }
        let branch_records = match (switch, tips.1) {
            (true, Some(t)) => Some(store.tip_records(&branch_ref, t)?),
            (true, None) => Some(Default::default()),
            (false, _) => None,
        };
        let memory_kept = match &branch_records {
            Some(records) => self.memory_current(store, &manifest, tips.0, records)?,
            None => false,
        };
        let snap = match branch_records.filter(|_| memory_kept) {
            Some(records) => branch_snapshot(store, head, branch_ref, tips, &records)?,
            None => {
                let snap = Snapshot::at_tips(store, head, branch_ref, tips.0, tips.1)?;
                // The fold is made: `load` and `status` after this write read its digest.
                super::digest_cache::remember(store, &snap);
                super::echo_cache::remember(store, &snap);
                snap
            }
        };
        let withheld = super::gate_cache::withheld(store, &snap)?;
        let withhold = |r: &crate::model::Record| withheld.contains(&r.id);
        manifest.version = MANIFEST_VERSION;
        manifest.renderer = renderer();
        let mut out = Refresh::default();
        if !self.dir.exists() {
            // The first view in a repository nobody ran `git rune init` in: keep it out of
            // `git status` all the same.
            exclude_view(store)?;
        }
        std::fs::create_dir_all(&self.dir).map_err(io_err(&self.dir))?;
        for file in ViewFile::ALL {
            if memory_kept && file.scope() == Scope::Memory {
                // Rendered from this very memory and untouched since: its entry stands.
                continue;
            }
            let path = self.path(file);
            let state = self.file_state(&manifest, file);
            let (refname, tip) = snap.scope_ref(file.scope());
            let text = view::render(file, &snap.state, &withhold);
            let blob = if text.is_empty() {
                String::new()
            } else {
                store::blob_id(self.hash, text.as_bytes())
                    .map(|id| id.to_string())
                    .unwrap_or_default()
            };
            // Taken before the file is read: if it changes after, its stat will not match.
            let stat_before = stat_of(&path);
            let on_disk = self.blob_of(&path);
            // A file that already says what the refs say holds no edit, whatever the manifest
            // remembers (a view that is merely behind, or ahead after a crash, is not edited).
            let current = on_disk.as_deref().unwrap_or("") == blob;
            let edited = matches!(state, FileState::Modified | FileState::Added);
            if edited && !current && !force.contains(&file) {
                out.kept.push(file);
                continue;
            }
            let mut stat = stat_before;
            let entry_blob = if text.is_empty() {
                remove_file(&path)?;
                stat = None;
                String::new()
            } else {
                if !current {
                    stat = write_atomic(&path, text.as_bytes()).map_err(io_err(&path))?;
                    out.written.push(file);
                }
                blob
            };
            manifest.files.insert(
                file.name().to_owned(),
                FileEntry {
                    blob: entry_blob,
                    refname: refname.to_owned(),
                    base: tip.map(|t| t.commit.to_string()),
                    stat,
                },
            );
        }
        self.write_manifest(&manifest)?;
        Ok(out)
    }

    /// Whether every file was rendered from the refs at these tips (memory, then the branch's
    /// `branch_ref`), by this renderer, and is on disk as rendered.
    fn is_current(
        &self,
        manifest: &Manifest,
        branch_ref: &str,
        (memory, branch): (Option<Tip>, Option<Tip>),
    ) -> bool {
        manifest.version == MANIFEST_VERSION
            && manifest.renderer == renderer()
            && ViewFile::ALL.iter().all(|&file| {
                let (refname, tip) = match file.scope() {
                    Scope::Memory => (MEMORY_REF, memory),
                    Scope::Branch => (branch_ref, branch),
                };
                manifest.files.get(file.name()).is_some_and(|e| {
                    e.refname == refname && e.base == tip.map(|t| t.commit.to_string())
                }) && self.file_state(manifest, file) == FileState::Clean
            })
    }

    /// Whether the memory files on disk are what a render at `memory` would write beside the
    /// session state `branch` (the new branch's records): rendered by this renderer from that
    /// memory commit, clean, and neither the session state they were rendered beside nor
    /// `branch` reaches memory's records ([`reaches_memory`]).
    fn memory_current(
        &self,
        store: &Store,
        manifest: &Manifest,
        memory: Option<Tip>,
        branch: &[Record],
    ) -> Result<bool> {
        if manifest.version != MANIFEST_VERSION || manifest.renderer != renderer() {
            return Ok(false);
        }
        let memory_base = memory.map(|t| t.commit.to_string());
        let mut branch_entries = Vec::new();
        for file in ViewFile::ALL {
            let Some(e) = manifest.files.get(file.name()) else {
                return Ok(false);
            };
            match file.scope() {
                Scope::Memory => {
                    if e.refname != MEMORY_REF
                        || e.base != memory_base
                        || self.file_state(manifest, file) != FileState::Clean
                    {
                        return Ok(false);
                    }
                }
                Scope::Branch => branch_entries.push((&e.refname, &e.base)),
            }
        }
        // The session state the memory files were rendered beside: one for all branch files
        // (a file kept for its edits would name an older one).
        let Some(&(old_ref, old_base)) = branch_entries.first() else {
            return Ok(false);
        };
        if branch_entries.iter().any(|e| *e != (old_ref, old_base)) {
            return Ok(false);
        }
        let old = match old_base {
            None => Default::default(),
            Some(hex) => match ObjectId::from_hex(hex.as_bytes()) {
                Ok(id) if store.has_object(id) => store.records_at(old_ref, id)?,
                _ => return Ok(false),
            },
        };
        Ok(!reaches_memory(&old) && !reaches_memory(branch))
    }

    fn write_manifest(&self, manifest: &Manifest) -> Result<(), ViewError> {
        if let Some(parent) = self.manifest_path.parent() {
            std::fs::create_dir_all(parent).map_err(io_err(parent))?;
        }
        let data = serde_json::to_vec_pretty(manifest).expect("manifest serializes");
        write_atomic(&self.manifest_path, &data)
            .map(|_| ())
            .map_err(io_err(&self.manifest_path))
    }
}

/// Whether a session-state ref's records could change how memory's records fold: a record
/// of a memory kind, or an edit or a tombstone naming a record the ref itself does not hold.
/// git-rune's writers put neither there (a record goes to its kind's ref, an edit or a
/// deletion to the ref of the file it was made in), so a switch between branches finds none.
fn reaches_memory(records: &[Record]) -> bool {
    let own: HashSet<&str> = records.iter().map(|r| r.id.as_str()).collect();
    let foreign = |ids: &[String]| ids.iter().any(|id| !own.contains(id.as_str()));
    records.iter().any(|r| {
        r.kind().scope() == Some(Scope::Memory)
            || foreign(&r.meta.supersedes)
            || matches!(&r.body, Body::Delete { targets } if foreign(targets))
    })
}

/// The branch files' snapshot without all of memory: the fold of the branch's records and
/// the memory ref's records that can reach them (records of branch kinds, tombstones and
/// resolutions; a tombstone made by `forget` goes to memory whatever it names). The branch
/// kinds fold exactly as in the whole fold: their rules read only records of their own kind,
/// tombstones, resolutions and the edits among them. The memory kinds are left out.
fn branch_snapshot(
    store: &Store,
    head: store::HeadInfo,
    branch_ref: String,
    (memory_tip, branch_tip): (Option<Tip>, Option<Tip>),
    branch: &[Record],
) -> store::Result<Snapshot> {
    let kinds: Vec<Kind> = Kind::ALL
        .into_iter()
        .filter(|k| k.scope() != Some(Scope::Memory))
        .collect();
    let memory = match memory_tip {
        Some(t) => store.records_of(MEMORY_REF, t, &kinds)?,
        None => Vec::new(),
    };
    Ok(Snapshot {
        head,
        branch_ref,
        memory_tip,
        branch_tip,
        state: fold(memory.iter().chain(branch.iter())),
    })
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> ViewError + '_ {
    move |source| ViewError {
        path: path.to_path_buf(),
        source,
    }
}

fn remove_file(path: &Path) -> Result<(), ViewError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io_err(path)(e)),
    }
}

/// Adds `.rune/` to `info/exclude` unless a line already names it (nothing in a bare
/// repository). Returns whether it wrote.
pub(crate) fn exclude_view(store: &Store) -> Result<bool> {
    if store.workdir().is_none() {
        return Ok(false);
    }
    let info = store.common_dir().join("info");
    let path = info.join("exclude");
    let existing = match std::fs::read(&path) {
        Ok(d) => d,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let text = String::from_utf8_lossy(&existing);
    let wanted = [".rune/", "/.rune/", ".rune", "/.rune"];
    if text.lines().any(|l| wanted.contains(&l.trim())) {
        return Ok(false);
    }
    let mut data = existing.clone();
    if !data.is_empty() && !data.ends_with(b"\n") {
        data.push(b'\n');
    }
    data.extend_from_slice(
        b"# git-rune: the memory view is checked out from refs/rune/\n/.rune/\n",
    );
    std::fs::create_dir_all(&info).with_context(|| format!("cannot create {}", info.display()))?;
    std::fs::write(&path, data).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testing::{learning, meta};

    #[test]
    fn a_session_state_reaches_memory_only_by_memory_kinds_or_ids_it_does_not_hold() {
        let resolve = Record::new(
            meta(1, &[]),
            Body::Resolve {
                target: "cp".into(),
            },
        );
        let own = Record::new(
            meta(2, &[]),
            Body::Delete {
                targets: vec![resolve.id.clone()],
            },
        );
        assert!(!reaches_memory(&[resolve.clone(), own]));
        let foreign = Record::new(
            meta(3, &[]),
            Body::Delete {
                targets: vec!["elsewhere".into()],
            },
        );
        assert!(reaches_memory(&[resolve.clone(), foreign]));
        assert!(reaches_memory(&[learning(4, "k", "i")]));
        let edit = Record::new(
            meta(5, &["elsewhere"]),
            Body::Resolve {
                target: "cp".into(),
            },
        );
        assert!(reaches_memory(&[resolve, edit]));
    }
}
