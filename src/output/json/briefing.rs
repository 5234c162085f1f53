//! The `--json` of reading memory: `load` (the briefing, its upkeep), `diff` and
//! `show invariants` (the seed's invariants loader payload).

use serde::Serialize;
use serde_json::{json, Map, Value};

use super::{loaded_record, DriftJson, VERSION};
use crate::model::{Body, Record};

/// `git rune load --json`: a fixed envelope, plus one array per section of the briefing.
/// What `load`'s upkeep wrote (`wrote` in `load --json`): memory commits, what each part did,
/// and the parts that failed.
#[derive(Serialize)]
pub struct UpkeepJson<'a> {
    pub commits: usize,
    pub merged: Vec<MergedJson<'a>>,
    pub pruned_instincts: usize,
    pub orphaned_oracles: usize,
    pub failures: &'a [String],
}

/// Memory merged from one remote: the records and notes that came in.
#[derive(Serialize)]
pub struct MergedJson<'a> {
    pub remote: &'a str,
    pub records: usize,
    pub notes: usize,
}

pub fn upkeep(up: &crate::upkeep::Upkeep) -> Value {
    json!(UpkeepJson {
        commits: up.commits,
        merged: up
            .merged
            .iter()
            .map(|r| MergedJson {
                remote: &r.remote,
                records: r.incoming().values().sum(),
                notes: r.notes.as_ref().map_or(0, |n| n.incoming),
            })
            .collect(),
        pruned_instincts: up.pruned,
        orphaned_oracles: up.orphaned,
        failures: &up.failures,
    })
}

pub fn load(b: &crate::memory::load::Briefing<'_>) -> Value {
    use crate::memory::load::Item;
    let mut obj = Map::new();
    obj.insert("version".into(), json!(VERSION));
    obj.insert("branch".into(), json!(b.head.branch));
    obj.insert("head".into(), json!(b.head.head.map(|h| h.to_string())));
    obj.insert(
        "last_session".into(),
        b.last_session
            .as_ref()
            .map(|(r, suspicious)| {
                let mut m = loaded_record(r);
                integrity(&mut m, suspicious);
                Value::Object(m)
            })
            .unwrap_or(Value::Null),
    );
    obj.insert("drift".into(), json!(DriftJson::from(b.drift)));
    if !b.notices.is_empty() {
        obj.insert("notices".into(), json!(b.notices));
    }
    for s in &b.sections {
        if s.key == "drift" {
            continue;
        }
        let items: Vec<Value> = s
            .items
            .iter()
            .map(|(_, item)| match item {
                Item::Record {
                    record,
                    stale,
                    suspicious,
                } => {
                    let mut m = loaded_record(record);
                    if let Some(stale) = stale {
                        m.insert("stale".into(), json!(stale));
                    }
                    integrity(&mut m, suspicious);
                    Value::Object(m)
                }
                Item::Drift(line) => json!(line),
                Item::TaskSummary(line) => json!({ "summary": line }),
                Item::InvariantsStale => json!({ "stale": true }),
                Item::Solutions(line) => json!({ "solutions": line }),
                Item::Progress {
                    field,
                    text,
                    suspicious,
                    ..
                } => {
                    let mut m = Map::new();
                    m.insert((*field).into(), json!(text));
                    integrity(&mut m, suspicious);
                    Value::Object(m)
                }
            })
            .collect();
        obj.insert(s.key.replace('-', "_"), Value::Array(items));
    }
    obj.insert(
        "omitted".into(),
        Value::Object(
            b.omitted()
                .iter()
                .map(|(k, n, _)| (k.replace(' ', "_"), json!(n)))
                .collect(),
        ),
    );
    obj.insert("withheld".into(), json!(b.withheld));
    obj.insert("estimated_tokens".into(), json!(b.estimated_tokens()));
    Value::Object(obj)
}

/// Marks an item SUSPICIOUS with the rules that fired (nothing when none did).
pub(super) fn integrity(m: &mut Map<String, Value>, suspicious: &[&'static str]) {
    if !suspicious.is_empty() {
        m.insert(
            "integrity".into(),
            json!(super::IntegrityJson {
                verdict: "SUSPICIOUS",
                rules: suspicious
            }),
        );
    }
}

/// `git rune diff --json`.
#[derive(Serialize)]
pub struct DiffJson<'a> {
    pub files: Vec<DiffFileJson<'a>>,
    pub from: &'a str,
    pub to: &'a str,
    pub version: u32,
}

/// One view file's changes in `git rune diff --json`.
#[derive(Serialize)]
pub struct DiffFileJson<'a> {
    /// Ids of records that are new.
    pub added: &'a [String],
    /// `[old id, new id]` of records edited.
    pub changed: Vec<[&'a str; 2]>,
    /// The unified diff of the file as the view renders it.
    pub diff: &'a str,
    pub file: &'static str,
    pub kind: &'static str,
    /// Ids of records gone.
    pub removed: &'a [String],
}

/// `git rune show invariants --json`: the payload of the seed's invariants loader
/// (`invariants.loaded`), with git-rune's `version` and `withheld` beside it.
pub fn invariants(
    loaded: &crate::view::invariants::Loaded<'_>,
    withheld: &dyn Fn(&Record) -> bool,
    stale: bool,
    path: &std::path::Path,
) -> Value {
    let mut shown = 0usize;
    let rules: Vec<Value> = loaded
        .rules
        .iter()
        .filter(|r| !withheld(r))
        .filter_map(|r| match &r.body {
            Body::Invariant(i) => {
                shown += 1;
                Some(json!({
                    "section": i.section,
                    "title": i.title,
                    "what": i.what,
                    "where": i.r#where,
                    "why": i.why,
                }))
            }
            _ => None,
        })
        .collect();
    json!({
        "version": VERSION,
        "loaded": shown > 0,
        "count": shown,
        "rules": rules,
        "stats": {
            "danger": loaded.danger,
            "critical": loaded.critical,
            "state": loaded.state,
            "cross": loaded.cross,
            "total": loaded.rules.len(),
            "archivedSkipped": loaded.archived_skipped,
        },
        "stale": stale,
        "overflow": 0,
        "withheld": loaded.rules.len() - shown,
        "path": path,
    })
}
