//! Every file under `.rune/` that is not a view file: what it is (a document kept in memory,
//! a file of records, or local by design), its state against what was checked out, and its
//! checkout. Documents are kept whole (path + content, the latest writer per path wins) and
//! rendered in every clone; `checkpoint-<date>.resolved.md` archives and
//! `oracle-pending/<sessionId>.json` dispatches are records, rendered as `export rune-dir`
//! writes them and read back as `import rune-dir` reads them; `artifacts/` and
//! `active-context.md` stay local (docs/storage.md).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Result;

use super::{put, remove_file, state_of, FileState, Manifest, Put, View, ViewError};
use crate::model::kinds::document::{self, RUNE_PREFIX};
use crate::model::kinds::Document;
use crate::model::{Body, Record, State};
use crate::view::{self, ViewFile};

/// Where a file under `.rune/` belongs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// A view file.
    View(ViewFile),
    /// A resolved checkpoint or an oracle dispatch: records, in the seed's file form.
    Records,
    /// A document: kept whole in memory.
    Document,
    /// Local by design: never stored (why).
    Local(&'static str),
    /// git-rune's own temporary files: not the user's.
    Ignored,
}

/// The folder of local folded tool output (seed 001's artifacts).
pub const ARTIFACTS: &str = "artifacts/";
/// The behavioural mode of the running session (seed 001).
pub const ACTIVE_CONTEXT: &str = "active-context.md";

/// The text a document's file shows: its `content`, or the placeholder when the gate withholds
/// it, which holds none of its text (saving the file unchanged changes nothing).
pub fn document_text<'a>(
    r: &Record,
    content: &'a str,
    withhold: view::Withhold<'_>,
) -> Cow<'a, str> {
    if withhold(r) {
        Cow::Owned(format!("> {}\n", crate::integrity::gate::placeholder(r)))
    } else {
        Cow::Borrowed(content)
    }
}

/// What the file at `rel` (relative to `.rune/`, `/`-separated) is.
pub fn place(rel: &str) -> Place {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    if name.starts_with('.') && name.contains(".tmp-") {
        return Place::Ignored;
    }
    if let Some(f) = ViewFile::from_name(rel) {
        return Place::View(f);
    }
    if rel.starts_with(ARTIFACTS) {
        return Place::Local("folded tool output of this clone's sessions");
    }
    if rel == ACTIVE_CONTEXT {
        return Place::Local("the behavioural mode of this clone's session");
    }
    if is_records_file(rel) {
        return Place::Records;
    }
    Place::Document
}

/// `checkpoint-<date>.resolved.md` or `oracle-pending/<sessionId>.json`.
pub fn is_records_file(rel: &str) -> bool {
    let archive = rel
        .strip_prefix("checkpoint-")
        .is_some_and(|r| r.ends_with(".resolved.md") && !r.contains('/'));
    let oracle = rel
        .strip_prefix("oracle-pending/")
        .is_some_and(|r| r.ends_with(".json") && !r.contains('/'));
    archive || oracle
}

/// A file memory does not store, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unstored {
    /// Relative to `.rune/`; a folder ends with `/`.
    pub path: String,
    pub why: String,
    /// Local by design (artifacts) rather than refused (binary, too large).
    pub by_design: bool,
}

/// Every file under `.rune/` that is not a view file, with its state; and what is not stored.
#[derive(Debug, Default)]
pub struct Scan {
    /// Documents and record files: on disk or in the manifest.
    pub files: Vec<(String, Place, FileState)>,
    pub unstored: Vec<Unstored>,
}

/// Every file under `dir` (relative, `/`-separated, sorted); unreadable folders are skipped.
pub fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), String::new())];
    while let Some((path, prefix)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&path) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let rel = format!("{prefix}{name}");
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push((e.path(), format!("{rel}/"))),
                Ok(t) if t.is_file() => out.push(rel),
                _ => {}
            }
        }
    }
    out.sort();
    out
}

impl View {
    /// The state of every document and record file, and the files not stored.
    pub fn scan_documents(&self, manifest: &Manifest) -> Scan {
        let mut scan = Scan::default();
        let mut artifacts = 0usize;
        let on_disk = walk(&self.dir);
        for rel in &on_disk {
            match place(rel) {
                Place::View(_) | Place::Ignored => {}
                Place::Local(_) if rel.starts_with(ARTIFACTS) => artifacts += 1,
                Place::Local(why) => scan.unstored.push(Unstored {
                    path: rel.clone(),
                    why: why.to_owned(),
                    by_design: true,
                }),
                p @ (Place::Document | Place::Records) => {
                    if p == Place::Document {
                        if let Some(why) = self.refused(rel) {
                            scan.unstored.push(Unstored {
                                path: rel.clone(),
                                why,
                                by_design: false,
                            });
                            continue;
                        }
                    }
                    let state = self.document_state(manifest, rel);
                    scan.files.push((rel.clone(), p, state));
                }
            }
        }
        if artifacts > 0 {
            scan.unstored.push(Unstored {
                path: ARTIFACTS.to_owned(),
                why: format!(
                    "{artifacts} file{} of folded tool output, local to this clone",
                    if artifacts == 1 { "" } else { "s" }
                ),
                by_design: true,
            });
        }
        // Checked out, then deleted.
        for rel in manifest.documents.keys() {
            if !on_disk.contains(rel) {
                let state = self.document_state(manifest, rel);
                if state != FileState::Clean {
                    scan.files.push((rel.clone(), place(rel), state));
                }
            }
        }
        scan.files.sort_by(|a, b| a.0.cmp(&b.0));
        scan
    }

    /// Why a document file cannot be kept in memory (binary, too large), if it cannot.
    pub fn refused(&self, rel: &str) -> Option<String> {
        let path = self.dir.join(rel);
        let len = std::fs::metadata(&path).ok()?.len();
        if len as usize > document::MAX_DOCUMENT_BYTES {
            return Some(format!(
                "{} KiB: memory keeps documents of up to {} KiB; keep it outside .rune/ (or split it)",
                len.div_ceil(1024),
                document::MAX_DOCUMENT_BYTES / 1024
            ));
        }
        let data = std::fs::read(&path).ok()?;
        document::content_problem(&data)
            .map(|why| format!("{why}: memory keeps text only; keep it outside .rune/"))
    }

    /// One document's state against the manifest.
    pub fn document_state(&self, manifest: &Manifest, rel: &str) -> FileState {
        state_of(
            self.hash(),
            manifest.documents.get(rel),
            &self.dir.join(rel),
        )
    }

    /// Writes every live document under `.rune/` (frames aside) and every record file of the
    /// state, removes those that are gone, and records them in the manifest; files with unsaved
    /// edits are left as they are (returned). `force`: files whose edits were just saved.
    pub(super) fn render_documents(
        &self,
        manifest: &mut Manifest,
        state: &State,
        records: &[(String, String)],
        refname_of: &dyn Fn(Place) -> (String, Option<String>),
        force: &[String],
        withhold: view::Withhold<'_>,
    ) -> Result<Vec<String>, ViewError> {
        let mut want: BTreeMap<String, (Place, Cow<'_, str>)> = BTreeMap::new();
        for r in &state.documents {
            if let Body::Document(Document { path, content }) = &r.body {
                if view::is_frame_path(path) {
                    continue;
                }
                if let Some(rel) = path.strip_prefix(RUNE_PREFIX) {
                    if place(rel) == Place::Document {
                        let text = document_text(r, content, withhold);
                        want.insert(rel.to_owned(), (Place::Document, text));
                    }
                }
            }
        }
        for (rel, text) in records {
            want.insert(rel.clone(), (Place::Records, Cow::Borrowed(text)));
        }
        let mut kept = Vec::new();
        let old: Vec<String> = manifest.documents.keys().cloned().collect();
        for rel in old {
            if want.contains_key(&rel) {
                continue;
            }
            let state = self.document_state(manifest, &rel);
            if matches!(state, FileState::Modified) && !force.contains(&rel) {
                kept.push(rel);
                continue;
            }
            remove_file(&self.dir.join(&rel))?;
            manifest.documents.remove(&rel);
        }
        for (rel, (p, text)) in want {
            let state = self.document_state(manifest, &rel);
            // A document deleted by hand stays deleted until `save` deletes it from memory
            // (or `restore` brings it back); a record file comes back, as a view file does.
            let how = (force.contains(&rel), p == Place::Document);
            let (refname, base) = refname_of(p);
            match put(&self.dir.join(&rel), &text, state, how, (&refname, base))? {
                Put::Kept => kept.push(rel),
                Put::Same(e) | Put::Written(e) | Put::Removed(e) => {
                    manifest.documents.insert(rel, e);
                }
            }
        }
        Ok(kept)
    }
}
