//! The record-adding commands: decide, convention, learn, instinct, progress, checkpoint,
//! resume and remember. Each validates, commits at once (one CAS ref update) and refreshes
//! the view.

use anyhow::Result;
use clap::builder::PossibleValuesParser;
use clap::Args;

use super::{filter_secrets, write_records, Ctx};
use crate::model::{
    self, canonical_section, fold::instinct_confidence, Body, Draft, GitState, LearningType, Scope,
    CUMULATIVE_SECTIONS, TASK_SECTIONS,
};
use crate::output::{print, sanitize, user_error, user_error_plain};
use crate::store::Store;
use crate::view;

#[derive(Debug, Args)]
pub struct DecideArgs {
    /// Short title of the decision.
    pub title: String,
    /// Why the decision was needed.
    #[arg(long)]
    pub context: String,
    /// What was decided.
    #[arg(long)]
    pub decision: String,
    /// Why this approach over the alternatives.
    #[arg(long)]
    pub rationale: String,
    /// What files or modules are affected.
    #[arg(long)]
    pub impact: String,
    /// Files the decision is about (comma-separated); load marks it stale when they change.
    #[arg(long, value_delimiter = ',')]
    pub files: Vec<String>,
}

#[derive(Debug, Args)]
pub struct ConventionArgs {
    /// Short title of the convention.
    pub title: String,
    /// Description of the convention.
    #[arg(long)]
    pub pattern: String,
    /// Code example showing the pattern.
    #[arg(long)]
    pub example: Option<String>,
    /// Where the convention applies.
    #[arg(long)]
    pub applies_to: Option<String>,
}

#[derive(Debug, Args)]
pub struct LearnArgs {
    /// Kind of learning.
    #[arg(long = "type", value_parser = PossibleValuesParser::new(LearningType::ALL.map(|t| t.as_str())))]
    pub ltype: String,
    /// Dedup key: the latest learning per key and type wins.
    #[arg(long)]
    pub key: String,
    /// One or two sentences, in causal language.
    #[arg(long)]
    pub insight: String,
    /// How certain the learning is, from 0.1 (hunch) to 1.0.
    #[arg(long, default_value_t = 0.7, allow_negative_numbers = true)]
    pub confidence: f64,
    /// Which skill or tool produced the learning.
    #[arg(long)]
    pub skill: Option<String>,
    /// Affected files (comma-separated); load marks the learning stale when they change.
    #[arg(long, value_delimiter = ',')]
    pub files: Vec<String>,
}

#[derive(Debug, Args)]
pub struct InstinctArgs {
    /// Short name; recording the same name again replaces the instinct.
    pub name: String,
    /// When the pattern applies.
    #[arg(long)]
    pub trigger: String,
    /// What to do.
    #[arg(long)]
    pub action: String,
    /// From 0.3 (one-off preference) to 0.9 (repeated correction).
    #[arg(long, allow_negative_numbers = true)]
    pub confidence: f64,
    /// What happened that taught this.
    #[arg(long)]
    pub evidence: String,
}

#[derive(Debug, Args)]
pub struct ProgressArgs {
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
pub struct CheckpointArgs {
    /// The exact task and sub-step in progress.
    #[arg(long)]
    pub doing: String,
    /// A remaining step, in order (repeatable).
    #[arg(long)]
    pub left: Vec<String>,
    /// Something the next session needs that is not in the code (repeatable).
    #[arg(long)]
    pub context: Vec<String>,
    /// The instruction for the next session to pick up from.
    #[arg(long)]
    pub resume: Option<String>,
}

#[derive(Debug, Args)]
pub struct ResumeArgs {}

#[derive(Debug, Args)]
pub struct RememberArgs {
    /// The item to add.
    pub text: String,
    /// A section of cumulative-notes.md (e.g. "Attention Points") or of task-notes.md
    /// (e.g. "What Failed").
    #[arg(long)]
    pub section: String,
    /// The task name for task-notes sections.
    #[arg(long)]
    pub task: Option<String>,
}

/// Normalises and validates a new body; bad values change nothing.
fn checked(ctx: &Ctx, mut body: Body) -> Result<Body> {
    view::normalize(&mut body);
    filter_secrets(ctx, &mut body, &|field, _| {
        format!("--{}", field.replace('_', "-"))
    })?;
    model::validate(&body).map_err(|e| {
        user_error(
            format!("invalid {}: {e}", body.kind().as_str()),
            "fix the value and run the command again; nothing was recorded",
        )
    })?;
    Ok(body)
}

fn git_state(store: &Store) -> Result<GitState> {
    let head = store.head_info()?;
    Ok(GitState {
        branch: head.branch,
        head: head.head.map(|h| h.to_string()),
        upstream: head.upstream,
        dirty: store.dirty_files()?,
    })
}

pub fn decide(ctx: &Ctx, a: DecideArgs) -> Result<std::process::ExitCode> {
    let store = ctx.store()?;
    let body = checked(
        ctx,
        Body::Decision {
            title: a.title,
            context: a.context,
            decision: a.decision,
            rationale: a.rationale,
            impact: a.impact,
            file_blobs: store.file_blobs(&a.files),
            files: a.files,
        },
    )?;
    add(ctx, &store, "decide", body)
}

pub fn convention(ctx: &Ctx, a: ConventionArgs) -> Result<std::process::ExitCode> {
    let store = ctx.store()?;
    let body = checked(
        ctx,
        Body::Convention {
            title: a.title,
            pattern: a.pattern,
            example: a.example.unwrap_or_default(),
            applies_to: a.applies_to.unwrap_or_default(),
        },
    )?;
    add(ctx, &store, "convention", body)
}

pub fn learn(ctx: &Ctx, a: LearnArgs) -> Result<std::process::ExitCode> {
    let store = ctx.store()?;
    let ltype = LearningType::parse(&a.ltype).unwrap_or(LearningType::Insight);
    let body = checked(
        ctx,
        Body::Learning {
            skill: a.skill.unwrap_or_default(),
            ltype,
            key: a.key,
            insight: a.insight,
            confidence: a.confidence,
            file_blobs: store.file_blobs(&a.files),
            files: a.files,
        },
    )?;
    add(ctx, &store, "learn", body)
}

pub fn instinct(ctx: &Ctx, a: InstinctArgs) -> Result<std::process::ExitCode> {
    let store = ctx.store()?;
    let body = checked(
        ctx,
        Body::Instinct {
            name: a.name,
            trigger: a.trigger,
            action: a.action,
            confidence: a.confidence,
            evidence: a.evidence,
        },
    )?;
    let name = title_of(&body).to_owned();
    let confidence = match body {
        Body::Instinct { confidence, .. } => confidence,
        _ => 0.0,
    };
    let mut evicted = None;
    let summary = format!("instinct: {name}");
    write_records(ctx, &store, Scope::Memory, &summary, |state| {
        // Recording a name again replaces it; the fold's max-confidence rule is for merges.
        let same: Vec<String> = state
            .instincts
            .iter()
            .filter(|r| title_of(&r.body) == name)
            .map(|r| r.id.clone())
            .collect();
        evicted = None;
        if same.is_empty() && state.instincts.len() >= model::fold::MAX_INSTINCTS {
            evicted = state
                .instincts
                .iter()
                .min_by(|x, y| instinct_confidence(x).total_cmp(&instinct_confidence(y)))
                .filter(|low| instinct_confidence(low) <= confidence)
                .map(|low| title_of(&low.body).to_owned());
            if evicted.is_none() {
                return Err(user_error(
                    format!(
                        "instincts are full ({} kept) and all are more confident than {confidence}",
                        model::fold::MAX_INSTINCTS
                    ),
                    "raise --confidence, or remove an instinct from .rune/instincts.md and `git rune save`",
                ));
            }
        }
        Ok(vec![Draft {
            body: body.clone(),
            supersedes: same,
        }])
    })?;
    if let Some(name) = evicted {
        ctx.ui.status(format_args!(
            "instincts are capped at {}: evicted the least confident, {:?}",
            model::fold::MAX_INSTINCTS,
            sanitize(&name)
        ));
    }
    Ok(std::process::ExitCode::SUCCESS)
}

pub fn progress(ctx: &Ctx, a: ProgressArgs) -> Result<std::process::ExitCode> {
    let store = ctx.store()?;
    let body = checked(
        ctx,
        Body::Progress {
            completed: a.completed,
            in_progress: a.in_progress,
            blocked: a.blocked,
            next: a.next,
        },
    )?;
    add(ctx, &store, "progress", body)
}

pub fn checkpoint(ctx: &Ctx, a: CheckpointArgs) -> Result<std::process::ExitCode> {
    let store = ctx.store()?;
    let body = checked(
        ctx,
        Body::Checkpoint {
            doing: a.doing,
            left: a.left,
            context: a.context,
            resume: a.resume.unwrap_or_default(),
            git: Some(git_state(&store)?),
        },
    )?;
    let summary = format!("checkpoint: {}", first_line(title_of(&body)));
    write_records(ctx, &store, Scope::Branch, &summary, |state| {
        // One open checkpoint per branch: the new one resolves whatever was open.
        let mut drafts: Vec<Draft> = state
            .checkpoints
            .iter()
            .filter(|c| !state.resolved.contains(&c.id))
            .map(|c| {
                Draft::new(Body::Resolve {
                    target: c.id.clone(),
                })
            })
            .collect();
        drafts.push(Draft::new(body.clone()));
        Ok(drafts)
    })?;
    Ok(std::process::ExitCode::SUCCESS)
}

pub fn resume(ctx: &Ctx, _a: ResumeArgs) -> Result<std::process::ExitCode> {
    let store = ctx.store()?;
    let mut resumed = None;
    write_records(ctx, &store, Scope::Branch, "resume", |state| {
        resumed = state.open_checkpoint().cloned();
        Ok(state
            .checkpoints
            .iter()
            .filter(|c| !state.resolved.contains(&c.id))
            .map(|c| {
                Draft::new(Body::Resolve {
                    target: c.id.clone(),
                })
            })
            .collect())
    })?;
    let Some(cp) = resumed else {
        return Err(user_error(
            "there is no open checkpoint on this branch",
            "set one with `git rune checkpoint --doing \"…\" --resume \"…\"`",
        ));
    };
    if let Body::Checkpoint {
        doing,
        resume,
        left,
        ..
    } = &cp.body
    {
        let mut out = String::new();
        let line = if resume.is_empty() { doing } else { resume };
        out.push_str(&sanitize(line));
        out.push('\n');
        for (i, step) in left.iter().enumerate() {
            out.push_str(&format!("{}. {}\n", i + 1, sanitize(step)));
        }
        print(&out)?;
    }
    Ok(std::process::ExitCode::SUCCESS)
}

pub fn remember(ctx: &Ctx, a: RememberArgs) -> Result<std::process::ExitCode> {
    let store = ctx.store()?;
    let body = if let Some(section) = canonical_section(&a.section, &CUMULATIVE_SECTIONS) {
        if a.task.is_some() {
            return Err(user_error_plain(format!(
                "--task applies to task-notes sections, not to {section:?}"
            )));
        }
        Body::CumulativeNote {
            section: section.into(),
            text: a.text,
        }
    } else if let Some(section) = canonical_section(&a.section, &TASK_SECTIONS) {
        Body::TaskNote {
            task: a.task.unwrap_or_default(),
            section: section.into(),
            text: a.text,
        }
    } else {
        return Err(user_error(
            format!("unknown section {:?}", a.section),
            format!(
                "use a cumulative-notes section ({}) or a task-notes section ({})",
                CUMULATIVE_SECTIONS.join(", "),
                TASK_SECTIONS.join(", ")
            ),
        ));
    };
    add(ctx, &store, "remember", checked(ctx, body)?)
}

/// Commits one record to the ref its kind belongs in, summarised as `<verb>: <title>`.
fn add(ctx: &Ctx, store: &Store, verb: &str, body: Body) -> Result<std::process::ExitCode> {
    let scope = body.kind().scope().unwrap_or(Scope::Memory);
    let summary = match &body {
        Body::Progress { .. } => verb.to_owned(),
        _ => format!("{verb}: {}", first_line(title_of(&body))),
    };
    write_records(ctx, store, scope, &summary, |_| {
        Ok(vec![Draft::new(body.clone())])
    })?;
    Ok(std::process::ExitCode::SUCCESS)
}

/// The headline of a record: its title, name, key or first text.
pub fn title_of(body: &Body) -> &str {
    match body {
        Body::Decision { title, .. }
        | Body::Convention { title, .. }
        | Body::Invariant { title, .. } => title,
        Body::Learning { key, .. } => key,
        Body::Instinct { name, .. } => name,
        Body::Checkpoint { doing, .. } => doing,
        Body::Session { summary, .. } => summary,
        Body::CumulativeNote { text, .. } | Body::TaskNote { text, .. } => text,
        Body::Progress { .. } => "progress",
        Body::Resolve { .. } => "resolve",
        Body::Delete { .. } => "delete",
    }
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}
