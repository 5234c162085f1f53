//! The one pass over a text's words that every rule starting at a word shares.

use super::rules::*;
use super::{auth, commands};

/// One pass over the `[A-Za-z0-9_-]` words serves the rules that start at a word:
/// assignments (a key word and its value, `key = value`, `<key>value</key>` and
/// `--key value`), shell commands (`curl -u`, `sshpass -p`, `mysql -p…`: `commands.rs`), HTTP
/// authorization (`Basic …`, `Authorization: …`, a registry's `auth`: `auth.rs`) and `.netrc`
/// entries.
pub(super) fn scan_words(b: &[u8], out: &mut Vec<Cand>) {
    let mut i = 0;
    let mut command_end = 0;
    let mut unquoted = None;
    while i < b.len() {
        if !is(b[i], WORD) {
            i += 1;
            continue;
        }
        let e = run_end(b, i, WORD);
        if i >= command_end {
            if let Some(end) = commands::scan_command_at(b, i, e, out) {
                command_end = end;
            }
        }
        auth::scan_word(b, i, e, &mut unquoted, out);
        // `scheme://user:password@host` is a URL, which `url-credentials` reads properly.
        let in_url = b[..i].ends_with(b"://");
        let key = if in_url { None } else { key_kind(&b[i..e]) };
        let s = i;
        i = e;
        let Some(key) = key else { continue };
        if let Some(c) = element_value(b, s, e, key) {
            i = c.end;
            out.push(c);
            continue;
        }
        if let Some(c) = commands::flag_value(b, s, e, key) {
            out.push(c);
            continue;
        }
        let Some(v) = value_after(b, e, &mut unquoted) else {
            continue;
        };
        // An unquoted value that is not a secret (code, a placeholder, too short) may still
        // hold one (`x=os.environ.get(y)&DB_PASS=…`), so the words inside it are read too:
        // skipping them would let a redaction before the key uncover them later. `unquoted`
        // remembers where the value ended, so keys inside it do not scan it again, which
        // keeps `password=password=…` linear.
        i = if v.quoted { v.resume } else { v.start }.max(e);
        let val = &b[v.start..v.end];
        if is_placeholder(val) || (!v.quoted && looks_like_code(val)) {
            continue;
        }
        // `existingSecret: redis-auth`, `--secret=db-password`: a secret's name (a lower-case
        // resource name), not its value.
        if key == Field::Secret && !v.quoted && is_resource_name(val) {
            continue;
        }
        if value_ok(key, val, v.quoted) {
            i = v.resume.max(e);
            out.push(cand(
                v.start,
                v.end,
                assignment_rule(key),
                assignment_prio(key),
            ));
        }
    }
}
