//! `TestRepo`: a temporary git repository with a pinned environment, and the real binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

#[path = "../support/daemon.rs"]
mod daemon;
pub use daemon::GitDaemon;

/// The output of one command.
#[derive(Debug)]
pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Output {
    pub fn of(out: std::process::Output) -> Output {
        Output {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// Exit code, stdout and stderr together, for snapshots.
    pub fn snapshot(&self) -> String {
        format!(
            "exit: {}\n--- stdout\n{}--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }

    #[track_caller]
    pub fn success(self) -> Self {
        assert_eq!(self.code, 0, "command failed:\n{}", self.snapshot());
        self
    }

    #[track_caller]
    pub fn failure(self) -> Self {
        assert_ne!(
            self.code,
            0,
            "command unexpectedly succeeded:\n{}",
            self.snapshot()
        );
        self
    }
}

/// A scratch repository; dropped with its directory.
pub struct TestRepo {
    _tmp: tempfile::TempDir,
    pub root: PathBuf,
    pub home: PathBuf,
    tick: AtomicU32,
}

pub const EPOCH: i64 = 1_767_225_600; // 2026-01-01T00:00:00Z

impl TestRepo {
    /// `git init -b main` with a configured identity.
    pub fn new() -> TestRepo {
        let repo = TestRepo::empty_dir();
        repo.git(&["init", "-q", "-b", "main"]);
        repo.git(&["config", "user.name", "Test User"]);
        repo.git(&["config", "user.email", "test@example.com"]);
        repo
    }

    /// A temporary directory that is not yet a repository.
    pub fn empty_dir() -> TestRepo {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path().join("repo");
        let home = tmp.path().join("home");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(home.join(".gitconfig"), "").unwrap();
        TestRepo {
            _tmp: tmp,
            root,
            home,
            tick: AtomicU32::new(0),
        }
    }

    fn next_time(&self) -> i64 {
        EPOCH + 60 * i64::from(self.tick.fetch_add(1, Ordering::SeqCst))
    }

    /// The pinned environment shared by git and git-rune.
    pub fn env(&self, cmd: &mut Command) {
        let t = self.next_time();
        let date = format!("{t} +0000");
        cmd.current_dir(&self.root)
            .env_clear()
            .env("PATH", path_with_binary())
            .env("HOME", &self.home)
            .env("GIT_CONFIG_GLOBAL", self.home.join(".gitconfig"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            // init installs manual pages beside the binary; not from tests.
            .env("GIT_RUNE_MAN_DIR", "")
            .env("TZ", "UTC")
            .env("LC_ALL", "C")
            .env("GIT_AUTHOR_DATE", &date)
            .env("GIT_COMMITTER_DATE", &date)
            .env(
                "GIT_RUNE_TIMESTAMP",
                chrono::DateTime::from_timestamp(t, 0)
                    .unwrap()
                    .format("%Y-%m-%dT%H:%M:%SZ")
                    .to_string(),
            )
            .stdin(Stdio::null());
    }

    /// Runs `git-rune` with `args` in the repository.
    #[must_use = "check the exit code with .success() or .failure()"]
    pub fn rune(&self, args: &[&str]) -> Output {
        self.rune_in(&self.root, args)
    }

    /// Runs `git-rune` in `dir`.
    #[must_use = "check the exit code with .success() or .failure()"]
    pub fn rune_in(&self, dir: &Path, args: &[&str]) -> Output {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_git-rune"));
        self.env(&mut cmd);
        cmd.current_dir(dir).args(args);
        Output::of(cmd.output().expect("run git-rune"))
    }

    /// Runs `git-rune` with `input` on stdin.
    #[must_use = "check the exit code with .success() or .failure()"]
    pub fn rune_stdin(&self, args: &[&str], input: &[u8]) -> Output {
        use std::io::Write as _;
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_git-rune"));
        self.env(&mut cmd);
        let mut child = cmd
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run git-rune");
        child.stdin.take().unwrap().write_all(input).unwrap();
        Output::of(child.wait_with_output().unwrap())
    }

    /// Runs git and returns trimmed stdout; panics on failure.
    pub fn git(&self, args: &[&str]) -> String {
        let mut cmd = Command::new("git");
        self.env(&mut cmd);
        let out = cmd.args(args).output().expect("run git");
        assert!(
            out.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim_end().to_owned()
    }

    /// Runs git and returns its whole output, whether it failed or not.
    pub fn git_output(&self, args: &[&str]) -> std::process::Output {
        let mut cmd = Command::new("git");
        self.env(&mut cmd);
        cmd.args(args).output().expect("run git")
    }

    /// Runs git with `input` on stdin and returns trimmed stdout; panics on failure.
    pub fn git_stdin(&self, args: &[&str], input: &str) -> String {
        use std::io::Write as _;
        let mut cmd = Command::new("git");
        self.env(&mut cmd);
        let mut child = cmd
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run git");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim_end().to_owned()
    }

    /// Writes `path` and commits it; returns the new HEAD.
    pub fn commit_file(&self, path: &str, content: &str, message: &str) -> String {
        self.write(path, content);
        self.git(&["add", path]);
        self.git(&["commit", "-q", "-m", message]);
        self.git(&["rev-parse", "HEAD"])
    }

    pub fn write(&self, path: &str, content: &str) {
        let p = self.root.join(path);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(p, content).unwrap();
    }

    /// `git rune -q decide <title>` with context `ctx`, the given decision, rationale `r`
    /// and impact `i`, then `extra`; panics on failure.
    pub fn decide(&self, title: &str, decision: &str, extra: &[&str]) {
        let mut args = vec![
            "-q",
            "decide",
            title,
            "--context",
            "ctx",
            "--decision",
            decision,
            "--rationale",
            "r",
            "--impact",
            "i",
        ];
        args.extend_from_slice(extra);
        self.rune(&args).success();
    }

    /// `git rune -q learn --type insight --key <key> --insight <insight>`; panics on failure.
    pub fn learn(&self, key: &str, insight: &str) {
        self.rune(&learn_args(key, insight, &[])).success();
    }

    /// Appends `text` to a file of the work tree (creating it).
    pub fn append(&self, path: &str, text: &str) {
        use std::io::Write as _;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.root.join(path))
            .unwrap_or_else(|e| panic!("open {path}: {e}"));
        f.write_all(text.as_bytes()).unwrap();
    }

    pub fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.root.join(path)).unwrap_or_else(|e| panic!("read {path}: {e}"))
    }

    /// `git show-ref` of everything under refs/rune and refs/notes, for "nothing changed" checks.
    pub fn refs(&self) -> String {
        let mut cmd = Command::new("git");
        self.env(&mut cmd);
        let out = cmd
            .args([
                "for-each-ref",
                "--format=%(refname) %(objectname)",
                "refs/rune",
                "refs/notes",
            ])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

/// PATH with the built git-rune first, so `git rune` and the installed hooks find it.
pub fn path_with_binary() -> std::ffi::OsString {
    let bin = Path::new(env!("CARGO_BIN_EXE_git-rune"))
        .parent()
        .unwrap()
        .to_path_buf();
    let mut paths = vec![bin];
    paths.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(paths).unwrap()
}

/// `decide <title>` with placeholder context, decision ("d"), rationale and impact, then `extra`.
pub fn decide_args<'a>(title: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "decide",
        title,
        "--context",
        "c",
        "--decision",
        "d",
        "--rationale",
        "r",
        "--impact",
        "i",
    ];
    args.extend_from_slice(extra);
    args
}

/// `learn --type insight --key <key> --insight <insight>`, then `extra`.
pub fn learn_args<'a>(key: &'a str, insight: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "-q",
        "learn",
        "--type",
        "insight",
        "--key",
        key,
        "--insight",
        insight,
    ];
    args.extend_from_slice(extra);
    args
}

/// An object id from hex.
pub fn oid(hex: &str) -> gix::ObjectId {
    gix::ObjectId::from_hex(hex.as_bytes()).expect("hex object id")
}

/// Parses JSON Lines output.
pub fn json_lines(s: &str) -> Vec<serde_json::Value> {
    s.lines()
        .map(|l| serde_json::from_str(l).expect("valid JSON line"))
        .collect()
}

/// Insta settings that redact object ids, record ids and the temporary path.
#[macro_export]
macro_rules! assert_rune_snapshot {
    ($repo:expr, $out:expr) => {{
        let root = $repo.root.display().to_string();
        let mut settings = insta::Settings::clone_current();
        settings.add_filter(&$crate::common::regex_escape(&root), "[REPO]");
        settings.add_filter(r"\b[0-9a-f]{64}\b", "[ID]");
        settings.add_filter(r"\b[0-9a-f]{40}\b", "[OID]");
        settings.add_filter(r"\b[0-9a-f]{8}\b", "[SHORT]");
        settings.add_filter(r"\b[0-9a-f]{7}\b", "[SHORT]");
        settings.bind(|| insta::assert_snapshot!($out.snapshot()));
    }};
}

pub fn regex_escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Asserts that `status` calls the view clean.
pub fn assert_view_clean(repo: &TestRepo) {
    let out = repo.rune(&["status"]).success().stdout;
    assert!(out.contains(".rune/ is clean"), "{out}");
}

/// A bare repository the clones share.
pub struct Remote {
    _dir: tempfile::TempDir,
    pub path: PathBuf,
}

impl Remote {
    pub fn new() -> Remote {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("remote.git");
        let out = Command::new("git")
            .args(["init", "-q", "--bare", "-b", "main"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(out.status.success());
        Remote { _dir: dir, path }
    }

    pub fn url(&self) -> String {
        format!("file://{}", self.path.display())
    }

    /// A clone over `file://` with an identity.
    pub fn clone(&self, name: &str) -> TestRepo {
        clone_url(&self.url(), name)
    }

    /// Serves this remote with `git daemon` on 127.0.0.1 (receive-pack enabled) until the
    /// returned handle is dropped.
    pub fn serve(&self) -> Daemon {
        let daemon = GitDaemon::start(self.path.parent().unwrap());
        Daemon {
            url: format!("git://127.0.0.1:{}/remote.git", daemon.port),
            _daemon: daemon,
        }
    }

    pub fn git(&self, args: &[&str]) -> String {
        let out = Command::new("git")
            .arg("--git-dir")
            .arg(&self.path)
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }
}

/// A clone of `url` with an identity.
pub fn clone_url(url: &str, name: &str) -> TestRepo {
    let repo = TestRepo::empty_dir();
    repo.git(&["clone", "-q", url, "."]);
    repo.git(&["config", "user.name", name]);
    repo.git(&["config", "user.email", &format!("{name}@example.com")]);
    repo
}

/// `git daemon` serving a [`Remote`] on 127.0.0.1, stopped when dropped.
pub struct Daemon {
    _daemon: GitDaemon,
    /// `git://127.0.0.1:<port>/remote.git`.
    pub url: String,
}

impl Daemon {
    /// A clone over `git://` with an identity.
    pub fn clone(&self, name: &str) -> TestRepo {
        clone_url(&self.url, name)
    }
}

/// A repository with memory of every kind the briefing shows, a checkpoint with context
/// items, load-bearing decisions and steps, and a drift (a commit since the last save), wired
/// with `agent install claude` (the agent-loop tests and the real Claude Code suite).
pub fn rich_repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.commit_file("src/lib.rs", "pub fn f() {}\n", "init");
    repo.rune(&["init", "-q"]).success();
    for i in 0..6 {
        repo.decide(&format!("Decision {i}"), &format!("choice {i}"), &[]);
        repo.learn(
            &format!("key-{i}"),
            &format!("Learning {i} holds because of {i}"),
        );
    }
    repo.rune(&[
        "-q",
        "convention",
        "Errors say what to do",
        "--pattern",
        "every error has a hint",
    ])
    .success();
    repo.rune(&[
        "-q",
        "progress",
        "--in-progress",
        "validation logic",
        "--next",
        "wire validate() into the handler",
    ])
    .success();
    repo.rune(&[
        "-q",
        "checkpoint",
        "--doing",
        "implementing validate() in src/lib.rs",
        "--left",
        "write the happy path",
        "--left",
        "handle the error cases",
        "--context",
        "the API spec says 422 for schema errors",
        "--context",
        "tried serde's deny_unknown_fields: breaks old clients",
        "--resume",
        "implement validate() in src/lib.rs:1",
    ])
    .success();
    // Load-bearing decisions, as the seed writes them, in the checkpoint file.
    let cp = repo.read(".rune/checkpoint.md");
    let cp = cp.replace(
        "\n## What's Left",
        "\n## Decisions Made This Session (Load-Bearing)\n- Zod over io-ts: one schema for types and checks\n\n## What's Left",
    );
    repo.write(".rune/checkpoint.md", &cp);
    repo.rune(&["-q", "save", "-m", "planned the validation"])
        .success();
    // The code moves on after the save: drift.
    repo.commit_file("src/other.rs", "pub fn g() {}\n", "a teammate's commit");
    repo.rune(&["agent", "install", "claude", "-q"]).success();
    repo
}

/// The memory items a briefing shows: its list lines, numbered steps and resume line (not its
/// header, headings or the date marker).
pub fn briefing_items(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| {
            let l = l.trim_start();
            l.starts_with("- ")
                || l.starts_with("Resume: ")
                || l.split_once(". ")
                    .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
        .map(str::to_owned)
        .collect()
}

/// Makes the file at `path` executable (a hook, a script a test runs).
pub fn make_executable(path: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}
