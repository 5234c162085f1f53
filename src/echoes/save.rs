//! Saving the echoes directory: hand edits of a role's `MEMORY.md`, `knowledge.md` and
//! `archive/MEMORY.md` become new versions of their entries, and agents' `<agent>-findings.md`
//! files are consolidated (the seed's write protocol: a duplicate — same pattern and evidence —
//! raises the existing entry's `verified` and confidence, the higher winning; a new finding is
//! appended; a role over 150 lines is pruned, in the same commit). Its records go in the save's one memory commit,
//! beside `.rune/`'s (`memory::save::Companion`); findings files are deleted only after it
//! landed, and only if nobody wrote to them meanwhile.
//! Past 600 lines: reading the directory and the seed's merge rule (`plan`) are one protocol; `plan` could move to a pure file.

use std::collections::{BTreeSet, HashMap, HashSet};

use anyhow::{Context, Result};

use super::dir::{shown, EchoDir, Edited, Findings};
use super::uid_of;
use crate::error;
use crate::memory::save::{Companion, Drafting, SaveOptions, Saved};
use crate::memory::seal::{SealError, Sealed, Sealer};
use crate::memory::view_dir::{FileState, ViewLock};
use crate::memory::write::Written;
use crate::model::echo::{self, norm, ETCHED, INSCRIBED};
use crate::model::kinds::Echo;
use crate::model::{fold, Body, Draft, Record, State};
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

/// Saves the echoes directory alone (`echo consolidate`). `only_findings`: consolidate
/// findings files only, leaving role files alone.
pub fn save(store: &Store, sealer: &mut Sealer, only_findings: bool) -> Result<EchoSaved> {
    let mut echoes = EchoSave::new(only_findings);
    let written = crate::memory::save::save_companion(store, sealer, &mut echoes)?;
    echoes.out.written = written;
    Ok(echoes.out)
}

/// `git rune save`: `.rune/` and the echoes directory in one memory commit (docs/storage.md,
/// "One save"); a file of either that does not read back stops it with nothing recorded.
pub fn save_both(
    store: &Store,
    sealer: &mut Sealer,
    opts: SaveOptions<'_>,
) -> Result<(Saved, EchoSaved)> {
    let mut echoes = EchoSave::new(false);
    let saved = crate::memory::save::save(store, sealer, opts, Some(&mut echoes))?;
    Ok((saved, echoes.out))
}

/// The echoes directory as a save's [`Companion`]: read, parsed and sealed first, its records
/// in the save's memory commit, checked out again after it.
pub struct EchoSave {
    only_findings: bool,
    out: EchoSaved,
    work: Option<Work>,
}

/// What a prepared save has to write.
struct Work {
    dir: EchoDir,
    workdir: std::path::PathBuf,
    reads: Vec<Read>,
    shown_before: Vec<Record>,
    documents: Vec<(String, Option<Sealed>)>,
    findings: Vec<Findings>,
    /// Indexes into `findings` of those read back.
    processed: Vec<usize>,
    /// The last commit attempt's notes and counts (added, changed, merged, archived).
    notes: Vec<String>,
    counts: (usize, usize, usize, usize),
}

impl EchoSave {
    pub fn new(only_findings: bool) -> EchoSave {
        EchoSave {
            only_findings,
            out: EchoSaved::default(),
            work: None,
        }
    }
}

/// The seed's protocol after findings land: each role that received findings and is now over
/// the line limit is pruned, as `echo prune` does, by archive versions in the same commit as
/// `drafts` (placed from `ctx.at`). Returns them and how many entries they archive.
fn prune_after(
    ctx: &Drafting<'_>,
    roles: &BTreeSet<String>,
    drafts: &[Sealed],
    sealer: &mut Sealer,
) -> Result<Vec<Sealed>> {
    if roles.is_empty() {
        return Ok(Vec::new());
    }
    let mut records = ctx.current.to_vec();
    records.extend(drafts.iter().enumerate().map(|(k, d)| {
        ctx.store
            .stamped_in_commit(ctx.current, ctx.at + k, d.clone())
    }));
    let after = fold(&records);
    let today = super::today();
    let uids: HashSet<String> = roles
        .iter()
        .flat_map(|role| super::lifecycle::prune_plan(&after, Some(role), today))
        .flat_map(|(_, _, entries)| entries.into_iter().map(|(uid, _, _)| uid))
        .collect();
    let mut out = Vec::new();
    for r in after
        .echoes
        .iter()
        .filter(|r| uids.contains(super::uid_of(r)))
    {
        let mut body = r.body.clone();
        match Echo::of_mut(&mut body) {
            Some(e) if !e.archived => e.archived = true,
            _ => continue,
        }
        out.push(super::seal_version(sealer, body, Some(r), "the echo's")?);
    }
    Ok(out)
}

impl Companion for EchoSave {
    fn prepare(&mut self, store: &Store, sealer: &mut Sealer) -> Result<bool> {
        self.work = prepare(store, sealer, self.only_findings, &mut self.out)?;
        Ok(self.work.is_some())
    }

    fn drafts(&mut self, ctx: Drafting<'_>, sealer: &mut Sealer) -> Result<Vec<Sealed>> {
        let Some(w) = self.work.as_mut() else {
            return Ok(Vec::new());
        };
        let (mut drafts, notes, counts) = plan(ctx.state, &w.reads, &w.shown_before, sealer)?;
        (w.notes, w.counts) = (notes, counts);
        refuse_files_in_role_folders(ctx.state, &drafts, &w.documents, &w.dir.rel)?;
        let documents = w.documents.iter().map(|(p, s)| (p.clone(), s.as_ref()));
        drafts.extend(crate::memory::save::document_drafts(ctx.state, documents)?);
        let roles: BTreeSet<String> = w.findings.iter().map(|f| f.role.clone()).collect();
        let pruned = prune_after(&ctx, &roles, &drafts, sealer)?;
        self.out.pruned = pruned.len();
        drafts.extend(pruned);
        Ok(drafts)
    }

    fn label(&self) -> String {
        self.work
            .as_ref()
            .map_or_else(String::new, |w| w.dir.rel.clone())
    }

    /// The processed findings files go, unless someone wrote to them since they were read;
    /// the directory is checked out again.
    fn finish(&mut self, store: &Store, guard: &ViewLock) -> Result<()> {
        let (out, Some(w)) = (&mut self.out, self.work.as_mut()) else {
            return Ok(());
        };
        (out.added, out.changed, out.merged, out.archived) = w.counts;
        out.notes.append(&mut w.notes);
        for f in w.processed.iter().map(|&i| &w.findings[i]) {
            let at = shown(&f.path, &w.workdir);
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
        w.dir.checkout(store, guard, true)?;
        Ok(())
    }
}

/// Refuses, before anything is committed, a document saved where a role's folder is checked
/// out (`.claude/echoes/reviewer` as a file while memory holds reviewer's echoes): the
/// checkout after the commit could not write the folder.
fn refuse_files_in_role_folders(
    state: &State,
    drafts: &[Sealed],
    documents: &[(String, Option<Sealed>)],
    shown_dir: &str,
) -> Result<()> {
    let prefix = crate::model::kinds::document::ECHOES_PREFIX;
    let mut roles = super::dir::roles_of(state);
    roles.extend(
        drafts
            .iter()
            .filter_map(|s| Echo::of(s.body()).map(|e| e.role.clone())),
    );
    let clash = documents
        .iter()
        .filter(|(_, sealed)| sealed.is_some())
        .filter_map(|(path, _)| path.strip_prefix(prefix))
        .find(|rel| roles.contains(*rel));
    match clash {
        Some(role) => Err(error::environment(
            format!("{shown_dir}/{role} is a file, where the {role} role's echoes are checked out as a folder; nothing was saved"),
            format!("rename or move that file (into {shown_dir}/{role}/ once it is a folder), then try again"),
        )),
        None => Ok(()),
    }
}

/// Reads, parses and seals what the echoes directory holds to save (by the view lock's
/// holder); writes nothing. `None`: nothing to save.
fn prepare(
    store: &Store,
    sealer: &mut Sealer,
    only_findings: bool,
    out: &mut EchoSaved,
) -> Result<Option<Work>> {
    let Some(dir) = EchoDir::open(store) else {
        return Ok(None);
    };
    let workdir = store.workdir().map(|p| p.to_path_buf()).unwrap_or_default();
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
        return Ok(None);
    }
    // Documents (backups, notes): kept whole, the latest writer per path; deleted by hand,
    // deleted from memory.
    let mut documents: Vec<(String, Option<Sealed>)> = Vec::new();
    for (rel, state) in &doc_changes {
        let at = shown(&dir.root.join(rel), &workdir);
        let sealed = match state {
            FileState::Missing => None,
            _ => {
                let text = std::fs::read_to_string(dir.root.join(rel))
                    .with_context(|| format!("cannot read {at}"))?;
                let path = super::dir::document_path(rel);
                Some(crate::memory::save::seal_document(sealer, path, text, &at)?)
            }
        };
        out.documents.push(at);
        documents.push((super::dir::document_path(rel), sealed));
    }

    // Role files: every one must read back, or nothing is saved.
    let mut reads: Vec<Read> = Vec::new();
    // The memory commit each edited file was rendered from (`None`: never rendered).
    let mut edited_files: HashMap<(String, EchoFile), Option<String>> = HashMap::new();
    for e in &edited {
        let at = shown(&e.path, &workdir);
        let parsed = format::parse(&e.role, e.file, &e.text).map_err(|err| {
            error::data(
                format!("{at}: line {}: {}", err.line, err.message),
                "fix the line and run `git rune save` again; nothing was saved",
            )
        })?;
        for p in parsed {
            if let Parsed::Entry(entry) = p {
                check(sealer, &entry.body, &at)?;
                reads.push(Read {
                    body: entry.body,
                    finding: false,
                });
            }
        }
        let key = format!("{}/{}", e.role, e.file.rel_path());
        let base = manifest.files.get(&key).and_then(|f| f.base.clone());
        edited_files.insert((e.role.clone(), e.file), base);
        out.files.push(at);
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
        let (mut bodies, mut notes) = (Vec::new(), Vec::new());
        let mut bad = None;
        for p in parsed {
            if let Parsed::Entry(entry) = p {
                // The seed's filter: a finding with a secret keeps its learning, without the
                // evidence that held it.
                match keep_learning(sealer, entry.body, &at) {
                    Ok((body, note)) => {
                        notes.extend(note);
                        bodies.push(body);
                    }
                    Err(e) => {
                        bad = Some(format!("{at}: {e:#}"));
                        break;
                    }
                }
            }
        }
        // A file kept as written saves none of its entries: what was stripped from them is
        // said only when they are saved.
        if let Some(b) = bad {
            out.kept.push(b);
            continue;
        }
        out.notes.extend(notes);
        reads.extend(bodies.into_iter().map(|body| Read {
            body,
            finding: true,
        }));
        processed.push(fi);
    }

    // The entries the edited files showed when they were checked out: those gone from them
    // are archived.
    let bases: BTreeSet<&Option<String>> = edited_files.values().collect();
    let mut shown_before: Vec<Record> = Vec::new();
    for base in bases {
        let state: State = match base.as_deref().and_then(|b| b.parse().ok()) {
            Some(oid) => fold(store.records_at(MEMORY_REF, oid)?.iter()),
            None => crate::memory::Snapshot::read(store)?.state,
        };
        shown_before.extend(
            state
                .echoes
                .iter()
                .filter(|r| match (Echo::of(&r.body), EchoFile::of(&r.body)) {
                    (Some(e), Some(f)) => edited_files.get(&(e.role.clone(), f)) == Some(base),
                    _ => false,
                })
                .cloned(),
        );
    }

    Ok(Some(Work {
        dir,
        workdir,
        reads,
        shown_before,
        documents,
        findings,
        processed,
        notes: Vec::new(),
        counts: (0, 0, 0, 0),
    }))
}

/// A finding as it may be kept: as written, or (when it holds a secret) with its evidence
/// stripped, or with the secret redacted where it is not in the evidence; the note says
/// which. Secrets are never written; the learning is (seed 002's sensitive-data filter).
fn keep_learning(sealer: &Sealer, body: Body, at: &str) -> Result<(Body, Option<String>)> {
    let probe = |b: &Body| probe(sealer, b, at);
    let rule = match probe(&body) {
        Ok(()) => return Ok((body, None)),
        Err(SealError::Secret { rule, .. }) => rule,
        Err(e) => return Err(anyhow::Error::new(e).context(format!("cannot save {at}"))),
    };
    let title = body.title().to_owned();
    let mut stripped = body.clone();
    if let Some(e) = Echo::of_mut(&mut stripped) {
        e.evidence.clear();
        e.extra.retain(|x| crate::secrets::scan(&x.text).is_empty());
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
    probe(sealer, body, at).map_err(|e| anyhow::Error::new(e).context(format!("cannot save {at}")))
}

/// Seals `body` as if new with a sealer of `sealer`'s policy, a refused field named as
/// `{at} ("{title}", {field})`; nothing is kept.
fn probe(sealer: &Sealer, body: &Body, at: &str) -> Result<(), SealError> {
    Sealer::new(sealer.redacts())
        .seal(Draft::new(body.clone()), &|field, _| {
            format!("{at} ({:?}, {field})", body.title())
        })
        .map(|_| ())
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
    let version = |body, current, sealer: &mut Sealer| {
        super::seal_version(sealer, body, current, "an echo's")
    };
    // What this save will write per entry: the body, the live version it replaces, and
    // whether it came from a findings file. Built first and written last, so an edit and a
    // finding of one entry, or two findings of it, end in one version.
    let mut planned: Vec<(Body, Option<&Record>, bool)> = Vec::new();
    let mut seen_uids: HashSet<String> = HashSet::new();
    // Indexes, so consolidating thousands of findings stays linear.
    // The seed's duplicate rule: the same pattern on evidence pointing at the same place.
    let key = |b: &Body| {
        Echo::of(b).map_or_else(Default::default, |e| {
            (
                e.role.clone(),
                norm(&e.title),
                echo::evidence_location(&e.evidence),
            )
        })
    };
    let mut live_by_uid: HashMap<&str, &Record> = HashMap::new();
    let mut live_by_title: HashMap<(String, String), &Record> = HashMap::new();
    for r in &state.echoes {
        if let Some(e) = Echo::of(&r.body) {
            live_by_uid.insert(uid_of(r), r);
            live_by_title
                .entry((e.role.clone(), norm(&e.title)))
                .or_insert(r);
        }
    }
    let mut planned_at: HashMap<(String, String, String), usize> = HashMap::new();
    for read in reads {
        let mut body = read.body.clone();
        let k = key(&body);
        if let Some(&i) = planned_at.get(&k) {
            super::raise(&mut planned[i].0, &body, true);
            merged += 1;
            continue;
        }
        // A role file's entry pairs by uid or title; a finding by uid or pattern + evidence.
        let by_title = live_by_title.get(&(k.0.clone(), k.1.clone())).copied();
        let current = live_by_uid
            .get(echo::uid(&body))
            .copied()
            .or(by_title)
            .filter(|r| !read.finding || uid_of(r) == echo::uid(&body) || key(&r.body) == k);
        planned_at.insert(k, planned.len());
        match current {
            Some(cur) => {
                let uid = uid_of(cur).to_owned();
                let mut next = if read.finding {
                    let mut b = cur.body.clone();
                    super::raise(&mut b, &body, true);
                    b
                } else {
                    keep_etched(&cur.body, &mut body, &mut notes);
                    body
                };
                if let Some(e) = Echo::of_mut(&mut next) {
                    e.uid = uid.clone();
                }
                seen_uids.insert(uid);
                planned.push((next, Some(cur), read.finding));
            }
            None => {
                if let Some(e) = Echo::of_mut(&mut body).filter(|e| e.layer == ETCHED) {
                    notes.push(format!(
                        "{:?} was saved as inscribed: etched entries are added only with \
                         `git rune echo add --layer etched --confirm`",
                        e.title
                    ));
                    e.layer = INSCRIBED.to_owned();
                }
                seen_uids.insert(echo::uid(&body).to_owned());
                planned.push((body, None, read.finding));
            }
        }
    }
    for (body, cur, finding) in planned {
        if let Some(cur) = cur {
            let mut normal = body.clone();
            crate::view::normalize(&mut normal);
            if normal == cur.body {
                continue;
            }
        }
        *match (cur, finding) {
            (None, _) => &mut added,
            (Some(_), true) => &mut merged,
            (Some(_), false) => &mut changed,
        } += 1;
        drafts.push(version(body, cur, sealer)?);
    }
    // An entry that supersedes another retires it (the seed's `supersedes`).
    let mut retired: HashSet<String> = HashSet::new();
    for d in drafts.clone() {
        if let Some(old) = super::superseded_by(state, d.body()) {
            let uid = uid_of(old).to_owned();
            if seen_uids.contains(&uid) || !retired.insert(uid) {
                continue;
            }
            // Titles through the gate: the retired entry's may be withheld.
            let new = match crate::integrity::gate::body_withheld(d.body()) {
                true => crate::integrity::gate::WITHHELD_SUMMARY.to_owned(),
                false => d.body().title().to_owned(),
            };
            notes.push(format!(
                "{:?} is retired: {:?} supersedes it (archived; history keeps it)",
                crate::integrity::gate::shown_title(old),
                new
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
        let Some(e) = Echo::of(&cur.body) else {
            continue;
        };
        let title = &e.title;
        if e.archived {
            notes.push(format!(
                "{title:?} stays archived: archived entries are kept in history (restore one with \
                 `git rune echo restore`)"
            ));
            continue;
        }
        if e.layer == ETCHED {
            notes.push(format!(
                "{title:?} is etched and was kept: remove it with `git rune echo archive <id> \
                 --confirm`"
            ));
            continue;
        }
        let body = super::with_archived(&cur.body, true);
        archived += 1;
        drafts.push(version(body, Some(cur), sealer)?);
    }
    Ok((drafts, notes, (added, changed, merged, archived)))
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
