//! What Claude Code sends a hook on stdin: one JSON object with the common fields
//! (`session_id`, `transcript_path`, `cwd`, `hook_event_name`) and each event's own
//! (`source`, `trigger`, `reason`, `stop_hook_active`, `tool_name`, `tool_input`,
//! `tool_response`). Read leniently: unknown fields are ignored and every field may be
//! missing, so a newer Claude Code never breaks the hook. The recorded shapes are in
//! `tests/fixtures/claude-code/`.

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::value::RawValue;

/// One hook input. `tool_response` stays raw text until a tool's handling asks for it: a
/// Read's response holds the whole file, and counting a call must not build a tree of it.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Payload<'a> {
    pub session_id: Option<String>,
    /// Claude Code's transcript of the conversation (JSON Lines).
    pub transcript_path: Option<PathBuf>,
    pub cwd: Option<PathBuf>,
    pub hook_event_name: Option<String>,
    /// SessionStart: `startup`, `resume`, `clear` or `compact`.
    pub source: Option<String>,
    /// PreCompact: `manual` or `auto`.
    pub trigger: Option<String>,
    /// SessionEnd: `clear`, `logout`, `prompt_input_exit`, `other`, …
    pub reason: Option<String>,
    pub tool_name: Option<String>,
    pub tool_input: Option<ToolInput>,
    #[serde(borrow)]
    pub tool_response: Option<&'a RawValue>,
}

/// The parts of a tool's input the hook uses.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ToolInput {
    /// Read, Edit, MultiEdit, Write.
    pub file_path: Option<String>,
    /// NotebookEdit.
    pub notebook_path: Option<String>,
    /// TodoWrite: the agent's whole todo list.
    pub todos: Option<Vec<crate::tasks::todo::Todo>>,
    /// TaskCreate, TaskUpdate: the task's title.
    pub subject: Option<String>,
    /// TaskUpdate: the task's new status (`pending`, `in_progress`, `completed`, `deleted`).
    pub status: Option<String>,
    /// TaskUpdate: the session's id of the task (TaskCreate answered with it).
    #[serde(rename = "taskId")]
    pub task_id: Option<String>,
}

/// The part of a Read's response the hook uses: `{"type":"text","file":{"numLines":…}}`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ReadResponse {
    file: Option<ReadFile>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ReadFile {
    #[serde(rename = "numLines")]
    num_lines: Option<u32>,
    content: Option<String>,
}

/// Why the input was not used.
#[derive(Debug, thiserror::Error)]
pub enum PayloadError {
    #[error("no input on stdin (Claude Code sends the event as JSON)")]
    Empty,
    #[error("the input is not a JSON object: {0}")]
    Invalid(#[from] serde_json::Error),
}

impl<'a> Payload<'a> {
    pub fn parse(input: &'a [u8]) -> Result<Payload<'a>, PayloadError> {
        if input.iter().all(u8::is_ascii_whitespace) {
            return Err(PayloadError::Empty);
        }
        Ok(serde_json::from_slice(input)?)
    }

    /// The session's id, or `unknown` when the input had none.
    pub fn session(&self) -> &str {
        self.session_id
            .as_deref()
            .filter(|s| !s.is_empty())
            .unwrap_or("unknown")
    }

    pub fn tool(&self) -> &str {
        self.tool_name.as_deref().unwrap_or("unknown")
    }

    /// The lines a Read returned (`numLines`, or its content's lines for older shapes);
    /// `None` for other tools.
    pub fn read_lines(&self) -> Option<u32> {
        if self.tool() != "Read" {
            return None;
        }
        let r: ReadResponse = serde_json::from_str(self.tool_response?.get()).ok()?;
        let file = r.file?;
        file.num_lines.or_else(|| {
            file.content
                .map(|c| u32::try_from(c.lines().count()).unwrap_or(u32::MAX))
        })
    }

    /// The file an editing tool changed (`Edit`, `MultiEdit`, `Write`, `NotebookEdit`).
    pub fn touched(&self) -> Option<&str> {
        if !matches!(self.tool(), "Edit" | "MultiEdit" | "Write" | "NotebookEdit") {
            return None;
        }
        let input = self.tool_input.as_ref()?;
        input
            .file_path
            .as_deref()
            .or(input.notebook_path.as_deref())
            .filter(|p| !p.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Vec<u8> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/claude-code")
            .join(name);
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    #[test]
    fn every_recorded_shape_parses() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claude-code");
        let mut n = 0;
        for e in std::fs::read_dir(dir).unwrap() {
            let path = e.unwrap().path();
            if path.extension().is_some_and(|x| x == "json") {
                let data = std::fs::read(&path).unwrap();
                let p = Payload::parse(&data).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                assert!(
                    p.session_id.is_some() && p.hook_event_name.is_some(),
                    "{}",
                    path.display()
                );
                n += 1;
            }
        }
        assert!(n >= 20, "{n} fixtures");
    }

    #[test]
    fn reads_are_measured_and_edits_name_their_file() {
        let large = fixture("PostToolUse-Read-large.json");
        assert_eq!(Payload::parse(&large).unwrap().read_lines(), Some(601));
        let small = fixture("PostToolUse-Read-small.json");
        assert_eq!(Payload::parse(&small).unwrap().read_lines(), Some(9));
        let edit = fixture("PostToolUse-Edit.json");
        let p = Payload::parse(&edit).unwrap();
        assert_eq!(p.read_lines(), None);
        assert_eq!(p.touched(), Some("/home/user/project/src/lib.rs"));
        let mcp = fixture("PostToolUse-mcp-github-get_issue.json");
        let p = Payload::parse(&mcp).unwrap();
        assert_eq!(p.tool(), "mcp__github__get_issue");
        assert_eq!((p.read_lines(), p.touched()), (None, None));
        for name in [
            "PostToolUse-Write-create.json",
            "PostToolUse-Write-update.json",
        ] {
            let data = fixture(name);
            assert!(Payload::parse(&data).unwrap().touched().is_some(), "{name}");
        }
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        assert!(matches!(Payload::parse(b""), Err(PayloadError::Empty)));
        assert!(matches!(Payload::parse(b" \n"), Err(PayloadError::Empty)));
        assert!(Payload::parse(b"[1,2]").is_err());
        assert!(Payload::parse(b"{\"session_id\": 3}").is_err());
        let p = Payload::parse(b"{}").unwrap();
        assert_eq!((p.session(), p.tool()), ("unknown", "unknown"));
        // A Read whose response is not the usual object.
        let odd = br#"{"tool_name":"Read","tool_response":"text"}"#;
        assert_eq!(Payload::parse(odd).unwrap().read_lines(), None);
    }
}
