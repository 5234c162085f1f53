//! The command line: the global flags and the subcommands (clap derive; the subcommands and
//! their dispatch live in `commands`), and what `--help` adds to clap's text: the grouped
//! command list (`groups.txt`), the examples (`examples.txt`) and the exit status
//! (their tables are the manual's, in `output/manual`).

use std::ffi::OsString;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::commands::{Command, GlobalArgs};
pub use crate::output::manual::{examples, exit_statuses, groups};

/// Git-native memory for AI coding agents: decisions, conventions, progress and checkpoints
/// committed under refs/rune/, checked out as the .rune/ view.
#[derive(Debug, Parser)]
#[command(
    name = "git-rune",
    bin_name = "git rune",
    version,
    max_term_width = 100,
    disable_help_subcommand = true
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,

    #[command(subcommand)]
    pub command: Command,
}

/// The environment variables git-rune reads: `(name, what it does)` (docs/cli.md and the
/// manual's ENVIRONMENT).
pub use crate::output::manual::environment;

/// The command line of the two entry points git-rune's own hooks call: `hook <name> …` (the
/// git hook shims, at every commit) and `agent …` (the agents' settings, at every tool call).
/// Building the parser of every command cost more than the rest of a PostToolUse tick, so
/// these are parsed by a parser of those two subcommands alone, with the same global flags
/// and the same argument types: a command line it takes means what the full parser reads
/// (`hook_entry_parses_as_the_full_parser_does`). Help, a version, a usage error or any
/// other command goes to the full parser.
#[derive(Debug, Parser)]
#[command(name = "git-rune", disable_help_subcommand = true)]
struct HookEntry {
    #[command(flatten)]
    global: GlobalArgs,

    #[command(subcommand)]
    command: HookCommand,
}

#[derive(Debug, Subcommand)]
enum HookCommand {
    Hook(crate::commands::hooks::HookArgs),
    Agent(crate::commands::agent::AgentArgs),
}

/// `args` (the program's name first) parsed, when it runs `hook` or `agent` and parses; the
/// full parser reads everything else.
pub fn parse_hook_entry(args: &[OsString]) -> Option<Cli> {
    let first = args.get(1)?;
    if first != "hook" && first != "agent" {
        return None;
    }
    let matches = HookEntry::command().try_get_matches_from(args).ok()?;
    let entry = HookEntry::from_arg_matches(&matches).ok()?;
    Some(Cli {
        global: entry.global,
        command: match entry.command {
            HookCommand::Hook(a) => Command::Hook(a),
            HookCommand::Agent(a) => Command::Agent(a),
        },
    })
}

/// docs/config.md: every `rune.*` setting, from the one settings table.
pub use crate::settings::markdown as config_reference;

/// The command line as clap sees it, with the grouped command list, examples and the exit
/// status added to `--help` (and so to the manual pages and completions, which describe it,
/// and the generated docs/cli.md).
pub fn command() -> clap::Command {
    let mut cmd = Cli::command();
    cmd = with_examples(cmd, "");
    let mut status = String::from("Exit status:\n");
    for (code, meaning) in exit_statuses() {
        status.push_str(&format!("  {code:<9} {meaning}\n"));
    }
    let listing = grouped_listing(&cmd);
    cmd.help_template(format!(
        "{{about-with-newline}}\n{{usage-heading}} {{usage}}\n\n{listing}Options:\n{{options}}{{after-help}}"
    ))
    .after_long_help(format!(
        "{status}\n`git rune <command> --help` tells more about a command; `git rune install-man` installs the manual pages `git rune --help` opens."
    ))
    .after_help("`git rune <command> --help` tells more about a command.")
}

/// The subcommands under their group headings, as the top-level help lists them.
fn grouped_listing(cmd: &clap::Command) -> String {
    let width = cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set())
        .map(|s| s.get_name().len())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for (heading, names) in groups() {
        let rows: Vec<String> = names
            .iter()
            .filter_map(|n| cmd.find_subcommand(n))
            .filter(|s| !s.is_hide_set())
            .map(|s| {
                let about = s.get_about().map(|a| a.to_string()).unwrap_or_default();
                format!("  {:<width$}  {about}\n", s.get_name())
            })
            .collect();
        if rows.is_empty() {
            continue;
        }
        out.push_str(&format!("{heading}:\n{}\n", rows.concat()));
    }
    out
}

/// Adds each command's examples to its `--help` (after the options).
fn with_examples(mut cmd: clap::Command, path: &str) -> clap::Command {
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_owned())
        .collect();
    for name in names {
        let sub_path = format!("{path} {name}").trim_start().to_owned();
        cmd = cmd.mut_subcommand(&name, |sub| {
            let sub = with_examples(sub, &sub_path);
            match examples(&sub_path) {
                Some(ex) => sub.after_long_help(format!("Examples:\n{ex}")),
                None => sub,
            }
        });
    }
    cmd
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_visible_command_is_in_exactly_one_group() {
        let cmd = command();
        let grouped: Vec<&str> = groups().into_iter().flat_map(|(_, n)| n).collect();
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            let n = grouped.iter().filter(|g| **g == sub.get_name()).count();
            assert_eq!(n, 1, "{} is in {n} groups", sub.get_name());
        }
        for g in grouped {
            assert!(
                cmd.find_subcommand(g).is_some() || g == "mcp",
                "groups.txt names {g}, which is not a command"
            );
        }
    }

    #[test]
    fn examples_name_real_commands() {
        let cmd = command();
        for line in crate::output::manual::EXAMPLES
            .lines()
            .filter_map(|l| l.strip_prefix("== "))
        {
            let mut c = &cmd;
            for part in line.split(' ') {
                c = c
                    .find_subcommand(part)
                    .unwrap_or_else(|| panic!("examples.txt: no command {line:?}"));
            }
        }
        assert!(examples("decide").unwrap().contains("git rune decide"));
        assert!(examples("nothing").is_none());
    }

    #[test]
    fn pages_have_gits_sections_and_value_names() {
        let pages = crate::output::manual::man_pages(command());
        let top = pages.iter().find(|(n, _)| n == "git-rune.1").unwrap();
        let top = String::from_utf8_lossy(&top.1);
        for section in [
            ".SH NAME",
            ".SH SYNOPSIS",
            ".SH DESCRIPTION",
            ".SH OPTIONS",
            ".SH COMMANDS",
            ".SH \"EXIT STATUS\"",
            ".SH ENVIRONMENT",
            ".SH CONFIGURATION",
            ".SH FILES",
            ".SH \"SEE ALSO\"",
        ] {
            assert!(top.contains(section), "git-rune.1 lacks {section}");
        }
        assert!(top.contains("[\\-C <PATH>]"), "{top}");
        assert!(top.contains("GIT_RUNE_SKIP_HOOKS") && top.contains("GIT_RUNE_DATA_DIR"));
        assert!(top.contains("rune.strictPush"));
        let decide = pages
            .iter()
            .find(|(n, _)| n == "git-rune-decide.1")
            .unwrap();
        let decide = String::from_utf8_lossy(&decide.1);
        assert!(
            decide.contains("\\-\\-context <CONTEXT>") || decide.contains("\\-\\-context <TEXT>"),
            "{decide}"
        );
        assert!(decide.contains(".SH EXAMPLES"), "{decide}");
        assert!(
            decide.contains("(\\-\\-context <TEXT> | \\-\\-context\\-file <FILE>)"),
            "{decide}"
        );
        assert!(pages.iter().any(|(n, _)| n == "git-rune-task-add.1"));
    }

    #[test]
    fn hook_entry_parses_as_the_full_parser_does() {
        let full = |args: &[&str]| -> Option<String> {
            let m = command().try_get_matches_from(args).ok()?;
            Some(format!("{:?}", Cli::from_arg_matches(&m).ok()?))
        };
        let fast = |args: &[&str]| -> Option<String> {
            let args: Vec<OsString> = args.iter().map(OsString::from).collect();
            parse_hook_entry(&args).map(|c| format!("{c:?}"))
        };
        for args in [
            &["git-rune", "hook", "post-commit"][..],
            &[
                "git-rune",
                "hook",
                "pre-push",
                "origin",
                "https://example.com/r.git",
            ],
            &["git-rune", "hook", "post-rewrite", "amend"],
            &["git-rune", "hook", "post-checkout", "a", "b", "1"],
            &["git-rune", "hook", "x", "-q", "--json"],
            &["git-rune", "agent", "hook", "PostToolUse"],
            &[
                "git-rune",
                "agent",
                "hook",
                "--agent",
                "codex",
                "PostToolUse",
            ],
            &["git-rune", "agent", "hook", "--plugin", "Stop"],
            &["git-rune", "agent", "hook", "PostToolUse", "-q"],
            &["git-rune", "agent", "status", "--json", "-C", "/tmp"],
            &["git-rune", "agent", "install", "codex", "--user"],
        ] {
            let want = full(args);
            assert!(want.is_some(), "{args:?} parses");
            assert_eq!(fast(args), want, "{args:?}");
        }
        // What the full parser must tell (help, errors) or another command: not taken.
        for args in [
            &["git-rune", "agent", "--help"][..],
            &["git-rune", "agent", "hook", "--help"],
            &["git-rune", "hook"],
            &["git-rune", "agent", "hook", "--bogus", "Stop"],
            &["git-rune", "-q", "hook", "post-commit"],
            &["git-rune", "status"],
            &["git-rune"],
        ] {
            assert_eq!(fast(args), None, "{args:?}");
        }
    }
}
