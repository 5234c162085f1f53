//! The commands: one module per subcommand (its arguments and a thin `run`: call a use case,
//! print), the [`Command`] enum and its one dispatch, and the [`Context`] every command gets.
//!
//! Past 600 lines: the enum, its dispatch and the context are one table of every subcommand;
//! split, adding a command would mean editing two files in step.

pub(crate) mod agent;
mod context;
mod diff;
mod echo;
mod gc;
pub(crate) mod hooks;
mod init;
mod input;
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

use crate::error;
use crate::memory::seal::Sealer;
use crate::memory::view_dir::{Refresh, VIEW_DIR};
use crate::memory::write::Written;
use crate::output::Ui;
use crate::store::Store;
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

    /// When to colour output: auto (on a terminal, unless NO_COLOR is set or color.ui says
    /// never), always or never.
    #[arg(long, global = true, value_name = "WHEN", value_parser = ["auto", "always", "never"])]
    pub color: Option<String>,

    /// Do not pipe `log`, `diff` and `show` into a pager (as `git --no-pager`).
    #[arg(long, global = true)]
    pub no_pager: bool,
}

/// `--redact`, on the commands that write records.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct Redact {
    /// Keep a record that contains a secret, with the secret replaced by its prefix and
    /// ***REDACTED***, instead of refusing it.
    #[arg(long)]
    pub redact: bool,
}

impl Command {
    /// Whether the command was given `--redact` (only commands that write take it).
    fn redact(&self) -> bool {
        match self {
            Command::Decide(a) => a.redact.redact,
            Command::Convention(a) => a.redact.redact,
            Command::Learn(a) => a.redact.redact,
            Command::Instinct(a) => a.redact.redact,
            Command::Progress(a) => a.redact.redact,
            Command::Checkpoint(a) => a.redact.redact,
            Command::Remember(a) => a.redact.redact,
            Command::Save(a) => a.redact.redact,
            Command::Import(a) => a.redact,
            #[cfg(feature = "mcp")]
            Command::Mcp(a) => a.redact.redact,
            Command::Task(a) => task::redact(a),
            Command::ContextBlock(a) => task::block_redact(a),
            Command::Oracle(a) => oracle::redact(a),
            // Of the echo commands only `echo add` writes text.
            Command::Echo(a) => matches!(&a.command, echo::EchoCommand::Add(a) if a.redact.redact),
            _ => false,
        }
    }
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
    /// Show a command's manual page, or its long help when no page is installed.
    Help(man::HelpArgs),
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
    /// `--color`, if given.
    pub color: Option<String>,
    /// `--no-pager`.
    pub no_pager: bool,
    /// The flag that read standard input, if one did (it can be read once).
    pub stdin_read_by: std::cell::Cell<Option<String>>,
    /// The common directory of the repository opened as a reader: the gate's verdicts this
    /// command scanned are kept there as it exits.
    pub read_in: std::cell::RefCell<Option<PathBuf>>,
}

impl Context {
    /// The context a command runs in: `dir` (the current directory, or `-C`), talking
    /// through `ui` (stdout and stderr, or buffers in tests).
    pub fn new(
        dir: PathBuf,
        cli: fn() -> clap::Command,
        global: &GlobalArgs,
        command: &Command,
        ui: Ui,
    ) -> Context {
        Context {
            dir,
            cli,
            redact: command.redact(),
            color: global.color.clone(),
            no_pager: global.no_pager,
            stdin_read_by: Default::default(),
            read_in: Default::default(),
            ui,
        }
    }

    /// Opens the repository around `-C` (or the current directory), first merging memory a
    /// plain `git fetch` brought into the tracking namespace since the last merge (a cheap
    /// comparison of ref ids when nothing came; a failed merge is a warning, never fatal).
    pub fn store(&self) -> Result<Store> {
        let opened = crate::open::open(&self.dir, crate::open::Opener::Reader)?;
        *self.read_in.borrow_mut() = Some(opened.store.common_dir().to_path_buf());
        self.check_settings(&opened.store);
        report_upkeep(self, &opened.upkeep);
        // The view shows memory as it is and the branch HEAD is on, whatever moved them
        // (a switch without hooks, another worktree's write).
        match &opened.view {
            Ok(refresh) => self.report_kept(refresh.as_ref()),
            Err(e) => self.ui.warn(e),
        }
        Ok(opened.store)
    }

    /// Opens the repository without merging fetched memory (sync does that itself).
    pub fn open_store(&self) -> Result<Store> {
        let store = crate::open::open(&self.dir, crate::open::Opener::Plain)?.store;
        self.check_settings(&store);
        Ok(store)
    }

    /// A `rune.*` value of the wrong type is said once per command, naming the key.
    fn check_settings(&self, store: &Store) {
        for w in crate::settings::check(&store.config_entries("rune")) {
            self.ui.warn(w);
        }
    }

    /// Prints what a command that changes things did (its report, not data a script asks
    /// for): `-q` silences it, as `git commit -q` does; `--json` output always prints.
    pub fn report(&self, out: &str) -> std::io::Result<()> {
        if self.ui.json || !self.ui.quiet {
            self.ui.print(out)?;
        }
        Ok(())
    }

    /// Reports `out` (as [`Context::report`]): the command's last step.
    pub fn reported(&self, out: &str) -> Result<ExitCode> {
        self.report(out)?;
        Ok(ExitCode::SUCCESS)
    }

    /// Prints `out` (data on stdout): the command's last step.
    pub fn print(&self, out: &str) -> Result<ExitCode> {
        self.ui.print(out)?;
        Ok(ExitCode::SUCCESS)
    }

    /// Prints `v` as one line of JSON: the command's last step.
    pub fn print_json(&self, v: &impl serde::Serialize) -> Result<ExitCode> {
        self.print(&(crate::output::json::line(v) + "\n"))
    }

    /// For the commands git pages and colours (`log`, `diff`, `show`): colour as `--color`,
    /// `NO_COLOR` and `color.ui` say, and a pager on a terminal as git chooses one.
    pub fn page(&self, store: &Store) {
        self.ui.set_color(crate::output::pager::color(
            self.color.as_deref(),
            store.config_string("color.ui"),
        ));
        if !self.ui.json {
            self.ui.start_pager(crate::output::pager::choose(
                self.no_pager,
                store.config_string("core.pager"),
            ));
        }
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

    /// Says, once, that this clone is not set up when its memory is empty: a clone does not
    /// fetch a remote's memory, so an empty `load`, `status` or `log` here says nothing about
    /// what the remote holds.
    pub fn hint_not_set_up(&self, store: &Store) {
        if self.ui.json || !store.memory_refs().is_ok_and(|r| r.is_empty()) {
            return;
        }
        let Some(remote) = store.default_remote() else {
            return;
        };
        let [spec, ..] = crate::store::fetch_refspecs(&remote);
        if store.config_has(&format!("remote.{remote}.fetch"), &spec) {
            return;
        }
        self.ui.status(format_args!(
            "hint: memory is empty in this clone, and git-rune is not set up here: a clone does not fetch the memory {remote} may hold; run `git rune init` to set up and bring it in"
        ));
    }

    /// Tells the writer at once about each record the load gate will withhold or mark, so it
    /// is not found missing from every later `load`. A withheld record is named by kind and
    /// id only: its text is what the gate keeps from agents.
    pub fn report_gate(&self, records: &[crate::model::Record]) {
        use crate::integrity::gate::{gate, Gate};
        for r in records {
            match gate(r) {
                Gate::Withheld => self.ui.warn(format_args!(
                    "{} {} is recorded, but the integrity gate rates it TAINTED: `load`, the views and agents will not show it; reword it (`git rune verify` says why)",
                    r.kind().as_str(),
                    crate::text::short(&r.id)
                )),
                Gate::Suspicious(rules) => self.ui.status(format_args!(
                    "note: {} {:?} will be shown marked SUSPICIOUS ({})",
                    r.kind().as_str(),
                    crate::text::one_line(r.body.title()),
                    rules.join(", ")
                )),
                Gate::Clean => {}
            }
        }
    }

    /// Reports a write (if there was one): the ref, commit and summary, the identity hint, and view files that
    /// kept unsaved edits.
    pub fn report_written(&self, store: &Store, written: Option<&Written>) {
        let Some(written) = written else { return };
        identity_hint(self, store);
        self.report_gate(&written.records);
        if crate::memory::view_dir::View::open(store).is_some_and(|v| !v.checked_out()) {
            self.ui.status(format_args!(
                "hint: the record is in memory, but git-rune is not set up in this clone, so there is no {VIEW_DIR}/ view to show it: run `git rune init` to check it out"
            ));
        }
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
        self.report_written(store, saved.written.as_ref());
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
        for d in &saved.documents {
            self.ui.status(format_args!("saved {d}"));
        }
        for (f, why) in &saved.refused {
            self.ui.warn(format_args!(
                "{f} is not kept in memory: {why}; keep it outside the echoes directory"
            ));
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
        self.refresh_echoes(store, "refreshed");
    }

    /// Re-renders the echoes directory, warning about files with unsaved edits it left alone,
    /// or that it was not `failed` ("refreshed", "checked out").
    pub fn refresh_echoes(&self, store: &Store, failed: &str) {
        match crate::echoes::refresh(store, false) {
            Ok(kept) => {
                for p in kept {
                    self.ui.warn(format_args!(
                        "{} has unsaved edits and was not refreshed; run `git rune save` to keep them",
                        p.display()
                    ));
                }
            }
            Err(e) => self
                .ui
                .warn(format_args!("the echoes directory was not {failed}: {e:#}")),
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

/// After installing hooks: when the hooks directory is inside the work tree (husky's
/// `core.hooksPath`), the files git-rune created there are kept out of `git status`, and the
/// user is told so, and which of their own (tracked) hooks now call git-rune.
fn report_hooks_in_work_tree(ctx: &Context, store: &Store, dir: &std::path::Path) {
    match crate::hooks::install::in_work_tree(store, dir) {
        Ok(Some(w)) => {
            let rel = &w.dir;
            if !w.created.is_empty() {
                ctx.ui.status(format_args!(
                    "the hooks directory {rel}/ (core.hooksPath) is inside the work tree: git-rune's new hook files there ({}) are kept out of `git status` through .git/info/exclude; to share them with your team, remove those lines and commit the files",
                    w.created.join(", ")
                ));
            }
            if !w.chained.is_empty() {
                ctx.ui.status(format_args!(
                    "git-rune added itself to your own {} in {rel}/: `git status` shows the change; commit it to share it, or `git rune hooks uninstall` takes it out",
                    w.chained.join(", ")
                ));
            }
        }
        Ok(None) => {}
        Err(e) => ctx.ui.warn(e),
    }
}

/// The verb a report uses: what a `--dry-run` would do, or what was done.
fn dry_run_verb(dry_run: bool, would: &'static str, did: &'static str) -> &'static str {
    if dry_run {
        would
    } else {
        did
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
    let dir = match global.directory.clone() {
        // git's words for a -C that goes nowhere, rather than "not a git repository".
        Some(d) if !d.is_dir() => {
            let why = match std::fs::metadata(&d) {
                Ok(_) => "Not a directory".to_owned(),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    "No such file or directory".to_owned()
                }
                Err(e) => e.to_string(),
            };
            return Err(error::input(
                format!("cannot change to '{}': {why}", d.display()),
                "give -C a directory that exists",
            ));
        }
        Some(d) => d,
        None => std::env::current_dir().map_err(|e| {
            error::environment(
                format!("cannot read the current directory: {}", error::io_text(&e)),
                "cd into your repository and try again",
            )
        })?,
    };
    let ctx = Context::new(
        dir,
        cli,
        &global,
        &command,
        Ui::new(global.quiet, global.json),
    );
    let result = dispatch(&ctx, command);
    if let Some(dir) = ctx.read_in.borrow().as_deref() {
        crate::memory::cache::verdicts::keep_in(dir);
    }
    ctx.ui.finish();
    result
}

#[cfg(test)]
mod snapshot_tests;

/// Runs `command` in `ctx`.
pub fn dispatch(ctx: &Context, command: Command) -> Result<ExitCode> {
    match command {
        Command::Init(a) => init::run(ctx, a),
        Command::Agent(a) => {
            // An agent's hooks never pay for starting another process.
            crate::store::no_auto_maintenance();
            agent::run(ctx, a)
        }
        #[cfg(feature = "mcp")]
        Command::Mcp(a) => mcp::run(ctx, a),
        Command::Context(a) => context::run(ctx, a),
        Command::Fold(a) => context::fold(ctx, a),
        Command::Mode(a) => context::mode_cmd(ctx, a),
        Command::Decide(a) => record::decide(ctx, a),
        Command::Convention(a) => record::convention(ctx, a),
        Command::Learn(a) => record::learn(ctx, a),
        Command::Instinct(a) => record::instinct(ctx, a),
        Command::Progress(a) => record::progress(ctx, a),
        Command::Checkpoint(a) => record::checkpoint(ctx, a),
        Command::Resume(a) => record::resume(ctx, a),
        Command::Remember(a) => record::remember(ctx, a),
        Command::Task(a) => task::run(ctx, a),
        Command::ContextBlock(a) => task::context_block(ctx, a),
        Command::Oracle(a) => oracle::run(ctx, a),
        Command::Echo(a) => echo::run(ctx, a),
        Command::Import(a) => transfer::import(ctx, a),
        Command::Export(a) => transfer::export(ctx, a),
        Command::Save(a) => save::run(ctx, a),
        Command::Restore(a) => restore::run(ctx, a),
        Command::Load(a) => load::run(ctx, a),
        Command::Status(a) => status::run(ctx, a),
        Command::Show(a) => show::run(ctx, a),
        Command::Log(a) => log::run(ctx, a),
        Command::Diff(a) => diff::run(ctx, a),
        Command::Sync(a) => sync::run(ctx, a),
        Command::Remote(a) => sync::remote(ctx, a),
        Command::Repair(a) => repair::run(ctx, a),
        Command::Gc(a) => gc::run(ctx, a),
        Command::Verify(a) => verify::run(ctx, a),
        Command::Why(a) => why::run(ctx, a),
        Command::Hooks(a) => hooks::hooks(ctx, a),
        Command::InstallMan(a) => man::install(ctx, a),
        Command::Help(a) => man::help(ctx, a),
        Command::Completions(a) => man::completions(ctx, a),
        Command::Hook(a) => {
            // Git starts its own maintenance after the command that ran the hook.
            crate::store::no_auto_maintenance();
            hooks::hook(ctx, a)
        }
    }
}

/// Says what the upkeep wrote (status lines, `-q` silences them) and what it could not do
/// (warnings).
pub(crate) fn report_upkeep(ctx: &Context, up: &crate::upkeep::Upkeep) {
    use crate::memory::record::{PRUNE_CONFIDENCE, PRUNE_DAYS};
    use crate::model::oracle::ORPHAN_HOURS;
    for r in &up.merged {
        let what =
            crate::output::kind_counts(&r.incoming(), r.notes.as_ref().map_or(0, |n| n.incoming));
        if !what.is_empty() {
            ctx.ui.status(format_args!(
                "git-rune: merged memory `git fetch` brought from {}: {what} new",
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
    for f in up.failures.iter().chain(&up.warnings) {
        ctx.ui.warn(format_args!("{f}"));
    }
}
