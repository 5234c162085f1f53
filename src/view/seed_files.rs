//! The seed's files that hold records rather than a view of them: a
//! `checkpoint-<date>.resolved.md` archive per resolved checkpoint and an
//! `oracle-pending/<sessionId>.json` per dispatch, rendered from a state (`import rune-dir`
//! reads them back).

use std::collections::HashSet;

use super::{oracle_json, render, ViewFile, Withhold};
use crate::model::State;

/// The folder of seed 000's oracle dispatches, one `<sessionId>.json` each.
pub const ORACLE_DIR: &str = "oracle-pending";

/// The seed's files that hold records of the state's branch: a
/// `checkpoint-<date>.resolved.md` archive per resolved checkpoint and an
/// `oracle-pending/<sessionId>.json` per dispatch not orphaned (the seed deletes those; they
/// stay in history here), as (name inside `.rune/`, text).
pub fn record_files(state: &State, hide: Withhold<'_>) -> Vec<(String, String)> {
    let mut texts = Vec::new();
    let open = state.open_checkpoint().map(|r| r.id.clone());
    let mut names = HashSet::new();
    for c in state
        .checkpoints
        .iter()
        .filter(|c| Some(&c.id) != open.as_ref())
    {
        let mut one = State::default();
        one.checkpoints.push(c.clone());
        let text = render(ViewFile::Checkpoint, &one, hide);
        let day = c.meta.ts.get(..10).unwrap_or("undated");
        let mut name = format!("checkpoint-{day}.resolved.md");
        let mut n = 1;
        while !names.insert(name.clone()) {
            n += 1;
            name = format!("checkpoint-{day}-{n}.resolved.md");
        }
        texts.push((name, text));
    }
    for o in &state.oracles {
        if hide(o) || crate::model::oracle::status_of(o).0 == crate::model::oracle::ORPHANED {
            continue;
        }
        if let (Some(name), Some(text)) = (
            oracle_json::file_name(&o.body),
            oracle_json::render(&o.body),
        ) {
            texts.push((format!("{ORACLE_DIR}/{name}"), text));
        }
    }
    texts
}

/// The session id a `oracle-pending/<sessionId>.json` file is named after (`None` for other
/// files).
pub fn oracle_stem(name: &str) -> Option<&str> {
    name.strip_prefix(ORACLE_DIR)?
        .strip_prefix('/')?
        .strip_suffix(".json")
        .filter(|s| !s.contains('/'))
}
