//! The load gate on everything the MCP server hands out, as `load` applies it: memory framed
//! as quoted data, TAINTED records withheld, SUSPICIOUS ones marked where they are shown — in
//! a view file rendered for a tool or a resource, on the record's headline — and text that
//! names a record inside other text (a commit note's line, a status line) through the same
//! scan.

use std::collections::{HashMap, HashSet};

use crate::integrity::gate::{gate, Gate};
use crate::integrity::{scan_text, verdict, Verdict};
use crate::memory::load::{quoted, withheld_line, FRAME_CLOSE, FRAME_OPEN};
use crate::model::{Field, Kind, Record, Shape};

/// Memory framed as quoted data, as `load` frames it (links made inert, frame markers
/// escaped), closing with the gate's count.
pub fn framed(body: &str, withheld: usize) -> String {
    let mut out = String::from(FRAME_OPEN);
    out.push_str(&quoted(body));
    if !out.ends_with('\n') {
        out.push('\n');
    }
    if let Some(line) = withheld_line(withheld) {
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str(FRAME_CLOSE);
    out
}

/// The gate's SUSPICIOUS mark for `rules`, as `load` writes it.
pub fn mark(rules: &[&str]) -> String {
    format!("[SUSPICIOUS: {}] ", rules.join(", "))
}

/// Fields that place a record (its section, task, role, date, files) rather than say what it
/// is: the mark goes on the first field that says what it is.
const PLACING: [&str; 13] = [
    "section",
    "task",
    "role",
    "layer",
    "date",
    "skill",
    "files",
    "extra",
    "source",
    "evidence",
    "verified",
    "supersedes",
    "workflow",
];

/// A copy of `r` whose headline (its first field that says what it is) carries the SUSPICIOUS
/// mark, so a view rendered from it shows the mark where the record is.
pub fn marked_record(r: &Record, rules: &[&str]) -> Record {
    let mut r = r.clone();
    let m = mark(rules);
    let mut done = false;
    r.body.fields_mut(&mut |name, shape, field| {
        if done
            || PLACING.contains(&name)
            || matches!(shape, Shape::Section(_) | Shape::Paths { .. })
        {
            return;
        }
        match field {
            Field::One(s) if !s.trim().is_empty() => {
                s.insert_str(0, &m);
                done = true;
            }
            Field::Many(v) => {
                if let Some(first) = v.iter_mut().find(|s| !s.trim().is_empty()) {
                    first.insert_str(0, &m);
                    done = true;
                }
            }
            _ => {}
        }
    });
    r
}

/// The gate's verdict on every record of `kind` in `state`: the ids it withholds, and each
/// SUSPICIOUS record replaced by its marked copy ([`marked_record`]). `withheld` are the ids
/// already known to be withheld (the cache of memory now), scanned here when `None`.
pub fn gate_kind(
    state: &mut crate::model::State,
    kind: Kind,
    withheld: Option<&HashSet<String>>,
) -> HashSet<String> {
    let mut out = HashSet::new();
    let mut rules: HashMap<String, Vec<&'static str>> = HashMap::new();
    let list = state.of_kind(kind);
    for r in list {
        match gate(r) {
            Gate::Withheld => {
                out.insert(r.id.clone());
            }
            Gate::Suspicious(found) => {
                rules.insert(r.id.clone(), found);
            }
            Gate::Clean => {}
        }
    }
    if let Some(known) = withheld {
        out.extend(
            list.iter()
                .filter(|r| known.contains(&r.id))
                .map(|r| r.id.clone()),
        );
    }
    if let Some(records) = state.of_kind_mut(kind) {
        for r in records.iter_mut() {
            if let Some(found) = rules.get(&r.id).filter(|_| !out.contains(&r.id)) {
                let id = r.id.clone();
                *r = marked_record(r, found);
                // The view and the withholding look records up by id: keep it.
                r.id = id;
            }
        }
    }
    out
}

/// Text that is not a record but came from memory (a commit note's line): through the same
/// scan, `None` when TAINTED, marked when SUSPICIOUS.
pub fn gated_text(text: &str) -> Option<String> {
    let issues = scan_text(text);
    match verdict(&issues) {
        Verdict::Tainted => None,
        _ if issues.is_empty() => Some(text.to_owned()),
        _ => {
            let mut rules: Vec<&str> = issues.iter().map(|i| i.rule).collect();
            rules.sort_unstable();
            rules.dedup();
            Some(format!("{}{text}", mark(&rules)))
        }
    }
}
