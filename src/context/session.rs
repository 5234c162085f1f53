//! One agent session's counters, in `<git-dir>/rune/context/<session>.json`: local to the
//! clone, never committed (a tool call must not write a memory commit), written atomically.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::health::{Level, Thresholds};
use crate::model::GitState;

/// Touched files kept per session (the compaction summary lists them).
const MAX_FILES: usize = 50;

/// Session files older than this are removed when a session starts.
const MAX_AGE: std::time::Duration = std::time::Duration::from_secs(24 * 3600);

/// What git-rune counts for one session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Session {
    pub id: String,
    /// When the session (or its last compaction) started, RFC 3339.
    pub started: String,
    pub tool_calls: u32,
    /// Read calls that returned more lines than the threshold.
    pub large_reads: u32,
    /// The tool call count when advice was last given (0: never).
    pub last_advice: u32,
    /// The level advice was last given for.
    pub advised: Option<String>,
    /// Set when ORANGE switched output density to caveman for this session.
    pub auto_caveman: bool,
    /// Set once RED has saved the state.
    pub red_saved: bool,
    /// Thresholds read from git config at session start.
    pub thresholds: Option<Thresholds>,
    /// Files edited or written this session, first touch first.
    pub files: Vec<String>,
    /// Tool calls by tool name.
    pub tools: BTreeMap<String, u32>,
    /// Decisions in memory when the session started (the report counts new ones).
    pub decisions_at_start: usize,
    pub compactions: u32,
    /// Tool calls (all, across compactions) and files touched when the session was last
    /// recorded in memory.
    pub recorded_calls: u32,
    pub recorded_files: usize,
    /// Tool calls that failed (Claude Code's PostToolUseFailure), across compactions; each
    /// is counted in `tool_calls` too.
    pub failures: u32,
    /// The save the code drifted from when the session started, while that drift is not
    /// acted on: the session's own saves (Stop, PreCompact, RED) record the code as it was
    /// then, so the next context still sees the drift (docs/agents.md).
    pub baseline: Option<GitState>,
    /// What git-rune put into the conversation's current context (since its start or its last
    /// compaction), so a resumed session is told only what it does not hold.
    pub briefed: Option<Briefed>,
}

/// What the conversation's current context holds of git-rune's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Briefed {
    /// When the last full briefing was given, RFC 3339.
    pub at: String,
    /// The briefing's items the context holds (hashes of section and text).
    pub items: Vec<u64>,
    /// The checkpoint item among them (0: none).
    pub checkpoint: u64,
    /// Characters of git-rune text in the context: briefings, summaries, advice.
    pub chars: usize,
    /// A hash of the mode rules handed over (0: none).
    pub mode: u64,
    /// The caveman rules are in the context.
    pub caveman: bool,
}

impl Session {
    pub fn new(id: &str, now: &str) -> Session {
        Session {
            id: id.to_owned(),
            started: now.to_owned(),
            ..Session::default()
        }
    }

    pub fn thresholds(&self) -> Thresholds {
        self.thresholds.unwrap_or_default()
    }

    pub fn level(&self) -> Level {
        self.thresholds().level(self.tool_calls, self.large_reads)
    }

    /// Whether the large-file multiplier is in force.
    pub fn multiplied(&self) -> bool {
        self.large_reads >= self.thresholds().large_reads
    }

    /// Starts counting tool calls afresh (a new or compacted context), with the advice and
    /// the automatic density that went with the old count.
    pub fn reset_counter(&mut self) {
        self.tool_calls = 0;
        self.large_reads = 0;
        self.last_advice = 0;
        self.advised = None;
        self.auto_caveman = false;
        self.red_saved = false;
    }

    /// Tool calls in all, across compactions.
    pub fn total_calls(&self) -> u32 {
        self.tools.values().sum()
    }

    /// The session's summary when it has something not yet recorded: files touched since
    /// (or, at the session's `end`, any tool call since).
    pub fn unrecorded(&self, end: bool) -> Option<String> {
        let new_files = self.files.len() > self.recorded_files;
        let new_calls = self.total_calls() > self.recorded_calls;
        if !(new_files || end && new_calls) {
            return None;
        }
        let short: String = self.id.chars().take(8).collect();
        let mut line = format!("agent session {short}: {} tool calls", self.total_calls());
        if !self.files.is_empty() {
            let shown: Vec<&str> = self.files.iter().take(10).map(String::as_str).collect();
            line.push_str(&format!("; touched {}", shown.join(", ")));
            if self.files.len() > shown.len() {
                line.push_str(&format!(" and {} more", self.files.len() - shown.len()));
            }
        }
        Some(line)
    }

    /// Notes that the session as it stands is recorded.
    pub fn mark_recorded(&mut self) {
        self.recorded_calls = self.total_calls();
        self.recorded_files = self.files.len();
    }

    /// Counts one tool call that failed (its name only: a failed edit touched nothing).
    pub fn count_failure(&mut self, tool: &str) {
        self.failures += 1;
        self.count(tool, None, None);
    }

    /// Counts one tool call: its name, the lines a Read returned, the file an edit touched.
    pub fn count(&mut self, tool: &str, read_lines: Option<u32>, touched: Option<&str>) {
        self.tool_calls += 1;
        *self.tools.entry(tool.to_owned()).or_default() += 1;
        if read_lines.is_some_and(|n| n > self.thresholds().large_read_lines) {
            self.large_reads += 1;
        }
        if let Some(f) = touched {
            if !self.files.iter().any(|x| x == f) && self.files.len() < MAX_FILES {
                self.files.push(f.to_owned());
            }
        }
    }
}

/// Where the sessions of a repository are counted.
pub fn dir(git_dir: &Path) -> PathBuf {
    git_dir.join("rune").join("context")
}

/// The counters file of `id` (any character outside `[A-Za-z0-9._-]` replaced, so an id can
/// never name a path elsewhere).
pub fn path(git_dir: &Path, id: &str) -> PathBuf {
    let keep = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    let safe: String = id.chars().map(|c| if keep(c) { c } else { '_' }).collect();
    let safe = safe.trim_start_matches('.');
    let safe = if safe.is_empty() { "unknown" } else { safe };
    dir(git_dir).join(format!("{safe}.json"))
}

/// Reads the counters of `id`; `None` when there are none (or they cannot be read).
pub fn read(git_dir: &Path, id: &str) -> Option<Session> {
    let data = std::fs::read(path(git_dir, id)).ok()?;
    serde_json::from_slice(&data).ok()
}

/// Writes the counters atomically (a temporary file renamed over the old one).
pub fn write(git_dir: &Path, s: &Session) -> std::io::Result<()> {
    let p = path(git_dir, &s.id);
    if let Some(d) = p.parent() {
        std::fs::create_dir_all(d)?;
    }
    let data = serde_json::to_vec(s).map_err(std::io::Error::other)?;
    crate::files::write_atomic(&p, &data).map(drop)
}

/// Removes the counters of sessions untouched for a day; returns how many.
pub fn clean(git_dir: &Path) -> usize {
    crate::files::remove_older(&dir(git_dir), MAX_AGE)
}

/// Every session counted here, newest first.
pub fn all(git_dir: &Path) -> Vec<Session> {
    let mut out: Vec<(std::time::SystemTime, Session)> = Vec::new();
    for e in std::fs::read_dir(dir(git_dir))
        .into_iter()
        .flatten()
        .flatten()
    {
        if e.path().extension().and_then(|x| x.to_str()) != Some("json") {
            continue;
        }
        let when = e
            .metadata()
            .and_then(|m| m.modified())
            .unwrap_or(std::time::UNIX_EPOCH);
        if let Some(s) = std::fs::read(e.path())
            .ok()
            .and_then(|d| serde_json::from_slice::<Session>(&d).ok())
        {
            out.push((when, s));
        }
    }
    out.sort_by_key(|b| std::cmp::Reverse(b.0));
    out.into_iter().map(|(_, s)| s).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_cannot_escape_the_directory() {
        let p = path(Path::new("/g"), "../../etc/passwd");
        assert_eq!(p, Path::new("/g/rune/context/_.._etc_passwd.json"));
        assert_eq!(
            path(Path::new("/g"), ""),
            Path::new("/g/rune/context/unknown.json")
        );
    }

    #[test]
    fn counting_tracks_large_reads_and_touched_files() {
        let mut s = Session::new("s", "t");
        for _ in 0..3 {
            s.count("Read", Some(600), None);
        }
        s.count("Edit", None, Some("src/a.rs"));
        s.count("Edit", None, Some("src/a.rs"));
        assert_eq!(s.tool_calls, 5);
        assert!(s.multiplied());
        assert_eq!(s.files, vec!["src/a.rs"]);
        assert_eq!(s.tools["Read"], 3);
    }
}
