//! Secrets never enter the refs: every write path refuses them (or redacts with --redact),
//! and no git object holds the secret afterwards.

use std::process::Command;

use crate::common::TestRepo;

/// Built by concatenation so no literal secret sits in the source.
pub(crate) fn aws_key() -> String {
    ["AKIA", "Q3EGRE7K", "HX2WZJ5T"].concat()
}

fn github_token() -> String {
    ["ghp_", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z", "Z"].concat()
}

/// Every object in the repository, contents included.
pub(crate) fn all_objects(repo: &TestRepo) -> String {
    let mut cmd = Command::new("git");
    repo.env(&mut cmd);
    let out = cmd
        .args(["cat-file", "--batch-all-objects", "--batch", "--unordered"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn every_record_command_refuses_a_secret_and_changes_nothing() {
    let repo = TestRepo::new();
    repo.rune(&["init"]).success();
    let key = aws_key();
    let with = |s: &str| format!("use {s} for the bucket");
    let v = with(&key);
    let cases: Vec<Vec<&str>> = vec![
        vec![
            "decide",
            "t",
            "--context",
            &v,
            "--decision",
            "d",
            "--rationale",
            "r",
            "--impact",
            "i",
        ],
        vec!["convention", "t", "--pattern", "p", "--example", &v],
        vec!["learn", "--type", "insight", "--key", "k", "--insight", &v],
        vec![
            "instinct",
            "n",
            "--trigger",
            "t",
            "--action",
            "a",
            "--confidence",
            "0.5",
            "--evidence",
            &v,
        ],
        vec!["progress", "--blocked", &v],
        vec!["checkpoint", "--doing", "x", "--resume", &v],
        vec!["remember", "--section", "Attention Points", &v],
        vec!["save", "-m", &v],
    ];
    // Where each refusal says the secret was: an argument that exists.
    let wheres = [
        "--context",
        "--example",
        "--insight",
        "--evidence",
        "--blocked",
        "--resume",
        "<TEXT>",
        "-m",
    ];
    for (args, place) in cases.into_iter().zip(wheres) {
        let out = repo.rune(&args).failure();
        assert_eq!(out.code, 1, "{args:?}");
        assert!(out.stderr.contains(place), "{args:?}: {}", out.stderr);
        assert!(
            out.stderr
                .contains("refusing to record a secret (aws-access-key)"),
            "{args:?}: {}",
            out.stderr
        );
        assert!(
            !out.stderr.contains(&key),
            "the secret is never echoed: {}",
            out.stderr
        );
        assert_eq!(repo.refs(), "", "{args:?} wrote a ref");
    }
    assert!(!all_objects(&repo).contains(&key));
}

#[test]
fn redact_keeps_the_record_without_the_secret() {
    let repo = TestRepo::new();
    let key = aws_key();
    let out = repo
        .rune(&[
            "learn",
            "--redact",
            "--type",
            "insight",
            "--key",
            "s3",
            "--insight",
            &format!("the key {key} is in CI"),
        ])
        .success();
    assert!(
        out.stderr
            .contains("redacted a secret (aws-access-key) in --insight"),
        "{}",
        out.stderr
    );
    let show = repo.rune(&["show", "learnings", "--json"]).success().stdout;
    assert!(
        show.contains("the key AKIA***REDACTED*** is in CI"),
        "{show}"
    );
    assert!(!all_objects(&repo).contains(&key[4..]));
}

#[test]
fn save_refuses_a_secret_in_a_view_edit_with_file_and_line() {
    let repo = TestRepo::new();
    repo.rune(&["init"]).success();
    let token = github_token();
    let path = ".rune/decisions.md";
    let mut text = repo.read(path);
    text.push_str(&format!("\n## Decision: CI token\n**Context:** deploys\n**Decision:** use {token} in the workflow\n"));
    repo.write(path, &text);
    // The entry is refused with its file and line (exit 65), never blocking the rest of the
    // save; the file is left as written, so the entry is not lost.
    let out = repo.rune(&["save"]);
    assert_eq!(out.code, 65, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("refusing to record a secret (github-token) in .rune/decisions.md:5"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains(&token));
    assert!(!all_objects(&repo).contains(&token[4..]));
    assert_eq!(repo.read(path), text, "the user's text is kept");
    // Until it is saved, every status says so.
    let st = repo.rune(&["status"]).success();
    assert!(
        st.stdout.contains("left entries unsaved") || st.stderr.contains("left entries unsaved"),
        "{}{}",
        st.stdout,
        st.stderr
    );
    // With --redact the record is kept, the view loses the secret, no object has it.
    repo.rune(&["save", "--redact"]).success();
    assert!(!repo.read(path).contains(&token));
    assert!(
        repo.read(path).contains("ghp_***REDACTED***"),
        "{}",
        repo.read(path)
    );
    assert!(!all_objects(&repo).contains(&token[4..]));
}

/// The base64 of `bytes` (standard alphabet, padded): Basic credentials and registry auths.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for k in 0..4 {
            out.push(if k <= chunk.len() {
                ALPHABET[(n >> (18 - 6 * k) & 63) as usize] as char
            } else {
                '='
            });
        }
    }
    out
}

/// One secret of each family issue 29 found passing every write path: (the rule the refusal
/// names, a text holding it, the secret). Built by concatenation so no literal credential sits
/// in the source.
pub(crate) fn families() -> Vec<(&'static str, String, String)> {
    let pw = ["Hq7z", "K2pL", "9xWv"].concat();
    let basic = base64(format!("deploy:{pw}").as_bytes());
    let braintree = [
        "access_token$production$",
        "q7x4kz9b2mcdf3pw",
        "$",
        "0f3a9c1e5b7d2a4c6e8f0a1b3c5d7e9f",
    ]
    .concat();
    vec![
        (
            "basic-auth",
            format!("the hook sends Authorization: Basic {basic}"),
            basic.clone(),
        ),
        (
            "registry-auth",
            format!("{{\"auths\": {{\"registry.acme.dev\": {{\"auth\": \"{basic}\"}}}}}}"),
            basic.clone(),
        ),
        (
            "password-flag",
            format!("deploy with sshpass -p {pw} ssh deploy@bastion"),
            pw.clone(),
        ),
        (
            "password-flag",
            format!("mysql -u app -p{pw} shop"),
            pw.clone(),
        ),
        (
            "password-flag",
            format!("redis-cli -h cache -a {pw} ping"),
            pw.clone(),
        ),
        (
            "login-credentials",
            format!("staging console login: admin / {pw}"),
            pw.clone(),
        ),
        (
            "secret-in-prose",
            "the passphrase for the signing key is correct-horse-battery-staple".into(),
            "correct-horse-battery-staple".into(),
        ),
        (
            "secret-in-prose",
            format!("Das Passwort für den Server ist {pw}!"),
            pw.clone(),
        ),
        (
            "secret-in-prose",
            format!("La contraseña del servidor es {pw}!"),
            pw.clone(),
        ),
        ("secret-in-prose", format!("数据库密码是 {pw}"), pw.clone()),
        (
            "netrc-password",
            format!("machine git.acme.dev login ci password {pw}"),
            pw.clone(),
        ),
        (
            "braintree-access-token",
            format!("BT token {braintree}"),
            braintree,
        ),
    ]
}

#[track_caller]
fn assert_refused(out: &crate::common::Output, rule: &str, place: &str, secret: &str, what: &str) {
    assert_ne!(out.code, 0, "{what}: accepted\n{}", out.snapshot());
    assert!(
        out.stderr
            .contains(&format!("refusing to record a secret ({rule})")),
        "{what}: {}",
        out.stderr
    );
    assert!(
        out.stderr.contains(place),
        "{what}: no {place}: {}",
        out.stderr
    );
    assert!(
        !out.stderr.contains(secret),
        "{what}: echoed: {}",
        out.stderr
    );
    assert!(
        !out.stdout.contains(secret),
        "{what}: echoed: {}",
        out.stdout
    );
}

/// Issue 29: a secret of every new family is refused on every write path — the record
/// commands, a view edit on save, the imports — naming the rule and where it sits, never
/// echoing it; nothing reaches the object database.
#[test]
fn every_new_family_is_refused_on_every_write_path() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a\n", "first");
    repo.rune(&["-q", "init"]).success();
    let refs = repo.refs();
    for (rule, text, secret) in families() {
        let t = text.as_str();
        let commands: Vec<(Vec<&str>, &str)> = vec![
            (
                vec!["learn", "--type", "insight", "--key", "k", "--insight", t],
                "--insight",
            ),
            (
                vec![
                    "decide",
                    "t",
                    "--context",
                    t,
                    "--decision",
                    "d",
                    "--rationale",
                    "r",
                    "--impact",
                    "i",
                ],
                "--context",
            ),
            (
                vec!["convention", "t", "--pattern", "p", "--example", t],
                "--example",
            ),
            (
                vec!["remember", "--section", "Attention Points", t],
                "<TEXT>",
            ),
            (
                vec!["checkpoint", "--doing", "x", "--resume", t],
                "--resume",
            ),
            (vec!["progress", "--blocked", t], "--blocked"),
            (
                vec!["task", "add", "deploy", "--context", t],
                "field `context`",
            ),
            (
                vec![
                    "echo",
                    "add",
                    "Gotcha: deploys",
                    "--role",
                    "workers",
                    "--layer",
                    "inscribed",
                    "--confidence",
                    "0.8",
                    "--text",
                    t,
                ],
                "the echo's text",
            ),
        ];
        for (args, place) in commands {
            let out = repo.rune(&args);
            assert_refused(&out, rule, place, &secret, &format!("{args:?}"));
        }
    }
    assert_eq!(repo.refs(), refs, "a refused write changed a ref");
    let objects = all_objects(&repo);
    for (rule, _, secret) in families() {
        assert!(
            !objects.contains(&secret),
            "{rule}: an object holds the secret"
        );
    }
}

#[test]
fn every_new_family_is_refused_in_view_edits_and_imports() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a\n", "first");
    repo.rune(&["-q", "init"]).success();
    let seed = repo.root.parent().unwrap().join("seed-dir");
    let echoes = repo.root.parent().unwrap().join("echoes-dir");
    for (rule, text, secret) in families() {
        let text = text.replace('\n', " ");
        // A view edit on save: refused with file and line; the edit stays on disk.
        let path = ".rune/decisions.md";
        let before = repo.read(path);
        let edited =
            format!("{before}\n## Decision: deploys\n**Context:** {text}\n**Decision:** ship\n");
        repo.write(path, &edited);
        let out = repo.rune(&["save"]);
        assert_refused(&out, rule, ".rune/decisions.md:", &secret, "save");
        assert_eq!(repo.read(path), edited, "the user's edit is kept");
        repo.write(path, &before);
        // A seed's .rune/ folder.
        std::fs::create_dir_all(&seed).unwrap();
        std::fs::write(
            seed.join("decisions.md"),
            format!("## [2026-04-04 10:00] Decision: deploys\n**Context:** {text}\n**Decision:** ship\n"),
        )
        .unwrap();
        let out = repo.rune(&["import", "rune-dir", &seed.display().to_string()]);
        assert_refused(&out, rule, "decisions.md:", &secret, "import rune-dir");
        // An Echoes directory.
        let role = echoes.join("workers");
        std::fs::create_dir_all(&role).unwrap();
        std::fs::write(
            role.join("MEMORY.md"),
            format!(
                "<!-- echo-schema: v1 -->\n# Workers Memory\n\n### [2026-02-11] Gotcha: deploys\n- **layer**: inscribed\n- **source**: manual\n- **confidence**: 0.8\n- **evidence**: `a.txt:1`\n- **verified**: 2026-02-11\n- **supersedes**: none\n- {text}\n"
            ),
        )
        .unwrap();
        let out = repo.rune(&["import", "echoes", &echoes.display().to_string()]);
        assert_refused(&out, rule, "MEMORY.md", &secret, "import echoes");
        // The session protocol's sp.json.
        let sp = repo.root.parent().unwrap().join("sp.json");
        let json = serde_json::json!({
            "metadata": {"version": "2.0"},
            "tasks": [{"id": "TASK_001", "title": "deploy", "status": "pending",
                       "priority": "P1", "category": "CONFIG", "created": "2026-01-01T00:00:00Z",
                       "context": text, "files": []}],
            "context_blocks": []
        });
        std::fs::write(&sp, json.to_string()).unwrap();
        let out = repo.rune(&["import", "sp-json", &sp.display().to_string()]);
        assert_refused(&out, rule, "sp.json", &secret, "import sp-json");
    }
    let objects = all_objects(&repo);
    for (rule, _, secret) in families() {
        assert!(
            !objects.contains(&secret),
            "{rule}: an object holds the secret"
        );
    }
}

/// Issue 29: an agent that leaves a secret in the view is refused by the Stop hook, which
/// still exits 0 (never failing the agent); the log names the rule and the file, not the
/// secret, and the next session start says a hook failed.
#[test]
fn the_agent_hook_refuses_new_families_and_says_so() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a\n", "first");
    repo.rune(&["-q", "init"]).success();
    let payload = |event: &str| {
        serde_json::json!({
            "session_id": "s-secrets", "transcript_path": "/dev/null",
            "cwd": repo.root.to_string_lossy(), "hook_event_name": event,
            "stop_hook_active": false, "source": "startup"
        })
        .to_string()
    };
    let families = families();
    for (rule, text, secret) in families.iter().take(4) {
        let path = ".rune/decisions.md";
        let before = repo.read(path);
        repo.write(
            path,
            &format!("{before}\n## Decision: deploys\n**Context:** {text}\n**Decision:** ship\n"),
        );
        let out = repo.rune_stdin(&["agent", "hook", "Stop"], payload("Stop").as_bytes());
        assert_eq!(
            out.code,
            0,
            "a hook never fails the agent: {}",
            out.snapshot()
        );
        let log = repo.read(".git/rune/agent.log");
        assert!(log.contains(&format!("({rule})")), "{log}");
        assert!(log.contains(".rune/decisions.md"), "{log}");
        assert!(!log.contains(secret.as_str()), "{log}");
        assert!(!out.stdout.contains(secret.as_str()) && !out.stderr.contains(secret.as_str()));
        repo.write(path, &before);
    }
    let start = repo.rune_stdin(
        &["agent", "hook", "SessionStart"],
        payload("SessionStart").as_bytes(),
    );
    assert!(
        start
            .stdout
            .contains("4 hook failures since the last session start"),
        "{}",
        start.stdout
    );
    assert!(
        start
            .stdout
            .contains("refusing to record a secret (password-flag)"),
        "{}",
        start.stdout
    );
    // Said once: the next session start has nothing new to report.
    let again = repo.rune_stdin(
        &["agent", "hook", "SessionStart"],
        payload("SessionStart").as_bytes(),
    );
    assert!(!again.stdout.contains("hook failure"), "{}", again.stdout);
    for (_, _, secret) in &families {
        assert!(!start.stdout.contains(secret.as_str()));
        assert!(!all_objects(&repo).contains(secret.as_str()));
    }
}
