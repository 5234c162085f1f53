//! Cursor: hooks in `.cursor/hooks.json` (`{"version": 1, "hooks": {…}}`), snake_case
//! payloads keyed by `conversation_id` with the workspace in `workspace_roots`, and
//! `additional_context` in the answer. Cursor's agent CLI is not on the npm registry, so
//! what its session start does with the context is not proven here: install also writes the
//! AGENTS.md block (Cursor reads it) and registers the MCP server, so memory reaches the
//! model either way.

use super::event::{self, Mapped, ToolKind, UseCase};
use super::hook_file::{Layout, Spec};

/// The hooks git-rune wires into Cursor.
pub const SPEC: Spec = Spec {
    layout: Layout::Flat,
    version: Some(1),
    events: &[
        ("sessionStart", None),
        ("postToolUse", None),
        ("preCompact", None),
        ("stop", None),
        ("sessionEnd", None),
    ],
    command_key: "command",
    timeout: None,
    event_timeouts: &[],
    typed: false,
    agent: "cursor",
};

/// Cursor's reading and editing tools.
const TOOLS: &[(&str, ToolKind)] = &[
    ("Read", ToolKind::Read),
    ("read_file", ToolKind::Read),
    ("Write", ToolKind::Write),
    ("write", ToolKind::Write),
    ("Edit", ToolKind::Edit),
    ("StrReplace", ToolKind::Edit),
    ("search_replace", ToolKind::Edit),
    ("edit_file", ToolKind::Edit),
];
const PATHS: &[&str] = &["file_path", "path", "target_file", "filePath"];

pub fn map(name: &str, input: &[u8]) -> Mapped {
    let raw = event::parse(input).unwrap_or_default();
    match name {
        "sessionStart" => event::lifecycle(&raw, UseCase::SessionStart, Some("startup")),
        "postToolUse" => event::tick(&raw, TOOLS, PATHS),
        "preCompact" => event::lifecycle(&raw, UseCase::PreCompact, None),
        "stop" => event::lifecycle(&raw, UseCase::Stop, None),
        "sessionEnd" => event::lifecycle(&raw, UseCase::SessionEnd, None),
        _ => Mapped::Skip,
    }
}
