//! One module per subcommand, the shared command context, and the single dispatch.

pub mod hooks;
pub mod init;
pub mod load;
pub mod log;
pub mod record;
pub mod save;
pub mod show;
pub mod status;
pub mod verify;
pub mod why;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::checkout::{Snapshot, View};
use crate::cli::{Cli, Command};
use crate::model::{fold, Body, Draft, Record, Scope, State};
use crate::output::{user_error, Ui};
use crate::secrets;
use crate::store::{branch_ref, Store, StoreError, MEMORY_REF};

/// What every command gets: where to run and how to talk.
pub struct Ctx {
    pub dir: PathBuf,
    pub ui: Ui,
    /// Redact secrets instead of refusing the record.
    pub redact: bool,
}

impl Ctx {
    /// Opens the repository around `-C` (or the current directory).
    pub fn store(&self) -> Result<Store> {
        Store::open(&self.dir).map_err(|e| match e {
            StoreError::NotARepository(p) => user_error(
                format!("not a git repository: {}", p.display()),
                "run git rune inside a git repository (create one with `git init`)",
            ),
            other => other.into(),
        })
    }
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Result<ExitCode> {
    let dir = match &cli.directory {
        Some(d) => d.clone(),
        None => std::env::current_dir().map_err(|e| {
            user_error(
                format!("cannot read the current directory: {e}"),
                "cd into your repository and try again",
            )
        })?,
    };
    let ctx = Ctx {
        redact: cli.redact,
        dir,
        ui: Ui {
            quiet: cli.quiet,
            json: cli.json,
        },
    };
    match cli.command {
        Command::Init(a) => init::run(&ctx, a),
        Command::Decide(a) => record::decide(&ctx, a),
        Command::Convention(a) => record::convention(&ctx, a),
        Command::Learn(a) => record::learn(&ctx, a),
        Command::Instinct(a) => record::instinct(&ctx, a),
        Command::Progress(a) => record::progress(&ctx, a),
        Command::Checkpoint(a) => record::checkpoint(&ctx, a),
        Command::Resume(a) => record::resume(&ctx, a),
        Command::Remember(a) => record::remember(&ctx, a),
        Command::Save(a) => save::run(&ctx, a),
        Command::Load(a) => load::run(&ctx, a),
        Command::Status(_) => status::run(&ctx),
        Command::Show(a) => show::run(&ctx, a),
        Command::Log(a) => log::run(&ctx, a),
        Command::Verify(a) => verify::run(&ctx, a),
        Command::Hooks(a) => hooks::hooks(&ctx, a),
        Command::Why(a) => why::run(&ctx, a),
        Command::Hook(a) => hooks::hook(&ctx, a),
    }
}

/// Commits drafts to the ref of `scope` for the current branch, then refreshes the view.
///
/// `make` sees the folded state of that ref as it is at commit time (it runs again if another
/// process wins the race). Returns the records written.
pub(crate) fn write_records(
    ctx: &Ctx,
    store: &Store,
    scope: Scope,
    summary: &str,
    mut make: impl FnMut(&State) -> Result<Vec<Draft>>,
) -> Result<Vec<Record>> {
    let refname = match scope {
        Scope::Memory => MEMORY_REF.to_owned(),
        Scope::Branch => branch_ref(store.head_info()?.branch.as_deref()),
    };
    let commit = store.commit(&refname, summary, |current: &[Record]| {
        let state = fold(current);
        make(&state)
    })?;
    let Some(commit) = commit else {
        return Ok(Vec::new());
    };
    identity_hint(ctx, store);
    ctx.ui.status(format_args!(
        "{} {} {}",
        refname,
        short(&commit.id.to_string()),
        summary
    ));
    refresh_view(ctx, store)?;
    Ok(commit.records)
}

/// Re-renders the view after a write, keeping files with unsaved edits.
pub(crate) fn refresh_view(ctx: &Ctx, store: &Store) -> Result<()> {
    let Some(view) = View::open(store) else {
        return Ok(());
    };
    let snap = Snapshot::read(store)?;
    let refresh = view.checkout(&snap, &[])?;
    for file in refresh.kept {
        ctx.ui.warn(format_args!(
            ".rune/{} has unsaved edits and was not refreshed; run `git rune save` to keep them",
            file.name()
        ));
    }
    Ok(())
}

/// Tells the user once per write when records are attributed to the fallback identity.
pub(crate) fn identity_hint(ctx: &Ctx, store: &Store) {
    if store.author.fallback {
        ctx.ui.status(format_args!(
            "hint: no git identity is configured; memory is attributed to {}. Set one with \
             `git config user.name \"Your Name\"` and `git config user.email you@example.com`",
            store.author.display()
        ));
    }
}

/// The one secret filter every write path calls before a record is sealed: refuses a body
/// holding a secret (naming the rule and `place(field, secret)`, never the secret), or with
/// `--redact` replaces each secret by its prefix and `***REDACTED***`.
pub(crate) fn filter_secrets(
    ctx: &Ctx,
    body: &mut Body,
    place: &dyn Fn(&str, &str) -> String,
) -> Result<()> {
    let mut refused: Option<anyhow::Error> = None;
    let mut redacted = Vec::new();
    body.texts_mut(&mut |field, value| {
        if refused.is_some() {
            return;
        }
        let findings = secrets::scan(value);
        let Some(first) = findings.first() else {
            return;
        };
        let at = place(field, value.get(first.start..first.end).unwrap_or_default());
        if ctx.redact {
            *value = secrets::redact(value);
            redacted.push((first.rule, at));
            return;
        }
        refused = Some(user_error(
            format!("refusing to record a secret ({}) in {at}", first.rule),
            "remove it and run the command again, or pass --redact to keep the record with the \
             secret replaced by its prefix and ***REDACTED***; nothing was recorded",
        ));
    });
    if let Some(err) = refused {
        return Err(err);
    }
    for (rule, at) in redacted {
        ctx.ui
            .status(format_args!("redacted a secret ({rule}) in {at}"));
    }
    Ok(())
}

/// Memory now, or as it was when the code commit `at` (any revision) was made.
pub(crate) fn snapshot(store: &Store, at: Option<&str>) -> Result<Snapshot> {
    let Some(rev) = at else {
        return Ok(Snapshot::read(store)?);
    };
    let commit = store
        .repo
        .rev_parse_single(rev)
        .ok()
        .and_then(|id| id.object().ok())
        .and_then(|o| o.peel_to_commit().ok())
        .ok_or_else(|| {
            user_error(
                format!("{rev:?} does not name a commit here"),
                "pass a revision such as HEAD~3, a branch, a tag or a commit id",
            )
        })?;
    Ok(Snapshot::read_at(store, commit.id)?)
}

/// The first eight hex digits of an id.
pub fn short(id: &str) -> &str {
    &id[..id.len().min(8)]
}
