//! Small file-system steps shared across layers: atomic writes and the stat that tells a
//! file unchanged without reading it.

use std::path::Path;

/// A file's size and modification time in nanoseconds; `None` when it cannot be read, or
/// when its clock has whole seconds only (a change in the same second would not show).
pub(crate) fn stat_of(path: &Path) -> Option<(u64, i128)> {
    let meta = std::fs::metadata(path).ok()?;
    let mtime = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    if mtime.subsec_nanos() == 0 {
        return None;
    }
    Some((meta.len(), mtime.as_nanos() as i128))
}

/// The temporary file a write of `path` goes through: `.<name>.tmp-<pid>` beside it (the
/// view's lock holder removes ones a killed process left).
fn temp_path(path: &Path) -> std::path::PathBuf {
    path.with_file_name(format!(
        ".{}.tmp-{}",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("rune"),
        std::process::id()
    ))
}

/// Writes through a temporary file and a rename, so a reader never sees half a file.
/// Returns the stat of what it wrote (taken before the rename, so a later change shows).
pub(crate) fn write_atomic(path: &Path, data: &[u8]) -> std::io::Result<Option<(u64, i128)>> {
    let tmp = temp_path(path);
    std::fs::write(&tmp, data)?;
    let stat = stat_of(&tmp);
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })?;
    Ok(stat)
}

/// Replaces the file at `path` with its first `keep` bytes (all of them when `None`) and then
/// `tail`, through a temporary file and a rename as [`write_atomic`]. The kept bytes are
/// copied by the kernel (`copy_file_range` where the system has it), never read into memory:
/// appending a line to a 16 MB file costs the copy, not a read and a write. Returns the stat of
/// what it wrote.
pub(crate) fn append_atomic(
    path: &Path,
    keep: Option<u64>,
    tail: &[u8],
) -> std::io::Result<Option<(u64, i128)>> {
    use std::io::{Read, Write};
    let tmp = temp_path(path);
    let result = (|| {
        let mut out = std::fs::File::create(&tmp)?;
        let old = std::fs::File::open(path)?;
        let copied = match keep {
            Some(n) => std::io::copy(&mut old.take(n), &mut out)?,
            None => std::io::copy(&mut &old, &mut out)?,
        };
        if keep.is_some_and(|n| n != copied) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the file is shorter than the text to keep",
            ));
        }
        out.write_all(tail)?;
        drop(out);
        let stat = stat_of(&tmp);
        std::fs::rename(&tmp, path)?;
        Ok(stat)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn append_atomic_keeps_a_prefix_and_adds_the_tail() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"one\ntwo\n").unwrap();
        append_atomic(&path, None, b"three\n").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"one\ntwo\nthree\n");
        append_atomic(&path, Some(4), b"four\n").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"one\nfour\n");
        assert!(append_atomic(&path, Some(100), b"x").is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"one\nfour\n");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file is left");
    }
}
