//! Where the real clients are, and the visible notice when they are not.

use std::io::Write as _;
use std::path::PathBuf;

/// The directory scripts/e2e/install.sh installs into.
pub fn dir() -> PathBuf {
    std::env::var_os("RUNE_E2E_CLIENTS")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/e2e/clients"))
}

/// An installed npm client's executable (`claude`, `codex`, `gemini`, `mcp-inspector-cli`).
pub fn npm_bin(name: &str) -> Option<PathBuf> {
    let p = dir().join("node_modules/.bin").join(name);
    p.exists().then_some(p)
}

/// The directory holding the Python MCP SDK (for PYTHONPATH).
pub fn python_mcp() -> Option<PathBuf> {
    let p = dir().join("python");
    p.join("mcp").is_dir().then_some(p)
}

/// `what` if installed; otherwise says on the terminal (past the test harness's capture) that
/// the test is skipped and how to install it, and returns `None` — or fails, under
/// `RUNE_E2E=require` (scripts/e2e/run.sh and CI set it).
pub fn require<T>(test: &str, what: &str, found: Option<T>) -> Option<T> {
    if found.is_some() {
        return found;
    }
    let msg = format!(
        "e2e: {test}: SKIPPED: {what} is not installed in {} (run scripts/e2e/install.sh)\n",
        dir().display()
    );
    if std::env::var("RUNE_E2E").as_deref() == Ok("require") {
        panic!("{msg}");
    }
    // Straight to the terminal: the harness captures print! and eprint!, not this.
    let _ = std::io::stderr().write_all(msg.as_bytes());
    None
}
