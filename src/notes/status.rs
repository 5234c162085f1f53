//! `status`: the view's files against what was checked out, and how the code drifted since
//! the last save — for `git rune status` and the MCP server's `memory_status`.

use anyhow::Result;

use super::carriers::drift_for;
use crate::drift::Drift;
use crate::memory::digest_cache;
use crate::memory::view_dir::documents::Unstored;
use crate::memory::view_dir::{FileState, View, VIEW_DIR};
use crate::store::{branch_ref, HeadInfo, Store, MEMORY_REF};
use crate::view::ViewFile;

/// How memory and its view stand.
pub struct Status {
    pub head: HeadInfo,
    /// No work tree, so no `.rune/` view.
    pub bare: bool,
    /// Every view file's state.
    pub view: Vec<(ViewFile, FileState)>,
    /// The other files under `.rune/` (documents, the seed's record files) and their state.
    pub documents: Vec<(String, FileState)>,
    /// Files under `.rune/` memory does not store.
    pub unstored: Vec<Unstored>,
    /// Branch files with unsaved edits rendered for another branch than HEAD's: (file, the
    /// session-state ref they were rendered from).
    pub elsewhere: Vec<(ViewFile, String)>,
    /// The last save failed (and none succeeded since).
    pub save_failure: Option<crate::memory::save_failure::SaveFailure>,
    pub drift: Drift,
}

pub fn status(store: &Store) -> Result<Status> {
    let head = store.head_info()?;
    let branch_ref = branch_ref(head.branch.as_deref());
    let (memory, branch) = (store.tip(MEMORY_REF)?, store.tip(&branch_ref)?);
    // Drift reads the records naming files and the last session: the digest holds them.
    let digest = digest_cache::digest(store, &head, &branch_ref, memory, branch)?;
    let view = View::open(store);
    let manifest = view.as_ref().map(View::manifest).unwrap_or_default();
    let states = match &view {
        Some(v) => v.states(&manifest),
        None => Vec::new(),
    };
    let scan = view
        .as_ref()
        .map(|v| v.scan_documents(&manifest))
        .unwrap_or_default();
    let drift = drift_for(store, &head, &digest.drift_state(), &branch_ref, false)?;
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
        view: states,
        documents: scan
            .files
            .into_iter()
            .map(|(rel, _, state)| (rel, state))
            .collect(),
        unstored: scan.unstored,
        save_failure: crate::memory::save_failure::read(store.git_dir()),
        elsewhere,
        drift,
    })
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
        if self.bare {
            out.push_str("bare repository: no .rune/ view\n");
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
        out.push_str(&self.drift.text());
        out
    }
}
