//! The `--json` wire shapes, version 1 (docs/json.md), in one place and separate from the
//! storage schema: a field renamed in `model` cannot rename a field here by accident, because
//! every field is mapped by hand below. A field is only ever added within a version, never
//! renamed or removed. Objects print with their keys in sorted order.
//! About 600 lines with its tests: one mapping per use case's result, side by side so they
//! stay alike (the typed shapes are in `shapes.rs`).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::drift::Drift;
use crate::integrity::gate::Gate;
use crate::model::kinds::Echo;
use crate::model::{Body, Record};

mod briefing;
mod shapes;
pub use briefing::*;
pub use shapes::*;

/// The wire version every standalone object carries.
pub const VERSION: u32 = 1;

/// One JSON value on one line (a JSON Lines line without its newline).
pub fn line<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("wire types serialize: all map keys are strings")
}

/// A record body's fields under their wire names (the seed's names), empty optional fields
/// left out. `kind` and `file_blobs` only where `full`.
fn body_fields(body: &Body, full: bool, out: &mut Map<String, Value>) {
    if full {
        out.insert("kind".into(), json!(body.kind().as_str()));
    }
    body.json_fields(full, out);
    let extra: Vec<Value> = body
        .extra()
        .iter()
        .map(|e| {
            let mut m = Map::new();
            if !e.after.is_empty() {
                m.insert("after".into(), json!(e.after));
            }
            if !e.label.is_empty() {
                m.insert("label".into(), json!(e.label));
            }
            m.insert("text".into(), json!(e.text));
            Value::Object(m)
        })
        .collect();
    if !extra.is_empty() {
        out.insert("extra".into(), Value::Array(extra));
    }
}

/// A record as `show --json` lists it: `id`, `ts`, `author`, `supersedes` (when it edits
/// others), `kind` and every field; checkpoints add `status` (`open`, `resolved`,
/// `superseded`). Through the integrity gate: withheld ([`withheld_record`]), or marked
/// `integrity` when SUSPICIOUS, as in `load --json`.
pub fn shown_record(r: &Record, status: Option<&str>) -> Value {
    use crate::integrity::gate::{text_gate, Gate};
    let suspicious = match text_gate(r) {
        Gate::Withheld => return withheld_record(r),
        Gate::Suspicious(rules) => rules,
        Gate::Clean => Vec::new(),
    };
    let mut m = record_fields(r, true);
    if let Some(s) = status {
        m.insert("status".into(), json!(s));
    }
    briefing::integrity(&mut m, &suspicious);
    Value::Object(m)
}

/// A record the integrity gate withholds, as every `--json` output gives it: `id`, `ts`,
/// `kind`, `withheld: true` and the placeholder's `note`; none of its text.
pub fn withheld_record(r: &Record) -> Value {
    json!({
        "id": r.id,
        "ts": r.meta.ts,
        "kind": r.kind().as_str(),
        "withheld": true,
        "note": crate::integrity::gate::placeholder(r),
    })
}

/// A record as `load --json` gives it: `id`, `ts`, `author` and its fields without `kind`
/// and `file_blobs`.
pub fn loaded_record(r: &Record) -> Map<String, Value> {
    if crate::integrity::gate::text_gate(r) == crate::integrity::gate::Gate::Withheld {
        return match withheld_record(r) {
            Value::Object(m) => m,
            _ => Map::new(),
        };
    }
    record_fields(r, false)
}

/// `id`, `ts`, `author`, `supersedes` (`full` only, when it edits others) and the body's
/// fields ([`body_fields`]), a body field of the same name taking the place.
fn record_fields(r: &Record, full: bool) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("id".into(), json!(r.id));
    m.insert("ts".into(), json!(r.meta.ts));
    m.insert("author".into(), json!(r.meta.author));
    if full && !r.meta.supersedes.is_empty() {
        m.insert("supersedes".into(), json!(r.meta.supersedes));
    }
    body_fields(&r.body, full, &mut m);
    m
}

/// The drift report, as `status --json` and `load --json` give it.
#[derive(Serialize)]
pub struct DriftJson<'a> {
    pub ahead: Option<usize>,
    pub behind: Option<usize>,
    pub branch: &'a Option<String>,
    pub branch_changed: bool,
    pub head: &'a Option<String>,
    pub saved: bool,
    pub saved_at: &'a Option<String>,
    pub saved_branch: &'a Option<String>,
    pub saved_commit_missing: bool,
    pub saved_head: &'a Option<String>,
    pub stale: Vec<StaleJson<'a>>,
}

/// A stale record through the gate: a withheld one's title and files (record text) are null.
#[derive(Serialize)]
pub struct StaleJson<'a> {
    pub files: Option<&'a [String]>,
    pub id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub integrity: Option<IntegrityJson<'a>>,
    pub kind: &'a str,
    pub title: Option<&'a str>,
}

/// The gate's verdict where it is not CLEAN: `{"verdict":"SUSPICIOUS","rules":[…]}`, or
/// `{"verdict":"TAINTED"}` for a record named but withheld.
#[derive(Serialize)]
pub struct IntegrityJson<'a> {
    pub verdict: &'static str,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub rules: &'a [&'static str],
}

impl<'a> IntegrityJson<'a> {
    pub fn of(gate: &'a Gate) -> Option<IntegrityJson<'a>> {
        match gate {
            Gate::Clean => None,
            Gate::Suspicious(rules) => Some(IntegrityJson {
                verdict: "SUSPICIOUS",
                rules,
            }),
            Gate::Withheld => Some(IntegrityJson {
                verdict: "TAINTED",
                rules: &[],
            }),
        }
    }
}

impl<'a> From<&'a Drift> for DriftJson<'a> {
    fn from(d: &'a Drift) -> Self {
        DriftJson {
            ahead: d.ahead,
            behind: d.behind,
            branch: &d.branch,
            branch_changed: d.branch_changed,
            head: &d.head,
            saved: d.saved,
            saved_at: &d.saved_at,
            saved_branch: &d.saved_branch,
            saved_commit_missing: d.saved_commit_missing,
            saved_head: &d.saved_head,
            stale: d
                .stale
                .iter()
                .map(|s| {
                    let shown = s.gate != Gate::Withheld;
                    StaleJson {
                        files: shown.then_some(s.files.as_slice()),
                        id: &s.id,
                        integrity: IntegrityJson::of(&s.gate),
                        kind: s.kind,
                        title: shown.then_some(s.title.as_str()),
                    }
                })
                .collect(),
        }
    }
}

/// What a record command wrote (`decide --json`, `learn --json`, …): the ref, the memory
/// commit and the records, or nulls and an empty list when nothing was written.
pub fn written(w: Option<&crate::memory::write::Written>) -> Value {
    let records: Vec<Value> = w
        .map(|w| {
            w.records
                .iter()
                .map(|r| json!({ "id": r.id, "kind": r.kind().as_str(), "ts": r.meta.ts }))
                .collect()
        })
        .unwrap_or_default();
    json!({
        "version": VERSION,
        "ref": w.map(|w| w.refname.clone()),
        "commit": w.map(|w| w.commit.to_string()),
        "records": records,
    })
}

/// `context preview --json`: the preview's own fields, versioned.
pub fn context_preview(p: &crate::context::preview::Preview) -> Value {
    let mut v = serde_json::to_value(p).unwrap_or_default();
    v["version"] = VERSION.into();
    v
}

/// What `why --json` found: the commit asked about, the line when one was named, the noted
/// commit (itself or the nearest noted ancestor) with its note's summary line, and each record the
/// note names (as in `show`), or `{"kind","id","title","missing":true}` for one no longer in
/// memory.
pub fn why(w: &crate::notes::why::Why) -> Value {
    let records: Vec<Value> = w
        .note
        .records
        .iter()
        .map(
            |(kind, id, title)| match w.records.iter().find(|r| r.id.starts_with(id.as_str())) {
                Some(r) => shown_record(r, None),
                None => json!({ "kind": kind, "id": id, "title": title, "missing": true }),
            },
        )
        .collect();
    let noted = w.noted.as_ref();
    json!({
        "version": VERSION,
        "commit": w.commit.to_string(),
        "line": w.line.as_ref().map(|(file, line)| json!({ "file": file, "line": line })),
        "noted": noted.map(|(c, _)| c.to_string()),
        "summary": noted.map(|(_, text)| text.lines().next().unwrap_or("").to_owned()),
        "records": records,
        "omitted": w.note.omitted,
        "checkpoint": w.note.checkpoint,
        "session": w.session().map(|s| shown_record(s, None)),
    })
}

/// `git rune sync --json`: one object per remote.
pub fn sync(r: &crate::sync::SyncReport) -> Value {
    let outcome = |o: crate::sync::merge::Outcome| {
        use crate::sync::merge::Outcome::*;
        match o {
            UpToDate => "up-to-date",
            Ahead => "ahead",
            FastForward => "fast-forward",
            Merged => "merged",
            Rebased => "rebased",
            Replaces => "replaces",
        }
    };
    json!({
        "version": VERSION,
        "remote": r.remote,
        "incoming": r.incoming(),
        "notes_in": r.notes.as_ref().map_or(0, |n| n.incoming),
        "outgoing": r.outgoing,
        "notes_out": r.notes_out,
        "refs": r.refs.iter().map(|m| json!({ "ref": m.name, "outcome": outcome(m.outcome) })).collect::<Vec<_>>(),
        "notes": r.notes.as_ref().map(|n| outcome(n.outcome)),
        "refused": r.refused().iter().map(|(id, why)| json!({ "id": id, "reason": why })).collect::<Vec<_>>(),
        "pushed": r.pushed,
        "rounds": r.rounds,
        "gave_up": r.gave_up,
        "skipped": r.skipped.iter().map(|s| json!({ "ref": s.remote_ref, "reason": s.why, "hint": s.hint })).collect::<Vec<_>>(),
        "quarantined": r.quarantined.iter().map(|s| &s.remote_ref).collect::<Vec<_>>(),
        "not_shared": r.not_shared.map(|s| s.as_str()),
        "shared_behind": r.shared_behind,
        "kept_history": r.kept_history.as_ref().map(|k| json!({ "refs": k.refs, "reason": k.why })),
    })
}

/// The seed's task summary: counts, consolidated groups and the next task.
pub fn task_summary(s: &crate::model::task::Summary) -> Value {
    json!({
        "pending": s.pending,
        "in_progress": s.in_progress,
        "done": s.done,
        "consolidated_groups": s.groups,
        "consolidated_tasks": s.consolidated,
        "next": s.next.as_ref().map(|(n, t)| json!({
            "task_id": crate::model::task::task_id(*n),
            "title": t,
        })),
        "updated": s.updated,
    })
}

/// What a task command did (`task add|start|done|reopen|edit --json`): the write (as for
/// record commands), the task as it is now (as in `show`), and the list's summary.
pub fn task_outcome(
    w: Option<&crate::memory::write::Written>,
    task: Option<&Record>,
    summary: &crate::model::task::Summary,
) -> Value {
    let mut v = written(w);
    v["task"] = task.map_or(Value::Null, |t| shown_record(t, None));
    v["summary"] = task_summary(summary);
    v
}

/// `oracle dispatch --json`: `status` `dispatched` with the new `record` (as in `show`), or
/// `existing` with the pending dispatch's `sessionId` (nothing recorded).
pub fn oracle_dispatched(record: Option<&Record>, existing: Option<&str>) -> Value {
    match (record, existing) {
        (Some(r), _) => json!({
            "version": VERSION,
            "status": "dispatched",
            "sessionId": r.body.title(),
            "record": shown_record(r, None),
        }),
        (None, id) => json!({
            "version": VERSION,
            "status": "existing",
            "sessionId": id,
            "record": Value::Null,
        }),
    }
}

/// `oracle list --json` (and `complete --json`): the dispatches in their live state, each
/// with the seed's fields (`sessionId`, `dispatchedAt`, …) as `show` lists records.
pub fn oracle_list(records: &[Record]) -> Value {
    json!({
        "version": VERSION,
        "oracles": records.iter().map(|r| shown_record(r, None)).collect::<Vec<_>>(),
    })
}

/// `oracle reattach --json`: `status` (`ready`, `not_ready`, `failed`, `withheld`), the
/// `sessionId`, and per status the `responseId` and `responseExcerpt` (ready, with the
/// integrity check's `suspicious` rules and whether this call marked it `consumed`), the
/// `timeoutAt` (not_ready) or the `reason` (failed).
pub fn oracle_reattached(out: &crate::oracle::Reattached) -> Value {
    use crate::oracle::Reattached;
    let field = |r: &Record, name: &str| -> Value {
        let mut m = Map::new();
        body_fields(&r.body, false, &mut m);
        m.remove(name).unwrap_or(Value::Null)
    };
    match out {
        Reattached::Ready {
            record,
            written,
            suspicious,
        } => json!({
            "version": VERSION,
            "status": "ready",
            "sessionId": record.body.title(),
            "responseId": field(record, "responseId"),
            "responseExcerpt": field(record, "responseExcerpt"),
            "suspicious": suspicious,
            "consumed": written.is_some(),
        }),
        Reattached::NotReady(r) => json!({
            "version": VERSION,
            "status": "not_ready",
            "sessionId": r.body.title(),
            "timeoutAt": field(r, "timeoutAt"),
        }),
        Reattached::Failed { record, reason, .. } => json!({
            "version": VERSION,
            "status": "failed",
            "sessionId": record.body.title(),
            "reason": reason,
        }),
        Reattached::Withheld(r) => json!({
            "version": VERSION,
            "status": "withheld",
            "sessionId": r.body.title(),
        }),
    }
}

/// One line of `echo show --json` and `echo search --json`: the echo as `show` lists records,
/// plus its Echo `score`, its `references` (distinct workflows that used it) and, for a
/// search, the query's BM25 `relevance`.
pub fn echo_listed(r: &Record, score: f64, references: usize, relevance: Option<f32>) -> Value {
    let mut v = shown_record(r, None);
    v["score"] = json!((score * 1000.0).round() / 1000.0);
    v["references"] = json!(references);
    if let Some(rel) = relevance {
        v["relevance"] = json!(((rel as f64) * 1000.0).round() / 1000.0);
    }
    v
}

/// `echo add --json`: `status` (`added`, `merged into the existing entry`, `already
/// recorded`), the entry's `uid`, and the record written (`null` when none was).
pub fn echo_added(status: &str, uid: &str, record: Option<&Record>) -> Value {
    let status = match status {
        "added" => "added",
        "already recorded" => "unchanged",
        _ => "merged",
    };
    json!({
        "version": VERSION,
        "status": status,
        "uid": uid,
        "record": record.map_or(Value::Null, |r| shown_record(r, None)),
    })
}

/// One line of `echo prune --json` per role: its MEMORY.md `lines`, whether this was a
/// `dry_run`, and the `archived` entries (`uid`, `title`, `score`).
pub fn echo_pruned(
    role: &str,
    lines: usize,
    entries: &[(String, String, f64)],
    dry_run: bool,
) -> Value {
    json!({
        "version": VERSION,
        "role": role,
        "lines": lines,
        "dry_run": dry_run,
        "archived": entries.iter().map(|(u, t, s)| json!({
            "uid": u,
            "title": t,
            "score": (s * 1000.0).round() / 1000.0,
        })).collect::<Vec<_>>(),
    })
}

/// `import sp-json --json`: the write (as for record commands: `ref`, `commit`, `records`),
/// how many `tasks` and `context_blocks` the file held, the imported tasks that took another
/// number (`renumbered`: `{from, to}`), and the list's `summary`.
pub fn import_sp_json(imported: &crate::tasks::Imported) -> Value {
    let mut v = written(imported.written.as_ref());
    v["tasks"] = json!(imported.tasks);
    v["context_blocks"] = json!(imported.blocks);
    v["renumbered"] = imported
        .renumbered
        .iter()
        .map(|(from, to)| json!({ "from": from, "to": to }))
        .collect();
    v["summary"] = task_summary(&imported.summary);
    v["drift"] = json!(imported.drift);
    v
}

/// One file of an `import rune-dir --json`.
#[derive(Serialize)]
pub struct RuneDirFileJson<'a> {
    /// Entries read as records (those already in memory included).
    pub entries: usize,
    /// The path inside the folder, with `/`.
    pub file: &'a str,
    /// `line N: why` for what was kept raw.
    pub notes: &'a [String],
    /// Entries memory already held.
    pub present: usize,
    /// Items kept raw in cumulative notes' `Imported` section.
    pub raw: usize,
}

/// `import rune-dir --json` (also `--dry-run`).
#[derive(Serialize)]
pub struct ImportRuneDirJson<'a> {
    /// Records written (or, dry, that would be).
    pub added: usize,
    /// `{"<ref>": "<commit>"}` for each ref written (empty when dry or nothing was new).
    pub commits: BTreeMap<&'a str, String>,
    pub dir: String,
    pub dry_run: bool,
    pub files: Vec<RuneDirFileJson<'a>>,
    /// The folder was the work tree's `.rune/`: it is git-rune's view now.
    pub in_work_tree: bool,
    /// ... and the current branch still commits it (`git rm -r --cached .rune` untracks it).
    pub still_tracked: bool,
    pub version: u32,
}

impl<'a> ImportRuneDirJson<'a> {
    pub fn of(done: &'a crate::memory::rune_dir::Imported) -> Self {
        ImportRuneDirJson {
            added: done.added,
            commits: done
                .commits
                .iter()
                .map(|(r, c)| (r.as_str(), c.to_string()))
                .collect(),
            dir: done.dir.display().to_string(),
            dry_run: done.dry_run,
            files: done
                .files
                .iter()
                .map(|f| RuneDirFileJson {
                    entries: f.entries,
                    file: &f.name,
                    notes: &f.notes,
                    present: f.present,
                    raw: f.raw,
                })
                .collect(),
            in_work_tree: done.in_tree,
            still_tracked: done.tracked,
            version: VERSION,
        }
    }
}

/// `export rune-dir --json` and `export sp-json FILE --json`: the folder or file written and,
/// for a folder, the files in it (paths inside it, with `/`).
#[derive(Serialize)]
pub struct ExportJson<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dir: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<&'a [String]>,
    pub version: u32,
}

/// `instinct promote --json`: `repo` (the user-level repository), `dry_run`, `qualifying`
/// (this project's instincts at confidence ≥ 0.8), `sighted` (sightings this run recorded, or
/// would), `other_projects`, `candidates` (each this project's instinct as `show` gives it,
/// plus `projects` and `best_confidence`) and `promoted` (names).
pub fn promotion(p: &crate::global::Promotion) -> Value {
    let candidates: Vec<Value> = p
        .candidates
        .iter()
        .map(|c| {
            let mut v = shown_record(&c.record, None);
            v["projects"] = json!(c.projects);
            v["best_confidence"] = json!(c.confidence);
            v
        })
        .collect();
    json!({
        "version": VERSION,
        "repo": p.repo.display().to_string(),
        "dry_run": p.dry_run,
        "qualifying": p.qualifying,
        "sighted": p.sighted,
        "other_projects": p.other_projects,
        "candidates": candidates,
        "promoted": p.promoted,
    })
}

/// One line of `echo compress --json` per role: `version`, `role`, `lines` (its MEMORY.md),
/// `dry_run`, `tokens_before` and `tokens_after` (characters / 4 of the entries compressed and
/// of the blocks), and `blocks`, each `title`, `uid` and `members` (the uids it compresses).
pub fn echo_compressed(
    role: &str,
    lines: usize,
    blocks: &[crate::echoes::compress::Block],
    dry_run: bool,
) -> Value {
    let uid = |b: &Body| match b {
        Body::Echo(Echo { uid, .. }) => uid.clone(),
        _ => String::new(),
    };
    json!({
        "version": VERSION,
        "role": role,
        "lines": lines,
        "dry_run": dry_run,
        "tokens_before": blocks.iter().map(|b| b.tokens_before).sum::<usize>(),
        "tokens_after": blocks.iter().map(|b| b.tokens_after).sum::<usize>(),
        "blocks": blocks.iter().map(|b| json!({
            "title": b.body.title(),
            "uid": uid(&b.body),
            "members": b.members.iter().map(|m| uid(&m.body)).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

/// One Remembrance document (`echo remembrance --json`, one per line, and `echo promote
/// --json`): `version`, `path` and the seed's frontmatter fields.
pub fn remembrance_doc(d: &crate::echoes::remembrance::Doc) -> Value {
    json!({
        "version": VERSION,
        "path": d.path,
        "title": d.title,
        "category": d.category,
        "tags": d.tags,
        "date": d.date,
        "symptom": d.symptom,
        "root_cause": d.root_cause,
        "solution_summary": d.solution_summary,
        "echo_ref": d.echo_ref,
        "confidence": d.confidence,
        "verified_by": d.verified_by,
        "requires_human_approval": d.requires_human_approval,
    })
}
