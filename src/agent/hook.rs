//! `git rune agent hook <event>`: answers one Claude Code hook event. It never fails the
//! agent: whatever goes wrong (bad input, no repository, no memory, a broken ref) it prints
//! nothing harmful, exits 0 and logs one line to `<git-dir>/rune/agent.log`, which
//! `git rune agent status` shows.
//!
//! Answers are Claude Code's hook output: `hookSpecificOutput` with `hookEventName` and
//! `additionalContext` (SessionStart, and PostToolUse when there is advice), or
//! `decision: "block"` with a `reason` (PostToolUse at RED: Claude Code hands the reason to
//! the model). PreCompact, Stop and SessionEnd print nothing.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde_json::json;

use super::payload::Payload;
use super::{lifecycle, tick};
use crate::store::locate;

/// The events `agent hook` answers.
pub const EVENTS: [&str; 5] = [
    "SessionStart",
    "PreCompact",
    "PostToolUse",
    "Stop",
    "SessionEnd",
];

/// What a hook prints on stdout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Nothing (the event has nothing to say).
    Silent,
    /// Text Claude Code adds to the model's context.
    Context(String),
    /// PostToolUse: a reason Claude Code shows the model at once.
    Block(String),
}

impl Answer {
    /// The JSON Claude Code reads (empty for [`Answer::Silent`]).
    pub fn to_stdout(&self, event: &str) -> String {
        let v = match self {
            Answer::Silent => return String::new(),
            Answer::Context(text) => json!({
                "hookSpecificOutput": { "hookEventName": event, "additionalContext": text }
            }),
            Answer::Block(reason) => json!({ "decision": "block", "reason": reason }),
        };
        v.to_string() + "\n"
    }
}

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
        "PostToolUse" => tick::post_tool_use(&at, &payload, &start),
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

/// Where hook failures are logged.
pub fn log_path(git_dir: &Path) -> PathBuf {
    git_dir.join("rune").join("agent.log")
}

/// Appends one line to the agent log (best effort: a hook that cannot log still exits 0).
pub fn log(git_dir: &Path, event: &str, msg: &str) {
    let path = log_path(git_dir);
    if let Some(d) = path.parent() {
        let _ = std::fs::create_dir_all(d);
    }
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
    {
        let line = crate::text::one_line(msg);
        let _ = writeln!(f, "{} {event}: {line}", crate::store::now_rfc3339());
    }
}

/// The last `n` lines of the agent log.
pub fn recent_log(git_dir: &Path, n: usize) -> Vec<String> {
    let text = std::fs::read_to_string(log_path(git_dir)).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..]
        .iter()
        .map(|l| (*l).to_owned())
        .collect()
}
