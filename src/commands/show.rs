//! `git rune show <kind>`: every live record of one kind, as the view renders it or as JSON
//! Lines.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::status::pretty_time;
use crate::model::{Body, Record, State};
use crate::output::{print, sanitize};
use crate::view::{self, ViewFile};

/// The kinds `show` accepts, named like the view files.
pub const KINDS: [(&str, ViewFile); 10] = [
    ("decisions", ViewFile::Decisions),
    ("conventions", ViewFile::Conventions),
    ("learnings", ViewFile::Learnings),
    ("instincts", ViewFile::Instincts),
    ("progress", ViewFile::Progress),
    ("checkpoint", ViewFile::Checkpoint),
    ("session-log", ViewFile::SessionLog),
    ("cumulative-notes", ViewFile::CumulativeNotes),
    ("task-notes", ViewFile::TaskNotes),
    ("invariants", ViewFile::Invariants),
];

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Show memory as it was when this commit was made.
    #[arg(long, value_name = "REV")]
    pub at: Option<String>,
    /// Which records to show.
    #[arg(value_parser = clap::builder::PossibleValuesParser::new(KINDS.map(|(n, _)| n)))]
    pub kind: String,
}

pub fn run(ctx: &super::Ctx, args: ShowArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    let snap = super::snapshot(&store, args.at.as_deref())?;
    let file = KINDS
        .iter()
        .find(|(n, _)| *n == args.kind)
        .map(|(_, f)| *f)
        .unwrap_or(ViewFile::Decisions);
    let state = &snap.state;
    let records = state.of_kind(file.kind());
    let mut out = String::new();
    if ctx.ui.json {
        for r in records {
            out.push_str(&json_line(r, state));
            out.push('\n');
        }
    } else if file == ViewFile::Checkpoint {
        out = checkpoints_text(state);
    } else {
        out = sanitize(&view::render(file, state));
    }
    print(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// A record as one JSON object: `id`, `ts`, `author`, then the body's fields (seed names).
pub fn json_line(r: &Record, state: &State) -> String {
    let mut v = serde_json::to_value(&r.body).unwrap_or_default();
    if let Some(obj) = v.as_object_mut() {
        let mut out = serde_json::Map::new();
        out.insert("id".into(), r.id.clone().into());
        out.insert("ts".into(), r.meta.ts.clone().into());
        out.insert("author".into(), r.meta.author.clone().into());
        if !r.meta.supersedes.is_empty() {
            out.insert("supersedes".into(), r.meta.supersedes.clone().into());
        }
        for (k, val) in std::mem::take(obj) {
            out.insert(k, val);
        }
        if matches!(r.body, Body::Checkpoint { .. }) {
            let open = state.open_checkpoint().is_some_and(|o| o.id == r.id);
            let status = if open {
                "open"
            } else if state.resolved.contains(&r.id) {
                "resolved"
            } else {
                "superseded"
            };
            out.insert("status".into(), status.into());
        }
        v = serde_json::Value::Object(out);
    }
    v.to_string()
}

fn checkpoints_text(state: &State) -> String {
    let open = state.open_checkpoint().map(|r| r.id.clone());
    let mut out = String::new();
    if state.checkpoints.is_empty() {
        out.push_str("no checkpoints on this branch\n");
    }
    for r in &state.checkpoints {
        if let Body::Checkpoint {
            doing,
            resume,
            left,
            ..
        } = &r.body
        {
            let status = if open.as_deref() == Some(r.id.as_str()) {
                "open"
            } else {
                "resolved"
            };
            out.push_str(&format!(
                "[{}] {status}: {}\n",
                pretty_time(&r.meta.ts),
                sanitize(doing)
            ));
            if !resume.is_empty() {
                out.push_str(&format!("  resume: {}\n", sanitize(resume)));
            }
            for (i, step) in left.iter().enumerate() {
                out.push_str(&format!("  {}. {}\n", i + 1, sanitize(step)));
            }
        }
    }
    out
}
