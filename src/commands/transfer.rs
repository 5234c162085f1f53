//! `git rune import <format>` and `git rune export <format>`: other tools' files in and out.
//! Formats: `sp-json` (the seed's session protocol file).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand};

use super::Context;
use crate::error::user_error;
use crate::output::json;
use crate::tasks;
use crate::text::sanitize;

#[derive(Debug, Args)]
pub struct ImportArgs {
    #[command(subcommand)]
    pub format: ImportFormat,
}

#[derive(Debug, Subcommand)]
pub enum ImportFormat {
    /// Tasks and context blocks from the seed's sp.json (default: session-protocol.json,
    /// else sp.json, at the top of the work tree).
    SpJson(SpJsonArgs),
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    #[command(subcommand)]
    pub format: ExportFormat,
}

#[derive(Debug, Subcommand)]
pub enum ExportFormat {
    /// Tasks and context blocks as the seed's sp.json: one minified line (default: sp.json
    /// at the top of the work tree; `-` prints it).
    SpJson(SpJsonArgs),
}

#[derive(Debug, Args)]
pub struct SpJsonArgs {
    /// The file.
    pub file: Option<PathBuf>,
}

/// The top of the work tree (the current directory in a bare repository).
fn top(ctx: &Context, store: &crate::store::Store) -> PathBuf {
    store
        .workdir()
        .map(|w| w.to_path_buf())
        .unwrap_or_else(|| ctx.dir.clone())
}

pub fn import(ctx: &Context, a: ImportArgs) -> Result<ExitCode> {
    let ImportFormat::SpJson(a) = a.format;
    let store = ctx.store()?;
    let path = match a.file {
        Some(f) => ctx.dir.join(f),
        None => {
            let top = top(ctx, &store);
            let long = top.join("session-protocol.json");
            if long.exists() {
                long
            } else {
                top.join("sp.json")
            }
        }
    };
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(&path).map_err(|e| {
        user_error(
            format!("cannot read {shown}: {e}"),
            "name the file: `git rune import sp-json FILE`; nothing was imported",
        )
    })?;
    let mut sealer = ctx.sealer();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| shown.clone());
    let imported = tasks::import_sp_json(&store, &mut sealer, &text, &name)?;
    ctx.report_redactions(&mut sealer);
    if let Some(w) = &imported.written {
        ctx.report_written(&store, w);
    }
    for (from, to) in &imported.renumbered {
        ctx.ui.warn(format_args!(
            "{from} is taken by another task here: imported as {to} (was {from})"
        ));
    }
    if ctx.ui.json {
        let mut v = json::written(imported.written.as_ref());
        v["tasks"] = serde_json::json!(imported.tasks);
        v["context_blocks"] = serde_json::json!(imported.blocks);
        v["summary"] = json::task_summary(&imported.summary);
        ctx.ui.print(&(json::line(&v) + "\n"))?;
        return Ok(ExitCode::SUCCESS);
    }
    ctx.report(&format!(
        "imported {} tasks and {} context blocks from {}\n{}\n",
        imported.tasks,
        imported.blocks,
        sanitize(&name),
        sanitize(&imported.summary.saved_line())
    ))?;
    Ok(ExitCode::SUCCESS)
}

pub fn export(ctx: &Context, a: ExportArgs) -> Result<ExitCode> {
    let ExportFormat::SpJson(a) = a.format;
    let store = ctx.store()?;
    let text = tasks::export_sp_json(&store)?;
    if a.file.as_deref() == Some(std::path::Path::new("-")) {
        ctx.ui.print(&(text + "\n"))?;
        return Ok(ExitCode::SUCCESS);
    }
    let path = match a.file {
        Some(f) => ctx.dir.join(f),
        None => top(ctx, &store).join("sp.json"),
    };
    crate::files::write_atomic(&path, text.as_bytes()).map_err(|e| {
        user_error(
            format!("cannot write {}: {e}", path.display()),
            "name a file you can write: `git rune export sp-json FILE` (or `-` to print it)",
        )
    })?;
    ctx.ui.status(format_args!("wrote {}", path.display()));
    Ok(ExitCode::SUCCESS)
}
