//! One event model for every agent: each agent's hook events and payloads are mapped to the
//! same use cases (session start, tool tick, pre-compaction, stop, session end) in Claude
//! Code's payload shape, which the lifecycle and tick code answer; the answer goes back in
//! the calling agent's own output shape. The context engine and the briefing never learn
//! which agent called.

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};

/// What an event means to git-rune, whoever sent it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UseCase {
    SessionStart,
    ToolTick,
    PreCompact,
    Stop,
    SessionEnd,
}

impl UseCase {
    /// The Claude Code event the lifecycle and tick code answer for this use case.
    pub fn claude_event(self) -> &'static str {
        match self {
            UseCase::SessionStart => "SessionStart",
            UseCase::ToolTick => "PostToolUse",
            UseCase::PreCompact => "PreCompact",
            UseCase::Stop => "Stop",
            UseCase::SessionEnd => "SessionEnd",
        }
    }
}

/// An agent's event, ready for the Claude Code path.
#[derive(Debug)]
pub enum Mapped {
    /// Answer `event` (a Claude Code event name) with `input` (Claude Code's payload shape).
    Run { event: &'static str, input: Vec<u8> },
    /// Nothing to do for this event (e.g. Gemini CLI's PreCompress before a turn that
    /// compresses nothing): exit 0, print nothing.
    Skip,
}

/// The fields any agent's payload may carry, in any of the spellings seen: read leniently,
/// tool responses kept raw until a read's line count is asked for.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Raw<'a> {
    pub session_id: Option<String>,
    #[serde(rename = "sessionId")]
    pub session_id_camel: Option<String>,
    pub conversation_id: Option<String>,
    pub cwd: Option<String>,
    pub workspace_roots: Option<Vec<String>>,
    pub source: Option<String>,
    pub trigger: Option<String>,
    pub reason: Option<String>,
    pub tool_name: Option<String>,
    #[serde(rename = "toolName")]
    pub tool_name_camel: Option<String>,
    #[serde(borrow)]
    pub tool_input: Option<&'a RawValue>,
    #[serde(rename = "toolArgs", borrow)]
    pub tool_args: Option<&'a RawValue>,
    #[serde(borrow)]
    pub tool_response: Option<&'a RawValue>,
    #[serde(rename = "toolResult", borrow)]
    pub tool_result_camel: Option<&'a RawValue>,
    #[serde(borrow)]
    pub tool_result: Option<&'a RawValue>,
    #[serde(borrow)]
    pub tool_output: Option<&'a RawValue>,
    #[serde(borrow)]
    pub timestamp: Option<&'a RawValue>,
    pub transcript_path: Option<String>,
    pub permission_mode: Option<String>,
}

impl Raw<'_> {
    pub fn session(&self) -> Option<&str> {
        self.session_id
            .as_deref()
            .or(self.session_id_camel.as_deref())
            .or(self.conversation_id.as_deref())
    }

    pub fn cwd(&self) -> Option<&str> {
        self.cwd.as_deref().or_else(|| {
            self.workspace_roots
                .as_ref()
                .and_then(|r| r.first())
                .map(String::as_str)
        })
    }

    pub fn tool(&self) -> Option<&str> {
        self.tool_name
            .as_deref()
            .or(self.tool_name_camel.as_deref())
    }

    /// The tool's arguments: `tool_input`, or Copilot CLI's `toolArgs` (an object, or a JSON
    /// string holding one).
    pub fn args(&self) -> Value {
        let Some(raw) = self.tool_input.or(self.tool_args) else {
            return Value::Null;
        };
        match serde_json::from_str::<Value>(raw.get()) {
            Ok(Value::String(s)) => serde_json::from_str(&s).unwrap_or(Value::String(s)),
            Ok(v) => v,
            Err(_) => Value::Null,
        }
    }

    /// The text a tool returned, whatever the agent calls it.
    pub fn response_text(&self) -> Option<String> {
        let raw = self
            .tool_response
            .or(self.tool_result_camel)
            .or(self.tool_result)
            .or(self.tool_output)?;
        let v: Value = serde_json::from_str(raw.get()).ok()?;
        text_of(&v)
    }
}

/// The text inside a tool result of any agent's shape.
fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Object(o) => [
            "llmContent",
            "textResultForLlm",
            "text_result_for_llm",
            "output",
            "content",
            "stdout",
        ]
        .iter()
        .find_map(|k| o.get(*k).and_then(text_of)),
        Value::Array(a) => {
            let parts: Vec<String> = a.iter().filter_map(text_of).collect();
            (!parts.is_empty()).then(|| parts.join("\n"))
        }
        _ => None,
    }
}

/// How an agent's tool maps onto the tools the tick measures: a read (its lines count toward
/// the large-file multiplier), an edit of a file (the file is touched), or the agent's own todo
/// list (the branch's tasks follow it, as they follow Claude Code's TodoWrite).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    Read,
    Edit,
    Write,
    Todos,
    Other,
}

/// A todo list tool's arguments as TodoWrite's list: its `todos` (Gemini CLI's `write_todos`,
/// OpenCode's `todowrite`), each with its text as `content` or `description`, and its `status`.
fn todo_list(args: &Value) -> Value {
    let items = args.get("todos").and_then(Value::as_array);
    let todos = (items.into_iter().flatten())
        .filter_map(|item| {
            let text = ["content", "description"]
                .iter()
                .find_map(|k| item.get(*k)?.as_str())?;
            Some(json!({ "content": text, "status": item.get("status")?.as_str()? }))
        })
        .collect();
    Value::Array(todos)
}

/// The first of `keys` in a tool's arguments that holds a string.
pub fn arg_path<'v>(args: &'v Value, keys: &[&str]) -> Option<&'v str> {
    keys.iter()
        .find_map(|k| args.get(*k).and_then(Value::as_str))
        .filter(|p| !p.is_empty())
}

/// Builds Claude Code's payload for `case` from an agent's fields: the tool named as Claude
/// Code names the kind (`Read`, `Edit`, `Write`) so the tick measures it the same way.
pub fn claude_payload(
    raw: &Raw<'_>,
    case: UseCase,
    source: Option<&str>,
    kind: ToolKind,
    file: Option<&str>,
) -> Vec<u8> {
    let mut o = Map::new();
    o.insert("hook_event_name".into(), json!(case.claude_event()));
    if let Some(s) = raw.session() {
        o.insert("session_id".into(), json!(s));
    }
    if let Some(c) = raw.cwd() {
        o.insert("cwd".into(), json!(c));
    }
    if let Some(s) = source.or(raw.source.as_deref()) {
        o.insert("source".into(), json!(s));
    }
    if let Some(t) = &raw.trigger {
        o.insert("trigger".into(), json!(t));
    }
    if let Some(r) = &raw.reason {
        o.insert("reason".into(), json!(r));
    }
    if case == UseCase::ToolTick {
        let name = match kind {
            ToolKind::Read => "Read",
            ToolKind::Edit => "Edit",
            ToolKind::Write => "Write",
            // (Its own name: what a refusal names; the list is in `tool_input.todos`.)
            ToolKind::Todos => raw.tool().unwrap_or("TodoWrite"),
            ToolKind::Other => raw.tool().unwrap_or("unknown"),
        };
        o.insert("tool_name".into(), json!(name));
        if let Some(f) = file {
            o.insert("tool_input".into(), json!({ "file_path": f }));
        }
        if kind == ToolKind::Todos {
            o.insert(
                "tool_input".into(),
                json!({ "todos": todo_list(&raw.args()) }),
            );
        }
        if kind == ToolKind::Read {
            if let Some(text) = raw.response_text() {
                let lines = text.lines().count();
                o.insert(
                    "tool_response".into(),
                    json!({ "type": "text", "file": { "numLines": lines } }),
                );
            }
        }
    }
    Value::Object(o).to_string().into_bytes()
}

/// Maps an agent's tool call onto Claude Code's payload for the tick: `tools` names the
/// agent's reading and editing tools, `paths` the argument keys that hold their file.
pub fn tick(raw: &Raw<'_>, tools: &[(&str, ToolKind)], paths: &[&str]) -> Mapped {
    let kind = raw
        .tool()
        .and_then(|t| tools.iter().find(|(n, _)| *n == t))
        .map_or(ToolKind::Other, |(_, k)| *k);
    let args = raw.args();
    let file = match kind {
        ToolKind::Other | ToolKind::Todos => None,
        _ => arg_path(&args, paths),
    };
    Mapped::Run {
        event: UseCase::ToolTick.claude_event(),
        input: claude_payload(raw, UseCase::ToolTick, None, kind, file),
    }
}

/// Maps a lifecycle event (anything but a tool tick) onto Claude Code's payload.
pub fn lifecycle(raw: &Raw<'_>, case: UseCase, source: Option<&str>) -> Mapped {
    Mapped::Run {
        event: case.claude_event(),
        input: claude_payload(raw, case, source, ToolKind::Other, None),
    }
}

/// Parses an agent's payload leniently: input that is not a JSON object still reaches the
/// Claude Code path, which logs it as unusable.
pub fn parse(input: &[u8]) -> Option<Raw<'_>> {
    serde_json::from_slice(input).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_results_of_every_shape_give_their_text() {
        for (v, want) in [
            (json!("a\nb"), "a\nb"),
            (json!({"llmContent": "x\ny\nz"}), "x\ny\nz"),
            (
                json!({"resultType": "success", "textResultForLlm": "t"}),
                "t",
            ),
            (json!({"output": "o"}), "o"),
            (json!([{"type": "text", "text": "ignored"}, "s"]), "s"),
        ] {
            assert_eq!(text_of(&v).as_deref(), Some(want), "{v}");
        }
    }
}
