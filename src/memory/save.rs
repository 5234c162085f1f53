//! Saving the view: edited `.rune/` files are parsed back, diffed against the records they
//! were checked out from, sealed, and committed with the session record; then the saved
//! files are re-rendered. Nothing is written unless every edited file parses and seals.
//! Past 600 lines: one save's steps in order (read, parse, seal, one transaction, checkout); `parse_file` and `Theirs` could move to a file of their own.

use std::collections::{BTreeMap, HashMap, HashSet};

use anyhow::Result;

use super::saved::{fill_file_blobs, git_state, seal_session};
pub use super::saved::{Companion, Drafting, SaveOptions, Saved, DEFAULT_SUMMARY};
use super::seal::{SealError, Sealed, Sealer};
use super::view_dir::documents::{Place, Scan};
use super::view_dir::{FileState, Manifest, View, VIEW_DIR};
use super::Snapshot;
use crate::error;
use crate::model::kinds::document::RUNE_PREFIX;
use crate::model::kinds::{
    Checkpoint, ContextBlock, Delete, Document, Instinct, Learning, Resolve, Session, Task,
};
use crate::model::{self, fold, Body, Draft, GitState, Kind, Record};
use crate::secrets;
use crate::store::{ObjectId, Store, MEMORY_REF};
use crate::view::{self, ViewFile};

/// The sealed drafts parsed from one edited file.
struct Edited {
    file: ViewFile,
    refname: String,
    /// Blob id of the text that was parsed, to notice edits made while the save runs.
    blob: String,
    base_ids: HashSet<String>,
    drafts: Vec<Sealed>,
    /// The file's frame document (or its tombstone), which goes to memory.
    frame: Vec<Sealed>,
    /// Entries refused (a secret, a broken field): `file:line: why`. The others are saved,
    /// and the file is left as written so the refused ones are not lost.
    refused: Vec<String>,
}

/// The session summary of a save without `-m`: which view files were edited.
fn edited_summary(edited: &[Edited], documents: &[SavedDocument]) -> String {
    let mut files: Vec<String> = edited
        .iter()
        .filter(|e| !e.drafts.is_empty())
        .map(|e| format!("{VIEW_DIR}/{}", e.file.name()))
        .collect();
    files.dedup();
    files.extend(documents.iter().map(|d| format!("{VIEW_DIR}/{}", d.rel)));
    if files.is_empty() {
        DEFAULT_SUMMARY.to_owned()
    } else {
        format!("edited {}", files.join(", "))
    }
}

/// Saves the view's edits and records the session as the summary (or which files were
/// edited).
/// With no edits and no summary nothing is written (the view is still refreshed).
/// A failure is remembered (`save_failure`) for the next session start, `status` and `load`
/// to report until a save succeeds.
/// `also`: another directory's edits ([`Companion`]: the echoes directory) in the same memory
/// commit: every edit of both lands together, or none does (docs/storage.md, "One save").
pub fn save(
    store: &Store,
    sealer: &mut Sealer,
    opts: SaveOptions<'_>,
    also: Option<&mut dyn Companion>,
) -> Result<Saved> {
    let result = save_view(store, sealer, opts, also);
    match &result {
        Ok(s) if !s.refused.is_empty() => {
            super::save_failure::record_partial(store.git_dir(), &store.now(), &s.refused)
        }
        Ok(_) => super::save_failure::clear(store.git_dir()),
        Err(e) => super::save_failure::record(store.git_dir(), &store.now(), e),
    }
    result
}

fn save_view(
    store: &Store,
    sealer: &mut Sealer,
    opts: SaveOptions<'_>,
    also: Option<&mut dyn Companion>,
) -> Result<Saved> {
    // A file where `.rune/` goes would fail the checkout after the commit: refused first.
    super::write::check_view_writable(store)?;
    let view = View::open(store);
    // Held from reading the view to re-rendering it: no other process renders in between, so
    // each file is diffed against the base it was rendered from.
    let guard = view.as_ref().map(View::lock).transpose()?;
    // The other directory is read first: a file of either that does not read back stops the
    // save with nothing written.
    let mut also = match (also, &view) {
        (Some(c), Some(_)) => c.prepare(store, sealer)?.then_some(c),
        _ => None,
    };
    if let (Some(view), Some(guard), None) = (&view, &guard, &also) {
        let manifest = view.manifest();
        if let Some(saved) = super::save_tail::save(store, sealer, opts, view, guard, &manifest)? {
            return Ok(saved);
        }
    }
    let mut saved = Saved::default();
    let manifest = view.as_ref().map(View::manifest).unwrap_or_default();
    // The other files under .rune/: the seed's record files are planned as `import rune-dir`
    // reads them, and go first in the one transaction; documents are saved with the rest.
    let scan = view
        .as_ref()
        .map(|v| v.scan_documents(&manifest))
        .unwrap_or_default();
    let mut imports = None;
    if let Some(view) = &view {
        let inputs: Vec<(String, Vec<u8>)> = scan
            .files
            .iter()
            .filter(|(_, p, s)| {
                *p == Place::Records && matches!(s, FileState::Modified | FileState::Added)
            })
            .filter_map(|(rel, _, _)| Some((rel.clone(), std::fs::read(view.dir.join(rel)).ok()?)))
            .collect();
        if !inputs.is_empty() {
            saved.record_files = inputs.iter().map(|(n, _)| n.clone()).collect();
            imports = Some(super::rune_dir::plan_view_files(store, sealer, inputs)?);
        }
    }
    saved.unstored = scan.unstored.clone();
    let documents = seal_documents(view.as_ref(), &scan, sealer)?;
    let snap = Snapshot::read(store)?;
    let verdicts = super::cache::gate::verdicts(store, &snap)?;
    let mut git = None;

    let mut edited = Vec::new();
    if let Some(view) = &view {
        for (file, state) in view.states(&manifest) {
            let ctx = FileCtx {
                store,
                snap: &snap,
                view,
                manifest: &manifest,
                file,
                allow_delete: opts.allow_delete,
            };
            match state {
                // A file that says what the refs say now holds no edit (a view that was
                // merely behind, or a checkout cut short).
                FileState::Modified | FileState::Added
                    if says_what_refs_say(view, &snap, &verdicts, file) => {}
                FileState::Modified | FileState::Added => {
                    edited.push(parse_file(&ctx, sealer, &mut git, None)?)
                }
                // Deleting checkpoint.md (or renaming it to checkpoint-<date>.resolved.md, as
                // the seed does) resolves the checkpoint; it stays in history.
                FileState::Missing if file == ViewFile::Checkpoint => {
                    saved.resolved_checkpoint = true;
                    edited.push(parse_file(&ctx, sealer, &mut git, Some(String::new()))?)
                }
                FileState::Missing => saved.restored.push(file),
                FileState::Clean => {}
            }
        }
    }

    for e in &edited {
        if e.file.scope() == model::Scope::Branch
            && e.refname != snap.branch_ref
            && !e.drafts.is_empty()
        {
            saved.elsewhere.push((e.file, e.refname.clone()));
        }
    }
    saved.refused = edited.iter().flat_map(|e| e.refused.clone()).collect();
    // Files left as written on purpose (a refused entry), not edited while saving.
    let refused_files: Vec<ViewFile> = edited
        .iter()
        .filter(|e| !e.refused.is_empty())
        .map(|e| e.file)
        .collect();
    split_frames(&mut edited);
    let summary = opts.summary.map(str::trim).filter(|m| !m.is_empty());
    // Without edits in .rune/ nor a summary, no session is recorded.
    let no_session =
        summary.is_none() && edited.iter().all(|e| e.drafts.is_empty()) && documents.is_empty();
    if no_session {
        saved.nothing = saved.record_files.is_empty();
    }
    if no_session && also.is_none() && imports.is_none() {
        if let (Some(view), Some(guard)) = (&view, &guard) {
            saved.kept = view
                .checkout_saved(guard, store, &[], &saved.record_files)?
                .kept;
            saved.kept.retain(|f| !refused_files.contains(f));
        }
        return Ok(saved);
    }
    // Without -m the session says what was edited: a bare "session saved" would bury the
    // real summaries in the session log.
    let summary = match summary {
        Some(s) => s.to_owned(),
        None => edited_summary(&edited, &documents),
    };
    let mut session_git = opts.session_git.cloned().or(git);
    let session = match no_session {
        true => None,
        false => Some(seal_session(store, sealer, summary, &mut session_git)?),
    };
    // The summary also becomes the commit message: use the filtered text, and never the
    // text of a session the gate will withhold (the writer is told its record is TAINTED).
    if let Some(s) = &session {
        saved.summary = match crate::integrity::gate::body_withheld(s.body()) {
            true => crate::integrity::gate::WITHHELD_SUMMARY.to_owned(),
            false => s.body().title().to_owned(),
        };
    }

    // Group by ref: memory first, then branch refs; the session goes to the current branch.
    let mut by_ref: BTreeMap<(u8, String), Vec<usize>> = BTreeMap::new();
    for (i, e) in edited.iter().enumerate() {
        let order = u8::from(e.refname != MEMORY_REF);
        by_ref
            .entry((order, e.refname.clone()))
            .or_default()
            .push(i);
    }
    if session.is_some() {
        by_ref.entry((1, snap.branch_ref.clone())).or_default();
    }
    if !documents.is_empty() || also.is_some() {
        by_ref.entry((0, MEMORY_REF.to_owned())).or_default();
    }
    if let Some(plan) = &imports {
        for (g, refname) in plan.refs.iter().enumerate() {
            if plan.touches(g) {
                by_ref
                    .entry((u8::from(g == 1), refname.clone()))
                    .or_default();
            }
        }
    }

    // Every ref moves in one ref transaction: a crash or a lost race never leaves the memory
    // saved without the session (or the reverse).
    let groups: Vec<(&String, &Vec<usize>)> = by_ref.iter().map(|((_, r), m)| (r, m)).collect();
    let summaries: Vec<String> = groups
        .iter()
        .map(|(refname, members)| {
            if **refname == snap.branch_ref && session.is_some() {
                return saved.summary.clone();
            }
            let mut names: Vec<String> = members
                .iter()
                .map(|&i| edited[i].file.name().to_owned())
                .collect();
            names.dedup();
            if let Some(plan) = imports.as_ref() {
                let g = usize::from(**refname != MEMORY_REF);
                if plan.refs[g] == **refname && plan.touches(g) {
                    names.extend(saved.record_files.iter().cloned());
                }
            }
            if **refname == MEMORY_REF {
                names.extend(also.as_ref().map(|c| c.label()));
            }
            crate::integrity::gate::gated_summary(&format!("save: {}", names.join(", ")))
        })
        .collect();
    let refs: Vec<(&str, &str)> = groups
        .iter()
        .zip(&summaries)
        .map(|((r, _), s)| (r.as_str(), s.as_str()))
        .collect();
    // The other directory's records, last in memory's commit (not counted as .rune/'s).
    let mut theirs = 0;
    let commits = store.commit_all(&refs, |g, current: &[Record]| {
        let (refname, members) = groups[g];
        let with_session = *refname == snap.branch_ref;
        let state = fold(current);
        let mut out = Vec::new();
        // The seed's record files first: a resolve there names a record by its place.
        if let Some(plan) = imports.as_mut() {
            let g = usize::from(*refname != MEMORY_REF);
            if plan.refs[g] == *refname {
                out.extend(plan.drafts(store, sealer, g, current)?);
            }
        }
        for &i in members {
            let e = &edited[i];
            let mut theirs = Theirs::new(&state, &e.base_ids);
            for d in &e.drafts {
                if !theirs.has(d.draft()) {
                    out.push(d.clone());
                }
            }
        }
        if *refname == MEMORY_REF {
            let paths = documents
                .iter()
                .map(|d| (format!("{RUNE_PREFIX}{}", d.rel), d.sealed.as_ref()));
            out.extend(document_drafts(&state, paths)?);
            if let Some(c) = also.as_mut() {
                let ctx = super::saved::Drafting {
                    store,
                    current,
                    state: &state,
                    at: out.len(),
                };
                let more = c.drafts(ctx, sealer)?;
                theirs = more.len();
                out.extend(more);
            }
        }
        if let (true, Some(s)) = (with_session, &session) {
            out.push(s.clone());
        }
        Ok::<_, anyhow::Error>(out)
    })?;
    let mut saved_files = Vec::new();
    for (((refname, members), summary), commit) in groups.iter().zip(summaries).zip(commits) {
        let with_session = **refname == snap.branch_ref && session.is_some();
        if let Some(c) = commit {
            saved.records.extend(c.records.iter().cloned());
            let ours = match **refname == MEMORY_REF {
                true => c.records.len().saturating_sub(theirs),
                false => c.records.len(),
            };
            for r in &c.records[..ours] {
                match (&r.body, r.meta.supersedes.is_empty()) {
                    // The session this save records is reported on its own line.
                    (Body::Session(Session { .. }), _)
                        if with_session && r.id == c.records[c.records.len() - 1].id => {}
                    (Body::Delete(Delete { targets }), _) => saved.removed += targets.len(),
                    (Body::Resolve(Resolve { .. }), _) => saved.removed += 1,
                    (_, true) => saved.added += 1,
                    (_, false) => saved.changed += 1,
                }
            }
            saved.commits.push(((*refname).clone(), c.id, summary));
        }
        // A file with a refused entry is left as written (not rendered over).
        saved_files.extend(
            members
                .iter()
                .filter(|&&i| edited[i].refused.is_empty())
                .map(|&i| (edited[i].file, edited[i].blob.clone())),
        );
    }
    saved.files = edited.iter().map(|e| e.file).collect();
    saved.files.dedup();
    for d in &documents {
        match d.sealed {
            Some(_) => saved.documents.push(d.rel.clone()),
            None => saved.documents_removed.push(d.rel.clone()),
        }
    }

    if let (Some(view), Some(guard)) = (&view, &guard) {
        // Re-render saved files, unless they were edited again while we ran.
        let force: Vec<ViewFile> = saved_files
            .iter()
            .filter(|(f, blob)| view.blob_of(&view.path(*f)).as_deref() == Some(blob.as_str()))
            .map(|(f, _)| *f)
            .collect();
        let mut documents = saved.record_files.clone();
        documents.extend(saved.documents.iter().cloned());
        saved.kept = view.checkout_saved(guard, store, &force, &documents)?.kept;
        saved.kept.retain(|f| !refused_files.contains(f));
        if let Some(c) = also {
            c.finish(store, guard)?;
        }
    }
    Ok(saved)
}

/// Saves another directory's edits alone ([`Companion`]; `echo consolidate`): one memory
/// commit, then `.rune/` and that directory brought up to date, under the one lock.
pub fn save_companion(
    store: &Store,
    sealer: &mut Sealer,
    also: &mut dyn Companion,
) -> Result<Option<super::write::Written>> {
    let Some(view) = View::open(store) else {
        return Ok(None);
    };
    let guard = view.lock()?;
    if !also.prepare(store, sealer)? {
        return Ok(None);
    }
    let summary = crate::integrity::gate::gated_summary(&format!("save: {}", also.label()));
    let commit = store.commit(MEMORY_REF, &summary, |current: &[Record]| {
        let ctx = super::saved::Drafting {
            store,
            current,
            state: &fold(current),
            at: 0,
        };
        also.drafts(ctx, sealer)
    })?;
    let written = match commit {
        Some(c) => {
            let refresh = view.checkout_saved(&guard, store, &[], &[])?;
            Some(super::write::Written {
                refname: MEMORY_REF.to_owned(),
                commit: c.id,
                summary,
                records: c.records,
                view: Some(refresh),
            })
        }
        None => None,
    };
    also.finish(store, &guard)?;
    Ok(written)
}

/// A document of the view to save: its path inside `.rune/`, and its sealed content (`None`:
/// deleted by hand, so deleted from memory).
struct SavedDocument {
    rel: String,
    sealed: Option<Sealed>,
}

/// Reads and seals the documents edited, added or deleted in the view.
fn seal_documents(
    view: Option<&View>,
    scan: &Scan,
    sealer: &mut Sealer,
) -> Result<Vec<SavedDocument>> {
    let Some(view) = view else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for (rel, place, state) in &scan.files {
        if *place != Place::Document || *state == FileState::Clean {
            continue;
        }
        let shown = format!("{VIEW_DIR}/{rel}");
        let sealed = match state {
            FileState::Missing => None,
            _ => {
                let Ok(text) = std::fs::read_to_string(view.dir.join(rel)) else {
                    continue;
                };
                Some(seal_document(
                    sealer,
                    format!("{RUNE_PREFIX}{rel}"),
                    text,
                    &shown,
                )?)
            }
        };
        out.push(SavedDocument {
            rel: rel.clone(),
            sealed,
        });
    }
    Ok(out)
}

/// A document read from the file shown as `shown`, sealed (a secret or a broken field is
/// refused naming its line, and the save stops with nothing written).
pub fn seal_document(
    sealer: &mut Sealer,
    path: String,
    text: String,
    shown: &str,
) -> Result<Sealed> {
    let draft = Draft::new(Body::Document(Document {
        path: path.clone(),
        content: text.clone(),
    }));
    sealer.seal_in(draft, shown, &text).map_err(|err| match err {
        SealError::Invalid { error, .. } => error::data(
            format!("{shown}: {error}"),
            format!("fix {shown} (or move it out of its directory) and run `git rune save` again; nothing was saved"),
        ),
        other => other.into(),
    })
}

/// The records that make memory hold these documents (memory path, sealed content; `None`:
/// deleted by hand), against the state at commit time: each replaces the live document of its
/// path (none when it says the same), and a deleted one is tombstoned.
pub fn document_drafts<'a>(
    state: &model::State,
    documents: impl IntoIterator<Item = (String, Option<&'a Sealed>)>,
) -> Result<Vec<Sealed>> {
    let mut out = Vec::new();
    for (path, sealed) in documents {
        let live: Vec<&Record> = state
            .documents
            .iter()
            .filter(|r| r.body.title() == path)
            .collect();
        let ids: Vec<String> = live.iter().map(|r| r.id.clone()).collect();
        match sealed {
            Some(s) if live.iter().any(|r| r.body == *s.body()) => {}
            Some(s) => out.push(s.clone().superseding(ids)),
            None if ids.is_empty() => {}
            None => out.push(
                Sealer::new(false).seal_body(Body::Delete(Delete { targets: ids }), Vec::new())?,
            ),
        }
    }
    Ok(out)
}

/// Frames are documents, which live in memory: a memory file's go with its entries, a branch
/// file's in a group of their own for the memory ref.
fn split_frames(edited: &mut Vec<Edited>) {
    let mut more = Vec::new();
    for e in edited.iter_mut() {
        let frame = std::mem::take(&mut e.frame);
        if frame.is_empty() {
            continue;
        }
        if e.refname == MEMORY_REF {
            e.drafts.extend(frame);
        } else {
            more.push(Edited {
                file: e.file,
                refname: MEMORY_REF.to_owned(),
                blob: e.blob.clone(),
                base_ids: HashSet::new(),
                drafts: frame,
                frame: Vec::new(),
                refused: Vec::new(),
            });
        }
    }
    edited.extend(more);
}

/// Whether a view file's content is what the view renders from the refs now (SUSPICIOUS
/// records marked, as the checkout renders them).
fn says_what_refs_say(
    view: &View,
    snap: &Snapshot,
    verdicts: &crate::integrity::verdicts::Verdicts,
    file: ViewFile,
) -> bool {
    let mut marked = None;
    let state = match verdicts.marks() {
        false => &snap.state,
        true => marked.insert({
            let mut state = snap.state.clone();
            verdicts.mark(&mut state, false);
            state
        }),
    };
    let text = view::render(file, state, &|r| verdicts.withholds(r));
    let on_disk = std::fs::read(view.path(file)).ok();
    match on_disk {
        Some(data) => data == text.as_bytes(),
        None => text.is_empty(),
    }
}

/// What reading one view file needs.
struct FileCtx<'a> {
    store: &'a Store,
    snap: &'a Snapshot,
    view: &'a View,
    manifest: &'a Manifest,
    file: ViewFile,
    allow_delete: bool,
}

/// Reads, parses and diffs one edited view file against the state it was checked out from,
/// and seals what it says. `text` stands in for the file's content (a deleted checkpoint.md
/// reads as empty).
fn parse_file(
    ctx: &FileCtx<'_>,
    sealer: &mut Sealer,
    git: &mut Option<GitState>,
    text: Option<String>,
) -> Result<Edited> {
    let FileCtx {
        store,
        snap,
        view,
        manifest,
        file,
        allow_delete,
    } = *ctx;
    let path = view.path(file);
    let shown = format!("{VIEW_DIR}/{}", file.name());
    let nothing_saved = format!("fix {shown} and run `git rune save` again; nothing was saved and the file is as you left it");
    let data = match text {
        Some(t) => t.into_bytes(),
        None => std::fs::read(&path).map_err(|e| {
            error::environment(
                format!("cannot read {shown}: {}", error::io_text(&e)),
                nothing_saved.clone(),
            )
        })?,
    };
    let blob = super::view_dir::content_id(&data);
    let text = String::from_utf8(data).map_err(|e| {
        let line = 1 + e.as_bytes()[..e.utf8_error().valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        error::data(
            format!("{shown}:{line}: not valid UTF-8"),
            nothing_saved.clone(),
        )
    })?;
    let view::Framed {
        items: parsed,
        frame,
    } = view::parse_framed(file, &text).map_err(|e| {
        error::data(
            format!("{shown}:{}: {}", e.line, e.message),
            nothing_saved.clone(),
        )
    })?;

    let entry = manifest.files.get(file.name());
    let (refname, base_records) = match entry {
        Some(e) if !e.blob.is_empty() || e.base.is_some() => {
            let base = match &e.base {
                Some(id) => {
                    let oid = ObjectId::from_hex(id.as_bytes()).map_err(|_| {
                        error::data(
                            format!("the view manifest names a bad commit id {id:?}"),
                            error::run("init", " to check the view out again"),
                        )
                    })?;
                    store.records_at(&e.refname, oid)?
                }
                None => Default::default(),
            };
            (e.refname.clone(), base)
        }
        _ => {
            let (refname, _) = snap.scope_ref(file.scope());
            (refname.to_owned(), Default::default())
        }
    };
    let base_state = fold(base_records.iter());
    let base: Vec<Record> = if file.kind() == Kind::Checkpoint {
        base_state.open_checkpoint().cloned().into_iter().collect()
    } else {
        base_state.of_kind(file.kind()).to_vec()
    };
    let base_ids = base.iter().map(|r| r.id.clone()).collect();
    // A file that still has text but no entry, while memory has some, is a mass delete: most
    // likely a file overwritten by mistake.
    let entries = parsed.len();
    if entries == 0
        && !base.is_empty()
        && !text.trim().is_empty()
        && !allow_delete
        && file != ViewFile::Checkpoint
    {
        return Err(error::input(
            format!(
                "{shown} holds no entries, but memory has {}: saving it would delete them all",
                base.len()
            ),
            format!(
                "if that is what you want, empty the file completely or run `git rune save --allow-delete`; to get the entries back, run `git rune restore {}`",
                file.name()
            ),
        ));
    }
    let mut drafts = view::diff(file, &base, parsed);
    cover_groups(&mut drafts, &base_records);
    // The file's frame (its text outside the entries) is a document in memory.
    let base_frame = match file.scope() {
        model::Scope::Memory => view::frame_of(&base_state, file),
        // The memory it was rendered beside is not at hand: memory's frame now stands for it.
        model::Scope::Branch => view::frame_of(&snap.state, file),
    };
    let frame_drafts = view::frame_drafts(
        file,
        frame.as_deref(),
        view::frame_of(&snap.state, file),
        base_frame,
    );
    let mut sealed = Vec::with_capacity(drafts.len());
    let mut refused = Vec::new();
    // New tasks take the numbers after the highest this clone knows; two writers taking the
    // same one is settled by the fold (docs/storage.md).
    let mut next_task =
        model::task::next_number(&snap.state).max(model::task::next_number(&base_state));
    let (now, salt) = (store.now(), model::task::salt());
    for mut d in drafts {
        fill_file_blobs(store, &mut d.body);
        // An edit of a task the fold renumbered records its new number, claimed now.
        if d.supersedes
            .iter()
            .any(|id| snap.state.renumbered.contains(id))
        {
            if let Body::Task(Task { claimed, .. }) = &mut d.body {
                claimed.clear();
            }
        }
        model::task::complete(&mut d.body, &mut next_task, &now, &salt);
        // A context block edited in the view is updated now, unless the edit changed its
        // `Updated` line itself; one written without that line is stamped now.
        if let Body::ContextBlock(ContextBlock { updated, .. }) = &mut d.body {
            let before = d
                .supersedes
                .iter()
                .find_map(|id| base.iter().find(|r| &r.id == id))
                .and_then(|r| match &r.body {
                    Body::ContextBlock(ContextBlock { updated, .. }) => Some(updated.as_str()),
                    _ => None,
                });
            if updated.is_empty() || before == Some(updated.as_str()) {
                updated.clone_from(&now);
            }
        }
        // A checkpoint written in the view records the git state it was saved in, as the
        // CLI's does.
        if let Body::Checkpoint(Checkpoint { git: g @ None, .. }) = &mut d.body {
            *g = Some(git_state(store, git)?);
        }
        // A refused entry is reported with its line and left in the file; it never blocks
        // the file's other entries (nor, as a failed save would, every later save).
        let title_line = |title: &str| {
            let first = title.lines().next().unwrap_or_default();
            let at = if first.is_empty() {
                None
            } else {
                text.find(first)
            };
            at.map_or(String::new(), |at| {
                format!(":{}", secrets::line_of(&text, at))
            })
        };
        match sealer.seal_in(d, &shown, &text) {
            Ok(s) => sealed.push(s),
            Err(SealError::Invalid { title, error, .. }) => refused.push(format!(
                "{shown}{}: entry {title:?} was not saved: {error}",
                title_line(&title)
            )),
            Err(e @ SealError::Secret { .. }) => {
                refused.push(format!("{e}: the entry was not saved"))
            }
            Err(other) => return Err(other.into()),
        }
    }
    let frame_sealed = frame_drafts
        .into_iter()
        .map(|d| {
            let place = |field: &str, _: &str| format!("{shown} (its {field} outside the entries)");
            sealer.seal(d, &place).map_err(|err| match err {
                SealError::Invalid { error, .. } => error::data(
                    format!("{shown}: the text outside its entries: {error}"),
                    nothing_saved.clone(),
                ),
                other => other.into(),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Edited {
        file,
        refname,
        blob,
        base_ids,
        drafts: sealed,
        frame: frame_sealed,
        refused,
    })
}

/// A shown learning or instinct stands for every record of its group (type+key, name): an
/// edit or removal of it covers them all, or an older copy would reappear in its place.
fn cover_groups(drafts: &mut [Draft], base: &[Record]) {
    let group = |b: &Body| match b {
        Body::Learning(Learning { ltype, key, .. }) => Some(format!("learning\0{ltype}\0{key}")),
        Body::Instinct(Instinct { name, .. }) => Some(format!("instinct\0{name}")),
        _ => None,
    };
    let mut members: HashMap<String, Vec<&str>> = HashMap::new();
    let mut group_of: HashMap<&str, String> = HashMap::new();
    for r in base {
        if let Some(g) = group(&r.body) {
            members.entry(g.clone()).or_default().push(&r.id);
            group_of.insert(&r.id, g);
        }
    }
    let widen = |ids: &mut Vec<String>| {
        let mut extra: Vec<String> = ids
            .iter()
            .filter_map(|id| group_of.get(id.as_str()))
            .flat_map(|g| members[g].iter().map(|m| m.to_string()))
            .filter(|m| !ids.contains(m))
            .collect();
        extra.sort();
        extra.dedup();
        ids.extend(extra);
    };
    for d in drafts {
        widen(&mut d.supersedes);
        if let Body::Delete(Delete { targets }) = &mut d.body {
            widen(targets);
        }
    }
}

/// What other processes added since a view file's base (records not in `base_ids`), as the
/// view shows them, per kind: made once per kind and file, so checking an addition costs the
/// same whatever memory holds (once per addition it was additions × records).
struct Theirs<'a> {
    state: &'a model::State,
    base_ids: &'a HashSet<String>,
    shown: HashMap<Kind, Vec<Body>>,
}

impl<'a> Theirs<'a> {
    fn new(state: &'a model::State, base_ids: &'a HashSet<String>) -> Theirs<'a> {
        Theirs {
            state,
            base_ids,
            shown: HashMap::new(),
        }
    }

    /// Whether `d` is an addition another process already made (same visible content, not
    /// in our base).
    fn has(&mut self, d: &Draft) -> bool {
        if !d.supersedes.is_empty() || matches!(d.body.kind(), Kind::Delete | Kind::Resolve) {
            return false;
        }
        let (state, base_ids) = (self.state, self.base_ids);
        self.shown
            .entry(d.body.kind())
            .or_insert_with(|| {
                state
                    .of_kind(d.body.kind())
                    .iter()
                    .filter(|r| !base_ids.contains(&r.id))
                    .map(|r| view::visible(&r.body))
                    .collect()
            })
            .contains(&view::visible(&d.body))
    }
}
