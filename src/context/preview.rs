//! The preview gate: before a caller builds an expensive bundle (an adversary review, a team
//! workstream, a multi-file review, an audit), it asks what the bundle would cost. Estimated
//! tokens are total characters × 0.25; each caller has a warn and a block threshold.

use std::path::{Path, PathBuf};

/// The seed's per-caller defaults: (caller, warn at, block at) in tokens.
pub const CALLERS: [(&str, u64, u64); 4] = [
    ("adversary", 50_000, 100_000),
    ("team", 30_000, 80_000),
    ("review", 40_000, 100_000),
    ("audit", 60_000, 120_000),
];

/// What the gate says.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Preview {
    pub caller: String,
    pub estimated_tokens: u64,
    pub file_count: usize,
    pub top_5_files_by_size: Vec<FileSize>,
    pub threshold: Threshold,
    /// `proceed`, `warn` or `block`.
    pub action: &'static str,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FileSize {
    pub path: String,
    pub chars: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Threshold {
    pub warn_at: u64,
    pub block_at: u64,
}

/// Why a preview could not be made.
#[derive(Debug, thiserror::Error)]
pub enum PreviewError {
    #[error("unknown caller {0:?}")]
    UnknownCaller(String),
    #[error("{0}: bad thresholds {1:?} (expected \"<warn>,<block>\" in tokens, warn below block)")]
    BadThresholds(String, String),
    #[error("cannot read {}: {}", path.display(), crate::error::io_text(source))]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Parses `"<warn>,<block>"`.
fn parse_pair(text: &str) -> Option<Threshold> {
    let (w, b) = text.split_once(',')?;
    let warn_at = w.trim().replace('_', "").parse().ok()?;
    let block_at = b.trim().replace('_', "").parse().ok()?;
    (warn_at < block_at).then_some(Threshold { warn_at, block_at })
}

/// The thresholds of `caller`: `RUNE_CONTEXT_THRESHOLDS_<CALLER>` (`warn,block`), then the
/// `configured` value (git config `rune.context.preview.<caller>`), then the defaults.
pub fn thresholds(
    caller: &str,
    env: Option<&str>,
    configured: Option<&str>,
) -> Result<Threshold, PreviewError> {
    for (source, value) in [
        (
            format!("RUNE_CONTEXT_THRESHOLDS_{}", caller.to_uppercase()),
            env,
        ),
        (format!("rune.context.preview.{caller}"), configured),
    ] {
        if let Some(v) = value {
            return parse_pair(v).ok_or_else(|| PreviewError::BadThresholds(source, v.to_owned()));
        }
    }
    CALLERS
        .iter()
        .find(|(c, _, _)| *c == caller)
        .map(|&(_, warn_at, block_at)| Threshold { warn_at, block_at })
        .ok_or_else(|| PreviewError::UnknownCaller(caller.to_owned()))
}

/// Previews a bundle of `files` plus `prompt_chars` characters of prompt for `caller`.
pub fn preview(
    caller: &str,
    threshold: Threshold,
    prompt_chars: u64,
    files: &[PathBuf],
    root: &Path,
) -> Result<Preview, PreviewError> {
    let mut sizes = Vec::with_capacity(files.len());
    for f in files {
        // An absolute path replaces `root`.
        let text = std::fs::read(root.join(f)).map_err(|source| PreviewError::Read {
            path: f.clone(),
            source,
        })?;
        let chars = String::from_utf8_lossy(&text).chars().count() as u64;
        sizes.push(FileSize {
            path: f.display().to_string(),
            chars,
        });
    }
    let total: u64 = prompt_chars + sizes.iter().map(|f| f.chars).sum::<u64>();
    let estimated_tokens = total.div_ceil(4);
    sizes.sort_by(|a, b| b.chars.cmp(&a.chars).then_with(|| a.path.cmp(&b.path)));
    let file_count = sizes.len();
    sizes.truncate(5);
    let action = if estimated_tokens >= threshold.block_at {
        "block"
    } else if estimated_tokens >= threshold.warn_at {
        "warn"
    } else {
        "proceed"
    };
    Ok(Preview {
        caller: caller.to_owned(),
        estimated_tokens,
        file_count,
        top_5_files_by_size: sizes,
        threshold,
        action,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_come_from_env_then_config_then_defaults() {
        let t = thresholds("review", None, None).unwrap();
        assert_eq!((t.warn_at, t.block_at), (40_000, 100_000));
        let t = thresholds("review", Some("10,20"), Some("1,2")).unwrap();
        assert_eq!((t.warn_at, t.block_at), (10, 20));
        let t = thresholds("custom", None, Some("1_000, 2_000")).unwrap();
        assert_eq!((t.warn_at, t.block_at), (1000, 2000));
        assert!(thresholds("custom", None, None).is_err());
        assert!(thresholds("review", Some("20,10"), None).is_err());
    }

    #[test]
    fn actions_follow_the_thresholds() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.rs"), "x".repeat(400)).unwrap();
        std::fs::write(dir.path().join("b.rs"), "é".repeat(40)).unwrap();
        let files = [PathBuf::from("a.rs"), PathBuf::from("b.rs")];
        let t = Threshold {
            warn_at: 100,
            block_at: 200,
        };
        let p = preview("review", t, 0, &files, dir.path()).unwrap();
        assert_eq!(p.estimated_tokens, 110);
        assert_eq!(p.action, "warn");
        assert_eq!(p.top_5_files_by_size[0].path, "a.rs");
        assert_eq!(p.top_5_files_by_size[1].chars, 40);
        let p = preview("review", t, 400, &files, dir.path()).unwrap();
        assert_eq!(p.action, "block");
        let p = preview(
            "review",
            Threshold {
                warn_at: 1000,
                block_at: 2000,
            },
            0,
            &files,
            dir.path(),
        )
        .unwrap();
        assert_eq!(p.action, "proceed");
    }
}
