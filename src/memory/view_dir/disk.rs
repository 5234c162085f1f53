//! What every directory checked out from memory shares on disk — `.rune/` and the echoes
//! directory alike: the id of a file's content, its manifest entry and its state against it,
//! writing one file at checkout (only what changed, never over unsaved edits), the one lock,
//! and the `info/exclude` line that keeps a directory out of `git status`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::files::{stat_of, write_atomic};
use crate::store::{self, HashKind, Store};

/// What was checked out for one file: the id of its content ([`content_id`]; a manifest
/// written before 0.9 — and the echoes directory's before one manifest served both — holds git
/// blob ids, still understood), empty when nothing was written because the file renders empty,
/// the ref and the commit it was rendered from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    pub blob: String,
    #[serde(rename = "ref")]
    pub refname: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// The file's size and modification time (ns) when written: a file whose stat still
    /// matches is not read and hashed again (as git's index does).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stat: Option<(u64, i128)>,
}

/// How a checked-out file compares with what was checked out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileState {
    /// On disk exactly as checked out (or absent as checked out).
    Clean,
    /// Changed since checkout.
    Modified,
    /// On disk, but checkout wrote nothing there (or there was no checkout yet).
    Added,
    /// Checked out, then deleted.
    Missing,
}

impl FileState {
    /// The wire name (`--json`).
    pub fn as_str(self) -> &'static str {
        match self {
            FileState::Clean => "clean",
            FileState::Modified => "modified",
            FileState::Added => "added",
            FileState::Missing => "missing",
        }
    }

    /// Modified or added: holds edits a save would read.
    pub fn edited(self) -> bool {
        matches!(self, FileState::Modified | FileState::Added)
    }
}

/// Another directory's part of the manifest (the echoes directory): where it was checked out
/// (relative to the work tree) and its files, by path inside it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Section {
    pub dir: String,
    /// Which renderer wrote the files (`view_dir::renderer`): another renders them again.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub renderer: String,
    pub files: BTreeMap<String, FileEntry>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub documents: BTreeMap<String, FileEntry>,
}

/// The echoes directory's manifest as versions before one manifest served both directories
/// wrote it (`<git-dir>/rune/echoes.json`): git blob ids and one memory commit.
#[derive(Deserialize)]
struct OldSection {
    dir: String,
    #[serde(default)]
    base: Option<String>,
    files: BTreeMap<String, String>,
    #[serde(default)]
    documents: BTreeMap<String, String>,
}

/// The echoes directory's section read from an old `echoes.json`, if there is one.
pub(super) fn old_section(path: &Path) -> Option<Section> {
    let old: OldSection = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
    let entries = |m: BTreeMap<String, String>| {
        m.into_iter()
            .map(|(k, blob)| {
                let entry = FileEntry {
                    blob,
                    refname: store::MEMORY_REF.to_owned(),
                    base: old.base.clone(),
                    stat: None,
                };
                (k, entry)
            })
            .collect()
    };
    Some(Section {
        dir: old.dir,
        // (An old build's: rendered again by the next reader.)
        renderer: String::new(),
        files: entries(old.files),
        documents: entries(old.documents),
    })
}

/// The state of the file at `path` against its entry.
pub fn state_of(hash: HashKind, entry: Option<&FileEntry>, path: &Path) -> FileState {
    if let Some(e) = entry {
        if e.stat.is_some() && e.stat == stat_of(path) {
            return FileState::Clean;
        }
    }
    let same = entry.and_then(|e| holds(hash, path, &e.blob));
    let exists = same.is_some() || path.exists();
    match (entry, exists) {
        (Some(e), true) if e.blob.is_empty() => FileState::Added,
        (Some(_), true) if same == Some(true) => FileState::Clean,
        (Some(_), true) => FileState::Modified,
        (Some(e), false) if e.blob.is_empty() => FileState::Clean,
        (Some(_), false) => FileState::Missing,
        (None, true) => FileState::Added,
        (None, false) => FileState::Clean,
    }
}

/// Whether the file at `path` holds the content an entry's id names (either kind of id).
fn holds(hash: HashKind, path: &Path, id: &str) -> Option<bool> {
    let data = std::fs::read(path).ok()?;
    Some(if id.starts_with(CONTENT_ID_PREFIX) {
        id_names(id, &data)
    } else {
        store::blob_id(hash, &data).is_some_and(|b| b == id)
    })
}

/// The content id of a file on disk ([`content_id`]).
pub fn id_on_disk(path: &Path) -> Option<String> {
    Some(content_id(&std::fs::read(path).ok()?))
}

/// What a checkout did with one file.
#[derive(Debug)]
pub enum Put {
    /// Left alone: it holds edits not saved yet.
    Kept,
    /// Already as rendered; its entry.
    Same(FileEntry),
    /// Written; its entry.
    Written(FileEntry),
    /// Renders empty: removed (if it was there); an entry with an empty id.
    Removed(FileEntry),
}

/// Checks one file out: `text` as rendered from `at` (ref, commit). A file whose `state`
/// says it holds edits ([`FileState::edited`], or also [`FileState::Missing`] when
/// `missing_is_edit`: a document deleted by hand stays deleted until a save) is kept unless
/// `force` (its edits were just saved) or it already says what `text` says; a file that
/// already does is not written again.
pub fn put(
    path: &Path,
    text: &str,
    state: FileState,
    (force, missing_is_edit): (bool, bool),
    (refname, base): (&str, Option<String>),
) -> Result<Put, ViewError> {
    let id = if text.is_empty() {
        String::new()
    } else {
        content_id(text.as_bytes())
    };
    // Taken before the file is read: if it changes after, its stat will not match.
    let stat_before = stat_of(path);
    let on_disk = id_on_disk(path);
    // A file that already says what the refs say holds no edit, whatever the manifest
    // remembers (a view that is merely behind, or ahead after a crash, is not edited).
    let current = on_disk.as_deref().unwrap_or("") == id;
    let edited = state.edited() || (missing_is_edit && state == FileState::Missing);
    if edited && !current && !force {
        return Ok(Put::Kept);
    }
    let entry = |blob: String, stat| FileEntry {
        blob,
        refname: refname.to_owned(),
        base: base.clone(),
        stat,
    };
    if text.is_empty() {
        remove_file(path)?;
        return Ok(Put::Removed(entry(String::new(), None)));
    }
    if current {
        return Ok(Put::Same(entry(id, stat_before)));
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io_err(parent))?;
    }
    let stat = write_atomic(path, text.as_bytes()).map_err(io_err(path))?;
    Ok(Put::Written(entry(id, stat)))
}

/// How long [`lock`] waits for another process.
const LOCK_PATIENCE: std::time::Duration = std::time::Duration::from_secs(10);

/// The lock of every checked-out directory, held until dropped.
#[derive(Debug)]
pub struct ViewLock {
    _file: std::fs::File,
}

/// Why a checked-out directory could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {}", path.display())]
pub struct ViewError {
    pub path: PathBuf,
    #[source]
    pub source: std::io::Error,
}

impl ViewError {
    /// What to do about it: a file or folder in the way, a folder that cannot be written (a
    /// held lock says so in its message).
    pub fn hint(&self) -> Option<String> {
        use std::io::ErrorKind as K;
        let path = self.path.display();
        match self.source.kind() {
            K::AlreadyExists | K::NotADirectory | K::IsADirectory => Some(format!(
                "something is in the way at {path} (a file where a folder goes, or a folder where a file goes): rename or move it, then try again"
            )),
            K::PermissionDenied | K::ReadOnlyFilesystem => Some(format!(
                "make {path} writable, then try again"
            )),
            _ => None,
        }
    }
}

/// Takes the lock at `path`, waiting a bounded time: a holder that hangs must not hang every
/// later command. Released when the guard drops, and by the system when its holder dies.
pub(super) fn lock(path: PathBuf) -> Result<ViewLock, ViewError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io_err(parent))?;
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(io_err(&path))?;
    let mut waited = std::time::Duration::ZERO;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(ViewLock { _file: file }),
            Err(std::fs::TryLockError::WouldBlock) if waited < LOCK_PATIENCE => {
                let step = std::time::Duration::from_millis(2 + waited.as_millis() as u64 / 10);
                std::thread::sleep(step);
                waited += step;
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(ViewError {
                    path,
                    source: std::io::Error::new(
                        std::io::ErrorKind::WouldBlock,
                        "another git-rune process has held the view's lock for 10 s; \
                         if none is running, remove this file",
                    ),
                })
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io_err(&path)(e)),
        }
    }
}

/// What every content id starts with (a git blob id, which older manifests hold, never does).
const CONTENT_ID_PREFIX: &str = "xxh3:";

/// How many appended parts a content id names before the next append hashes the whole file.
pub(super) const MAX_PARTS: usize = 64;

fn xxh3_hex(data: &[u8]) -> String {
    format!("{:032x}", xxhash_rust::xxh3::xxh3_128(data))
}

/// [`content_id`] of content whose XXH3-128 is `hash` (taken while it was written).
pub(crate) fn content_id_of_hash(hash: u128) -> String {
    format!("{CONTENT_ID_PREFIX}{hash:032x}")
}

/// The id the manifest records for a file's content: XXH3-128, which reads a 16 MB
/// `learnings.jsonl` in about a millisecond where git's SHA-1 takes tens. The manifest only
/// tells files a user or agent edited from files as rendered; nothing outside it compares
/// these ids, so a non-cryptographic hash serves (anyone who can write the manifest can
/// write the view itself).
pub fn content_id(data: &[u8]) -> String {
    format!("{CONTENT_ID_PREFIX}{}", xxh3_hex(data))
}

/// The id of a file whose content had id `id` with `tail` appended, made without reading
/// the content again: `id` plus `+<length>:<hash of the tail>` (the first hash covers what
/// the parts after it leave). `None` past [`MAX_PARTS`] parts (or for an id of another
/// form): hash the whole content instead.
pub(crate) fn appended_id(id: &str, tail: &[u8]) -> Option<String> {
    let parts = id.strip_prefix(CONTENT_ID_PREFIX)?;
    (parts.split('+').count() < MAX_PARTS)
        .then(|| format!("{id}+{}:{}", tail.len(), xxh3_hex(tail)))
}

/// Whether `data` is the content a content id names (either form).
pub(crate) fn id_names(id: &str, data: &[u8]) -> bool {
    let Some(parts) = id.strip_prefix(CONTENT_ID_PREFIX) else {
        return false;
    };
    let mut parts = parts.split('+');
    let first = parts.next().unwrap_or_default();
    let mut end = data.len();
    let mut tails = Vec::new();
    for part in parts {
        let Some((len, hash)) = part
            .split_once(':')
            .and_then(|(l, h)| Some((l.parse::<usize>().ok()?, h)))
        else {
            return false;
        };
        tails.push((len, hash));
    }
    for (len, hash) in tails.into_iter().rev() {
        let Some(start) = end.checked_sub(len) else {
            return false;
        };
        if xxh3_hex(&data[start..end]) != hash {
            return false;
        }
        end = start;
    }
    xxh3_hex(&data[..end]) == first
}

pub(super) fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> ViewError + '_ {
    move |source| ViewError {
        path: path.to_path_buf(),
        source,
    }
}

pub(crate) fn remove_file(path: &Path) -> Result<(), ViewError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io_err(path)(e)),
    }
}

/// Adds the directory `rel` (relative to the work tree) to `info/exclude` under the comment
/// `why`, unless a line already names it (nothing in a bare repository). Returns whether it
/// wrote.
pub(crate) fn exclude(store: &Store, rel: &str, why: &str) -> Result<bool> {
    if store.workdir().is_none() {
        return Ok(false);
    }
    let info = store.common_dir().join("info");
    let path = info.join("exclude");
    let existing = match std::fs::read(&path) {
        Ok(d) => d,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let text = String::from_utf8_lossy(&existing);
    let wanted = [
        format!("{rel}/"),
        format!("/{rel}/"),
        rel.to_owned(),
        format!("/{rel}"),
    ];
    if text.lines().any(|l| wanted.iter().any(|w| w == l.trim())) {
        return Ok(false);
    }
    let mut data = existing.clone();
    if !data.is_empty() && !data.ends_with(b"\n") {
        data.push(b'\n');
    }
    data.extend_from_slice(format!("# git-rune: {why}\n/{rel}/\n").as_bytes());
    std::fs::create_dir_all(&info).with_context(|| format!("cannot create {}", info.display()))?;
    std::fs::write(&path, data).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_appended_id_names_the_grown_content_and_nothing_else() {
        let mut data = b"one\n".to_vec();
        let mut id = content_id(&data);
        for i in 0..(MAX_PARTS + 3) {
            let tail = format!("line {i}\n");
            id = appended_id(&id, tail.as_bytes()).unwrap_or_else(|| {
                assert_eq!(i, MAX_PARTS - 1, "hashed whole only past the cap");
                content_id(&[data.as_slice(), tail.as_bytes()].concat())
            });
            data.extend_from_slice(tail.as_bytes());
            assert!(id_names(&id, &data), "{i}");
            assert!(!id_names(&id, &data[1..]));
            let mut other = data.clone();
            other[0] = b'O';
            assert!(!id_names(&id, &other));
            assert!(!id_names(&id, &[data.as_slice(), b"x"].concat()));
        }
        assert!(!id_names("xxh3:00+5:zz", b"ab"));
        assert!(!id_names("0123abcd", b"ab"));
    }
}
