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

/// Counts one tool call and answers with advice when the level calls for it (at most once
/// per [`DEBOUNCE`] calls).
pub fn post_tool_use(at: &Located, payload: &Payload<'_>, start: &Path) -> Result<Answer> {
    let git_dir = &at.git_dir;
    let id = payload.session();
    let mut s = match session::read(git_dir, id) {
        Some(s) => s,
        // Hooks installed mid-session, or counters cleaned up: start counting now.
        None => lifecycle::new_session(start, id)?,
    };
    let touched = payload
        .touched()
        .map(|f| relative(f, at.work_tree.as_deref()));
    s.count(payload.tool(), payload.read_lines(), touched.as_deref());
    // A TodoWrite (and only that) opens the repository: the tasks follow the agent's list.
    // An item left out for a secret is logged like a hook failure and told to the agent now.
    let mut refusal = None;
    if payload.tool() == "TodoWrite" {
        if let Some(todos) = payload.tool_input.as_ref().and_then(|t| t.todos.as_deref()) {
            let followed = crate::store::Store::open(start)
                .map_err(anyhow::Error::from)
                .and_then(|store| crate::tasks::follow_todos(&store, todos));
            match followed {
                Ok(f) => refusal = f.refusal(),
                Err(e) => super::answer::log(
                    git_dir,
                    "PostToolUse",
                    &format!("TodoWrite not followed: {e:#}"),
                ),
            }
            if let Some(r) = &refusal {
                super::answer::log(git_dir, "PostToolUse", r);
            }
        }
    }
    let answer = advise(&mut s, git_dir, start);
    session::write(git_dir, &s)?;
    Ok(match refusal {
        None => answer,
        Some(r) => with_note(answer, &format!("git-rune: {r}")),
    })
}

/// `answer` with `note` added (the agent hears both).
fn with_note(answer: Answer, note: &str) -> Answer {
    match answer {
        Answer::Silent => Answer::Context(note.to_owned()),
        Answer::Context(t) => Answer::Context(format!("{note}\n\n{t}")),
        Answer::Block(t) => Answer::Block(format!("{t}\n\n{note}")),
    }
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
