//! The echoes directory in the work tree (`.claude/echoes/`, or `rune.echoes.dir`): which files
//! it holds (each role's files, documents, the agents' findings files), and its checkout from
//! memory. The mechanism — its section of the one manifest, the one lock, file states, writing
//! only what changed, the `info/exclude` line — is `memory::view_dir`'s, shared with `.rune/`;
//! the text of each file is `view::echoes`' business.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::memory::view_dir::{put, state_of, FileEntry, FileState, Put, Section, View, ViewLock};
use crate::memory::Snapshot;
use crate::model::kinds::Echo;
use crate::model::{echo, Body, State};
use crate::store::{Store, MEMORY_REF};
use crate::view::echoes::{self as format, EchoFile};

/// The directory when `rune.echoes.dir` is not set, relative to the work tree.
pub const DEFAULT_DIR: &str = ".claude/echoes";

/// A findings file's name ends with this (`<agent>-findings.md`).
pub const FINDINGS_SUFFIX: &str = "-findings.md";

/// A file memory does not keep: (its path inside the directory, why).
pub type Refused = (String, String);

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
    /// The view whose manifest and lock it shares.
    view: View,
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

impl EchoDir {
    /// The echoes directory of the store's work tree; `None` in a bare repository.
    pub fn open(store: &Store) -> Option<EchoDir> {
        let view = View::open(store)?;
        let workdir = store.workdir()?;
        let rel = store
            .config_string("rune.echoes.dir")
            .map(|s| s.trim().trim_end_matches('/').to_owned())
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| DEFAULT_DIR.to_owned());
        Some(EchoDir {
            root: workdir.join(&rel),
            rel,
            view,
        })
    }

    /// The path of one role's file.
    pub fn path(&self, role: &str, file: EchoFile) -> PathBuf {
        self.root.join(role).join(file.rel_path())
    }

    /// Its section of the manifest, or an empty one before the first checkout.
    pub fn manifest(&self) -> Section {
        self.view.manifest().echoes.unwrap_or_default()
    }

    /// Whether the files were rendered by another renderer (another build, other rules or
    /// other trusted authors), so the next reader renders them again.
    pub fn stale(&self, store: &Store) -> bool {
        (self.view.manifest().echoes)
            .is_some_and(|m| m.renderer != crate::memory::view_dir::renderer(store))
    }

    /// Takes the lock of every checked-out directory (the view's), waiting up to 10 s.
    pub fn lock(&self) -> Result<ViewLock> {
        Ok(self.view.lock()?)
    }

    fn state(&self, entry: Option<&FileEntry>, path: &Path) -> FileState {
        state_of(self.view.hash(), entry, path)
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
    pub fn edited(&self, manifest: &Section) -> Result<Vec<Edited>> {
        let mut out = Vec::new();
        for role in self.roles_on_disk() {
            for file in EchoFile::ALL {
                let path = self.path(&role, file);
                let key = format!("{role}/{}", file.rel_path());
                if !self.state(manifest.files.get(&key), &path).edited() {
                    continue;
                }
                let Ok(data) = std::fs::read(&path) else {
                    continue;
                };
                let text = String::from_utf8(data).map_err(|_| not_utf8(&self.rel, &key))?;
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

    /// The documents of the directory not as checked out: (path inside it, state: modified,
    /// added or missing), and the files memory cannot keep (binary, too large) with why.
    pub fn documents(&self, manifest: &Section) -> (Vec<(String, FileState)>, Vec<Refused>) {
        let mut changed = Vec::new();
        let mut refused = Vec::new();
        let on_disk = crate::memory::view_dir::documents::walk(&self.root);
        for rel in &on_disk {
            let name = rel.rsplit('/').next().unwrap_or(rel);
            if Self::is_echo_file(rel) || (name.starts_with('.') && name.contains(".tmp-")) {
                continue;
            }
            let path = self.root.join(rel);
            let Ok(data) = std::fs::read(&path) else {
                continue;
            };
            if let Some(why) = crate::model::kinds::document::content_problem(&data) {
                refused.push((rel.clone(), why));
                continue;
            }
            let state = self.state(manifest.documents.get(rel), &path);
            if state != FileState::Clean {
                changed.push((rel.clone(), state));
            }
        }
        for rel in manifest.documents.keys() {
            if !on_disk.contains(rel) {
                changed.push((rel.clone(), FileState::Missing));
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
                let key = format!("{role}/{agent}{FINDINGS_SUFFIX}");
                let data = std::fs::read(&path).map_err(|e| {
                    crate::error::environment(
                        format!(
                            "cannot read {}/{key}: {}",
                            self.rel,
                            crate::error::io_text(&e)
                        ),
                        "check that git-rune can read it, then run the command again",
                    )
                })?;
                let text = String::from_utf8(data).map_err(|_| not_utf8(&self.rel, &key))?;
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

    /// Renders every role's files and documents from memory as it is now. A file holding edits
    /// not saved yet is left alone (listed in the result) unless `force` (its edits were just
    /// saved). Nothing is created while memory holds no echo and nothing was checked out.
    pub fn checkout(&self, store: &Store, lock: &ViewLock, force: bool) -> Result<Vec<PathBuf>> {
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
        // SUSPICIOUS entries marked where they are (a save takes the marks off again),
        // withheld ones as placeholders.
        let verdicts = crate::memory::cache::gate::verdicts(store, &snap)?;
        let mut snap = snap;
        verdicts.mark(&mut snap.state, false);
        let withhold = |r: &crate::model::Record| verdicts.withholds(r);
        if !self.root.exists() {
            // The seed's default: `.claude/echoes/` is not version-controlled.
            let why = "role memories (echoes) are checked out from refs/rune/memory";
            crate::memory::view_dir::exclude(store, &self.rel, why)?;
        }
        let mut roles: BTreeSet<String> = roles_of(&snap.state);
        roles.extend(
            manifest
                .files
                .keys()
                .filter_map(|k| k.split('/').next().map(str::to_owned)),
        );
        let base = snap.memory_tip.map(|t| t.commit.to_string());
        let mut kept = Vec::new();
        let mut files = BTreeMap::new();
        for role in &roles {
            for file in EchoFile::ALL {
                let key = format!("{role}/{}", file.rel_path());
                let path = self.path(role, file);
                let text = format::render(role, file, &snap.state.echoes, &withhold);
                let entry = manifest.files.get(&key);
                let state = self.state(entry, &path);
                match put(
                    &path,
                    &text,
                    state,
                    (force, false),
                    (MEMORY_REF, base.clone()),
                )? {
                    Put::Kept => {
                        kept.push(path);
                        files.extend(entry.map(|e| (key, e.clone())));
                    }
                    Put::Same(e) | Put::Written(e) => {
                        files.insert(key, e);
                    }
                    Put::Removed(_) => {}
                }
            }
        }
        manifest.files = files;
        let at = (MEMORY_REF, base);
        self.checkout_documents(&snap.state, &mut manifest, force, at, &mut kept, &withhold)?;
        manifest.dir = self.rel.clone();
        manifest.renderer = crate::memory::view_dir::renderer(store);
        self.view
            .update_manifest(lock, |m| m.echoes = Some(manifest))?;
        Ok(kept)
    }

    /// Writes the directory's documents memory holds, removes those it no longer holds, and
    /// records them in the manifest; a document edited, added or deleted by hand since is left
    /// as it is (until `save`), unless `force`.
    fn checkout_documents(
        &self,
        state: &State,
        manifest: &mut Section,
        force: bool,
        (refname, base): (&str, Option<String>),
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
                    crate::memory::view_dir::documents::document_text(r, content, withhold),
                )),
                _ => None,
            })
            .collect();
        let old: Vec<String> = manifest.documents.keys().cloned().collect();
        for rel in old {
            if want.contains_key(&rel) {
                continue;
            }
            let path = self.root.join(&rel);
            if !force && self.state(manifest.documents.get(&rel), &path) != FileState::Clean {
                kept.push(path);
                continue;
            }
            crate::memory::view_dir::remove_file(&path)?;
            manifest.documents.remove(&rel);
        }
        for (rel, text) in want {
            let path = self.root.join(&rel);
            let state = self.state(manifest.documents.get(&rel), &path);
            match put(&path, &text, state, (force, true), (refname, base.clone()))? {
                Put::Kept => kept.push(path),
                Put::Same(e) | Put::Written(e) | Put::Removed(e) => {
                    manifest.documents.insert(rel, e);
                }
            }
        }
        Ok(())
    }
}

/// The roles memory holds echoes of.
pub fn roles_of(state: &State) -> BTreeSet<String> {
    state
        .echoes
        .iter()
        .filter_map(|r| Echo::of(&r.body).map(|e| e.role.clone()))
        .collect()
}

/// A role's file (`key`, inside the directory `rel`) that is not text: nothing is saved until
/// it is fixed, and the file is left as it is.
fn not_utf8(rel: &str, key: &str) -> anyhow::Error {
    crate::error::data(
        format!("{rel}/{key} is not UTF-8 text"),
        format!("fix {rel}/{key} (or move it aside) and run the command again; nothing was saved and the file is as you left it"),
    )
}

/// A path for messages: relative to `base` when inside it.
pub fn shown(path: &Path, base: &Path) -> String {
    path.strip_prefix(base)
        .unwrap_or(path)
        .display()
        .to_string()
}
