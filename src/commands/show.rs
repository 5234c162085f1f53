//! `git rune show <kind>`: every live record of one kind, as the view renders it (oracle
//! dispatches, which have no view file, one line each) or as JSON Lines.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::Context;
use crate::integrity::gate::withheld;
use crate::model::kinds::Checkpoint;
use crate::model::{Body, Kind, Record, State};
use crate::output::json;
use crate::read::snapshot;
use crate::text::pretty_time;
use crate::view::{self, ViewFile};

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Show memory as it was when this commit was made.
    #[arg(long, value_name = "REV")]
    pub at: Option<String>,
    /// Every record of the kind this clone holds, not only the live ones: those edited,
    /// deleted, or outvoted by another clone's edit too, each with its status.
    #[arg(long)]
    pub all: bool,
    /// Which records to show, plural or singular as JSON names them (`decisions` or
    /// `decision`; `oracles`: this branch's oracle dispatches, which have no view file).
    #[arg(value_parser = clap::builder::PossibleValuesParser::new(kinds()))]
    pub kind: String,
}

/// The label `show` works with for what was typed: the plural label, or the singular kind
/// name records carry in JSON and MCP.
fn label_of(typed: &str) -> &str {
    ViewFile::LISTED
        .into_iter()
        .find(|f| f.kind().as_str() == typed)
        .map(ViewFile::label)
        .or_else(|| (typed == Kind::Oracle.as_str()).then_some(ORACLES))
        .unwrap_or(typed)
}

/// The kind `show` names oracle dispatches by.
const ORACLES: &str = "oracles";

/// Every kind `show` takes: each view file's, then the oracle dispatches', each also by
/// its singular name (an alias, so `--help` lists the plurals).
fn kinds() -> Vec<clap::builder::PossibleValue> {
    let mut out: Vec<clap::builder::PossibleValue> = ViewFile::LISTED
        .into_iter()
        .map(|f| {
            let v = clap::builder::PossibleValue::new(f.label());
            if f.kind().as_str() == f.label() {
                v
            } else {
                v.alias(f.kind().as_str())
            }
        })
        .collect();
    out.push(clap::builder::PossibleValue::new(ORACLES).alias(Kind::Oracle.as_str()));
    out
}

pub fn run(ctx: &Context, args: ShowArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    ctx.page(&store);
    let snap = snapshot(&store, args.at.as_deref())?;
    let file = ViewFile::from_label(label_of(&args.kind));
    let kind = file.map_or(Kind::Oracle, ViewFile::kind);
    let file = file.unwrap_or(ViewFile::Decisions);
    let state = &snap.state;
    let records = state.of_kind(kind);
    let mut out = String::new();
    if args.all {
        let scope = kind.scope().unwrap_or(crate::model::Scope::Memory);
        let (name, tip) = snap.scope_ref(scope);
        let all = match tip {
            Some(t) => store.records_at(name, t.commit)?,
            None => Default::default(),
        };
        // Every record of the ref: tombstones and edits of other kinds decide liveness too.
        let mut every: Vec<Record> = all.iter().cloned().collect();
        every.sort_by(|a, b| a.order_key().cmp(&b.order_key()));
        let statuses = crate::model::fold::statuses(&every, state);
        // Records of this kind a newer git-rune wrote are listed too, as such.
        let of_kind = |r: &Record| r.kind() == kind || r.tag() == kind.as_str();
        for (r, status) in statuses.into_iter().filter(|(r, _)| of_kind(r)) {
            if ctx.ui.json {
                out.push_str(&json::line(&json::shown_record(r, Some(status))));
            } else {
                out.push_str(&format!(
                    "{status:<10} {} {} {}{}",
                    crate::text::short(&r.id),
                    pretty_time(&r.meta.ts),
                    crate::text::one_line(&crate::integrity::gate::shown_title(r)),
                    if r.is_from_newer_version() {
                        " (from a newer git-rune)"
                    } else {
                        ""
                    }
                ));
            }
            out.push('\n');
        }
    } else if kind == Kind::Oracle && !ctx.ui.json {
        // Oracle dispatches carry no text an agent wrote but the excerpt, which `oracle
        // reattach` hands over through the load gate: one line each, as `oracle list` prints.
        for r in records {
            out.push_str(&crate::output::oracle::line(r));
            out.push('\n');
        }
    } else if ctx.ui.json && file == ViewFile::Invariants {
        // The seed's invariants loader payload, for the agents and tools that read it.
        let loaded = view::invariants::load(records);
        let stale = invariants_stale(state, &store.now());
        let path = store
            .workdir()
            .map(|w| w.join(crate::memory::view_dir::VIEW_DIR).join(file.name()))
            .unwrap_or_default();
        out = json::line(&json::invariants(&loaded, &withheld, stale, &path)) + "\n";
    } else if ctx.ui.json {
        for r in records {
            out.push_str(&json_line(r, state));
            out.push('\n');
        }
    } else if file == ViewFile::Checkpoint {
        out = checkpoints_text(state);
    } else {
        // SUSPICIOUS records marked on their headlines, as the view files and the MCP
        // server's view resource show them.
        let verdicts =
            crate::memory::cache::gate::verdicts_for(&store, &snap, args.at.is_none(), kind)?;
        let mut marked = state.clone();
        let withheld = verdicts.gate_kind(&mut marked, kind);
        out = view::render(file, &marked, &|r: &Record| withheld.contains(&r.id));
    }
    ctx.ui
        .print_painted(&out, crate::output::paint::show_line)?;
    Ok(ExitCode::SUCCESS)
}

/// Whether the newest invariant is older than the seed's 30 days.
fn invariants_stale(state: &State, now: &str) -> bool {
    let newest = state.invariants.iter().map(|r| r.meta.ts.as_str()).max();
    let parse = |s: &str| chrono::DateTime::parse_from_rfc3339(s).ok();
    match (newest.and_then(parse), parse(now)) {
        (Some(a), Some(b)) => (b - a).num_days() > 30,
        _ => false,
    }
}

/// A record as one JSON line (see `json::shown_record`); checkpoints say whether they are
/// open, resolved or superseded.
fn json_line(r: &Record, state: &State) -> String {
    let status = matches!(r.body, Body::Checkpoint(Checkpoint { .. })).then(|| {
        if state.open_checkpoint().is_some_and(|o| o.id == r.id) {
            "open"
        } else if state.resolved.contains(&r.id) {
            "resolved"
        } else {
            "superseded"
        }
    });
    json::line(&json::shown_record(r, status))
}

fn checkpoints_text(state: &State) -> String {
    let open = state.open_checkpoint().map(|r| r.id.clone());
    let mut out = String::new();
    if state.checkpoints.is_empty() {
        out.push_str("no checkpoints on this branch\n");
    }
    for r in &state.checkpoints {
        let status = if open.as_deref() == Some(r.id.as_str()) {
            "open"
        } else {
            "resolved"
        };
        // Through the gate: a withheld checkpoint is its placeholder, a SUSPICIOUS one marked.
        let Some(r) = crate::integrity::gate::shown(r) else {
            out.push_str(&format!(
                "[{}] {status}: {}\n",
                pretty_time(&r.meta.ts),
                crate::integrity::gate::placeholder(r)
            ));
            continue;
        };
        if let Body::Checkpoint(c) = &r.body {
            out.push_str(&format!(
                "[{}] {status}: {}\n",
                pretty_time(&r.meta.ts),
                c.doing
            ));
            if !c.resume.is_empty() {
                out.push_str(&format!("  resume: {}\n", c.resume));
            }
            for (i, step) in c.left.iter().enumerate() {
                out.push_str(&format!("  {}. {}\n", i + 1, step));
            }
        }
    }
    out
}
