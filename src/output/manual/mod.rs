//! How git-rune describes itself: manual pages with git's sections (`git rune --help` is
//! git's `man git-rune`) and shell completions, generated from the command line's clap
//! definition (the source of `--help`) plus the hand-written tables beside this file (also the top-level
//! help's command groups, the examples and the exit status).

use clap::{Arg, ArgAction};

const ENVIRONMENT: &str = include_str!("environment.txt");
const FILES: &str = include_str!("files.txt");

/// The rows of a `NAME | text` table file.
fn rows(table: &'static str) -> impl Iterator<Item = (&'static str, &'static str)> {
    table
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once(" | "))
}

/// The environment variables git-rune reads: `(name, what it does)`.
pub fn environment() -> Vec<(&'static str, &'static str)> {
    rows(ENVIRONMENT).collect()
}

/// The files and refs git-rune keeps: `(path, what it holds)`.
pub fn files() -> Vec<(&'static str, &'static str)> {
    rows(FILES).collect()
}

const GROUPS: &str = include_str!("groups.txt");
pub(crate) const EXAMPLES: &str = include_str!("examples.txt");

/// The command groups of the top-level help: `(heading, command names)`, in order.
pub fn groups() -> Vec<(&'static str, Vec<&'static str>)> {
    let mut out: Vec<(&str, Vec<&str>)> = Vec::new();
    for line in GROUPS.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        match line.strip_suffix(':') {
            Some(heading) => out.push((heading, Vec::new())),
            None => {
                if let Some(last) = out.last_mut() {
                    last.1.push(line);
                }
            }
        }
    }
    out
}

/// The examples of the command at `path` (`"decide"`, `"task add"`): prose lines and the
/// indented command lines they describe, as written in `examples.txt`.
pub fn examples(path: &str) -> Option<&'static str> {
    let mut rest = EXAMPLES;
    while let Some(at) = rest.find("\n== ") {
        rest = &rest[at + 4..];
        let (name, body) = rest.split_once('\n').unwrap_or((rest, ""));
        if name.trim() == path {
            let end = body.find("\n== ").unwrap_or(body.len());
            return Some(body[..end].trim_end());
        }
    }
    None
}

/// The exit-status table as `--help` and the manual print it: `(code, meaning)`.
pub fn exit_statuses() -> Vec<(String, String)> {
    let mut rows = vec![("0".to_owned(), "success".to_owned())];
    for k in crate::error::Kind::ALL {
        rows.push((k.exit_code().to_string(), k.meaning().to_owned()));
    }
    rows.push((
        "3, 4, 5".into(),
        "a result, not an error: `oracle reattach` (3 not ready, 4 failed, 5 withheld as TAINTED), `context preview` (3 blocked); `verify` exits 1 when memory is not clean, `why` 1 when no note names the commit, `sync` and `gc <remote>` 75 when the remote kept moving (what came in is merged, the push waits)".into(),
    ));
    rows.push((
        "126, 127".into(),
        "`fold`: the command could not be run (126) or was not found (127), as shells say; otherwise `fold` exits with the command's own status".into(),
    ));
    rows
}

/// Text for roff: backslashes escaped, a leading `.` or `'` kept from being a request.
fn esc(s: &str) -> String {
    let s = s.replace('\\', "\\e").replace('-', "\\-");
    if s.starts_with('.') || s.starts_with('\'') {
        format!("\\&{s}")
    } else {
        s
    }
}

/// A paragraph of text (several lines kept as they are).
fn para(out: &mut String, text: &str) {
    for line in text.lines() {
        if line.trim().is_empty() {
            out.push_str(".PP\n");
        } else {
            out.push_str(&esc(line.trim_end()));
            out.push('\n');
        }
    }
}

/// How an argument is written in a synopsis: `--context <TEXT>`, `[--json]`, `<TITLE>`,
/// `[<FILE>...]`, with git's brackets and value names.
pub fn synopsis_of(arg: &Arg) -> String {
    let values = value_names(arg);
    let many = matches!(arg.get_action(), ArgAction::Append | ArgAction::Count)
        || arg.get_num_args().is_some_and(|n| n.max_values() > 1);
    let body = if arg.is_positional() {
        let v = values.join(" ");
        if many {
            format!("{v}...")
        } else {
            v
        }
    } else {
        let flag = match (arg.get_long(), arg.get_short()) {
            (Some(l), _) => format!("--{l}"),
            (None, Some(s)) => format!("-{s}"),
            (None, None) => arg.get_id().to_string(),
        };
        let takes_value = arg.get_action().takes_values();
        let mut s = if takes_value {
            format!("{flag} {}", values.join(" "))
        } else {
            flag
        };
        if many && takes_value {
            s.push_str("...");
        }
        s
    };
    if arg.is_required_set() {
        body
    } else {
        format!("[{body}]")
    }
}

/// The value names of an argument, in angle brackets (`<TEXT>`).
fn value_names(arg: &Arg) -> Vec<String> {
    match arg.get_value_names() {
        Some(names) => names.iter().map(|n| format!("<{n}>")).collect(),
        None => vec![format!("<{}>", arg.get_id().as_str().to_uppercase())],
    }
}

/// The arguments a page documents (not `--help`/`--version`, not hidden ones).
fn shown_args(cmd: &clap::Command) -> impl Iterator<Item = &Arg> {
    cmd.get_arguments()
        .filter(|a| !a.is_hide_set())
        .filter(|a| !matches!(a.get_id().as_str(), "help" | "version"))
}

/// The name of the page of the command at `path`: `git-rune`, `git-rune-task-add`.
fn page_name(path: &[String]) -> String {
    let words: String = path.iter().map(|p| format!("-{p}")).collect();
    format!("git-rune{words}")
}

/// One page: `(file name, roff)`. `path` is the command's words after `git rune`.
fn page(cmd: &clap::Command, path: &[String], top: &clap::Command) -> (String, String) {
    let name = page_name(path);
    let words: String = path.iter().map(|p| format!(" {p}")).collect();
    let invocation = format!("git rune{words}");
    let version = top.get_version().unwrap_or("");
    let mut out = String::new();
    out.push_str(&format!(
        ".TH \"{}\" 1 \"\" \"git-rune {version}\" \"Git Rune Manual\"\n",
        name.to_uppercase()
    ));
    out.push_str(".ie \\n(.g .ds Aq \\(aq\n.el .ds Aq '\n");

    out.push_str(".SH NAME\n");
    let about = cmd.get_about().map(|a| a.to_string()).unwrap_or_default();
    out.push_str(&format!("{} \\- {}\n", esc(&name), esc(&about)));

    out.push_str(".SH SYNOPSIS\n.nf\n");
    // A text flag and its file form (the `<flag>_text` groups: `--context <TEXT>` or
    // `--context-file <FILE>`) as one choice; clap's own groups (one per flattened struct)
    // are not choices.
    let groups: Vec<&clap::ArgGroup> = cmd
        .get_groups()
        .filter(|g| g.get_id().as_str().ends_with("_text") && g.get_args().count() > 1)
        .collect();
    let options: Vec<&Arg> = shown_args(cmd)
        .filter(|a| !a.is_global_set() || path.is_empty())
        .collect();
    let mut args: Vec<String> = Vec::new();
    let mut done_groups: Vec<&str> = Vec::new();
    for &a in &options {
        match groups
            .iter()
            .find(|g| g.get_args().any(|id| id == a.get_id()))
        {
            Some(g) if done_groups.contains(&g.get_id().as_str()) => {}
            Some(g) => {
                done_groups.push(g.get_id().as_str());
                let choices: Vec<String> = g
                    .get_args()
                    .filter_map(|id| cmd.get_arguments().find(|x| x.get_id() == id))
                    .map(|x| {
                        let s = synopsis_of(x);
                        s.strip_prefix('[')
                            .and_then(|s| s.strip_suffix(']'))
                            .map(str::to_owned)
                            .unwrap_or(s)
                    })
                    .collect();
                args.push(if g.is_required_set() {
                    format!("({})", choices.join(" | "))
                } else {
                    format!("[{}]", choices.join(" | "))
                });
            }
            None => args.push(synopsis_of(a)),
        }
    }
    let sub = if cmd.has_subcommands() {
        if cmd.is_subcommand_required_set() {
            " <command> [<args>]"
        } else {
            " [<command> [<args>]]"
        }
    } else {
        ""
    };
    out.push_str(&format!(
        "\\fB{}\\fR {}{}\n.fi\n",
        esc(&invocation),
        esc(&args.join(" ")),
        sub
    ));

    out.push_str(".SH DESCRIPTION\n");
    let long = cmd
        .get_long_about()
        .or(cmd.get_about())
        .map(|a| a.to_string())
        .unwrap_or_default();
    para(&mut out, &long);

    if !options.is_empty() {
        out.push_str(".SH OPTIONS\n");
        for a in options {
            out.push_str(".TP\n");
            out.push_str(&format!("\\fB{}\\fR\n", esc(&option_label(a))));
            let help = a
                .get_long_help()
                .or(a.get_help())
                .map(|h| h.to_string())
                .unwrap_or_default();
            para(&mut out, &help);
            let possible: Vec<String> = a
                .get_possible_values()
                .iter()
                .filter(|v| !v.is_hide_set())
                .map(|v| v.get_name().to_owned())
                .collect();
            if !possible.is_empty() && a.get_action().takes_values() {
                para(&mut out, &format!("One of: {}.", possible.join(", ")));
            }
            let defaults: Vec<String> = a
                .get_default_values()
                .iter()
                .map(|v| v.to_string_lossy().into_owned())
                .collect();
            if !defaults.is_empty() && a.get_action().takes_values() {
                para(&mut out, &format!("Default: {}.", defaults.join(", ")));
            }
        }
        if !path.is_empty() {
            out.push_str(".PP\nThe global options -C <PATH>, --json, -q and --color, and --no-pager, are described in \\fBgit-rune\\fR(1).\n");
        }
    }

    let subs: Vec<&clap::Command> = cmd.get_subcommands().filter(|s| !s.is_hide_set()).collect();
    if !subs.is_empty() {
        out.push_str(".SH COMMANDS\n");
        if path.is_empty() {
            for (heading, names) in self::groups() {
                out.push_str(&format!(".SS \"{}\"\n", esc(heading)));
                for n in names {
                    if let Some(s) = subs.iter().find(|s| s.get_name() == n) {
                        command_item(&mut out, s, path);
                    }
                }
            }
        } else {
            for s in &subs {
                command_item(&mut out, s, path);
            }
        }
    }

    let key = path.join(" ");
    if let Some(ex) = examples(&key) {
        out.push_str(".SH EXAMPLES\n");
        for line in ex.lines() {
            if let Some(code) = line.strip_prefix("    ") {
                out.push_str(&format!(".RS 4\n.nf\n{}\n.fi\n.RE\n", esc(code)));
            } else if !line.trim().is_empty() {
                out.push_str(&format!(".PP\n{}\n", esc(line)));
            }
        }
    }

    out.push_str(".SH \"EXIT STATUS\"\n");
    for (code, meaning) in exit_statuses() {
        out.push_str(&format!(".TP\n\\fB{}\\fR\n{}\n", esc(&code), esc(&meaning)));
    }

    out.push_str(".SH ENVIRONMENT\n");
    for (var, what) in environment() {
        out.push_str(&format!(".TP\n\\fB{}\\fR\n{}\n", esc(var), esc(what)));
    }

    out.push_str(".SH CONFIGURATION\n");
    out.push_str("Set with \\fBgit config\\fR; a value of the wrong type is a warning naming the key, and the default applies.\n");
    for s in crate::settings::all() {
        out.push_str(&format!(
            ".TP\n\\fB{}\\fR (\\fI{}\\fR, default {})\n{}\n",
            esc(s.key),
            esc(s.ty.name()),
            esc(s.default),
            esc(s.about)
        ));
    }

    out.push_str(".SH FILES\n");
    for (file, what) in files() {
        out.push_str(&format!(".TP\n\\fI{}\\fR\n{}\n", esc(file), esc(what)));
    }

    out.push_str(".SH \"SEE ALSO\"\n");
    let mut see: Vec<String> = Vec::new();
    if let Some((_, parent)) = path.split_last() {
        see.push(format!("\\fB{}\\fR(1)", esc(&page_name(parent))));
    }
    for s in &subs {
        let sub = format!("{name}-{}", s.get_name());
        see.push(format!("\\fB{}\\fR(1)", esc(&sub)));
    }
    see.push("\\fBgit\\fR(1)".into());
    see.push("\\fBgit\\-notes\\fR(1)".into());
    out.push_str(&see.join(", "));
    out.push_str("\n.PP\nThe reference: docs/cli.md, docs/config.md, docs/json.md and docs/storage.md in git-rune's repository.\n");
    (format!("{name}.1"), out)
}

/// An option's label in OPTIONS: `-C <PATH>`, `-q, --quiet`, `--type <TYPE>`.
fn option_label(a: &Arg) -> String {
    if a.is_positional() {
        return value_names(a).join(" ");
    }
    let mut names = Vec::new();
    if let Some(s) = a.get_short() {
        names.push(format!("-{s}"));
    }
    if let Some(l) = a.get_long() {
        names.push(format!("--{l}"));
    }
    let mut label = names.join(", ");
    if a.get_action().takes_values() {
        label.push(' ');
        label.push_str(&value_names(a).join(" "));
    }
    label
}

/// One subcommand in a COMMANDS list.
fn command_item(out: &mut String, s: &clap::Command, path: &[String]) {
    out.push_str(&format!(
        ".TP\n\\fB{}\\fR(1)\n{}\n",
        esc(&format!("{}-{}", page_name(path), s.get_name())),
        esc(&s.get_about().map(|a| a.to_string()).unwrap_or_default())
    ));
}

/// The manual pages of git-rune and its subcommands: `(file name, roff)`.
pub fn man_pages(cli: clap::Command) -> Vec<(String, Vec<u8>)> {
    fn walk(
        cmd: &clap::Command,
        path: &mut Vec<String>,
        top: &clap::Command,
        out: &mut Vec<(String, Vec<u8>)>,
    ) {
        let (name, text) = page(cmd, path, top);
        out.push((name, text.into_bytes()));
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            path.push(sub.get_name().to_owned());
            walk(sub, path, top, out);
            path.pop();
        }
    }
    let mut cmd = cli.disable_help_subcommand(true);
    cmd.build();
    let mut out = Vec::new();
    walk(&cmd, &mut Vec::new(), &cmd, &mut out);
    out
}

/// Where `man` finds pages for programs in the directory git-rune runs from: man-db adds
/// `<dir>/../share/man` for every `<dir>` on PATH, so beside `cargo install`'s `~/.cargo/bin`
/// that is `~/.cargo/share/man`. `GIT_RUNE_MAN_DIR` names another directory.
pub fn default_man_dir() -> Option<std::path::PathBuf> {
    if let Some(dir) = std::env::var_os("GIT_RUNE_MAN_DIR").filter(|d| !d.is_empty()) {
        return Some(dir.into());
    }
    let exe = std::env::current_exe().ok()?;
    let bin = exe.parent()?;
    Some(bin.parent()?.join("share").join("man").join("man1"))
}

/// Whether the top-level page is installed where `man` finds it beside the binary (or in
/// `GIT_RUNE_MAN_DIR`), for the hint that says how to install it.
pub fn man_pages_installed() -> bool {
    default_man_dir().is_some_and(|d| d.join("git-rune.1").is_file())
}

/// Writes the manual pages into `dir` (created if needed); returns how many were new or
/// changed. `git rune --help` is git's `man git-rune`, which reads them.
pub fn install_man_pages(cli: clap::Command, dir: &std::path::Path) -> std::io::Result<usize> {
    std::fs::create_dir_all(dir)?;
    let mut changed = 0;
    for (name, page) in man_pages(cli) {
        let path = dir.join(name);
        if std::fs::read(&path).ok().as_deref() != Some(page.as_slice()) {
            std::fs::write(&path, page)?;
            changed += 1;
        }
    }
    Ok(changed)
}

/// A completion script for `shell`, for the `git-rune` program; for bash also the
/// `_git_rune` function git's own completion calls for `git rune <TAB>`.
pub fn completions_script(cli: clap::Command, shell: clap_complete::Shell) -> Vec<u8> {
    let mut out = Vec::new();
    if shell == clap_complete::Shell::Bash {
        // clap_complete's bash script names its cases after the binary with `-` turned into
        // `__` in one place and into `__subcmd__` in another, so for `git-rune` no case
        // past the first word ever matched. Generated for a name without a dash, the names
        // agree; only the `complete` line needs the real program name.
        let mut cmd = cli.bin_name("git__rune");
        clap_complete::generate(shell, &mut cmd, "git__rune", &mut out);
        let script = String::from_utf8_lossy(&out)
            .replace("-o default git__rune\n", "-o default git-rune\n");
        let mut script = script;
        script.push_str(
            "\n# `git rune <TAB>`: git's completion calls _git_rune; complete as for git-rune,\n\
             # from the words after `rune`.\n\
             _git_rune() {\n    \
             local i=1\n    \
             while [[ $i -lt ${#COMP_WORDS[@]} && ${COMP_WORDS[i]} != rune ]]; do i=$((i + 1)); done\n    \
             local COMP_WORDS=(git-rune \"${COMP_WORDS[@]:i+1}\")\n    \
             local COMP_CWORD=$((COMP_CWORD - i))\n    \
             local prev=\n    \
             [[ $COMP_CWORD -gt 0 ]] && prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n    \
             _git__rune git-rune \"${COMP_WORDS[COMP_CWORD]}\" \"$prev\"\n}\n",
        );
        return script.into_bytes();
    }
    let mut cmd = cli.bin_name("git-rune");
    clap_complete::generate(shell, &mut cmd, "git-rune", &mut out);
    out
}
