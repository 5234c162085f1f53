//! `save` when the only edit is entries written at the end of `learnings.jsonl` (an agent
//! appending lines, an import of a log) and memory has not moved since the view was
//! rendered: only the new lines are read, parsed and sealed, the records are appended to the
//! refs without reading theirs, and the view is brought up to date by appending. The result
//! is the one the whole save gives (the rendered text before the new lines pairs with every
//! record shown, so each new line is an addition, and no other process added anything to
//! compare them with); anything else returns `None` having written nothing, and the whole
//! save runs.

use anyhow::Result;

use super::saved::{fill_file_blobs, seal_session, SaveOptions, Saved, DEFAULT_SUMMARY};
use super::seal::{SealError, Sealer};
use super::view_dir::{
    content_id, id_names, FileState, Manifest, SavedTail, View, ViewLock, VIEW_DIR,
};
use super::Wrote;
use crate::error;
use crate::files::stat_of;
use crate::model::{GitState, Kind};
use crate::secrets;
use crate::store::{ObjectId, Store, MEMORY_REF};
use crate::view::{self, ViewFile};

const FILE: ViewFile = ViewFile::Learnings;

pub(super) fn save(
    store: &Store,
    sealer: &mut Sealer,
    opts: SaveOptions<'_>,
    view: &View,
    guard: &ViewLock,
    manifest: &Manifest,
) -> Result<Option<Saved>> {
    // Every other file as rendered (this one is read below).
    if ViewFile::ALL
        .iter()
        .any(|&f| f != FILE && view.file_state(manifest, f) != FileState::Clean)
    {
        return Ok(None);
    }
    // Nor any other file under .rune/ (documents, the seed's record files).
    if view
        .scan_documents(manifest)
        .files
        .iter()
        .any(|(_, _, s)| *s != FileState::Clean)
    {
        return Ok(None);
    }
    let Some(entry) = manifest.files.get(FILE.name()) else {
        return Ok(None);
    };
    // The commit the file was rendered from is memory's tip: nobody added anything since.
    let Some(Ok(base)) = entry
        .base
        .as_deref()
        .map(|b| ObjectId::from_hex(b.as_bytes()))
    else {
        return Ok(None);
    };
    let memory_tip = store.tip(MEMORY_REF)?;
    if entry.refname != MEMORY_REF || memory_tip.map(|t| t.commit) != Some(base) {
        return Ok(None);
    }
    let path = view.path(FILE);
    // Taken before the file is read: if it changes after, its stat will not match.
    let stat = stat_of(&path);
    let Ok(data) = std::fs::read(&path) else {
        return Ok(None);
    };
    let prefix = match (&entry.stat, entry.blob.is_empty()) {
        (_, true) => 0,
        (Some((len, _)), false) => *len as usize,
        (None, false) => return Ok(None),
    };
    if data.len() <= prefix
        || (prefix > 0 && data[prefix - 1] != b'\n')
        || (prefix > 0 && !id_names(&entry.blob, &data[..prefix]))
    {
        return Ok(None);
    }
    // Errors are reported by the whole save, with lines counted from the top.
    let Ok(tail) = std::str::from_utf8(&data[prefix..]) else {
        return Ok(None);
    };
    let Ok(parsed) = view::parse(FILE, tail) else {
        return Ok(None);
    };
    let drafts = view::diff(FILE, &[], parsed);
    if drafts.is_empty()
        || drafts
            .iter()
            .any(|d| !d.supersedes.is_empty() || d.body.kind() != Kind::Learning)
    {
        return Ok(None);
    }

    let shown = format!("{VIEW_DIR}/{}", FILE.name());
    let lines_before = || 1 + data[..prefix].iter().filter(|&&b| b == b'\n').count();
    // Sealed by a sealer of its own: what it redacts counts only if this path writes.
    let mut mine = Sealer::new(sealer.redacts());
    let mut sealed = Vec::with_capacity(drafts.len());
    for mut d in drafts {
        fill_file_blobs(store, &mut d.body);
        let place = |field: &str, secret: &str| {
            let at = tail.find(secret).unwrap_or(0);
            let line = lines_before() + secrets::line_of(tail, at) - 1;
            format!("{shown}:{line} (field `{field}`)")
        };
        sealed.push(mine.seal(d, &place).map_err(|err| match err {
            SealError::Invalid { title, error, .. } => error::input(
                format!("{shown}: entry {title:?}: {error}"),
                format!("fix {shown} and run `git rune save` again; nothing was saved and the file is as you left it"),
            ),
            other => other.into(),
        })?);
    }
    let summary = match opts.summary.map(str::trim).filter(|m| !m.is_empty()) {
        Some(s) => s.to_owned(),
        None if sealed.is_empty() => DEFAULT_SUMMARY.to_owned(),
        None => format!("edited {shown}"),
    };
    let mut git: Option<GitState> = opts.session_git.cloned();
    let session = seal_session(store, &mut mine, summary, &mut git)?;
    let head = store.head_info()?;
    let branch_ref = crate::store::branch_ref(head.branch.as_deref());
    let branch_tip = store.tip(&branch_ref)?;
    let memory_summary = format!("save: {}", FILE.name());
    let added = sealed.len();
    let title = session.body().title().to_owned();
    let Some(commits) = store.append_at(&[
        (MEMORY_REF, memory_summary.as_str(), memory_tip, sealed),
        (
            branch_ref.as_str(),
            title.as_str(),
            branch_tip,
            vec![session],
        ),
    ])?
    else {
        return Ok(None);
    };
    sealer.absorb(mine);
    let mut saved = Saved {
        files: vec![FILE],
        added,
        summary: title.clone(),
        ..Saved::default()
    };
    let mut wrote = Vec::new();
    for ((name, summary, tip), commit) in [
        (MEMORY_REF.to_owned(), memory_summary, memory_tip),
        (branch_ref, title, branch_tip),
    ]
    .into_iter()
    .zip(commits)
    {
        if let Some(c) = commit {
            saved.commits.push((name.clone(), c.id, summary));
            wrote.push(Wrote {
                to: store.tip_of(&name, c.id)?.tree,
                refname: name,
                from: tip.map(|t| t.tree),
                records: c.records,
            });
        }
    }
    let tail = SavedTail {
        file: FILE,
        prefix,
        stat,
    };
    saved.kept = match view.checkout_saved_tail(guard, store, &tail, &wrote)? {
        Some(refresh) => refresh.kept,
        None => {
            // Edited again while we ran: kept as it is; otherwise rendered in full.
            let force: Vec<ViewFile> = (view.blob_of(&path) == Some(content_id(&data)))
                .then_some(FILE)
                .into_iter()
                .collect();
            view.checkout_saved(guard, store, &force, &[])?.kept
        }
    };
    Ok(Some(saved))
}
