//! `git rune save`: commit edits made in the `.rune/` view and record the session.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::Context;
use crate::memory::save::SaveOptions;
use crate::memory::view_dir::VIEW_DIR;
use crate::output::json::{self, SaveJson};
use crate::text::short;

#[derive(Debug, Args)]
pub struct SaveArgs {
    #[command(flatten)]
    pub redact: super::Redact,
    /// One-line summary of the session, appended to the session log (without it, the
    /// summary names the edited files). Without it and without edits in .rune/, nothing is
    /// recorded.
    #[arg(short, long)]
    pub message: Option<String>,
    /// Save a view file that holds no entries although memory has some, deleting them all
    /// (refused otherwise, in case the file was overwritten by mistake).
    #[arg(long)]
    pub allow_delete: bool,
}

pub fn run(ctx: &Context, args: SaveArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    let mut sealer = ctx.sealer();
    // One save: `.rune/` and the echoes directory in one memory commit; a file of either
    // that does not read back stops it with nothing recorded.
    let (saved, echoes) = crate::echoes::save::save_both(
        &store,
        &mut sealer,
        SaveOptions {
            summary: args.message.as_deref(),
            allow_delete: args.allow_delete,
            session_git: None,
        },
    )?;
    ctx.report_echoes_saved(&store, &mut sealer, &echoes);
    let echoes_saved =
        !echoes.files.is_empty() || !echoes.consolidated.is_empty() || !echoes.documents.is_empty();
    for file in &saved.restored {
        ctx.ui.status(format_args!(
            "{VIEW_DIR}/{} was deleted; it is restored from memory (to remove entries, delete them inside the file)",
            file.name()
        ));
    }
    if saved.resolved_checkpoint {
        ctx.ui.status(format_args!(
            "{VIEW_DIR}/checkpoint.md was removed: the open checkpoint is resolved (it stays in history)"
        ));
    }
    ctx.report_redactions(&mut sealer);
    ctx.report_gate(&saved.records);
    for r in &saved.refused {
        ctx.ui.warn(format_args!(
            "{r}; fix it in the file and run `git rune save` again (the file's other entries were saved)"
        ));
    }
    for (refname, commit, summary) in &saved.commits {
        ctx.ui.status(format_args!(
            "{refname} {} {summary}",
            short(&commit.to_string())
        ));
    }
    super::identity_hint(ctx, &store);
    for file in &saved.kept {
        ctx.ui.warn(format_args!(
            "{VIEW_DIR}/{} changed while saving and was left alone; run `git rune save` again",
            file.name()
        ));
    }

    for u in &saved.unstored {
        if !u.by_design {
            ctx.ui.warn(format_args!(
                "{VIEW_DIR}/{} is not kept in memory: {}",
                u.path, u.why
            ));
        }
    }
    for (file, refname) in &saved.elsewhere {
        let branch = refname
            .strip_prefix("refs/rune/branches/")
            .unwrap_or(refname);
        ctx.ui.warn(format_args!(
            "{VIEW_DIR}/{} was rendered for branch {branch}, not the branch HEAD is on: its edits were saved to {branch}'s session state ({refname})",
            file.name()
        ));
    }
    for rel in &saved.documents_removed {
        ctx.ui.status(format_args!(
            "{VIEW_DIR}/{rel} was deleted: it is deleted from memory (it stays in history)"
        ));
    }
    if !saved.record_files.is_empty() {
        ctx.ui.status(format_args!(
            "imported {} as records (as `import rune-dir` reads them)",
            saved
                .record_files
                .iter()
                .map(|f| format!("{VIEW_DIR}/{f}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let mut files: Vec<String> = saved.files.iter().map(|f| f.name().to_owned()).collect();
    files.extend(saved.documents.iter().cloned());
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    let mut out = if ctx.ui.json {
        json::line(&SaveJson {
            added: saved.added,
            changed: saved.changed,
            commits: saved
                .commits
                .iter()
                .map(|(r, c, _)| (r.as_str(), c.to_string()))
                .collect(),
            files: files.clone(),
            removed: saved.removed,
            summary: &saved.summary,
            version: json::VERSION,
        })
    } else if saved.nothing && !saved.refused.is_empty() {
        "nothing saved: the entries above were refused".to_owned()
    } else if saved.nothing && echoes_saved {
        "nothing to save in .rune/ (the echoes directory was saved)".to_owned()
    } else if saved.nothing {
        "nothing to save: .rune/ has no edits; to record the session anyway, run `git rune save -m \"summary\"`"
            .to_owned()
    } else if files.is_empty() {
        format!("saved session: {}", saved.summary)
    } else {
        format!(
            "saved {} added, {} changed, {} removed from {}\nsaved session: {}",
            saved.added,
            saved.changed,
            saved.removed,
            files.join(", "),
            saved.summary
        )
    };
    out.push('\n');
    ctx.report(&out)?;
    // Entries refused: the rest is saved, and the exit status says not everything was (as
    // rsync's partial transfer does); the next `status`, `load` and session start say so too.
    if !saved.refused.is_empty() {
        return Ok(ExitCode::from(crate::error::Kind::Data.exit_code()));
    }
    Ok(ExitCode::SUCCESS)
}
