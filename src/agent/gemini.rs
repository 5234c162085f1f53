//! Gemini CLI: hooks in `.gemini/settings.json` (or `~/.gemini/settings.json`), Claude-like
//! payloads under Gemini's own event names, timeouts in milliseconds. SessionStart's
//! `additionalContext` is prepended to the prompt; AfterTool's is appended to the tool's
//! result. `PreCompress` fires before every turn, compressing or not (its `trigger` is
//! `auto` then): only a `manual` one (`/compress`) is taken as a compaction, so no
//! checkpoint is written per turn; the RED save of the tool tick covers a long session.

use super::event::{self, Mapped, ToolKind, UseCase};
use super::hook_file::{Layout, Spec};

/// The hooks git-rune wires into Gemini CLI.
pub const SPEC: Spec = Spec {
    layout: Layout::Grouped,
    version: None,
    events: &[
        ("SessionStart", None),
        ("AfterTool", None),
        ("PreCompress", None),
        ("AfterAgent", None),
        ("SessionEnd", None),
    ],
    command_key: "command",
    timeout: Some(("timeout", 60_000)),
    event_timeouts: &[],
    typed: true,
    agent: "gemini",
};

/// Gemini CLI's reading and editing tools.
const TOOLS: &[(&str, ToolKind)] = &[
    ("read_file", ToolKind::Read),
    ("write_file", ToolKind::Write),
    ("replace", ToolKind::Edit),
    ("edit", ToolKind::Edit),
    ("write_todos", ToolKind::Todos),
];
const PATHS: &[&str] = &["file_path", "absolute_path", "path"];

pub fn map(name: &str, input: &[u8]) -> Mapped {
    let raw = event::parse(input).unwrap_or_default();
    match name {
        "SessionStart" => event::lifecycle(&raw, UseCase::SessionStart, None),
        "AfterTool" => event::tick(&raw, TOOLS, PATHS),
        "PreCompress" if raw.trigger.as_deref() == Some("manual") => {
            event::lifecycle(&raw, UseCase::PreCompact, None)
        }
        "AfterAgent" => event::lifecycle(&raw, UseCase::Stop, None),
        "SessionEnd" => event::lifecycle(&raw, UseCase::SessionEnd, None),
        _ => Mapped::Skip,
    }
}
