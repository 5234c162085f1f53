//! git-rune: git-native memory for AI coding agents, as a library the `git-rune` binary drives.

pub mod bytes;
pub mod checkout;
pub mod cli;
pub mod commands;
pub mod drift;
pub mod hooks;
pub mod integrity;
pub mod model;
pub mod notes;
pub mod output;
pub mod rewrite;
pub mod secrets;
pub mod store;
pub mod view;
