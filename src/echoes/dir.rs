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
    /// The other files checked out there (documents: `<role>/archive/MEMORY-<date>.md`
    /// backups, notes): path inside the directory → blob id as written.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub documents: BTreeMap<String, String>,
}

/// A file memory does not keep: (its path inside the directory, why).
pub type Refused = (String, String);

/// How a document of the echoes directory stands against what was checked out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocState {
    Modified,
    Added,
    Deleted,
}

/// The memory path of a document of the echoes directory (`reviewer/notes.md` →
/// `.claude/echoes/reviewer/notes.md`, whatever `rune.echoes.dir` names).
pub fn document_path(rel: &str) -> String {
    format!("{}{rel}", crate::model::kinds::document::ECHOES_PREFIX)
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
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(crate::error::conflict(
                        format!(
                            "another git-rune process has held {} for 10 s",
                            path.display()
                        ),
                        "wait for it, or, if none is running, remove that file",
                    ))
                }
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
                // A file memory never rendered that holds no entry (the Rune Echoes plugin's
                // `*No echoes yet.*`) has nothing to save: it is not an edit.
                if !manifest.files.contains_key(&key)
                    && crate::view::echoes::parse(&role, file, &text).is_ok_and(|p| p.is_empty())
                {
                    continue;
                }
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

    /// Whether `rel` (inside the directory) is a file the echo view renders or reads as
    /// findings, rather than a document.
    fn is_echo_file(rel: &str) -> bool {
        let Some((role, file)) = rel.split_once('/') else {
            return false;
        };
        echo::valid_role(role)
            && (EchoFile::ALL.iter().any(|f| f.rel_path() == file)
                || (file.ends_with(FINDINGS_SUFFIX) && !file.contains('/')))
    }

    /// The documents of the directory not as checked out: (path inside it, state), and the
    /// files memory cannot keep (binary, too large) with why.
    pub fn documents(&self, manifest: &Manifest) -> (Vec<(String, DocState)>, Vec<Refused>) {
        let mut changed = Vec::new();
        let mut refused = Vec::new();
        let on_disk = crate::memory::view_dir::documents::walk(&self.root);
        for rel in &on_disk {
            let name = rel.rsplit('/').next().unwrap_or(rel);
            if Self::is_echo_file(rel) || (name.starts_with('.') && name.contains(".tmp-")) {
                continue;
            }
            let Ok(data) = std::fs::read(self.root.join(rel)) else {
                continue;
            };
            if let Some(why) = crate::model::kinds::document::content_problem(&data) {
                refused.push((rel.clone(), why));
                continue;
            }
            match manifest.documents.get(rel) {
                Some(b) if *b == self.blob_of(&data) => {}
                Some(_) => changed.push((rel.clone(), DocState::Modified)),
                None => changed.push((rel.clone(), DocState::Added)),
            }
        }
        for rel in manifest.documents.keys() {
            if !on_disk.contains(rel) {
                changed.push((rel.clone(), DocState::Deleted));
            }
        }
        (changed, refused)
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
        let documents = snap.state.documents.iter().any(|r| {
            r.body
                .title()
                .starts_with(crate::model::kinds::document::ECHOES_PREFIX)
        });
        if snap.state.echoes.is_empty() && manifest.files.is_empty() && !documents {
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
        self.checkout_documents(&snap.state, &mut manifest, force, &mut kept, &withhold)?;
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

impl EchoDir {
    /// Writes the directory's documents memory holds, removes those it no longer holds, and
    /// records them in the manifest; a document edited, added or deleted by hand since is left
    /// as it is (until `save`), unless `force`.
    fn checkout_documents(
        &self,
        state: &State,
        manifest: &mut Manifest,
        force: bool,
        kept: &mut Vec<PathBuf>,
        withhold: &dyn Fn(&crate::model::Record) -> bool,
    ) -> Result<()> {
        let prefix = crate::model::kinds::document::ECHOES_PREFIX;
        let want: BTreeMap<String, std::borrow::Cow<'_, str>> = state
            .documents
            .iter()
            .filter_map(|r| match &r.body {
                // A document the gate withholds is written as the placeholder.
                Body::Document(crate::model::kinds::Document { path, content }) => Some((
                    path.strip_prefix(prefix)?.to_owned(),
                    if withhold(r) {
                        std::borrow::Cow::Owned(format!(
                            "> {}\n",
                            crate::integrity::gate::placeholder(r)
                        ))
                    } else {
                        std::borrow::Cow::Borrowed(content.as_str())
                    },
                )),
                _ => None,
            })
            .collect();
        let (changed, _) = self.documents(manifest);
        let edited = |rel: &str| !force && changed.iter().any(|(r, _)| r == rel);
        let old: Vec<String> = manifest.documents.keys().cloned().collect();
        for rel in old {
            if want.contains_key(&rel) {
                continue;
            }
            let path = self.root.join(&rel);
            if edited(&rel) {
                kept.push(path);
                continue;
            }
            if path.exists() {
                std::fs::remove_file(&path)
                    .with_context(|| format!("cannot remove {}", path.display()))?;
            }
            manifest.documents.remove(&rel);
        }
        for (rel, text) in want {
            let path = self.root.join(&rel);
            let blob = self.blob_of(text.as_bytes());
            let on_disk = std::fs::read(&path).ok().map(|d| self.blob_of(&d));
            if on_disk.as_ref() != Some(&blob) {
                if edited(&rel) {
                    kept.push(path);
                    continue;
                }
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent)
                        .with_context(|| format!("cannot create {}", parent.display()))?;
                }
                write_atomic(&path, text.as_bytes())
                    .with_context(|| format!("cannot write {}", path.display()))?;
            }
            manifest.documents.insert(rel, blob);
        }
        Ok(())
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
