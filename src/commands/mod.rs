//! The commands: one module per subcommand (its arguments and a thin `run`: call a use case,
//! print), the [`Command`] enum and its one dispatch, and the [`Context`] every command gets.

mod agent;
mod context;
mod diff;
mod echo;
mod gc;
mod hooks;
mod init;
mod load;
mod log;
mod man;
#[cfg(feature = "mcp")]
mod mcp;
mod oracle;
mod record;
mod repair;
mod restore;
mod save;
mod show;
mod status;
mod sync;
mod task;
mod transfer;
mod verify;
mod why;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand};

use crate::error::user_error;
use crate::memory::seal::Sealer;
use crate::memory::view_dir::{Refresh, VIEW_DIR};
use crate::memory::write::Written;
use crate::output::Ui;
use crate::store::{Store, StoreError};
use crate::text::short;

/// Flags every command takes.
#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Run as if started in <PATH>.
    #[arg(short = 'C', global = true, value_name = "PATH")]
    pub directory: Option<PathBuf>,

    /// Print machine-readable JSON (see docs/json.md for the versioned shapes).
    #[arg(long, global = true)]
    pub json: bool,

    /// Silence status messages on stderr; data on stdout is unaffected.
    #[arg(short, long, global = true)]
    pub quiet: bool,

    /// Keep records that contain a secret, with the secret replaced by its prefix and
    /// ***REDACTED***, instead of refusing them.
    #[arg(long, global = true)]
    pub redact: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Set up git-rune in this repository (idempotent).
    Init(init::InitArgs),
    /// Record an architectural decision.
    Decide(record::DecideArgs),
    /// Record a convention the project follows.
    Convention(record::ConventionArgs),
    /// Record a structured learning (latest entry per key and type wins).
    Learn(record::LearnArgs),
    /// Record an instinct: a learned trigger -> action pattern.
    Instinct(record::InstinctArgs),
    /// Record progress on this branch.
    Progress(record::ProgressArgs),
    /// Set this branch's checkpoint: the exact resume point.
    Checkpoint(record::CheckpointArgs),
    /// Print where to resume: the open checkpoint (`--done` marks it resolved).
    Resume(record::ResumeArgs),
    /// Add an item to a section of the cumulative notes or the task notes.
    Remember(record::RememberArgs),
    /// This branch's tasks (the session protocol): add, start, done, reopen, edit, list,
    /// consolidate.
    Task(task::TaskArgs),
    /// Context blocks: architecture decisions, error patterns and pitfalls beside the tasks.
    ContextBlock(task::ContextBlockArgs),
    /// Oracle detach records (seed 000): dispatch to a slow model, complete, reattach, list.
    Oracle(oracle::OracleArgs),
    /// Echoes (seed 002): role memories with layers, Echo Score pruning and an archive.
    Echo(echo::EchoArgs),
    /// Bring another tool's file in (sp-json: the seed's session protocol).
    Import(transfer::ImportArgs),
    /// Write memory in another tool's format (sp-json: the seed's session protocol).
    Export(transfer::ExportArgs),
    /// Commit edits made in the .rune/ view and record the session.
    Save(save::SaveArgs),
    /// Discard edits made in the .rune/ view: render the files from memory again.
    Restore(restore::RestoreArgs),
    /// Print what a new session needs to know, within a token budget.
    Load(load::LoadArgs),
    /// Show view files changed since checkout, and drift of the code since the last save.
    Status(status::StatusArgs),
    /// Print all records of one kind.
    Show(show::ShowArgs),
    /// Print the history of memory commits.
    Log(log::LogArgs),
    /// Show how memory changed between two points, per view file.
    Diff(diff::DiffArgs),
    /// Share memory with a git remote: fetch, merge by set union, push (never forced).
    Sync(sync::SyncArgs),
    /// Choose the remotes memory goes to (opt in, opt out, list).
    Remote(sync::RemoteArgs),
    /// Replace what a remote holds that this clone refuses with clean tips, and share them.
    Repair(repair::RepairArgs),
    /// Compact memory history (every live record kept) and share it with the remote.
    Gc(gc::GcArgs),
    /// Check memory against git's object hashes, the record rules and the view.
    Verify(verify::VerifyArgs),
    /// Show the memory behind a commit, or behind the commit that last changed <file>:<line>.
    Why(why::WhyArgs),
    /// Install, remove or inspect git-rune's git hooks.
    Hooks(hooks::HooksArgs),
    /// Wire agents to memory: Claude Code's hooks, or a block in AGENTS.md for the others.
    Agent(agent::AgentArgs),
    /// Serve memory to agents over the Model Context Protocol (stdio), for this repository.
    #[cfg(feature = "mcp")]
    Mcp(mcp::McpArgs),
    /// The context engine: session health, bundle previews, the baseline budget, artifacts.
    Context(context::ContextArgs),
    /// Run a command and fold output too large for an agent's context into .rune/artifacts/.
    Fold(context::FoldArgs),
    /// Set the behavioural mode (dev, research, review, off) and the output density.
    Mode(context::ModeArgs),
    /// Install the manual pages `git rune --help` shows.
    InstallMan(man::InstallManArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(man::CompletionsArgs),
    /// Run one git hook (called by the installed shims; set GIT_RUNE_SKIP_HOOKS=1 to skip).
    #[command(hide = true)]
    Hook(hooks::HookArgs),
}

/// What every command gets: where to run, how to talk, and how to seal new records.
pub struct Context {
    pub dir: PathBuf,
    /// The command line's clap definition (the manual pages and completions describe it).
    pub cli: fn() -> clap::Command,
    pub ui: Ui,
    /// Redact secrets instead of refusing the record.
    pub redact: bool,
}

impl Context {
    /// Opens the repository around `-C` (or the current directory), first merging memory a
    /// plain `git fetch` brought into the tracking namespace since the last merge (a cheap
    /// comparison of ref ids when nothing came; a failed merge is a warning, never fatal).
    pub fn store(&self) -> Result<Store> {
        let store = self.open_store()?;
        report_upkeep(self, &crate::upkeep::merge(&store));
        Ok(store)
    }

    /// Opens the repository without merging fetched memory (sync does that itself).
    pub fn open_store(&self) -> Result<Store> {
        Store::open(&self.dir).map_err(|e| match e {
            StoreError::NotARepository(p) => user_error(
                format!("not a git repository: {}", p.display()),
                "run git rune inside a git repository (create one with `git init`)",
            ),
            other => other.into(),
        })
    }

    /// Prints what a command that changes things did (its report, not data a script asks
    /// for): `-q` silences it, as `git commit -q` does; `--json` output always prints.
    pub fn report(&self, out: &str) -> std::io::Result<()> {
        if self.ui.json || !self.ui.quiet {
            self.ui.print(out)?;
        }
        Ok(())
    }

    /// A sealer under this command's policy.
    pub fn sealer(&self) -> Sealer {
        Sealer::new(self.redact)
    }

    /// Reports the secrets a sealer redacted.
    pub fn report_redactions(&self, sealer: &mut Sealer) {
        for r in sealer.take_redactions() {
            self.ui
                .status(format_args!("redacted a secret ({}) in {}", r.rule, r.at));
        }
    }

    /// Reports a write: the ref, commit and summary, the identity hint, and view files that
    /// kept unsaved edits.
    pub fn report_written(&self, store: &Store, written: &Written) {
        identity_hint(self, store);
        self.ui.status(format_args!(
            "{} {} {}",
            written.refname,
            short(&written.commit.to_string()),
            written.summary
        ));
        self.report_kept(written.view.as_ref());
    }

    /// Reports what saving the echoes directory did (status lines), for `save` and `consolidate`.
    pub fn report_echoes_saved(
        &self,
        store: &Store,
        sealer: &mut Sealer,
        saved: &crate::echoes::save::EchoSaved,
    ) {
        self.report_redactions(sealer);
        if let Some(w) = &saved.written {
            self.report_written(store, w);
        }
        for f in &saved.files {
            self.ui.status(format_args!("saved {f}"));
        }
        for f in &saved.consolidated {
            self.ui.status(format_args!("consolidated and removed {f}"));
        }
        for k in &saved.kept {
            self.ui.warn(format_args!("kept {k}"));
        }
        for n in &saved.notes {
            self.ui.status(format_args!("note: {n}"));
        }
        if saved.archived > 0 || saved.pruned > 0 {
            self.ui.status(format_args!(
                "archived {} entries (memory's history keeps them)",
                saved.archived + saved.pruned
            ));
        }
    }

    /// Re-renders the view after refs moved underneath it (a sync), warning about files
    /// with unsaved edits it left alone.
    pub fn refresh_view(&self, store: &Store) {
        match crate::memory::write::refresh_view(store) {
            Ok(refresh) => self.report_kept(refresh.as_ref()),
            Err(e) => self
                .ui
                .warn(format_args!("the .rune/ view was not refreshed: {e:#}")),
        }
        match crate::echoes::refresh(store) {
            Ok(kept) => {
                for p in kept {
                    self.ui.warn(format_args!(
                        "{} has unsaved edits and was not refreshed; run `git rune save` to keep them",
                        p.display()
                    ));
                }
            }
            Err(e) => self.ui.warn(format_args!(
                "the echoes directory was not refreshed: {e:#}"
            )),
        }
    }

    /// Warns about view files a refresh left alone because they hold unsaved edits.
    pub fn report_kept(&self, refresh: Option<&Refresh>) {
        for file in refresh.map(|r| r.kept.as_slice()).unwrap_or_default() {
            self.ui.warn(format_args!(
                "{VIEW_DIR}/{} has unsaved edits and was not refreshed; run `git rune save` to keep them",
                file.name()
            ));
        }
    }
}

/// Tells the user when records are attributed to the fallback identity.
fn identity_hint(ctx: &Context, store: &Store) {
    if store.author.fallback {
        ctx.ui.status(format_args!(
            "hint: no git identity is configured; memory is attributed to {}. Set one with \
             `git config user.name \"Your Name\"` and `git config user.email you@example.com`",
            store.author.display()
        ));
    }
}

/// Runs one command. `cli` is the command line's definition (`cli::command`).
pub fn run(global: GlobalArgs, command: Command, cli: fn() -> clap::Command) -> Result<ExitCode> {
    let dir = match global.directory {
        Some(d) => d,
        None => std::env::current_dir().map_err(|e| {
            user_error(
                format!("cannot read the current directory: {e}"),
                "cd into your repository and try again",
            )
        })?,
    };
    let ctx = Context {
        dir,
        cli,
        redact: global.redact,
        ui: Ui {
            quiet: global.quiet,
            json: global.json,
        },
    };
    match command {
        Command::Init(a) => init::run(&ctx, a),
        Command::Agent(a) => {
            // An agent's hooks never pay for starting another process.
            crate::store::no_auto_maintenance();
            agent::run(&ctx, a)
        }
        #[cfg(feature = "mcp")]
        Command::Mcp(a) => mcp::run(&ctx, a),
        Command::Context(a) => context::run(&ctx, a),
        Command::Fold(a) => context::fold(&ctx, a),
        Command::Mode(a) => context::mode_cmd(&ctx, a),
        Command::Decide(a) => record::decide(&ctx, a),
        Command::Convention(a) => record::convention(&ctx, a),
        Command::Learn(a) => record::learn(&ctx, a),
        Command::Instinct(a) => record::instinct(&ctx, a),
        Command::Progress(a) => record::progress(&ctx, a),
        Command::Checkpoint(a) => record::checkpoint(&ctx, a),
        Command::Resume(a) => record::resume(&ctx, a),
        Command::Remember(a) => record::remember(&ctx, a),
        Command::Task(a) => task::run(&ctx, a),
        Command::ContextBlock(a) => task::context_block(&ctx, a),
        Command::Oracle(a) => oracle::run(&ctx, a),
        Command::Echo(a) => echo::run(&ctx, a),
        Command::Import(a) => transfer::import(&ctx, a),
        Command::Export(a) => transfer::export(&ctx, a),
        Command::Save(a) => save::run(&ctx, a),
        Command::Restore(a) => restore::run(&ctx, a),
        Command::Load(a) => load::run(&ctx, a),
        Command::Status(a) => status::run(&ctx, a),
        Command::Show(a) => show::run(&ctx, a),
        Command::Log(a) => log::run(&ctx, a),
        Command::Diff(a) => diff::run(&ctx, a),
        Command::Sync(a) => sync::run(&ctx, a),
        Command::Remote(a) => sync::remote(&ctx, a),
        Command::Repair(a) => repair::run(&ctx, a),
        Command::Gc(a) => gc::run(&ctx, a),
        Command::Verify(a) => verify::run(&ctx, a),
        Command::Why(a) => why::run(&ctx, a),
        Command::Hooks(a) => hooks::hooks(&ctx, a),
        Command::InstallMan(a) => man::install(&ctx, a),
        Command::Completions(a) => man::completions(&ctx, a),
        Command::Hook(a) => {
            // Git starts its own maintenance after the command that ran the hook.
            crate::store::no_auto_maintenance();
            hooks::hook(&ctx, a)
        }
    }
}

/// Says what the upkeep wrote (status lines, `-q` silences them) and what it could not do
/// (warnings).
pub(crate) fn report_upkeep(ctx: &Context, up: &crate::upkeep::Upkeep) {
    use crate::memory::record::{PRUNE_CONFIDENCE, PRUNE_DAYS};
    use crate::model::oracle::ORPHAN_HOURS;
    for r in &up.merged {
        let came =
            r.incoming().values().sum::<usize>() + r.notes.as_ref().map_or(0, |n| n.incoming);
        if came > 0 {
            ctx.ui.status(format_args!(
                "git-rune: merged memory fetched from {} ({came} new)",
                r.remote
            ));
        }
    }
    if up.pruned > 0 {
        let n = up.pruned;
        ctx.ui.status(format_args!(
            "git-rune: pruned {n} instinct{} older than {PRUNE_DAYS} days with confidence below {PRUNE_CONFIDENCE} (history keeps them)",
            if n == 1 { "" } else { "s" }
        ));
    }
    if up.orphaned > 0 {
        let n = up.orphaned;
        ctx.ui.status(format_args!(
            "git-rune: marked {n} oracle dispatch{} pending for more than {ORPHAN_HOURS} hours orphaned (history keeps them)",
            if n == 1 { "" } else { "es" }
        ));
    }
    for f in &up.failures {
        ctx.ui.warn(format_args!("{f}"));
    }
}
