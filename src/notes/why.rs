//! `why`: the memory behind a piece of code, from the note on the commit that introduced it
//! (or the nearest noted ancestor), with the records that note names.

use std::collections::HashSet;

use anyhow::Result;

use super::CommitNote;
use crate::error;
use crate::model::kinds::{Checkpoint, Session};
use crate::model::{Body, Record};
use crate::store::{branch_ref, Blame, ObjectId, Store, MEMORY_REF};
use crate::text::{first_line, pretty_time, short};

/// What `why` found.
pub struct Why {
    /// `(file, line)` when the target was a line, blamed to [`Why::commit`].
    pub line: Option<(String, usize)>,
    /// The commit asked about (or that last changed the line).
    pub commit: ObjectId,
    /// The nearest commit with a note (first parents; touching the file for a line) and the
    /// note's text; `None` when there is none.
    pub noted: Option<(ObjectId, String)>,
    pub note: CommitNote,
    /// Every record the note's memory commits held (live or not: a record may have been
    /// edited since the commit).
    pub records: Vec<Record>,
}

impl Why {
    /// The newest session recorded in that memory.
    pub fn session(&self) -> Option<&Record> {
        self.records
            .iter()
            .filter(|r| matches!(r.body, Body::Session(Session { .. })))
            .max_by(|a, b| a.order_key().cmp(&b.order_key()))
    }

    /// Passes what `why` shows through the integrity gate, as every reader of memory does,
    /// and returns the ids of the records it withholds (shown by kind and id alone). What the
    /// note itself says goes through the same scan: its first line, the headlines of records
    /// no longer in memory, and the open checkpoint's line — withheld with the checkpoint it
    /// names, whichever of that record's fields makes it TAINTED (notes written before the
    /// gate reached them, or by another clone, carry the line as written).
    pub fn gate(&mut self) -> HashSet<String> {
        use crate::integrity::gate::{gate, gated_text, Gate};
        const NOTE_WITHHELD: &str = "(withheld as TAINTED by the integrity check)";
        let withheld: HashSet<String> = self
            .records
            .iter()
            .filter(|r| gate(r) == Gate::Withheld)
            .map(|r| r.id.clone())
            .collect();
        if let Some((_, text)) = self.noted.as_mut() {
            let first = text.lines().next().unwrap_or("").to_owned();
            *text = gated_text(&first).unwrap_or_else(|| NOTE_WITHHELD.to_owned());
        }
        for (_, _, title) in self.note.records.iter_mut() {
            *title = gated_text(title).unwrap_or_else(|| NOTE_WITHHELD.to_owned());
        }
        if let Some(c) = self.note.checkpoint.as_mut() {
            let names_withheld = self.records.iter().any(|r| {
                withheld.contains(&r.id)
                    && matches!(&r.body, Body::Checkpoint(Checkpoint { resume, doing, .. })
                        if *resume == *c || *doing == *c)
            });
            *c = match names_withheld {
                true => None,
                false => gated_text(c),
            }
            .unwrap_or_else(|| NOTE_WITHHELD.to_owned());
        }
        withheld
    }

    /// The file a line target names.
    pub fn path(&self) -> Option<&str> {
        self.line.as_ref().map(|(f, _)| f.as_str())
    }

    /// The text form: the commit, its note's first line, each record the note names in
    /// full (marked when the integrity gate rates it SUSPICIOUS), the checkpoint open then
    /// and the session. Records `withhold` picks ([`Why::gate`]'s) show as one line naming
    /// `git rune verify`.
    pub fn text(&self, withhold: &dyn Fn(&Record) -> bool) -> String {
        let commit = self.commit.to_string();
        let mut out = String::new();
        if let Some((file, line)) = &self.line {
            out.push_str(&format!(
                "{file}:{line} was last changed by {}\n",
                short(&commit)
            ));
        }
        let Some((noted, text)) = &self.noted else {
            out.push_str(&format!(
                "no git-rune note on {} or its ancestors{}\n",
                short(&commit),
                self.path()
                    .map(|p| format!(" that touch {p}"))
                    .unwrap_or_default()
            ));
            return out;
        };
        if *noted != self.commit {
            out.push_str(&format!(
                "{} has no note; the nearest ancestor{} with one is {}\n",
                short(&commit),
                self.path()
                    .map(|p| format!(" touching {p}"))
                    .unwrap_or_default(),
                short(&noted.to_string())
            ));
        }
        out.push_str(&format!("commit {noted}\n{}\n", first_line(text)));
        for (kind, id, title) in &self.note.records {
            match self.records.iter().find(|r| r.id.starts_with(id.as_str())) {
                Some(r) if withhold(r) => out.push_str(&format!(
                    "\n{kind} {}: (withheld as TAINTED by the integrity check; inspect with `git rune verify`)\n",
                    short(id)
                )),
                Some(r) => out.push_str(&expand(r)),
                None => out.push_str(&format!(
                    "\n{kind} {} {}: (no longer in memory)\n",
                    short(id),
                    title
                )),
            }
        }
        if let Some(c) = &self.note.checkpoint {
            out.push_str(&format!("\nopen checkpoint then: {}\n", c));
        }
        if let Some(s) = self.session().filter(|s| !withhold(s)) {
            if let Body::Session(Session { summary, .. }) = &s.body {
                out.push_str(&format!(
                    "session: [{}] {}\n",
                    pretty_time(&s.meta.ts),
                    summary
                ));
            }
        }
        out
    }
}

/// A record in full, for reading in a terminal (or by an agent): marked on its headline when
/// the gate rates it SUSPICIOUS.
fn expand(r: &Record) -> String {
    let marked = crate::integrity::gate::shown(r);
    let r = marked.as_deref().unwrap_or(r);
    let mut out = format!(
        "\n{} {} ({})\n",
        r.kind().as_str(),
        short(&r.id),
        pretty_time(&r.meta.ts)
    );
    for (field, text) in r.body.texts() {
        if !text.is_empty() {
            out.push_str(&format!("  {field}: {}\n", &text));
        }
    }
    out
}

/// Walking back further than this many commits for a note gives up.
const MAX_WALK: usize = 10_000;

/// Looks up the memory behind `target`: a commit (any revision) or `<file>:<line>`.
pub fn why(store: &Store, target: &str) -> Result<Why> {
    let (commit, line) = match blame_target(store, target)? {
        Some((file, line, commit)) => (commit, Some((file, line))),
        None => (
            store.resolve_commit(target).ok_or_else(|| {
                // `<file>:<line>` of a file that is not there reads better as just that.
                let file = target
                    .rsplit_once(':')
                    .filter(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                    .map(|(f, _)| f);
                match file {
                    Some(f) => error::input(
                        format!("{f} does not exist in the work tree"),
                        "name a file that exists (relative to the current directory), or a commit",
                    ),
                    None => error::input(
                        format!(
                            "{target:?} does not name a commit here{}",
                            store.why_no_commit().unwrap_or_default()
                        ),
                        "pass a commit (HEAD~2, a branch, an id) or <file>:<line>",
                    ),
                }
            })?,
            None,
        ),
    };
    let path = line.as_ref().map(|(f, _)| f.as_str());
    let noted = nearest_note(store, commit, path)?;
    let note = noted
        .as_ref()
        .map(|(_, text)| CommitNote::parse(text))
        .unwrap_or_default();
    let records = (noted.as_ref())
        .map(|_| note_records(store, &note))
        .transpose()?
        .unwrap_or_default();
    Ok(Why {
        line,
        commit,
        noted,
        note,
        records,
    })
}

/// `<file>:<line>` of a file in the work tree, blamed with git (gix's blame is not in the
/// features this build uses).
fn blame_target(store: &Store, target: &str) -> Result<Option<(String, usize, ObjectId)>> {
    let Some((file, line, workdir)) = (target.rsplit_once(':'))
        .and_then(|(f, l)| Some((f, l.parse::<usize>().ok()?, store.workdir()?)))
    else {
        return Ok(None);
    };
    if !workdir.join(file).is_file() {
        return Ok(None);
    }
    match store.blame_line(file, line)? {
        Blame::Commit(id) => Ok(Some((file.to_owned(), line, id))),
        Blame::Uncommitted => Err(error::input(
            format!("{file}:{line} is not committed yet"),
            "commit it first, then ask why",
        )),
        Blame::Failed(message) => Err(error::input(
            // git's own words ("file a.txt has only 2 lines"), without its "fatal:".
            format!(
                "cannot say who wrote {file}:{line}: {}",
                message.trim().trim_start_matches("fatal: ")
            ),
            "name a line that exists in a committed file",
        )),
    }
}

/// The commit itself or its nearest ancestor (first parents; touching `path` when given)
/// that carries a note.
fn nearest_note(
    store: &Store,
    commit: ObjectId,
    path: Option<&str>,
) -> Result<Option<(ObjectId, String)>> {
    let mut next = Some(commit);
    for _ in 0..=MAX_WALK {
        let Some(id) = next else { break };
        if let Some(text) = store.note(id)? {
            if path.is_none() || id == commit || store.touches(id, path.unwrap_or_default()) {
                return Ok(Some((id, text)));
            }
        }
        next = store.commit_info(id).ok().and_then(|c| c.first_parent);
    }
    Ok(None)
}

/// The records the note's memory commits held (the refs' current records when a commit is
/// gone).
fn note_records(store: &Store, note: &CommitNote) -> Result<Vec<Record>> {
    let at = |name: &str, id: &Option<String>| -> Result<Vec<Record>> {
        let commit = id
            .as_deref()
            .and_then(|h| ObjectId::from_hex(h.as_bytes()).ok());
        Ok(match commit {
            Some(c) if store.has_object(c) => store.records_at(name, c)?.to_vec(),
            _ => store.records(name)?.1.to_vec(),
        })
    };
    let mut out = at(MEMORY_REF, &note.memory)?;
    out.extend(at(&branch_ref(note.branch.as_deref()), &note.session)?);
    Ok(out)
}
