//! Agents that use memory by themselves: wiring Claude Code (hooks in its settings) and
//! agents without hooks (a marked block in AGENTS.md), and answering Claude Code's hook
//! events with the context engine.

pub mod agents_md;
pub mod answer;
mod briefing;
pub mod claude;
pub mod hook;
pub mod install;
mod lifecycle;
pub mod mcp_config;
pub mod payload;
pub mod summary;
mod tick;
mod transcript;
