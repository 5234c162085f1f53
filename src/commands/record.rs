//! The record-adding commands: decide, convention, learn, instinct, progress, checkpoint,
//! resume and remember. Each seals one record, commits it at once (one CAS ref update) and
//! refreshes the view.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::builder::PossibleValuesParser;
use clap::{Args, Subcommand};

use super::Context;
use crate::error;
use crate::memory::record;
use crate::memory::seal::{SealError, Sealed};
use crate::memory::write::Written;
use crate::model::kinds::{CumulativeNote, Instinct, Progress, TaskNote};
use crate::model::{
    canonical_section, Body, Draft, LearningType, CUMULATIVE_SECTIONS, TASK_SECTIONS,
};
use crate::output::json;
use crate::store::Store;
use crate::text::{one_line, sanitize};

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("context_text").required(true))]
#[command(group = clap::ArgGroup::new("decision_text").required(true))]
#[command(group = clap::ArgGroup::new("rationale_text").required(true))]
#[command(group = clap::ArgGroup::new("impact_text").required(true))]
pub struct DecideArgs {
    #[command(flatten)]
    pub redact: super::Redact,
    /// Short title of the decision.
    pub title: String,
    /// Why the decision was needed (`-` reads standard input).
    #[arg(long, value_name = "TEXT", group = "context_text")]
    pub context: Option<String>,
    /// Read --context from FILE (`-` for standard input).
    #[arg(long, value_name = "FILE", group = "context_text")]
    pub context_file: Option<PathBuf>,
    /// What was decided (`-` reads standard input).
    #[arg(long, value_name = "TEXT", group = "decision_text")]
    pub decision: Option<String>,
    /// Read --decision from FILE (`-` for standard input), as `git commit -F`.
    #[arg(short = 'F', long, value_name = "FILE", group = "decision_text")]
    pub decision_file: Option<PathBuf>,
    /// Why this approach over the alternatives (`-` reads standard input).
    #[arg(long, value_name = "TEXT", group = "rationale_text")]
    pub rationale: Option<String>,
    /// Read --rationale from FILE (`-` for standard input).
    #[arg(long, value_name = "FILE", group = "rationale_text")]
    pub rationale_file: Option<PathBuf>,
    /// What files or modules are affected (`-` reads standard input).
    #[arg(long, value_name = "TEXT", group = "impact_text")]
    pub impact: Option<String>,
    /// Read --impact from FILE (`-` for standard input).
    #[arg(long, value_name = "FILE", group = "impact_text")]
    pub impact_file: Option<PathBuf>,
    /// Files the decision is about (comma-separated, relative to the current directory); load
    /// marks it stale when they change.
    #[arg(long, value_delimiter = ',')]
    pub files: Vec<String>,
}

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("pattern_text").required(true))]
pub struct ConventionArgs {
    #[command(flatten)]
    pub redact: super::Redact,
    /// Short title of the convention.
    pub title: String,
    /// Description of the convention (`-` reads standard input).
    #[arg(long, value_name = "TEXT", group = "pattern_text")]
    pub pattern: Option<String>,
    /// Read --pattern from FILE (`-` for standard input), as `git commit -F`.
    #[arg(short = 'F', long, value_name = "FILE", group = "pattern_text")]
    pub pattern_file: Option<PathBuf>,
    /// Code example showing the pattern (`-` reads standard input).
    #[arg(long, value_name = "TEXT")]
    pub example: Option<String>,
    /// Read --example from FILE (`-` for standard input).
    #[arg(long, value_name = "FILE", conflicts_with = "example")]
    pub example_file: Option<PathBuf>,
    /// Where the convention applies (`-` reads standard input).
    #[arg(long, value_name = "TEXT")]
    pub applies_to: Option<String>,
    /// Read --applies-to from FILE (`-` for standard input).
    #[arg(long, value_name = "FILE", conflicts_with = "applies_to")]
    pub applies_to_file: Option<PathBuf>,
}

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("insight_text").required(true))]
pub struct LearnArgs {
    #[command(flatten)]
    pub redact: super::Redact,
    /// Kind of learning.
    #[arg(long = "type", value_parser = PossibleValuesParser::new(LearningType::ALL.map(|t| t.as_str())))]
    pub ltype: String,
    /// Dedup key: the latest learning per key and type wins.
    #[arg(long)]
    pub key: String,
    /// One or two sentences, in causal language (`-` reads standard input).
    #[arg(long, value_name = "TEXT", group = "insight_text")]
    pub insight: Option<String>,
    /// Read --insight from FILE (`-` for standard input), as `git commit -F`.
    #[arg(short = 'F', long, value_name = "FILE", group = "insight_text")]
    pub insight_file: Option<PathBuf>,
    /// How certain the learning is, from 0.1 (hunch) to 1.0.
    #[arg(long, default_value_t = 0.7, allow_negative_numbers = true)]
    pub confidence: f64,
    /// Which skill or tool produced the learning.
    #[arg(long)]
    pub skill: Option<String>,
    /// Affected files (comma-separated, relative to the current directory); load marks the
    /// learning stale when they change.
    #[arg(long, value_delimiter = ',')]
    pub files: Vec<String>,
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
#[command(group = clap::ArgGroup::new("trigger_text").required(true))]
#[command(group = clap::ArgGroup::new("action_text").required(true))]
#[command(group = clap::ArgGroup::new("evidence_text").required(true))]
pub struct InstinctArgs {
    #[command(flatten)]
    pub redact: super::Redact,
    #[command(subcommand)]
    pub command: Option<InstinctCommand>,
    /// Short name; recording the same name again replaces the instinct.
    #[arg(required = true)]
    pub name: Option<String>,
    /// When the pattern applies (`-` reads standard input).
    #[arg(long, value_name = "TEXT", group = "trigger_text")]
    pub trigger: Option<String>,
    /// Read --trigger from FILE (`-` for standard input).
    #[arg(long, value_name = "FILE", group = "trigger_text")]
    pub trigger_file: Option<PathBuf>,
    /// What to do (`-` reads standard input).
    #[arg(long, value_name = "TEXT", group = "action_text")]
    pub action: Option<String>,
    /// Read --action from FILE (`-` for standard input).
    #[arg(long, value_name = "FILE", group = "action_text")]
    pub action_file: Option<PathBuf>,
    /// From 0.3 (one-off preference) to 0.9 (repeated correction).
    #[arg(long, allow_negative_numbers = true, required = true)]
    pub confidence: Option<f64>,
    /// What happened that taught this (`-` reads standard input).
    #[arg(long, value_name = "TEXT", group = "evidence_text")]
    pub evidence: Option<String>,
    /// Read --evidence from FILE (`-` for standard input).
    #[arg(long, value_name = "FILE", group = "evidence_text")]
    pub evidence_file: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum InstinctCommand {
    /// Offer instincts held in 2+ projects at confidence 0.8 or more for the user-level memory
    /// (a git repository in your data directory, loaded as its own section): records this
    /// project's strong instincts as sightings there, lists the candidates, and promotes one
    /// by name or `--all`. Nothing leaves the project without this command.
    Promote(PromoteArgs),
}

#[derive(Debug, Args)]
pub struct PromoteArgs {
    /// The instinct to promote, by its name in this project (without it: list the candidates).
    #[arg(conflicts_with = "all")]
    pub name: Option<String>,
    /// Promote every candidate.
    #[arg(long)]
    pub all: bool,
    /// Write nothing, here or in the user-level memory: show what would happen.
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Args)]
pub struct ProgressArgs {
    #[command(flatten)]
    pub redact: super::Redact,
    /// A task completed (repeatable).
    #[arg(long)]
    pub completed: Vec<String>,
    /// A task in progress (repeatable).
    #[arg(long)]
    pub in_progress: Vec<String>,
    /// A blocked task, as "task — reason" (repeatable).
    #[arg(long)]
    pub blocked: Vec<String>,
    /// What the next session should do (repeatable).
    #[arg(long)]
    pub next: Vec<String>,
}

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("doing_text").required(true))]
pub struct CheckpointArgs {
    #[command(flatten)]
    pub redact: super::Redact,
    /// The exact task and sub-step in progress (`-` reads standard input).
    #[arg(long, value_name = "TEXT", group = "doing_text")]
    pub doing: Option<String>,
    /// Read --doing from FILE (`-` for standard input).
    #[arg(long, value_name = "FILE", group = "doing_text")]
    pub doing_file: Option<PathBuf>,
    /// A remaining step, in order (repeatable).
    #[arg(long)]
    pub left: Vec<String>,
    /// Something the next session needs that is not in the code (repeatable).
    #[arg(long)]
    pub context: Vec<String>,
    /// The instruction for the next session to pick up from (`-` reads standard input).
    #[arg(long, value_name = "TEXT")]
    pub resume: Option<String>,
    /// Read --resume from FILE (`-` for standard input).
    #[arg(long, value_name = "FILE", conflicts_with = "resume")]
    pub resume_file: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ResumeArgs {
    /// Also mark the checkpoint resolved (it stays in history); without it, reading the
    /// checkpoint changes nothing.
    #[arg(long)]
    pub done: bool,
}

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("text_text").required(true))]
pub struct RememberArgs {
    #[command(flatten)]
    pub redact: super::Redact,
    /// The item to add (`-` reads standard input).
    #[arg(value_name = "TEXT", group = "text_text")]
    pub text: Option<String>,
    /// Read the item from FILE (`-` for standard input), as `git commit -F`.
    #[arg(short = 'F', long, value_name = "FILE", group = "text_text")]
    pub file: Option<PathBuf>,
    /// A section of cumulative-notes.md (e.g. "Attention Points") or of task-notes.md
    /// (e.g. "What Failed").
    #[arg(long)]
    pub section: String,
    /// The task name for task-notes sections.
    #[arg(long)]
    pub task: Option<String>,
}

/// Seals a body from the command line of `command`; a secret or a bad value changes nothing.
/// A secret is located by the argument it came in.
fn sealed(ctx: &Context, command: &str, body: Body) -> Result<Sealed> {
    let mut sealer = ctx.sealer();
    let cli = (ctx.cli)();
    let out = sealer
        .seal(Draft::new(body), &|field, _| argument(&cli, command, field))
        .map_err(|e| match e {
            SealError::Invalid { kind, error, .. } => error::input(
                format!("invalid {kind}: {error}"),
                "fix the value and run the command again; nothing was recorded",
            ),
            other => other.into(),
        })?;
    ctx.report_redactions(&mut sealer);
    Ok(out)
}

/// The argument of `command` a record field comes from, as the user typed it: `--<long>` for
/// an option, `<VALUE>` for a positional argument (`remember <TEXT>`), read from the command
/// line's own definition so it cannot name a flag that does not exist.
fn argument(cli: &clap::Command, command: &str, field: &str) -> String {
    let id = match field {
        "type" => "ltype",
        other => other,
    };
    let arg = cli
        .find_subcommand(command)
        .and_then(|c| c.get_arguments().find(|a| a.get_id() == id));
    match arg {
        Some(a) => match a.get_long() {
            Some(long) => format!("--{long}"),
            None => format!(
                "<{}>",
                a.get_value_names()
                    .and_then(|v| v.first())
                    .map(|v| v.to_string())
                    .unwrap_or_else(|| id.to_uppercase())
            ),
        },
        None => format!("the {field} value"),
    }
}

/// Reports a write (with `--json`, as data on stdout) and exits 0.
fn done(ctx: &Context, store: &Store, written: Option<Written>) -> Result<ExitCode> {
    ctx.report_written(store, written.as_ref());
    if ctx.ui.json {
        return ctx.print_json(&json::written(written.as_ref()));
    }
    Ok(ExitCode::SUCCESS)
}

/// Seals one record from the command line, commits it as `<verb>: <title>`, reports it.
fn add(ctx: &Context, store: &Store, verb: &str, body: Body) -> Result<ExitCode> {
    let written = record::add(store, verb, sealed(ctx, verb, body)?)?;
    done(ctx, store, written)
}

pub fn decide(ctx: &Context, a: DecideArgs) -> Result<ExitCode> {
    let context = ctx.required_text("--context", a.context, a.context_file)?;
    let decision = ctx.required_text("--decision", a.decision, a.decision_file)?;
    let rationale = ctx.required_text("--rationale", a.rationale, a.rationale_file)?;
    let impact = ctx.required_text("--impact", a.impact, a.impact_file)?;
    let store = ctx.store()?;
    let files = ctx.repo_paths(&store, &a.files)?;
    let body = record::NewDecision {
        title: a.title,
        context,
        decision,
        rationale,
        impact,
        files,
    }
    .body(&store);
    add(ctx, &store, "decide", body)
}

pub fn convention(ctx: &Context, a: ConventionArgs) -> Result<ExitCode> {
    let pattern = ctx.required_text("--pattern", a.pattern, a.pattern_file)?;
    let example = ctx.text("--example", a.example, a.example_file)?;
    let applies_to = ctx.text("--applies-to", a.applies_to, a.applies_to_file)?;
    let store = ctx.store()?;
    let body = record::NewConvention {
        title: a.title,
        pattern,
        example: example.unwrap_or_default(),
        applies_to: applies_to.unwrap_or_default(),
    }
    .body();
    add(ctx, &store, "convention", body)
}

pub fn learn(ctx: &Context, a: LearnArgs) -> Result<ExitCode> {
    let insight = ctx.required_text("--insight", a.insight, a.insight_file)?;
    let store = ctx.store()?;
    let files = ctx.repo_paths(&store, &a.files)?;
    let body = record::NewLearning {
        skill: a.skill.unwrap_or_default(),
        ltype: LearningType::parse(&a.ltype).unwrap_or(LearningType::Insight),
        key: a.key,
        insight,
        confidence: a.confidence,
        files,
    }
    .body(&store);
    add(ctx, &store, "learn", body)
}

pub fn instinct(ctx: &Context, a: InstinctArgs) -> Result<ExitCode> {
    if let Some(InstinctCommand::Promote(p)) = a.command {
        return promote(ctx, p);
    }
    // clap requires every field when there is no subcommand.
    let trigger = ctx.required_text("--trigger", a.trigger, a.trigger_file)?;
    let action = ctx.required_text("--action", a.action, a.action_file)?;
    let evidence = ctx.required_text("--evidence", a.evidence, a.evidence_file)?;
    let store = ctx.store()?;
    let body = Body::Instinct(Instinct {
        name: a.name.unwrap_or_default(),
        trigger,
        action,
        confidence: a.confidence.unwrap_or_default(),
        evidence,
        extra: Vec::new(),
    });
    let out = record::instinct(&store, sealed(ctx, "instinct", body)?)?;
    if let Some(name) = &out.evicted {
        ctx.ui.status(format_args!(
            "instincts are capped at {}: evicted the least confident, {:?}",
            crate::model::fold::MAX_INSTINCTS,
            name
        ));
    }
    done(ctx, &store, out.written)
}

pub fn progress(ctx: &Context, a: ProgressArgs) -> Result<ExitCode> {
    let completed = ctx.texts("--completed", a.completed)?;
    let in_progress = ctx.texts("--in-progress", a.in_progress)?;
    let blocked = ctx.texts("--blocked", a.blocked)?;
    let next = ctx.texts("--next", a.next)?;
    let store = ctx.store()?;
    let body = Body::Progress(Progress {
        completed,
        in_progress,
        blocked,
        next,
        extra: Vec::new(),
    });
    add(ctx, &store, "progress", body)
}

pub fn checkpoint(ctx: &Context, a: CheckpointArgs) -> Result<ExitCode> {
    let doing = ctx.required_text("--doing", a.doing, a.doing_file)?;
    let resume = ctx.text("--resume", a.resume, a.resume_file)?;
    let left = ctx.texts("--left", a.left)?;
    let context = ctx.texts("--context", a.context)?;
    let store = ctx.store()?;
    let body = record::NewCheckpoint {
        doing,
        left,
        context,
        resume: resume.unwrap_or_default(),
    }
    .body(&store)?;
    let written = record::checkpoint(&store, sealed(ctx, "checkpoint", body)?)?;
    done(ctx, &store, written)
}

pub fn resume(ctx: &Context, a: ResumeArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    let (resumed, written) = record::resume(&store, a.done)?;
    let Some(cp) = resumed else {
        return Err(error::input(
            "there is no open checkpoint on this branch",
            "set one with `git rune checkpoint --doing \"…\" --resume \"…\"`",
        ));
    };
    ctx.report_written(&store, written.as_ref());
    if ctx.ui.json {
        let status = if a.done { "resolved" } else { "open" };
        return ctx.print_json(&json::ResumeJson {
            checkpoint: json::shown_record(&cp, Some(status)),
            version: json::VERSION,
        });
    }
    // Through the gate: a withheld checkpoint is its placeholder, a SUSPICIOUS one marked on
    // the line printed first (a marked copy carries the mark on `doing`, which is not printed
    // when there is a resume line).
    use crate::integrity::gate::{text_gate, Gate};
    let mark = match text_gate(&cp) {
        Gate::Withheld => {
            return ctx.print(&format!("{}\n", crate::integrity::gate::placeholder(&cp)))
        }
        Gate::Suspicious(rules) => crate::integrity::gate::mark(&rules),
        Gate::Clean => String::new(),
    };
    if let Body::Checkpoint(c) = &cp.body {
        let mut out = mark;
        let line = if c.resume.is_empty() {
            &c.doing
        } else {
            &c.resume
        };
        out.push_str(line);
        out.push('\n');
        for (i, step) in c.left.iter().enumerate() {
            out.push_str(&format!("{}. {}\n", i + 1, step));
        }
        ctx.ui.print(&out)?;
    }
    Ok(ExitCode::SUCCESS)
}

pub fn remember(ctx: &Context, a: RememberArgs) -> Result<ExitCode> {
    let text = ctx.required_text("<TEXT>", a.text, a.file)?;
    let store = ctx.store()?;
    let body = if let Some(section) = canonical_section(&a.section, &CUMULATIVE_SECTIONS) {
        if a.task.is_some() {
            return Err(error::Error::plain(
                error::Kind::Usage,
                format!("--task applies to task-notes sections, not to {section:?}"),
            ));
        }
        Body::CumulativeNote(CumulativeNote {
            section: section.into(),
            text: text.clone(),
        })
    } else if let Some(section) = canonical_section(&a.section, &TASK_SECTIONS) {
        Body::TaskNote(TaskNote {
            task: a.task.unwrap_or_default(),
            section: section.into(),
            text,
        })
    } else {
        return Err(error::input(
            format!("unknown section {:?}", a.section),
            format!(
                "use a cumulative-notes section ({}) or a task-notes section ({})",
                CUMULATIVE_SECTIONS.join(", "),
                TASK_SECTIONS.join(", ")
            ),
        ));
    };
    add(ctx, &store, "remember", body)
}

/// `git rune instinct promote`: sightings recorded, candidates listed (stdout, one a line:
/// name, projects, confidence, trigger -> action), the chosen ones promoted.
fn promote(ctx: &Context, a: PromoteArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    let mut sealer = ctx.sealer();
    let opts = crate::global::Options {
        name: a.name,
        all: a.all,
        dry_run: a.dry_run,
    };
    let done = crate::global::promote(&store, &mut sealer, &opts)?;
    ctx.report_redactions(&mut sealer);
    if ctx.ui.json {
        return ctx.print_json(&json::promotion(&done));
    }
    let would = super::dry_run_verb(done.dry_run, "would record", "recorded");
    ctx.ui.status(format_args!(
        "{would} {} of {} instincts at confidence {} or more as sightings in {} ({} other project{} sighted)",
        done.sighted,
        done.qualifying,
        crate::global::plan::MIN_CONFIDENCE,
        done.repo.display(),
        done.other_projects,
        if done.other_projects == 1 { "" } else { "s" }
    ));
    let mut out = String::new();
    for c in &done.candidates {
        if let Body::Instinct(i) = &c.record.body {
            let mark = match crate::integrity::gate::text_gate(&c.record) {
                crate::integrity::gate::Gate::Suspicious(rules) => {
                    crate::integrity::gate::mark(&rules)
                }
                _ => String::new(),
            };
            out.push_str(&format!(
                "{mark}{}  {} projects  {:.2}  {} -> {}\n",
                sanitize(&i.name),
                c.projects,
                c.confidence,
                sanitize(&one_line(&i.trigger)),
                sanitize(&one_line(&i.action))
            ));
        }
    }
    if done.candidates.is_empty() {
        ctx.ui
            .status("no instinct of this project is held by another project yet");
    } else if done.promoted.is_empty() {
        ctx.ui.status(
            "promote one with `git rune instinct promote NAME`, or all with `--all` (`--dry-run` first shows what would happen)",
        );
    }
    ctx.ui.print(&out)?;
    if !done.promoted.is_empty() {
        let verb = super::dry_run_verb(done.dry_run, "would promote", "promoted");
        ctx.ui.status(format_args!(
            "{verb} {} to the user-level memory: {}",
            done.promoted.len(),
            sanitize(&done.promoted.join(", "))
        ));
    }
    Ok(ExitCode::SUCCESS)
}
