//! An existing `.claude/echoes/` tree brought into memory (`git rune import echoes`), and
//! memory's echoes written back as such a tree (`git rune export echoes`).
//!
//! Import reads every role directory: `MEMORY.md` and `knowledge.md` as active entries, every
//! `archive/*.md` (the seed's `MEMORY-<date>.md` backups too) as archived ones, and
//! `*-findings.md` as findings (merged by the seed's duplicate rule; the files stay). An entry
//! memory already holds (same uid) only raises its `verified` and confidence, so importing twice
//! adds nothing. What does not read back is kept, not dropped: one cumulative note in the
//! `Imported` section per entry (or text) that failed, reported `file:line: why`.

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::memory::rune_dir::IMPORTED_SECTION;
use crate::memory::seal::{Sealed, Sealer};
use crate::memory::write::{write_records, Written};
use crate::model::kinds::{CumulativeNote, Echo};
use crate::model::{echo, Body, Draft, Record, Scope, State};
use crate::store::Store;
use crate::view::echoes::{self as format, EchoFile};
use crate::view::Parsed;

/// What an import did (or would do).
#[derive(Debug, Default)]
pub struct Imported {
    /// Files read, relative to the imported directory.
    pub files: Vec<String>,
    /// Entries read.
    pub entries: usize,
    /// Records written (new entries, raised ones, kept-raw notes).
    pub records: usize,
    /// `file:line: why` of what was kept raw.
    pub kept: Vec<String>,
    pub written: Option<Written>,
}

/// The files of one role directory to read, with how: (path, file kind, is a findings file).
fn role_files(dir: &Path) -> Vec<(PathBuf, EchoFile)> {
    let mut out = Vec::new();
    for f in ["MEMORY.md", "knowledge.md"] {
        let p = dir.join(f);
        if p.is_file() {
            out.push((p, EchoFile::Memory));
        }
    }
    let mut findings: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(super::dir::FINDINGS_SUFFIX))
        })
        .collect();
    findings.sort();
    out.extend(findings.into_iter().map(|p| (p, EchoFile::Memory)));
    let mut archive: Vec<PathBuf> = std::fs::read_dir(dir.join("archive"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    archive.sort();
    out.extend(archive.into_iter().map(|p| (p, EchoFile::Archive)));
    out
}

/// The text of a file split at entry headings: (first line number, chunk).
fn chunks(text: &str) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let text = text.replace("\r\n", "\n");
    let lines: Vec<&str> = text.lines().collect();
    // Inside an entry of the plugin's format, its sub-headings are its text.
    let mut plugin = false;
    for (i, line) in lines.iter().enumerate() {
        let after_blank = i == 0 || lines[i - 1].trim().is_empty();
        let start = format::entry_start(line, after_blank, plugin);
        if let Some(p) = start {
            plugin = p;
        }
        if start.is_some() || out.is_empty() {
            out.push((i + 1, String::new()));
        }
        let last = out.last_mut().expect("pushed");
        last.1.push_str(line);
        last.1.push('\n');
    }
    out
}

/// Imports the tree at `dir` (its subdirectories are roles), which messages name as `shown`
/// (as the user typed it).
pub fn import(
    store: &Store,
    sealer: &mut Sealer,
    dir: &Path,
    shown: &Path,
    dry_run: bool,
) -> Result<Imported> {
    let mut out = Imported::default();
    let mut roles: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| {
            crate::error::input(
                format!(
                    "cannot read the folder {}: {}",
                    shown.display(),
                    crate::error::io_text(&e)
                ),
                "name the echoes folder: `git rune import echoes DIR`; nothing was imported",
            )
        })?
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .collect();
    roles.sort();
    let mut bodies: Vec<Body> = Vec::new();
    let mut raw: Vec<Sealed> = Vec::new();
    for role in roles {
        let role_dir = dir.join(&role);
        let files = role_files(&role_dir);
        if !echo::valid_role(&role) {
            for (p, _) in files {
                let rel = rel(&p, dir);
                out.kept.push(format!(
                    "{rel}:1: {role:?} is not a role name (lowercase letters, digits, - and _)"
                ));
                raw.push(keep(
                    sealer,
                    &rel,
                    1,
                    &std::fs::read_to_string(&p).unwrap_or_default(),
                )?);
            }
            continue;
        }
        for (p, kind) in files {
            let rel = rel(&p, dir);
            let text = std::fs::read_to_string(&p).map_err(|e| {
                crate::error::input(
                    format!("cannot read {}: {}", shown.join(&rel).display(), crate::error::io_text(&e)),
                    "fix or move aside that file of the folder and import again; nothing was imported",
                )
            })?;
            out.files.push(rel.clone());
            for (line, chunk) in chunks(&text) {
                match format::parse(&role, kind, &chunk) {
                    Ok(parsed) => {
                        for e in parsed {
                            if let Parsed::Entry(e) = e {
                                let check = Sealer::new(sealer.redacts())
                                    .seal(Draft::new(e.body.clone()), &|f, _| {
                                        format!("{rel}:{line} ({f})")
                                    });
                                match check {
                                    Ok(_) => {
                                        out.entries += 1;
                                        bodies.push(e.body);
                                    }
                                    Err(crate::memory::seal::SealError::Invalid {
                                        error, ..
                                    }) => {
                                        out.kept.push(format!("{rel}:{line}: {error}"));
                                        raw.push(keep(sealer, &rel, line, &chunk)?);
                                    }
                                    Err(e) => return Err(e.into()),
                                }
                            }
                        }
                    }
                    Err(err) => {
                        out.kept
                            .push(format!("{rel}:{}: {}", line + err.line - 1, err.message));
                        raw.push(keep(sealer, &rel, line, &chunk)?);
                    }
                }
            }
        }
    }
    let count = |state: &State| plan(state, &bodies, sealer.redacts());
    if dry_run {
        let snap = crate::memory::Snapshot::read(store)?;
        out.records = count(&snap.state)?.len() + raw.len();
        return Ok(out);
    }
    let mut n = 0;
    out.written = write_records(store, Scope::Memory, "import echoes", |state| {
        let mut drafts = count(state)?;
        // Raw text kept by an earlier import of the same tree is not kept twice.
        drafts.extend(
            raw.iter()
                .filter(|s| !state.cumulative_notes.iter().any(|n| n.body == *s.body()))
                .cloned(),
        );
        n = drafts.len();
        Ok::<_, anyhow::Error>(drafts)
    })?;
    out.records = n;
    Ok(out)
}

fn rel(p: &Path, base: &Path) -> String {
    p.strip_prefix(base)
        .unwrap_or(p)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Keeps text that does not read back as a note in the `Imported` section.
fn keep(sealer: &mut Sealer, rel: &str, line: usize, raw: &str) -> Result<Sealed> {
    let body = Body::CumulativeNote(CumulativeNote {
        section: IMPORTED_SECTION.to_owned(),
        text: format!("echoes/{rel} (line {line}):\n{}", raw.trim()),
    });
    Ok(sealer.seal(Draft::new(body), &|f, _| format!("{rel}:{line} ({f})"))?)
}

/// New entries, and raised versions of the ones memory holds (the seed's duplicate rule);
/// nothing for an entry memory already holds at least as verified and confident.
fn plan(state: &State, bodies: &[Body], redact: bool) -> Result<Vec<Sealed>> {
    let mut sealer = Sealer::new(redact);
    let mut out: Vec<Sealed> = Vec::new();
    let mut planned: Vec<Body> = Vec::new();
    let mut at: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for b in bodies {
        let Some(Echo { uid, .. }) = Echo::of(b) else {
            continue;
        };
        match at.get(uid) {
            Some(&i) => super::raise(&mut planned[i], b, false),
            None => {
                at.insert(uid.clone(), planned.len());
                planned.push(b.clone());
            }
        }
    }
    let live: std::collections::HashMap<&str, &Record> =
        state.echoes.iter().map(|r| (super::uid_of(r), r)).collect();
    fn triple(b: &Body) -> Option<(&str, &str, &str)> {
        Echo::of(b).map(|e| (e.role.as_str(), e.title.as_str(), e.evidence.as_str()))
    }
    for b in planned {
        let Some(uid) = Echo::of(&b).map(|e| e.uid.clone()) else {
            continue;
        };
        // By uid, or (an entry made before uids hashed the evidence's location) by the
        // seed's duplicate rule.
        let same = |r: &&Record| match (triple(&r.body), triple(&b)) {
            (Some(x), Some(y)) => echo::same_entry(x, y),
            _ => false,
        };
        let found = live
            .get(uid.as_str())
            .copied()
            .or_else(|| state.echoes.iter().find(same));
        match found {
            Some(cur) => {
                let mut next = cur.body.clone();
                super::raise(&mut next, &b, false);
                if next != cur.body {
                    out.push(super::seal_version(
                        &mut sealer,
                        next,
                        Some(cur),
                        "an echo's",
                    )?);
                }
            }
            None => out.push(super::seal_version(&mut sealer, b, None, "an echo's")?),
        }
    }
    Ok(out)
}

/// Writes every role's files (`MEMORY.md`, `knowledge.md`, `archive/MEMORY.md`) under `dir`
/// as the view renders them, through the integrity gate (an entry it withholds is written as
/// its placeholder, as in the echoes directory); refuses to overwrite a file unless `force`.
/// Returns the files written, relative to `dir`.
pub fn export(store: &Store, dir: &Path, force: bool) -> Result<Vec<String>> {
    let mut snap = crate::memory::Snapshot::read(store)?;
    // SUSPICIOUS entries marked, as `echo show` prints them.
    let verdicts = crate::memory::cache::gate::verdicts(store, &snap)?;
    verdicts.mark(&mut snap.state, true);
    let withhold = |r: &Record| verdicts.withholds(r);
    let state = &snap.state;
    let mut files = Vec::new();
    for role in super::dir::roles_of(state) {
        for f in EchoFile::ALL {
            let text = format::render(&role, f, &state.echoes, &withhold);
            if !text.is_empty() {
                files.push((format!("{role}/{}", f.rel_path()), text));
            }
        }
    }
    crate::files::write_export(dir, &files, force, "echoes")?;
    Ok(files.into_iter().map(|(name, _)| name).collect())
}
