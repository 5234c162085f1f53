//! Downloads that run what they fetch: PowerShell's encoded commands, the Windows
//! downloaders (LOLBins) and fetch-then-execute on one line (`remote-script-execution`), and
//! which of those only show the shape or run an official installer (`script-pipe-shape`).

use super::tables::{any_in, sets};
use super::*;
use crate::bytes::{basename, command_name, unquoted};

/// PowerShell's encoded commands and the Windows downloaders that run what they fetch.
pub(super) fn windows_and_powershell(
    tok: &[u8],
    name: &[u8],
    m: u64,
    s: usize,
    e: usize,
    line: &mut Line,
    out: &mut Sink,
) {
    let lower = |t: &[u8]| t.to_ascii_lowercase();
    if matches!(
        lower(name).as_slice(),
        b"powershell" | b"powershell.exe" | b"pwsh" | b"pwsh.exe"
    ) {
        line.powershell = 1;
        line.last_interpreter = true;
        return;
    }
    let tok = unquoted(tok);
    if line.powershell == 1 && tok.len() >= 2 && (tok[0] == b'-' || tok[0] == b'/') {
        let flag = lower(&tok[1..]);
        if flag == b"ec" || (b"encodedcommand".starts_with(&flag) && flag.first() == Some(&b'e')) {
            line.powershell = 2;
            return;
        }
        if matches!(flag.as_slice(), b"c" | b"command") {
            line.inline_code = true;
        }
    } else if line.powershell == 2 && !tok.starts_with(b"-") {
        let b64 = tok
            .iter()
            .filter(|c| c.is_ascii_alphanumeric() || b"+/=".contains(c))
            .count();
        if b64 >= 16 {
            out.hit("remote-script-execution", s, e);
        }
        line.powershell = 1;
    }
    if line.last_interpreter && matches!(tok, b"-c" | b"-e" | b"-r" | b"-E" | b"--eval") {
        line.inline_code = true;
    }
    line.last_interpreter = m & INTERPRETER != 0
        || (line.last_interpreter && tok.starts_with(b"-") && !line.inline_code);
    if line.seen & LOLBIN != 0 {
        let t = lower(unquoted(tok));
        let lol = t.starts_with(b"-urlcache")
            || t.starts_with(b"/urlcache")
            || t.starts_with(b"-verifyctl")
            || t.starts_with(b"http:")
            || t.starts_with(b"https:")
            || t.starts_with(b"javascript:")
            || t.starts_with(b"vbscript:")
            || contains_ci(&t, b"/i:http")
            || contains_ci(&t, b"-i:http");
        if lol {
            out.hit("remote-script-execution", s, e);
        }
    }
}

/// Where `inner`, a part of `outer`, starts in it.
fn offset_in(outer: &[u8], inner: &[u8]) -> usize {
    inner.as_ptr() as usize - outer.as_ptr() as usize
}

/// A download saved to a file, then run on the same line.
#[allow(clippy::too_many_arguments)]
pub(super) fn downloads(
    b: &[u8],
    tok: &[u8],
    name: &[u8],
    m: u64,
    s: usize,
    e: usize,
    line: &mut Line,
    out: &mut Sink,
) {
    if m & VERIFIER != 0 {
        line.verified = true;
    }
    let runs = line.runs_next;
    line.runs_next = m & (RUNNER | SHELL | INTERPRETER) != 0 || (runs && tok.starts_with(b"-"));
    if m & FETCHER != 0 && line.fetcher == 0 {
        line.fetcher = match name.to_ascii_lowercase().as_slice() {
            b"curl" => b'c',
            b"wget" => {
                line.remote_name = true;
                b'w'
            }
            _ => b'p',
        };
        return;
    }
    if line.fetcher == 0 && line.outputs.is_empty() {
        return;
    }
    let t = unquoted(tok);
    let t_at = s + offset_in(tok, t);
    let record = |line: &mut Line, span: (usize, usize)| {
        if line.outputs.len() < 4 && span.1 > span.0 {
            line.outputs.push(span);
        }
    };
    if line.expect_output {
        line.expect_output = false;
        if !tok.starts_with(b"-") {
            record(line, (t_at, t_at + t.len()));
            return;
        }
    }
    if t.starts_with(b">") {
        let arrows = t.iter().take_while(|&&c| c == b'>').count();
        if arrows == t.len() {
            line.expect_output = true;
        } else {
            record(line, (t_at + arrows, t_at + t.len()));
        }
        return;
    }
    if line.fetcher != 0 && tok.len() > 1 && tok.starts_with(b"-") {
        let lower = tok.to_ascii_lowercase();
        if tok.starts_with(b"--") {
            if lower == b"--output" || lower == b"--output-document" {
                line.expect_output = true;
            } else if lower == b"--remote-name" {
                line.remote_name = true;
            } else if let Some(p) = [&b"--output="[..], b"--output-document="]
                .iter()
                .find(|p| lower.starts_with(p))
            {
                record(line, (s + p.len(), e));
            }
            return;
        }
        let letters = &tok[1..];
        match line.fetcher {
            b'c' if letters.last() == Some(&b'o') => line.expect_output = true,
            b'c' if letters.contains(&b'O') => line.remote_name = true,
            b'w' if letters.last() == Some(&b'O') => {
                line.remote_name = false;
                line.expect_output = true;
            }
            b'p' if lower == b"-outfile" || lower == b"-o" => line.expect_output = true,
            _ => {}
        }
        return;
    }
    if starts_with_ci(t, b"http://") || starts_with_ci(t, b"https://") {
        if line.remote_name {
            let base = basename(tok);
            let at = s + offset_in(tok, base);
            record(line, (at, at + base.len()));
        }
        return;
    }
    if line.outputs.is_empty() || line.verified {
        return;
    }
    let base = basename(tok);
    let ran = !base.is_empty()
        && line
            .outputs
            .iter()
            .any(|&(os, oe)| basename(&b[os..oe]).eq_ignore_ascii_case(base));
    let direct = [&b"./"[..], b".\\", b"/", b"~/"]
        .iter()
        .any(|p| t.starts_with(p));
    if ran && (runs || direct) {
        out.hit("remote-script-execution", line.source.unwrap_or(s), e);
        line.outputs.clear();
    }
}

/// How far before and after a `remote-script-execution` hit its command is read to tell it
/// from `script-pipe-shape`: longer than any real command line, and a bound that keeps a
/// megabyte on one line linear.
const SCRIPT_WINDOW: usize = 1024;

/// [`script_rule`] of the command a hit over `t[start..end]` (the normal form) found: the
/// command and the rest of its line or sentence (`bash <(curl …` names its URL after it; "… |
/// sh. The version is pinned in rust-toolchain.toml" names no source), within the window.
pub(super) fn script_rule_around(t: &str, start: usize, end: usize) -> &'static str {
    let end = end.min(t.len());
    let stop = (end + SCRIPT_WINDOW).min(t.len());
    let line_end = t[end..stop]
        .match_indices(['\n', '.', '。'])
        .find(|&(p, m)| m != "." || t[end + p + 1..].starts_with(' ') && p > 0)
        .map_or(stop, |(p, _)| end + p);
    let from = start.max(end.saturating_sub(SCRIPT_WINDOW));
    let from = (from..=end).find(|&i| t.is_char_boundary(i)).unwrap_or(end);
    let line_end = (line_end..=t.len())
        .find(|&i| t.is_char_boundary(i))
        .unwrap_or(t.len());
    script_rule(t.get(from..line_end).unwrap_or_default())
}

/// What a `remote-script-execution` hit over `cmd` (the command, in normal form) reports. A
/// script fetched from a named source is run unseen: TAINTED. The fetch-and-run shape with no
/// source named (`curl ... | bash`, `curl | sh`, `curl $URL | sh`: a write-up describing the
/// attack, not one) or only from official installers (`@installers`: rustup's one-liner in
/// an onboarding note) is `script-pipe-shape` (SUSPICIOUS), shown marked. Without a fetcher
/// (`base64 -d | sh`, `powershell -enc`) it stays TAINTED: nothing there is documentation.
pub(super) fn script_rule(cmd: &str) -> &'static str {
    let b = cmd.as_bytes();
    let words = || {
        b.split(|c| c.is_ascii_whitespace() || b"`'\"()[]{};|&<>=,".contains(c))
            .filter(|w| !w.is_empty())
    };
    if !words().any(|w| mask(command_name(w)) & (FETCHER | DOWNLOAD_API) != 0) {
        return "remote-script-execution";
    }
    let installers = sets().set("installers");
    for w in words() {
        let Some(host) = host_of(w) else { continue };
        // The URL without its scheme, for the items that name a path (`host/owner/repo/`).
        let url = w
            .windows(3)
            .position(|x| x == b"://")
            .map_or(w, |p| &w[p + 3..]);
        let listed = |item: &&str| {
            let item = item.as_bytes();
            if item.contains(&b'/') {
                url.len() >= item.len() && url[..item.len()].eq_ignore_ascii_case(item)
            } else {
                host.eq_ignore_ascii_case(item)
            }
        };
        if !installers.iter().any(listed) {
            return "remote-script-execution";
        }
    }
    // Only installers named, or no source at all.
    "script-pipe-shape"
}

/// Whether the first URL of `line` (a fetch-and-run's command and what follows) is a vendor's
/// install script: its host starts with one of `@install-hosts` (`get.`, `sh.` …) or its file
/// is one of `@install-scripts` (`install.sh` …).
pub(super) fn installer_shaped(line: &str) -> bool {
    let b = &line.as_bytes()[..line.len().min(SCRIPT_WINDOW)];
    let Some(w) = b
        .split(|c| c.is_ascii_whitespace() || b"`'\"()|;".contains(c))
        .find(|w| starts_with_ci(w, b"http://") || starts_with_ci(w, b"https://"))
    else {
        return false;
    };
    let Some(host) = host_of(w) else {
        return false;
    };
    // A listed installer's host with more after it (`sh.rustup.rs.x.example`) is a look-alike.
    let look_alike = any_in("installers", |i| {
        host.len() > i.len() && starts_with_ci(host, i) && host[i.len()] == b'.'
    });
    if look_alike {
        return false;
    }
    any_in("install-hosts", |h| starts_with_ci(host, h))
        || any_in("install-scripts", |f| basename(w).eq_ignore_ascii_case(f))
}

/// The host a command word names: after `scheme://`, or a dotted name (`evil.example/x.sh`,
/// `sh.rustup.rs`) whose last label is letters. Flags (`--tlsv1.2`) and `...` name none.
fn host_of(w: &[u8]) -> Option<&[u8]> {
    let rest = match w.windows(3).position(|x| x == b"://") {
        Some(p) => &w[p + 3..],
        None if w.starts_with(b"-") || w.starts_with(b"$") => return None,
        None => w,
    };
    let rest = rest.rsplit(|&c| c == b'@').next().unwrap_or(rest);
    let end = rest
        .iter()
        .position(|c| b"/:?#".contains(c))
        .unwrap_or(rest.len());
    let host = &rest[..end];
    let scheme = w.windows(3).any(|x| x == b"://");
    // `rustup-init.sh`, `a.ps1`: a file the command saves or runs, not a host.
    let file = any_in("script-extensions", |x| host.ends_with(x));
    if !scheme && (file || w.contains(&b'/') && !host.contains(&b'.')) {
        return None;
    }
    let labels: Vec<&[u8]> = host.split(|&c| c == b'.').collect();
    let last = labels.last().copied().unwrap_or_default();
    let dotted = labels.len() >= 2
        && labels.iter().all(|l| !l.is_empty())
        && (last.len() >= 2 && last.iter().all(u8::is_ascii_alphabetic)
            || labels.iter().all(|l| l.iter().all(u8::is_ascii_digit)));
    (dotted || scheme && !host.is_empty()).then_some(host)
}
