//! What a git-rune process that died may have left behind, and how the next one clears it.
//!
//! A process that writes registers an *owner file*, `<common-dir>/rune/owners/<pid>-<nonce>`,
//! and holds an exclusive advisory lock (flock) on it until it exits: the kernel drops that
//! lock when the process dies, however it dies (`kill -9` included), so an owner file nobody
//! holds belongs to a dead process. Before it creates a ref lock the process appends
//! `lock <path>` to its file, and `unlock <path>` once the ref transaction is over; before it
//! writes a temporary object into a fanout directory it appends `objects <dir>` (once per
//! directory), and names its temporary objects `tmp_obj_<owner>_<n>`; before it makes a
//! directory of its own (where a pack is written before it moves into `objects/pack/`) it
//! appends `dir <path>`, the path ending in `.rune-<owner>`.
//!
//! The next process to register reads every owner file: a dead owner's temporary objects and
//! directories are removed, and so is each lock it held when it died, unless a live owner holds the same lock
//! now or the lock file is newer than the dead owner's last word (then someone else, git
//! itself perhaps, created it since). Then the dead owner's file goes. A write that finds its
//! ref locked runs the same recovery before waiting (the owner may have died since).

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// A lock the dead owner held counts as its own only if it is no newer than its owner
/// file's last change plus this (the owner lists a lock right before creating it).
const CREATED_WITHIN: Duration = Duration::from_secs(2);

/// This process's owner file, held locked while the process lives.
pub(crate) struct Owner {
    file: File,
    path: PathBuf,
    /// `<pid>-<nonce>`: the owner file's name and the middle of its temporary objects' names.
    id: String,
    /// Fanout directories already listed.
    listed: HashSet<PathBuf>,
}

impl Owner {
    /// Registers this process in `<common>/rune/owners`, clearing what dead owners left first.
    /// Returns the owner and the files it removed.
    pub(crate) fn register(common: &Path) -> std::io::Result<(Owner, Vec<PathBuf>)> {
        let dir = owners_dir(common);
        std::fs::create_dir_all(&dir)?;
        let removed = recover(common, None);
        let nonce = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        // (Stores this process opens at once, on threads, register one each: the sequence
        // keeps their names apart where the clock's nanoseconds may not.)
        static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let seq = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let id = format!("{}-{nonce:08x}-{seq}", std::process::id());
        let path = dir.join(&id);
        // Created under a name recovery skips, locked, then renamed into view: no other
        // process ever sees it unlocked and takes it for a dead owner's.
        let hidden = dir.join(format!(".{id}"));
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&hidden)?;
        file.try_lock().map_err(std::io::Error::other)?;
        std::fs::rename(&hidden, &path)?;
        Ok((
            Owner {
                file,
                path,
                id,
                listed: HashSet::new(),
            },
            removed,
        ))
    }

    /// The owner file.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The id temporary objects carry: `tmp_obj_<id>_<n>`.
    pub(crate) fn id(&self) -> &str {
        &self.id
    }

    /// Says that this process is about to take (`true`) or has released (`false`) the lock
    /// file `lock`.
    pub(crate) fn lock(&mut self, lock: &Path, taken: bool) -> std::io::Result<()> {
        let verb = if taken { "lock" } else { "unlock" };
        self.say(&format!("{verb} {}\n", lock.display()))
    }

    /// Says that temporary objects may appear in `dir` (once per directory).
    pub(crate) fn objects(&mut self, dir: &Path) -> std::io::Result<()> {
        if self.listed.insert(dir.to_owned()) {
            self.say(&format!("objects {}\n", dir.display()))?;
        }
        Ok(())
    }

    /// A directory of this process's own under `parent` (`.rune-<id>`), listed before it is
    /// made: what a dead owner left in it is removed with it.
    pub(crate) fn scratch_dir(&mut self, parent: &Path) -> std::io::Result<PathBuf> {
        let dir = parent.join(format!(".rune-{}", self.id));
        if self.listed.insert(dir.clone()) {
            self.say(&format!("dir {}\n", dir.display()))?;
        }
        std::fs::create_dir_all(&dir)?;
        Ok(dir)
    }

    fn say(&mut self, line: &str) -> std::io::Result<()> {
        self.file.write_all(line.as_bytes())
    }
}

impl Drop for Owner {
    fn drop(&mut self) {
        // Removed while still locked: nobody mistakes it for a dead owner's.
        let _ = std::fs::remove_file(&self.path);
    }
}

fn owners_dir(common: &Path) -> PathBuf {
    common.join("rune").join("owners")
}

/// What one owner file says: the locks its owner holds (taken and not released) and the
/// directories its temporary objects may be in.
#[derive(Default)]
struct Said {
    locks: HashSet<PathBuf>,
    objects: Vec<PathBuf>,
    /// Directories wholly the owner's ([`Owner::scratch_dir`]).
    dirs: Vec<PathBuf>,
}

fn read_said(file: &File) -> Said {
    let mut said = Said::default();
    for line in BufReader::new(file).lines().map_while(Result::ok) {
        match line.split_once(' ') {
            Some(("lock", p)) => {
                said.locks.insert(PathBuf::from(p));
            }
            Some(("unlock", p)) => {
                said.locks.remove(Path::new(p));
            }
            Some(("objects", p)) => said.objects.push(PathBuf::from(p)),
            Some(("dir", p)) => said.dirs.push(PathBuf::from(p)),
            _ => {}
        }
    }
    said
}

/// Clears what dead owners left: their temporary objects, the locks they held (see the
/// module docs for when a lock is left alone) and their owner files. `me` is this process's
/// own owner file, never touched. Returns the files removed. Best effort: what cannot be
/// read or removed is left for a later run.
pub(crate) fn recover(common: &Path, me: Option<&Path>) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(owners_dir(common)) else {
        return Vec::new();
    };
    let mut dead = Vec::new();
    let mut live_locks: HashSet<PathBuf> = HashSet::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if Some(path.as_path()) == me {
            continue;
        }
        if entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.starts_with('.'))
        {
            // A registration cut short before its rename (it lists nothing yet): its owner
            // locks it within microseconds of creating it, so one still unlocked a second
            // later belongs to a dead process.
            let old = crate::files::age(&entry).is_some_and(|a| a >= Duration::from_secs(1));
            if old && File::open(&path).is_ok_and(|f| f.try_lock().is_ok()) {
                let _ = std::fs::remove_file(&path);
            }
            continue;
        }
        let Ok(file) = OpenOptions::new().read(true).write(true).open(&path) else {
            continue;
        };
        match file.try_lock() {
            Ok(()) => {
                let said = read_said(&file);
                let when = file.metadata().and_then(|m| m.modified()).ok();
                // Keep the file (and its lock) until its leftovers are gone.
                dead.push((path, file, said, when));
            }
            Err(std::fs::TryLockError::WouldBlock) => live_locks.extend(read_said(&file).locks),
            Err(std::fs::TryLockError::Error(_)) => {}
        }
    }
    let mut removed = Vec::new();
    for (path, file, said, when) in dead {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_owned();
        let prefix = format!("tmp_obj_{name}_");
        for dir in &said.objects {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            for e in entries.flatten() {
                if e.file_name()
                    .to_str()
                    .is_some_and(|n| n.starts_with(&prefix))
                    && std::fs::remove_file(e.path()).is_ok()
                {
                    removed.push(e.path());
                }
            }
        }
        // Only a directory named after this owner is ever its own.
        let own = format!(".rune-{name}");
        for dir in said
            .dirs
            .iter()
            .filter(|d| d.file_name().and_then(|n| n.to_str()) == Some(own.as_str()))
        {
            if std::fs::remove_dir_all(dir).is_ok() {
                removed.push(dir.clone());
            }
        }
        for lock in &said.locks {
            if live_locks.contains(lock) {
                continue;
            }
            let created = std::fs::metadata(lock).and_then(|m| m.modified()).ok();
            let theirs = match (created, when) {
                (Some(created), Some(when)) => created <= when + CREATED_WITHIN,
                _ => false,
            };
            if theirs && std::fs::remove_file(lock).is_ok() {
                removed.push(lock.clone());
            }
        }
        let _ = std::fs::remove_file(&path);
        drop(file);
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stores a process opens at once on several threads register one owner each (they once
    /// collided when the clock gave two of them the same nanoseconds).
    #[test]
    fn owners_registered_at_once_in_one_process_all_get_a_name() {
        let common = tempfile::tempdir().unwrap();
        let owners: Vec<Owner> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..16)
                .map(|_| s.spawn(|| Owner::register(common.path()).unwrap().0))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let ids: HashSet<&str> = owners.iter().map(|o| o.id()).collect();
        assert_eq!(ids.len(), owners.len());
    }

    /// A dead owner's directories go with it (only one named after it), and a live owner's
    /// stay.
    #[test]
    fn a_dead_owners_scratch_directory_is_removed_and_nothing_else() {
        let common = tempfile::tempdir().unwrap();
        let pack = common.path().join("objects/pack");
        std::fs::create_dir_all(owners_dir(common.path())).unwrap();
        // A dead owner: its file is there, nobody holds its lock.
        let theirs = pack.join(".rune-99-dead");
        let not_theirs = pack.join(".rune-98-other");
        for dir in [&theirs, &not_theirs] {
            std::fs::create_dir_all(dir).unwrap();
            std::fs::write(dir.join(".tmpA1b2C3"), b"half a pack").unwrap();
        }
        std::fs::write(
            owners_dir(common.path()).join("99-dead"),
            format!("dir {}\ndir {}\n", theirs.display(), not_theirs.display()),
        )
        .unwrap();
        // A live owner with a directory of its own.
        let (mut live, _) = Owner::register(common.path()).unwrap();
        let mine = live.scratch_dir(&pack).unwrap();
        std::fs::write(mine.join("x"), b"in progress").unwrap();
        assert!(!theirs.exists(), "the dead owner's directory went");
        assert!(
            not_theirs.exists(),
            "a directory named after another owner stays"
        );
        assert!(!owners_dir(common.path()).join("99-dead").exists());
        let removed = recover(common.path(), None);
        assert!(removed.is_empty(), "{removed:?}");
        assert!(mine.join("x").exists(), "a live owner's directory stays");
    }
}
