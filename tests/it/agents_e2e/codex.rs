//! Codex CLI (`@openai/codex`) against the fake model through a custom model provider
//! (`base_url`, Responses API): `git rune agent install codex` alone (hooks, their trust, the
//! MCP server) makes `codex exec` run git-rune's hooks without `--dangerously-bypass-hook-trust`.

use std::time::Duration;

use serde_json::json;

use super::{assert_proof, calling, client, repo_with_memory, run};

#[test]
fn codex_gets_the_briefing_counts_tools_and_records_the_session() {
    let Some(codex) = client("codex") else { return };
    let repo = repo_with_memory();
    let model = calling(vec![
        (
            "apply_patch",
            json!({"input": "*** Begin Patch\n*** Add File: notes.txt\n+hello\n*** End Patch\n"}),
        ),
        ("exec_command", json!({"cmd": "echo hello > notes.txt"})),
        (
            "shell",
            json!({"command": ["bash", "-lc", "echo hello > notes.txt"]}),
        ),
    ]);
    let home = repo.home.join(".codex");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join("config.toml"),
        format!(
            "model = \"fake-model\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nname = \"fake\"\nbase_url = \"{}/v1\"\nwire_api = \"responses\"\nenv_key = \"FAKE_API_KEY\"\n\n[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
            model.url(),
            repo.root.display()
        ),
    )
    .unwrap();
    let installed = repo.rune(&["agent", "install", "codex"]).success();
    assert!(
        installed.stdout.contains("hooks.state"),
        "{}",
        installed.snapshot()
    );
    let status = repo.rune(&["agent", "status"]).success().stdout;
    assert!(
        status.contains("trusted in") && status.contains("project trusted"),
        "{status}"
    );
    let out = run(
        &repo,
        &codex,
        &["exec", "--sandbox", "danger-full-access", "write a note"],
        &[
            ("FAKE_API_KEY", "x".into()),
            ("CODEX_HOME", home.display().to_string()),
        ],
        Duration::from_secs(120),
    );
    eprintln!("{}", out.snapshot());
    assert_proof(&repo, &model, &out);
}
