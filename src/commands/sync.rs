//! `git rune sync [<remote>] [--all]`: share memory with a git remote (fetch, merge by set
//! union, push never forced), and `git rune remote add|remove <remote>`: opt a remote in to
//! (or out of) receiving memory; an opted-in remote's memory also comes with a plain `git
//! fetch`.

use std::collections::BTreeMap;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand};

use super::Context;
use crate::error;
use crate::memory::view_dir::VIEW_DIR;
use crate::output::json;
use crate::sync::share;
use crate::sync::{sync, SyncOptions, SyncReport};

#[derive(Debug, Args)]
pub struct SyncArgs {
    /// The remote to sync with (default: the current branch's upstream remote, else origin).
    /// Naming a remote that has no setting yet opts it in (not a fork's upstream).
    #[arg(conflicts_with = "all")]
    pub remote: Option<String>,
    /// Sync with every remote memory goes to (those opted in).
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
    /// Share memory with <remote>: the pre-push hook, `sync`, `sync --all` and `gc` push it
    /// there (remote.<remote>.runeShare=true), and `git fetch` brings its memory into
    /// refs/rune-remotes/<remote>/ (the next git-rune command merges it).
    Add {
        /// The remote (as `git remote` lists it).
        remote: String,
    },
    /// Stop sharing memory with <remote> (remote.<remote>.runeShare=false): nothing is pushed
    /// there, and its memory is no longer fetched. What it has stays there.
    Remove {
        /// The remote (as `git remote` lists it).
        remote: String,
    },
    /// List the remotes and whether memory goes to each.
    List,
}

pub fn run(ctx: &Context, args: SyncArgs) -> Result<ExitCode> {
    let store = ctx.open_store()?;
    let remotes = if args.all {
        let all = store.remotes();
        if all.is_empty() {
            return Err(no_remote());
        }
        // Only the remotes memory goes to: --all never sends it anywhere new.
        let shared: Vec<String> = all
            .into_iter()
            .filter(|r| share::sharing(&store, r).pushes())
            .collect();
        if shared.is_empty() {
            return Err(error::input(
                "no remote is opted in to receive memory",
                "opt one in with `git rune remote add <remote>` (`git rune status` shows where memory goes)",
            ));
        }
        shared
    } else {
        match args.remote.clone().or_else(|| store.default_remote()) {
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
    // Asking to sync with a remote nobody decided about, by name or as the default, is the
    // decision: it is opted in (a fork's upstream never is; a remote opted out stays out).
    let opts = SyncOptions {
        no_push: args.no_push,
        opt_in: !args.all,
        ..SyncOptions::default()
    };
    let edited_before = edited_twice(&store);
    let mut out = String::new();
    let mut gave_up = false;
    for remote in &remotes {
        let report = sync(&store, remote, opts.clone(), &|what| ctx.ui.status(what))?;
        if report.opted_in {
            ctx.ui.status(format_args!(
                "memory now goes to {remote} (`git rune remote remove {remote}` stops it)"
            ));
        }
        gave_up |= report.gave_up.is_some();
        if let Some(why) = &report.gave_up {
            ctx.ui.warn(why);
        }
        warn_about(ctx, &report);
        if ctx.ui.json {
            out.push_str(&(json::line(&json::sync(&report)) + "\n"));
        } else {
            out.push_str(&text(&report));
        }
    }
    ctx.report(&out)?;
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

/// The warnings a sync's report carries: records refused, remote refs skipped or left for
/// `repair`, memory not pushed because the remote is not opted in.
pub fn warn_about(ctx: &Context, report: &SyncReport) {
    let remote = &report.remote;
    for w in report.warnings() {
        ctx.ui.warn(w);
    }
    if !report.refused().is_empty() {
        ctx.ui.status(format_args!(
            "hint: the rest of {remote}'s memory merged; `git rune repair {remote}` publishes tips without what was refused"
        ));
    }
    if let Some(why) = report.not_shared {
        ctx.ui.status(format_args!(
            "memory was not pushed to {remote}: it is {}; `git rune remote add {remote}` shares it",
            why.why()
        ));
    }
}

pub fn remote(ctx: &Context, args: RemoteArgs) -> Result<ExitCode> {
    let store = ctx.open_store()?;
    let known = |remote: &str| -> Result<()> {
        if store.remotes().iter().any(|r| r == remote) {
            Ok(())
        } else {
            Err(error::input(
                format!("{remote:?} is not a remote of this repository"),
                "add it with `git remote add` first",
            ))
        }
    };
    match args.action {
        RemoteAction::Add { remote } => {
            known(&remote)?;
            let changed = share::opt_in(&store, &remote)?;
            ctx.report(&if changed {
                format!(
                    "memory now goes to {remote}: the pre-push hook, `git rune sync` and `gc` push it there, and `git fetch {remote}` brings its memory into refs/rune-remotes/{remote}/\n"
                )
            } else {
                format!("memory already goes to {remote}; nothing to do\n")
            })?;
        }
        RemoteAction::Remove { remote } => {
            known(&remote)?;
            let was = share::opt_out(&store, &remote)?;
            ctx.report(&if was {
                format!("memory no longer goes to {remote}; what it has stays there\n")
            } else {
                format!("memory does not go to {remote}; nothing to do\n")
            })?;
        }
        RemoteAction::List => {
            let mut out = String::new();
            for (remote, s) in share::where_memory_goes(&store) {
                if ctx.ui.json {
                    out.push_str(&json::line(&json::RemoteJson {
                        remote: remote.clone(),
                        memory: s.pushes(),
                        why: s.as_str(),
                    }));
                    out.push('\n');
                } else {
                    let goes = if s.pushes() {
                        "memory goes there"
                    } else {
                        "memory stays here"
                    };
                    out.push_str(&format!("{remote}: {goes} ({})\n", s.why()));
                }
            }
            ctx.ui.print(&out)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn no_remote() -> anyhow::Error {
    error::input(
        "this repository has no remote to share memory with",
        "add one with `git remote add origin <url>`, then run `git rune sync`",
    )
}

/// What came in and went out, one line each, and the remote refs skipped: "already in sync"
/// only when nothing moved, every remote ref was read and the push was not left for later.
fn text(r: &SyncReport) -> String {
    let mut out = String::new();
    let remote = &r.remote;
    let incoming = r.incoming();
    let notes_in = r.notes.as_ref().map_or(0, |n| n.incoming);
    let came = crate::output::kind_counts(&incoming, notes_in);
    let went = crate::output::kind_counts(&r.outgoing, r.notes_out);
    let pushed_nothing = r.not_shared.is_some();
    match (came.is_empty(), went.is_empty()) {
        (true, true) if pushed_nothing => {
            out.push_str(&format!("{remote}: nothing came in (memory stays here)\n"))
        }
        (true, true) if !r.pushed.is_empty() => out.push_str(&format!(
            "{remote}: no records came in or went out; published {}\n",
            r.pushed.join(", ")
        )),
        (true, true) if r.skipped.is_empty() && r.gave_up.is_none() => {
            out.push_str(&format!("{remote}: memory already in sync\n"))
        }
        (true, true) => out.push_str(&format!("{remote}: nothing came in or went out\n")),
        _ => {
            if !came.is_empty() {
                out.push_str(&format!("{remote}: came in: {came}\n"));
            }
            if !went.is_empty() && !pushed_nothing {
                out.push_str(&format!("{remote}: went out: {went}\n"));
            }
        }
    }
    if !r.skipped.is_empty() {
        let names: Vec<&str> = r.skipped.iter().map(|s| s.remote_ref.as_str()).collect();
        out.push_str(&format!(
            "{remote}: skipped {} (not read; the warnings above say why)\n",
            names.join(", ")
        ));
    }
    out
}

/// Records edited in two clones: an id that two live records both supersede, as
/// `(title, kind, show label)` of the edited record (its title through the gate).
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
                crate::text::one_line(&crate::integrity::gate::shown_title(edits[0])),
                file.kind().as_str(),
                file.label(),
            ));
        }
    }
    out
}
