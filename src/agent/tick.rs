//! PostToolUse, the context tick: runs on every tool call, so it reads and writes one small
//! local file and opens nothing else — no repository, no config, no memory commit. Only the
//! first call of a session that SessionStart did not see reads the config (its thresholds),
//! and only the call that reaches RED writes memory (the saved state).

use std::path::Path;

use anyhow::Result;

use super::answer::Answer;
use super::lifecycle;
use super::payload::Payload;
use crate::context::health::{advice, Level, DEBOUNCE};
use crate::context::mode::{self, CAVEMAN};
use crate::context::session::{self, Session};
use crate::store::Located;

/// Counts one tool call (`failed`: Claude Code's PostToolUseFailure) and answers with advice
/// when the level calls for it (at most once per [`DEBOUNCE`] calls).
pub fn post_tool_use(
    at: &Located,
    payload: &Payload<'_>,
    start: &Path,
    failed: bool,
) -> Result<Answer> {
    let git_dir = &at.git_dir;
    let id = payload.session();
    let mut s = match session::read(git_dir, id) {
        Some(s) => s,
        // Hooks installed mid-session, or counters cleaned up: start counting now.
        None => lifecycle::new_session(start, id)?,
    };
    if failed {
        s.count_failure(payload.tool());
    } else {
        let touched = payload
            .touched()
            .map(|f| relative(f, at.work_tree.as_deref()));
        s.count(payload.tool(), payload.read_lines(), touched.as_deref());
    }
    // A TodoWrite, TaskCreate or TaskUpdate (and only those) opens the repository: the tasks
    // follow the agent's list. An item the tasks cannot follow (it holds a secret, which the
    // seal refuses) is left out, logged like a hook failure, told to the agent at once and
    // again at the next session start; the list's other items are followed.
    let mut refused = None;
    let todos = match payload.tool() {
        _ if failed => None,
        // Claude Code's TodoWrite, and every agent's todo list mapped onto its shape.
        _ if payload
            .tool_input
            .as_ref()
            .is_some_and(|t| t.todos.is_some()) =>
        {
            payload.tool_input.as_ref().and_then(|t| t.todos.clone())
        }
        _ => super::task_tools::todo(payload, git_dir).map(|t| vec![t]),
    };
    if let Some(todos) = todos {
        let followed = crate::open::open(start, crate::open::Opener::Hook)
            .and_then(|o| crate::tasks::follow_todos(&o.store, &todos));
        match followed {
            Ok(f) => {
                if let Some(r) = f.refusal(payload.tool()) {
                    super::answer::log(git_dir, "PostToolUse", &r);
                    refused = Some(format!("git-rune: {r}"));
                }
            }
            Err(e) => {
                let msg = format!("{} not followed: {e:#}", payload.tool());
                super::answer::log(git_dir, "PostToolUse", &msg);
                refused = Some(format!(
                    "git-rune: the todo list was not recorded as tasks ({}). Rewrite the item without the secret (name it instead, e.g. \"the key in $API_KEY\"); nothing of this list was saved.",
                    crate::text::one_line(&format!("{e:#}"))
                ));
            }
        }
    }
    let mut answer = advise(&mut s, git_dir, start);
    if let Some(text) = refused {
        answer = match answer {
            Answer::Silent => Answer::Context(text),
            Answer::Context(advice) => Answer::Context(format!("{text}\n\n{advice}")),
            Answer::Block(reason) => Answer::Block(format!("{text}\n\n{reason}")),
        };
    }
    // What the context now holds of git-rune's (a resumed session's budget counts it).
    if let (Answer::Context(t) | Answer::Block(t), Some(b)) = (&answer, s.briefed.as_mut()) {
        b.chars += t.len();
    }
    session::write(git_dir, &s)?;
    Ok(answer)
}

/// A path as the repository names it (relative to its top), when it is inside.
fn relative(path: &str, work_tree: Option<&Path>) -> String {
    let p = Path::new(path);
    work_tree
        .and_then(|w| p.strip_prefix(w).ok())
        .map(|r| r.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.to_owned())
}

/// The advice for the session's new count, updating what it remembers of advice given.
fn advise(s: &mut Session, git_dir: &Path, start: &Path) -> Answer {
    let level = s.level();
    let calls = s.tool_calls;
    // ORANGE switches output density to caveman for the session, unless set by hand.
    let mut switched = false;
    if level >= Level::Orange && !s.auto_caveman && mode::manual_density(git_dir).is_none() {
        s.auto_caveman = true;
        switched = true;
    }
    // RED saves the state first, once, then says so.
    let mut saved_now = None;
    if level == Level::Red && !s.red_saved {
        s.red_saved = true;
        saved_now = Some(lifecycle::save_state(start, s));
    }
    let due = s.last_advice == 0 || calls.saturating_sub(s.last_advice) >= DEBOUNCE;
    if level == Level::Green || !(due || saved_now.is_some() || switched) {
        return Answer::Silent;
    }
    s.last_advice = calls;
    s.advised = Some(level.label().to_owned());
    let Some(mut text) = advice(level, calls) else {
        return Answer::Silent;
    };
    if let Some(Err(e)) = &saved_now {
        text = format!(
            "Context CRITICAL ({calls} tool calls, likely near limit). State NOT saved: {e:#}. Run `git rune save` and `git rune checkpoint`, then /compact."
        );
    }
    if switched {
        text.push_str(" Output density is now caveman for this session, until the context is compacted (`git rune mode --density normal` turns it off):\n\n");
        text.push_str(CAVEMAN);
    }
    if level == Level::Red {
        Answer::Block(text)
    } else {
        Answer::Context(text)
    }
}
