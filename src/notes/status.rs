//! `status`: the view's files against what was checked out, and how the code drifted since
//! the last save — for `git rune status` and the MCP server's `memory_status`.

use anyhow::Result;

use super::carriers::drift_for;
use crate::drift::Drift;
use crate::memory::cache;
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
    pub drift: Drift,
}

pub fn status(store: &Store) -> Result<Status> {
    let head = store.head_info()?;
    let branch_ref = branch_ref(head.branch.as_deref());
    let (memory, branch) = (store.tip(MEMORY_REF)?, store.tip(&branch_ref)?);
    // Drift reads the records naming files and the last session: the digest holds them.
    let digest = cache::digest::digest(store, &head, &branch_ref, memory, branch)?;
    let view = View::open(store);
    let states = match &view {
        Some(v) => v.states(&v.manifest()),
        None => Vec::new(),
    };
    let drift = drift_for(store, &head, &digest.drift_state(), &branch_ref, false)?;
    Ok(Status {
        head,
        bare: view.is_none(),
        view: states,
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
            let changed: Vec<_> = self
                .view
                .iter()
                .filter(|(_, s)| *s != FileState::Clean)
                .collect();
            if changed.is_empty() {
                out.push_str(&format!("{VIEW_DIR}/ is clean\n"));
            } else {
                out.push_str(&format!(
                    "{VIEW_DIR}/ has changes not saved to memory (use `git rune save`):\n"
                ));
                for (f, s) in changed {
                    let label = match s {
                        FileState::Modified => "modified:",
                        FileState::Added => "added:   ",
                        FileState::Missing => "missing: ",
                        FileState::Clean => "clean:   ",
                    };
                    out.push_str(&format!("  {label} {VIEW_DIR}/{}\n", f.name()));
                }
            }
        }
        out.push_str(&self.drift.text());
        out
    }
}
