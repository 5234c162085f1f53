//! Integration tests: the real `git-rune` binary against real temporary git repositories.

mod common;

mod agent;
mod agents_e2e;
mod agents_native;
mod architecture;
mod cli_docs;
mod commit_notes;
mod concurrency;
mod crash;
mod diff;
mod drift;
mod drift_graph;
mod echo_cache;
mod echoes;
mod edge_cases;
mod hooks;
mod import;
mod integrity;
mod layout;
mod load_digest;
mod maintenance;
mod man;
#[cfg(feature = "mcp")]
mod mcp;
mod notes_store;
mod oracle;
mod promote;
mod record_commands;
mod rewrite;
mod save_load;
mod secrets;
mod seed000;
mod sharing_future;
mod sharing_layout;
mod sharing_privacy;
mod sharing_quarantine;
mod sync;
mod tasks;
mod terminal;
mod time_travel;
mod view_append;
mod view_concurrency;
mod view_fidelity;
mod view_switch;
