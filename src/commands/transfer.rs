//! `git rune import <format>` and `git rune export <format>`: other tools' files in and out.
//! Formats: `sp-json` (the seed's session protocol file), `rune-dir` (a seed's `.rune/`
//! folder).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand};

use super::Context;
use crate::error;
use crate::memory::rune_dir;
use crate::memory::view_dir::VIEW_DIR;
use crate::output::json;
use crate::tasks;
use crate::text::sanitize;

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Keep a record that contains a secret, with the secret replaced by its prefix and
    /// ***REDACTED***, instead of refusing it.
    #[arg(long, global = true)]
    pub redact: bool,
    #[command(subcommand)]
    pub format: ImportFormat,
}

#[derive(Debug, Subcommand)]
pub enum ImportFormat {
    /// Tasks and context blocks from the seed's sp.json (default: session-protocol.json,
    /// else sp.json, at the top of the work tree).
    SpJson(SpJsonArgs),
    /// Every file of a seed's `.rune/` folder (committed on a branch, or copied out) as
    /// records: entries keep their dates, `checkpoint-<date>.resolved.md` archives become
    /// resolved checkpoints, what cannot be read is kept raw in cumulative notes' `Imported`
    /// section. Importing twice adds nothing.
    RuneDir(RuneDirImportArgs),
    /// An existing `.claude/echoes/` tree (seed 002): role memories, archives and findings
    /// files as echo records; what cannot be read is kept raw and reported with file:line.
    Echoes(EchoesImportArgs),
}

#[derive(Debug, Args)]
pub struct EchoesImportArgs {
    /// The folder (default: the echoes directory, `.claude/echoes`, unless git-rune checked
    /// it out: its edits are saved with `git rune save`).
    pub dir: Option<PathBuf>,
    /// Print what would be imported; write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Args)]
pub struct RuneDirImportArgs {
    /// The folder (default: `.rune` at the top of the work tree, unless it is git-rune's own
    /// view, which `git rune save` saves).
    pub dir: Option<PathBuf>,
    /// Print what would be imported, per file; write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Args)]
pub struct RuneDirExportArgs {
    /// The folder to write the seed's files into.
    pub dir: PathBuf,
    /// Overwrite files already there.
    #[arg(long)]
    pub force: bool,
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
    /// Memory as a seed's `.rune/` folder: every view file (branch-scoped ones from the
    /// current branch) and a `checkpoint-<date>.resolved.md` archive per resolved checkpoint.
    RuneDir(RuneDirExportArgs),
    /// Memory's echoes as a `.claude/echoes/` tree in the seed's format.
    Echoes(RuneDirExportArgs),
}

#[derive(Debug, Args)]
pub struct SpJsonArgs {
    /// The file.
    pub file: Option<PathBuf>,
}

/// A path the command line may name: where it is (relative to the current directory, as git
/// takes paths) and how messages name it (as typed), or the default, named where it is.
fn user_path(
    given: Option<PathBuf>,
    default: impl FnOnce() -> PathBuf,
    ctx: &Context,
) -> (PathBuf, PathBuf) {
    match given {
        Some(p) => (ctx.dir.join(&p), p),
        None => {
            let d = default();
            (d.clone(), d)
        }
    }
}

/// The top of the work tree (the current directory in a bare repository).
fn top(ctx: &Context, store: &crate::store::Store) -> PathBuf {
    store
        .workdir()
        .map(|w| w.to_path_buf())
        .unwrap_or_else(|| ctx.dir.clone())
}

pub fn import(ctx: &Context, a: ImportArgs) -> Result<ExitCode> {
    let a = match a.format {
        ImportFormat::SpJson(a) => a,
        ImportFormat::RuneDir(a) => return import_rune_dir(ctx, a),
        ImportFormat::Echoes(a) => return import_echoes(ctx, a),
    };
    let store = ctx.store()?;
    let (path, shown) = user_path(
        a.file,
        || {
            let top = top(ctx, &store);
            let long = top.join("session-protocol.json");
            if long.exists() {
                long
            } else {
                top.join("sp.json")
            }
        },
        ctx,
    );
    let shown = shown.display().to_string();
    let text = std::fs::read_to_string(&path).map_err(|e| {
        error::input(
            format!("cannot read {shown}: {}", error::io_text(&e)),
            "name the file: `git rune import sp-json FILE`; nothing was imported",
        )
    })?;
    let mut sealer = ctx.sealer();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| shown.clone());
    let imported = tasks::import_sp_json(&store, &mut sealer, &text, &shown)?;
    ctx.report_redactions(&mut sealer);
    ctx.report_written(&store, imported.written.as_ref());
    for d in &imported.drift {
        ctx.ui.warn(format_args!("{}", sanitize(d)));
    }
    for (from, to) in &imported.renumbered {
        ctx.ui.warn(format_args!(
            "{from} is taken by another task here: imported as {to} (was {from})"
        ));
    }
    if ctx.ui.json {
        return ctx.print_json(&json::import_sp_json(&imported));
    }
    ctx.reported(&format!(
        "imported {} tasks and {} context blocks from {}\n{}\n",
        imported.tasks,
        imported.blocks,
        sanitize(&name),
        sanitize(&imported.summary.saved_line())
    ))
}

fn import_rune_dir(ctx: &Context, a: RuneDirImportArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    let (dir, shown) = user_path(a.dir, || top(ctx, &store).join(VIEW_DIR), ctx);
    let mut sealer = ctx.sealer();
    let done = rune_dir::import(&store, &mut sealer, &dir, &shown, a.dry_run)?;
    ctx.report_redactions(&mut sealer);
    for f in &done.files {
        for n in &f.notes {
            ctx.ui
                .warn(format_args!("{}: {}", sanitize(&f.name), sanitize(n)));
        }
    }
    if ctx.ui.json {
        return ctx.print_json(&json::ImportRuneDirJson::of(&done));
    }
    if done.tracked {
        ctx.ui.status(format_args!(
            "hint: {VIEW_DIR}/ is git-rune's view now, rendered from memory, but this branch still commits it; stop tracking it with `git rm -r -q --cached {VIEW_DIR}` and commit"
        ));
    }
    let mut out = String::new();
    for f in &done.files {
        out.push_str(&format!(
            "{}: {} entries, {} kept raw, {} already in memory\n",
            sanitize(&f.name),
            f.entries,
            f.raw,
            f.present
        ));
    }
    let verb = if done.dry_run { "would add" } else { "added" };
    out.push_str(&format!(
        "{verb} {} records from {}{}\n",
        done.added,
        sanitize(&done.dir.display().to_string()),
        if done.dry_run {
            " (dry run: nothing written)"
        } else {
            ""
        }
    ));
    ctx.reported(&out)
}

pub fn export(ctx: &Context, a: ExportArgs) -> Result<ExitCode> {
    let a = match a.format {
        ExportFormat::SpJson(a) => a,
        ExportFormat::RuneDir(a) => return export_dir(ctx, &a, rune_dir::export),
        ExportFormat::Echoes(a) => return export_dir(ctx, &a, crate::echoes::transfer::export),
    };
    let store = ctx.store()?;
    let text = tasks::export_sp_json(&store)?;
    if a.file.as_deref() == Some(std::path::Path::new("-")) {
        return ctx.print(&(text + "\n"));
    }
    let path = match a.file {
        Some(f) => ctx.dir.join(f),
        None => top(ctx, &store).join("sp.json"),
    };
    crate::files::write_atomic(&path, text.as_bytes()).map_err(|e| {
        error::environment(
            format!("cannot write {}: {}", path.display(), error::io_text(&e)),
            "name a file you can write: `git rune export sp-json FILE` (or `-` to print it)",
        )
    })?;
    if ctx.ui.json {
        let v = json::ExportJson {
            dir: None,
            file: Some(path.display().to_string()),
            files: None,
            version: json::VERSION,
        };
        ctx.print_json(&v)?;
    }
    ctx.ui.status(format_args!("wrote {}", path.display()));
    Ok(ExitCode::SUCCESS)
}

/// `import echoes [DIR]`: an existing `.claude/echoes/` tree into memory.
fn import_echoes(ctx: &Context, a: EchoesImportArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    let own = crate::echoes::EchoDir::open(&store);
    let (dir, shown) = user_path(
        a.dir,
        || match &own {
            Some(d) => d.root.clone(),
            None => top(ctx, &store).join(crate::echoes::dir::DEFAULT_DIR),
        },
        ctx,
    );
    let same = own
        .as_ref()
        .is_some_and(|o| std::fs::canonicalize(&dir).ok() == std::fs::canonicalize(&o.root).ok());
    if let Some(own) = &own {
        if same && !own.manifest().files.is_empty() {
            return Err(error::input(
                format!("{} is git-rune's own echoes view", shown.display()),
                "edits there are saved with `git rune save`; import another folder",
            ));
        }
    }
    let mut sealer = ctx.sealer();
    let done = crate::echoes::transfer::import(&store, &mut sealer, &dir, &shown, a.dry_run)?;
    ctx.report_redactions(&mut sealer);
    for k in &done.kept {
        ctx.ui.warn(format_args!(
            "kept raw in cumulative notes' Imported section: {}",
            sanitize(k)
        ));
    }
    ctx.report_written(&store, done.written.as_ref());
    if !a.dry_run {
        if same {
            // Imported in place: the folder becomes git-rune's view of what memory now holds.
            crate::echoes::refresh(&store, true)?;
        } else {
            ctx.refresh_view(&store);
        }
    }
    let verb = if a.dry_run { "would add" } else { "added" };
    ctx.reported(&format!(
        "read {} entries from {} files; {verb} {} records ({} kept raw)\n",
        done.entries,
        done.files.len(),
        done.records,
        done.kept.len()
    ))
}

/// `export rune-dir DIR` and `export echoes DIR`: the files `write` writes into the folder.
fn export_dir(
    ctx: &Context,
    a: &RuneDirExportArgs,
    write: fn(&crate::store::Store, &std::path::Path, bool) -> Result<Vec<String>>,
) -> Result<ExitCode> {
    let store = ctx.store()?;
    let dir = ctx.dir.join(&a.dir);
    let files = write(&store, &dir, a.force)?;
    if ctx.ui.json {
        ctx.print_json(&json::ExportJson {
            dir: Some(dir.display().to_string()),
            file: None,
            files: Some(&files),
            version: json::VERSION,
        })?;
    }
    ctx.ui.status(format_args!(
        "wrote {} files to {}: {}",
        files.len(),
        dir.display(),
        files.join(", ")
    ));
    Ok(ExitCode::SUCCESS)
}
