//! `git rune save`: parse edits made in the `.rune/` view back into records, record the
//! session, commit. Nothing is written unless every edited file parses and validates.

use std::collections::{BTreeMap, HashSet};
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::record::title_of;
use super::{filter_secrets, identity_hint, short, Ctx};
use crate::checkout::{FileState, Manifest, Snapshot, View, VIEW_DIR};
use crate::model::{self, fold, Body, Draft, GitState, Kind, Record};
use crate::output::{print, user_error};
use crate::secrets;
use crate::store::{blob_id, Store, MEMORY_REF};
use crate::view::{self, ViewFile};

#[derive(Debug, Args)]
pub struct SaveArgs {
    /// One-line summary of the session, appended to the session log.
    #[arg(short, long)]
    pub message: Option<String>,
}

/// The drafts parsed from one edited file.
struct Edited {
    file: ViewFile,
    refname: String,
    /// Blob id of the text that was parsed, to notice edits made while we ran.
    blob: String,
    base_ids: HashSet<String>,
    drafts: Vec<Draft>,
}

#[derive(Default, serde::Serialize)]
struct Counts {
    added: usize,
    changed: usize,
    removed: usize,
}

pub fn run(ctx: &Ctx, args: SaveArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    let snap = Snapshot::read(&store)?;
    let view = View::open(&store);
    let manifest = view.as_ref().map(View::manifest).unwrap_or_default();

    let mut edited = Vec::new();
    if let Some(view) = &view {
        for (file, state) in view.states(&manifest) {
            match state {
                FileState::Modified | FileState::Added => {
                    edited.push(parse_file(ctx, &store, &snap, view, &manifest, file)?)
                }
                FileState::Missing => ctx.ui.status(format_args!(
                    "{VIEW_DIR}/{} was deleted; it is restored from memory (to remove entries, delete them inside the file)",
                    file.name()
                )),
                FileState::Clean => {}
            }
        }
    }

    let summary = args
        .message
        .map(|m| m.trim().to_owned())
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| "session saved".to_owned());
    let head = &snap.head;
    let session = {
        let mut body = Body::Session {
            summary: summary.clone(),
            git: Some(GitState {
                branch: head.branch.clone(),
                head: head.head.map(|h| h.to_string()),
                upstream: head.upstream.clone(),
                dirty: store.dirty_files()?,
            }),
        };
        view::normalize(&mut body);
        filter_secrets(ctx, &mut body, &|_, _| "the -m summary".to_owned())?;
        model::validate(&body).map_err(|e| {
            user_error(
                format!("invalid session summary: {e}"),
                "pass a non-empty -m \"summary\"",
            )
        })?;
        Draft::new(body)
    };
    // The summary also becomes the commit message: use the filtered text.
    let summary = match &session.body {
        Body::Session { summary, .. } => summary.clone(),
        _ => summary,
    };

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

    let mut counts = Counts::default();
    let mut commits = serde_json::Map::new();
    let mut saved_files = Vec::new();
    for ((_, refname), members) in &by_ref {
        let with_session = *refname == snap.branch_ref;
        let commit_summary = if with_session {
            summary.clone()
        } else {
            format!(
                "save: {}",
                files_list(members.iter().map(|&i| edited[i].file))
            )
        };
        let commit = store.commit(refname, &commit_summary, |current: &[Record]| {
            let state = fold(current);
            let mut out = Vec::new();
            for &i in members {
                let e = &edited[i];
                for d in &e.drafts {
                    if is_duplicate_addition(d, &state, &e.base_ids) {
                        continue;
                    }
                    out.push(d.clone());
                }
            }
            if with_session {
                out.push(session.clone());
            }
            Ok::<_, anyhow::Error>(out)
        })?;
        if let Some(c) = commit {
            commits.insert(refname.clone(), c.id.to_string().into());
            for r in &c.records {
                match (&r.body, r.meta.supersedes.is_empty()) {
                    (Body::Session { .. }, _) => {}
                    (Body::Delete { targets }, _) => counts.removed += targets.len(),
                    (Body::Resolve { .. }, _) => counts.removed += 1,
                    (_, true) => counts.added += 1,
                    (_, false) => counts.changed += 1,
                }
            }
            ctx.ui.status(format_args!(
                "{refname} {} {commit_summary}",
                short(&c.id.to_string())
            ));
        }
        saved_files.extend(
            members
                .iter()
                .map(|&i| (edited[i].file, edited[i].blob.clone())),
        );
    }
    identity_hint(ctx, &store);

    if let Some(view) = &view {
        // Re-render saved files, unless they were edited again while we ran.
        let force: Vec<ViewFile> = saved_files
            .iter()
            .filter(|(f, blob)| {
                std::fs::read(view.path(*f))
                    .ok()
                    .and_then(|d| blob_id(store.repo.object_hash(), &d))
                    .is_some_and(|b| blob.parse::<gix::ObjectId>().is_ok_and(|want| want == b))
            })
            .map(|(f, _)| *f)
            .collect();
        let snap = Snapshot::read(&store)?;
        let refresh = view.checkout(&snap, &force)?;
        for file in refresh.kept {
            ctx.ui.warn(format_args!(
                "{VIEW_DIR}/{} changed while saving and was left alone; run `git rune save` again",
                file.name()
            ));
        }
    }

    let files: Vec<&str> = edited.iter().map(|e| e.file.name()).collect();
    let mut out = if ctx.ui.json {
        serde_json::json!({
            "version": 1,
            "commits": commits,
            "files": files,
            "added": counts.added,
            "changed": counts.changed,
            "removed": counts.removed,
            "summary": summary,
        })
        .to_string()
    } else if files.is_empty() {
        format!("saved session: {summary}")
    } else {
        format!(
            "saved {} added, {} changed, {} removed from {}\nsaved session: {summary}",
            counts.added,
            counts.changed,
            counts.removed,
            files.join(", ")
        )
    };
    out.push('\n');
    print(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// Reads, parses and diffs one edited view file against the state it was checked out from.
fn parse_file(
    ctx: &Ctx,
    store: &Store,
    snap: &Snapshot,
    view: &View,
    manifest: &Manifest,
    file: ViewFile,
) -> Result<Edited> {
    let path = view.path(file);
    let shown = format!("{VIEW_DIR}/{}", file.name());
    let nothing_saved = format!("fix {shown} and run `git rune save` again; nothing was saved and the file is as you left it");
    let data = std::fs::read(&path)
        .map_err(|e| user_error(format!("cannot read {shown}: {e}"), nothing_saved.clone()))?;
    let blob = blob_id(store.repo.object_hash(), &data)
        .map(|b| b.to_string())
        .unwrap_or_default();
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
                    let oid = gix::ObjectId::from_hex(id.as_bytes()).map_err(|_| {
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
    let mut drafts = view::diff(file, &base, parsed);
    cover_groups(&mut drafts, &base_records);
    for d in &mut drafts {
        view::normalize(&mut d.body);
        filter_secrets(ctx, &mut d.body, &|field, secret| {
            let at = text.find(secret).unwrap_or(0);
            format!("{shown}:{} (field `{field}`)", secrets::line_of(&text, at))
        })?;
        fill_file_blobs(store, &mut d.body);
        model::validate(&d.body).map_err(|err| {
            user_error(
                format!("{shown}: entry {:?}: {err}", title_of(&d.body)),
                nothing_saved.clone(),
            )
        })?;
    }
    Ok(Edited {
        file,
        refname,
        blob,
        base_ids,
        drafts,
    })
}

/// A shown learning or instinct stands for every record of its group (type+key, name): an
/// edit or removal of it covers them all, or an older copy would reappear in its place.
fn cover_groups(drafts: &mut [Draft], base: &[Record]) {
    let group = |b: &Body| match b {
        Body::Learning { ltype, key, .. } => Some(format!("learning\0{ltype}\0{key}")),
        Body::Instinct { name, .. } => Some(format!("instinct\0{name}")),
        _ => None,
    };
    let mut members: std::collections::HashMap<String, Vec<&str>> = Default::default();
    let mut group_of: std::collections::HashMap<&str, String> = Default::default();
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
        if let Body::Delete { targets } = &mut d.body {
            widen(targets);
        }
    }
}

/// Records naming files keep their blob ids, for staleness against the code.
fn fill_file_blobs(store: &Store, body: &mut Body) {
    if let Body::Decision {
        files, file_blobs, ..
    }
    | Body::Learning {
        files, file_blobs, ..
    } = body
    {
        if !files.is_empty() && file_blobs.len() != files.len() {
            *file_blobs = store.file_blobs(files);
        }
    }
}

/// An addition another process already made (same visible content, not in our base).
fn is_duplicate_addition(d: &Draft, state: &model::State, base_ids: &HashSet<String>) -> bool {
    if !d.supersedes.is_empty() || matches!(d.body.kind(), Kind::Delete | Kind::Resolve) {
        return false;
    }
    let shown = view::visible(&d.body);
    state
        .of_kind(d.body.kind())
        .iter()
        .any(|r| !base_ids.contains(&r.id) && view::visible(&r.body) == shown)
}

fn files_list(files: impl Iterator<Item = ViewFile>) -> String {
    files.map(|f| f.name()).collect::<Vec<_>>().join(", ")
}
