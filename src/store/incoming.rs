//! Reading what a remote sent without trusting it: a remote ref's tip checked before anything
//! of it is read (a commit, a layout this build reads, trees within the limits), and its
//! records read one line at a time, so a line that is damaged or too large is refused alone
//! while the rest merges. The limits are settings (`rune.maxRecordBytes`, `rune.maxNoteBytes`,
//! `rune.maxTreeEntries`; docs/security.md).

use std::collections::{BTreeMap, HashSet};

use gix::ObjectId;

use super::objects::ReadObjects as _;
use super::partial::find_blob;
use super::records::{differing, entries_of, layout_of, Entries, LAYOUT};
use super::{git_err, Result, Store};
use crate::model::Record;

/// What this clone accepts from a remote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The longest record line (bytes).
    pub record_bytes: usize,
    /// The largest commit note (bytes).
    pub note_bytes: usize,
    /// The most entries one tree object (or one record blob, in lines) may hold.
    pub tree_entries: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            record_bytes: 256 * 1024,
            note_bytes: 256 * 1024,
            tree_entries: 4096,
        }
    }
}

/// Why a remote ref was not read at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unreadable {
    /// It names a blob, tree or tag.
    NotACommit(String),
    /// Its objects are missing (the fetch did not bring them).
    Missing,
    /// Written in a newer layout than this build reads (its `VERSION`).
    NewerLayout(String),
    /// A tree or blob past `rune.maxTreeEntries`, or a `VERSION` this build cannot read.
    Damaged(String),
}

impl Unreadable {
    /// What the user is told, after the remote ref's name.
    pub fn why(&self) -> String {
        match self {
            Unreadable::NotACommit(kind) => format!("it points at a {kind}, not a memory commit"),
            Unreadable::Missing => "its objects are missing here".into(),
            Unreadable::NewerLayout(v) => {
                format!("it was written in a newer layout ({v}) than this git-rune reads")
            }
            Unreadable::Damaged(why) => why.clone(),
        }
    }

    /// Whether `git rune repair` may replace it: a newer layout is not damage, only news.
    pub fn repairable(&self) -> bool {
        !matches!(self, Unreadable::NewerLayout(_))
    }
}

/// A record line a remote sent that was refused: where, its id when it has one, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLine {
    pub path: String,
    pub line: usize,
    pub id: Option<String>,
    pub why: String,
}

/// The records a remote tree holds that a local tree lacks, and the lines refused.
#[derive(Debug, Default)]
pub struct Incoming {
    pub records: Vec<Record>,
    pub bad: Vec<BadLine>,
}

impl Store {
    /// The limits on what is accepted from remotes, from the settings (defaults: 256 KiB a
    /// record, 256 KiB a note, 4,096 entries a tree).
    pub fn limits(&self) -> Limits {
        let get = |key: &str, default: usize| {
            self.config_string(key)
                .and_then(|v| parse_size(&v))
                .filter(|n| *n > 0)
                .unwrap_or(default)
        };
        let d = Limits::default();
        Limits {
            record_bytes: get("rune.maxRecordBytes", d.record_bytes),
            note_bytes: get("rune.maxNoteBytes", d.note_bytes),
            tree_entries: get("rune.maxTreeEntries", d.tree_entries),
        }
    }

    /// Checks a remote ref's tip before anything of it is read: a commit whose tree this
    /// build reads (for memory; `notes` for a notes ref). `Err` only for a failure of this
    /// repository; the remote's faults are `Ok(Err(_))`.
    pub(crate) fn check_remote_tip(
        &self,
        id: ObjectId,
        notes: bool,
    ) -> Result<std::result::Result<super::Tip, Unreadable>> {
        let object = match super::objects::find(&self.repo, id) {
            Ok(Some(o)) => o,
            Ok(None) => return Ok(Err(Unreadable::Missing)),
            Err(e) => return Err(git_err(format!("cannot read {id}"))(e)),
        };
        if object.kind != gix::objs::Kind::Commit {
            return Ok(Err(Unreadable::NotACommit(object.kind.to_string())));
        }
        let Ok(tree) = object.into_commit().tree_id() else {
            return Ok(Err(Unreadable::Damaged("its commit cannot be read".into())));
        };
        let tip = super::Tip {
            commit: id,
            tree: tree.detach(),
        };
        let limit = self.limits().tree_entries;
        let Ok(root) = self.repo.read_tree(tip.tree) else {
            return Ok(Err(Unreadable::Missing));
        };
        let Ok(decoded) = root.decode() else {
            return Ok(Err(Unreadable::Damaged("its tree cannot be read".into())));
        };
        if decoded.entries.len() > limit {
            return Ok(Err(over_entries("its tree", decoded.entries.len(), limit)));
        }
        if notes {
            return Ok(Ok(tip));
        }
        // Every memory commit git-rune ever wrote holds a `VERSION` blob: a commit without
        // one is something else (a code commit pushed to the wrong ref), and merging it would
        // carry that history into memory.
        let Some(entry) = root.find_entry("VERSION") else {
            return Ok(Err(Unreadable::Damaged(
                "it points at a commit that is not memory (its tree holds no VERSION)".into(),
            )));
        };
        let Ok(blob) = find_blob(&self.repo, entry.object_id(), &|| "VERSION".into()) else {
            return Ok(Err(Unreadable::Missing));
        };
        let text = String::from_utf8_lossy(&blob.data).trim_end().to_owned();
        match layout_of(&blob.data) {
            Some(n) if n <= LAYOUT => {}
            Some(_) => return Ok(Err(Unreadable::NewerLayout(format!("{text:?}")))),
            None => {
                return Ok(Err(Unreadable::Damaged(format!(
                    "its VERSION blob ({:?}) names no layout",
                    text.chars().take(40).collect::<String>()
                ))))
            }
        }
        Ok(Ok(tip))
    }

    /// The records remote tree `theirs` holds that local tree `ours` lacks, every kind
    /// directory (those this build does not know too), reading only the blobs that differ.
    /// A line that does not decode, is past `rune.maxRecordBytes` or whose id is not the hash
    /// of its content is refused alone; a tree past `rune.maxTreeEntries` makes the whole
    /// remote ref unreadable (`Ok(Err(_))`).
    pub(crate) fn incoming(
        &self,
        ours: Option<ObjectId>,
        theirs: ObjectId,
    ) -> Result<std::result::Result<Incoming, Unreadable>> {
        let limits = self.limits();
        let mut reader = Reader {
            store: self,
            limits,
            old: Vec::new(),
            new: Vec::new(),
        };
        if let Err(u) = reader.diff("", ours, Some(theirs), true)? {
            return Ok(Err(u));
        }
        // Ids the local side's differing blobs hold: those are not new.
        let known = super::records::ids_in(&self.repo, "", &reader.old)?;
        let mut out = Incoming::default();
        let ids: Vec<ObjectId> = reader.new.iter().map(|(_, oid)| *oid).collect();
        super::partial::prefetch(&self.repo, &ids)?;
        for (path, oid) in &reader.new {
            let Ok(blob) = find_blob(&self.repo, *oid, &|| format!("cannot read {path}")) else {
                return Ok(Err(Unreadable::Missing));
            };
            let lines = blob.data.iter().filter(|&&b| b == b'\n').count();
            if lines > limits.tree_entries {
                return Ok(Err(over_entries(path, lines, limits.tree_entries)));
            }
            read_lines(path, &blob.data, &known, limits, &mut out);
        }
        Ok(Ok(out))
    }
}

/// Reads the lines of one remote blob into `out`: new records, and the lines refused.
fn read_lines(
    path: &str,
    data: &[u8],
    known: &HashSet<String>,
    limits: Limits,
    out: &mut Incoming,
) {
    for (i, line) in data.split(|&b| b == b'\n').enumerate() {
        if line.is_empty() {
            continue;
        }
        let bad = |id: Option<&str>, why: String| BadLine {
            path: path.to_owned(),
            line: i + 1,
            id: id.map(str::to_owned),
            why,
        };
        let Ok(text) = std::str::from_utf8(line) else {
            out.bad
                .push(bad(None, "the line is not valid UTF-8".into()));
            continue;
        };
        let id = crate::model::line_id(text).filter(|id| id.len() <= 128);
        if id.is_some_and(|id| known.contains(id)) {
            continue;
        }
        if line.len() > limits.record_bytes {
            out.bad.push(bad(
                id,
                format!(
                    "the record is {} bytes, more than rune.maxRecordBytes ({})",
                    line.len(),
                    limits.record_bytes
                ),
            ));
            continue;
        }
        match crate::model::decode_line(text) {
            Ok(r) => out.records.push(r),
            Err(e) => out.bad.push(bad(id, e.to_string())),
        }
    }
}

fn over_entries(what: &str, n: usize, limit: usize) -> Unreadable {
    Unreadable::Damaged(format!(
        "{what} holds {n} entries, more than rune.maxTreeEntries ({limit})"
    ))
}

/// Walks two memory trees, listing the record blobs that differ (skipping subtrees both
/// hold), checking each remote tree against the entry limit.
struct Reader<'s> {
    store: &'s Store,
    limits: Limits,
    /// Blobs only the local tree holds: (path, id).
    old: Vec<(String, ObjectId)>,
    /// Blobs only the remote tree holds.
    new: Vec<(String, ObjectId)>,
}

impl Reader<'_> {
    fn entries(
        &self,
        tree: Option<ObjectId>,
        remote: bool,
        dir: &str,
    ) -> Result<std::result::Result<Entries, Unreadable>> {
        let Some(tree) = tree else {
            return Ok(Ok(BTreeMap::new()));
        };
        let t = match self.store.repo.read_tree(tree) {
            Ok(t) => t,
            Err(_) if remote => return Ok(Err(Unreadable::Missing)),
            Err(e) => return Err(git_err(format!("cannot read {dir}"))(e)),
        };
        let decoded = match t.decode() {
            Ok(d) => d,
            Err(_) if remote => {
                return Ok(Err(Unreadable::Damaged(format!(
                    "its tree {dir} cannot be read"
                ))))
            }
            Err(e) => return Err(git_err("cannot decode tree")(e)),
        };
        if remote && decoded.entries.len() > self.limits.tree_entries {
            let what = if dir.is_empty() { "its tree" } else { dir };
            return Ok(Err(over_entries(
                what,
                decoded.entries.len(),
                self.limits.tree_entries,
            )));
        }
        Ok(Ok(entries_of(&decoded)))
    }

    fn diff(
        &mut self,
        dir: &str,
        old: Option<ObjectId>,
        new: Option<ObjectId>,
        root: bool,
    ) -> Result<std::result::Result<(), Unreadable>> {
        if old == new {
            return Ok(Ok(()));
        }
        let old_entries = match self.entries(old, false, dir)? {
            Ok(e) => e,
            Err(u) => return Ok(Err(u)),
        };
        let new_entries = match self.entries(new, true, dir)? {
            Ok(e) => e,
            Err(u) => return Ok(Err(u)),
        };
        for (entry, (old_blob, old_tree), (new_blob, new_tree)) in
            differing(&old_entries, &new_entries)
        {
            // At the top, only directories hold records (`VERSION` and other files do not).
            let path = if dir.is_empty() {
                entry.clone()
            } else {
                format!("{dir}/{entry}")
            };
            if !root {
                self.old.extend(old_blob.map(|blob| (path.clone(), blob)));
                let new_blob = new_blob.filter(|_| entry.ends_with(".jsonl"));
                self.new.extend(new_blob.map(|blob| (path.clone(), blob)));
            }
            if old_tree.is_some() || new_tree.is_some() {
                if let Err(u) = self.diff(&path, old_tree, new_tree, false)? {
                    return Ok(Err(u));
                }
            }
        }
        Ok(Ok(()))
    }
}

/// A size setting: a number, optionally with `k`, `m` or `g` (git's own suffixes).
fn parse_size(v: &str) -> Option<usize> {
    let v = v.trim().to_ascii_lowercase();
    let (num, mult) = match v.chars().last()? {
        'k' => (&v[..v.len() - 1], 1024),
        'm' => (&v[..v.len() - 1], 1024 * 1024),
        'g' => (&v[..v.len() - 1], 1024 * 1024 * 1024),
        _ => (&v[..], 1),
    };
    num.trim().parse::<usize>().ok()?.checked_mul(mult)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_take_gits_suffixes() {
        assert_eq!(parse_size("512"), Some(512));
        assert_eq!(parse_size("64k"), Some(64 * 1024));
        assert_eq!(parse_size("2M"), Some(2 * 1024 * 1024));
        assert_eq!(parse_size("x"), None);
    }
}
