//! The one form every local cache takes (memory's, in `memory/cache/`, and the store's chain
//! of memory commits): a folder `<dir>/rune/cache/<name>/` holding one file per key, each a
//! header (the cache's name, its version, the fingerprint of the data its values derive from
//! where they derive from more than the code, the key) and the value, both postcard through
//! serde.
//! A file is written whole through a rename, so a reader never sees half of one; a write keeps
//! the newest files and clears temporary files a killed writer left. A file that is missing,
//! cut short, damaged, of another version or for another key reads as nothing: a cache only
//! saves work, and its caller makes the value again. Local, never committed; removing
//! `<dir>/rune/cache/` is always safe.

use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::files::write_atomic;

/// A temporary file older than this is a killed writer's (a live one renames it in well
/// under a second).
const STALE: Duration = Duration::from_secs(600);

/// One cache: its name (the folder), the version of what its files hold (bumped whenever
/// that changes: older files then read as nothing), and how many files it keeps.
pub struct Cache<T> {
    name: &'static str,
    version: u32,
    /// The fingerprint of what the values are made from besides the code (the gate's: the
    /// integrity rules' data files and their version); a file written under another reads
    /// as nothing, as one of another version does.
    data: Option<fn() -> u64>,
    keep: usize,
    /// Where the layout before this one kept the cache (relative to `<dir>/rune/`), removed
    /// when the folder is made.
    legacy: Option<&'static str>,
    value: PhantomData<fn() -> T>,
}

impl<T: DeserializeOwned> Cache<T> {
    pub const fn new(
        name: &'static str,
        version: u32,
        keep: usize,
        legacy: Option<&'static str>,
    ) -> Cache<T> {
        Cache {
            name,
            version,
            data: None,
            keep,
            legacy,
            value: PhantomData,
        }
    }

    /// This cache, its files valid only under the fingerprint `data` gives (written into
    /// each header beside the version).
    pub const fn valid_for(self, data: fn() -> u64) -> Cache<T> {
        Cache {
            data: Some(data),
            ..self
        }
    }

    /// The header's fingerprint: 0 for a cache made from the code alone.
    fn data(&self) -> u64 {
        self.data.map_or(0, |f| f())
    }

    /// The folder of this cache under `dir` (a git directory: the common one for caches every
    /// worktree shares, a worktree's own for its own).
    fn dir(&self, dir: &Path) -> PathBuf {
        dir.join("rune").join("cache").join(self.name)
    }

    /// The value stored for `key`, if one reads back whole.
    pub fn get(&self, dir: &Path, key: &str) -> Option<T> {
        self.decode(&std::fs::read(self.dir(dir).join(key)).ok()?, Some(key))
    }

    /// Whether a file for `key` is there (without reading it).
    pub fn has(&self, dir: &Path, key: &str) -> bool {
        self.dir(dir).join(key).exists()
    }

    /// The most recently stored value of any key, if it reads back whole.
    pub fn newest(&self, dir: &Path) -> Option<T> {
        let (_, path) = files(&self.dir(dir)).into_iter().max()?;
        self.decode(&std::fs::read(path).ok()?, None)
    }

    /// Stores `value` (a `T`, or a borrowed form that serializes as one) for `key`, then
    /// removes all but the newest files. A cache that cannot be written only costs the next
    /// reader the work: false then.
    pub fn put(&self, dir: &Path, key: &str, value: &(impl Serialize + ?Sized)) -> bool {
        let Some(data) = postcard::to_stdvec(&(self.name, self.version, self.data(), key))
            .ok()
            .and_then(|mut data| {
                data.extend(postcard::to_stdvec(value).ok()?);
                Some(data)
            })
        else {
            return false;
        };
        let folder = self.dir(dir);
        let path = folder.join(key);
        let written = match write_atomic(&path, &data) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                // The first write: make the folder, and drop the layout before it.
                if let Some(old) = self.legacy.map(|l| dir.join("rune").join(l)) {
                    let _ = std::fs::remove_dir_all(&old).or_else(|_| std::fs::remove_file(&old));
                }
                std::fs::create_dir_all(&folder).and_then(|()| write_atomic(&path, &data))
            }
            other => other,
        };
        if written.is_ok() {
            prune(&folder, self.keep);
        }
        written.is_ok()
    }

    /// Forgets the value of `key`.
    pub fn remove(&self, dir: &Path, key: &str) {
        let _ = std::fs::remove_file(self.dir(dir).join(key));
    }

    /// The value in `bytes`, if they are whole, of this cache, version and data fingerprint,
    /// and for `key` (any, `None`).
    fn decode(&self, bytes: &[u8], key: Option<&str>) -> Option<T> {
        let ((name, version, data, stored), rest): ((&str, u32, u64, &str), _) =
            postcard::take_from_bytes(bytes).ok()?;
        if name != self.name
            || version != self.version
            || data != self.data()
            || key.is_some_and(|k| k != stored)
        {
            return None;
        }
        let (value, rest) = postcard::take_from_bytes(rest).ok()?;
        rest.is_empty().then_some(value)
    }
}

/// The files of a cache folder with their modification times; temporary files (a leading
/// `.`) are left out, and removed when a killed writer left them.
fn files(dir: &Path) -> Vec<(SystemTime, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let now = SystemTime::now();
    let mut out = Vec::new();
    for e in entries.flatten() {
        let Some(modified) = e.metadata().ok().and_then(|m| m.modified().ok()) else {
            continue;
        };
        if !e.file_name().to_string_lossy().starts_with('.') {
            out.push((modified, e.path()));
        } else if now.duration_since(modified).is_ok_and(|age| age > STALE) {
            let _ = std::fs::remove_file(e.path());
        }
    }
    out
}

/// Removes all but the `keep` newest files of a cache folder (and temporary files a killed
/// writer left).
fn prune(dir: &Path, keep: usize) {
    let mut files = files(dir);
    if files.len() > keep {
        files.sort_by_key(|f| std::cmp::Reverse(f.0));
        for (_, path) in files.into_iter().skip(keep) {
            let _ = std::fs::remove_file(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEST: Cache<Vec<String>> = Cache::new("test", 1, 2, Some("old"));

    #[test]
    fn values_read_back_and_anything_else_reads_as_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let at = dir.path();
        let value = vec!["a".to_owned(), "b".to_owned()];
        assert!(!TEST.has(at, "k1"));
        assert_eq!(TEST.get(at, "k1"), None);
        // The layout before this one is removed with the first write.
        std::fs::create_dir_all(at.join("rune").join("old")).unwrap();
        assert!(TEST.put(at, "k1", &value));
        assert!(!at.join("rune").join("old").exists());
        assert!(TEST.has(at, "k1"));
        assert_eq!(TEST.get(at, "k1"), Some(value.clone()));
        // A borrowed form that serializes the same.
        assert!(TEST.put(at, "k2", &["c"][..]));
        assert_eq!(TEST.get(at, "k2"), Some(vec!["c".to_owned()]));
        // Another key, version or cache, a file cut short or longer: nothing.
        let path = TEST.dir(at).join("k1");
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(TEST.dir(at).join("k3"), &bytes).unwrap();
        assert_eq!(TEST.get(at, "k3"), None);
        let newer: Cache<Vec<String>> = Cache::new("test", 2, 2, None);
        assert_eq!(newer.get(at, "k1"), None);
        let other: Cache<Vec<String>> = Cache::new("other", 1, 2, None);
        assert_eq!(other.decode(&bytes, None), None);
        // Made from other data (a fingerprint in the header that differs): nothing.
        let fingerprinted = Cache::<Vec<String>>::new("test", 1, 2, None).valid_for(|| 7);
        assert_eq!(fingerprinted.decode(&bytes, None), None);
        assert!(fingerprinted.put(at, "k4", &["e"][..]));
        assert_eq!(fingerprinted.get(at, "k4"), Some(vec!["e".to_owned()]));
        assert_eq!(TEST.get(at, "k4"), None);
        let refingerprinted = Cache::<Vec<String>>::new("test", 1, 2, None).valid_for(|| 8);
        assert_eq!(refingerprinted.get(at, "k4"), None);
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        assert_eq!(TEST.get(at, "k1"), None);
        std::fs::write(&path, [&bytes[..], &[0]].concat()).unwrap();
        assert_eq!(TEST.get(at, "k1"), None);
        std::fs::write(&path, b"{\"version\":1}").unwrap();
        assert_eq!(TEST.get(at, "k1"), None);
        TEST.remove(at, "k1");
        assert!(!TEST.has(at, "k1"));
    }

    #[test]
    fn a_write_keeps_the_newest_and_clears_killed_writers_files() {
        let dir = tempfile::tempdir().unwrap();
        let at = dir.path();
        let folder = TEST.dir(at);
        let aged = |path: &Path, secs: u64| {
            let f = std::fs::File::options().write(true).open(path).unwrap();
            f.set_modified(SystemTime::now() - Duration::from_secs(secs))
                .unwrap();
        };
        for (i, key) in ["a", "b", "c"].into_iter().enumerate() {
            assert!(TEST.put(at, key, &[key][..]));
            aged(&folder.join(key), 100 - i as u64 * 10);
        }
        std::fs::write(folder.join(".x.tmp-1"), b"").unwrap();
        aged(&folder.join(".x.tmp-1"), 3600);
        std::fs::write(folder.join(".y.tmp-2"), b"").unwrap();
        assert!(TEST.put(at, "d", &["d"][..]));
        let mut names: Vec<String> = std::fs::read_dir(&folder)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        // The newest two; a live writer's temporary file stays.
        assert_eq!(names, [".y.tmp-2", "c", "d"]);
        assert_eq!(TEST.newest(at), Some(vec!["d".to_owned()]));
    }
}
