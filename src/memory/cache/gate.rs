//! Which records the readers (the views, `show`, …) withhold (the load gate's TAINTED ones),
//! remembered per memory ref (the tree last scanned) in `<git dir>/rune/cache/gate/`: a later
//! render scans only the records added since, so a write costs what it added, not what memory
//! holds. The cache is local, never committed; its files are valid for [`version`] (written in
//! each header), so when the scanner's rules or data files change the next render scans
//! everything again.

use std::collections::{BTreeMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::cache::Cache;
use crate::integrity::gate;
use crate::memory::{Snapshot, Wrote};
use crate::model::Kind;
use crate::store::{self, ObjectId, Store, MEMORY_REF};

/// The cache's own layout (2: every kind is gated, echoes and documents included).
const LAYOUT: u64 = 2;

/// What a cache is valid for: this layout, the scanner's rules version and a fingerprint of
/// its data files. A cache written under other rules is scanned again.
pub(crate) fn version() -> u64 {
    crate::integrity::tables::fingerprint()
        ^ (u64::from(crate::integrity::RULES_VERSION) << 8)
        ^ LAYOUT
}

/// Per memory ref: the tree last scanned and the ids withheld in it. One file, per work tree,
/// valid for [`version`].
const SCANNED: Cache<BTreeMap<String, Scanned>> =
    Cache::new("gate", 1, 1, Some("gate.json")).valid_for(version);
const KEY: &str = "scanned";

#[derive(Clone, Serialize, Deserialize)]
struct Scanned {
    tree: String,
    withheld: Vec<String>,
}

/// The ids of the records in `snap` the view withholds.
pub fn withheld(store: &Store, snap: &Snapshot) -> store::Result<HashSet<String>> {
    withheld_known(store, snap, &[])
}

/// [`withheld`], told what some refs gained ([`Wrote`]: a caller that just wrote or diffed
/// them), so a cache entry for the tree a write started from needs no tree diff.
pub fn withheld_known(
    store: &Store,
    snap: &Snapshot,
    told: &[Wrote],
) -> store::Result<HashSet<String>> {
    let mut scanned = SCANNED.get(store.git_dir(), KEY).unwrap_or_default();
    // Every kind a reader shows: the view's, the echoes' and documents.
    let kinds: Vec<Kind> = Kind::ALL.to_vec();
    let mut out = HashSet::new();
    let mut changed = false;
    for (name, tip) in [
        (MEMORY_REF, snap.memory_tip),
        (snap.branch_ref.as_str(), snap.branch_tip),
    ] {
        let Some(tip) = tip else { continue };
        let known = scanned.get(name).cloned();
        let base = known
            .as_ref()
            .and_then(|s| ObjectId::from_hex(s.tree.as_bytes()).ok());
        let mut ids = known.map(|s| s.withheld).unwrap_or_default();
        if base != Some(tip.tree) {
            let told = Wrote::find(told, name, base, tip.tree);
            let added: Vec<&crate::model::Record>;
            let read;
            let added: &[&crate::model::Record] = match told {
                Some(records) => {
                    added = records
                        .iter()
                        .filter(|r| kinds.contains(&r.kind()))
                        .collect();
                    &added
                }
                None => {
                    read = store.records_added_trees(name, base, tip.tree, &kinds)?;
                    added = read.iter().collect();
                    &added
                }
            };
            ids.extend(
                added
                    .iter()
                    .filter(|r| gate::withheld(r))
                    .map(|r| r.id.clone()),
            );
            ids.sort();
            ids.dedup();
            scanned.insert(
                name.to_owned(),
                Scanned {
                    tree: tip.tree.to_string(),
                    withheld: ids.clone(),
                },
            );
            changed = true;
        }
        out.extend(ids);
    }
    if changed {
        // A cache that cannot be written only costs the next render a full scan.
        SCANNED.put(store.git_dir(), KEY, &scanned);
    }
    Ok(out)
}
