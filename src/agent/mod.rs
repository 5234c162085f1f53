//! Agents that use memory by themselves: wiring Claude Code (hooks in its settings) and
//! agents without hooks (a marked block in AGENTS.md), and answering Claude Code's hook
//! events with the context engine. Codex, Gemini CLI, Copilot CLI, Cursor and OpenCode are wired
//! natively too (`wiring`), their events mapped onto the same use cases (`event`).

pub mod agents_md;
pub mod answer;
mod briefing;
pub mod claude;
pub mod codex;
pub mod copilot;
pub mod cursor;
pub mod event;
pub mod gemini;
pub mod hook;
pub mod hook_file;
pub mod install;
mod lifecycle;
pub mod mcp_config;
pub mod opencode;
pub mod payload;
pub mod plugin;
pub mod route;
mod settings_file;
pub mod summary;
mod task_tools;
mod tick;
mod transcript;
pub mod wiring;
