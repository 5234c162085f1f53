//! `git rune oracle …`: seed 000's detach mode, a slow model's answer picked up later (the
//! use cases are in `oracle/`).

use std::io::Read;
use std::process::ExitCode;

use anyhow::{Context as _, Result};
use clap::{Args, Subcommand};

use super::Context;
use crate::memory::load::{quoted, FRAME_CLOSE, FRAME_OPEN};
use crate::model::kinds::Oracle;
use crate::model::{Body, Record};
use crate::oracle::{self, Dispatched, NewDispatch, Reattached, DEFAULT_TIMEOUT};
use crate::output::json;
use crate::text::sanitize;

/// `reattach`'s exit status when the answer is not ready yet.
pub const EXIT_NOT_READY: u8 = 3;
/// `reattach`'s exit status when the dispatch failed (timeout) or was orphaned.
pub const EXIT_FAILED: u8 = 4;
/// `reattach`'s exit status when the load gate withholds the answer as TAINTED.
pub const EXIT_WITHHELD: u8 = 5;

#[derive(Debug, Args)]
pub struct OracleArgs {
    #[command(subcommand)]
    pub command: OracleCommand,
}

#[derive(Debug, Subcommand)]
pub enum OracleCommand {
    /// Record a pending dispatch to a slow model (idempotent by bundle hash: a pending
    /// dispatch of the same bundle prints its session id and records nothing).
    Dispatch(DispatchArgs),
    /// Record a dispatch's answer: status complete, the response id and the excerpt.
    Complete(CompleteArgs),
    /// Pick up a dispatch's answer. Prints the excerpt and marks the dispatch consumed (exit
    /// 0); `not_ready` while pending before its timeout (exit 3); `failed` with the reason
    /// once the timeout passed (recorded) or when it was orphaned (exit 4); exit 5 when the
    /// integrity check withholds the answer as TAINTED; 1 for errors (no such dispatch).
    Reattach(ReattachArgs),
    /// List this branch's dispatches in their current state.
    List(ListArgs),
}

#[derive(Debug, Args)]
pub struct DispatchArgs {
    #[command(flatten)]
    pub redact: super::Redact,
    /// The caller's id: oracle-<digits>-<lowercase letters and digits>.
    #[arg(long)]
    pub session_id: String,
    /// What triggered it: agent.stuck or manual.
    #[arg(long)]
    pub trigger: String,
    /// The skill that dispatched it: debug, fix or manual.
    #[arg(long)]
    pub source: String,
    /// The model asked (e.g. claude-opus-4-7).
    #[arg(long)]
    pub model: String,
    /// sha256:<8 to 64 lowercase hex digits> of the bundled context: the idempotency key.
    #[arg(long)]
    pub bundle_hash: String,
    /// How long it may stay pending before a reattach fails it: 30s, 10m, 1h.
    #[arg(long, default_value = DEFAULT_TIMEOUT)]
    pub timeout: String,
}

#[derive(Debug, Args)]
pub struct CompleteArgs {
    #[command(flatten)]
    pub redact: super::Redact,
    /// The dispatch's session id.
    pub session_id: String,
    /// The answer's id.
    #[arg(long)]
    pub response_id: String,
    /// A file holding the answer's excerpt (`-` reads stdin); cut to 500 characters.
    #[arg(long, value_name = "FILE")]
    pub excerpt_file: String,
}

#[derive(Debug, Args)]
pub struct ReattachArgs {
    /// The dispatch's session id.
    pub session_id: String,
}

#[derive(Debug, Args)]
pub struct ListArgs {}

pub fn run(ctx: &Context, a: OracleArgs) -> Result<ExitCode> {
    match a.command {
        OracleCommand::Dispatch(a) => dispatch(ctx, a),
        OracleCommand::Complete(a) => complete(ctx, a),
        OracleCommand::Reattach(a) => reattach(ctx, a),
        OracleCommand::List(_) => list(ctx),
    }
}

fn dispatch(ctx: &Context, a: DispatchArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    let mut sealer = ctx.sealer();
    let done = oracle::dispatch(
        &store,
        &mut sealer,
        NewDispatch {
            session_id: a.session_id,
            trigger: a.trigger,
            source: a.source,
            model: a.model,
            bundle_hash: a.bundle_hash,
            timeout: a.timeout,
        },
    )?;
    ctx.report_redactions(&mut sealer);
    match &done {
        Dispatched::New(written) => {
            ctx.report_written(&store, Some(written));
            let record = &written.records[0];
            if ctx.ui.json {
                return ctx.print_json(&json::oracle_dispatched(Some(record), None));
            }
            ctx.print(&format!("{}\n", record.body.title()))
        }
        Dispatched::Existing(id) => {
            ctx.ui.status(format_args!(
                "git-rune: {} is pending for this bundle; nothing recorded",
                sanitize(id)
            ));
            if ctx.ui.json {
                return ctx.print_json(&json::oracle_dispatched(None, Some(id)));
            }
            ctx.print(&format!("{}\n", sanitize(id)))
        }
    }
}

fn complete(ctx: &Context, a: CompleteArgs) -> Result<ExitCode> {
    let excerpt = if a.excerpt_file == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("reading the excerpt from stdin")?;
        s
    } else {
        std::fs::read_to_string(&a.excerpt_file).map_err(|e| {
            crate::error::input(
                format!(
                    "cannot read the excerpt file {}: {}",
                    a.excerpt_file,
                    crate::error::io_text(&e)
                ),
                "pass a readable UTF-8 text file, or - to read stdin",
            )
        })?
    };
    let store = ctx.store()?;
    let mut sealer = ctx.sealer();
    let done = oracle::complete(&store, &mut sealer, &a.session_id, &a.response_id, &excerpt)?;
    ctx.report_redactions(&mut sealer);
    if done.cut {
        ctx.ui.status(format_args!(
            "git-rune: the excerpt was cut to {} characters",
            crate::model::oracle::MAX_EXCERPT
        ));
    }
    ctx.report_written(&store, Some(&done.written));
    if ctx.ui.json {
        return ctx.print_json(&json::oracle_list(std::slice::from_ref(&done.record)));
    }
    Ok(ExitCode::SUCCESS)
}

fn reattach(ctx: &Context, a: ReattachArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    let out = oracle::reattach(&store, &a.session_id)?;
    if let Reattached::Ready {
        written: Some(w), ..
    }
    | Reattached::Failed {
        written: Some(w), ..
    } = &out
    {
        ctx.report_written(&store, Some(w));
    }
    if ctx.ui.json {
        ctx.print_json(&json::oracle_reattached(&out))?;
    } else {
        ctx.ui.print(&reattach_text(&out))?;
    }
    Ok(match out {
        Reattached::Ready { .. } => ExitCode::SUCCESS,
        Reattached::NotReady(_) => ExitCode::from(EXIT_NOT_READY),
        Reattached::Failed { .. } => ExitCode::from(EXIT_FAILED),
        Reattached::Withheld(_) => ExitCode::from(EXIT_WITHHELD),
    })
}

/// The text `reattach` prints: the answer framed as `load` frames memory (quoted data, URLs
/// inert, SUSPICIOUS rules marked), or one status word and the session.
fn reattach_text(out: &Reattached) -> String {
    let id = |r: &Record| sanitize(r.body.title());
    match out {
        Reattached::Ready {
            record, suspicious, ..
        } => {
            let (response_id, excerpt, model) = match &record.body {
                Body::Oracle(o) => (
                    o.response_id.as_str(),
                    o.response_excerpt.as_str(),
                    &o.target_model,
                ),
                _ => ("", "", &String::new()),
            };
            let mark = if suspicious.is_empty() {
                String::new()
            } else {
                format!("[SUSPICIOUS: {}] ", suspicious.join(", "))
            };
            format!(
                "{FRAME_OPEN}# Oracle answer: {} ({}, response {})\n{mark}{}\n{FRAME_CLOSE}",
                id(record),
                quoted(&sanitize(model)),
                quoted(&sanitize(response_id)),
                quoted(excerpt)
            )
        }
        Reattached::NotReady(r) => {
            let at = match &r.body {
                Body::Oracle(Oracle { timeout_at, .. }) => timeout_at.as_str(),
                _ => "",
            };
            format!("not_ready {} (times out at {at})\n", id(r))
        }
        Reattached::Failed { record, reason, .. } => {
            format!("failed {}: {}\n", id(record), sanitize(reason))
        }
        Reattached::Withheld(r) => format!(
            "withheld {}: {}\n",
            id(r),
            crate::memory::load::withheld_line(1).unwrap_or_default()
        ),
    }
}

fn list(ctx: &Context) -> Result<ExitCode> {
    let store = ctx.store()?;
    let records = oracle::list(&store)?;
    if ctx.ui.json {
        return ctx.print_json(&json::oracle_list(&records));
    }
    if records.is_empty() {
        ctx.ui
            .status(format_args!("no oracle dispatches on this branch"));
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = String::new();
    for r in &records {
        out.push_str(&crate::output::oracle::line(r));
        out.push('\n');
    }
    ctx.print(&out)
}

/// Whether an oracle command that writes was given `--redact`.
pub(super) fn redact(a: &OracleArgs) -> bool {
    match &a.command {
        OracleCommand::Dispatch(a) => a.redact.redact,
        OracleCommand::Complete(a) => a.redact.redact,
        _ => false,
    }
}
