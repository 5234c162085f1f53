//! `git rune diff`: how memory changed between two points, per view file.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::Context;
use crate::memory::diff::diff;
use crate::output::json::{self, DiffFileJson, DiffJson};
use crate::read::diff_points;
use crate::view::ViewFile;

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// What to compare: nothing (memory since the last save), <REV> (memory then and now),
    /// or <REV>..<REV>. A revision is a memory commit (see `git rune log`), compared within
    /// its own ref, or a code commit, standing for the memory its git note names.
    #[arg(value_name = "RANGE")]
    pub range: Option<String>,
    /// Only this kind of record.
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(ViewFile::LISTED.map(ViewFile::label)))]
    pub kind: Option<String>,
}

pub fn run(ctx: &Context, args: DiffArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    ctx.page(&store);
    let only = args.kind.as_deref().and_then(ViewFile::from_label);
    let (from, to) = diff_points(&store, args.range.as_deref())?;
    let d = diff(&from, &to, only);
    let mut out = String::new();
    if ctx.ui.json {
        out = json::line(&DiffJson {
            from: &d.from,
            to: &d.to,
            files: d
                .files
                .iter()
                .map(|f| DiffFileJson {
                    added: &f.added,
                    changed: f
                        .changed
                        .iter()
                        .map(|(a, b)| [a.as_str(), b.as_str()])
                        .collect(),
                    diff: &f.text,
                    file: f.file.map(|v| v.name()).unwrap_or_default(),
                    kind: f.file.map(|v| v.label()).unwrap_or_default(),
                    removed: &f.removed,
                })
                .collect(),
            version: json::VERSION,
        });
        out.push('\n');
    } else {
        for f in &d.files {
            let Some(file) = f.file else { continue };
            out.push_str(&format!(
                "diff {} ({} added, {} changed, {} removed) {} → {}\n",
                file.label(),
                f.added.len(),
                f.changed.len(),
                f.removed.len(),
                &d.from,
                &d.to,
            ));
            out.push_str(&f.text);
        }
        if d.files.is_empty() {
            ctx.ui.status(format_args!(
                "no change in memory between {} and {}",
                &d.from, &d.to
            ));
        }
    }
    ctx.ui
        .print_painted(&out, crate::output::paint::diff_line)?;
    Ok(ExitCode::SUCCESS)
}
