//! Gemini CLI (`@google/gemini-cli`) against the fake model through its base-URL setting
//! (`GOOGLE_GEMINI_BASE_URL`): `git rune agent install gemini` alone makes a headless
//! session carry the briefing, count its tool call and record the session.

use std::time::Duration;

use serde_json::json;

use super::{assert_proof, calling_in_turn, client, repo_with_memory, run};

#[test]
fn gemini_gets_the_briefing_counts_tools_and_records_the_session() {
    let Some(gemini) = client("gemini") else {
        return;
    };
    let repo = repo_with_memory();
    let note = repo.root.join("notes.txt").display().to_string();
    let model = calling_in_turn(vec![
        (
            "write_file",
            json!({"file_path": note, "content": "hello\n"}),
        ),
        (
            "write_todos",
            json!({"todos": [{"description": "Ship the note", "status": "in_progress"}]}),
        ),
    ]);
    // The folder is trusted, as a user does at the first start there.
    let dir = repo.home.join(".gemini");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("trustedFolders.json"),
        json!({ repo.root.display().to_string(): "TRUST_FOLDER" }).to_string(),
    )
    .unwrap();
    std::fs::write(
        dir.join("settings.json"),
        json!({"security": {"auth": {"selectedType": "gemini-api-key"}}}).to_string(),
    )
    .unwrap();
    repo.rune(&["agent", "install", "gemini"]).success();
    let out = run(
        &repo,
        &gemini,
        &["-p", "write a note", "--yolo", "-m", "gemini-2.5-flash"],
        &[
            ("GEMINI_API_KEY", "x".into()),
            ("GOOGLE_GEMINI_BASE_URL", model.url()),
            ("GEMINI_CLI_NO_RELAUNCH", "true".into()),
        ],
        Duration::from_secs(120),
    );
    eprintln!("{}", out.snapshot());
    assert_proof(&repo, &model, &out);
    // Its todo list is the branch's tasks.
    let tasks = repo.rune(&["task", "list"]).success().stdout;
    assert!(tasks.contains("TASK_001 [~] Ship the note"), "{tasks}");
    // PreCompress fired before the turns (trigger auto): no compaction checkpoint.
    assert!(!repo
        .rune(&["log"])
        .success()
        .stdout
        .contains("Compaction Summary"));
}
