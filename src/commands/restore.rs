//! `git rune restore [FILE…]`: discard edits made in the `.rune/` view, rendering the files
//! from memory again (like `git restore` for the work tree).

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::Context;
use crate::error;
use crate::memory::view_dir::{FileState, View, VIEW_DIR};
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
    let manifest = view.manifest();
    let scan = view.scan_documents(&manifest);
    let (files, documents) = if args.files.is_empty() {
        let files = view
            .unsaved()
            .into_iter()
            .chain(view.missing())
            .collect::<Vec<_>>();
        let documents: Vec<String> = scan
            .files
            .iter()
            .filter(|(_, _, s)| *s != FileState::Clean)
            .map(|(rel, _, _)| rel.clone())
            .collect();
        (files, documents)
    } else {
        let mut files = Vec::new();
        let mut documents = Vec::new();
        for name in &args.files {
            match file_named(name) {
                Ok(f) => files.push(f),
                // A document or record file memory holds (or the view checked out).
                Err(e) => {
                    let rel = bare(name);
                    if manifest.documents.contains_key(rel) {
                        documents.push(rel.to_owned());
                    } else {
                        return Err(e);
                    }
                }
            }
        }
        (files, documents)
    };
    view.checkout_saved(&view.lock()?, &store, &files, &documents)?;
    // The echoes directory too, when nothing is named.
    if args.files.is_empty() {
        crate::echoes::refresh(&store, true)?;
    }
    if ctx.ui.json {
        return ctx.print_json(&json::RestoreJson {
            restored: files
                .iter()
                .map(|f| f.name().to_owned())
                .chain(documents.iter().cloned())
                .collect(),
            version: json::VERSION,
        });
    }
    let mut out = String::new();
    for f in &files {
        out.push_str(&format!("restored {VIEW_DIR}/{}\n", f.name()));
    }
    for d in &documents {
        out.push_str(&format!("restored {VIEW_DIR}/{d}\n"));
    }
    if files.is_empty() && documents.is_empty() {
        ctx.ui
            .status(format_args!("{VIEW_DIR}/ has no edits to discard"));
    }
    ctx.reported(&out)
}

/// A path inside `.rune/`, from a name as given.
fn bare(name: &str) -> &str {
    let name = name.trim_start_matches("./");
    name.strip_prefix(VIEW_DIR)
        .and_then(|r| r.strip_prefix('/'))
        .unwrap_or(name)
}

/// A view file by its name, its path or its kind.
fn file_named(name: &str) -> Result<ViewFile> {
    let bare = bare(name);
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
