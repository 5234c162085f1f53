//! GitHub Copilot CLI: hooks in `.github/hooks/git-rune.json` (`{"version": 1, "hooks":
//! {…}}`), camelCase events and payloads (`sessionId`, `toolName`, `toolArgs`,
//! `toolResult`), and answers read only from a top-level `additionalContext`. Copilot CLI also
//! runs the hooks of `.claude/settings.json`: when git-rune is wired both ways, the Claude
//! Code wiring steps aside for Copilot's calls (see `commands/agent.rs`), so a tool is
//! counted once.

use super::event::{self, Mapped, ToolKind, UseCase};
use super::hook_file::{Layout, Spec};

/// The file git-rune's hooks live in, relative to the repository.
pub const FILE: &str = ".github/hooks/git-rune.json";

/// The hooks git-rune wires into Copilot CLI.
pub const SPEC: Spec = Spec {
    layout: Layout::Flat,
    version: Some(1),
    events: &[
        ("sessionStart", None),
        ("postToolUse", None),
        ("preCompact", None),
        ("agentStop", None),
        ("sessionEnd", None),
    ],
    command_key: "bash",
    timeout: Some(("timeoutSec", 60)),
    event_timeouts: &[],
    typed: true,
    agent: "copilot",
};

/// Copilot CLI's reading and editing tools.
const TOOLS: &[(&str, ToolKind)] = &[
    ("view", ToolKind::Read),
    ("create", ToolKind::Write),
    ("edit", ToolKind::Edit),
    ("str_replace", ToolKind::Edit),
    // The names it gives tools in Claude Code's payload shape (through .claude/settings.json).
    ("Read", ToolKind::Read),
    ("Write", ToolKind::Write),
    ("Edit", ToolKind::Edit),
];
const PATHS: &[&str] = &["path", "file_path", "filePath"];

pub fn map(name: &str, input: &[u8]) -> Mapped {
    let raw = event::parse(input).unwrap_or_default();
    match name {
        "sessionStart" | "SessionStart" => {
            // Copilot CLI says `new` where Claude Code says `startup`.
            let source = match raw.source.as_deref() {
                Some("resume") => "resume",
                _ => "startup",
            };
            event::lifecycle(&raw, UseCase::SessionStart, Some(source))
        }
        "postToolUse" | "PostToolUse" => event::tick(&raw, TOOLS, PATHS),
        "preCompact" | "PreCompact" => event::lifecycle(&raw, UseCase::PreCompact, None),
        "agentStop" | "Stop" => event::lifecycle(&raw, UseCase::Stop, None),
        "sessionEnd" | "SessionEnd" => event::lifecycle(&raw, UseCase::SessionEnd, None),
        _ => Mapped::Skip,
    }
}

/// Whether a payload that came through Claude Code's wiring was sent by Copilot CLI: its
/// payloads carry a `timestamp` (an ISO string in the Claude-compatible shape, recorded in
/// `tests/fixtures/copilot/claude-compat-*.json`), which Claude Code's never do, and never
/// Claude Code's `permission_mode`.
pub fn sent_this(raw: &event::Raw<'_>) -> bool {
    raw.timestamp.is_some() && raw.permission_mode.is_none()
}
