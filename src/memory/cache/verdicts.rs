//! The load gate's verdicts of the records the briefing readers scanned, by record id, in
//! `<common-dir>/rune/cache/verdicts/`: a record's id hashes its content, so its verdict holds
//! for as long as the scanner's rules do (the file is valid for [`super::gate::version`]).
//! `load`, SessionStart and the MCP server's `memory_load` recall them before they brief and
//! keep what they scanned after, so a briefing of memory that has not changed scans nothing
//! and never builds the scanner's word tables (most of what a `load` cost). Every command that
//! opens the repository as a reader (`show`, `task list`, `echo show`, `log` …) recalls them
//! too, and keeps what it scanned as it exits.

use crate::cache::Cache;
use crate::integrity::gate::{self, Recalled};
use crate::store::Store;

/// At most this many verdicts are kept (a briefing shows a few hundred records; a listing of
/// every record of a kind may show thousands); past it, the ids last in order are dropped
/// (any part of the verdicts saves the work it holds).
const CAP: usize = 16_384;

/// The kept verdicts, flat (one string of ids of one length, and the verdicts that are not
/// clean by the place of their id), so a reader decodes them in two copies rather than a
/// value per id.
const VERDICTS: Cache<Recalled> =
    Cache::new("verdicts", 3, 1, None).valid_for(super::gate::version);
const KEY: &str = "shown";

/// Tells the gate where the verdicts kept by earlier readers are; it reads them the first
/// time it needs a verdict (a command that shows no record never does).
pub fn recall(store: &Store) {
    let dir = store.common_dir().to_path_buf();
    gate::recall_later(Box::new(move || VERDICTS.get(&dir, KEY)));
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
    let kept = VERDICTS.get(common_dir, KEY).unwrap_or_default();
    if fresh.iter().all(|(id, _)| kept.get(id).is_some()) {
        return;
    }
    // What this process scanned first: it wins over an entry kept under the same id.
    let merged = Recalled::from_pairs(
        fresh
            .iter()
            .map(|(id, v)| (id.as_str(), *v))
            .chain(kept.iter()),
        CAP,
    );
    VERDICTS.put(common_dir, KEY, &merged);
}
