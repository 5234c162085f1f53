//! `git rune restore [FILE…]`: discard edits made in the `.rune/` view, rendering the files
//! from memory again (like `git restore` for the work tree).

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::Context;
use crate::error;
use crate::memory::view_dir::{View, VIEW_DIR};
use crate::output::json;
use crate::view::ViewFile;

#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// The view files to restore (`decisions.md`, `.rune/decisions.md` or `decisions`);
    /// all of them when none is named.
    #[arg(value_name = "FILE")]
    pub files: Vec<String>,
}

pub fn run(ctx: &Context, args: RestoreArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    let view = View::open(&store).ok_or_else(|| {
        error::environment(
            "a bare repository has no .rune/ view to restore",
            "run this in a work tree",
        )
    })?;
    let files = if args.files.is_empty() {
        view.unsaved()
            .into_iter()
            .chain(view.missing())
            .collect::<Vec<_>>()
    } else {
        args.files
            .iter()
            .map(|name| file_named(name))
            .collect::<Result<Vec<_>>>()?
    };
    view.checkout(&store, &files)?;
    if ctx.ui.json {
        let v = json::RestoreJson {
            restored: files.iter().map(|f| f.name()).collect(),
            version: json::VERSION,
        };
        ctx.ui.print(&(json::line(&v) + "\n"))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = String::new();
    for f in &files {
        out.push_str(&format!("restored {VIEW_DIR}/{}\n", f.name()));
    }
    if files.is_empty() {
        ctx.ui
            .status(format_args!("{VIEW_DIR}/ has no edits to discard"));
    }
    ctx.report(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// A view file by its name, its path or its kind.
fn file_named(name: &str) -> Result<ViewFile> {
    let bare = name
        .trim_start_matches("./")
        .trim_start_matches(&format!("{VIEW_DIR}/"));
    ViewFile::from_name(bare)
        .or_else(|| ViewFile::from_label(bare))
        .ok_or_else(|| {
            error::input(
                format!("{name:?} is not a view file"),
                format!(
                    "name one of {}",
                    ViewFile::ALL.map(ViewFile::name).join(", ")
                ),
            )
        })
}
