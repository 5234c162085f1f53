//! What an agent hook says back: Claude Code's hook output, and the log of what went wrong
//! (`<git-dir>/rune/agent.log`, which `git rune agent status` shows).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde_json::json;

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
        let line = crate::text::one_line(&crate::secrets::redact(msg));
        let _ = writeln!(f, "{} {event}: {line}", crate::store::now_rfc3339());
    }
}

/// The log lines written since the last call (the last session start): the newest `n` of
/// them and how many there were. Where it stopped is kept in `<git-dir>/rune/agent.log.seen`;
/// a log that shrank (removed, rotated) is read from its start.
pub fn unseen_log(git_dir: &Path, n: usize) -> (Vec<String>, usize) {
    let text = std::fs::read_to_string(log_path(git_dir)).unwrap_or_default();
    let seen_path = git_dir.join("rune").join("agent.log.seen");
    let seen = std::fs::read_to_string(&seen_path)
        .ok()
        .and_then(|s| s.trim().parse::<usize>().ok())
        .filter(|&s| s <= text.len() && text.is_char_boundary(s))
        .unwrap_or(0);
    if seen < text.len() {
        let _ = std::fs::write(&seen_path, text.len().to_string());
    }
    let lines: Vec<&str> = text[seen..].lines().filter(|l| !l.is_empty()).collect();
    let total = lines.len();
    let newest = lines[total.saturating_sub(n)..]
        .iter()
        .map(|l| crate::text::sanitize(l).chars().take(240).collect())
        .collect();
    (newest, total)
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
