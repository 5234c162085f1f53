//! `git rune echo …`: role memories with a lifecycle (seed 002). The use cases are in
//! `echoes/`.

use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand};

mod lifecycle;

use super::Context;
use crate::echoes::{self, Added, Filter, NewEcho};
use crate::model::echo::{format_confidence, LAYERS};
use crate::model::kinds::Echo;
use crate::model::{Body, Record};
use crate::output::json;
use crate::text::sanitize;
use lifecycle::{compress, consolidate, migrate, promote, prune, remembrance, reset, set_archived};

#[derive(Debug, Args)]
pub struct EchoArgs {
    #[command(subcommand)]
    pub command: EchoCommand,
}

#[derive(Debug, Subcommand)]
pub enum EchoCommand {
    /// Add an entry to a role's memory (etched ones need --confirm or a yes on a terminal).
    Add(EchoAddArgs),
    /// List a role's entries with their Echo Score (--archived: the archive).
    Show(EchoShowArgs),
    /// Search entries by relevance to a query, weighted by their Echo Score.
    Search(EchoSearchArgs),
    /// Record that a workflow used an entry (feeds its Relevance).
    Ref(EchoRefArgs),
    /// Move an entry to its role's archive (etched: with --confirm).
    Archive(EchoIdArgs),
    /// Bring an archived entry back.
    Restore(EchoIdArgs),
    /// Archive every entry of a role (history keeps them; etched ones only with --confirm).
    Reset(EchoResetArgs),
    /// Archive stale entries of roles whose MEMORY.md is over 150 lines (the seed's rules).
    Prune(EchoPruneArgs),
    /// Consolidate the agents' <role>/<agent>-findings.md files into memory.
    Consolidate,
    /// Group related entries of roles over 300 lines into knowledge blocks (knowledge.md).
    Compress(EchoCompressArgs),
    /// Write an etched entry as a Remembrance document in docs/solutions/ (the seed's rules).
    Promote(EchoPromoteArgs),
    /// List the Remembrance documents in docs/solutions/, of a category or matching --search.
    Remembrance(EchoRemembranceArgs),
    /// Rename old agent or concept names in the entries' metadata (never in the learning).
    Migrate(EchoMigrateArgs),
}

#[derive(Debug, Args)]
pub struct EchoMigrateArgs {
    /// OLD=NEW, as many as needed.
    #[arg(long = "rename", value_name = "OLD=NEW", required = true)]
    pub renames: Vec<String>,
    /// Report the changes without writing them.
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Args)]
pub struct EchoPromoteArgs {
    /// The entry's id (a prefix of it is enough).
    pub id: String,
    /// build-errors, test-failures, runtime-errors, configuration, performance, security,
    /// architecture or tooling.
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(crate::echoes::remembrance::CATEGORIES))]
    pub category: String,
    /// What people see (default: the entry's `symptom` line).
    #[arg(long)]
    pub symptom: Option<String>,
    /// Why it happens (default: the entry's `root_cause` line).
    #[arg(long)]
    pub root_cause: Option<String>,
    /// What fixes it (default: the entry's `solution_summary` line).
    #[arg(long)]
    pub solution: Option<String>,
    /// Tags (comma-separated; default: the entry's `tags` line).
    #[arg(long, value_delimiter = ',')]
    pub tags: Vec<String>,
    /// A person verified it (asked again on the terminal; required for security).
    #[arg(long)]
    pub verified_by_human: bool,
    /// Check the rules and print the document's path without writing it.
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Args)]
pub struct EchoRemembranceArgs {
    /// Only this category.
    pub category: Option<String>,
    /// Only documents matching this query, best first.
    #[arg(long)]
    pub search: Option<String>,
}

#[derive(Debug, Args)]
pub struct EchoCompressArgs {
    /// Only this role.
    #[arg(long)]
    pub role: Option<String>,
    /// Say what would be compressed without writing.
    #[arg(long)]
    pub dry_run: bool,
    /// Compress even when MEMORY.md is not over 300 lines.
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct EchoAddArgs {
    #[command(flatten)]
    pub redact: crate::commands::Redact,
    /// The entry's title, usually with its kind word: "Pattern: Unused imports in new files".
    pub title: String,
    /// The role: planner, workers, reviewer, auditor, team, or your own.
    #[arg(long)]
    pub role: String,
    /// etched (permanent), notes (the user's, never pruned), inscribed (tactical),
    /// observations (agent-observed, 60 days) or traced (session).
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(LAYERS))]
    pub layer: String,
    /// `file:lines` — what was found.
    #[arg(long, default_value = "")]
    pub evidence: String,
    /// 0.0 to 1.0.
    #[arg(long)]
    pub confidence: f64,
    /// Where it comes from (`rune:review PR #42`); default `manual`.
    #[arg(long, default_value = "manual")]
    pub source: String,
    /// The title of the entry this one replaces.
    #[arg(long, default_value = "")]
    pub supersedes: String,
    /// The learning, in 1 to 3 sentences.
    #[arg(long)]
    pub text: String,
    /// Confirm adding an etched (permanent) entry.
    #[arg(long)]
    pub confirm: bool,
}

#[derive(Debug, Args)]
pub struct EchoShowArgs {
    /// Only this role's entries.
    #[arg(long)]
    pub role: Option<String>,
    /// Only this layer's entries.
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(LAYERS))]
    pub layer: Option<String>,
    /// The archived entries instead of the active ones.
    #[arg(long)]
    pub archived: bool,
}

#[derive(Debug, Args)]
pub struct EchoSearchArgs {
    /// What to look for: "what do we know about N+1 queries".
    pub query: String,
    /// Only this role's entries.
    #[arg(long)]
    pub role: Option<String>,
    /// At most this many results.
    #[arg(long, default_value_t = 10)]
    pub limit: usize,
}

#[derive(Debug, Args)]
pub struct EchoRefArgs {
    /// The entry's id (a prefix of it is enough).
    pub id: String,
    /// The workflow or session that used it (default: one of its own).
    #[arg(long)]
    pub workflow: Option<String>,
}

#[derive(Debug, Args)]
pub struct EchoIdArgs {
    /// The entry's id (a prefix of it is enough).
    pub id: String,
    /// Confirm archiving an etched entry.
    #[arg(long)]
    pub confirm: bool,
}

#[derive(Debug, Args)]
pub struct EchoResetArgs {
    /// The role to reset.
    #[arg(long)]
    pub role: String,
    /// Archive its etched entries too.
    #[arg(long)]
    pub confirm: bool,
}

#[derive(Debug, Args)]
pub struct EchoPruneArgs {
    /// Only this role.
    #[arg(long)]
    pub role: Option<String>,
    /// Say what would be archived without writing.
    #[arg(long)]
    pub dry_run: bool,
}

/// Asks a yes/no question on the terminal; false when stdin or stderr is not one.
pub(super) fn ask_yes(question: &str) -> bool {
    if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        return false;
    }
    let _ = write!(std::io::stderr(), "{question} [y/N] ");
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    if std::io::stdin().lock().read_line(&mut line).is_err() {
        return false;
    }
    matches!(line.trim().to_lowercase().as_str(), "y" | "yes")
}

pub fn run(ctx: &Context, a: EchoArgs) -> Result<ExitCode> {
    match a.command {
        EchoCommand::Add(a) => add(ctx, a),
        EchoCommand::Show(a) => show(ctx, a),
        EchoCommand::Search(a) => search(ctx, a),
        EchoCommand::Ref(a) => reference(ctx, a),
        EchoCommand::Archive(a) => set_archived(ctx, a, true),
        EchoCommand::Restore(a) => set_archived(ctx, a, false),
        EchoCommand::Reset(a) => reset(ctx, a),
        EchoCommand::Prune(a) => prune(ctx, a),
        EchoCommand::Consolidate => consolidate(ctx),
        EchoCommand::Compress(a) => compress(ctx, a),
        EchoCommand::Promote(a) => promote(ctx, a),
        EchoCommand::Remembrance(a) => remembrance(ctx, a),
        EchoCommand::Migrate(a) => migrate(ctx, a),
    }
}

/// Re-renders the echoes directory after a write, warning about files it left alone.
pub(super) fn refresh(ctx: &Context, store: &crate::store::Store) {
    ctx.refresh_echoes(store, "refreshed");
}

fn add(ctx: &Context, a: EchoAddArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    // Every write refuses this itself; said here too, before the confirmation is asked.
    crate::memory::write::check_view_writable(&store)?;
    let mut sealer = ctx.sealer();
    let confirmed = a.confirm
        || (a.layer == "etched"
            && ask_yes(&format!(
                "add {:?} as an etched (permanent) entry of {}?",
                a.title, a.role
            )));
    let added = echoes::add(
        &store,
        &mut sealer,
        NewEcho {
            role: a.role,
            layer: a.layer,
            title: a.title,
            source: a.source,
            confidence: a.confidence,
            evidence: a.evidence,
            supersedes: a.supersedes,
            text: a.text,
        },
        confirmed,
    )?;
    ctx.report_redactions(&mut sealer);
    let (w, what) = match &added {
        Added::New(w) => (Some(w), "added"),
        Added::Merged(w) => (Some(w), "merged into the existing entry"),
        Added::Unchanged(_) => (None, "already recorded"),
    };
    ctx.report_written(&store, w);
    refresh(ctx, &store);
    let record = w.and_then(|w| w.records.first());
    let uid = match (&added, record) {
        (_, Some(r)) => echoes::uid_of(r).to_owned(),
        (Added::Unchanged(u), None) => u.clone(),
        _ => String::new(),
    };
    if ctx.ui.json {
        return ctx.print_json(&json::echo_added(what, &uid, record));
    }
    ctx.reported(&format!("{what}: echo {uid}\n"))
}

fn entry_line(r: &Record, score: f64) -> String {
    let Some(e) = Echo::of(&r.body) else {
        return String::new();
    };
    // The title through the gate: the placeholder when the entry is withheld.
    let shown = crate::integrity::gate::shown_title(r);
    let title = if shown == e.title { &e.title } else { &shown };
    format!(
        "{}  {}  {:<9}  score {score:.2}  conf {}  [{}] {}\n",
        e.uid,
        e.role,
        e.layer,
        format_confidence(e.confidence),
        e.date,
        sanitize(title)
    )
}

fn show(ctx: &Context, a: EchoShowArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    let echoes = crate::memory::cache::echoes::current(&store)?;
    let filter = Filter {
        role: a.role,
        layer: a.layer,
        archived: a.archived,
    };
    let listed = echoes::list(&echoes, &filter);
    let mut out = String::new();
    for (r, s) in &listed {
        if ctx.ui.json {
            let v = json::echo_listed(r, s.total, s.references, None);
            out.push_str(&(json::line(&v) + "\n"));
        } else {
            out.push_str(&entry_line(r, s.total));
        }
    }
    if listed.is_empty() && !ctx.ui.json {
        ctx.ui.status(if filter.archived {
            "no archived echoes"
        } else {
            "no echoes (add one with `git rune echo add`)"
        });
    }
    ctx.print(&out)
}

fn search(ctx: &Context, a: EchoSearchArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    let found = echoes::search::search(&store, &a.query, a.role.as_deref(), a.limit.max(1))?;
    let mut out = String::new();
    for f in &found {
        if ctx.ui.json {
            let v = json::echo_listed(
                &f.record,
                f.score.total,
                f.score.references,
                Some(f.relevance),
            );
            out.push_str(&(json::line(&v) + "\n"));
        } else {
            out.push_str(&entry_line(&f.record, f.score.total));
            let shown = crate::integrity::gate::shown(&f.record);
            if let Some(Body::Echo(Echo { text, .. })) = shown.as_deref().map(|r| &r.body) {
                out.push_str(&format!("    {}\n", sanitize(text).replace('\n', "\n    ")));
            }
        }
    }
    if found.is_empty() && !ctx.ui.json {
        ctx.ui.status("no echo matches");
    }
    ctx.print(&out)
}

fn reference(ctx: &Context, a: EchoRefArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    let mut sealer = ctx.sealer();
    let workflow = a
        .workflow
        .unwrap_or_else(|| format!("cli-{}", chrono::Utc::now().format("%Y%m%dT%H%M%S%.9fZ")));
    let (uid, w) = echoes::reference(&store, &mut sealer, &a.id, &workflow)?;
    ctx.report_written(&store, w.as_ref());
    ctx.reported(&format!(
        "referenced echo {uid} ({})\n",
        sanitize(&workflow)
    ))
}
