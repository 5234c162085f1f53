//! Artifact folding: a tool output too large for the context (over 4,000 characters or 120
//! lines) is saved to `.rune/artifacts/artifact-<timestamp>-<tool>.md` in the seed's format
//! and replaced by a short preview naming the file. Artifacts are local (the view is excluded
//! from git) and pruned after `rune.artifacts.maxAgeDays` days (7 by default).

use std::path::{Path, PathBuf};

/// Output larger than either of these is folded.
pub const MAX_CHARS: usize = 4000;
pub const MAX_LINES: usize = 120;
/// Lines the preview shows.
pub const PREVIEW_LINES: usize = 10;
/// Characters the preview shows at most, whatever its lines hold (minified JSON, a lockfile
/// or a bundle is one line): a fifth of what is folded.
pub const PREVIEW_CHARS: usize = MAX_CHARS / 5;
/// Days an artifact is kept by default.
pub const MAX_AGE_DAYS: u64 = 7;

/// Where artifacts are kept.
pub fn dir(view_dir: &Path) -> PathBuf {
    view_dir.join("artifacts")
}

/// Whether `output` is large enough to fold.
pub fn too_large(output: &str) -> bool {
    output.chars().count() > MAX_CHARS || output.lines().count() > MAX_LINES
}

/// A tool name as it may appear in a file name.
fn file_safe(tool: &str) -> String {
    let keep = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    let s: String = tool
        .chars()
        .map(|c| if keep(c) { c } else { '-' })
        .collect();
    if s.is_empty() {
        "output".into()
    } else {
        s
    }
}

/// Saves `output` as an artifact and returns its path and the preview that replaces it.
/// `stamp` is the time as `YYYYMMDDTHHMMSSZ`, `generated` as RFC 3339, `command` the summary of
/// what produced it; `rel_dir` is how the preview names the directory (`.rune/artifacts`).
pub fn fold(
    view_dir: &Path,
    rel_dir: &str,
    tool: &str,
    command: &str,
    output: &str,
    stamp: &str,
    generated: &str,
) -> std::io::Result<(PathBuf, String)> {
    let dir = dir(view_dir);
    std::fs::create_dir_all(&dir)?;
    let base = format!("artifact-{stamp}-{}", file_safe(tool));
    // Two folds in one second get distinct names.
    let mut name = format!("{base}.md");
    let mut n = 1;
    while dir.join(&name).exists() {
        n += 1;
        name = format!("{base}-{n}.md");
    }
    let path = dir.join(&name);
    let text = format!(
        "# Artifact: {tool} output\nGenerated: {generated}\nCommand: {command}\n\n{output}"
    );
    std::fs::write(&path, text)?;
    let lines: Vec<&str> = output.lines().collect();
    let mut preview = format!(
        "[FOLDED: {tool} output — {} lines, {} chars]\nPreview (first {PREVIEW_LINES} lines):\n",
        lines.len(),
        output.chars().count()
    );
    preview.push_str(&preview_of(&lines));
    preview.push_str(&format!(
        "...\nFull output: {rel_dir}/{name}\nUse Read to access the full artifact if needed.\n"
    ));
    Ok((path, preview))
}

/// The first lines of an output, at most [`PREVIEW_LINES`] and [`PREVIEW_CHARS`] characters;
/// a line cut short ends with `…`.
fn preview_of(lines: &[&str]) -> String {
    let mut out = String::new();
    let mut left = PREVIEW_CHARS;
    for l in lines.iter().take(PREVIEW_LINES) {
        let n = l.chars().count();
        if n > left {
            out.extend(l.chars().take(left));
            out.push_str("…\n");
            break;
        }
        out.push_str(l);
        out.push('\n');
        left -= n;
        if left == 0 {
            break;
        }
    }
    out
}

/// The artifacts kept, newest first: (file name, size in bytes).
pub fn list(view_dir: &Path) -> Vec<(String, u64)> {
    let mut out: Vec<(std::time::SystemTime, String, u64)> = std::fs::read_dir(dir(view_dir))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_owned();
            let meta = e.metadata().ok()?;
            (name.starts_with("artifact-") && name.ends_with(".md")).then(|| {
                (
                    meta.modified().unwrap_or(std::time::UNIX_EPOCH),
                    name,
                    meta.len(),
                )
            })
        })
        .collect();
    out.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| b.1.cmp(&a.1)));
    out.into_iter().map(|(_, n, s)| (n, s)).collect()
}

/// Removes artifacts older than `days`; returns how many.
pub fn prune(view_dir: &Path, days: u64) -> usize {
    let max = std::time::Duration::from_secs(days * 24 * 3600);
    crate::files::remove_older(&dir(view_dir), max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_output_folds_to_the_seed_format() {
        let dir = tempfile::tempdir().unwrap();
        let output: String = (1..=200).map(|i| format!("line {i}\n")).collect();
        assert!(too_large(&output));
        assert!(!too_large("short\n"));
        let (path, preview) = fold(
            dir.path(),
            ".rune/artifacts",
            "Grep",
            "rg foo",
            &output,
            "20260101T000000Z",
            "2026-01-01T00:00:00Z",
        )
        .unwrap();
        assert!(path.ends_with("artifacts/artifact-20260101T000000Z-Grep.md"));
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with(
            "# Artifact: Grep output\nGenerated: 2026-01-01T00:00:00Z\nCommand: rg foo\n\nline 1\n"
        ));
        assert!(preview.starts_with(
            "[FOLDED: Grep output — 200 lines, 1692 chars]\nPreview (first 10 lines):\nline 1\n"
        ));
        assert!(preview.ends_with(
            "line 10\n...\nFull output: .rune/artifacts/artifact-20260101T000000Z-Grep.md\nUse Read to access the full artifact if needed.\n"
        ));
        let (second, _) = fold(
            dir.path(),
            ".rune/artifacts",
            "Grep",
            "rg",
            "x",
            "20260101T000000Z",
            "t",
        )
        .unwrap();
        assert!(second.ends_with("artifact-20260101T000000Z-Grep-2.md"));
        assert_eq!(list(dir.path()).len(), 2);
    }

    #[test]
    fn a_one_line_output_gives_a_short_preview() {
        let dir = tempfile::tempdir().unwrap();
        let json = format!("{{\"data\":[{}]}}", vec!["1234567890"; 16_000].join(","));
        assert!(json.len() > 160_000);
        let (_, preview) = fold(
            dir.path(),
            ".rune/artifacts",
            "Bash",
            "cat big.json",
            &json,
            "20260101T000000Z",
            "2026-01-01T00:00:00Z",
        )
        .unwrap();
        assert!(
            preview.chars().count() < PREVIEW_CHARS + 300,
            "{}",
            preview.len()
        );
        assert!(preview.contains("…\n...\nFull output:"), "{preview}");
    }
}
