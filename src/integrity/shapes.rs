//! Shapes: forged frame markers and HTML comments, shell command shapes (remote scripts,
//! secret-file reads, reverse shells), settings that switch protections off, encoded blobs.

use super::*;
pub(super) use crate::bytes::{contains_ci, ends_with_ci, skip_blanks};

// ---------------------------------------------------------------------------------------------
// Markers: forged frames, HTML comments, /dev/tcp.

pub(super) const FRAME: u64 = bit("frame");
pub(super) const CLOSING: u64 = bit("closing");

/// The end of a framing tag starting at `b[i] == '<'`.
pub(super) fn frame_tag(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    if b.get(j) == Some(&b'<') {
        // Llama-2 <<SYS>> and <</SYS>>
        j += 1 + usize::from(b.get(j + 1) == Some(&b'/'));
        let name = b.get(j..j + 5)?;
        return (name[..3].eq_ignore_ascii_case(b"sys") && &name[3..] == b">>").then_some(j + 5);
    }
    j = skip_blanks(b, j);
    let closing = b.get(j) == Some(&b'/');
    j = skip_blanks(b, j + usize::from(closing));
    let ns = j;
    while j < b.len() && j - ns <= 40 && (b[j].is_ascii_alphanumeric() || b"_-|".contains(&b[j])) {
        j += 1;
    }
    let name = &b[ns..j];
    // <|im_start|>, <|endoftext|>, <|eot_id|>: any special-token shape.
    let special = name.len() >= 3 && name[0] == b'|' && name[name.len() - 1] == b'|';
    let m = mask(name);
    if !(special || m & FRAME != 0 || (closing && m & CLOSING != 0)) {
        return None;
    }
    let after = skip_blanks(b, j);
    match b.get(after)? {
        b'>' => Some(after + 1),
        b'/' if b.get(after + 1) == Some(&b'>') => Some(after + 2),
        _ if after > j => {
            // Attributes (<rune-memory source="x">). Stopping at `<` and line breaks keeps the
            // look-ahead of consecutive tags from overlapping, so the pass stays linear.
            let k = after
                + b[after..]
                    .iter()
                    .take_while(|c| !b"><\n".contains(c))
                    .count();
            (b.get(k) == Some(&b'>')).then_some(k + 1)
        }
        _ => None,
    }
}

/// The end of an `[INST]` or `[/INST]` marker starting at `b[i] == '['`.
pub(super) fn inst_tag(b: &[u8], i: usize) -> Option<usize> {
    let mut j = skip_blanks(b, i + 1);
    j = skip_blanks(b, j + usize::from(b.get(j) == Some(&b'/')));
    let k = skip_blanks(b, j + 4);
    (b.get(j..j + 4)?.eq_ignore_ascii_case(b"inst") && b.get(k) == Some(&b']')).then_some(k + 1)
}

/// `forged-frame-marker` (TAINTED): the load output wraps memory in `<rune-memory>`, and models
/// are trained on role markers (`<system>`, `<|im_start|>`, `[INST]`, `<<SYS>>`, `</user>`);
/// memory holding them can end its quoted frame early and speak as the operator. Any case,
/// optional spaces, attributes. [`escape_framing`] defuses them for display, but
/// they are still withheld: quoting a frame marker has no honest use in memory.
///
/// `html-comment` (SUSPICIOUS): `<!-- … -->` is invisible in rendered markdown, so a reviewer
/// reading the view never sees what the agent reads.
///
/// `reverse-shell` (TAINTED), device form: bash's `/dev/tcp/host/port` (and `/dev/udp/`) opens a
/// raw connection from a shell, the core of a reverse shell.
pub(super) fn scan_markers(text: &str, out: &mut Sink) {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let found = match b[i] {
            b'<' if b[i..].starts_with(b"<!--") => Some(("html-comment", b.len(), i + 4)),
            b'<' => frame_tag(b, i).map(|e| ("forged-frame-marker", e, e)),
            b'[' => inst_tag(b, i).map(|e| ("forged-frame-marker", e, e)),
            b'/' if [&b"/dev/tcp/"[..], b"/dev/udp/"]
                .iter()
                .any(|d| b.get(i..i + 9).is_some_and(|s| s.eq_ignore_ascii_case(d))) =>
            {
                Some(("reverse-shell", i + 9, i + 9))
            }
            _ => None,
        };
        match found {
            Some((rule, end, resume)) => {
                out.hit(rule, i, end);
                i = resume;
            }
            None => i += 1,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Shell command shapes, judged per line over whitespace-separated tokens.

pub(super) const SECRET_FILES: &str = "id_rsa id_dsa id_ecdsa id_ed25519 .aws/credentials .git-credentials .netrc .docker/config.json .kube/config /etc/shadow .gnupg";

/// What a token names: quotes and `$(`-style openers stripped, leading directories dropped.
pub(super) fn command_name(tok: &[u8]) -> &[u8] {
    let (mut s, mut e) = (0, tok.len());
    while s < e && b"`'\"($<{".contains(&tok[s]) {
        s += 1;
    }
    while e > s && b"`'\");,}".contains(&tok[e - 1]) {
        e -= 1;
    }
    let mut base = e;
    while base > s && tok[base - 1] != b'/' {
        base -= 1;
    }
    if base == e {
        &tok[s..e]
    } else {
        &tok[base..e]
    }
}

pub(super) const SHELL: u64 = bit("shell");
pub(super) const PIPE_PREFIX: u64 = bit("pipe-prefix");
pub(super) const FETCHER: u64 = bit("fetcher");
pub(super) const DECODER: u64 = bit("decoder");
pub(super) const DECODE_FLAG: u64 = bit("decode-flag");
pub(super) const RUNNER: u64 = bit("runner");
pub(super) const READER: u64 = bit("reader");
pub(super) const NETCAT: u64 = bit("netcat");
pub(super) const EXEC_FLAG: u64 = bit("exec-flag");
pub(super) const CHMOD: u64 = bit("chmod");
pub(super) const WORLD_MODE: u64 = bit("world-mode");

/// What has been seen so far on the current line.
#[derive(Default)]
pub(super) struct Line {
    started: bool,
    table_row: bool,
    /// Where the first fetcher or decoding command starts: a pipe after it may feed a shell.
    source: Option<usize>,
    /// The command lists (`DECODER | RUNNER | READER | NETCAT | CHMOD`) seen on the line.
    seen: u64,
    /// Tokens after a pipe in which a shell name completes it.
    pipe_window: u8,
}

/// `remote-script-execution` (TAINTED): piping a download or a decoded blob into a shell runs
/// code nobody reviewed; planted in memory, it gets an agent to run it for the attacker. A
/// fetcher (`curl`, `wget`, `iwr` …) or decoder (`base64 -d`, `xxd -r`, `gpg -d` …) piped into
/// a shell (`| sh`, `| sudo bash`, `| iex`), or a shell fed by substitution (`bash <(curl …)`,
/// `sh -c "$(curl …)"`, `eval "$(wget …)"`). This includes well-known installers (rustup,
/// Homebrew): memory should name the tool, not carry its one-liner. Lines starting with `|`
/// (markdown tables) are not read as pipelines.
///
/// `secret-file-read` (TAINTED): a command that reads, copies or sends private keys or
/// credential files (`~/.ssh`, `id_rsa`, `id_ed25519`, `.aws/credentials`, `.netrc`,
/// `.git-credentials`, `.kube/config`, `/etc/shadow` …) is exfiltration. Public keys (`.pub`)
/// and commands that only use a key (`ssh -i`, `ssh-add`, `chmod 600`) are fine.
///
/// `reverse-shell` (TAINTED), netcat form: `nc`/`ncat`/`netcat` with `-e`/`-c`/`--exec`/
/// `--sh-exec` hands a shell to whoever is on the other end.
///
/// `weakened-security` (SUSPICIOUS), chmod form: `chmod 777`, `a+rwx`, `o+w` make files
/// world-writable.
pub(super) fn scan_shell(text: &str, out: &mut Sink) {
    let b = text.as_bytes();
    let mut line = Line::default();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\n' => {
                line = Line::default();
                i += 1;
            }
            c if c.is_ascii_whitespace() => i += 1,
            b'|' => {
                // A line opening with a pipe is a markdown table row.
                line.table_row |= !line.started;
                line.started = true;
                let double = b.get(i + 1) == Some(&b'|'); // `||` is not a pipe
                if !double && !line.table_row && line.source.is_some() {
                    line.pipe_window = 4;
                }
                i += 1 + usize::from(double);
            }
            _ => {
                let s = i;
                while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'|' {
                    i += 1;
                }
                line.started = true;
                shell_token(text, s, i, &mut line, out);
            }
        }
    }
}

pub(super) fn shell_token(text: &str, s: usize, e: usize, line: &mut Line, out: &mut Sink) {
    let tok = &text.as_bytes()[s..e];
    let name = command_name(tok);
    let m = mask(name);
    if m == 0 && line.seen == 0 && line.pipe_window == 0 {
        return; // prose
    }
    if line.pipe_window > 0 {
        line.pipe_window -= 1;
        if m & SHELL != 0 {
            out.hit("remote-script-execution", line.source.unwrap_or(s), e);
            line.pipe_window = 0;
        } else if !(tok.starts_with(b"-") || m & PIPE_PREFIX != 0) {
            line.pipe_window = 0;
        }
    }
    let substitution = [&b"$("[..], b"<(", b"\"$("]
        .iter()
        .any(|o| tok.starts_with(o));
    if substitution && line.seen & RUNNER != 0 && m & FETCHER != 0 {
        out.hit("remote-script-execution", s, e);
    }
    if line.seen & READER != 0 && tok.iter().any(|c| matches!(c, b'.' | b'_' | b'/')) {
        let key_file = SECRET_FILES
            .split(' ')
            .any(|f| contains_ci(tok, f.as_bytes()));
        let ssh_dir = [&b".ssh"[..], b".ssh/", b".ssh/*"]
            .iter()
            .any(|d| ends_with_ci(name, d));
        if (key_file && !ends_with_ci(name, b".pub")) || ssh_dir {
            out.hit("secret-file-read", s, e);
        }
    }
    let short_exec = tok.starts_with(b"-") && !tok.starts_with(b"--") && tok.contains(&b'e');
    if line.seen & NETCAT != 0 && (short_exec || m & EXEC_FLAG != 0) {
        out.hit("reverse-shell", s, e);
    }
    if line.seen & CHMOD != 0 && !tok.starts_with(b"-") {
        if m & WORLD_MODE != 0 {
            out.hit("weakened-security", s, e);
        }
        line.seen &= !CHMOD;
    }
    let decoding = line.seen & DECODER != 0 && m & DECODE_FLAG != 0;
    if decoding || m & FETCHER != 0 {
        line.source = line.source.or(Some(s));
    }
    line.seen |= m & (DECODER | RUNNER | READER | NETCAT | CHMOD);
}

// ---------------------------------------------------------------------------------------------
// Settings that switch protections off.

/// Keys (matched at the end of an identifier, so `ssl_verify`, `sslVerify`, `http.sslVerify`
/// and `--tls-verify` all end in `verify`) that weaken security when set to a falsy value …
pub(super) const FALSY_KEYS: &str = "verify verify_ssl verifyssl verify_certs verifypeer verify_peer verifyhost check_hostname validate_certs strict-ssl strict_ssl strictssl rejectunauthorized reject_unauthorized csrf csrf_enabled csrf_protection csrfprotection sslmode";
/// … or to a truthy one.
pub(super) const TRUTHY_KEYS: &str = "insecureskipverify insecure_skip_verify insecure_skip_tls_verify skip_tls_verify skiptlsverify allow_insecure git_ssl_no_verify";

pub(super) const FALSY: u64 = bit("falsy");
pub(super) const TRUTHY: u64 = bit("truthy");
pub(super) const WEAK_FLAG: u64 = bit("weak-flag");

/// `weakened-security` (SUSPICIOUS), settings form: `verify=False`, `InsecureSkipVerify: true`,
/// `rejectUnauthorized: false`, `NODE_TLS_REJECT_UNAUTHORIZED=0`, `sslmode=disable`,
/// `git config http.sslVerify false`, and flags such as `--no-verify`, `--insecure`,
/// `--no-check-certificate`. The separator is `=`, `:`, or a space after a dotted key (git
/// config), so "we verify false positives" stays prose.
pub(super) fn scan_settings(text: &str, out: &mut Sink) {
    let b = text.as_bytes();
    let ident = |c: &u8| c.is_ascii_alphanumeric() || b"_-.".contains(c);
    let mut i = 0;
    while i < b.len() {
        let s = i;
        while i < b.len() && ident(&b[i]) {
            i += 1;
        }
        if i == s {
            i += 1;
            continue;
        }
        let id = b[s..i].strip_suffix(b".").unwrap_or(&b[s..i]); // a sentence's full stop
        if id.starts_with(b"--") && mask(id) & WEAK_FLAG != 0 {
            out.hit("weakened-security", s, s + id.len());
            continue;
        }
        let j = s + id.len() + usize::from(matches!(b.get(s + id.len()), Some(b'"' | b'\'')));
        let k = skip_blanks(b, j);
        let v = match b.get(k) {
            Some(b'=') if b.get(k + 1) != Some(&b'=') => k + 1,
            Some(b':') if b.get(k + 1) != Some(&b':') => k + 1,
            Some(_) if k > j && id.contains(&b'.') => k,
            _ => continue,
        };
        let v = skip_blanks(b, v);
        let v = v + usize::from(matches!(b.get(v), Some(b'"' | b'\'')));
        let ve = v + b[v..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric())
            .count();
        let (value, keyed) = (mask(&b[v..ve]), |keys: &str| {
            keys.split(' ').any(|k| ends_with_ci(id, k.as_bytes()))
        });
        if (value & FALSY != 0 && keyed(FALSY_KEYS)) || (value & TRUTHY != 0 && keyed(TRUTHY_KEYS))
        {
            out.hit("weakened-security", s, ve);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Encoded blobs.

/// `encoded-blob` (SUSPICIOUS): a long base64 or hex blob is opaque to a reviewer but may decode
/// to instructions or a payload an agent is then told to decode and run. Memory is prose: two
/// object ids side by side (81 characters) are fine, a run of ≥ 128 hex digits or ≥ 120 base64
/// characters is not something a person wrote. Base64 must mix upper case, lower case and
/// digits (paths and snake_case names do not, and a path's segments are short), and is also
/// caught when wrapped over consecutive whole lines of ≥ 40 characters, as PEM and MIME wrap it.
pub(super) fn scan_blobs(text: &str, out: &mut Sink) {
    let b = text.as_bytes();
    let b64 = |c: &u8| c.is_ascii_alphanumeric() || b"+/=_-".contains(c);
    // Consecutive whole lines of base64: (start, total length, kinds seen, end of last line).
    let mut block: Option<(usize, usize, u8, usize)> = None;
    let mut reported_until = 0;
    let mut i = 0;
    while i < b.len() {
        let s = i;
        while i < b.len() && b64(&b[i]) {
            i += 1;
        }
        if i == s {
            i += 1;
            continue;
        }
        let run = &b[s..i];
        if run.len() < 40 {
            continue;
        }
        let kinds = run.iter().fold(0u8, |k, c| {
            k | u8::from(c.is_ascii_uppercase())
                | u8::from(c.is_ascii_lowercase()) << 1
                | u8::from(c.is_ascii_digit()) << 2
        });
        let segment = run
            .split(|&c| c == b'/')
            .map(<[u8]>::len)
            .max()
            .unwrap_or(0);
        let hex = run.len() >= 128 && run.iter().all(u8::is_ascii_hexdigit);
        if hex || (run.len() >= 120 && kinds == 7 && segment >= 24) {
            let what = if hex { "hex" } else { "base64" };
            out.note("encoded-blob", s, || {
                format!("{what} blob of {} characters", run.len())
            });
            reported_until = i;
        }
        let line_end = b
            .get(i..)
            .is_some_and(|r| r.is_empty() || r.starts_with(b"\n") || r.starts_with(b"\r\n"));
        if (s == 0 || b[s - 1] == b'\n') && line_end && run.len() >= 40 {
            let (start, len, k) = match block {
                Some((bs, bl, bk, last)) if s == last + 1 || s == last + 2 => {
                    (bs, bl + run.len(), bk | kinds)
                }
                _ => (s, run.len(), kinds),
            };
            block = Some((start, len, k, i));
            if len >= 120 && k == 7 && start >= reported_until {
                out.note("encoded-blob", start, || {
                    format!("base64 blob of {len}+ characters over several lines")
                });
                reported_until = i;
            }
        }
    }
}
