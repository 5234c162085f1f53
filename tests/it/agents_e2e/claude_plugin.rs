//! Claude Code (`@anthropic-ai/claude-code`) with git-rune's plugin installed from this
//! repository's marketplace (`claude plugin marketplace add` + `claude plugin install`),
//! against the fake model through `ANTHROPIC_BASE_URL`: the plugin alone gives the session its
//! briefing, counts the tool call and records the session; with `agent install claude` too,
//! each event is still answered once.

use std::path::Path;
use std::time::Duration;

use serde_json::json;

use super::{assert_proof, calling, client, repo_with_memory, run, sessions, FakeApi};
use crate::common::{Output, TestRepo};

fn claude(repo: &TestRepo, bin: &Path, args: &[&str], env: &[(&str, String)]) -> Output {
    run(
        repo,
        &bin.to_path_buf(),
        args,
        env,
        Duration::from_secs(120),
    )
}

fn install_plugin(repo: &TestRepo, bin: &Path) {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = claude(repo, bin, &["plugin", "validate", root], &[]);
    assert!(
        out.code == 0 && out.stdout.contains("Validation passed"),
        "{}",
        out.snapshot()
    );
    let out = claude(repo, bin, &["plugin", "marketplace", "add", root], &[]);
    assert_eq!(out.code, 0, "{}", out.snapshot());
    let out = claude(repo, bin, &["plugin", "install", "git-rune@git-rune"], &[]);
    assert_eq!(out.code, 0, "{}", out.snapshot());
}

fn session(repo: &TestRepo, bin: &Path) -> (FakeApi, Output) {
    let note = repo.root.join("notes.txt").display().to_string();
    let model = calling(vec![(
        "Write",
        json!({"file_path": note, "content": "hello\n"}),
    )]);
    let out = claude(
        repo,
        bin,
        &[
            "-p",
            "write a note",
            "--allowedTools",
            "Write",
            "--permission-mode",
            "acceptEdits",
            "--model",
            "claude-sonnet-4-5",
        ],
        &[
            ("ANTHROPIC_BASE_URL", model.url()),
            ("ANTHROPIC_API_KEY", "x".into()),
            ("DISABLE_AUTOUPDATER", "1".into()),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
        ],
    );
    eprintln!("{}", out.snapshot());
    (model, out)
}

#[test]
fn the_plugin_alone_wires_claude_code() {
    let Some(bin) = client("claude") else { return };
    let repo = repo_with_memory();
    install_plugin(&repo, &bin);
    let status = repo.rune(&["agent", "status"]).success().stdout;
    assert!(
        status.contains("claude plugin git-rune: enabled"),
        "{status}"
    );
    let (model, out) = session(&repo, &bin);
    assert_proof(&repo, &model, &out);
}

#[test]
fn the_plugin_and_agent_install_claude_never_both_answer() {
    let Some(bin) = client("claude") else { return };
    let repo = repo_with_memory();
    install_plugin(&repo, &bin);
    repo.rune(&["agent", "install", "claude"]).success();
    let (model, out) = session(&repo, &bin);
    assert_proof(&repo, &model, &out);
    let first = model.turns()[0].all_text();
    assert_eq!(first.matches(super::BRIEFING).count(), 1, "{first}");
    let counted: Vec<u64> = sessions(&repo)
        .iter()
        .filter_map(|s| s["tool_calls"].as_u64())
        .collect();
    assert_eq!(counted, [1], "{}", out.snapshot());
}
