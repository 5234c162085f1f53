//! Tasks and context blocks (the seed's session protocol): adding, editing and listing
//! tasks, consolidating old completed ones, following an agent's todo list, and the
//! `sp.json` bridge. Every write is one compare-and-swap commit on the branch's ref through
//! the one seal; the pure parts (the consolidation plan, the todo list, the sp.json format)
//! sit in their own files and test in process.

mod bridge;
pub mod consolidate;
mod follow;
pub mod sp_json;
pub mod todo;

pub use bridge::{export_sp_json, import_sp_json, Imported};
pub use follow::follow_todos;

use anyhow::Result;

use crate::error;
use crate::memory::seal::{SealError, Sealed, Sealer};
use crate::memory::write::{write_records, Written};
use crate::memory::Snapshot;
use crate::model::kinds::{ContextBlock, Task};
use crate::model::task::{self, parse_task_id, task_id, Summary, COMPLETED, IN_PROGRESS, PENDING};
use crate::model::{Body, Draft, Record, Scope, State};
use crate::store::Store;

/// What to set on a task; `None` leaves a field as it is.
#[derive(Debug, Default, Clone)]
pub struct Change {
    pub title: Option<String>,
    pub status: Option<&'static str>,
    pub priority: Option<String>,
    pub category: Option<String>,
    pub context: Option<String>,
    pub files: Option<Vec<String>>,
    pub keep: Option<bool>,
}

/// What a task command did.
#[derive(Debug)]
pub struct Outcome {
    pub written: Option<Written>,
    /// The task as it is now.
    pub task: Option<Record>,
    /// The list's summary after the write.
    pub summary: Summary,
}

/// The task `id` names (`TASK_007`, `7`): its number now, else a number it was shown under
/// before a renumbering.
pub fn find<'a>(state: &'a State, id: &str) -> Result<&'a Record> {
    let Some(n) = parse_task_id(id) else {
        return Err(error::input(
            format!("{id:?} is not a task id"),
            error::run(
                "task list --all",
                " to list them; a task is named TASK_001 (or 1)",
            ),
        ));
    };
    let by_alias = |r: &&Record| match &r.body {
        Body::Task(Task { aliases, .. }) => aliases.iter().any(|a| parse_task_id(a) == Some(n)),
        _ => false,
    };
    state
        .tasks
        .iter()
        .find(|r| r.body.task_num() == n)
        .or_else(|| state.tasks.iter().find(by_alias))
        .ok_or_else(|| {
            error::input(
                format!("there is no task {} on this branch", task_id(n)),
                error::run("task list --all", " to list the tasks"),
            )
        })
}

/// Seals a task draft; a bad value is a user error that says nothing was recorded.
pub(crate) fn seal(sealer: &mut Sealer, draft: Draft, from: &str) -> Result<Sealed> {
    sealer
        .seal(draft, &|field, _| format!("{from} (field `{field}`)"))
        .map_err(|e| match e {
            SealError::Invalid { kind, error, .. } => error::input(
                format!("invalid {kind}: {error}"),
                "fix the value and try again; nothing was recorded",
            ),
            other => other.into(),
        })
}

/// The records that make the fold's renumbering of tasks permanent (a number claimed twice,
/// settled by the fold): each renumbered task written again with its new number, claimed
/// `now`. `except` are tasks the caller writes itself.
pub(crate) fn pins(
    sealer: &mut Sealer,
    state: &State,
    now: &str,
    except: &[&str],
) -> Result<Vec<Sealed>> {
    let mut out = Vec::new();
    for r in &state.tasks {
        if !state.renumbered.contains(&r.id) || except.contains(&r.id.as_str()) {
            continue;
        }
        let mut body = r.body.clone();
        if let Body::Task(Task { claimed, .. }) = &mut body {
            *claimed = now.to_owned();
        }
        out.push(seal(
            sealer,
            Draft::superseding(body, vec![r.id.clone()]),
            "a renumbered task",
        )?);
    }
    Ok(out)
}

fn apply(body: &mut Body, change: &Change, now: &str) {
    let Body::Task(t) = body else {
        return;
    };
    if let Some(title) = &change.title {
        t.title.clone_from(title);
    }
    if let Some(s) = change.status {
        if s == COMPLETED && t.status != COMPLETED {
            t.completed = now.to_owned();
        }
        if s != COMPLETED {
            t.completed.clear();
        }
        t.status = s.to_owned();
    }
    if let Some(p) = &change.priority {
        t.priority = task::canonical_priority(p).unwrap_or(p).to_owned();
    }
    if let Some(c) = &change.category {
        t.category = task::canonical_category(c).unwrap_or(c).to_owned();
    }
    if let Some(c) = &change.context {
        t.context.clone_from(c);
    }
    if let Some(f) = &change.files {
        t.files.clone_from(f);
    }
    if let Some(k) = change.keep {
        t.keep = k;
    }
}

/// Adds a pending task with the next number.
pub fn add(store: &Store, sealer: &mut Sealer, change: Change) -> Result<Outcome> {
    let title = change.title.clone().unwrap_or_default();
    let salt = task::salt();
    let mut uid = String::new();
    let new = |now: &str| {
        let mut body = Body::Task(Task {
            title: title.clone(),
            status: PENDING.into(),
            ..Task::default()
        });
        apply(&mut body, &change, now);
        body
    };
    // A task the gate will withhold (for any of its fields) is not named in its commit's
    // summary.
    let summary = crate::integrity::gate::record_summary("task", &new(&store.now()));
    let written = write_records(store, Scope::Branch, &summary, |state| {
        let now = store.now();
        let mut body = new(&now);
        let mut next = task::next_number(state);
        task::complete(&mut body, &mut next, &now, &salt);
        if let Body::Task(Task { uid: u, .. }) = &body {
            uid.clone_from(u);
        }
        let mut out = pins(sealer, state, &now, &[])?;
        out.push(seal(sealer, Draft::new(body), "the new task")?);
        Ok::<_, anyhow::Error>(out)
    })?;
    outcome(store, written, &uid)
}

/// Changes a task (`task start|done|reopen|edit`). A change that changes nothing writes
/// nothing.
pub fn update(store: &Store, sealer: &mut Sealer, id: &str, change: Change) -> Result<Outcome> {
    let mut uid = String::new();
    let snap = Snapshot::read(store)?;
    let shown = task_id(find(&snap.state, id)?.body.task_num());
    let summary = format!("task: {shown} {}", change.status.unwrap_or("edited"));
    let written = write_records(store, Scope::Branch, &summary, |state| {
        let now = store.now();
        let r = find(state, id)?;
        let mut body = r.body.clone();
        apply(&mut body, &change, &now);
        if let Body::Task(Task { uid: u, .. }) = &body {
            uid.clone_from(u);
        }
        let renumbered = state.renumbered.contains(&r.id);
        if body == r.body && !renumbered {
            return Ok(Vec::new());
        }
        if let (Body::Task(t), true) = (&mut body, renumbered) {
            t.claimed = now.clone();
        }
        let mut out = pins(sealer, state, &now, &[r.id.as_str()])?;
        out.push(seal(
            sealer,
            Draft::superseding(body, vec![r.id.clone()]),
            "the task",
        )?);
        Ok::<_, anyhow::Error>(out)
    })?;
    outcome(store, written, &uid)
}

fn outcome(store: &Store, written: Option<Written>, uid: &str) -> Result<Outcome> {
    let snap = Snapshot::read(store)?;
    let task = snap
        .state
        .tasks
        .iter()
        .find(|r| matches!(&r.body, Body::Task(Task { uid: u, .. }) if u == uid))
        .cloned();
    Ok(Outcome {
        written,
        task,
        summary: summary(&snap.state.tasks),
    })
}

/// `TASK_001 [ ] [P1] [BUGFIX] Fix auth (was TASK_003)`.
pub fn line(r: &Record) -> String {
    let Body::Task(task) = &r.body else {
        return String::new();
    };
    let mark = match task.status.as_str() {
        "completed" => "x",
        "in_progress" => "~",
        _ => " ",
    };
    let mut t = format!("{} [{mark}]", task_id(task.num));
    for tag in [&task.priority, &task.category] {
        if !tag.is_empty() {
            t.push_str(&format!(" [{tag}]"));
        }
    }
    let shown = crate::integrity::gate::shown_title(r);
    t.push_str(&format!(" {}", crate::text::sanitize(&shown)));
    if task.consolidated {
        t.push_str(&format!(" (consolidated from {})", task.consolidated_count));
    }
    if task.keep {
        t.push_str(" (keep)");
    }
    if !task.aliases.is_empty() {
        t.push_str(&format!(" (was {})", task.aliases.join(", ")));
    }
    t
}

pub use crate::integrity::gate::task_summary as summary;

/// The tasks of this branch: open ones, or all with `all`, in number order.
pub fn list(state: &State, all: bool) -> Vec<&Record> {
    state
        .tasks
        .iter()
        .filter(|r| {
            all || matches!(&r.body, Body::Task(Task { status, .. }) if status != COMPLETED)
        })
        .collect()
}

/// The status a command sets.
pub fn status_for(verb: &str) -> Option<&'static str> {
    match verb {
        "start" => Some(IN_PROGRESS),
        "done" => Some(COMPLETED),
        "reopen" => Some(PENDING),
        _ => None,
    }
}

/// Adds or replaces the context block titled `title` (`content` required for a new one).
pub fn context_block(
    store: &Store,
    sealer: &mut Sealer,
    title: &str,
    content: Option<String>,
    related: Option<Vec<String>>,
    must_exist: bool,
) -> Result<Option<Written>> {
    let snap = Snapshot::read(store)?;
    let existing = block(&snap.state, title);
    match (existing, must_exist, &content) {
        (None, true, _) => {
            return Err(error::input(
                format!("there is no context block titled {title:?}"),
                error::run(
                    "context-block show",
                    " to list them; `context-block add` makes one",
                ),
            ))
        }
        (Some(_), false, _) => {
            return Err(error::input(
                format!("a context block titled {title:?} exists"),
                error::run(
                    format!("context-block edit {title:?} --content …"),
                    " to change it",
                ),
            ))
        }
        (None, false, None) => {
            return Err(error::input(
                "a new context block needs --content",
                error::pass("content", "\"…\"", ""),
            ))
        }
        _ => {}
    }
    let related = related.map(|l| {
        l.iter()
            .map(|t| parse_task_id(t).map(task_id).unwrap_or_else(|| t.clone()))
            .collect::<Vec<_>>()
    });
    let made = |old: Option<&Record>, now: String| {
        let (old_content, old_related, supersedes) = match old {
            Some(Record {
                id,
                body:
                    Body::ContextBlock(ContextBlock {
                        content,
                        related_tasks,
                        ..
                    }),
                ..
            }) => (content.clone(), related_tasks.clone(), vec![id.clone()]),
            _ => (String::new(), Vec::new(), Vec::new()),
        };
        let body = Body::ContextBlock(ContextBlock {
            title: old.map_or(title, |r| r.body.title()).to_owned(),
            content: content.clone().unwrap_or(old_content),
            updated: now,
            related_tasks: related.clone().unwrap_or(old_related),
        });
        (body, supersedes)
    };
    // A block the gate will withhold is not named in its commit's summary.
    let summary =
        crate::integrity::gate::record_summary("context block", &made(existing, store.now()).0);
    write_records(store, Scope::Branch, &summary, |state| {
        let (body, supersedes) = made(block(state, title), store.now());
        Ok::<_, anyhow::Error>(vec![seal(
            sealer,
            Draft::superseding(body, supersedes),
            "the context block",
        )?])
    })
}

/// The context block titled `title` (compared without case).
pub fn block<'a>(state: &'a State, title: &str) -> Option<&'a Record> {
    state
        .context_blocks
        .iter()
        .find(|r| r.body.title().eq_ignore_ascii_case(title.trim()))
}

/// One group consolidation made (or would make): its title, its members' ids, the criteria
/// that held, whether the cap made it, and the consolidated task's number.
pub type GroupReport = (String, Vec<String>, [bool; 4], bool, Option<u32>);

/// What consolidation did (or, dry, would do).
#[derive(Debug)]
pub struct Consolidated {
    pub groups: Vec<GroupReport>,
    pub written: Option<Written>,
    pub summary: Summary,
}

/// Runs the consolidation matrix ([`consolidate::plan`]) and, unless `dry_run`, writes one
/// consolidated task per group superseding its members (they stay in history).
pub fn consolidate(store: &Store, sealer: &mut Sealer, dry_run: bool) -> Result<Consolidated> {
    let salt = task::salt();
    let mut groups = Vec::new();
    let describe = |g: &consolidate::Group<'_>, num: Option<u32>| {
        (
            g.title.clone(),
            g.members
                .iter()
                .map(|r| task_id(r.body.task_num()))
                .collect(),
            g.criteria,
            g.by_cap,
            num,
        )
    };
    if dry_run {
        let snap = Snapshot::read(store)?;
        groups = consolidate::plan(&snap.state.tasks, &snap.state.context_blocks, &store.now())
            .iter()
            .map(|g| describe(g, None))
            .collect();
        return Ok(Consolidated {
            groups,
            written: None,
            summary: summary(&snap.state.tasks),
        });
    }
    let written = write_records(store, Scope::Branch, "task: consolidate", |state| {
        let now = store.now();
        let plan = consolidate::plan(&state.tasks, &state.context_blocks, &now);
        groups.clear();
        if plan.is_empty() {
            return Ok(Vec::new());
        }
        let members: Vec<&str> = plan
            .iter()
            .flat_map(|g| g.members.iter().map(|r| r.id.as_str()))
            .collect();
        let mut out = pins(sealer, state, &now, &members)?;
        let mut next = task::next_number(state);
        for g in &plan {
            let mut body = g.body();
            task::complete(&mut body, &mut next, &now, &salt);
            groups.push(describe(g, Some(body.task_num())));
            out.push(seal(
                sealer,
                Draft::superseding(body, g.members.iter().map(|r| r.id.clone()).collect()),
                "a consolidated task",
            )?);
        }
        Ok::<_, anyhow::Error>(out)
    })?;
    let snap = Snapshot::read(store)?;
    Ok(Consolidated {
        groups,
        written,
        summary: summary(&snap.state.tasks),
    })
}
