//! Small file-system steps shared across layers: atomic writes, the files an export writes,
//! and the stat that tells a file unchanged without reading it.

use std::path::Path;

/// Writes `files` (paths relative to `dir`, and their text) under `dir`, making the folders
/// they need; refuses, writing nothing, when one of them exists and `force` is off. `export`
/// names the command in hints (`git rune export <export> DIR`).
pub(crate) fn write_export(
    dir: &Path,
    files: &[(String, String)],
    force: bool,
    export: &str,
) -> anyhow::Result<()> {
    use crate::error;
    let shown = dir.display();
    let taken: Vec<&str> = (files.iter())
        .filter(|(name, _)| !force && dir.join(name).exists())
        .map(|(name, _)| name.as_str())
        .collect();
    if !taken.is_empty() {
        return Err(error::input(
            format!("{shown} already holds {}", taken.join(", ")),
            error::pass(
                "force",
                "",
                " to overwrite them, or name an empty folder; nothing was written",
            ),
        ));
    }
    let failed = |what: String| {
        move |e: std::io::Error| {
            error::environment(
                format!("cannot write {what}: {}", error::io_text(&e)),
                format!("name a folder you can write: `git rune export {export} DIR`"),
            )
        }
    };
    std::fs::create_dir_all(dir).map_err(failed(shown.to_string()))?;
    for (name, text) in files {
        let path = dir.join(name);
        (path.parent().map_or(Ok(()), std::fs::create_dir_all))
            .and_then(|()| write_atomic(&path, text.as_bytes()).map(drop))
            .map_err(failed(format!("{shown}/{name}")))?;
    }
    Ok(())
}

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

/// How long ago `entry` was last modified (`None` when the clock or the file cannot say).
pub(crate) fn age(entry: &std::fs::DirEntry) -> Option<std::time::Duration> {
    let modified = entry.metadata().and_then(|m| m.modified()).ok()?;
    modified.elapsed().ok()
}

/// Removes the files in `dir` modified longer than `max` ago; returns how many.
pub(crate) fn remove_older(dir: &Path, max: std::time::Duration) -> usize {
    let entries = std::fs::read_dir(dir).into_iter().flatten().flatten();
    let old = entries.filter(|e| age(e).is_some_and(|a| a > max));
    old.filter(|e| std::fs::remove_file(e.path()).is_ok())
        .count()
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

/// Appends `line` and a newline to the file at `path`, its folder made first. Best effort: a
/// hook must not fail on it.
pub(crate) fn append_line(path: &Path, line: &str) {
    use std::io::Write;
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = writeln!(f, "{line}");
    }
}

/// Writes `data` as the whole file at `path` ([`write_atomic`]), its folder made first. Best
/// effort, as [`append_line`]: what calls it must not fail on it.
pub(crate) fn put_quietly(path: &Path, data: &[u8]) {
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = write_atomic(path, data);
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

/// What a rewrite wrote: the file's stat (as [`stat_of`] gives it) and its XXH3-128.
pub(crate) type Rewritten = (Option<(u64, i128)>, u128);

/// One change [`rewrite_atomic`] makes: at byte `at` of the old content, `insert` is written,
/// then `skip` old bytes are left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edit {
    pub at: u64,
    pub insert: Vec<u8>,
    pub skip: u64,
}

/// Replaces the file at `path` with its first `end` bytes changed by `edits` (sorted by
/// `at`, none inside another's skipped bytes), through a temporary file and a rename as
/// [`write_atomic`]. The old content streams through a small buffer, never held whole; the
/// new content's XXH3-128 is taken on the way. Returns the stat of what it wrote and that
/// hash. An edit out of order or past `end` is an error and changes nothing.
pub(crate) fn rewrite_atomic(path: &Path, end: u64, edits: &[Edit]) -> std::io::Result<Rewritten> {
    use std::io::{BufReader, Read, Write};
    let tmp = temp_path(path);
    let result = (|| {
        let old = std::fs::File::open(path)?;
        let mut old = BufReader::with_capacity(1 << 16, old.take(end));
        let mut out = Hashing::create(&tmp)?;
        let short = || {
            std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the file is shorter than the text to keep",
            )
        };
        let mut pos = 0u64;
        for edit in edits {
            let Some(gap) = edit.at.checked_sub(pos) else {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "edits out of order",
                ));
            };
            if std::io::copy(&mut (&mut old).take(gap), &mut out)? != gap {
                return Err(short());
            }
            out.write_all(&edit.insert)?;
            if std::io::copy(&mut (&mut old).take(edit.skip), &mut std::io::sink())? != edit.skip {
                return Err(short());
            }
            pos = edit.at + edit.skip;
        }
        let rest = end.checked_sub(pos).ok_or_else(short)?;
        if std::io::copy(&mut old, &mut out)? != rest {
            return Err(short());
        }
        let hash = out.finish()?;
        let stat = stat_of(&tmp);
        std::fs::rename(&tmp, path)?;
        Ok((stat, hash))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Writes through, hashing what passes (XXH3-128).
struct Hashing<W> {
    inner: W,
    hash: xxhash_rust::xxh3::Xxh3,
}

impl<W: std::io::Write> std::io::Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl Hashing<std::io::BufWriter<std::fs::File>> {
    fn create(path: &Path) -> std::io::Result<Self> {
        Ok(Hashing {
            inner: std::io::BufWriter::with_capacity(1 << 16, std::fs::File::create(path)?),
            hash: xxhash_rust::xxh3::Xxh3::new(),
        })
    }

    /// Flushes and closes the file; the hash of everything written.
    fn finish(self) -> std::io::Result<u128> {
        let hash = self.hash.digest128();
        self.inner.into_inner().map_err(|e| e.into_error())?;
        Ok(hash)
    }
}

/// Replaces the file at `path` with its first `keep` bytes (all of them when `None`) less
/// the lines that hold one of
/// `needles` (each must be in exactly one line), then `tail`, through a temporary file and a
/// rename as [`write_atomic`]. One pass: the old content streams through a buffer and each
/// needle is searched for in whole runs of lines, not line by line. Returns the stat of what
/// it wrote and its XXH3-128, or `None` (the file unchanged) when a needle is in no line or
/// in more than one.
pub(crate) fn rewrite_without_lines(
    path: &Path,
    keep: Option<u64>,
    needles: &[Vec<u8>],
    tail: &[u8],
) -> std::io::Result<Option<Rewritten>> {
    use std::io::{Read, Write};
    let finders: Vec<memchr::memmem::Finder<'_>> =
        needles.iter().map(memchr::memmem::Finder::new).collect();
    let tmp = temp_path(path);
    let result = (|| {
        let mut old = std::fs::File::open(path)?.take(keep.unwrap_or(u64::MAX));
        let mut out = Hashing::create(&tmp)?;
        let mut found = vec![0usize; needles.len()];
        let mut buf = vec![0u8; 1 << 18];
        let (mut filled, mut read) = (0usize, 0u64);
        let mut drop: Vec<(usize, usize)> = Vec::new();
        loop {
            if filled == buf.len() {
                buf.resize(buf.len() * 2, 0);
            }
            let n = old.read(&mut buf[filled..])?;
            filled += n;
            read += n as u64;
            // The whole lines read (all that is left at the end).
            let lines = match n {
                0 => filled,
                _ => memchr::memrchr(b'\n', &buf[..filled]).map_or(0, |i| i + 1),
            };
            let text = &buf[..lines];
            drop.clear();
            for (finder, count) in finders.iter().zip(&mut found) {
                for at in finder.find_iter(text) {
                    *count += 1;
                    let start = memchr::memrchr(b'\n', &text[..at]).map_or(0, |i| i + 1);
                    let stop = memchr::memchr(b'\n', &text[at..]).map_or(lines, |i| at + i + 1);
                    drop.push((start, stop));
                }
            }
            if found.iter().any(|&c| c > 1) {
                return Ok(None);
            }
            drop.sort_unstable();
            let mut pos = 0;
            for &(start, stop) in &drop {
                out.write_all(&text[pos..start.max(pos)])?;
                pos = pos.max(stop);
            }
            out.write_all(&text[pos..])?;
            if n == 0 {
                break;
            }
            buf.copy_within(lines..filled, 0);
            filled -= lines;
        }
        if keep.is_some_and(|k| k != read) || found.iter().any(|&c| c != 1) {
            return Ok(None);
        }
        out.write_all(tail)?;
        let hash = out.finish()?;
        let stat = stat_of(&tmp);
        std::fs::rename(&tmp, path)?;
        Ok(Some((stat, hash)))
    })();
    if !matches!(result, Ok(Some(_))) {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrite_without_lines_drops_each_needles_one_line_and_appends() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let lines: Vec<String> = (0..40_000).map(|i| format!("line {i} #{i}#\n")).collect();
        let text = lines.concat();
        std::fs::write(&path, &text).unwrap();
        let needles = vec![b"#7#".to_vec(), b"#39999#".to_vec(), b"#0#".to_vec()];
        let (_, hash) = rewrite_without_lines(&path, None, &needles, b"new\n")
            .unwrap()
            .unwrap();
        let expect: String = lines
            .iter()
            .enumerate()
            .filter(|(i, _)| ![0, 7, 39_999].contains(i))
            .map(|(_, l)| l.as_str())
            .chain(["new\n"])
            .collect();
        let data = std::fs::read(&path).unwrap();
        assert_eq!(String::from_utf8_lossy(&data), expect);
        assert_eq!(hash, xxhash_rust::xxh3::xxh3_128(&data));
        // Only the first `end` bytes are read; a needle past them is not found.
        let first = lines[1].len() as u64;
        rewrite_without_lines(&path, Some(first), &[], b"x\n")
            .unwrap()
            .unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"line 1 #1#\nx\n");
        // A needle in no line, or in two: nothing changes.
        assert!(
            rewrite_without_lines(&path, Some(13), &[b"#9#".to_vec()], b"")
                .unwrap()
                .is_none()
        );
        assert!(rewrite_without_lines(&path, None, &[b"#".to_vec()], b"")
            .unwrap()
            .is_none());
        assert_eq!(std::fs::read(&path).unwrap(), b"line 1 #1#\nx\n");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file is left");
    }

    #[test]
    fn rewrite_atomic_inserts_and_leaves_out_and_hashes_what_it_wrote() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"one\ntwo\nthree\nfour\n").unwrap();
        let edit = |at: u64, insert: &[u8], skip: u64| Edit {
            at,
            insert: insert.to_vec(),
            skip,
        };
        let edits = [
            edit(0, b"zero\n", 0),
            edit(4, b"", 4),
            edit(14, b"3.5\n", 0),
        ];
        let (_, hash) = rewrite_atomic(&path, 19, &edits).unwrap();
        let data = std::fs::read(&path).unwrap();
        assert_eq!(data, b"zero\none\nthree\n3.5\nfour\n");
        assert_eq!(hash, xxhash_rust::xxh3::xxh3_128(&data));
        // Only the first `end` bytes are kept.
        rewrite_atomic(&path, 9, &[edit(9, b"end\n", 0)]).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"zero\none\nend\n");
        // Out of order, or past the end: an error, and the file as it was.
        assert!(rewrite_atomic(&path, 13, &[edit(8, b"", 0), edit(4, b"", 0)]).is_err());
        assert!(rewrite_atomic(&path, 13, &[edit(10, b"", 9)]).is_err());
        assert!(rewrite_atomic(&path, 99, &[]).is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"zero\none\nend\n");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file is left");
    }

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
