//! `git rune task …` and `git rune context-block …`: the session protocol's tasks and
//! context blocks (the use cases are in `tasks/`).

use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand};

use super::Context;
use crate::memory::Snapshot;
use crate::model::task::{task_id, CATEGORIES, PRIORITIES};
use crate::model::{Body, Record};
use crate::output::json;
use crate::store::Store;
use crate::tasks::{self, Change, Outcome};
use crate::text::sanitize;

#[derive(Debug, Args)]
pub struct TaskArgs {
    #[command(subcommand)]
    pub command: TaskCommand,
}

#[derive(Debug, Subcommand)]
pub enum TaskCommand {
    /// Add a pending task with the next TASK_ number.
    Add(TaskAddArgs),
    /// Mark a task in progress.
    Start(TaskIdArgs),
    /// Mark a task completed.
    Done(TaskIdArgs),
    /// Mark a task pending again.
    Reopen(TaskIdArgs),
    /// Change a task's title, priority, category, context, files or keep mark.
    Edit(TaskEditArgs),
    /// List the open tasks (--all: completed ones too).
    List(TaskListArgs),
    /// Group old completed tasks of one area into one consolidated task (the seed's matrix).
    Consolidate(ConsolidateArgs),
}

#[derive(Debug, Args)]
pub struct TaskFields {
    /// P1, P2 or P3.
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(PRIORITIES), ignore_case = true)]
    pub priority: Option<String>,
    /// BUGFIX, FEATURE, CONFIG, DOCS, TEST or REFACTOR.
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(CATEGORIES), ignore_case = true)]
    pub category: Option<String>,
    /// Summary, pitfalls, plan and file references.
    #[arg(long)]
    pub context: Option<String>,
    /// Files as path or path:line (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub files: Option<Vec<String>>,
    /// Never consolidate this task (a unique pitfall or lesson).
    #[arg(long)]
    pub keep: bool,
}

#[derive(Debug, Args)]
pub struct TaskAddArgs {
    #[command(flatten)]
    pub redact: super::Redact,
    /// What to do.
    pub title: String,
    #[command(flatten)]
    pub fields: TaskFields,
}

#[derive(Debug, Args)]
pub struct TaskIdArgs {
    /// The task: TASK_001 (or 1).
    pub id: String,
}

#[derive(Debug, Args)]
pub struct TaskEditArgs {
    #[command(flatten)]
    pub redact: super::Redact,
    /// The task: TASK_001 (or 1).
    pub id: String,
    /// A new title.
    #[arg(long)]
    pub title: Option<String>,
    #[command(flatten)]
    pub fields: TaskFields,
    /// Remove the keep mark.
    #[arg(long, conflicts_with = "keep")]
    pub no_keep: bool,
}

#[derive(Debug, Args)]
pub struct TaskListArgs {
    /// Completed tasks too.
    #[arg(long)]
    pub all: bool,
}

#[derive(Debug, Args)]
pub struct ConsolidateArgs {
    /// Print the groups without writing anything.
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Args)]
pub struct ContextBlockArgs {
    #[command(subcommand)]
    pub command: ContextBlockCommand,
}

#[derive(Debug, Subcommand)]
pub enum ContextBlockCommand {
    /// Add a context block: an architecture decision, error pattern or critical pitfall.
    Add(BlockArgs),
    /// Change a context block's content or related tasks.
    Edit(BlockArgs),
    /// Print one context block, or all of them.
    Show(BlockShowArgs),
}

#[derive(Debug, Args)]
pub struct BlockArgs {
    #[command(flatten)]
    pub redact: super::Redact,
    /// The block's title.
    pub title: String,
    /// What the block says (`-` reads standard input).
    #[arg(long, value_name = "TEXT")]
    pub content: Option<String>,
    /// Read --content from FILE (`-` for standard input), as `git commit -F`.
    #[arg(short = 'F', long, value_name = "FILE", conflicts_with = "content")]
    pub content_file: Option<std::path::PathBuf>,
    /// Tasks it concerns (comma-separated TASK_ ids).
    #[arg(long, value_delimiter = ',')]
    pub related: Option<Vec<String>>,
}

#[derive(Debug, Args)]
pub struct BlockShowArgs {
    /// The block's title (all blocks without it).
    pub title: Option<String>,
}

fn change(title: Option<String>, f: TaskFields, keep: Option<bool>) -> Change {
    Change {
        title,
        status: None,
        priority: f.priority,
        category: f.category,
        context: f.context,
        files: f.files,
        keep,
    }
}

pub fn run(ctx: &Context, a: TaskArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    let mut sealer = ctx.sealer();
    let outcome = match a.command {
        TaskCommand::Add(a) => {
            let keep = a.fields.keep.then_some(true);
            tasks::add(&store, &mut sealer, change(Some(a.title), a.fields, keep))?
        }
        TaskCommand::Start(a) => status(&store, &mut sealer, &a.id, "start")?,
        TaskCommand::Done(a) => status(&store, &mut sealer, &a.id, "done")?,
        TaskCommand::Reopen(a) => status(&store, &mut sealer, &a.id, "reopen")?,
        TaskCommand::Edit(a) => {
            let keep = match (a.fields.keep, a.no_keep) {
                (true, _) => Some(true),
                (_, true) => Some(false),
                _ => None,
            };
            tasks::update(&store, &mut sealer, &a.id, change(a.title, a.fields, keep))?
        }
        TaskCommand::List(a) => return list(ctx, &store, a.all),
        TaskCommand::Consolidate(a) => return consolidate(ctx, &store, &mut sealer, a.dry_run),
    };
    ctx.report_redactions(&mut sealer);
    report(ctx, &store, &outcome)
}

fn status(
    store: &Store,
    sealer: &mut crate::memory::seal::Sealer,
    id: &str,
    verb: &str,
) -> Result<Outcome> {
    let change = Change {
        status: tasks::status_for(verb),
        ..Change::default()
    };
    tasks::update(store, sealer, id, change)
}

/// The task line and the seed's save report.
fn report(ctx: &Context, store: &Store, o: &Outcome) -> Result<ExitCode> {
    ctx.report_written(store, o.written.as_ref());
    if o.written.is_none() {
        ctx.ui.status("nothing changed");
    }
    if ctx.ui.json {
        let v = json::task_outcome(o.written.as_ref(), o.task.as_ref(), &o.summary);
        return ctx.print_json(&v);
    }
    let mut out = String::new();
    if let Some(t) = &o.task {
        out.push_str(&tasks::line(t));
        out.push('\n');
    }
    out.push_str(&sanitize(&o.summary.saved_line()));
    out.push('\n');
    ctx.reported(&out)
}

fn list(ctx: &Context, store: &Store, all: bool) -> Result<ExitCode> {
    let snap = Snapshot::read(store)?;
    let shown = tasks::list(&snap.state, all);
    let mut out = String::new();
    if ctx.ui.json {
        for r in shown {
            out.push_str(&(json::line(&json::shown_record(r, None)) + "\n"));
        }
    } else {
        for r in shown {
            out.push_str(&tasks::line(r));
            out.push('\n');
        }
        let s = tasks::summary(&snap.state.tasks);
        out.push_str(&format!("{}\n{}\n", s.counts(), sanitize(&s.next_line())));
    }
    ctx.print(&out)
}

fn consolidate(
    ctx: &Context,
    store: &Store,
    sealer: &mut crate::memory::seal::Sealer,
    dry_run: bool,
) -> Result<ExitCode> {
    let c = tasks::consolidate(store, sealer, dry_run)?;
    ctx.report_written(store, c.written.as_ref());
    let names = [
        "area",
        "5+ related",
        "no critical finding",
        "older than 3 days",
    ];
    let met = |criteria: &[bool; 4]| -> Vec<&'static str> {
        names
            .iter()
            .zip(criteria)
            .filter(|(_, c)| **c)
            .map(|(n, _)| *n)
            .collect()
    };
    if ctx.ui.json {
        let groups = c
            .groups
            .iter()
            .map(
                |(title, members, criteria, by_cap, num)| json::ConsolidateGroupJson {
                    by_cap: *by_cap,
                    criteria: met(criteria),
                    members: members.clone(),
                    task_id: num.map(task_id),
                    title: title.clone(),
                },
            )
            .collect();
        return ctx.print_json(&json::ConsolidateJson {
            dry_run,
            groups,
            summary: json::task_summary(&c.summary),
            version: json::VERSION,
        });
    }
    let mut out = String::new();
    if c.groups.is_empty() {
        out.push_str("nothing to consolidate\n");
    }
    for (title, members, criteria, by_cap, num) in &c.groups {
        let why = if *by_cap {
            "more than 5 individual completed tasks".to_owned()
        } else {
            met(criteria).join(", ")
        };
        let into = num
            .map(|n| format!(" -> {}", task_id(n)))
            .unwrap_or_default();
        let verb = super::dry_run_verb(dry_run, "would consolidate", "consolidated");
        out.push_str(&format!(
            "{verb} {} ({} tasks: {}){into} [{why}]\n",
            sanitize(title),
            members.len(),
            members.join(", ")
        ));
    }
    if !dry_run {
        out.push_str(&sanitize(&c.summary.saved_line()));
        out.push('\n');
    }
    ctx.reported(&out)
}

pub fn context_block(ctx: &Context, a: ContextBlockArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    let mut sealer = ctx.sealer();
    let (args, must_exist) = match a.command {
        ContextBlockCommand::Show(a) => return show_blocks(ctx, &store, a.title.as_deref()),
        ContextBlockCommand::Add(a) => (a, false),
        ContextBlockCommand::Edit(a) => (a, true),
    };
    let content = ctx.text("--content", args.content, args.content_file)?;
    let written = tasks::context_block(
        &store,
        &mut sealer,
        &args.title,
        content,
        args.related,
        must_exist,
    )?;
    ctx.report_redactions(&mut sealer);
    match &written {
        Some(w) => ctx.report_written(&store, Some(w)),
        None => ctx.ui.status("nothing changed"),
    }
    if ctx.ui.json {
        return ctx.print_json(&json::written(written.as_ref()));
    }
    Ok(ExitCode::SUCCESS)
}

fn show_blocks(ctx: &Context, store: &Store, title: Option<&str>) -> Result<ExitCode> {
    let snap = Snapshot::read(store)?;
    let blocks: Vec<&Record> = match title {
        Some(t) => vec![tasks::block(&snap.state, t).ok_or_else(|| {
            crate::error::input(
                format!("there is no context block titled {t:?}"),
                "`git rune context-block show` lists them",
            )
        })?],
        None => snap.state.context_blocks.iter().collect(),
    };
    let mut out = String::new();
    for r in blocks {
        if ctx.ui.json {
            out.push_str(&(json::line(&json::shown_record(r, None)) + "\n"));
            continue;
        }
        // Through the gate: a withheld block is its placeholder, a SUSPICIOUS one marked.
        let Some(r) = crate::integrity::gate::shown(r) else {
            let placeholder = crate::integrity::gate::placeholder(r);
            out.push_str(&format!("## {placeholder}\n\n"));
            continue;
        };
        if let Body::ContextBlock(b) = &r.body {
            out.push_str(&format!("## {}\n", sanitize(&b.title)));
            out.push_str(&format!("Updated: {}\n", b.updated));
            if !b.related_tasks.is_empty() {
                out.push_str(&format!("Related: {}\n", b.related_tasks.join(", ")));
            }
            out.push_str(&format!("{}\n\n", sanitize(&b.content)));
        }
    }
    ctx.print(&out)
}

/// Whether a task command that writes text was given `--redact`.
pub(super) fn redact(a: &TaskArgs) -> bool {
    match &a.command {
        TaskCommand::Add(a) => a.redact.redact,
        TaskCommand::Edit(a) => a.redact.redact,
        _ => false,
    }
}

/// Whether a context-block command that writes was given `--redact`.
pub(super) fn block_redact(a: &ContextBlockArgs) -> bool {
    match &a.command {
        ContextBlockCommand::Add(a) | ContextBlockCommand::Edit(a) => a.redact.redact,
        ContextBlockCommand::Show(_) => false,
    }
}
