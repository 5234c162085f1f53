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
        if self.bare {
            out.push_str("bare repository: no .rune/ view\n");
        } else {
            let mut changed: Vec<(String, FileState)> = self
                .view
                .iter()
                .filter(|(_, s)| *s != FileState::Clean)
                .map(|(f, s)| (f.name().to_owned(), *s))
                .collect();
            changed.extend(
                self.documents
                    .iter()
                    .filter(|(_, s)| *s != FileState::Clean)
                    .cloned(),
            );
            if changed.is_empty() && self.unstored.is_empty() {
                out.push_str(&format!("{VIEW_DIR}/ is clean\n"));
            } else if changed.is_empty() {
                out.push_str(&format!("{VIEW_DIR}/: everything memory stores is saved\n"));
            } else {
                out.push_str(&format!(
                    "{VIEW_DIR}/ has changes not saved to memory (use `git rune save`):\n"
                ));
                for (name, s) in changed {
                    let label = match s {
                        FileState::Modified => "modified:",
                        FileState::Added => "added:   ",
                        FileState::Missing => "deleted: ",
                        FileState::Clean => "clean:   ",
                    };
                    out.push_str(&format!("  {label} {VIEW_DIR}/{name}\n"));
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
