//! `status`: the view's files against what was checked out, and how the code drifted since
//! the last save — for `git rune status` and the MCP server's `memory_status`.

use anyhow::Result;

use super::carriers::drift_for;
use crate::drift::Drift;
use crate::memory::view_dir::documents::Unstored;
use crate::memory::view_dir::{FileState, View, VIEW_DIR};
use crate::memory::{cache, Tips};
use crate::store::{HeadInfo, Store};
use crate::view::ViewFile;

/// How memory and its view stand.
pub struct Status {
    pub head: HeadInfo,
    /// No work tree, so no `.rune/` view.
    pub bare: bool,
    /// Whether git-rune has checked the view out in this work tree (a linked worktree made
    /// without git-rune's hooks has none until `git rune init`).
    pub checked_out: bool,
    /// Every view file's state.
    pub view: Vec<(ViewFile, FileState)>,
    /// The other files under `.rune/` (documents, the seed's record files) and their state.
    pub documents: Vec<(String, FileState)>,
    /// Files under `.rune/` memory does not store.
    pub unstored: Vec<Unstored>,
    /// Branch files with unsaved edits rendered for another branch than HEAD's: (file, the
    /// session-state ref they were rendered from).
    pub elsewhere: Vec<(ViewFile, String)>,
    /// The echoes directory's files not as checked out: (path shown from the work tree, what:
    /// `modified`, `added`, `deleted`, `findings`), and those memory does not keep.
    pub echoes: Vec<(String, &'static str)>,
    pub echoes_refused: Vec<(String, String)>,
    /// The last save failed (and none succeeded since).
    pub save_failure: Option<crate::memory::save_failure::SaveFailure>,
    /// Hooks whose last run failed (git went on without them).
    pub hook_failures: Vec<crate::memory::hook_failure::HookFailure>,
    pub drift: Drift,
}

pub fn status(store: &Store) -> Result<Status> {
    let t = Tips::now(store)?;
    // Drift reads the records naming files and the last session: the digest holds them.
    let digest = cache::digest::digest(store, &t)?;
    let (head, branch_ref) = (t.head, t.branch_ref);
    let view = View::open(store);
    let manifest = view.as_ref().map(View::manifest).unwrap_or_default();
    let states = view
        .as_ref()
        .map(|v| v.states(&manifest))
        .unwrap_or_default();
    let scan = view
        .as_ref()
        .map(|v| v.scan_documents(&manifest))
        .unwrap_or_default();
    let drift = drift_for(store, &head, &digest, &branch_ref, false)?;
    let echo_states = echo_states(store)?;
    let elsewhere: Vec<(ViewFile, String)> = ViewFile::ALL
        .into_iter()
        .filter(|f| f.scope() == crate::model::Scope::Branch)
        .filter_map(|f| {
            let e = manifest.files.get(f.name())?;
            (e.refname != branch_ref).then(|| (f, e.refname.clone()))
        })
        .filter(|(f, _)| states.iter().any(|(g, s)| g == f && *s != FileState::Clean))
        .collect();
    Ok(Status {
        head,
        bare: view.is_none(),
        checked_out: view.as_ref().is_some_and(View::checked_out),
        view: states,
        documents: scan
            .files
            .into_iter()
            .map(|(rel, _, state)| (rel, state))
            .collect(),
        unstored: scan.unstored,
        save_failure: crate::memory::save_failure::read(store.git_dir()),
        hook_failures: crate::memory::hook_failure::read(store.git_dir()),
        echoes: echo_states.0,
        echoes_refused: echo_states.1,
        elsewhere,
        drift,
    })
}

/// The echoes directory's files not as saved (path, what), and those memory does not keep
/// (path, why).
type EchoStates = (Vec<(String, &'static str)>, Vec<(String, String)>);

/// The echoes directory's files that hold something not saved (role files edited, findings
/// waiting to be consolidated, documents), and those memory does not keep.
fn echo_states(store: &Store) -> Result<EchoStates> {
    use crate::echoes::dir::{shown, EchoDir};
    let Some(dir) = EchoDir::open(store) else {
        return Ok(Default::default());
    };
    let base = store.workdir().map(|p| p.to_path_buf()).unwrap_or_default();
    let manifest = dir.manifest();
    let mut out: Vec<(String, &'static str)> = Vec::new();
    for e in dir.edited(&manifest).unwrap_or_default() {
        let key = format!("{}/{}", e.role, e.file.rel_path());
        let what = if manifest.files.contains_key(&key) {
            "modified"
        } else {
            "added"
        };
        out.push((shown(&e.path, &base), what));
    }
    for f in dir.findings().unwrap_or_default() {
        out.push((shown(&f.path, &base), "findings"));
    }
    let (docs, refused) = dir.documents(&manifest);
    for (rel, state) in docs {
        let what = match state {
            FileState::Missing => "deleted",
            other => other.as_str(),
        };
        out.push((shown(&dir.root.join(rel), &base), what));
    }
    out.sort();
    let refused = refused
        .into_iter()
        .map(|(rel, why)| (shown(&dir.root.join(rel), &base), why))
        .collect();
    Ok((out, refused))
}

impl Status {
    /// The text form `git rune status` prints.
    pub fn text(&self) -> String {
        let mut out = String::new();
        match &self.head.branch {
            Some(b) => out.push_str(&format!("On branch {}\n", b)),
            None => out.push_str("HEAD detached\n"),
        }
        if let Some(f) = &self.save_failure {
            out.push_str(&f.line());
            out.push('\n');
        }
        for f in &self.hook_failures {
            out.push_str(&f.line());
            out.push('\n');
        }
        if self.bare {
            out.push_str("bare repository: no .rune/ view\n");
        } else if !self.checked_out {
            out.push_str(&format!(
                "{VIEW_DIR}/ is not checked out in this work tree: `git rune init` checks it out\n"
            ));
        } else {
            // A view file deleted is restored by the next checkout; a document deleted is
            // deleted from memory by the next save.
            let mut changed: Vec<(String, FileState, bool)> = self
                .view
                .iter()
                .filter(|(_, s)| *s != FileState::Clean)
                .map(|(f, s)| (f.name().to_owned(), *s, false))
                .collect();
            changed.extend(
                self.documents
                    .iter()
                    .filter(|(_, s)| *s != FileState::Clean)
                    .map(|(f, s)| (f.clone(), *s, true)),
            );
            if changed.is_empty() && self.unstored.is_empty() {
                out.push_str(&format!("{VIEW_DIR}/ is clean\n"));
            } else if changed.is_empty() {
                out.push_str(&format!("{VIEW_DIR}/: everything memory stores is saved\n"));
            } else {
                out.push_str(&format!(
                    "{VIEW_DIR}/ has changes not saved to memory (use `git rune save`):\n"
                ));
                for (name, s, document) in changed {
                    let label = match s {
                        FileState::Modified => "modified:",
                        FileState::Added => "added:   ",
                        FileState::Missing if document => "deleted: ",
                        FileState::Missing => "missing: ",
                        FileState::Clean => "clean:   ",
                    };
                    let other = self
                        .elsewhere
                        .iter()
                        .find(|(f, _)| f.name() == name)
                        .map(|(_, r)| {
                            let b = r.strip_prefix("refs/rune/branches/").unwrap_or(r);
                            format!(" (rendered for branch {b}: `git rune save` saves it there)")
                        })
                        .unwrap_or_default();
                    out.push_str(&format!("  {label} {VIEW_DIR}/{name}{other}\n"));
                }
            }
            if !self.unstored.is_empty() {
                out.push_str("not stored in memory (this clone only):\n");
                for u in &self.unstored {
                    let label = if u.by_design {
                        "local:   "
                    } else {
                        "refused: "
                    };
                    out.push_str(&format!("  {label} {VIEW_DIR}/{}: {}\n", u.path, u.why));
                }
            }
        }
        if !self.echoes.is_empty() {
            out.push_str("echoes with changes not saved to memory (use `git rune save`):\n");
            for (path, what) in &self.echoes {
                out.push_str(&format!("  {:<9} {path}\n", format!("{what}:")));
            }
        }
        for (path, why) in &self.echoes_refused {
            out.push_str(&format!("  refused:  {path}: {why}\n"));
        }
        out.push_str(&self.drift.text());
        out
    }
}
