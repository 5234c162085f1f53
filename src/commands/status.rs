//! `git rune status`: view files changed since checkout (by git blob id) and drift of the
//! code since the last save.

use std::process::ExitCode;

use anyhow::Result;

use super::{short, Ctx};
use crate::checkout::{FileState, Snapshot, View, VIEW_DIR};
use crate::drift::{drift, Drift};
use crate::output::{print, sanitize};

pub fn run(ctx: &Ctx) -> Result<ExitCode> {
    let store = ctx.store()?;
    let snap = Snapshot::read(&store)?;
    let view = View::open(&store);
    let states: Vec<_> = match &view {
        Some(v) => v.states(&v.manifest()),
        None => Vec::new(),
    };
    let drift = drift(&store, &snap)?;

    let mut out = String::new();
    if ctx.ui.json {
        let files: Vec<_> = states
            .iter()
            .map(|(f, s)| serde_json::json!({ "file": f.name(), "state": s }))
            .collect();
        out = serde_json::json!({
            "version": 1,
            "branch": snap.head.branch,
            "head": snap.head.head.map(|h| h.to_string()),
            "bare": view.is_none(),
            "view": files,
            "drift": drift,
        })
        .to_string();
        out.push('\n');
    } else {
        match &snap.head.branch {
            Some(b) => out.push_str(&format!("On branch {}\n", sanitize(b))),
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
        out.push_str(&drift_text(&drift));
    }
    print(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// Drift as lines of text; shared with `load`.
pub fn drift_text(d: &Drift) -> String {
    let mut out = String::new();
    if !d.saved {
        out.push_str("no save yet: run `git rune save` to record the session\n");
    } else {
        let at = d.saved_at.as_deref().map(pretty_time).unwrap_or_default();
        let head = d.saved_head.as_deref().map(short).unwrap_or("(no commit)");
        let branch = d.saved_branch.as_deref().unwrap_or("(detached)");
        if d.any() {
            out.push_str(&format!(
                "drift since the last save ({at}, {} @ {head}):\n",
                sanitize(branch)
            ));
        } else {
            out.push_str(&format!(
                "no drift since the last save ({at}, {} @ {head})\n",
                sanitize(branch)
            ));
        }
    }
    if d.branch_changed {
        out.push_str(&format!(
            "  branch changed: saved on {}, now on {}\n",
            sanitize(d.saved_branch.as_deref().unwrap_or("(detached)")),
            sanitize(d.branch.as_deref().unwrap_or("(detached)"))
        ));
    }
    if d.saved_commit_missing {
        out.push_str("  the saved commit no longer exists (rewritten or garbage-collected)\n");
    }
    if let (Some(a), Some(b)) = (d.ahead, d.behind) {
        if a > 0 || b > 0 {
            out.push_str(&format!(
                "  HEAD is {a} commit{} ahead of and {b} behind the saved commit\n",
                if a == 1 { "" } else { "s" }
            ));
        }
    }
    for s in &d.stale {
        out.push_str(&format!(
            "  stale {} {:?}: {} changed since it was recorded\n",
            s.kind,
            sanitize(&s.title),
            sanitize(&s.files.join(", "))
        ));
    }
    out
}

/// `2026-04-04T14:30:00Z` as `2026-04-04 14:30`.
pub fn pretty_time(ts: &str) -> String {
    if ts.len() >= 16 {
        format!("{} {}", &ts[..10], &ts[11..16])
    } else {
        ts.to_owned()
    }
}
