//! git-rune: git-native memory for AI coding agents, as a library the `git-rune` binary drives.
//!
//! The public surface is what a program driving git-rune needs: the command line ([`cli`],
//! [`commands::run`]), the memory model ([`model`]), and the store ([`store`]: open a
//! repository, read and write memory refs and notes). Everything else is the crate's own;
//! docs/architecture.md maps it.

mod agent;
mod bytes;
mod cache;
pub mod cli;
pub mod commands;
mod context;
mod drift;
mod echoes;
mod error;
mod files;
mod global;
mod hooks;
mod integrity;
#[cfg(feature = "mcp")]
mod mcp;
mod memory;
pub mod model;
mod notes;
mod open;
mod oracle;
mod output;
mod rank;
mod read;
mod secrets;
mod settings;
pub mod store;
mod sync;
mod tasks;
mod text;
mod upkeep;
mod view;
pub use output::{report, report_usage};
