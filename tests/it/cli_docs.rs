//! docs/cli.md is generated from the clap definitions; this test fails when it is out of date.
//! Regenerate with `UPDATE_CLI_DOCS=1 cargo test --locked cli_docs`.

fn render() -> String {
    let mut cmd = git_rune::cli::command().term_width(100);
    let mut out = String::from(
        "# Command reference\n\n<!-- generated from src/cli/ by tests/it/cli_docs.rs; do not edit -->\n\n\
         `--json` output shapes are described in [json.md](json.md).\n\n## git rune\n\n```text\n",
    );
    out.push_str(&cmd.render_long_help().to_string());
    out.push_str("```\n");
    out.push_str("\n## Exit status\n\n| code | meaning |\n| --- | --- |\n");
    for (code, meaning) in git_rune::cli::exit_statuses() {
        out.push_str(&format!("| {code} | {meaning} |\n"));
    }
    out.push_str("\n## Environment\n\n| variable | what it does |\n| --- | --- |\n");
    for (name, what) in git_rune::cli::environment() {
        out.push_str(&format!("| `{name}` | {what} |\n"));
    }
    out.push_str(
        "\n## Configuration\n\nThe `rune.*` settings are listed in [config.md](config.md).\n",
    );
    cmd.build();
    sections(&mut out, "git rune", &mut cmd, 2);
    out.lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// One section per subcommand, nested ones (`git rune task add`) one heading level deeper.
fn sections(out: &mut String, path: &str, cmd: &mut clap::Command, level: usize) {
    for sub in cmd.get_subcommands_mut() {
        if sub.get_name() == "help" {
            continue;
        }
        let name = format!("{path} {}", sub.get_name());
        out.push_str(&format!(
            "\n{} {name}\n\n```text\n",
            "#".repeat(level.min(6))
        ));
        out.push_str(&sub.render_long_help().to_string());
        out.push_str("```\n");
        sections(out, &name, sub, level + 1);
    }
}

#[test]
fn config_reference_is_up_to_date() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/config.md");
    let want = git_rune::cli::config_reference();
    if std::env::var_os("UPDATE_CLI_DOCS").is_some() {
        std::fs::write(&path, &want).unwrap();
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/config.md is out of date: run `UPDATE_CLI_DOCS=1 cargo test --locked cli_docs`"
    );
}

#[test]
fn cli_reference_is_up_to_date() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/cli.md");
    let want = render();
    if std::env::var_os("UPDATE_CLI_DOCS").is_some() {
        std::fs::write(&path, &want).unwrap();
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/cli.md is out of date: run `UPDATE_CLI_DOCS=1 cargo test --locked cli_docs`"
    );
}
