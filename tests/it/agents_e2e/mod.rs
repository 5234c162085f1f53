//! End-to-end proofs with the real agent clients from the npm registry: each client is pointed
//! at a scripted fake model API on 127.0.0.1 (`fake_model`), wired with `git rune agent
//! install <agent>`, and run for one session; the tests assert that the first model request
//! carries git-rune's briefing, that the tool call was counted and that the session was
//! recorded. The clients are found in `$RUNE_E2E_CLIENTS/node_modules/.bin`, else
//! `target/e2e-clients/node_modules/.bin` (what `tests/e2e-clients.sh` installs), else on
//! PATH; a test whose client is missing passes with a visible SKIPPED notice.

mod fake_model;

mod claude_plugin;
mod codex;
mod copilot;
mod gemini;
mod opencode;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{Output, TestRepo};

pub use fake_model::{FakeModel, Script};

/// The client's executable, or `None` (with a SKIPPED notice on stderr).
pub fn client(bin: &str) -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(d) = std::env::var_os("RUNE_E2E_CLIENTS") {
        dirs.push(PathBuf::from(d).join("node_modules/.bin"));
    }
    dirs.push(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/e2e-clients/node_modules/.bin"),
    );
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    let found = dirs.into_iter().map(|d| d.join(bin)).find(|p| p.is_file());
    if found.is_none() {
        eprintln!(
            "SKIPPED: the real {bin} client is not installed (run tests/e2e-clients.sh, or set RUNE_E2E_CLIENTS)"
        );
    }
    found
}

/// A repository with memory the briefing will show: one decision, committed code.
pub fn repo_with_memory() -> TestRepo {
    let repo = TestRepo::new();
    repo.commit_file("src/lib.rs", "pub fn f() {}\n", "init");
    repo.rune(&["init", "-q"]).success();
    repo.decide("Use Zod for validation", "validate with Zod schemas", &[]);
    repo
}

/// The marker every briefing starts with.
pub const BRIEFING: &str = "git-rune: session context of";
/// The decision `repo_with_memory` records, which the briefing shows.
pub const DECISION: &str = "Use Zod for validation";

/// Runs `cmd` (the pinned environment of `repo` plus `env`) with a deadline; kills it after
/// `limit`. Output as `Output`.
pub fn run(
    repo: &TestRepo,
    program: &PathBuf,
    args: &[&str],
    env: &[(&str, String)],
    limit: Duration,
) -> Output {
    let mut cmd = Command::new(program);
    repo.env(&mut cmd);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    // Every payload the hooks receive is kept; RUNE_E2E_RECORD_TO=<dir> copies them out (how
    // tests/fixtures/<agent>/ were recorded).
    let record = repo.home.join("payloads");
    cmd.env("GIT_RUNE_HOOK_RECORD", &record);
    let mut child = cmd.spawn().expect("start the client");
    let start = Instant::now();
    loop {
        if let Ok(Some(_)) = child.try_wait() {
            break;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = Output::of(child.wait_with_output().expect("client output"));
    if let Some(to) = std::env::var_os("RUNE_E2E_RECORD_TO") {
        let to = PathBuf::from(to);
        let _ = std::fs::create_dir_all(&to);
        for e in std::fs::read_dir(&record).into_iter().flatten().flatten() {
            let _ = std::fs::copy(e.path(), to.join(e.file_name()));
        }
    }
    out
}

/// The sessions git-rune counted in `repo` (`agent status --json`).
pub fn sessions(repo: &TestRepo) -> Vec<serde_json::Value> {
    let out = repo.rune(&["agent", "status", "--json"]).success().stdout;
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    v["sessions"].as_array().cloned().unwrap_or_default()
}

/// The agent log (hook failures), for messages.
pub fn agent_log(repo: &TestRepo) -> String {
    std::fs::read_to_string(repo.root.join(".git/rune/agent.log")).unwrap_or_default()
}

/// Asserts the proof: the first agent turn carried the briefing, a tool call was counted,
/// and the session was recorded in memory.
#[track_caller]
pub fn assert_proof(repo: &TestRepo, model: &FakeModel, out: &Output) {
    let turns = model.turns();
    assert!(
        !turns.is_empty(),
        "the client sent no agent turn\n{}\n{}",
        out.snapshot(),
        model.dump()
    );
    assert!(
        turns[0].body.contains(BRIEFING) && turns[0].body.contains(DECISION),
        "the first model request lacks the briefing\n{}\nlog: {}\n{}",
        out.snapshot(),
        agent_log(repo),
        model.dump()
    );
    let sessions = sessions(repo);
    assert!(
        sessions.iter().any(|s| s["tool_calls"].as_u64() >= Some(1)),
        "no tool call counted: {sessions:?}\n{}\nlog: {}",
        out.snapshot(),
        agent_log(repo)
    );
    let log = repo.rune(&["log"]).success().stdout;
    assert!(
        log.contains("agent session"),
        "no session recorded:\n{log}\n{}\nlog: {}",
        out.snapshot(),
        agent_log(repo)
    );
}
