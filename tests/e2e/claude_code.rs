//! Claude Code (from npm) against the fake Messages API, wired with `git rune agent install
//! claude`: what the model receives at startup, across 130 tool calls with failures, after a
//! resume, after `/compact` and after an automatic compaction (issue 24).

use std::path::PathBuf;
use std::process::Command;

use serde_json::{json, Value};

use crate::clients;
use crate::common::{briefing_items, rich_repo, TestRepo};
use crate::fake_api::{FakeApi, Reply, Request, Script};

/// The marker each full git-rune briefing opens with (one per context).
const BRIEFING: &str = "git-rune: session context of";
/// The budget, in characters (2000 tokens × 4), every request's git-rune context stays in.
const BUDGET_CHARS: usize = 8000;

/// What the model is told to do, in the prompt: `e2e: make N tool calls, every K-th failing`.
/// `e2e: fill` makes it report a nearly full context window, so Claude Code compacts.
fn instruction(text: &str) -> Option<(u32, u32, bool)> {
    let i = text.find("e2e:")?;
    let rest = &text[i..];
    let number_after = |word: &str| -> Option<u32> {
        let j = rest.find(word)? + word.len();
        rest[j..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect::<String>()
            .parse()
            .ok()
    };
    Some((
        number_after("make ").unwrap_or(0),
        number_after("every ").unwrap_or(0),
        rest.contains("fill"),
    ))
}

/// Tool calls the model made since the newest `e2e:` prompt, and that prompt's instruction.
fn progress(req: &Request) -> Option<(u32, (u32, u32, bool))> {
    let msgs = req.body.get("messages")?.as_array()?;
    let mut made = 0;
    for m in msgs.iter().rev() {
        let blocks: Vec<&Value> = match m.get("content") {
            Some(Value::Array(b)) => b.iter().collect(),
            Some(v @ Value::String(_)) => vec![v],
            _ => Vec::new(),
        };
        if m.get("role").and_then(Value::as_str) == Some("assistant") {
            made += blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
                .count() as u32;
            continue;
        }
        for b in blocks {
            let text = b
                .as_str()
                .or_else(|| {
                    (b.get("type").and_then(Value::as_str) == Some("text"))
                        .then(|| b.get("text").and_then(Value::as_str))
                        .flatten()
                })
                .unwrap_or("");
            if let Some(i) = instruction(text) {
                return Some((made, i));
            }
        }
    }
    None
}

/// The scripted model: follows the prompt's instruction with Bash calls (`true`, or `false`
/// for the failing ones: Claude Code reports those to PostToolUseFailure), answers a
/// compaction request with a summary, anything else with a short text.
fn model() -> Box<Script> {
    Box::new(|req: &Request| {
        let last = req.last_user_text().unwrap_or_default();
        if last.contains("TEXT ONLY") || last.contains("summary of the conversation") {
            return (
                Reply::Text(
                    "<analysis>e2e</analysis>\n<summary>1. Primary Request: follow the e2e instructions.\n</summary>".into(),
                ),
                2000,
            );
        }
        if !req.has_tools() {
            return (Reply::Text("ok".into()), 100);
        }
        let Some((made, (wanted, every, fill))) = progress(req) else {
            return (Reply::Text("done".into()), 1000);
        };
        // A nearly full 200k window, reported with the turn's last reply: Claude Code compacts
        // before its next request (reported mid-turn, it stops the turn at its blocking limit).
        let tokens = if fill && made >= wanted {
            190_000
        } else {
            1000 + 100 * u64::from(made)
        };
        if made < wanted {
            let fails = every > 0 && (made + 1) % every == 0;
            let cmd = if fails { "false" } else { "true" };
            return (
                Reply::tool(
                    "Bash",
                    json!({"command": cmd, "description": format!("e2e call {}", made + 1)}),
                ),
                tokens,
            );
        }
        (Reply::Text(format!("done after {made} calls")), tokens)
    })
}

struct Session {
    repo: TestRepo,
    api: FakeApi,
    claude: PathBuf,
}

impl Session {
    fn new(test: &str) -> Option<Session> {
        let claude = clients::require(test, "Claude Code", clients::npm_bin("claude"))?;
        Some(Session {
            repo: rich_repo(),
            api: FakeApi::start(model()),
            claude,
        })
    }

    /// `claude -p <prompt> [args]` in the repository; its JSON result.
    fn run(&self, prompt: &str, args: &[&str]) -> Value {
        let mut cmd = Command::new(&self.claude);
        self.repo.env(&mut cmd);
        cmd.env("ANTHROPIC_BASE_URL", self.api.url())
            .env("ANTHROPIC_API_KEY", "sk-ant-e2e-fake")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("DISABLE_TELEMETRY", "1")
            // Bypassing permissions as root needs a sandbox: this is one.
            .env("IS_SANDBOX", "1")
            // A 200k window, so a reply reporting 190k input tokens makes it compact.
            .env("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "200000")
            .args([
                "-p",
                prompt,
                "--output-format",
                "json",
                "--model",
                "claude-sonnet-4-5",
            ])
            .args(["--dangerously-skip-permissions"])
            .args(args);
        let out = cmd.output().expect("run claude");
        assert!(
            out.status.success(),
            "claude failed: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "claude's output: {e}: {}",
                String::from_utf8_lossy(&out.stdout)
            )
        });
        v
    }

    /// The requests of the main agent loop (the ones offering tools), oldest first.
    fn main_requests(&self) -> Vec<Request> {
        self.api
            .requests()
            .into_iter()
            .filter(|r| {
                r.has_tools() && !r.last_user_text().unwrap_or_default().contains("TEXT ONLY")
            })
            .collect()
    }

    /// The session's counters: (tool calls in the context, failures).
    fn counted(&self, id: &str) -> (u64, u64) {
        let path = self
            .repo
            .root
            .join(".git/rune/context")
            .join(format!("{id}.json"));
        let v: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        (
            v["tool_calls"].as_u64().unwrap(),
            v["failures"].as_u64().unwrap(),
        )
    }
}

/// The git-rune text a request holds: each SessionStart answer (in Claude Code's
/// system-reminders) — (number of full briefings, characters of git-rune context).
fn git_rune_context(req: &Request) -> (usize, usize) {
    let mut briefings = 0;
    let mut chars = 0;
    for t in req.texts() {
        if let Some(i) = t.find("SessionStart hook additional context:") {
            let body = &t[i..];
            let body = body.split("</system-reminder>").next().unwrap_or(body);
            briefings += body.matches(BRIEFING).count();
            chars += body.len();
        }
    }
    (briefings, chars)
}

fn assert_holds(req: &Request, wanted: &[String], when: &str) {
    let text = req.all_text();
    for item in wanted {
        assert!(
            text.contains(item.as_str()),
            "{when}: the model lost {item:?}\n{text}"
        );
    }
    let (briefings, chars) = git_rune_context(req);
    assert_eq!(
        briefings, 1,
        "{when}: {briefings} full briefings in one request\n{text}"
    );
    assert!(
        chars <= BUDGET_CHARS,
        "{when}: {chars} characters of git-rune context"
    );
}

/// The memory items of the startup briefing the model must keep: everything but the
/// checkpoint's first line (it names when the checkpoint was set; a compaction's summary is
/// newer) and the header.
fn startup_items(req: &Request) -> Vec<String> {
    let text = req.all_text();
    let start = text.find(BRIEFING).expect("a briefing at startup");
    let end = text[start..]
        .find("</rune-memory>")
        .map_or(text.len(), |e| start + e);
    briefing_items(&text[start..end])
}

/// Startup, 60 calls (every 3rd failing), resume, 10 more: the count is 70 and the advice at
/// 70 reaches the model; `/compact` on the resumed session states 70 and keeps every item;
/// resumed again, the request still holds one briefing within the budget.
#[test]
fn claude_code_keeps_count_and_memory_through_resume_and_compact() {
    let Some(s) = Session::new("claude_code_keeps_count_and_memory_through_resume_and_compact")
    else {
        return;
    };
    let out = s.run("e2e: make 60 tool calls, every 3rd failing", &[]);
    let id = out["session_id"].as_str().expect("session id").to_owned();
    let main = s.main_requests();
    let first = &main[0];
    let wanted = startup_items(first);
    assert!(
        wanted
            .iter()
            .any(|l| l.contains("the API spec says 422 for schema errors")),
        "{wanted:?}"
    );
    assert!(
        wanted.iter().any(|l| l.contains("HEAD is 1 commit ahead")),
        "{wanted:?}"
    );
    assert_holds(first, &wanted, "startup");
    assert_eq!(s.counted(&id), (60, 20), "failures count");
    let advice = main.last().unwrap().all_text();
    assert!(
        advice.contains("60 tool calls. Load only essential files."),
        "{advice}"
    );

    s.api.clear();
    s.run(
        "e2e: make 10 tool calls, every 2nd failing",
        &["--resume", &id],
    );
    assert_eq!(s.counted(&id), (70, 25), "resume continues the count");
    let main = s.main_requests();
    assert!(
        main.last().unwrap().all_text().contains("70 tool calls."),
        "the advice at 70 reached the model"
    );
    for (i, r) in main.iter().enumerate() {
        assert_holds(r, &wanted, &format!("resumed, request {i}"));
    }

    s.api.clear();
    s.run("/compact", &["--resume", &id]);
    let cp = s.repo.read(".rune/checkpoint.md");
    assert!(
        cp.contains("## Compaction Summary (generated at 70 tool calls)"),
        "{cp}"
    );
    s.run("e2e: make 2 tool calls", &["--resume", &id]);
    let main = s.main_requests();
    assert!(!main.is_empty());
    for (i, r) in main.iter().enumerate() {
        assert_holds(
            r,
            &wanted,
            &format!("after /compact and resume, request {i}"),
        );
        assert!(
            r.all_text()
                .contains("Compaction Summary (generated at 70 tool calls)"),
            "the summary states the real count"
        );
    }
    assert_eq!(s.counted(&id).0, 2, "a compaction starts the count again");
}

/// An automatic compaction (the model reports a nearly full window): every item of the
/// startup briefing is in the first request after it, with one briefing, within the budget.
#[test]
fn claude_code_keeps_memory_through_an_automatic_compaction() {
    let Some(s) = Session::new("claude_code_keeps_memory_through_an_automatic_compaction") else {
        return;
    };
    let out = s.run("e2e: make 5 tool calls, fill", &[]);
    let id = out["session_id"].as_str().expect("session id").to_owned();
    let wanted = startup_items(&s.main_requests()[0]);
    s.api.clear();
    s.run("e2e: make 3 tool calls", &["--resume", &id]);
    let all = s.api.requests();
    let compacted = all
        .iter()
        .any(|r| r.last_user_text().unwrap_or_default().contains("TEXT ONLY"));
    assert!(compacted, "Claude Code compacted automatically");
    let cp = s.repo.read(".rune/checkpoint.md");
    assert!(
        cp.contains("## Compaction Summary"),
        "PreCompact saved the summary: {cp}"
    );
    let main = s.main_requests();
    assert!(!main.is_empty());
    for (i, r) in main.iter().enumerate() {
        assert_holds(
            r,
            &wanted,
            &format!("after the automatic compaction, request {i}"),
        );
    }
}

/// Installed hooks with git-rune not on PATH (a teammate without it): Claude Code runs, the
/// hooks do nothing and say nothing, and `agent status` there (once git-rune is found) says so.
#[test]
fn claude_code_works_where_git_rune_is_not_installed() {
    let Some(s) = Session::new("claude_code_works_where_git_rune_is_not_installed") else {
        return;
    };
    let mut cmd = Command::new(&s.claude);
    s.repo.env(&mut cmd);
    let path: Vec<PathBuf> = std::env::split_paths(&crate::common::path_with_binary())
        .filter(|d| !d.join("git-rune").exists())
        .collect();
    cmd.env("PATH", std::env::join_paths(path).unwrap())
        .env("ANTHROPIC_BASE_URL", s.api.url())
        .env("ANTHROPIC_API_KEY", "sk-ant-e2e-fake")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("IS_SANDBOX", "1")
        .args([
            "-p",
            "e2e: make 3 tool calls, every 2nd failing",
            "--output-format",
            "json",
        ])
        .args([
            "--model",
            "claude-sonnet-4-5",
            "--dangerously-skip-permissions",
        ]);
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["is_error"], false, "{v}");
    let text: String = s.main_requests().iter().map(Request::all_text).collect();
    assert!(
        !text.contains("hook error") && !text.contains("git-rune: not found"),
        "{text}"
    );
    let status = s.repo.rune(&["agent", "status"]).success().stdout;
    assert!(
        status.contains("the agent's hooks ran without git-rune on PATH"),
        "{status}"
    );
}

/// 130 calls, every 5th failing: failures count, the advice reaches the model at 50, 55, …,
/// 120, RED saves the state and tells the model at once; the request keeps one briefing.
#[test]
fn claude_code_gets_health_advice_across_130_calls_with_failures() {
    let Some(s) = Session::new("claude_code_gets_health_advice_across_130_calls_with_failures")
    else {
        return;
    };
    let out = s.run("e2e: make 130 tool calls, every 5th failing", &[]);
    let id = out["session_id"].as_str().expect("session id").to_owned();
    assert_eq!(s.counted(&id), (130, 26));
    let main = s.main_requests();
    let last = main.last().unwrap();
    let text = last.all_text();
    for n in (50..=120).step_by(5) {
        assert!(
            text.contains(&format!("{n} tool calls.")),
            "advice at {n}\n{text}"
        );
    }
    assert!(text.contains("Context CRITICAL (121 tool calls"), "{text}");
    let cp = s.repo.read(".rune/checkpoint.md");
    assert!(
        cp.contains("## Compaction Summary (generated at 121 tool calls)"),
        "{cp}"
    );
    let wanted = startup_items(&main[0]);
    assert_holds(last, &wanted, "after 130 calls");
}

/// The tool calls of a request's assistant turns, in order: (name, tool_use id) — and the
/// text of every tool result.
fn tool_calls(req: &Request) -> (Vec<String>, String) {
    let mut names = Vec::new();
    let mut results = String::new();
    for m in req
        .body
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        for b in m
            .get("content")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            match b.get("type").and_then(Value::as_str) {
                Some("tool_use") => names.push(b["name"].as_str().unwrap_or("").to_owned()),
                Some("tool_result") => results.push_str(&b["content"].to_string()),
                _ => {}
            }
        }
    }
    (names, results)
}

/// Claude Code plans with its Task tools (TaskCreate, TaskUpdate) in place of TodoWrite: a
/// task the model creates and starts is a task in memory, in progress, on the branch.
#[test]
fn claude_code_task_tools_become_tasks() {
    let test = "claude_code_task_tools_become_tasks";
    let Some(claude) = clients::require(test, "Claude Code", clients::npm_bin("claude")) else {
        return;
    };
    let api = FakeApi::start(Box::new(|req: &Request| {
        if !req.has_tools() {
            return (Reply::Text("ok".into()), 100);
        }
        let (calls, results) = tool_calls(req);
        match calls.len() {
            0 => (
                Reply::tool(
                    "TaskCreate",
                    json!({"subject": "Return an error on a corrupt index", "description": "the loader panics", "activeForm": "Returning an error"}),
                ),
                1000,
            ),
            1 => {
                // The id TaskCreate answered with: "Task #<id> created …".
                let id: String = results
                    .split('#')
                    .nth(1)
                    .unwrap_or("1")
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                (
                    Reply::tool("TaskUpdate", json!({"taskId": id, "status": "in_progress"})),
                    1000,
                )
            }
            _ => (Reply::Text("done".into()), 1000),
        }
    }));
    let s = Session {
        repo: rich_repo(),
        api,
        claude,
    };
    s.run("e2e: plan the fix", &[]);
    let offered = s.main_requests()[0].tool_names();
    assert!(
        offered.iter().any(|n| n == "TaskCreate"),
        "the client offers {offered:?}"
    );
    let tasks = s.repo.rune(&["task", "list", "--json"]).success().stdout;
    assert!(
        tasks.contains("\"title\":\"Return an error on a corrupt index\"")
            && tasks.contains("\"status\":\"in_progress\""),
        "{tasks}\n{:?}",
        s.main_requests().last().map(tool_calls)
    );
}
