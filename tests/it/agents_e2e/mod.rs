//! End-to-end proofs with the real agent clients from the npm registry: each client is pointed
//! at a scripted fake model API on 127.0.0.1 (`tests/support/fake_api.rs`, shared with `tests/e2e`), wired with `git rune agent
//! install <agent>`, and run for one session; the tests assert that the first model request
//! carries git-rune's briefing, that the tool call was counted and that the session was
//! recorded. The clients are the ones `scripts/e2e/install.sh` installs (`target/e2e/clients`, or
//! `$RUNE_E2E_CLIENTS`); a test whose client is missing passes with a visible SKIPPED notice
//! (fails under `RUNE_E2E=require`, as `scripts/e2e/run.sh` sets).

#[allow(dead_code)]
#[path = "../../support/clients.rs"]
mod clients;
#[allow(dead_code)] // each test binary uses part of the one fake
#[path = "../../support/fake_api.rs"]
mod fake_api;

mod claude_plugin;
mod codex;
mod copilot;
mod gemini;
mod opencode;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::{Output, TestRepo};

pub use fake_api::FakeApi;
use fake_api::{Reply, Request};

/// The model every client test scripts: it calls the first of `tools` (name, arguments) the
/// request offers until the conversation holds a tool's result, then answers "done" (as the
/// JSON Gemini CLI's next-speaker check asks for, where it asks for JSON).
pub fn calling(tools: Vec<(&str, Value)>) -> FakeApi {
    let tools: Vec<(String, Value)> = tools.into_iter().map(|(n, a)| (n.to_owned(), a)).collect();
    FakeApi::start(Box::new(move |req: &Request| {
        let offered = req.tool_names();
        let call = (!req.holds_tool_result())
            .then(|| tools.iter().find(|(n, _)| offered.contains(n)))
            .flatten();
        let reply = match call {
            Some((name, args)) => Reply::tool(name, args.clone()),
            None => done(req),
        };
        (reply, 10)
    }))
}

/// A scripted model that calls `tools` one after another, one per request (the n-th once the
/// conversation holds n tool results), each only if the client offers it, then says done.
pub fn calling_in_turn(tools: Vec<(&str, Value)>) -> FakeApi {
    let tools: Vec<(String, Value)> = tools.into_iter().map(|(n, a)| (n.to_owned(), a)).collect();
    FakeApi::start(Box::new(move |req: &Request| {
        let offered = req.tool_names();
        let reply = match tools.get(req.tool_results()) {
            Some((name, args)) if offered.contains(name) => Reply::tool(name, args.clone()),
            _ => done(req),
        };
        (reply, 10)
    }))
}

/// The model's last word: "done", or the JSON Gemini CLI's next-speaker check asks for.
fn done(req: &Request) -> Reply {
    if req.body.pointer("/generationConfig/responseMimeType") == Some(&json!("application/json")) {
        return Reply::Text(
            json!({"reasoning": "done", "next_speaker": "user",
                   "complexity_reasoning": "simple", "complexity_score": 1})
            .to_string(),
        );
    }
    Reply::Text("done".to_owned())
}

/// The client's executable (`scripts/e2e/install.sh` installs every client this suite and
/// `tests/e2e` drive), or `None` with a SKIPPED notice (a failure under `RUNE_E2E=require`).
pub fn client(bin: &str) -> Option<PathBuf> {
    clients::require(
        &format!("agents_e2e {bin}"),
        &format!("the real {bin} client"),
        clients::npm_bin(bin),
    )
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
pub fn assert_proof(repo: &TestRepo, model: &FakeApi, out: &Output) {
    let turns = model.turns();
    assert!(
        !turns.is_empty(),
        "the client sent no agent turn\n{}\n{}",
        out.snapshot(),
        model.dump()
    );
    assert!(
        turns[0].all_text().contains(BRIEFING) && turns[0].all_text().contains(DECISION),
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
