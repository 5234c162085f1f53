//! `git rune status`: view files changed since checkout (by git blob id) and drift of the
//! code since the last save.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::Context;
use crate::notes::status::status;
use crate::output::json::{self, DriftJson, RemoteJson, StatusJson, ViewFileJson};
use crate::sync::share::where_memory_goes;

/// `status` takes only the global flags.
#[derive(Debug, Args)]
pub struct StatusArgs {}

pub fn run(ctx: &Context, _args: StatusArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    ctx.hint_not_set_up(&store);
    let st = status(&store)?;
    let remotes = where_memory_goes(&store);
    let out = if ctx.ui.json {
        json::line(&StatusJson {
            bare: st.bare,
            checked_out: st.checked_out,
            branch: &st.head.branch,
            drift: DriftJson::from(&st.drift),
            head: st.head.head.map(|h| h.to_string()),
            remotes: remotes
                .iter()
                .map(|(r, s)| RemoteJson {
                    remote: r.clone(),
                    memory: s.pushes(),
                    why: s.as_str(),
                })
                .collect(),
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
            hook_failures: st.hook_failures.iter().map(|f| f.line()).collect(),
        }) + "\n"
    } else {
        let mut text = st.text();
        // Where memory goes: the remotes opted in, and those it stays away from.
        let (goes, stays): (Vec<_>, Vec<_>) = remotes.iter().partition(|(_, s)| s.pushes());
        let names = |l: &[&(String, crate::sync::share::Sharing)]| {
            l.iter()
                .map(|(r, _)| r.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        if !remotes.is_empty() {
            text.push_str(&match goes.is_empty() {
                true => "memory goes to no remote (`git rune remote add <remote>` shares it)\n"
                    .to_owned(),
                false => format!("memory goes to {}\n", names(&goes)),
            });
            if !stays.is_empty() {
                text.push_str(&format!("memory stays away from {}\n", names(&stays)));
            }
        }
        text
    };
    ctx.ui.print(&out)?;
    if let Some(hint) = &st.drift.hint {
        ctx.ui.status(format_args!("hint: {hint}"));
    }
    Ok(ExitCode::SUCCESS)
}
