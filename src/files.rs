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

/// Writes through a temporary file and a rename, so a reader never sees half a file.
/// Returns the stat of what it wrote (taken before the rename, so a later change shows).
pub(crate) fn write_atomic(path: &Path, data: &[u8]) -> std::io::Result<Option<(u64, i128)>> {
    let tmp = path.with_file_name(format!(
        ".{}.tmp-{}",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("rune"),
        std::process::id()
    ));
    std::fs::write(&tmp, data)?;
    let stat = stat_of(&tmp);
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })?;
    Ok(stat)
}
