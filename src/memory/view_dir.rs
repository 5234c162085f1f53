//! The `.rune/` directory in the work tree: checking it out from a snapshot, the manifest that
//! records what was checked out (by git blob id), and finding the files a user or agent has
//! edited since. The text of each file is `view`'s business; this is the disk side.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Snapshot;
use crate::integrity::gate::withheld;
use crate::store::{self, HashKind, Store};
use crate::view::{self, ViewFile};

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
}

/// The checked-out state of the view, kept in the per-worktree git dir.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub version: u32,
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

    /// The files holding edits not saved to memory yet (modified, or added by hand).
    pub fn unsaved(&self) -> Vec<ViewFile> {
        let manifest = self.manifest();
        self.states(&manifest)
            .into_iter()
            .filter(|(_, s)| matches!(s, FileState::Modified | FileState::Added))
            .map(|(f, _)| f)
            .collect()
    }

    /// Renders the view from `snap`, leaving files with unsaved edits untouched; `force`
    /// lists files whose edits were just saved (their content is now in the refs).
    pub fn checkout(&self, snap: &Snapshot, force: &[ViewFile]) -> Result<Refresh, ViewError> {
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
            let text = view::render(file, &snap.state, &withheld);
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

    fn write_manifest(&self, manifest: &Manifest) -> Result<(), ViewError> {
        if let Some(parent) = self.manifest_path.parent() {
            std::fs::create_dir_all(parent).map_err(io_err(parent))?;
        }
        let data = serde_json::to_vec_pretty(manifest).expect("manifest serializes");
        write_atomic(&self.manifest_path, &data)
    }
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

/// Writes through a temporary file and a rename, so a reader never sees half a file.
pub fn write_atomic(path: &Path, data: &[u8]) -> Result<(), ViewError> {
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
