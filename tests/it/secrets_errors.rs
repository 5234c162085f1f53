//! Issue 29, the other ways out: the MCP tools refuse every new secret family without echoing
//! it, no error message (clap's or git-rune's own) prints a secret from the command line, and
//! clean technical prose is never refused.

use std::process::Command;

use crate::common::TestRepo;
use crate::secrets::{all_objects, aws_key, families};

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}

/// `git rune mcp` in `repo`, connected with the SDK's client.
async fn mcp(repo: &TestRepo) -> rmcp::service::RunningService<rmcp::service::RoleClient, ()> {
    use rmcp::ServiceExt;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_git-rune"));
    repo.env(&mut cmd);
    cmd.arg("mcp");
    let child =
        rmcp::transport::TokioChildProcess::new(tokio::process::Command::from(cmd)).unwrap();
    ().serve(child).await.expect("initialize")
}

/// A tool call's text and whether it was an error (a protocol error counts as one).
async fn tool(
    client: &rmcp::service::RunningService<rmcp::service::RoleClient, ()>,
    name: &str,
    args: serde_json::Value,
) -> (bool, String) {
    let serde_json::Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    let params = rmcp::model::CallToolRequestParams::new(name.to_owned()).with_arguments(args);
    match client.call_tool(params).await {
        Ok(r) => (
            r.is_error == Some(true),
            r.content
                .iter()
                .filter_map(|c| c.as_text().map(|t| t.text.clone()))
                .collect(),
        ),
        Err(e) => (true, e.to_string()),
    }
}

/// Issue 29: the MCP tools refuse every new family with a tool error naming the rule and the
/// argument, never the secret; a wrongly typed argument holding a secret is not quoted back.
#[test]
fn mcp_tools_refuse_new_families_without_echoing_them() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a\n", "first");
    repo.rune(&["-q", "init"]).success();
    block_on(async {
        let client = mcp(&repo).await;
        for (rule, text, secret) in families() {
            for (name, args, place) in [
                (
                    "record_learning",
                    serde_json::json!({"type": "insight", "key": "k", "insight": text}),
                    "\"insight\" argument",
                ),
                (
                    "task_add",
                    serde_json::json!({"title": "deploy", "context": text}),
                    "field `context`",
                ),
            ] {
                let (error, t) = tool(&client, name, args).await;
                assert!(error, "{name} accepted {rule}: {t}");
                assert!(
                    t.contains(&format!("refusing to record a secret ({rule})")),
                    "{t}"
                );
                assert!(t.contains(place), "{t}");
                assert!(!t.contains(&secret), "{name} echoed the secret: {t}");
            }
        }
        // serde quotes a value it cannot read as the asked type.
        let key = format!("AKIA{}", "Q3EGRE7KHX2WZJ5T");
        let (error, t) = tool(
            &client,
            "record_learning",
            serde_json::json!({"type": "insight", "key": "k", "insight": "x", "confidence": key}),
        )
        .await;
        assert!(error, "{t}");
        assert!(!t.contains(&key), "{t}");
        client.cancel().await.unwrap();
    });
    for (_, _, secret) in families() {
        assert!(!all_objects(&repo).contains(&secret));
    }
}

/// Issue 29: a flag-parsing error quotes the argument it could not place; a private key read
/// into an argument (`--insight "$(cat id_ed25519)"`) must not reach the terminal, nor a value
/// clap rejects, nor git-rune's own errors that quote what was typed.
#[test]
fn no_error_message_prints_a_secret_from_the_command_line() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a\n", "first");
    repo.rune(&["-q", "init"]).success();
    let body: Vec<String> = (0..5)
        .map(|i| {
            format!("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB{i}AAAAMwAAAAtzc2gtZW")
        })
        .collect();
    let key = format!(
        "{}{}\n{}\nAAAAB3Jvb3RAdm0BAgMEBQY=\n{}{}",
        "-----BEGIN OPENSSH ",
        "PRIVATE KEY-----",
        body.join("\n"),
        "-----END OPENSSH ",
        "PRIVATE KEY-----"
    );
    let aws = aws_key();
    let cases: Vec<Vec<&str>> = vec![
        // clap reads the key as an option (it starts with dashes) and quotes it.
        vec![
            "learn",
            "--type",
            "error",
            "--key",
            "k",
            "--insight",
            &key,
            "--bogus",
        ],
        vec![
            "learn",
            "--type",
            "error",
            "--key",
            "k",
            "--bogus",
            "--insight",
            &key,
        ],
        // A value clap rejects.
        vec![
            "learn",
            "--type",
            "error",
            "--key",
            "k",
            "--insight",
            "x",
            "--confidence",
            &aws,
        ],
        vec!["learn", "--type", &aws, "--key", "k", "--insight", "x"],
        vec!["show", &aws],
        // An argument clap does not expect.
        vec!["remember", "--section", "Attention Points", "a", &aws],
        // git-rune's own errors quoting input.
        vec!["why", &aws],
        vec!["load", "--at", &aws],
    ];
    for args in cases {
        let out = repo.rune(&args);
        assert_ne!(out.code, 0, "{args:?}");
        assert!(
            out.stderr.starts_with("error: "),
            "{args:?}: {}",
            out.stderr
        );
        // Where the message quotes the secret, the quote is redacted.
        let quoted = !out.stderr.contains("'--bogus' found");
        assert!(
            !quoted || out.stderr.contains("***REDACTED***"),
            "{args:?}: {}",
            out.stderr
        );
        for leak in [&key[40..80], &aws[4..], "AAAAB3Jvb3RAdm0BAgMEBQY"] {
            assert!(
                !out.stderr.contains(leak),
                "{args:?} printed a secret: {}",
                out.stderr
            );
            assert!(
                !out.stdout.contains(leak),
                "{args:?} printed a secret: {}",
                out.stdout
            );
        }
    }
    // The rest of clap's message survives: what was wrong and how to get help.
    let out = repo.rune(&[
        "learn",
        "--type",
        "error",
        "--key",
        "k",
        "--insight",
        &key,
        "--bogus",
    ]);
    assert!(out.stderr.contains("' found"), "{}", out.stderr);
    assert!(out.stderr.contains("--help"), "{}", out.stderr);
    assert_eq!(out.code, 2);
}

/// Issue 29: 0 false refusals on clean technical prose, through a real write path (the MCP
/// server's record_learning, one process for all of them): every text of the clean corpus is
/// recorded or refused for a reason other than a secret.
#[test]
fn the_clean_corpus_is_written_without_a_refusal() {
    let corpus = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/secrets/clean.txt"),
    )
    .unwrap();
    let texts: Vec<&str> = corpus
        .split("\n%%\n")
        .skip(1)
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .collect();
    assert!(texts.len() >= 500, "{}", texts.len());
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a\n", "first");
    repo.rune(&["-q", "init"]).success();
    let refused = block_on(async {
        let client = mcp(&repo).await;
        let mut refused = Vec::new();
        for (i, text) in texts.iter().enumerate() {
            let (error, t) = tool(
                &client,
                "record_learning",
                serde_json::json!({"type": "insight", "key": format!("clean-{i}"), "insight": text}),
            )
            .await;
            if error && t.contains("secret") {
                refused.push(format!("{text:?}: {t}"));
            }
        }
        client.cancel().await.unwrap();
        refused
    });
    assert!(refused.is_empty(), "false refusals: {refused:#?}");
}
