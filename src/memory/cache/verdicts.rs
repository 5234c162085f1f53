//! The load gate's verdicts of the records the briefing readers scanned, by record id, in
//! `<common-dir>/rune/cache/verdicts/`: a record's id hashes its content, so its verdict holds
//! for as long as the scanner's rules do (the file is valid for [`super::gate::version`]).
//! `load`, SessionStart and the MCP server's `memory_load` recall them before they brief and
//! keep what they scanned after, so a briefing of memory that has not changed scans nothing
//! and never builds the scanner's word tables (most of what a `load` cost). Every command that
//! opens the repository as a reader (`show`, `task list`, `echo show`, `log` …) recalls them
//! too, and keeps what it scanned as it exits.

use std::collections::BTreeMap;

use crate::cache::Cache;
use crate::integrity::gate::{self, StoredVerdict};
use crate::store::Store;

/// At most this many verdicts are kept (a briefing shows a few hundred records); past it the
/// file starts again from what the last reader scanned.
const CAP: usize = 16_384;

const VERDICTS: Cache<BTreeMap<String, StoredVerdict>> =
    Cache::new("verdicts", 1, 1, None).valid_for(super::gate::version);
const KEY: &str = "shown";

/// Tells the gate the verdicts kept by earlier readers.
pub fn recall(store: &Store) {
    if let Some(kept) = VERDICTS.get(store.common_dir(), KEY) {
        gate::recall(kept);
    }
}

/// Keeps the verdicts this process scanned beside those kept before; writes nothing when it
/// scanned none. A cache that cannot be written only costs the next reader the scan.
pub fn keep(store: &Store) {
    keep_in(store.common_dir());
}

/// [`keep`], for the repository whose common directory is `common_dir` (a command keeps what
/// it scanned as it exits, when its store is gone).
pub fn keep_in(common_dir: &std::path::Path) {
    let fresh = gate::scanned();
    if fresh.is_empty() {
        return;
    }
    let mut kept = VERDICTS.get(common_dir, KEY).unwrap_or_default();
    if kept.len() + fresh.len() > CAP {
        kept.clear();
    }
    let before = kept.len();
    for (id, v) in fresh {
        kept.entry(id).or_insert(v);
    }
    if kept.len() != before {
        VERDICTS.put(common_dir, KEY, &kept);
    }
}
