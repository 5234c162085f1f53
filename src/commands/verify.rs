//! `git rune verify`: checks every memory ref against git's object hashes and the record
//! rules, and the view against the refs; CLEAN, SUSPICIOUS or TAINTED per item and overall.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use serde::Serialize;

use super::{short, Ctx};
use crate::checkout::{FileState, View, VIEW_DIR};
use crate::integrity::{self, Verdict};
use crate::model::{self, Record};
use crate::output::{print, sanitize};
use crate::store::{Store, StoreError};

#[derive(Debug, Args)]
pub struct VerifyArgs {}

/// One finding: where, what, and how bad.
#[derive(Debug, Serialize)]
struct Finding {
    verdict: Verdict,
    #[serde(rename = "ref")]
    refname: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    record: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    /// The blob in the ref's tree that holds the record.
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<String>,
    rule: String,
    detail: String,
}

pub fn run(ctx: &Ctx, _args: VerifyArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    let mut findings = Vec::new();
    let mut checked_records = 0usize;
    let mut refs = store.memory_refs()?;
    if store.repo.try_find_reference("refs/notes/rune")?.is_some() {
        refs.push("refs/notes/rune".into());
    }
    for name in &refs {
        if name == "refs/notes/rune" {
            // Notes are written by the notes feature; here only their objects are checked.
            walk_history(&store, name, &mut findings);
            continue;
        }
        match store.records(name) {
            Ok((tip, records)) => {
                let tree = tip.and_then(|t| store.repo.find_tree(t.tree).ok());
                for r in records.iter() {
                    checked_records += 1;
                    let path = tree.as_ref().map(|t| record_path(t, r));
                    check_record(name, path, r, &mut findings);
                }
            }
            Err(e) => findings.push(broken(name, &e)),
        }
        walk_history(&store, name, &mut findings);
    }
    if let Some(view) = View::open(&store) {
        let manifest = view.manifest();
        for (file, state) in view.states(&manifest) {
            if matches!(state, FileState::Modified | FileState::Added) {
                findings.push(Finding {
                    verdict: Verdict::Suspicious,
                    refname: format!("{VIEW_DIR}/{}", file.name()),
                    record: None,
                    kind: None,
                    path: None,
                    rule: "view-modified".into(),
                    detail: "changed outside git-rune and not saved (its blob id differs from the checkout)".into(),
                });
            }
        }
    }
    let overall = findings
        .iter()
        .map(|f| f.verdict)
        .max()
        .unwrap_or(Verdict::Clean);

    let mut out = String::new();
    if ctx.ui.json {
        for f in &findings {
            out.push_str(&serde_json::to_string(f).unwrap_or_default());
            out.push('\n');
        }
        out.push_str(
            &serde_json::json!({
                "version": 1,
                "verdict": overall,
                "refs": refs.len(),
                "records": checked_records,
                "findings": findings.len(),
            })
            .to_string(),
        );
        out.push('\n');
    } else {
        for f in &findings {
            let what = match (&f.record, f.kind, &f.path) {
                (Some(id), Some(kind), Some(path)) => format!(":{path} {kind} {}", short(id)),
                (Some(id), Some(kind), None) => format!(" {kind} {}", short(id)),
                _ => String::new(),
            };
            out.push_str(&format!(
                "{} {}{what}: {} ({})\n",
                label(f.verdict),
                f.refname,
                f.rule,
                sanitize(&f.detail)
            ));
        }
        out.push_str(&format!(
            "{}: {} refs, {checked_records} records, {} findings\n",
            label(overall),
            refs.len(),
            findings.len()
        ));
    }
    print(&out)?;
    Ok(if overall == Verdict::Clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn label(v: Verdict) -> &'static str {
    match v {
        Verdict::Clean => "CLEAN",
        Verdict::Suspicious => "SUSPICIOUS",
        Verdict::Tainted => "TAINTED",
    }
}

fn broken(name: &str, e: &StoreError) -> Finding {
    Finding {
        verdict: Verdict::Tainted,
        refname: name.into(),
        record: None,
        kind: None,
        path: None,
        rule: "unreadable".into(),
        detail: e.to_string(),
    }
}

/// Where a record sits in its tree: the kind's single blob, or its id-prefix shard.
fn record_path(tree: &gix::Tree<'_>, r: &Record) -> String {
    let kind = r.kind().as_str();
    let all = format!("{kind}/all.jsonl");
    match tree.lookup_entry_by_path(&all) {
        Ok(Some(_)) => all,
        _ => format!("{kind}/{}.jsonl", &r.id[..2.min(r.id.len())]),
    }
}

fn check_record(name: &str, path: Option<String>, r: &Record, out: &mut Vec<Finding>) {
    let mut push = |verdict, rule: &str, detail: String| {
        out.push(Finding {
            verdict,
            refname: name.into(),
            record: Some(r.id.clone()),
            kind: Some(r.kind().as_str()),
            path: path.clone(),
            rule: rule.into(),
            detail,
        })
    };
    if !r.id_matches() {
        push(
            Verdict::Tainted,
            "id-mismatch",
            "the record's id is not the sha256 of its content: it was changed after it was written"
                .into(),
        );
    }
    if let Err(e) = model::validate(&r.body) {
        push(Verdict::Suspicious, "schema", e.to_string());
    }
    for (field, text) in r.body.texts() {
        for issue in integrity::scan_text(&text) {
            push(
                issue.verdict,
                issue.rule,
                format!("field `{field}`: {}", issue.detail),
            );
        }
    }
}

/// Every commit of the ref's history is present, a commit, and has its tree.
fn walk_history(store: &Store, name: &str, out: &mut Vec<Finding>) {
    let tip = match store.tip(name) {
        Ok(Some(t)) => t.commit,
        Ok(None) => return,
        Err(e) => return out.push(broken(name, &e)),
    };
    let mut stack = vec![tip];
    let mut seen = std::collections::HashSet::new();
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        match store.tip_of(name, id) {
            Ok(t) if store.repo.has_object(t.tree) => {}
            Ok(t) => out.push(broken(
                name,
                &StoreError::MissingObject {
                    name: name.into(),
                    id: t.tree.to_string(),
                },
            )),
            Err(e) => {
                out.push(broken(name, &e));
                continue;
            }
        }
        if let Ok(c) = store.repo.find_commit(id) {
            stack.extend(c.parent_ids().map(|p| p.detach()));
        }
    }
}
