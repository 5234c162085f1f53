//! `git rune why <commit>` and `git rune why <file>:<line>`: the memory behind a piece of
//! code, from the note on the commit that introduced it.

use std::process::{Command, ExitCode};

use anyhow::Result;
use clap::Args;

use super::status::pretty_time;
use super::{short, Ctx};
use crate::model::{Body, Record};
use crate::notes::CommitNote;
use crate::output::{print, sanitize, user_error};
use crate::store::{branch_ref, Store, MEMORY_REF};

#[derive(Debug, Args)]
pub struct WhyArgs {
    /// A commit (any revision), or `<file>:<line>` to start from the commit that last changed
    /// that line.
    pub target: String,
}

pub fn run(ctx: &Ctx, args: WhyArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    let (commit, origin) = match blame_target(&store, &args.target)? {
        Some((file, line, commit)) => (commit, Some(format!("{file}:{line} was last changed by"))),
        None => (resolve(&store, &args.target)?, None),
    };
    // Walk back to the nearest commit with a note, saying so when it is not the one asked for.
    let path = origin
        .as_ref()
        .and_then(|_| args.target.rsplit_once(':').map(|(f, _)| f.to_owned()));
    let (noted, text) = nearest_note(&store, commit, path.as_deref())?;
    let mut out = String::new();
    if let Some(o) = &origin {
        out.push_str(&format!("{o} {}\n", short(&commit.to_string())));
    }
    let Some(text) = text else {
        out.push_str(&format!(
            "no git-rune note on {} or its ancestors{}\n",
            short(&commit.to_string()),
            path.as_deref()
                .map(|p| format!(" that touch {p}"))
                .unwrap_or_default()
        ));
        print(&out)?;
        return Ok(ExitCode::from(1));
    };
    if noted != commit {
        out.push_str(&format!(
            "{} has no note; the nearest ancestor{} with one is {}\n",
            short(&commit.to_string()),
            path.as_deref()
                .map(|p| format!(" touching {p}"))
                .unwrap_or_default(),
            short(&noted.to_string())
        ));
    }
    let note = CommitNote::parse(&text);
    out.push_str(&format!("commit {}\n", noted));
    out.push_str(&sanitize(text.lines().next().unwrap_or("")));
    out.push('\n');
    let records = note_records(&store, &note)?;
    for (kind, id, title) in &note.records {
        match records.iter().find(|r| r.id.starts_with(id.as_str())) {
            Some(r) => out.push_str(&expand(r)),
            None => out.push_str(&format!(
                "\n{kind} {} {}: (no longer in memory)\n",
                short(id),
                sanitize(title)
            )),
        }
    }
    if let Some(c) = &note.checkpoint {
        out.push_str(&format!("\nopen checkpoint then: {}\n", sanitize(c)));
    }
    if let Some(s) = records
        .iter()
        .filter(|r| matches!(r.body, Body::Session { .. }))
        .max_by(|a, b| a.order_key().cmp(&b.order_key()))
    {
        if let Body::Session { summary, .. } = &s.body {
            out.push_str(&format!(
                "session: [{}] {}\n",
                pretty_time(&s.meta.ts),
                sanitize(summary)
            ));
        }
    }
    print(&out)?;
    Ok(ExitCode::SUCCESS)
}

fn resolve(store: &Store, rev: &str) -> Result<gix::ObjectId> {
    store
        .repo
        .rev_parse_single(rev)
        .ok()
        .and_then(|id| id.object().ok())
        .and_then(|o| o.peel_to_commit().ok())
        .map(|c| c.id)
        .ok_or_else(|| {
            user_error(
                format!("{rev:?} does not name a commit here"),
                "pass a commit (HEAD~2, a branch, an id) or <file>:<line>",
            )
        })
}

/// `<file>:<line>` of a file in the work tree: blamed with `git blame --porcelain` (gix's
/// blame is not in the features this build uses).
fn blame_target(store: &Store, target: &str) -> Result<Option<(String, usize, gix::ObjectId)>> {
    let Some((file, line)) = target.rsplit_once(':') else {
        return Ok(None);
    };
    let Ok(line) = line.parse::<usize>() else {
        return Ok(None);
    };
    let Some(workdir) = store.workdir() else {
        return Ok(None);
    };
    if !workdir.join(file).is_file() {
        return Ok(None);
    }
    let out = Command::new("git")
        .current_dir(workdir)
        .args([
            "blame",
            "--porcelain",
            "-L",
            &format!("{line},{line}"),
            "--",
            file,
        ])
        .output()
        .map_err(|e| {
            user_error(
                format!("cannot run git blame: {e}"),
                "make sure git is on PATH",
            )
        })?;
    if !out.status.success() {
        return Err(user_error(
            format!(
                "git blame {file}:{line} failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ),
            "name a line that exists in a committed file",
        ));
    }
    let first = String::from_utf8_lossy(&out.stdout);
    let id = first
        .split_whitespace()
        .next()
        .and_then(|h| gix::ObjectId::from_hex(h.as_bytes()).ok())
        .filter(|id| !id.is_null())
        .ok_or_else(|| {
            user_error(
                format!("{file}:{line} is not committed yet"),
                "commit it first, then ask why",
            )
        })?;
    Ok(Some((file.to_owned(), line, id)))
}

/// The commit itself or its nearest ancestor (first parents; touching `path` when given)
/// that carries a note.
fn nearest_note(
    store: &Store,
    commit: gix::ObjectId,
    path: Option<&str>,
) -> Result<(gix::ObjectId, Option<String>)> {
    let mut next = Some(commit);
    let mut steps = 0;
    while let Some(id) = next {
        if let Some(text) = store.note(id)? {
            if path.is_none() || id == commit || touches(store, id, path.unwrap_or_default()) {
                return Ok((id, Some(text)));
            }
        }
        steps += 1;
        if steps > 10_000 {
            break;
        }
        next = store
            .repo
            .find_commit(id)
            .ok()
            .and_then(|c| c.parent_ids().next().map(|p| p.detach()));
    }
    Ok((commit, None))
}

/// Whether `commit` changed `path` against its first parent.
fn touches(store: &Store, commit: gix::ObjectId, path: &str) -> bool {
    let entry = |id: gix::ObjectId| -> Option<gix::ObjectId> {
        let c = store.repo.find_commit(id).ok()?;
        let tree = c.tree().ok()?;
        tree.lookup_entry_by_path(path).ok()?.map(|e| e.object_id())
    };
    let parent = store
        .repo
        .find_commit(commit)
        .ok()
        .and_then(|c| c.parent_ids().next().map(|p| p.detach()));
    entry(commit) != parent.and_then(entry)
}

/// The records the note's memory commits held (falling back to the refs' current records).
fn note_records(store: &Store, note: &CommitNote) -> Result<Vec<Record>> {
    let mut out: Vec<Record> = Vec::new();
    let at = |name: &str, id: &Option<String>| -> Result<Vec<Record>> {
        let commit = id
            .as_deref()
            .and_then(|h| gix::ObjectId::from_hex(h.as_bytes()).ok());
        Ok(match commit {
            Some(c) if store.repo.has_object(c) => store.records_at(name, c)?.to_vec(),
            _ => store.records(name)?.1.to_vec(),
        })
    };
    out.extend(at(MEMORY_REF, &note.memory)?);
    out.extend(at(&branch_ref(note.branch.as_deref()), &note.session)?);
    // Every record, not only live ones: a record may have been edited since the commit.
    Ok(out)
}

/// A record in full, for reading in a terminal.
fn expand(r: &Record) -> String {
    let mut out = format!(
        "\n{} {} ({})\n",
        r.kind().as_str(),
        short(&r.id),
        pretty_time(&r.meta.ts)
    );
    for (field, text) in r.body.texts() {
        if !text.is_empty() {
            out.push_str(&format!("  {field}: {}\n", sanitize(&text)));
        }
    }
    out
}
