//! How git-rune describes itself: manual pages (`git rune --help` is git's `man git-rune`)
//! and shell completions, both generated from the command line's clap definition.

/// The manual pages of git-rune and its subcommands (clap_mangen): `(file name, roff)`.
pub fn man_pages(cli: clap::Command) -> Vec<(String, Vec<u8>)> {
    fn walk(cmd: &clap::Command, out: &mut Vec<(String, Vec<u8>)>) {
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            walk(sub, out);
        }
        let man = clap_mangen::Man::new(cmd.clone());
        let mut page = Vec::new();
        if man.render(&mut page).is_ok() {
            out.push((man.get_filename(), page));
        }
    }
    let mut cmd = cli.disable_help_subcommand(true);
    cmd.build();
    let mut out = Vec::new();
    walk(&cmd, &mut out);
    out
}

/// Where `man` finds pages for programs in the directory git-rune runs from: man-db adds
/// `<dir>/../share/man` for every `<dir>` on PATH, so beside `cargo install`'s `~/.cargo/bin`
/// that is `~/.cargo/share/man`.
///
/// `GIT_RUNE_MAN_DIR` names another directory; set empty, nothing is installed by `init`.
pub fn default_man_dir() -> Option<std::path::PathBuf> {
    if let Some(dir) = std::env::var_os("GIT_RUNE_MAN_DIR") {
        return (!dir.is_empty()).then(|| dir.into());
    }
    let exe = std::env::current_exe().ok()?;
    let bin = exe.parent()?;
    Some(bin.parent()?.join("share").join("man").join("man1"))
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
    let mut cmd = cli.bin_name("git-rune");
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "git-rune", &mut out);
    if shell == clap_complete::Shell::Bash {
        out.extend_from_slice(
            b"\n# `git rune <TAB>`: git's completion calls _git_rune with the words after `git`.\n\
              _git_rune() {\n    local COMP_WORDS=(git-rune \"${COMP_WORDS[@]:2}\")\n    \
              local COMP_CWORD=$((COMP_CWORD - 1))\n    _git__rune git-rune \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\"\n}\n",
        );
    }
    out
}
