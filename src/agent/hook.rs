//! `git rune agent hook <event>`: answers one Claude Code hook event. It never fails the
//! agent: whatever goes wrong (bad input, no repository, no memory, a broken ref) it prints
//! nothing harmful, exits 0 and logs one line to `<git-dir>/rune/agent.log`, which
//! `git rune agent status` shows.
//!
//! Answers are Claude Code's hook output: `hookSpecificOutput` with `hookEventName` and
//! `additionalContext` (SessionStart, and PostToolUse when there is advice), or
//! `decision: "block"` with a `reason` (PostToolUse at RED: Claude Code hands the reason to
//! the model). PostToolUseFailure (a tool call that failed) counts like PostToolUse and
//! answers with context only. PreCompact, Stop and SessionEnd print nothing.

use std::path::{Path, PathBuf};

use super::answer::{log, Answer};
use super::payload::Payload;
use super::{lifecycle, tick};
use crate::store::locate;

/// The events `agent hook` answers.
pub const EVENTS: [&str; 6] = [
    "SessionStart",
    "PreCompact",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "SessionEnd",
];

/// Answers `event` given Claude Code's `input`, started in `dir`. Never fails.
pub fn run(event: &str, input: &[u8], dir: &Path) -> Answer {
    let payload = match Payload::parse(input) {
        Ok(p) => p,
        Err(e) => {
            if let Some(at) = locate(dir) {
                log(&at.git_dir, event, &format!("input not used: {e}"));
            }
            return Answer::Silent;
        }
    };
    let start: PathBuf = payload
        .cwd
        .clone()
        .filter(|c| c.is_dir())
        .unwrap_or_else(|| dir.to_path_buf());
    let Some(at) = locate(&start) else {
        // Outside a repository there is no memory and nowhere to log: say nothing.
        return Answer::Silent;
    };
    let result = match event {
        "PostToolUse" => tick::post_tool_use(&at, &payload, &start, false),
        // A failed call counts as one; Claude Code takes only added context from this
        // event, so RED's block is handed over as context.
        "PostToolUseFailure" => tick::post_tool_use(&at, &payload, &start, true).map(|a| match a {
            Answer::Block(reason) => Answer::Context(reason),
            other => other,
        }),
        "SessionStart" => lifecycle::session_start(&start, &payload),
        "PreCompact" => lifecycle::pre_compact(&start, &payload),
        "Stop" | "SessionEnd" => lifecycle::stop(&start, &payload, event == "SessionEnd"),
        other => Err(anyhow::anyhow!(
            "unknown event {other:?} (git-rune answers {})",
            EVENTS.join(", ")
        )),
    };
    match result {
        Ok(answer) => answer,
        Err(e) => {
            log(&at.git_dir, event, &format!("{e:#}"));
            Answer::Silent
        }
    }
}
