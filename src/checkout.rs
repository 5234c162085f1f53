//! The `.rune/` view on disk: checking it out from the refs, the manifest that records what
//! was checked out (by git blob id), and finding the files a user or agent has edited since.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::model::{fold, Record, Scope, State};
use crate::store::{self, branch_ref, HeadInfo, Store, StoreError, Tip, MEMORY_REF};
use crate::view::{self, ViewFile};

/// The view directory, relative to the work tree root.
pub const VIEW_DIR: &str = ".rune";
const MANIFEST_VERSION: u32 = 1;

/// Both memory refs as of now, folded.
pub struct Snapshot {
    pub head: HeadInfo,
    pub branch_ref: String,
    pub memory_tip: Option<Tip>,
    pub branch_tip: Option<Tip>,
    pub memory: std::rc::Rc<Vec<Record>>,
    pub branch: std::rc::Rc<Vec<Record>>,
    pub state: State,
}

impl Snapshot {
    /// Reads `refs/rune/memory` and the current branch's state ref.
    pub fn read(store: &Store) -> store::Result<Snapshot> {
        let head = store.head_info()?;
        let branch_ref = branch_ref(head.branch.as_deref());
        let (memory_tip, memory) = store.records(MEMORY_REF)?;
        let (branch_tip, branch) = store.records(&branch_ref)?;
        let state = fold(memory.iter().chain(branch.iter()));
        Ok(Snapshot {
            head,
            branch_ref,
            memory_tip,
            branch_tip,
            memory,
            branch,
            state,
        })
    }

    /// Memory as it was when the code commit `at` was made: the memory commits its note names,
    /// or else the newest commit of each memory ref (first-parent chain) committed no later
    /// than `at`, on the current branch's state ref.
    pub fn read_at(store: &Store, at: gix::ObjectId) -> store::Result<Snapshot> {
        let now = store.head_info()?;
        let commit = store
            .repo
            .find_commit(at)
            .map_err(store::git_err(format!("cannot read commit {at}")))?;
        let time = commit.time().map(|t| t.seconds).unwrap_or(i64::MAX);
        // The commit's note names the memory it was made with; without one, go by time.
        let note = store.note(at)?.map(|t| crate::notes::CommitNote::parse(&t));
        let named = |id: Option<&String>, name: &str| -> store::Result<Option<Tip>> {
            match id.and_then(|h| gix::ObjectId::from_hex(h.as_bytes()).ok()) {
                Some(c) if store.repo.has_object(c) => store.tip_of(name, c).map(Some),
                _ => store.tip_before(name, time),
            }
        };
        let branch_ref = branch_ref(
            note.as_ref()
                .and_then(|n| n.branch.as_deref())
                .or(now.branch.as_deref()),
        );
        let memory_tip = named(note.as_ref().and_then(|n| n.memory.as_ref()), MEMORY_REF)?;
        let branch_tip = named(note.as_ref().and_then(|n| n.session.as_ref()), &branch_ref)?;
        let memory = match memory_tip {
            Some(t) => store.records_at(MEMORY_REF, t.commit)?,
            None => Default::default(),
        };
        let branch = match branch_tip {
            Some(t) => store.records_at(&branch_ref, t.commit)?,
            None => Default::default(),
        };
        let state = fold(memory.iter().chain(branch.iter()));
        Ok(Snapshot {
            head: HeadInfo {
                branch: now.branch,
                head: Some(at),
                upstream: None,
            },
            branch_ref,
            memory_tip,
            branch_tip,
            memory,
            branch,
            state,
        })
    }

    /// The ref name and tip a record scope lives in.
    pub fn scope_ref(&self, scope: Scope) -> (&str, Option<Tip>) {
        match scope {
            Scope::Memory => (MEMORY_REF, self.memory_tip),
            Scope::Branch => (&self.branch_ref, self.branch_tip),
        }
    }
}

/// What was checked out for one file: its blob id (empty when nothing was written because
/// the file renders empty), the ref and the commit it was rendered from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    pub blob: String,
    #[serde(rename = "ref")]
    pub refname: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
}

/// The checked-out state of the view, kept in the per-worktree git dir.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub version: u32,
    pub files: BTreeMap<String, FileEntry>,
}

/// How a view file compares with what was checked out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
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

/// The view of one work tree.
pub struct View {
    pub dir: PathBuf,
    manifest_path: PathBuf,
    hash: gix::hash::Kind,
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
            hash: store.repo.object_hash(),
        })
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

    fn blob_of(&self, path: &Path) -> Option<String> {
        let data = std::fs::read(path).ok()?;
        store::blob_id(self.hash, &data).map(|id| id.to_string())
    }

    /// Compares one file with the manifest.
    pub fn file_state(&self, manifest: &Manifest, file: ViewFile) -> FileState {
        let on_disk = self.blob_of(&self.path(file));
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

    /// Renders the view from `snap`, leaving files with unsaved edits untouched; `force`
    /// lists files whose edits were just saved (their content is now in the refs).
    pub fn checkout(&self, snap: &Snapshot, force: &[ViewFile]) -> Result<Refresh, StoreError> {
        let mut manifest = self.manifest();
        manifest.version = MANIFEST_VERSION;
        let mut out = Refresh::default();
        std::fs::create_dir_all(&self.dir).map_err(io_err(&self.dir))?;
        for file in ViewFile::ALL {
            let path = self.path(file);
            let state = self.file_state(&manifest, file);
            if state != FileState::Clean && state != FileState::Missing && !force.contains(&file) {
                out.kept.push(file);
                continue;
            }
            let (refname, tip) = snap.scope_ref(file.scope());
            let text = view::render(file, &snap.state);
            let entry_blob = if text.is_empty() {
                remove_file(&path)?;
                String::new()
            } else {
                let blob = store::blob_id(self.hash, text.as_bytes())
                    .map(|id| id.to_string())
                    .unwrap_or_default();
                if self.blob_of(&path).as_deref() != Some(blob.as_str()) {
                    write_atomic(&path, text.as_bytes())?;
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
                },
            );
        }
        self.write_manifest(&manifest)?;
        Ok(out)
    }

    fn write_manifest(&self, manifest: &Manifest) -> Result<(), StoreError> {
        if let Some(parent) = self.manifest_path.parent() {
            std::fs::create_dir_all(parent).map_err(io_err(parent))?;
        }
        let data = serde_json::to_vec_pretty(manifest).expect("manifest serializes");
        write_atomic(&self.manifest_path, &data)
    }
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |e| StoreError::Git {
        context: format!("cannot write {}", path.display()),
        message: e.to_string(),
    }
}

fn remove_file(path: &Path) -> Result<(), StoreError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io_err(path)(e)),
    }
}

/// Writes through a temporary file and a rename, so a reader never sees half a file.
pub fn write_atomic(path: &Path, data: &[u8]) -> Result<(), StoreError> {
    let tmp = path.with_file_name(format!(
        ".{}.tmp-{}",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("rune"),
        std::process::id()
    ));
    std::fs::write(&tmp, data).map_err(io_err(&tmp))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io_err(path)(e)
    })
}
