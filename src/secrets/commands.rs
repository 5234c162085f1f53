//! Passwords on command lines: the options of `data/commands.txt` (`curl -u user:…`,
//! `sshpass -p …`, `mysql -p…`, `redis-cli -a …`, `htpasswd -b file user …`) and any long
//! option named like a password, secret, token or API key (`--password …`, `--db-pass …`).
//!
//! A command line is read as a shell reads it (quotes, backslash-continued lines), once from
//! its first known command to its end, and split into simple commands at `|`, `;`, `&&`, `||`
//! and at every other known command (`docker exec db mysql -p…`), so each option is read for
//! the command it belongs to and the pass stays linear.

use super::data::{self, CliOption, Field, List};
use super::rules::*;

/// The end of the shell command starting at `from`: the end of its line, continued over
/// lines that end in a backslash, and at most 8 KB.
fn command_end(b: &[u8], from: usize) -> usize {
    let limit = b.len().min(from + 8192);
    let mut i = from;
    while i < limit {
        if b[i] == b'\n' {
            let mut k = i;
            if k > from && b[k - 1] == b'\r' {
                k -= 1;
            }
            if k > from && b[k - 1] == b'\\' {
                i += 1;
                continue;
            }
            return i;
        }
        i += 1;
    }
    limit
}

/// The shell words between `from` and `end`, as byte ranges with their quotes.
fn shell_words(b: &[u8], from: usize, end: usize) -> Vec<(usize, usize)> {
    let mut words = Vec::new();
    let mut i = from;
    while i < end {
        if b[i].is_ascii_whitespace()
            || (b[i] == b'\\' && i + 1 < end && b[i + 1].is_ascii_whitespace())
        {
            i += 1;
            continue;
        }
        let s = i;
        while i < end && !b[i].is_ascii_whitespace() {
            if b[i] == b'"' || b[i] == b'\'' {
                let q = b[i];
                i = run_while(b, i + 1, end, |c| c != q);
            }
            i = (i + 1).min(end);
        }
        words.push((s, i));
    }
    words
}

/// Inside a word's quotes, when it is one quoted string; without a quote, parenthesis or
/// semicolon left over from a string or a subshell the command stood in.
fn unquote(b: &[u8], s: usize, e: usize) -> (usize, usize) {
    if e >= s + 2 && (b[s] == b'"' || b[s] == b'\'') && b[e - 1] == b[s] {
        return (s + 1, e - 1);
    }
    let mut e = e;
    while e > s && matches!(b[e - 1], b'"' | b'\'' | b'`' | b')' | b';') {
        let opener = match b[e - 1] {
            b')' => b'(',
            b';' => b';',
            q => q,
        };
        // A closing character with its opener inside the word belongs to it.
        if opener != b';' && b[s..e - 1].contains(&opener) {
            break;
        }
        e -= 1;
    }
    (s, e)
}

fn is_quoted(b: &[u8], (s, e): (usize, usize)) -> bool {
    e >= s + 2 && (b[s] == b'"' || b[s] == b'\'') && b[e - 1] == b[s]
}

/// A word that ends a simple command.
fn is_separator(w: &[u8]) -> bool {
    matches!(w, b"|" | b"||" | b"&&" | b";" | b"&" | b"|&")
}

/// The command a word runs, if it is one of `data/commands.txt`'s: its name, or a path to it.
fn command_name(b: &[u8], (s, e): (usize, usize)) -> Option<&'static str> {
    let w = &b[s..e];
    if is_quoted(b, (s, e)) || contains(w, b"://") {
        return None;
    }
    let base = match w.iter().rposition(|&c| c == b'/') {
        Some(slash) if w.starts_with(b"/") || w.starts_with(b"./") || w.starts_with(b"~/") => {
            &w[slash + 1..]
        }
        Some(_) => return None,
        None => w,
    };
    let base = base.strip_suffix(b".exe").unwrap_or(base);
    let name = std::str::from_utf8(base).ok()?;
    data::commands()
        .by_name
        .get_key_value(name)
        .map(|(k, _)| *k)
}

/// The options of a command whose word is `b[s..e]`: reads its command line (and the other
/// known commands on it); returns where the line ends, or `None` when the word is no command.
pub(super) fn scan_command_at(b: &[u8], s: usize, e: usize, out: &mut Vec<Cand>) -> Option<usize> {
    // A command stands as a word of its own: not part of a file name (`deploy.mysql`).
    if s > 0 && matches!(b[s - 1], b'.' | b'@' | b':') {
        return None;
    }
    let second = if e > s + 1 { b[s + 1] } else { 0 };
    if !matches!(b.get(e), Some(b' ' | b'\t')) || !data::commands().may_start(b[s], second) {
        return None;
    }
    command_name(b, (s, e))?;
    let end = command_end(b, e);
    let words = shell_words(b, s, end);
    // Simple commands: from a known command to the next separator or known command.
    let mut current: Option<(&str, usize)> = None;
    for (k, &w) in words.iter().enumerate() {
        let sep = is_separator(&b[w.0..w.1]);
        let name = if sep { None } else { command_name(b, w) };
        if sep || name.is_some() {
            if let Some((cmd, first)) = current.take() {
                apply(b, cmd, &words[first..k], out);
            }
        }
        if let Some(name) = name {
            current = Some((name, k + 1));
        }
    }
    if let Some((cmd, first)) = current {
        apply(b, cmd, &words[first..], out);
    }
    Some(end)
}

/// Runs every option of command `cmd` over its arguments `args`.
fn apply(b: &[u8], cmd: &str, args: &[(usize, usize)], out: &mut Vec<Cand>) {
    let Some(options) = data::commands().by_name.get(cmd) else {
        return;
    };
    let user = user_of(b, args);
    for opt in options {
        let args = match opt.sub {
            Some(sub) => match args.iter().position(|&(s, e)| &b[s..e] == sub.as_bytes()) {
                Some(at) => &args[at + 1..],
                None => continue,
            },
            None => args,
        };
        let triggered = match opt.option {
            None => true,
            Some(o) => options_of(b, opt, o, args, user, out),
        };
        if triggered {
            positional(b, opt, args, user, out);
        }
    }
}

/// Reads option `o` wherever it stands in `args`; says whether it was there.
fn options_of(
    b: &[u8],
    opt: &CliOption,
    o: &str,
    args: &[(usize, usize)],
    user: Option<&[u8]>,
    out: &mut Vec<Cand>,
) -> bool {
    let o = o.as_bytes();
    let f = &opt.forms;
    let mut present = false;
    for (k, &(s, e)) in args.iter().enumerate() {
        let w = &b[s..e];
        // A cluster of short options (`-sSfu`) when `o` is a short one.
        let cluster = || {
            o.len() == 2
                && w.len() > 2
                && w[0] == b'-'
                && w[1..].iter().all(u8::is_ascii_alphabetic)
        };
        if w == o {
            present = true;
            if f.next {
                if let Some(&next) = args.get(k + 1) {
                    out.extend(value(b, opt, next, user));
                }
            }
        } else if f.eq && w.starts_with(o) && w.get(o.len()) == Some(&b'=') {
            present = true;
            out.extend(value(b, opt, (s + o.len() + 1, e), user));
        } else if f.glued && w.starts_with(o) && w.len() > o.len() {
            // `-u-…` is not `-u` with a value but some other option.
            if o.len() == 2 && w[2] == b'-' {
                continue;
            }
            present = true;
            out.extend(value(b, opt, (s + o.len(), e), user));
        } else if f.next && cluster() && w.ends_with(&o[1..]) {
            // `curl -sSfu user:…`: a cluster of short options whose last takes the next word.
            present = true;
            if let Some(&next) = args.get(k + 1) {
                out.extend(value(b, opt, next, user));
            }
        } else if f.cluster && cluster() && w[1..].contains(&o[1]) {
            present = true;
        }
    }
    present
}

/// `arg=N` and `last`: a plain argument. A command line has few of them; prose about the
/// command ("htpasswd -b takes the password on the command line") has many, and is skipped.
fn positional(
    b: &[u8],
    opt: &CliOption,
    args: &[(usize, usize)],
    user: Option<&[u8]>,
    out: &mut Vec<Cand>,
) {
    let plain: Vec<(usize, usize)> = args
        .iter()
        .copied()
        .filter(|&(s, e)| !b[s..e].starts_with(b"-"))
        .collect();
    let at = if opt.forms.last {
        (2..=3).contains(&plain.len()).then(|| plain.len() - 1)
    } else if let Some(n) = opt.forms.arg {
        (plain.len() >= n && plain.len() <= n + 2).then_some(n - 1)
    } else {
        None
    };
    if let Some(at) = at {
        out.extend(value(b, opt, plain[at], user));
    }
}

/// The user a command line names (`-u root`, `--user=app`), to allow a password equal to it:
/// `mysql -uroot -proot` is a development default, not a secret.
fn user_of<'a>(b: &'a [u8], args: &[(usize, usize)]) -> Option<&'a [u8]> {
    for (k, &(s, e)) in args.iter().enumerate() {
        let w = &b[s..e];
        let next = || args.get(k + 1).map(|&(ns, ne)| unquote(b, ns, ne));
        let (vs, ve) = match w {
            b"-u" | b"-U" | b"--user" | b"--username" | b"-l" => next()?,
            _ if w.starts_with(b"--user=") => unquote(b, s + 7, e),
            _ if w.starts_with(b"--username=") => unquote(b, s + 11, e),
            _ if (w.starts_with(b"-u") || w.starts_with(b"-U")) && w.len() > 2 => {
                unquote(b, s + 2, e)
            }
            _ => continue,
        };
        return Some(&b[vs..ve]);
    }
    None
}

/// The secret in a word that holds an option's value (quotes included), if it is one.
fn value(b: &[u8], opt: &CliOption, word: (usize, usize), user: Option<&[u8]>) -> Option<Cand> {
    let quoted = is_quoted(b, word);
    let (mut vs, ve) = unquote(b, word.0, word.1);
    let f = &opt.forms;
    if let Some(p) = &f.prefix {
        // `pass:S3cret`; `env:VAR`, `file:path`, `fd:3` and `stdin` name where it is.
        if !b[vs..ve].starts_with(p.as_bytes()) {
            return None;
        }
        vs += p.len();
    }
    if f.header {
        return header(b, vs, ve, opt.rule);
    }
    if let Some(sep) = f.user_sep {
        return user_password(b, vs, ve, sep, opt.rule);
    }
    let v = &b[vs..ve];
    let ok = if quoted {
        !v.is_empty() && !is_placeholder(v) && !contains(v, b"$")
    } else {
        plain_password(v)
    };
    (ok && user != Some(v)).then(|| cand(vs, ve, opt.rule, P_CONTEXT))
}

/// An unquoted word that is a password: not another option, a placeholder, a shell expansion,
/// code or a word of prose.
pub(super) fn plain_password(v: &[u8]) -> bool {
    v.len() >= 3
        && !v.starts_with(b"-")
        && !is_reference(v)
        && !is_placeholder(v)
        && !contains(v, b"$")
        && !looks_like_code(v)
        && !is_stop_word(v)
}

/// `env:VAR`, `file:path`, `fd:3`, `stdin`: where a tool is told to read the secret from.
pub(super) fn is_reference(v: &[u8]) -> bool {
    data::words()
        .list(List::References)
        .iter()
        .any(|p| starts_with_ci(v, p.as_bytes()))
}

/// A word of prose that follows an option or a login instead of a value (`data/words.txt`).
pub(super) fn is_stop_word(v: &[u8]) -> bool {
    let mut e = v.len();
    while e > 0 && matches!(v[e - 1], b'.' | b',' | b';' | b':' | b')' | b'!' | b'?') {
        e -= 1;
    }
    e == 0 || data::words().has(List::Stop, &v[..e])
}

/// `user<sep>password`: the password, unless it is empty, a placeholder or equals the user (a
/// service default such as `guest:guest`). Without the separator the tool asks for it.
fn user_password(b: &[u8], s: usize, e: usize, sep: u8, rule: &'static str) -> Option<Cand> {
    let c = s + b[s..e].iter().position(|&x| x == sep)?;
    let (user, mut pe) = (&b[s..c], e);
    if sep == b'/' {
        // sqlplus user/password@database: the user is named, the database is not secret.
        if user.is_empty() {
            return None;
        }
        if let Some(at) = b[c + 1..e].iter().position(|&x| x == b'@') {
            pe = c + 1 + at;
        }
    }
    let pass = &b[c + 1..pe];
    // Only placeholders by shape: `-u admin:pass` is how people really call local services.
    let placeholder = is_placeholder_shape(pass) || is_example_credential(user, pass);
    (!pass.is_empty() && !placeholder && user != pass && !contains(pass, b"$"))
        .then(|| cand(c + 1, pe, rule, P_CONTEXT))
}

/// A `user:password` pair documentation uses as its example (`data/words.txt`).
pub(super) fn is_example_credential(user: &[u8], pass: &[u8]) -> bool {
    let mut pair = Vec::with_capacity(user.len() + pass.len() + 1);
    pair.extend_from_slice(user);
    pair.push(b':');
    pair.extend_from_slice(pass);
    data::words().has(List::ExampleCredentials, &pair)
}

/// `Authorization: Basic|Token <value>` and `X-Api-Key:`-like headers. `Bearer` tokens are
/// the `bearer-token` rule's.
fn header(b: &[u8], s: usize, e: usize, rule: &'static str) -> Option<Cand> {
    let c = s + b[s..e].iter().position(|&x| x == b':')?;
    let name = &b[s..c];
    let vs = skip_blanks(b, c + 1);
    if vs >= e {
        return None;
    }
    let (vs, min) = if name.eq_ignore_ascii_case(b"authorization") {
        let sp = (vs..e).find(|&j| b[j] == b' ');
        match sp {
            Some(sp) if b[vs..sp].eq_ignore_ascii_case(b"bearer") => return None,
            Some(sp) => (skip_blanks(b, sp), 8),
            None => (vs, 16),
        }
    } else {
        if !data::words().ends_with(List::CredentialHeaders, name) {
            return None;
        }
        (vs, 8)
    };
    let v = &b[vs..e];
    (v.len() >= min && kind_count(v) >= 2 && !is_placeholder(v) && !contains(v, b"$"))
        .then(|| cand(vs, e, rule, P_CONTEXT + 2))
}

/// `--password S3cret`, `--db-pass 'x y'`, `-Password "…"`, `--token …`: the value of an option
/// named like a key (`b[s..e]`, of kind `key`), after a blank. (`--password=…` is an
/// assignment.) Options of any command: what follows must look like a secret, not prose.
pub(super) fn flag_value(b: &[u8], s: usize, e: usize, key: Field) -> Option<Cand> {
    let w = &b[s..e];
    if w.len() < 3 || w[0] != b'-' {
        return None;
    }
    if s > 0
        && !matches!(
            b[s - 1],
            b' ' | b'\t' | b'\n' | b'\r' | b'"' | b'\'' | b'(' | b'`'
        )
    {
        return None;
    }
    if !matches!(b.get(e), Some(b' ' | b'\t')) {
        return None;
    }
    let vs = skip_blanks(b, e);
    let mut ve = vs;
    if matches!(b.get(vs), Some(b'"' | b'\'')) {
        let q = b[vs];
        ve = run_while(b, vs + 1, b.len(), |c| c != q && c != b'\n');
        if ve >= b.len() || b[ve] != q {
            return None;
        }
        ve += 1;
    } else {
        ve = run_while(b, ve, b.len(), |c| !c.is_ascii_whitespace());
    }
    let quoted = is_quoted(b, (vs, ve));
    let (vs, ve) = unquote(b, vs, ve);
    let v = &b[vs..ve];
    let rule = match key {
        Field::Password | Field::ShortPassword => "password-flag",
        _ => "secret-flag",
    };
    let ok = if quoted {
        !v.is_empty() && !is_placeholder(v) && !contains(v, b"$") && value_ok(key, v, true)
    } else {
        let looks = match key {
            Field::Password | Field::ShortPassword => {
                let k = kinds(v);
                let symbol = v.iter().any(|c| !c.is_ascii_alphanumeric());
                let upper_inside = v.iter().skip(1).any(u8::is_ascii_uppercase);
                v.len() >= 4 && (k & DIGIT != 0 || symbol || upper_inside)
            }
            _ => value_ok(key, v, false),
        };
        looks && plain_password(v)
    };
    ok.then(|| cand(vs, ve, rule, P_CONTEXT))
}
