//! GitHub Copilot CLI (`@github/copilot`) against the fake model through bring-your-own-model
//! (`COPILOT_PROVIDER_BASE_URL`, Chat Completions): `git rune agent install copilot` alone
//! makes a `copilot -p` session carry the briefing, count its tool call and record the
//! session; with Claude Code's wiring installed too, the tool is still counted once.

use std::time::Duration;

use serde_json::json;

use super::{assert_proof, calling, client, repo_with_memory, run, sessions, FakeApi};
use crate::common::TestRepo;

fn session(repo: &TestRepo, copilot: &std::path::PathBuf) -> (FakeApi, crate::common::Output) {
    let note = repo.root.join("notes.txt").display().to_string();
    let model = calling(vec![(
        "create",
        json!({"path": note, "file_text": "hello\n"}),
    )]);
    let out = run(
        repo,
        copilot,
        &[
            "-p",
            "write a note",
            "--allow-all-tools",
            "--no-auto-update",
        ],
        &[
            ("COPILOT_PROVIDER_BASE_URL", format!("{}/v1", model.url())),
            ("COPILOT_MODEL", "gpt-4.1".into()),
            ("COPILOT_OFFLINE", "true".into()),
            ("COPILOT_ALLOW_ALL", "true".into()),
            (
                "COPILOT_HOME",
                repo.home.join(".copilot").display().to_string(),
            ),
        ],
        Duration::from_secs(120),
    );
    eprintln!("{}", out.snapshot());
    (model, out)
}

#[test]
fn copilot_gets_the_briefing_counts_tools_and_records_the_session() {
    let Some(copilot) = client("copilot") else {
        return;
    };
    let repo = repo_with_memory();
    repo.rune(&["agent", "install", "copilot"]).success();
    let (model, out) = session(&repo, &copilot);
    assert_proof(&repo, &model, &out);
}

#[test]
fn copilot_with_claude_codes_wiring_too_counts_a_tool_once() {
    let Some(copilot) = client("copilot") else {
        return;
    };
    let repo = repo_with_memory();
    repo.rune(&["agent", "install", "copilot"]).success();
    repo.rune(&["agent", "install", "claude"]).success();
    let (model, out) = session(&repo, &copilot);
    assert_proof(&repo, &model, &out);
    let counted: Vec<u64> = sessions(&repo)
        .iter()
        .filter_map(|s| s["tool_calls"].as_u64())
        .collect();
    assert_eq!(counted, [1], "{}", out.snapshot());
    let first = model.turns()[0].all_text();
    assert_eq!(first.matches(super::BRIEFING).count(), 1, "{first}");
}
