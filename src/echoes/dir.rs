//! The echoes directory in the work tree (`.claude/echoes/`, or `rune.echoes.dir`): checking
//! it out from memory, its manifest (the blob id of every file as rendered and the memory
//! commit it came from, in `<git-dir>/rune/echoes.json`), finding the files edited since and
//! the agents' findings files, and keeping the directory out of `git status`. The text of each
//! file is `view::echoes`' business; this is the disk side, as `memory::view_dir` is for
//! `.rune/`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::files::write_atomic;
use crate::memory::Snapshot;
use crate::model::kinds::Echo;
use crate::model::{echo, Body, State};
use crate::store::{self, Store};
use crate::view::echoes::{self as format, EchoFile};

/// The directory when `rune.echoes.dir` is not set, relative to the work tree.
pub const DEFAULT_DIR: &str = ".claude/echoes";

/// A findings file's name ends with this (`<agent>-findings.md`).
pub const FINDINGS_SUFFIX: &str = "-findings.md";

/// What was checked out.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// The directory it was checked out to, relative to the work tree.
    pub dir: String,
    /// The memory commit the files were rendered from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// `<role>/<file>` → blob id as written.
    pub files: BTreeMap<String, String>,
}

/// The echoes directory of one work tree.
pub struct EchoDir {
    /// Absolute.
    pub root: PathBuf,
    /// As configured, relative to the work tree.
    pub rel: String,
    manifest_path: PathBuf,
    hash: store::HashKind,
}

/// One file of a role that holds edits not saved yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edited {
    pub role: String,
    pub file: EchoFile,
    pub path: PathBuf,
    /// The text read.
    pub text: String,
}

/// An agent's findings file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Findings {
    pub role: String,
    pub agent: String,
    pub path: PathBuf,
    pub text: String,
}

/// The directory's lock, held until dropped.
pub struct DirLock {
    _file: std::fs::File,
}

impl EchoDir {
    /// The echoes directory of the store's work tree; `None` in a bare repository.
    pub fn open(store: &Store) -> Option<EchoDir> {
        let workdir = store.workdir()?;
        let rel = store
            .config_string("rune.echoes.dir")
            .map(|s| s.trim().trim_end_matches('/').to_owned())
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| DEFAULT_DIR.to_owned());
        Some(EchoDir {
            root: workdir.join(&rel),
            rel,
            manifest_path: store.git_dir().join("rune").join("echoes.json"),
            hash: store.hash_kind(),
        })
    }

    /// The path of one role's file.
    pub fn path(&self, role: &str, file: EchoFile) -> PathBuf {
        self.root.join(role).join(file.rel_path())
    }

    /// The manifest, or an empty one before the first checkout.
    pub fn manifest(&self) -> Manifest {
        std::fs::read(&self.manifest_path)
            .ok()
            .and_then(|d| serde_json::from_slice(&d).ok())
            .unwrap_or_default()
    }

    fn blob_of(&self, data: &[u8]) -> String {
        store::blob_id(self.hash, data)
            .map(|id| id.to_string())
            .unwrap_or_default()
    }

    /// Takes the directory's lock (`<git-dir>/rune/echoes.lock`), waiting up to 10 s: one
    /// process at a time checks the directory out or saves it.
    pub fn lock(&self) -> Result<DirLock> {
        let path = self.manifest_path.with_file_name("echoes.lock");
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        let mut waited = std::time::Duration::ZERO;
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(DirLock { _file: file }),
                Err(std::fs::TryLockError::WouldBlock)
                    if waited < std::time::Duration::from_secs(10) =>
                {
                    let step = std::time::Duration::from_millis(5);
                    std::thread::sleep(step);
                    waited += step;
                }
                Err(std::fs::TryLockError::WouldBlock) => anyhow::bail!(
                    "another git-rune process has held {} for 10 s; if none is running, remove it",
                    path.display()
                ),
                Err(std::fs::TryLockError::Error(e)) => {
                    return Err(e).with_context(|| format!("cannot lock {}", path.display()))
                }
            }
        }
    }

    /// The role directories on disk (names that are valid roles).
    fn roles_on_disk(&self) -> BTreeSet<String> {
        let Ok(entries) = std::fs::read_dir(&self.root) else {
            return BTreeSet::new();
        };
        entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|e| e.file_name().to_str().map(str::to_owned))
            .filter(|r| echo::valid_role(r))
            .collect()
    }

    /// The role files that differ from what was checked out (changed, or written by hand).
    pub fn edited(&self, manifest: &Manifest) -> Result<Vec<Edited>> {
        let mut out = Vec::new();
        for role in self.roles_on_disk() {
            for file in EchoFile::ALL {
                let path = self.path(&role, file);
                let Ok(data) = std::fs::read(&path) else {
                    continue;
                };
                let key = format!("{role}/{}", file.rel_path());
                if manifest.files.get(&key) == Some(&self.blob_of(&data)) {
                    continue;
                }
                let text = String::from_utf8(data)
                    .with_context(|| format!("{} is not UTF-8 text", path.display()))?;
                out.push(Edited {
                    role: role.clone(),
                    file,
                    path,
                    text,
                });
            }
        }
        Ok(out)
    }

    /// Every `<role>/<agent>-findings.md`, by role then agent.
    pub fn findings(&self) -> Result<Vec<Findings>> {
        let mut out = Vec::new();
        for role in self.roles_on_disk() {
            let Ok(entries) = std::fs::read_dir(self.root.join(&role)) else {
                continue;
            };
            let mut files: Vec<(String, PathBuf)> = entries
                .flatten()
                .filter_map(|e| {
                    let name = e.file_name().to_str()?.to_owned();
                    let agent = name.strip_suffix(FINDINGS_SUFFIX)?.to_owned();
                    (!agent.is_empty() && e.file_type().ok()?.is_file()).then(|| (agent, e.path()))
                })
                .collect();
            files.sort();
            for (agent, path) in files {
                let text = std::fs::read_to_string(&path)
                    .with_context(|| format!("cannot read {}", path.display()))?;
                out.push(Findings {
                    role: role.clone(),
                    agent,
                    path,
                    text,
                });
            }
        }
        Ok(out)
    }

    /// Renders every role's files from memory as it is now. A file holding edits not saved
    /// yet is left alone (listed in the result) unless `force` (its edits were just saved).
    /// Nothing is created while memory holds no echo and nothing was checked out before.
    pub fn checkout(&self, store: &Store, _lock: &DirLock, force: bool) -> Result<Vec<PathBuf>> {
        let snap = Snapshot::read(store)?;
        let mut manifest = self.manifest();
        if snap.state.echoes.is_empty() && manifest.files.is_empty() {
            return Ok(Vec::new());
        }
        // The fold is made: `echo search` and `load --role` after this write read it cached.
        crate::memory::cache::echo_index::remember(store, &snap);
        let withheld = crate::memory::cache::gate::withheld(store, &snap)?;
        let withhold = |r: &crate::model::Record| withheld.contains(&r.id);
        if !self.root.exists() {
            exclude(store, &self.rel)?;
        }
        let mut roles: BTreeSet<String> = roles_of(&snap.state);
        roles.extend(
            manifest
                .files
                .keys()
                .filter_map(|k| k.split('/').next().map(str::to_owned)),
        );
        let mut kept = Vec::new();
        let mut files = BTreeMap::new();
        for role in &roles {
            for file in EchoFile::ALL {
                let key = format!("{role}/{}", file.rel_path());
                let path = self.path(role, file);
                let text = format::render(role, file, &snap.state.echoes, &withhold);
                let on_disk = std::fs::read(&path).ok();
                let disk_blob = on_disk.as_deref().map(|d| self.blob_of(d));
                let new_blob = (!text.is_empty()).then(|| self.blob_of(text.as_bytes()));
                let edited = disk_blob.is_some() && disk_blob.as_ref() != manifest.files.get(&key);
                if edited && disk_blob != new_blob && !force {
                    kept.push(path);
                    if let Some(b) = manifest.files.get(&key) {
                        files.insert(key, b.clone());
                    }
                    continue;
                }
                match new_blob {
                    None => {
                        if on_disk.is_some() {
                            std::fs::remove_file(&path)
                                .with_context(|| format!("cannot remove {}", path.display()))?;
                        }
                    }
                    Some(b) => {
                        if disk_blob.as_ref() != Some(&b) {
                            if let Some(parent) = path.parent() {
                                std::fs::create_dir_all(parent).with_context(|| {
                                    format!("cannot create {}", parent.display())
                                })?;
                            }
                            write_atomic(&path, text.as_bytes())
                                .with_context(|| format!("cannot write {}", path.display()))?;
                        }
                        files.insert(key, b);
                    }
                }
            }
        }
        manifest.files = files;
        manifest.dir = self.rel.clone();
        manifest.base = snap.memory_tip.map(|t| t.commit.to_string());
        if let Some(parent) = self.manifest_path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        let data = serde_json::to_vec_pretty(&manifest).expect("manifest serializes");
        write_atomic(&self.manifest_path, &data)
            .with_context(|| format!("cannot write {}", self.manifest_path.display()))?;
        Ok(kept)
    }
}

/// The roles memory holds echoes of.
pub fn roles_of(state: &State) -> BTreeSet<String> {
    state
        .echoes
        .iter()
        .filter_map(|r| match &r.body {
            Body::Echo(Echo { role, .. }) => Some(role.clone()),
            _ => None,
        })
        .collect()
}

/// Adds the echoes directory to `info/exclude` unless a line already names it (the seed's
/// default: `.claude/echoes/` is not version-controlled). Returns whether it wrote.
pub fn exclude(store: &Store, rel: &str) -> Result<bool> {
    if store.workdir().is_none() {
        return Ok(false);
    }
    let path = store.common_dir().join("info").join("exclude");
    let existing = match std::fs::read(&path) {
        Ok(d) => d,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let text = String::from_utf8_lossy(&existing);
    let wanted = [
        format!("{rel}/"),
        format!("/{rel}/"),
        rel.to_owned(),
        format!("/{rel}"),
    ];
    if text.lines().any(|l| wanted.iter().any(|w| w == l.trim())) {
        return Ok(false);
    }
    let mut data = existing.clone();
    if !data.is_empty() && !data.ends_with(b"\n") {
        data.push(b'\n');
    }
    data.extend_from_slice(
        format!(
            "# git-rune: role memories (echoes) are checked out from refs/rune/memory\n/{rel}/\n"
        )
        .as_bytes(),
    );
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    std::fs::write(&path, data).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(true)
}

/// A path for messages: relative to `base` when inside it.
pub fn shown(path: &Path, base: &Path) -> String {
    path.strip_prefix(base)
        .unwrap_or(path)
        .display()
        .to_string()
}
