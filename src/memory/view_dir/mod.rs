//! The `.rune/` directory in the work tree: checking it out from a snapshot, the manifest that
//! records what was checked out (by git blob id), and finding the files a user or agent has
//! edited since. The text of each file is `view`'s business; this is the disk side.
//! Past 600 lines: the render and its three shortcuts (current, append, switch) decide together what a checkout writes.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use anyhow::Result;

mod append;
mod disk;
pub mod documents;
mod log;
pub use append::SavedTail;
pub(crate) use disk::{appended_id, content_id_of_hash, exclude, id_names, remove_file};

/// Adds `.rune/` to `info/exclude` unless a line already names it. Returns whether it wrote.
pub(crate) fn exclude_view(store: &Store) -> Result<bool> {
    exclude(
        store,
        VIEW_DIR,
        "the memory view is checked out from refs/rune/",
    )
}
use disk::io_err;
pub use disk::{
    content_id, id_on_disk, put, state_of, FileEntry, FileState, Put, Section, ViewError, ViewLock,
};

use super::cache::view_index::ViewIndex;
use super::{Snapshot, Tips, Wrote};
use crate::files::write_atomic;
use crate::model::kinds::Delete;
use crate::model::{fold, Body, Kind, Record, Scope};
use crate::store::{self, HashKind, ObjectId, Store, Tip, MEMORY_REF};
use crate::view::{self, ViewFile};

/// The renderer this build is, with the authors it trusts (`rune.trustedAuthors`: records by
/// others are marked): the view is rendered again when it changes.
pub(crate) fn renderer(store: &Store) -> String {
    let base = format!(
        "git-rune {} gate {:x}",
        env!("CARGO_PKG_VERSION"),
        super::cache::gate::version()
    );
    match super::cache::gate::trusted(store) {
        t if t.is_empty() => base,
        t => format!("{base} trusting {}", t.join(",")),
    }
}

/// The view directory, relative to the work tree root.
pub const VIEW_DIR: &str = ".rune";
const MANIFEST_VERSION: u32 = 1;

/// The checked-out state of the view, kept in the per-worktree git dir.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub version: u32,
    /// Which renderer wrote the files (git-rune's version and the gate's): another one
    /// renders again even when the refs did not move.
    #[serde(default)]
    pub renderer: String,
    pub files: BTreeMap<String, FileEntry>,
    /// The other files checked out under `.rune/`: documents and the seed's record files
    /// (`view_dir::documents`), by path inside it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub documents: BTreeMap<String, FileEntry>,
    /// The echoes directory's checkout (`echoes::dir`), kept here so one lock and one file
    /// describe every directory checked out from memory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub echoes: Option<Section>,
}

/// The session state the view's files were last rendered beside: its tree and records.
type OldSession = (Option<ObjectId>, std::rc::Rc<Vec<Record>>);

/// The view of one work tree.
pub struct View {
    pub dir: PathBuf,
    manifest_path: PathBuf,
    hash: HashKind,
    /// Documents a render writes even over edits: the ones a save just saved.
    force_documents: std::cell::RefCell<Vec<String>>,
}

/// The outcome of a checkout.
#[derive(Debug, Default)]
pub struct Refresh {
    pub written: Vec<ViewFile>,
    /// Files left alone because they hold edits not yet saved.
    pub kept: Vec<ViewFile>,
    /// Documents and record files (paths inside `.rune/`) left alone for the same reason.
    pub kept_documents: Vec<String>,
}

impl View {
    /// The view of the store's work tree; `None` in a bare repository.
    pub fn open(store: &Store) -> Option<View> {
        let workdir = store.workdir()?;
        Some(View {
            dir: workdir.join(VIEW_DIR),
            manifest_path: store.git_dir().join("rune").join("view.json"),
            hash: store.hash_kind(),
            force_documents: Default::default(),
        })
    }

    /// Whether git-rune has checked the view out here (its manifest names `.rune/`'s files):
    /// the folder is then git-rune's, not a seed's.
    pub fn checked_out(&self) -> bool {
        self.manifest_path.exists() && self.manifest().version != 0
    }

    /// The session-state ref the view's branch files were rendered from (`None` before any
    /// checkout): the branch the view shows. A file kept for its edits may name another.
    pub fn rendered_for(&self, manifest: &Manifest) -> Option<String> {
        ViewFile::ALL
            .iter()
            .filter(|f| f.scope() == Scope::Branch)
            .filter_map(|f| manifest.files.get(f.name()))
            .map(|e| e.refname.clone())
            .max_by_key(|r| {
                ViewFile::ALL
                    .iter()
                    .filter_map(|f| manifest.files.get(f.name()))
                    .filter(|e| e.refname == *r)
                    .count()
            })
    }

    pub fn path(&self, file: ViewFile) -> PathBuf {
        self.dir.join(file.name())
    }

    /// The manifest, or an empty one before the first checkout (or if it is unreadable:
    /// then every file on disk counts as added, which is the safe side).
    /// The echoes directory's section comes from the old `echoes.json` until a checkout writes
    /// it here (and removes that file).
    pub fn manifest(&self) -> Manifest {
        let mut manifest: Manifest = std::fs::read(&self.manifest_path)
            .ok()
            .and_then(|d| serde_json::from_slice(&d).ok())
            .unwrap_or_default();
        if manifest.echoes.is_none() {
            manifest.echoes = disk::old_section(&self.old_echoes_manifest());
        }
        manifest
    }

    /// Where versions before one manifest kept the echoes directory's.
    fn old_echoes_manifest(&self) -> PathBuf {
        self.manifest_path.with_file_name("echoes.json")
    }

    /// The git hash of this repository (old manifests name git blob ids).
    pub fn hash(&self) -> HashKind {
        self.hash
    }

    /// The content id of a file on disk ([`content_id`]).
    pub fn blob_of(&self, path: &Path) -> Option<String> {
        id_on_disk(path)
    }

    /// Compares one file with the manifest.
    pub fn file_state(&self, manifest: &Manifest, file: ViewFile) -> FileState {
        state_of(self.hash, manifest.files.get(file.name()), &self.path(file))
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

    /// Takes the lock of every directory checked out from memory (`.rune/` and the echoes
    /// directory): one process at a time reads the refs for them, writes their files and
    /// writes the manifest, so a rendering is never older than one already on disk
    /// and the manifest always describes the files. Released when the guard drops, and by the
    /// system when its holder dies, so a crash never leaves the view locked.
    pub fn lock(&self) -> Result<ViewLock, ViewError> {
        let guard = disk::lock(self.manifest_path.with_file_name("view.lock"))?;
        self.remove_stray_temps();
        Ok(guard)
    }

    /// Removes the temporary files (`.<name>.tmp-<pid>`) a process killed while writing the
    /// view left. Only called by the lock's holder: every writer of the view holds it, so no
    /// temporary file there belongs to a live process.
    /// The manifest's temporary files are cleared the same way (it too is written under the
    /// lock); those of other files beside it, written without it, only once they are a minute
    /// old (the local caches, in `rune/cache/`, clear their own: `crate::cache`).
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
        self.render(&guard, store, force, false, &[])
    }

    /// [`View::checkout`] after a write that says what it added ([`Wrote`]): the refresh by
    /// appending takes that instead of diffing the trees for it.
    pub fn checkout_told(&self, store: &Store, told: &[Wrote]) -> Result<Refresh> {
        let guard = self.lock()?;
        self.render(&guard, store, &[], false, told)
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
        self.render(&guard, store, &[], true, &[])
    }

    /// After `save` committed the entries written after a file's rendered text: the view
    /// brought up to date by appending ([`append`]), or `None` when that does not apply (the
    /// caller then renders in full).
    pub fn checkout_saved_tail(
        &self,
        _guard: &ViewLock,
        store: &Store,
        saved: &SavedTail,
        wrote: &[Wrote],
    ) -> Result<Option<Refresh>> {
        let manifest = self.manifest();
        let t = Tips::now(store)?;
        append::refresh(
            self,
            store,
            &manifest,
            &t.head,
            &t.branch_ref,
            (t.memory, t.branch),
            wrote,
            Some(saved),
        )
    }

    /// [`View::checkout`] by a caller that holds the lock, after a save that also saved these documents and record files
    /// (paths inside `.rune/`): they are rendered from memory now, even if the file says
    /// otherwise (a record file reads back in another form).
    pub fn checkout_saved(
        &self,
        guard: &ViewLock,
        store: &Store,
        force: &[ViewFile],
        documents: &[String],
    ) -> Result<Refresh> {
        self.force_documents.replace(documents.to_vec());
        let out = self.render(guard, store, force, false, &[]);
        self.force_documents.replace(Vec::new());
        out
    }

    fn render(
        &self,
        _guard: &ViewLock,
        store: &Store,
        force: &[ViewFile],
        switch: bool,
        told: &[Wrote],
    ) -> Result<Refresh> {
        // Read under the lock: what another process rendered is never newer than this.
        let mut manifest = self.manifest();
        let t = Tips::now(store)?;
        let tips = (t.memory, t.branch);
        let forced_documents = !self.force_documents.borrow().is_empty();
        if force.is_empty()
            && !forced_documents
            && self.rendered_at(store, &manifest, &t.branch_ref, tips, false)
        {
            // Another process (or an earlier command) already rendered these very refs.
            return Ok(Refresh::default());
        }
        if force.is_empty() && !forced_documents && !switch {
            if let Some(out) = append::refresh(
                self,
                store,
                &manifest,
                &t.head,
                &t.branch_ref,
                tips,
                told,
                None,
            )? {
                return Ok(out);
            }
        }
        let branch_records = match (switch, tips.1) {
            (true, Some(b)) => Some(store.tip_records(&t.branch_ref, b)?),
            (true, None) => Some(Default::default()),
            (false, _) => None,
        };
        let old_session = match &branch_records {
            Some(records) => self.memory_current(store, &manifest, tips.0, records)?,
            None => None,
        };
        let memory_kept = old_session.is_some();
        let snap = match (branch_records, old_session) {
            (Some(records), Some((old_tree, old_records))) => {
                let snap = branch_snapshot(store, t, &records)?;
                // The index of memory beside the old session state, moved to the new one.
                match ViewIndex::read(store)
                    .filter(|i| i.describes(tips.0.map(|t| t.tree), old_tree))
                {
                    Some(index) => index
                        .switched(tips.1.map(|t| t.tree), &snap.state, &old_records, &records)
                        .write(store),
                    None => ViewIndex::remove(store),
                }
                snap
            }
            _ => {
                let snap = Snapshot::at_tips(store, t)?;
                // The fold is made: `load` and `status` after this write read its digest,
                // and the next write appends to what it renders.
                super::cache::digest::remember(store, &snap);
                super::cache::echo_index::remember(store, &snap);
                write_index(store, &snap)?;
                snap
            }
        };
        // As every reader shows them: SUSPICIOUS records marked where they are (a save takes
        // the marks off again: `view::normalize`), withheld ones as placeholders.
        let verdicts = super::cache::gate::verdicts_known(store, &snap, told)?;
        let mut snap = snap;
        verdicts.mark(&mut snap.state, false);
        let withhold = |r: &crate::model::Record| verdicts.withholds(r);
        manifest.version = MANIFEST_VERSION;
        manifest.renderer = renderer(store);
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
            let at = (refname, tip.map(|t| t.commit.to_string()));
            let entry = match put(&path, &text, state, (force.contains(&file), false), at)? {
                Put::Kept => {
                    out.kept.push(file);
                    continue;
                }
                Put::Written(e) => {
                    out.written.push(file);
                    e
                }
                Put::Same(e) | Put::Removed(e) => e,
            };
            manifest.files.insert(file.name().to_owned(), entry);
        }
        // Documents are folded by the branch's snapshot too.
        let records = crate::view::seed_files::record_files(&snap.state, &withhold);
        let refname_of = |p: documents::Place| {
            let (refname, tip) = snap.scope_ref(match p {
                documents::Place::Records => Scope::Branch,
                _ => Scope::Memory,
            });
            (refname.to_owned(), tip.map(|t| t.commit.to_string()))
        };
        let forced = self.force_documents.borrow().clone();
        out.kept_documents = self.render_documents(
            &mut manifest,
            &snap.state,
            &records,
            &refname_of,
            &forced,
            &withhold,
        )?;
        self.write_manifest(&manifest)?;
        Ok(out)
    }

    /// Whether the view shows memory at these tips and the branch `branch_ref`: every file was
    /// rendered from them by this renderer, except files holding unsaved edits (a render
    /// keeps those as they are). Reads no file unless its entry is stale.
    pub fn shows(&self, store: &Store) -> Result<bool> {
        let manifest = self.manifest();
        let t = Tips::now(store)?;
        Ok(self.rendered_at(store, &manifest, &t.branch_ref, (t.memory, t.branch), true))
    }

    /// Whether every file was rendered from the refs at these tips (memory, then the branch's
    /// `branch_ref`), by this renderer, and is on disk as rendered — or, when `or_edited`,
    /// holds edits (a render keeps those as they are).
    fn rendered_at(
        &self,
        store: &Store,
        manifest: &Manifest,
        branch_ref: &str,
        (memory, branch): (Option<Tip>, Option<Tip>),
        or_edited: bool,
    ) -> bool {
        manifest.version == MANIFEST_VERSION
            && manifest.renderer == renderer(store)
            && ViewFile::ALL.iter().all(|&file| {
                let (refname, tip) = match file.scope() {
                    Scope::Memory => (MEMORY_REF, memory),
                    Scope::Branch => (branch_ref, branch),
                };
                let current = manifest.files.get(file.name()).is_some_and(|e| {
                    e.refname == refname && e.base == tip.map(|t| t.commit.to_string())
                });
                // Reads no file unless its entry is stale (`or_edited`) or current.
                match or_edited {
                    true => current || self.file_state(manifest, file) != FileState::Clean,
                    false => current && self.file_state(manifest, file) == FileState::Clean,
                }
            })
    }

    /// Whether the memory files on disk are what a render at `memory` would write beside the
    /// session state `branch` (the new branch's records): rendered by this renderer from that
    /// memory commit, clean, and neither the session state they were rendered beside nor
    /// `branch` reaches memory's records ([`reaches_memory`]). When they are: the tree of
    /// that old session state and its records.
    fn memory_current(
        &self,
        store: &Store,
        manifest: &Manifest,
        memory: Option<Tip>,
        branch: &[Record],
    ) -> Result<Option<OldSession>> {
        if manifest.version != MANIFEST_VERSION || manifest.renderer != renderer(store) {
            return Ok(None);
        }
        let memory_base = memory.map(|t| t.commit.to_string());
        let mut branch_entries = Vec::new();
        for file in ViewFile::ALL {
            let Some(e) = manifest.files.get(file.name()) else {
                return Ok(None);
            };
            match file.scope() {
                Scope::Memory => {
                    if e.refname != MEMORY_REF
                        || e.base != memory_base
                        || self.file_state(manifest, file) != FileState::Clean
                    {
                        return Ok(None);
                    }
                }
                Scope::Branch => branch_entries.push((&e.refname, &e.base)),
            }
        }
        // The session state the memory files were rendered beside: one for all branch files
        // (a file kept for its edits would name an older one).
        let Some(&(old_ref, old_base)) = branch_entries.first() else {
            return Ok(None);
        };
        if branch_entries.iter().any(|e| *e != (old_ref, old_base)) {
            return Ok(None);
        }
        let (old_tree, old) = match old_base {
            None => (None, Default::default()),
            Some(hex) => match ObjectId::from_hex(hex.as_bytes()) {
                Ok(id) if store.has_object(id) => {
                    let tip = store.tip_of(old_ref, id)?;
                    (Some(tip.tree), store.tip_records(old_ref, tip)?)
                }
                _ => return Ok(None),
            },
        };
        Ok((!reaches_memory(&old) && !reaches_memory(branch)).then_some((old_tree, old)))
    }

    fn write_manifest(&self, manifest: &Manifest) -> Result<(), ViewError> {
        if let Some(parent) = self.manifest_path.parent() {
            std::fs::create_dir_all(parent).map_err(io_err(parent))?;
        }
        let data = serde_json::to_vec_pretty(manifest).expect("manifest serializes");
        write_atomic(&self.manifest_path, &data).map_err(io_err(&self.manifest_path))?;
        if manifest.echoes.is_some() {
            // Migrated: the echoes directory's section is in this manifest now.
            remove_file(&self.old_echoes_manifest())?;
        }
        Ok(())
    }

    /// Rewrites the manifest with `change` made to it (by the lock's holder).
    pub fn update_manifest(
        &self,
        _guard: &ViewLock,
        change: impl FnOnce(&mut Manifest),
    ) -> Result<(), ViewError> {
        let mut manifest = self.manifest();
        change(&mut manifest);
        self.write_manifest(&manifest)
    }
}

/// Stores the view index of a snapshot just folded from whole trees.
fn write_index(store: &Store, snap: &Snapshot) -> store::Result<()> {
    let memory = match snap.memory_tip {
        Some(t) => store.tip_records(MEMORY_REF, t)?,
        None => Default::default(),
    };
    let branch = match snap.branch_tip {
        Some(t) => store.tip_records(&snap.branch_ref, t)?,
        None => Default::default(),
    };
    ViewIndex::of(
        snap.memory_tip.map(|t| t.tree),
        snap.branch_tip.map(|t| t.tree),
        memory.iter().chain(branch.iter()),
        &snap.state,
    )
    .write(store);
    Ok(())
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
            || matches!(&r.body, Body::Delete(Delete { targets }) if foreign(targets))
    })
}

/// The branch files' snapshot without all of memory: the fold of the branch's records and
/// the memory ref's records that can reach them (records of branch kinds, tombstones and
/// resolutions; a tombstone made by `forget` goes to memory whatever it names). The branch
/// kinds fold exactly as in the whole fold: their rules read only records of their own kind,
/// tombstones, resolutions and the edits among them. The memory kinds are left out.
fn branch_snapshot(store: &Store, t: Tips, branch: &[Record]) -> store::Result<Snapshot> {
    // Documents hold the branch files' frames.
    let kinds: Vec<Kind> = Kind::ALL
        .iter()
        .copied()
        .filter(|k| k.scope() != Some(Scope::Memory) || *k == Kind::Document)
        .collect();
    let memory = match t.memory {
        Some(c) => store.records_of(MEMORY_REF, c, &kinds)?,
        None => Vec::new(),
    };
    Ok(Snapshot {
        head: t.head,
        branch_ref: t.branch_ref,
        memory_tip: t.memory,
        branch_tip: t.branch,
        state: fold(memory.iter().chain(branch.iter())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::kinds::Resolve;
    use crate::model::testing::{learning, meta};

    #[test]
    fn a_manifest_naming_git_blob_ids_still_tells_clean_from_edited() {
        let (_dir, store) = crate::store::scratch();
        let view = View::open(&store).unwrap();
        std::fs::create_dir_all(&view.dir).unwrap();
        let text = b"# Decisions Log\n";
        std::fs::write(view.path(ViewFile::Decisions), text).unwrap();
        let old_id = store::blob_id(store.hash_kind(), text).unwrap().to_string();
        let mut manifest = Manifest::default();
        for blob in [old_id, content_id(text)] {
            let entry = FileEntry {
                blob,
                refname: MEMORY_REF.into(),
                base: None,
                stat: None,
            };
            manifest.files.insert("decisions.md".into(), entry);
            assert_eq!(
                view.file_state(&manifest, ViewFile::Decisions),
                FileState::Clean
            );
            std::fs::write(view.path(ViewFile::Decisions), b"# Decisions Log\nedit\n").unwrap();
            assert_eq!(
                view.file_state(&manifest, ViewFile::Decisions),
                FileState::Modified
            );
            std::fs::write(view.path(ViewFile::Decisions), text).unwrap();
        }
    }

    #[test]
    fn a_session_state_reaches_memory_only_by_memory_kinds_or_ids_it_does_not_hold() {
        let resolve = Record::new(
            meta(1, &[]),
            Body::Resolve(Resolve {
                target: "cp".into(),
            }),
        );
        let own = Record::new(
            meta(2, &[]),
            Body::Delete(Delete {
                targets: vec![resolve.id.clone()],
            }),
        );
        assert!(!reaches_memory(&[resolve.clone(), own]));
        let foreign = Record::new(
            meta(3, &[]),
            Body::Delete(Delete {
                targets: vec!["elsewhere".into()],
            }),
        );
        assert!(reaches_memory(&[resolve.clone(), foreign]));
        assert!(reaches_memory(&[learning(4, "k", "i")]));
        let edit = Record::new(
            meta(5, &["elsewhere"]),
            Body::Resolve(Resolve {
                target: "cp".into(),
            }),
        );
        assert!(reaches_memory(&[resolve, edit]));
    }
}
