//! The lifecycle and Remembrance commands of `git rune echo`: archive, restore, reset,
//! prune, compress, promote, remembrance, migrate and consolidate.

use std::process::ExitCode;

use anyhow::Result;

use super::{
    ask_yes, refresh, EchoCompressArgs, EchoIdArgs, EchoMigrateArgs, EchoPromoteArgs,
    EchoPruneArgs, EchoRemembranceArgs, EchoResetArgs,
};
use crate::commands::{dry_run_verb, Context};
use crate::echoes;
use crate::memory::Snapshot;
use crate::model::kinds::Echo;
use crate::model::Body;
use crate::output::json;
use crate::text::sanitize;

pub(super) fn set_archived(ctx: &Context, a: EchoIdArgs, archived: bool) -> Result<ExitCode> {
    let store = ctx.store()?;
    let snap = Snapshot::read(&store)?;
    let target = echoes::find(&snap.state, &a.id)?;
    let uid = echoes::uid_of(target).to_owned();
    let etched = matches!(&target.body, Body::Echo(Echo { layer, .. }) if layer == "etched");
    let confirmed = a.confirm
        || (archived
            && etched
            && ask_yes(&format!(
                "archive the etched entry {:?}?",
                crate::integrity::gate::shown_title(target)
            )));
    let summary = if archived {
        "echo: archive"
    } else {
        "echo: restore"
    };
    let (titles, w) = echoes::set_archived(&store, summary, archived, confirmed, &|_, r| {
        echoes::uid_of(r) == uid
    })?;
    ctx.report_written(&store, w.as_ref());
    refresh(ctx, &store);
    let verb = if archived { "archived" } else { "restored" };
    if titles.is_empty() {
        return ctx.reported(&format!("echo {uid} is already {verb}\n"));
    }
    ctx.reported(&format!("{verb} echo {uid}\n"))
}

pub(super) fn reset(ctx: &Context, a: EchoResetArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    let role = a.role.clone();
    let confirmed = a.confirm;
    let (titles, w) = echoes::set_archived(
        &store,
        "echo: reset",
        true,
        true,
        &|_, r| matches!(&r.body, Body::Echo(Echo { role: x, layer, .. }) if *x == role && (confirmed || layer != "etched")),
    )?;
    ctx.report_written(&store, w.as_ref());
    refresh(ctx, &store);
    ctx.reported(&format!(
        "archived {} entries of {} (memory's history keeps them; `git rune echo restore <id>` brings one back)\n",
        titles.len(),
        sanitize(&a.role)
    ))
}

pub(super) fn prune(ctx: &Context, a: EchoPruneArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    let pruned = echoes::prune(&store, a.role.as_deref(), a.dry_run)?;
    if let Some(w) = &pruned.written {
        ctx.report_written(&store, Some(w));
        refresh(ctx, &store);
    }
    let mut out = String::new();
    let verb = dry_run_verb(a.dry_run, "would archive", "archived");
    for (role, lines, entries) in &pruned.roles {
        if ctx.ui.json {
            let v = json::echo_pruned(role, *lines, entries, a.dry_run);
            out.push_str(&(json::line(&v) + "\n"));
            continue;
        }
        if entries.is_empty() {
            out.push_str(&format!(
                "{role}: MEMORY.md has {lines} lines; nothing to prune\n"
            ));
            continue;
        }
        out.push_str(&format!(
            "{role}: MEMORY.md has {lines} lines (over 150); {verb} {}\n",
            entries.len()
        ));
        for (uid, title, score) in entries {
            out.push_str(&format!("  {uid}  score {score:.2}  {}\n", sanitize(title)));
        }
    }
    if !a.dry_run && pruned.written.is_some() {
        out.push_str("the archived entries' earlier versions stay in memory's history: `git rune echo restore <id>` brings one back\n");
    }
    ctx.reported(&out)
}

pub(super) fn compress(ctx: &Context, a: EchoCompressArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    let done = echoes::compress(&store, a.role.as_deref(), a.dry_run, a.force)?;
    if let Some(w) = &done.written {
        ctx.report_written(&store, Some(w));
        refresh(ctx, &store);
    }
    let verb = dry_run_verb(a.dry_run, "would compress", "compressed");
    let mut out = String::new();
    for (role, lines, blocks) in &done.roles {
        let before: usize = blocks.iter().map(|b| b.tokens_before).sum();
        let after: usize = blocks.iter().map(|b| b.tokens_after).sum();
        if ctx.ui.json {
            let v = json::echo_compressed(role, *lines, blocks, a.dry_run);
            out.push_str(&(json::line(&v) + "\n"));
            continue;
        }
        if blocks.is_empty() {
            out.push_str(&format!(
                "{role}: MEMORY.md has {lines} lines; nothing to compress\n"
            ));
            continue;
        }
        let members: usize = blocks.iter().map(|b| b.members.len()).sum();
        let saved = if before == 0 {
            0.0
        } else {
            100.0 * (before - after.min(before)) as f64 / before as f64
        };
        out.push_str(&format!(
            "{role}: {verb} {members} entries into {} knowledge blocks: ~{before} -> ~{after} tokens ({saved:.0}% saved)\n",
            blocks.len()
        ));
        for b in blocks {
            out.push_str(&format!(
                "  {} ({} entries)\n",
                sanitize(b.body.title()),
                b.members.len()
            ));
        }
    }
    ctx.reported(&out)
}

pub(super) fn promote(ctx: &Context, a: EchoPromoteArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    // Only a person at a terminal can say a document is verified by a human.
    let human = a.verified_by_human
        && ask_yes("confirm that you, a person, verified this solution (verified_by: human)?");
    if a.verified_by_human && !human {
        ctx.ui
            .warn("--verified-by-human needs a yes on a terminal; promoting as verified_by: agent");
    }
    let req = crate::echoes::remembrance::Request {
        category: a.category,
        symptom: a.symptom,
        root_cause: a.root_cause,
        solution: a.solution,
        tags: a
            .tags
            .into_iter()
            .map(|t| t.trim().to_lowercase())
            .filter(|t| !t.is_empty())
            .collect(),
        human,
    };
    let done = echoes::promote(&store, &a.id, &req, a.dry_run)?;
    if ctx.ui.json {
        return ctx.print_json(&json::remembrance_doc(&done.doc));
    }
    let verb = if done.written { "wrote" } else { "would write" };
    ctx.reported(&format!(
        "{verb} {} (echo_ref {}); commit it with your code\n",
        done.doc.path, done.doc.echo_ref
    ))
}

pub(super) fn remembrance(ctx: &Context, a: EchoRemembranceArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    let docs = echoes::remembrance_docs(&store, a.category.as_deref(), a.search.as_deref())?;
    let mut out = String::new();
    for d in &docs {
        if ctx.ui.json {
            out.push_str(&(json::line(&json::remembrance_doc(d)) + "\n"));
        } else {
            out.push_str(&format!(
                "{}  [{}] {}\n    symptom: {}\n    solution: {}\n",
                d.path,
                d.category,
                sanitize(&d.title),
                sanitize(&d.symptom),
                sanitize(&d.solution_summary)
            ));
        }
    }
    if docs.is_empty() && !ctx.ui.json {
        ctx.ui.status(
            "no Remembrance documents (promote an etched echo with `git rune echo promote`)",
        );
    }
    ctx.print(&out)
}

pub(super) fn migrate(ctx: &Context, a: EchoMigrateArgs) -> Result<ExitCode> {
    let renames = a
        .renames
        .iter()
        .map(|r| match r.split_once('=') {
            Some((old, new)) if !old.trim().is_empty() => {
                Ok((old.trim().to_owned(), new.trim().to_owned()))
            }
            _ => Err(crate::error::usage(
                format!("--rename {r:?} is not OLD=NEW"),
                "write it as --rename tarnished=runebearer",
            )),
        })
        .collect::<Result<Vec<_>>>()?;
    let store = ctx.store()?;
    let (changes, w) = echoes::migrate(&store, &renames, a.dry_run)?;
    if let Some(w) = &w {
        ctx.report_written(&store, Some(w));
        refresh(ctx, &store);
    }
    let mut out = String::new();
    for c in &changes {
        out.push_str(&format!(
            "{}  {}: {} -> {}\n",
            c.uid,
            c.field,
            sanitize(&c.before),
            sanitize(&c.after)
        ));
    }
    let verb = if a.dry_run { "would change" } else { "changed" };
    out.push_str(&format!(
        "{verb} {} fields; the previous versions stay in memory's history\n",
        changes.len()
    ));
    ctx.reported(&out)
}

pub(super) fn consolidate(ctx: &Context) -> Result<ExitCode> {
    let store = ctx.store()?;
    let mut sealer = ctx.sealer();
    let saved = echoes::save::save(&store, &mut sealer, true)?;
    ctx.report_echoes_saved(&store, &mut sealer, &saved);
    ctx.reported(&format!(
        "consolidated {} findings files: {} added, {} merged into existing entries\n",
        saved.consolidated.len(),
        saved.added,
        saved.merged
    ))
}
