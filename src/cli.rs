//! The command line: global flags and one subcommand per verb (clap derive).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::commands;

/// Git-native memory for AI coding agents: decisions, conventions, progress and checkpoints
/// committed under refs/rune/, checked out as the .rune/ view.
#[derive(Debug, Parser)]
#[command(
    name = "git-rune",
    bin_name = "git rune",
    version,
    max_term_width = 100
)]
pub struct Cli {
    /// Run as if started in <PATH>.
    #[arg(short = 'C', global = true, value_name = "PATH")]
    pub directory: Option<PathBuf>,

    /// Print machine-readable JSON (see docs/cli.md for the versioned shapes).
    #[arg(long, global = true)]
    pub json: bool,

    /// Silence status messages on stderr; data on stdout is unaffected.
    #[arg(short, long, global = true)]
    pub quiet: bool,

    /// Keep records that contain a secret, with the secret replaced by its prefix and
    /// ***REDACTED***, instead of refusing them.
    #[arg(long, global = true)]
    pub redact: bool,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Set up git-rune in this repository (idempotent).
    Init(commands::init::InitArgs),
    /// Record an architectural decision.
    Decide(commands::record::DecideArgs),
    /// Record a convention the project follows.
    Convention(commands::record::ConventionArgs),
    /// Record a structured learning (latest entry per key and type wins).
    Learn(commands::record::LearnArgs),
    /// Record an instinct: a learned trigger -> action pattern.
    Instinct(commands::record::InstinctArgs),
    /// Record progress on this branch.
    Progress(commands::record::ProgressArgs),
    /// Set this branch's checkpoint: the exact resume point.
    Checkpoint(commands::record::CheckpointArgs),
    /// Mark this branch's open checkpoint resolved (it stays in history).
    Resume(commands::record::ResumeArgs),
    /// Add an item to a section of the cumulative notes or the task notes.
    Remember(commands::record::RememberArgs),
    /// Commit edits made in the .rune/ view and record the session.
    Save(commands::save::SaveArgs),
    /// Print what a new session needs to know, within a token budget.
    Load(commands::load::LoadArgs),
    /// Show view files changed since checkout, and drift of the code since the last save.
    Status(StatusArgs),
    /// Print all records of one kind.
    Show(commands::show::ShowArgs),
    /// Print the history of memory commits.
    Log(commands::log::LogArgs),
    /// Check memory against git's object hashes, the record rules and the view.
    Verify(commands::verify::VerifyArgs),
    /// Show the memory behind a commit, or behind the commit that last changed <file>:<line>.
    Why(commands::why::WhyArgs),
    /// Install, remove or inspect git-rune's git hooks.
    Hooks(commands::hooks::HooksArgs),
    /// Run one git hook (called by the installed shims; set GIT_RUNE_SKIP_HOOKS=1 to skip).
    #[command(hide = true)]
    Hook(commands::hooks::HookArgs),
}

/// `status` takes only the global flags.
#[derive(Debug, Args)]
pub struct StatusArgs {}
