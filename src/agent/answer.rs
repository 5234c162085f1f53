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

/// The last `n` lines of the agent log.
pub fn recent_log(git_dir: &Path, n: usize) -> Vec<String> {
    let text = std::fs::read_to_string(log_path(git_dir)).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..]
        .iter()
        .map(|l| (*l).to_owned())
        .collect()
}

/// Where SessionStart keeps how much of the agent log it has told a session about.
fn seen_path(git_dir: &Path) -> PathBuf {
    git_dir.join("rune").join("agent.seen")
}

/// Hook failures logged since the last session start was told, oldest first (at most `n`,
/// and how many there were in all), after turning a mark the hooks' guard left (they ran
/// where git-rune was not on PATH) into a log line. Marks them told.
pub fn untold(git_dir: &Path, n: usize) -> (Vec<String>, usize) {
    if let Some((mark, when)) = missing_mark(git_dir) {
        let when = when.unwrap_or_else(|| "some time".into());
        log(
            git_dir,
            "hooks",
            &format!("agent hooks ran without git-rune on PATH (last at {when}) and did nothing: install git-rune where the agent runs, or put it on the agent's PATH"),
        );
        let _ = std::fs::remove_file(&mark);
    }
    let text = std::fs::read_to_string(log_path(git_dir)).unwrap_or_default();
    let seen: usize = std::fs::read_to_string(seen_path(git_dir))
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0);
    // A log shorter than what was told was replaced: all of it is new.
    let from = if seen <= text.len() && text.is_char_boundary(seen) {
        seen
    } else {
        0
    };
    let lines: Vec<&str> = text[from..]
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect();
    if seen != text.len() {
        let _ = crate::files::write_atomic(&seen_path(git_dir), text.len().to_string().as_bytes());
    }
    let all = lines.len();
    let shown = lines[all.saturating_sub(n)..]
        .iter()
        .map(|l| {
            let l = crate::text::one_line(l);
            match l.char_indices().nth(300) {
                Some((i, _)) => format!("{}…", &l[..i]),
                None => l,
            }
        })
        .collect();
    (shown, all)
}

/// Whether git-rune's hooks ran where git-rune was not on PATH (the time of the last run).
pub fn ran_without(git_dir: &Path) -> Option<String> {
    missing_mark(git_dir).map(|(_, when)| when.unwrap_or_else(|| "an unknown time".into()))
}

/// The mark the hooks' guard leaves, if it is there, and when it was last left (if known).
fn missing_mark(git_dir: &Path) -> Option<(PathBuf, Option<String>)> {
    let mark = git_dir.join("rune").join(super::claude::MISSING_MARK);
    let modified = std::fs::metadata(&mark).ok()?.modified().ok();
    let when = modified.map(chrono::DateTime::<chrono::Utc>::from);
    let when = when.map(|t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string());
    Some((mark, when))
}
