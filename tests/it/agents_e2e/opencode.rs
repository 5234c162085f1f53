//! OpenCode (`opencode-ai`) against the fake model as a local OpenAI-compatible provider:
//! `git rune agent install opencode` alone (git-rune's plugin module) makes an `opencode run`
//! session carry the briefing in its system prompt, count its tool call and record the
//! session.

use std::time::Duration;

use serde_json::json;

use super::{assert_proof, calling_in_turn, client, repo_with_memory, run};

#[test]
fn opencode_gets_the_briefing_counts_tools_and_records_the_session() {
    let Some(opencode) = client("opencode") else {
        return;
    };
    let repo = repo_with_memory();
    let note = repo.root.join("notes.txt").display().to_string();
    let model = calling_in_turn(vec![
        ("write", json!({"filePath": note, "content": "hello\n"})),
        (
            "todowrite",
            json!({"todos": [{"content": "Ship the note", "status": "in_progress", "priority": "high", "id": "1"}]}),
        ),
    ]);
    let config = repo.home.join(".config/opencode");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("opencode.json"),
        json!({
            "$schema": "https://opencode.ai/config.json",
            "autoupdate": false,
            "share": "disabled",
            "model": "fake/fake-model",
            "small_model": "fake/fake-model",
            "permission": {"edit": "allow", "bash": "allow"},
            "provider": {"fake": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Fake",
                "options": {"baseURL": format!("{}/v1", model.url()), "apiKey": "x"},
                "models": {"fake-model": {"name": "Fake", "tool_call": true}}
            }}
        })
        .to_string(),
    )
    .unwrap();
    repo.rune(&["agent", "install", "opencode"]).success();
    let out = run(
        &repo,
        &opencode,
        &["run", "write a note"],
        &[("OPENCODE_DISABLE_AUTOUPDATE", "true".into())],
        Duration::from_secs(180),
    );
    eprintln!("{}", out.snapshot());
    assert_proof(&repo, &model, &out);
    // Its todo list is the branch's tasks.
    let tasks = repo.rune(&["task", "list"]).success().stdout;
    assert!(tasks.contains("TASK_001 [~] Ship the note"), "{tasks}");
}
