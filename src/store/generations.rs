//! A persistent cache of commit generation numbers in `<common-dir>/rune/generations`, so that
//! counting drift without a commit-graph costs the commits that differ, not the whole history.
//!
//! A commit's generation (1 for a root, else one more than its highest parent) depends only on
//! its ancestry, and a commit's parents are part of its id: once computed, it never changes
//! while no replace refs rewrite parents and no shallow boundary cuts them (the cache is not
//! used then, as git does not use its commit-graph then). The walk checks every edge it follows
//! against the cached numbers and recomputes from the objects if one contradicts them.
//!
//! The file is sorted like git's commit-graph lookup table, so it is read a bucket at a time:
//!
//! ```text
//! "RUNEGEN1"                 magic and version
//! count                      u32, big-endian
//! fanout[256]                u32 each: entries whose id's first byte is <= i
//! ids[count]                 20-byte object ids, sorted
//! generations[count]         u32 each, in the order of ids
//! ```

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use gix::ObjectId;

const MAGIC: &[u8; 8] = b"RUNEGEN1";
const HEADER: u64 = 8 + 4 + 256 * 4;
const ID_LEN: usize = 20;

/// Fewer freshly computed generations than this are not worth rewriting the file for: they are
/// recomputed in well under a millisecond from their cached ancestors.
pub(super) const WRITE_THRESHOLD: usize = 256;

/// The cache file of the repository whose common directory is `common_dir`.
pub(super) fn path(common_dir: &Path) -> PathBuf {
    common_dir.join("rune").join("generations")
}

/// An open cache file whose buckets are read on first use.
pub(super) struct Cache {
    file: File,
    count: u32,
    fanout: [u32; 256],
    /// Per first byte of the id: that bucket's ids and generations, once read.
    buckets: Vec<Option<(Vec<u8>, Vec<u32>)>>,
}

impl Cache {
    /// Opens the cache at `path`; `None` when it is absent or not a cache file of this version.
    pub(super) fn open(path: &Path) -> Option<Cache> {
        let mut file = File::open(path).ok()?;
        let len = file.metadata().ok()?.len();
        let mut head = vec![0u8; HEADER as usize];
        file.read_exact(&mut head).ok()?;
        if &head[..8] != MAGIC {
            return None;
        }
        let count = u32::from_be_bytes(head[8..12].try_into().ok()?);
        let mut fanout = [0u32; 256];
        for (i, slot) in fanout.iter_mut().enumerate() {
            let at = 12 + i * 4;
            *slot = u32::from_be_bytes(head[at..at + 4].try_into().ok()?);
        }
        let sorted = fanout.windows(2).all(|w| w[0] <= w[1]);
        if !sorted || fanout[255] != count || len != HEADER + u64::from(count) * 24 {
            return None;
        }
        Some(Cache {
            file,
            count,
            fanout,
            buckets: vec![None; 256],
        })
    }

    /// The cached generation of `id`, if any. A read error counts as a miss (the walk then
    /// computes the number from the objects).
    pub(super) fn get(&mut self, id: &ObjectId) -> Option<u64> {
        let bytes = id.as_bytes();
        if bytes.len() != ID_LEN {
            return None;
        }
        let first = usize::from(bytes[0]);
        if self.buckets[first].is_none() {
            self.buckets[first] = Some(self.read_bucket(first).ok()?);
        }
        let (ids, generations) = self.buckets[first].as_ref()?;
        let n = generations.len();
        // Binary search over the fixed-width ids of the bucket.
        let (mut lo, mut hi) = (0usize, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            match ids[mid * ID_LEN..(mid + 1) * ID_LEN].cmp(bytes) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(u64::from(generations[mid])),
            }
        }
        None
    }

    fn read_bucket(&mut self, first: usize) -> std::io::Result<(Vec<u8>, Vec<u32>)> {
        let start = if first == 0 {
            0
        } else {
            self.fanout[first - 1]
        };
        let end = self.fanout[first];
        let n = (end - start) as usize;
        let mut ids = vec![0u8; n * ID_LEN];
        self.file
            .seek(SeekFrom::Start(HEADER + u64::from(start) * ID_LEN as u64))?;
        self.file.read_exact(&mut ids)?;
        let mut raw = vec![0u8; n * 4];
        self.file.seek(SeekFrom::Start(
            HEADER + u64::from(self.count) * ID_LEN as u64 + u64::from(start) * 4,
        ))?;
        self.file.read_exact(&mut raw)?;
        let generations = raw
            .chunks_exact(4)
            .map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        Ok((ids, generations))
    }

    /// Every entry, sorted by id (for merging in new ones).
    fn entries(&mut self) -> std::io::Result<Vec<(ObjectId, u32)>> {
        let mut out = Vec::with_capacity(self.count as usize);
        for first in 0..256 {
            let (ids, generations) = match self.buckets[first].take() {
                Some(bucket) => bucket,
                None => self.read_bucket(first)?,
            };
            for (i, generation) in generations.into_iter().enumerate() {
                let id = ObjectId::try_from(&ids[i * ID_LEN..(i + 1) * ID_LEN])
                    .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
                out.push((id, generation));
            }
        }
        Ok(out)
    }
}

/// Adds `fresh` to the cache at `path` (replacing it when `keep_old` is false, after the old
/// one contradicted the history), written to a temporary file and renamed into place so a
/// reader never sees half a file. Generations past `u32::MAX` are left out.
pub(super) fn store(path: &Path, fresh: &[(ObjectId, u64)], keep_old: bool) -> std::io::Result<()> {
    let mut all: Vec<(ObjectId, u32)> = match keep_old.then(|| Cache::open(path)).flatten() {
        Some(mut old) => old.entries()?,
        None => Vec::new(),
    };
    all.extend(
        fresh
            .iter()
            .filter(|(id, _)| id.as_bytes().len() == ID_LEN)
            .filter_map(|&(id, g)| u32::try_from(g).ok().map(|g| (id, g))),
    );
    all.sort_unstable_by_key(|a| a.0);
    all.dedup_by(|a, b| a.0 == b.0);
    let count = u32::try_from(all.len())
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "too many commits"))?;
    let mut data = Vec::with_capacity(HEADER as usize + all.len() * 24);
    data.extend_from_slice(MAGIC);
    data.extend_from_slice(&count.to_be_bytes());
    let mut fanout = [0u32; 256];
    for (id, _) in &all {
        fanout[usize::from(id.as_bytes()[0])] += 1;
    }
    let mut running = 0u32;
    for slot in fanout {
        running += slot;
        data.extend_from_slice(&running.to_be_bytes());
    }
    for (id, _) in &all {
        data.extend_from_slice(id.as_bytes());
    }
    for (_, generation) in &all {
        data.extend_from_slice(&generation.to_be_bytes());
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(".generations.tmp-{}", std::process::id()));
    let written = File::create(&tmp)
        .and_then(|mut f| f.write_all(&data))
        .and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(first: u8, last: u8) -> ObjectId {
        let mut bytes = [0u8; 20];
        bytes[0] = first;
        bytes[19] = last;
        ObjectId::try_from(&bytes[..]).unwrap()
    }

    #[test]
    fn stores_merges_and_finds_generations() {
        let dir = tempfile::tempdir().unwrap();
        let path = path(dir.path());
        assert!(Cache::open(&path).is_none());
        store(
            &path,
            &[(id(7, 1), 3), (id(0, 2), 1), (id(255, 0), 9)],
            true,
        )
        .unwrap();
        store(&path, &[(id(7, 0), 2), (id(7, 1), 3)], true).unwrap();
        let mut cache = Cache::open(&path).unwrap();
        assert_eq!(cache.count, 4);
        assert_eq!(cache.get(&id(7, 0)), Some(2));
        assert_eq!(cache.get(&id(7, 1)), Some(3));
        assert_eq!(cache.get(&id(0, 2)), Some(1));
        assert_eq!(cache.get(&id(255, 0)), Some(9));
        assert_eq!(cache.get(&id(7, 2)), None);
        assert_eq!(cache.get(&id(8, 0)), None);
        // Replacing drops what was there.
        store(&path, &[(id(1, 1), 5)], false).unwrap();
        let mut cache = Cache::open(&path).unwrap();
        assert_eq!(cache.get(&id(7, 0)), None);
        assert_eq!(cache.get(&id(1, 1)), Some(5));
    }

    #[test]
    fn a_damaged_file_is_no_cache() {
        let dir = tempfile::tempdir().unwrap();
        let path = path(dir.path());
        store(&path, &[(id(1, 1), 5)], true).unwrap();
        let mut data = std::fs::read(&path).unwrap();
        data.pop();
        std::fs::write(&path, &data).unwrap();
        assert!(Cache::open(&path).is_none());
        std::fs::write(&path, b"something else entirely").unwrap();
        assert!(Cache::open(&path).is_none());
    }
}
