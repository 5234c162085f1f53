//! `git rune status`: view files changed since checkout (by git blob id) and drift of the
//! code since the last save.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::Context;
use crate::notes::status::status;
use crate::output::json::{self, DriftJson, StatusJson, ViewFileJson};

/// `status` takes only the global flags.
#[derive(Debug, Args)]
pub struct StatusArgs {}

pub fn run(ctx: &Context, _args: StatusArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    ctx.hint_not_set_up(&store);
    let st = status(&store)?;
    let out = if ctx.ui.json {
        json::line(&StatusJson {
            bare: st.bare,
            branch: &st.head.branch,
            drift: DriftJson::from(&st.drift),
            head: st.head.head.map(|h| h.to_string()),
            version: json::VERSION,
            view: st
                .view
                .iter()
                .map(|(f, s)| ViewFileJson {
                    file: f.name().to_owned(),
                    state: s.as_str(),
                })
                .collect(),
            documents: st
                .documents
                .iter()
                .filter(|(_, s)| *s != crate::memory::view_dir::FileState::Clean)
                .map(|(f, s)| ViewFileJson {
                    file: f.clone(),
                    state: s.as_str(),
                })
                .collect(),
            unstored: st
                .unstored
                .iter()
                .map(|u| json::UnstoredJson {
                    file: u.path.clone(),
                    reason: u.why.clone(),
                    state: if u.by_design { "local" } else { "refused" },
                })
                .collect(),
            save_failure: st.save_failure.as_ref().map(|f| f.line()),
        }) + "\n"
    } else {
        st.text()
    };
    ctx.ui.print(&out)?;
    if let Some(hint) = &st.drift.hint {
        ctx.ui.status(format_args!("hint: {hint}"));
    }
    Ok(ExitCode::SUCCESS)
}
