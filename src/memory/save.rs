//! Saving the view: edited `.rune/` files are parsed back, diffed against the records they
//! were checked out from, sealed, and committed with the session record; then the saved
//! files are re-rendered. Nothing is written unless every edited file parses and seals.

use std::collections::{BTreeMap, HashMap, HashSet};

use anyhow::Result;

use super::saved::{fill_file_blobs, git_state, seal_session};
pub use super::saved::{SaveOptions, Saved, DEFAULT_SUMMARY};
use super::seal::{SealError, Sealed, Sealer};
use super::view_dir::{FileState, Manifest, View, VIEW_DIR};
use super::Snapshot;
use crate::error::user_error;
use crate::model::kinds::{
    Checkpoint, ContextBlock, Delete, Instinct, Learning, Resolve, Session, Task,
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
}

/// The session summary of a save without `-m`: which view files were edited.
fn edited_summary(edited: &[Edited]) -> String {
    let files: Vec<String> = edited
        .iter()
        .filter(|e| !e.drafts.is_empty())
        .map(|e| format!("{VIEW_DIR}/{}", e.file.name()))
        .collect();
    if files.is_empty() {
        DEFAULT_SUMMARY.to_owned()
    } else {
        format!("edited {}", files.join(", "))
    }
}

/// Saves the view's edits and records the session as the summary (or which files were
/// edited).
/// With no edits and no summary nothing is written (the view is still refreshed).
pub fn save(store: &Store, sealer: &mut Sealer, opts: SaveOptions<'_>) -> Result<Saved> {
    let view = View::open(store);
    // Held from reading the view to re-rendering it: no other process renders in between, so
    // each file is diffed against the base it was rendered from.
    let guard = view.as_ref().map(View::lock).transpose()?;
    if let (Some(view), Some(guard)) = (&view, &guard) {
        let manifest = view.manifest();
        if let Some(saved) = super::save_tail::save(store, sealer, opts, view, guard, &manifest)? {
            return Ok(saved);
        }
    }
    let snap = Snapshot::read(store)?;
    let withheld = super::cache::gate::withheld(store, &snap)?;
    let manifest = view.as_ref().map(View::manifest).unwrap_or_default();
    let mut saved = Saved::default();
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
                    if says_what_refs_say(view, &snap, &withheld, file) => {}
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

    let summary = opts.summary.map(str::trim).filter(|m| !m.is_empty());
    if summary.is_none() && edited.iter().all(|e| e.drafts.is_empty()) {
        saved.nothing = true;
        if let (Some(view), Some(guard)) = (&view, &guard) {
            saved.kept = view.checkout_locked(guard, store, &[])?.kept;
        }
        return Ok(saved);
    }
    // Without -m the session says what was edited: a bare "session saved" would bury the
    // real summaries in the session log.
    let summary = match summary {
        Some(s) => s.to_owned(),
        None => edited_summary(&edited),
    };
    let session = seal_session(store, sealer, summary, &mut git)?;
    // The summary also becomes the commit message: use the filtered text.
    saved.summary = session.body().title().to_owned();

    // Group by ref: memory first, then branch refs; the session goes to the current branch.
    let mut by_ref: BTreeMap<(u8, String), Vec<usize>> = BTreeMap::new();
    for (i, e) in edited.iter().enumerate() {
        let order = u8::from(e.refname != MEMORY_REF);
        by_ref
            .entry((order, e.refname.clone()))
            .or_default()
            .push(i);
    }
    by_ref.entry((1, snap.branch_ref.clone())).or_default();

    // Every ref moves in one ref transaction: a crash or a lost race never leaves the memory
    // saved without the session (or the reverse).
    let groups: Vec<(&String, &Vec<usize>)> = by_ref.iter().map(|((_, r), m)| (r, m)).collect();
    let summaries: Vec<String> = groups
        .iter()
        .map(|(refname, members)| {
            if **refname == snap.branch_ref {
                saved.summary.clone()
            } else {
                format!(
                    "save: {}",
                    files_list(members.iter().map(|&i| edited[i].file))
                )
            }
        })
        .collect();
    let refs: Vec<(&str, &str)> = groups
        .iter()
        .zip(&summaries)
        .map(|((r, _), s)| (r.as_str(), s.as_str()))
        .collect();
    let commits = store.commit_all(&refs, |g, current: &[Record]| {
        let (refname, members) = groups[g];
        let with_session = *refname == snap.branch_ref;
        let state = fold(current);
        let mut out = Vec::new();
        for &i in members {
            let e = &edited[i];
            let mut theirs = Theirs::new(&state, &e.base_ids);
            for d in &e.drafts {
                if !theirs.has(d.draft()) {
                    out.push(d.clone());
                }
            }
        }
        if with_session {
            out.push(session.clone());
        }
        Ok::<_, anyhow::Error>(out)
    })?;
    let mut saved_files = Vec::new();
    for (((refname, members), summary), commit) in groups.iter().zip(summaries).zip(commits) {
        let with_session = **refname == snap.branch_ref;
        if let Some(c) = commit {
            for r in &c.records {
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
        saved_files.extend(
            members
                .iter()
                .map(|&i| (edited[i].file, edited[i].blob.clone())),
        );
    }
    saved.files = edited.iter().map(|e| e.file).collect();

    if let Some(view) = &view {
        // Re-render saved files, unless they were edited again while we ran.
        let force: Vec<ViewFile> = saved_files
            .iter()
            .filter(|(f, blob)| view.blob_of(&view.path(*f)).as_deref() == Some(blob.as_str()))
            .map(|(f, _)| *f)
            .collect();
        if let Some(guard) = &guard {
            saved.kept = view.checkout_locked(guard, store, &force)?.kept;
        }
    }
    Ok(saved)
}

/// Whether a view file's content is what the view renders from the refs now.
fn says_what_refs_say(
    view: &View,
    snap: &Snapshot,
    withheld: &HashSet<String>,
    file: ViewFile,
) -> bool {
    let text = view::render(file, &snap.state, &|r| withheld.contains(&r.id));
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
        None => std::fs::read(&path)
            .map_err(|e| user_error(format!("cannot read {shown}: {e}"), nothing_saved.clone()))?,
    };
    let blob = super::view_dir::content_id(&data);
    let text = String::from_utf8(data).map_err(|e| {
        let line = 1 + e.as_bytes()[..e.utf8_error().valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        user_error(
            format!("{shown}:{line}: not valid UTF-8"),
            nothing_saved.clone(),
        )
    })?;
    let parsed = view::parse(file, &text).map_err(|e| {
        user_error(
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
                        user_error(
                            format!("the view manifest names a bad commit id {id:?}"),
                            "run `git rune init` to check the view out again",
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
        return Err(user_error(
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
    let mut sealed = Vec::with_capacity(drafts.len());
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
        let place = |field: &str, secret: &str| {
            let at = text.find(secret).unwrap_or(0);
            format!("{shown}:{} (field `{field}`)", secrets::line_of(&text, at))
        };
        sealed.push(sealer.seal(d, &place).map_err(|err| match err {
            SealError::Invalid { title, error, .. } => user_error(
                format!("{shown}: entry {title:?}: {error}"),
                nothing_saved.clone(),
            ),
            other => other.into(),
        })?);
    }
    Ok(Edited {
        file,
        refname,
        blob,
        base_ids,
        drafts: sealed,
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

fn files_list(files: impl Iterator<Item = ViewFile>) -> String {
    files.map(|f| f.name()).collect::<Vec<_>>().join(", ")
}
