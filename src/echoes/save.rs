//! Saving the echoes directory: hand edits of a role's `MEMORY.md`, `knowledge.md` and
//! `archive/MEMORY.md` become new versions of their entries, and agents' `<agent>-findings.md`
//! files are consolidated (the seed's write protocol: a duplicate — same pattern and evidence —
//! raises the existing entry's `verified` and confidence, the higher winning; a new finding is
//! appended; a role over 150 lines is pruned). One commit; findings files are deleted only
//! after it landed, and only if nobody wrote to them meanwhile.

use std::collections::{BTreeSet, HashMap, HashSet};

use anyhow::{Context, Result};

use super::dir::{shown, EchoDir, Edited, Findings};
use super::uid_of;
use crate::error;
use crate::memory::seal::{SealError, Sealed, Sealer};
use crate::memory::write::{write_records, Written};
use crate::model::echo::{ETCHED, INSCRIBED};
use crate::model::kinds::Echo;
use crate::model::{fold, Body, Draft, Record, Scope, State};
use crate::store::{Store, MEMORY_REF};
use crate::view::echoes::{self as format, EchoFile};
use crate::view::Parsed;

/// What a save of the echoes directory did.
#[derive(Debug, Default)]
pub struct EchoSaved {
    /// Role files whose edits were saved (shown paths).
    pub files: Vec<String>,
    /// Findings files consolidated and deleted (shown paths).
    pub consolidated: Vec<String>,
    /// Findings files kept: could not be read back (`path:line: why`), or written to while
    /// the save ran.
    pub kept: Vec<String>,
    pub added: usize,
    pub changed: usize,
    pub merged: usize,
    pub archived: usize,
    /// What the save did differently from the text (etched entries are not changed by hand).
    pub notes: Vec<String>,
    pub written: Option<Written>,
    /// What pruning archived afterwards.
    pub pruned: usize,
    /// Documents of the directory saved or deleted (shown paths).
    pub documents: Vec<String>,
    /// Files of the directory memory does not keep (binary, too large): (shown path, why).
    pub refused: Vec<(String, String)>,
}

/// One entry read from a file, with where it came from.
struct Read {
    body: Body,
    /// A findings file's entry (merged by the seed's rule) rather than a role file's.
    finding: bool,
}

/// Saves the echoes directory. `only_findings`: consolidate findings files only (`echo
/// consolidate`), leaving role files alone.
pub fn save(store: &Store, sealer: &mut Sealer, only_findings: bool) -> Result<EchoSaved> {
    prepare(store, sealer, only_findings)?.commit(store, sealer)
}

/// An echoes save read, parsed and sealed, with nothing written yet: `git rune save` prepares
/// it before it saves `.rune/`, so that a file of either directory that does not read back
/// stops the whole save with nothing recorded (docs/storage.md, "One save").
pub struct Prepared {
    out: EchoSaved,
    work: Option<Work>,
}

/// What a prepared save has to write.
struct Work {
    dir: EchoDir,
    workdir: std::path::PathBuf,
    lock: super::dir::DirLock,
    reads: Vec<Read>,
    shown_before: Vec<Record>,
    documents: Vec<(String, Option<Sealed>)>,
    findings: Vec<Findings>,
    /// Indexes into `findings` of those read back.
    processed: Vec<usize>,
}

/// Reads, parses and seals what the echoes directory holds to save, holding its lock; writes
/// nothing.
pub fn prepare(store: &Store, sealer: &mut Sealer, only_findings: bool) -> Result<Prepared> {
    let mut out = EchoSaved::default();
    let Some(dir) = EchoDir::open(store) else {
        return Ok(Prepared { out, work: None });
    };
    let workdir = store.workdir().map(|p| p.to_path_buf()).unwrap_or_default();
    let lock = dir.lock()?;
    let manifest = dir.manifest();
    let edited: Vec<Edited> = if only_findings {
        Vec::new()
    } else {
        dir.edited(&manifest)?
    };
    let findings: Vec<Findings> = dir.findings()?;
    let (doc_changes, refused) = if only_findings {
        Default::default()
    } else {
        dir.documents(&manifest)
    };
    out.refused = refused
        .into_iter()
        .map(|(rel, why)| (shown(&dir.root.join(rel), &workdir), why))
        .collect();
    if edited.is_empty() && findings.is_empty() && doc_changes.is_empty() {
        return Ok(Prepared { out, work: None });
    }
    // Documents (backups, notes): kept whole, the latest writer per path; deleted by hand,
    // deleted from memory.
    let mut documents: Vec<(String, Option<Sealed>)> = Vec::new();
    for (rel, state) in &doc_changes {
        let at = shown(&dir.root.join(rel), &workdir);
        let sealed = match state {
            super::dir::DocState::Deleted => None,
            _ => {
                let text = std::fs::read_to_string(dir.root.join(rel))
                    .with_context(|| format!("cannot read {at}"))?;
                let body = Body::Document(crate::model::kinds::Document {
                    path: super::dir::document_path(rel),
                    content: text.clone(),
                });
                let place = |field: &str, secret: &str| {
                    let i = text.find(secret).unwrap_or(0);
                    format!(
                        "{at}:{} (field `{field}`)",
                        crate::secrets::line_of(&text, i)
                    )
                };
                Some(sealer.seal(Draft::new(body), &place)?)
            }
        };
        out.documents.push(at);
        documents.push((super::dir::document_path(rel), sealed));
    }

    // Role files: every one must read back, or nothing is saved.
    let mut reads: Vec<Read> = Vec::new();
    let mut edited_files: HashSet<(String, EchoFile)> = HashSet::new();
    for e in &edited {
        let parsed = format::parse(&e.role, e.file, &e.text).map_err(|err| {
            error::data(
                format!(
                    "{}: line {}: {}",
                    shown(&e.path, &workdir),
                    err.line,
                    err.message
                ),
                "fix the line and run `git rune save` again; nothing was saved",
            )
        })?;
        for p in parsed {
            if let Parsed::Entry(entry) = p {
                check(sealer, &entry.body, &shown(&e.path, &workdir))?;
                reads.push(Read {
                    body: entry.body,
                    finding: false,
                });
            }
        }
        edited_files.insert((e.role.clone(), e.file));
        out.files.push(shown(&e.path, &workdir));
    }
    // Findings: one that does not read back or seal is kept and reported; the rest go on.
    let mut processed: Vec<usize> = Vec::new();
    for (fi, f) in findings.iter().enumerate() {
        let at = shown(&f.path, &workdir);
        let parsed = match format::parse(&f.role, EchoFile::Memory, &f.text) {
            Ok(p) => p,
            Err(err) => {
                out.kept.push(format!("{at}:{}: {}", err.line, err.message));
                continue;
            }
        };
        let mut bodies = Vec::new();
        let mut bad = None;
        for p in parsed {
            if let Parsed::Entry(entry) = p {
                // The seed's filter: a finding with a secret keeps its learning, without the
                // evidence that held it.
                match keep_learning(sealer, entry.body, &at) {
                    Ok((body, note)) => {
                        out.notes.extend(note);
                        bodies.push(body);
                    }
                    Err(e) => {
                        bad = Some(format!("{at}: {e:#}"));
                        break;
                    }
                }
            }
        }
        if let Some(b) = bad {
            out.kept.push(b);
            continue;
        }
        reads.extend(bodies.into_iter().map(|body| Read {
            body,
            finding: true,
        }));
        processed.push(fi);
    }

    // The entries the edited files showed when they were checked out: those gone from them
    // are archived.
    let base: State = match manifest.base.as_deref().and_then(|b| b.parse().ok()) {
        Some(oid) => fold(store.records_at(MEMORY_REF, oid)?.iter()),
        None => crate::memory::Snapshot::read(store)?.state,
    };
    let shown_before: Vec<Record> = base
        .echoes
        .iter()
        .filter(|r| match (&r.body, EchoFile::of(&r.body)) {
            (Body::Echo(Echo { role, .. }), Some(f)) => edited_files.contains(&(role.clone(), f)),
            _ => false,
        })
        .cloned()
        .collect();

    Ok(Prepared {
        out,
        work: Some(Work {
            dir,
            workdir,
            lock,
            reads,
            shown_before,
            documents,
            findings,
            processed,
        }),
    })
}

impl Prepared {
    /// Writes the prepared save (one commit), then removes the consolidated findings files,
    /// prunes the roles that received findings, and checks the directory out again.
    pub fn commit(self, store: &Store, sealer: &mut Sealer) -> Result<EchoSaved> {
        let Prepared { mut out, work } = self;
        let Some(Work {
            dir,
            workdir,
            lock,
            reads,
            shown_before,
            documents,
            findings,
            processed,
        }) = work
        else {
            return Ok(out);
        };
        let mut notes = Vec::new();
        let mut counts = (0, 0, 0, 0);
        let written = write_records(store, Scope::Memory, "echo: save", |state| {
            notes.clear();
            counts = (0, 0, 0, 0);
            let (mut drafts, n, c) = plan(state, &reads, &shown_before, sealer)?;
            notes = n;
            counts = c;
            for (path, sealed) in &documents {
                let live: Vec<&Record> = state
                    .documents
                    .iter()
                    .filter(|r| r.body.title() == path)
                    .collect();
                let ids: Vec<String> = live.iter().map(|r| r.id.clone()).collect();
                match sealed {
                    Some(s) if live.iter().any(|r| r.body == *s.body()) => {}
                    Some(s) => drafts.push(s.clone().superseding(ids)),
                    None if ids.is_empty() => {}
                    None => drafts.push(Sealer::new(false).seal_body(
                        Body::Delete(crate::model::kinds::Delete { targets: ids }),
                        Vec::new(),
                    )?),
                }
            }
            Ok::<_, anyhow::Error>(drafts)
        })?;
        (out.added, out.changed, out.merged, out.archived) = counts;
        let finding_notes = std::mem::take(&mut out.notes);
        out.notes = finding_notes;
        out.notes.extend(notes);
        out.written = written;

        // The commit landed (or there was nothing to write): the processed findings files go,
        // unless someone wrote to them since they were read.
        for f in processed.iter().map(|&i| &findings[i]) {
            let at = shown(&f.path, &workdir);
            match std::fs::read_to_string(&f.path) {
                Ok(now) if now == f.text => {
                    std::fs::remove_file(&f.path).map_err(|e| {
                        anyhow::Error::new(e).context(format!("cannot remove {at}"))
                    })?;
                    out.consolidated.push(at);
                }
                Ok(_) => out.kept.push(format!(
                    "{at}: changed while it was consolidated; kept for the next save"
                )),
                Err(_) => {}
            }
        }
        // Roles that received findings are pruned when over the limit (the seed's protocol).
        let roles: BTreeSet<String> = findings.iter().map(|f| f.role.clone()).collect();
        drop(lock);
        for role in roles {
            out.pruned += super::prune(store, Some(&role), false)?
                .roles
                .iter()
                .map(|(_, _, e)| e.len())
                .sum::<usize>();
        }
        let lock = dir.lock()?;
        dir.checkout(store, &lock, true)?;
        Ok(out)
    }
}

/// A finding as it may be kept: as written, or (when it holds a secret) with its evidence
/// stripped, or with the secret redacted where it is not in the evidence; the note says
/// which. Secrets are never written; the learning is (seed 002's sensitive-data filter).
fn keep_learning(sealer: &Sealer, body: Body, at: &str) -> Result<(Body, Option<String>)> {
    let probe = |b: &Body| {
        Sealer::new(sealer.redacts())
            .seal(Draft::new(b.clone()), &|field, _| {
                format!("{at} ({:?}, {field})", b.title())
            })
            .map(|_| ())
    };
    let rule = match probe(&body) {
        Ok(()) => return Ok((body, None)),
        Err(SealError::Secret { rule, .. }) => rule,
        Err(e) => return Err(anyhow::Error::new(e).context(format!("cannot save {at}"))),
    };
    let title = body.title().to_owned();
    let mut stripped = body.clone();
    if let Body::Echo(Echo {
        evidence, extra, ..
    }) = &mut stripped
    {
        evidence.clear();
        extra.retain(|x| crate::secrets::scan(&x.text).is_empty());
    }
    if probe(&stripped).is_ok() {
        return Ok((
            stripped,
            Some(format!(
                "{at}: {title:?}: its evidence held a secret ({rule}): the evidence was stripped, the learning kept"
            )),
        ));
    }
    // The secret is in the learning itself: kept, with the secret redacted.
    stripped.texts_mut(&mut |_, v| {
        if !crate::secrets::scan(v).is_empty() {
            *v = crate::secrets::redact(v);
        }
    });
    probe(&stripped).map_err(|e| anyhow::Error::new(e).context(format!("cannot save {at}")))?;
    Ok((
        stripped,
        Some(format!(
            "{at}: {title:?} held a secret ({rule}): the evidence was stripped and the secret redacted, the learning kept"
        )),
    ))
}

/// Seals an entry read back as if new, so a secret or an invalid field is refused (naming the
/// file) before anything is written.
fn check(sealer: &Sealer, body: &Body, at: &str) -> Result<()> {
    let mut probe = Sealer::new(sealer.redacts());
    probe
        .seal(Draft::new(body.clone()), &|field, _| {
            format!("{at} ({:?}, {field})", body.title())
        })
        .map(|_| ())
        .map_err(|e| anyhow::Error::new(e).context(format!("cannot save {at}")))
}

/// The drafts, the notes and the counts (added, changed, merged, archived) of a save.
type Plan = (Vec<Sealed>, Vec<String>, (usize, usize, usize, usize));

/// The drafts a save writes on top of `state`, the notes to report, and the counts (added,
/// changed, merged, archived).
fn plan(
    state: &State,
    reads: &[Read],
    shown_before: &[Record],
    sealer: &mut Sealer,
) -> Result<Plan> {
    let mut drafts: Vec<Sealed> = Vec::new();
    let mut notes = Vec::new();
    let (mut added, mut changed, mut merged, mut archived) = (0, 0, 0, 0);
    let version = |body: Body, current: Option<&Record>, sealer: &mut Sealer| {
        sealer.seal(
            Draft {
                body,
                supersedes: current.map(|r| vec![r.id.clone()]).unwrap_or_default(),
                at: None,
            },
            &|field, _| format!("an echo's {field}"),
        )
    };
    // What this save will write per entry: the body, the live version it replaces, and
    // whether it came from a findings file. Built first and written last, so an edit and a
    // finding of one entry, or two findings of it, end in one version.
    let mut planned: Vec<(Body, Option<&Record>, bool)> = Vec::new();
    let mut seen_uids: HashSet<String> = HashSet::new();
    // Indexes, so consolidating thousands of findings stays linear.
    let norm = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    // The seed's duplicate rule: the same pattern on evidence pointing at the same place.
    let key = |b: &Body| match b {
        Body::Echo(Echo {
            role,
            title,
            evidence,
            ..
        }) => (
            role.clone(),
            norm(title),
            crate::model::echo::evidence_location(evidence),
        ),
        _ => Default::default(),
    };
    let mut live_by_uid: HashMap<&str, &Record> = HashMap::new();
    let mut live_by_title: HashMap<(String, String), &Record> = HashMap::new();
    for r in &state.echoes {
        if let Body::Echo(Echo { role, title, .. }) = &r.body {
            live_by_uid.insert(uid_of(r), r);
            live_by_title
                .entry((role.clone(), norm(title)))
                .or_insert(r);
        }
    }
    let mut planned_at: HashMap<(String, String, String), usize> = HashMap::new();
    for read in reads {
        let mut body = read.body.clone();
        let k = key(&body);
        if let Some(&i) = planned_at.get(&k) {
            raise(&mut planned[i].0, &body);
            merged += 1;
            continue;
        }
        // A role file's entry pairs by uid or title; a finding by uid or pattern + evidence.
        let by_title = live_by_title.get(&(k.0.clone(), k.1.clone())).copied();
        let current = live_by_uid
            .get(uid_of_body(&body))
            .copied()
            .or(by_title)
            .filter(|r| !read.finding || uid_of(r) == uid_of_body(&body) || key(&r.body) == k);
        planned_at.insert(k, planned.len());
        match current {
            Some(cur) => {
                let uid = uid_of(cur).to_owned();
                let mut next = if read.finding {
                    let mut b = cur.body.clone();
                    raise(&mut b, &body);
                    b
                } else {
                    keep_etched(&cur.body, &mut body, &mut notes);
                    body
                };
                if let Body::Echo(Echo { uid: u, .. }) = &mut next {
                    *u = uid.clone();
                }
                seen_uids.insert(uid);
                planned.push((next, Some(cur), read.finding));
            }
            None => {
                if let Body::Echo(Echo { layer, title, .. }) = &mut body {
                    if layer == ETCHED {
                        notes.push(format!(
                            "{title:?} was saved as inscribed: etched entries are added only with \
                             `git rune echo add --layer etched --confirm`"
                        ));
                        *layer = INSCRIBED.to_owned();
                    }
                }
                seen_uids.insert(uid_of_body(&body).to_owned());
                planned.push((body, None, read.finding));
            }
        }
    }
    for (body, cur, finding) in planned {
        match cur {
            Some(cur) => {
                let mut normal = body.clone();
                crate::view::normalize(&mut normal);
                if normal == cur.body {
                    continue;
                }
                if finding {
                    merged += 1;
                } else {
                    changed += 1;
                }
                drafts.push(version(body, Some(cur), sealer)?);
            }
            None => {
                added += 1;
                drafts.push(version(body, None, sealer)?);
            }
        }
    }
    // An entry that supersedes another retires it (the seed's `supersedes`).
    let mut retired: HashSet<String> = HashSet::new();
    for d in drafts.clone() {
        if let Some(old) = super::superseded_by(state, d.body()) {
            let uid = uid_of(old).to_owned();
            if seen_uids.contains(&uid) || !retired.insert(uid) {
                continue;
            }
            notes.push(format!(
                "{:?} is retired: {:?} supersedes it (archived; history keeps it)",
                old.body.title(),
                d.body().title()
            ));
            archived += 1;
            drafts.push(super::retire(old)?);
        }
    }
    // Entries gone from the files they were shown in: archived (history keeps them).
    for gone in shown_before {
        let uid = uid_of(gone);
        if seen_uids.contains(uid) || retired.contains(uid) {
            continue;
        }
        let Some(cur) = live_by_uid.get(uid).copied() else {
            continue;
        };
        let Body::Echo(Echo {
            layer,
            archived: was,
            title,
            ..
        }) = &cur.body
        else {
            continue;
        };
        if *was {
            notes.push(format!(
                "{title:?} stays archived: archived entries are kept in history (restore one with \
                 `git rune echo restore`)"
            ));
            continue;
        }
        if layer == ETCHED {
            notes.push(format!(
                "{title:?} is etched and was kept: remove it with `git rune echo archive <id> \
                 --confirm`"
            ));
            continue;
        }
        let mut body = cur.body.clone();
        if let Body::Echo(Echo { archived: a, .. }) = &mut body {
            *a = true;
        }
        archived += 1;
        drafts.push(version(body, Some(cur), sealer)?);
    }
    Ok((drafts, notes, (added, changed, merged, archived)))
}

fn uid_of_body(b: &Body) -> &str {
    match b {
        Body::Echo(Echo { uid, .. }) => uid,
        _ => "",
    }
}

/// The seed's duplicate rule applied to `into`: the newer `verified` and the higher confidence
/// win; an archived entry found again is active again.
fn raise(into: &mut Body, found: &Body) {
    if let (
        Body::Echo(Echo {
            verified,
            confidence,
            archived,
            ..
        }),
        Body::Echo(Echo {
            verified: v2,
            confidence: c2,
            ..
        }),
    ) = (into, found)
    {
        if v2 > verified {
            *verified = v2.clone();
        }
        *confidence = confidence.max(*c2);
        *archived = false;
    }
}

/// A hand edit cannot make an entry etched or un-etch one: the layer stays as it was.
fn keep_etched(cur: &Body, edit: &mut Body, notes: &mut Vec<String>) {
    if let (Body::Echo(Echo { layer: was, .. }), Body::Echo(Echo { layer, title, .. })) =
        (cur, edit)
    {
        if (was == ETCHED) != (layer == ETCHED) {
            notes.push(format!(
                "{title:?} keeps its layer {was}: etched entries are added or removed only with \
                 confirmation (`git rune echo add --confirm`, `git rune echo archive --confirm`)"
            ));
            *layer = was.clone();
        }
    }
}
