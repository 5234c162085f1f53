//! The end-to-end suite: real agent clients from the npm registry and PyPI (Claude Code, Codex
//! CLI, Gemini CLI, the MCP Inspector, the Python MCP SDK) driven against the real `git-rune`
//! in temporary repositories, with a scripted fake model API on 127.0.0.1 that records every
//! request, so the tests assert what the model received.
//!
//! `scripts/e2e/install.sh` installs the clients into `target/e2e/clients` (or
//! `$RUNE_E2E_CLIENTS`); `scripts/e2e/run.sh` installs them if needed and runs this suite. On a
//! machine without them every test says so on the terminal and passes, so `cargo test` works
//! anywhere; with `RUNE_E2E=require` a missing client fails instead.
//!
//! Adding a client: install it in `scripts/e2e/package.json` (or the pip line of
//! install.sh), find it with [`clients::require`], point it at [`fake_api::FakeApi`] (which
//! speaks Anthropic Messages, OpenAI Chat Completions and Responses, and the Gemini API), and
//! drive it in a temporary repository ([`common::TestRepo`]).

#[path = "../it/common.rs"]
#[allow(dead_code, unused_macros, unused_imports)]
mod common;

mod claude_code;
#[path = "../support/clients.rs"]
mod clients;
// The fake speaks more than the tests here use (OpenAI dialects): the suites of other clients
// build on it.
#[allow(dead_code)]
#[path = "../support/fake_api.rs"]
mod fake_api;
mod mcp_clients;
