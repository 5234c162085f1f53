//! `git rune mcp`: memory over the Model Context Protocol, for every agent that speaks it.
//! The official SDK (`rmcp`) does the protocol over stdio; [`server`] maps its requests to
//! [`tools`], which reuse the use cases the commands run. Only this module builds a tokio
//! runtime, so no other command pays for one.

mod gated;
mod params;
mod search;
mod server;
mod tools;

use std::path::PathBuf;

use anyhow::{Context as _, Result};

/// Serves MCP on stdin/stdout for the repository around `dir` until the client closes the
/// connection. `redact`: keep records holding a secret with the secret redacted, instead of
/// refusing them. `warn` tells what does not fail a request (stderr, the client's log).
pub fn serve(dir: PathBuf, redact: bool, warn: fn(&str)) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .context("cannot start the MCP server's runtime")?;
    runtime.block_on(server::run(server::RuneServer::new(dir, redact, warn)))
}
