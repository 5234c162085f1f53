//! `echo migrate`: old agent or concept names renamed in the entries' metadata (the seed's
//! RENAME-2), as new versions.

use anyhow::Result;

use super::seal_version;
use crate::memory::seal::Sealer;
use crate::memory::write::{write_records, Written};
use crate::memory::Snapshot;
use crate::model::kinds::Echo;
use crate::model::{Body, Record, Scope, State};
use crate::store::Store;

/// One rename `echo migrate` made: the entry, the field, the value before and after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Renamed {
    pub uid: String,
    pub field: &'static str,
    pub before: String,
    pub after: String,
}

/// Renames old agent or concept names to new ones in the metadata of every entry (archived
/// ones too): `source`, `evidence`, `supersedes` and the extra labelled lines, never the title
/// or the learning (the seed's RENAME-2). Whole words only, case as given. Each changed entry
/// is a new version, so the migration is undone by restoring the previous versions from
/// history. `dry_run` only reports.
pub fn migrate(
    store: &Store,
    renames: &[(String, String)],
    dry_run: bool,
) -> Result<(Vec<Renamed>, Option<Written>)> {
    let apply = |state: &State| -> (Vec<Renamed>, Vec<(Body, Record)>) {
        let mut changes = Vec::new();
        let mut bodies = Vec::new();
        for r in &state.echoes {
            let mut body = r.body.clone();
            let mut changed = false;
            // A withheld entry's fields are reported as its placeholder: they are its text.
            let withheld = crate::integrity::gate::withheld(r);
            let shown = |v: &str| match withheld {
                true => crate::integrity::gate::placeholder(r),
                false => v.to_owned(),
            };
            if let Some(e) = Echo::of_mut(&mut body) {
                let uid = e.uid.clone();
                let mut fields: Vec<(&'static str, &mut String)> = vec![
                    ("source", &mut e.source),
                    ("evidence", &mut e.evidence),
                    ("supersedes", &mut e.supersedes_title),
                ];
                for x in e.extra.iter_mut().filter(|x| !x.label.is_empty()) {
                    fields.push(("extra", &mut x.text));
                }
                for (field, value) in fields {
                    let before = value.clone();
                    for (old, new) in renames {
                        *value = rename_words(value, old, new);
                    }
                    if *value != before {
                        changed = true;
                        changes.push(Renamed {
                            uid: uid.clone(),
                            field,
                            before: shown(&before),
                            after: shown(value),
                        });
                    }
                }
            }
            if changed {
                bodies.push((body, r.clone()));
            }
        }
        (changes, bodies)
    };
    let snap = Snapshot::read(store)?;
    let (changes, _) = apply(&snap.state);
    if dry_run || changes.is_empty() {
        return Ok((changes, None));
    }
    let mut done = Vec::new();
    let written = write_records(store, Scope::Memory, "echo: migrate", |state| {
        let (changes, bodies) = apply(state);
        done = changes;
        let mut sealer = Sealer::new(false);
        bodies
            .into_iter()
            .map(|(b, r)| {
                seal_version(&mut sealer, b, Some(&r), "the echo's").map_err(anyhow::Error::from)
            })
            .collect::<Result<Vec<_>>>()
    })?;
    Ok((done, written))
}

/// Replaces `old` by `new` where it stands as a whole word (not inside a longer name).
pub fn rename_words(text: &str, old: &str, new: &str) -> String {
    if old.is_empty() {
        return text.to_owned();
    }
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-');
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(old) {
        let before = out.chars().last().or_else(|| rest[..i].chars().last());
        let before = if i > 0 {
            rest[..i].chars().last()
        } else {
            before
        };
        let after = rest[i + old.len()..].chars().next();
        out.push_str(&rest[..i]);
        if word(before) || word(after) {
            out.push_str(old);
        } else {
            out.push_str(new);
        }
        rest = &rest[i + old.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renames_whole_words_only() {
        assert_eq!(
            rename_words("rune:review by tarnished", "tarnished", "runebearer"),
            "rune:review by runebearer"
        );
        assert_eq!(
            rename_words("tarnished-x tarnished", "tarnished", "r"),
            "tarnished-x r"
        );
        assert_eq!(
            rename_words("`src/tarnished.rs:1`", "tarnished", "r"),
            "`src/r.rs:1`"
        );
        assert_eq!(rename_words("abc", "", "r"), "abc");
    }
}
