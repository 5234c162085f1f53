//! `git rune sync [<remote>] [--all]`: share memory with a git remote (fetch, merge by set
//! union, push never forced), and `git rune remote add <remote>`: let a plain `git fetch`
//! bring a remote's memory too.

use std::collections::BTreeMap;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand};

use super::Context;
use crate::error;
use crate::memory::view_dir::VIEW_DIR;
use crate::output::json;
use crate::sync::{sync, track_remote, SyncOptions, SyncReport};

#[derive(Debug, Args)]
pub struct SyncArgs {
    /// The remote to sync with (default: the current branch's upstream remote, else origin).
    #[arg(conflicts_with = "all")]
    pub remote: Option<String>,
    /// Sync with every remote that has memory.
    #[arg(long)]
    pub all: bool,
    /// Fetch and merge only; push nothing.
    #[arg(long)]
    pub no_push: bool,
}

#[derive(Debug, Args)]
pub struct RemoteArgs {
    #[command(subcommand)]
    pub action: RemoteAction,
}

#[derive(Debug, Subcommand)]
pub enum RemoteAction {
    /// Add git-rune's fetch refspecs to <remote>, so `git fetch` and `git pull` bring its
    /// memory into refs/rune-remotes/<remote>/ (the next git-rune command merges it).
    Add {
        /// The remote (as `git remote` lists it).
        remote: String,
    },
}

pub fn run(ctx: &Context, args: SyncArgs) -> Result<ExitCode> {
    let store = ctx.open_store()?;
    let remotes = if args.all {
        let all = store.remotes();
        if all.is_empty() {
            return Err(no_remote());
        }
        all
    } else {
        match args.remote.or_else(|| store.default_remote()) {
            Some(r) => {
                if !store.remotes().contains(&r) {
                    return Err(error::input(
                        format!("{r:?} is not a remote of this repository"),
                        "name one `git remote` lists, or add it with `git remote add`",
                    ));
                }
                vec![r]
            }
            None => return Err(no_remote()),
        }
    };
    let opts = SyncOptions {
        no_push: args.no_push,
        ..SyncOptions::default()
    };
    let edited_before = edited_twice(&store);
    let mut out = String::new();
    let mut gave_up = false;
    for remote in &remotes {
        let report = sync(&store, remote, opts, &|what| ctx.ui.status(what))?;
        if args.all && report.refs.is_empty() && report.notes.is_none() && report.pushed.is_empty()
        {
            // --all: a remote without memory is not one to push memory to.
            continue;
        }
        gave_up |= report.gave_up.is_some();
        if let Some(why) = &report.gave_up {
            ctx.ui.warn(why);
        }
        for w in report.warnings() {
            ctx.ui.warn(w);
        }
        if ctx.ui.json {
            out.push_str(&json::line(&json::sync(&report)));
            out.push('\n');
        } else {
            out.push_str(&text(&report));
        }
    }
    if ctx.ui.json {
        ctx.ui.print(&out)?;
    } else {
        ctx.report(&out)?;
    }
    // A view on this branch shows what came in.
    ctx.refresh_view(&store);
    // Two clones editing one record both keep their edit (the merge never drops one): say
    // so for edits that met in this sync, since the view now shows both.
    for (title, kind, label) in edited_twice(&store) {
        if !edited_before
            .iter()
            .any(|(t, k, _)| *t == title && *k == kind)
        {
            ctx.ui.warn(format_args!(
                "{kind} {title:?} was edited in two clones: both edits are kept and shown; keep one by deleting the other in {VIEW_DIR}/ and running `git rune save` (`git rune show {label} --all` lists them)"
            ));
        }
    }
    // The remote kept moving: what came in is merged, the push waits for a later sync.
    Ok(if gave_up {
        ExitCode::from(crate::error::Kind::Conflict.exit_code())
    } else {
        ExitCode::SUCCESS
    })
}

pub fn remote(ctx: &Context, args: RemoteArgs) -> Result<ExitCode> {
    let store = ctx.open_store()?;
    match args.action {
        RemoteAction::Add { remote } => {
            if !store.remotes().contains(&remote) {
                return Err(error::input(
                    format!("{remote:?} is not a remote of this repository"),
                    "add it with `git remote add` first",
                ));
            }
            let added = track_remote(&store, &remote)?;
            ctx.report(&if added {
                format!(
                    "`git fetch {remote}` now brings its memory into refs/rune-remotes/{remote}/\n"
                )
            } else {
                format!("{remote} already brings its memory with `git fetch`; nothing to do\n")
            })?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn no_remote() -> anyhow::Error {
    error::environment(
        "this repository has no remote to share memory with",
        "add one with `git remote add origin <url>`, then run `git rune sync`",
    )
}

/// What came in and went out, one line each.
fn text(r: &SyncReport) -> String {
    let mut out = String::new();
    let remote = &r.remote;
    let incoming = r.incoming();
    let notes_in = r.notes.as_ref().map_or(0, |n| n.incoming);
    let came = crate::output::kind_counts(&incoming, notes_in);
    let went = crate::output::kind_counts(&r.outgoing, r.notes_out);
    match (came.is_empty(), went.is_empty()) {
        (true, true) => out.push_str(&format!("{remote}: memory already in sync\n")),
        _ => {
            if !came.is_empty() {
                out.push_str(&format!("{remote}: came in: {came}\n"));
            }
            if !went.is_empty() {
                out.push_str(&format!("{remote}: went out: {went}\n"));
            }
        }
    }
    out
}

/// Records edited in two clones: an id that two live records both supersede, as
/// `(title, kind, show label)` of the edited record.
fn edited_twice(store: &crate::store::Store) -> Vec<(String, &'static str, &'static str)> {
    let Ok(snap) = crate::read::snapshot(store, None) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for file in crate::view::ViewFile::LISTED {
        let mut by: BTreeMap<&str, Vec<&crate::model::Record>> = BTreeMap::new();
        for r in snap.state.of_kind(file.kind()) {
            for s in &r.meta.supersedes {
                by.entry(s.as_str()).or_default().push(r);
            }
        }
        for edits in by.values().filter(|e| e.len() > 1) {
            out.push((
                crate::text::one_line(edits[0].body.title()),
                file.kind().as_str(),
                file.label(),
            ));
        }
    }
    out
}
