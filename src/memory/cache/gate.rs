//! Which records the readers (the views, `show`, …) withhold (the load gate's TAINTED ones) and
//! which they mark SUSPICIOUS, with the rules that fired, remembered per memory ref (the tree
//! last scanned) in `<git dir>/rune/cache/gate/`: a later
//! render scans only the records added since, so a write costs what it added, not what memory
//! holds. The cache is local, never committed; its files are valid for [`version`] (written in
//! each header), so when the scanner's rules or data files change the next render scans
//! everything again.

use std::collections::{BTreeMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::cache::Cache;
use crate::integrity::{gate, verdicts};
use crate::memory::{Snapshot, Wrote};
use crate::model::Kind;
use crate::store::{self, ObjectId, Store, MEMORY_REF};

/// The cache's own layout (2: every kind is gated, echoes and documents included; 3: the
/// SUSPICIOUS ones are kept too).
const LAYOUT: u64 = 3;

/// What a cache is valid for: this layout, the scanner's rules version and a fingerprint of
/// its data files. A cache written under other rules is scanned again.
pub(crate) fn version() -> u64 {
    crate::integrity::tables::fingerprint()
        ^ (u64::from(crate::integrity::RULES_VERSION) << 8)
        ^ LAYOUT
}

/// Per memory ref: the tree last scanned, the ids withheld in it and the SUSPICIOUS ones with
/// their rules ([`gate::StoredVerdict`]). One file, per work tree, valid for [`version`].
const SCANNED: Cache<BTreeMap<String, Scanned>> =
    Cache::new("gate", 1, 1, Some("gate.json")).valid_for(version);
const KEY: &str = "scanned";

#[derive(Clone, Serialize, Deserialize)]
struct Scanned {
    tree: String,
    withheld: Vec<String>,
    marked: Vec<(String, gate::StoredVerdict)>,
}

/// The ids of the records in `snap` the readers withhold.
pub fn withheld(store: &Store, snap: &Snapshot) -> store::Result<HashSet<String>> {
    Ok(verdicts_known(store, snap, &[])?.withheld)
}

/// The gate's verdicts on the records in `snap`: those withheld and those marked.
pub fn verdicts(store: &Store, snap: &Snapshot) -> store::Result<verdicts::Verdicts> {
    verdicts_known(store, snap, &[])
}

/// The verdicts a reader of the records of `kind` in `snap` applies: memory now's (`now`),
/// cached per tree, or as of a commit, scanned.
pub fn verdicts_for(
    store: &Store,
    snap: &Snapshot,
    now: bool,
    kind: Kind,
) -> store::Result<verdicts::Verdicts> {
    match now {
        true => verdicts(store, snap),
        false => Ok(verdicts::Verdicts {
            trusted: trusted(store),
            ..verdicts::Verdicts::of(&snap.state, &[kind])
        }),
    }
}

/// `rune.trustedAuthors`: with it set, readers mark records by anyone else.
pub fn trusted(store: &Store) -> Vec<String> {
    store.config_list("rune.trustedAuthors")
}

/// [`verdicts`], told what some refs gained ([`Wrote`]: a caller that just wrote or diffed
/// them), so a cache entry for the tree a write started from needs no tree diff.
pub fn verdicts_known(
    store: &Store,
    snap: &Snapshot,
    told: &[Wrote],
) -> store::Result<verdicts::Verdicts> {
    let mut scanned = SCANNED.get(store.git_dir(), KEY).unwrap_or_default();
    // Every kind a reader shows: the view's, the echoes' and documents.
    let kinds: Vec<Kind> = Kind::ALL.to_vec();
    let mut out = verdicts::Verdicts {
        trusted: trusted(store),
        ..Default::default()
    };
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
        let mut kept = known.unwrap_or(Scanned {
            tree: String::new(),
            withheld: Vec::new(),
            marked: Vec::new(),
        });
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
            let mut judged = verdicts::Verdicts::default();
            added.iter().for_each(|r| judged.judge(r));
            kept.withheld.extend(judged.withheld);
            kept.withheld.sort();
            kept.withheld.dedup();
            kept.marked.extend(judged.marked);
            kept.marked.sort();
            kept.marked.dedup_by(|b, a| a.0 == b.0);
            kept.tree = tip.tree.to_string();
            scanned.insert(name.to_owned(), kept.clone());
            changed = true;
        }
        out.withheld.extend(kept.withheld);
        out.marked.extend(kept.marked);
    }
    if changed {
        // A cache that cannot be written only costs the next render a full scan.
        SCANNED.put(store.git_dir(), KEY, &scanned);
    }
    Ok(out)
}
