//! The history of memory commits: what `log` lists.

use crate::store::{self, branch_ref, ObjectId, Store, MEMORY_REF};

/// One memory commit.
#[derive(Debug, Clone)]
pub struct Entry {
    pub refname: String,
    pub id: ObjectId,
    /// Committer time, seconds since the epoch.
    pub time: i64,
    pub summary: String,
    /// From the `Rune-Records: N records` trailer.
    pub records: Option<u64>,
}

/// Memory commits on `refs/rune/memory` and the current branch's state ref (every memory ref
/// with `all`), newest first; the order inside one ref is its first-parent chain.
pub fn log(store: &Store, all: bool) -> store::Result<Vec<Entry>> {
    let refs = if all {
        store.memory_refs()?
    } else {
        let head = store.head_info()?;
        vec![MEMORY_REF.to_owned(), branch_ref(head.branch.as_deref())]
    };
    let mut entries = Vec::new();
    for name in refs {
        let Some(tip) = store.tip(&name)? else {
            continue;
        };
        for c in store.first_parent_chain(tip.commit, usize::MAX)? {
            let (summary, body) = match c.message.split_once('\n') {
                Some((s, b)) => (s.to_owned(), b.trim().to_owned()),
                None => (c.message.trim().to_owned(), String::new()),
            };
            entries.push(Entry {
                refname: name.clone(),
                id: c.id,
                time: c.time,
                summary,
                records: records_count(&body),
            });
        }
    }
    // Newest first; the stable sort keeps each ref's parent chain in order.
    entries.sort_by_key(|e| std::cmp::Reverse(e.time));
    Ok(entries)
}

/// The count from the `Rune-Records: N records` trailer.
fn records_count(body: &str) -> Option<u64> {
    body.lines()
        .find_map(|l| l.strip_prefix("Rune-Records: "))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}
