//! `git rune status`: view files changed since checkout (by git blob id) and drift of the
//! code since the last save.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::Context;
use crate::memory::view_dir::{FileState, View, VIEW_DIR};
use crate::memory::Snapshot;
use crate::notes::carriers::drift_of;
use crate::output::json::{self, DriftJson, StatusJson, ViewFileJson};

/// `status` takes only the global flags.
#[derive(Debug, Args)]
pub struct StatusArgs {}

pub fn run(ctx: &Context, _args: StatusArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    let snap = Snapshot::read(&store)?;
    let view = View::open(&store);
    let states: Vec<_> = match &view {
        Some(v) => v.states(&v.manifest()),
        None => Vec::new(),
    };
    let drift = drift_of(&store, &snap, false)?;

    let mut out = String::new();
    if ctx.ui.json {
        out = json::line(&StatusJson {
            bare: view.is_none(),
            branch: &snap.head.branch,
            drift: DriftJson::from(&drift),
            head: snap.head.head.map(|h| h.to_string()),
            version: json::VERSION,
            view: states
                .iter()
                .map(|(f, s)| ViewFileJson {
                    file: f.name(),
                    state: s.as_str(),
                })
                .collect(),
        });
        out.push('\n');
    } else {
        match &snap.head.branch {
            Some(b) => out.push_str(&format!("On branch {}\n", b)),
            None => out.push_str("HEAD detached\n"),
        }
        if view.is_none() {
            out.push_str("bare repository: no .rune/ view\n");
        } else {
            let changed: Vec<_> = states
                .iter()
                .filter(|(_, s)| *s != FileState::Clean)
                .collect();
            if changed.is_empty() {
                out.push_str(&format!("{VIEW_DIR}/ is clean\n"));
            } else {
                out.push_str(&format!(
                    "{VIEW_DIR}/ has changes not saved to memory (use `git rune save`):\n"
                ));
                for (f, s) in changed {
                    let label = match s {
                        FileState::Modified => "modified:",
                        FileState::Added => "added:   ",
                        FileState::Missing => "missing: ",
                        FileState::Clean => "clean:   ",
                    };
                    out.push_str(&format!("  {label} {VIEW_DIR}/{}\n", f.name()));
                }
            }
        }
        out.push_str(&drift.text());
    }
    ctx.ui.print(&out)?;
    Ok(ExitCode::SUCCESS)
}
