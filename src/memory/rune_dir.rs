//! A seed's `.rune/` folder in and out: `import rune-dir` reads every file the seeds name
//! (and anything else in the folder) into records, `export rune-dir` writes the seed's files
//! from memory.
//!
//! Import rules (docs/storage.md): every entry becomes a record through the one seal, keeping
//! the time its heading gives; `checkpoint-<date>.resolved.md` archives become resolved
//! checkpoints; a new `checkpoint.md` resolves the checkpoint open in memory;
//! `oracle-pending/*.json` become oracle records; what no parser reads
//! (`pre-compact-snapshot.md`, unknown files, entries that fail validation) is kept whole as a
//! cumulative note in the `Imported` section, and reported with file and line. Entries memory
//! already holds (same content, same shown time) are skipped, so importing twice adds nothing.
//! Nothing is written unless every record seals; then one commit per ref, both refs in one
//! transaction.
//!
//! Past 600 lines: import and export are one mapping between the seed's files and records, read in
//! both directions file by file; split, each file's rule would live in two places.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use anyhow::Result;

use super::seal::{SealError, Sealed, Sealer};
use super::view_dir::{View, VIEW_DIR};
use crate::error;
use crate::model::kinds::{CumulativeNote, Document, Oracle, Resolve, Task};
use crate::model::{self, fold, Body, Draft, Kind, Record, Scope};
use crate::secrets;
use crate::store::{branch_ref, ObjectId, Store, MEMORY_REF};
use crate::view::seed_files::{oracle_stem, record_files};
use crate::view::{self, Parsed, ViewFile};

/// The cumulative-notes section raw imported content goes to: not one of the seed's fixed
/// sections (the view keeps extra sections), so it never mixes with curated notes.
pub const IMPORTED_SECTION: &str = "Imported";

/// What one file of the folder gave.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct FileReport {
    /// The path inside the folder, with `/`.
    pub name: String,
    /// Entries read as records (already present ones included).
    pub entries: usize,
    /// Items kept raw in the `Imported` section.
    pub raw: usize,
    /// Entries and raw items memory already held: skipped.
    pub present: usize,
    /// Why something was kept raw: `line N: reason`.
    pub notes: Vec<String>,
}

/// What an import did (or, with `dry_run`, would do).
#[derive(Debug, Default)]
pub struct Imported {
    pub dir: PathBuf,
    pub dry_run: bool,
    pub files: Vec<FileReport>,
    /// Records written (or that would be), resolves of archived checkpoints included.
    pub added: usize,
    /// Commits written: (ref, commit).
    pub commits: Vec<(String, ObjectId)>,
    /// The folder was the work tree's `.rune/`: once imported it became git-rune's view (its
    /// files rendered from memory).
    pub in_tree: bool,
    /// ... and the current branch commits it: git still tracks the view's files.
    pub tracked: bool,
    /// What the commits added, for the view's refresh.
    pub told: Vec<super::Wrote>,
}

/// One record the folder asks for, sealed.
struct Item {
    sealed: Sealed,
    file: usize,
    /// From a `checkpoint-*.resolved.md` archive: resolved as it is added.
    resolved: bool,
}

/// Imports the folder `dir`, which messages name as `shown` (as the user typed it). Refuses
/// git-rune's own view (`git rune save` saves it).
pub fn import(
    store: &Store,
    sealer: &mut Sealer,
    dir: &Path,
    shown: &Path,
    dry_run: bool,
) -> Result<Imported> {
    let in_tree = refuse_live_view(store, dir, shown)?;
    let files = read_dir(dir, shown)?;
    let mut out = import_files(store, sealer, dir, files, dry_run)?;
    if out.dry_run || out.commits.is_empty() && !in_tree {
        return Ok(out);
    }
    if in_tree {
        // Every entry of the seed's files is in memory now: the view takes their place.
        if let Some(view) = View::open(store) {
            let imported: Vec<ViewFile> = out
                .files
                .iter()
                .filter_map(|f| ViewFile::from_name(&f.name))
                .collect();
            view.checkout(store, &imported)?;
        }
        out.in_tree = true;
        out.tracked = store.head_holds(VIEW_DIR);
    } else {
        super::write::refresh_view_told(store, &out.told)?;
    }
    Ok(out)
}

/// Files of the live view that hold records in a seed's form (`checkpoint-<date>.resolved.md`,
/// `oracle-pending/<sessionId>.json`), written or edited there: planned as `import rune-dir`
/// imports them (what memory holds already is skipped), for `save` to commit with the rest of
/// the view's edits.
pub(super) fn plan_view_files(
    store: &Store,
    sealer: &mut Sealer,
    files: Vec<(String, Vec<u8>)>,
) -> Result<ImportPlan> {
    let files: Vec<DirFile> = files
        .into_iter()
        .map(|(name, data)| DirFile {
            name,
            text: String::from_utf8(data)
                .map_err(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        })
        .collect();
    ImportPlan::new(store, sealer, &files)
}

/// A folder's files sealed, ready to be planned against the records each ref holds: the
/// memory ref (0) and the current branch's (1). `import rune-dir` commits a plan on its own;
/// `save` puts the plan of the view's record files in its one transaction.
pub(super) struct ImportPlan {
    items: Vec<Item>,
    /// What each file gave, as of the last plan of ref 0.
    pub(super) reports: Vec<FileReport>,
    /// The reports as sealing left them (a retried transaction plans again from these).
    sealed_reports: Vec<FileReport>,
    /// The memory ref and the current branch's ref.
    pub(super) refs: [String; 2],
}

impl ImportPlan {
    /// Seals every file (nothing is planned unless all of them seal).
    fn new(store: &Store, sealer: &mut Sealer, files: &[DirFile]) -> Result<Self> {
        let now = store.now();
        let (items, reports) = seal_all(sealer, files, &now)?;
        let branch = branch_ref(store.head_info()?.branch.as_deref());
        Ok(Self {
            items,
            reports: reports.clone(),
            sealed_reports: reports,
            refs: [MEMORY_REF.to_owned(), branch],
        })
    }

    /// Whether ref `g` has anything to plan.
    pub(super) fn touches(&self, g: usize) -> bool {
        self.items.iter().any(|it| in_ref(it, g))
    }

    /// What ref `g` must add to `current` (what it holds already is skipped and counted);
    /// the drafts go first in their commit (a resolve names a record by its place in it).
    pub(super) fn drafts(
        &mut self,
        store: &Store,
        sealer: &mut Sealer,
        g: usize,
        current: &[Record],
    ) -> Result<Vec<Sealed>> {
        if g == 0 {
            self.reports = self.sealed_reports.clone();
        }
        let reports = &mut self.reports;
        let mut seen = Seen::new(
            current,
            self.items
                .iter()
                .filter(|it| in_ref(it, g))
                .map(|it| it.sealed.body()),
        );
        // Folded only if a checkpoint needs it (a learnings import never does).
        let folded = std::cell::OnceCell::new();
        let state = || folded.get_or_init(|| fold(current));
        let mut drafts: Vec<Sealed> = Vec::new();
        // A new open checkpoint resolves the one open now, as `git rune checkpoint` does.
        let mut open_resolved = false;
        for it in self.items.iter().filter(|it| in_ref(it, g)) {
            match seen.find(it.sealed.draft()) {
                Some(ids) => {
                    reports[it.file].present += 1;
                    // An archive of a checkpoint memory holds open resolves it.
                    if it.resolved {
                        for id in ids.iter().filter(|id| !state().resolved.contains(*id)) {
                            drafts.push(resolve(sealer, id)?);
                        }
                    }
                }
                None => {
                    seen.add(it.sealed.draft());
                    // A document replaces the one memory holds at its path.
                    if let Body::Document(Document { path, .. }) = it.sealed.body() {
                        let ids: Vec<String> = state()
                            .documents
                            .iter()
                            .filter(|r| r.body.title() == path)
                            .map(|r| r.id.clone())
                            .collect();
                        drafts.push(it.sealed.clone().superseding(ids));
                        continue;
                    }
                    let checkpoint = it.sealed.body().kind() == Kind::Checkpoint;
                    if checkpoint && !it.resolved && !open_resolved {
                        open_resolved = true;
                        let state = state();
                        for c in state
                            .checkpoints
                            .iter()
                            .filter(|c| !state.resolved.contains(&c.id))
                        {
                            drafts.push(resolve(sealer, &c.id)?);
                        }
                    }
                    drafts.push(it.sealed.clone());
                    if it.resolved {
                        let at = drafts.len() - 1;
                        let id = store.stamped_in_commit(current, at, it.sealed.clone()).id;
                        drafts.push(resolve(sealer, &id)?);
                    }
                }
            }
        }
        Ok(drafts)
    }
}

/// Whether `it` belongs to ref `g` of an [`ImportPlan`] (1: the branch's).
fn in_ref(it: &Item, g: usize) -> bool {
    (it.sealed.body().kind().scope() == Some(Scope::Branch)) == (g == 1)
}

/// Imports files read from `dir`: seals them all, then writes what memory does not hold yet.
fn import_files(
    store: &Store,
    sealer: &mut Sealer,
    dir: &Path,
    files: Vec<DirFile>,
    dry_run: bool,
) -> Result<Imported> {
    let mut plan = ImportPlan::new(store, sealer, &files)?;
    let mut out = Imported {
        dir: dir.to_path_buf(),
        dry_run,
        ..Default::default()
    };
    let refs = plan.refs.clone();
    // The folder by its name alone: memory commits are shared, a local path is not.
    let name = dir.file_name().unwrap_or(dir.as_os_str()).to_string_lossy();
    let summary = format!("import rune-dir: {name}");
    if dry_run {
        for (g, name) in refs.iter().enumerate() {
            let (_, current) = store.records(name)?;
            out.added += plan.drafts(store, sealer, g, &current)?.len();
        }
        out.files = plan.reports;
        return Ok(out);
    }
    let pairs: Vec<(&str, &str)> = refs
        .iter()
        .map(|r| (r.as_str(), summary.as_str()))
        .collect();
    let commits = store.commit_all(&pairs, |g, current| plan.drafts(store, sealer, g, current))?;
    for (name, c) in refs.iter().zip(commits) {
        if let Some(c) = c {
            out.added += c.records.len();
            out.commits.push((name.clone(), c.id));
            out.told.extend(super::write::wrote(store, name, &c)?);
        }
    }
    out.files = plan.reports;
    Ok(out)
}

/// Writes the seed's files from memory (the current branch's, for branch-scoped files) into
/// `dir`, plus a `checkpoint-<date>.resolved.md` archive for each resolved checkpoint and an
/// `oracle-pending/<sessionId>.json` for each oracle dispatch not orphaned.
/// Refuses to overwrite a file unless `force`; nothing is written then. Returns the files'
/// names, in the seed's order.
pub fn export(store: &Store, dir: &Path, force: bool) -> Result<Vec<String>> {
    let mut snap = super::Snapshot::read(store)?;
    // As `show` prints it: SUSPICIOUS records marked (an import takes the marks off again).
    let verdicts = super::cache::gate::verdicts(store, &snap)?;
    verdicts.mark(&mut snap.state, true);
    let hide = |r: &Record| verdicts.withholds(r);
    let mut texts: Vec<(String, String)> = Vec::new();
    for file in ViewFile::ALL {
        let text = view::render(file, &snap.state, &hide);
        if !text.is_empty() {
            texts.push((file.name().to_owned(), text));
        }
    }
    texts.extend(record_files(&snap.state, &hide));
    // Documents, as the view writes them (withheld ones left out).
    for r in &snap.state.documents {
        if let Body::Document(Document { path, content }) = &r.body {
            let rel = path.strip_prefix(crate::model::kinds::document::RUNE_PREFIX);
            if let Some(rel) = rel.filter(|_| !view::is_frame_path(path) && !hide(r)) {
                texts.push((rel.to_owned(), content.clone()));
            }
        }
    }
    crate::files::write_export(dir, &texts, force, "rune-dir")?;
    Ok(texts.into_iter().map(|(name, _)| name).collect())
}

/// git-rune's own view is saved, not imported. Returns whether `dir` is the work tree's
/// `.rune/` as a seed's folder: one git-rune has not checked out, or one the current branch
/// commits (a seed's memory, even after a view was rendered over it).
fn refuse_live_view(store: &Store, dir: &Path, shown: &Path) -> Result<bool> {
    let Some(view) = View::open(store) else {
        return Ok(false);
    };
    let same = match (dir.canonicalize(), view.dir.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if !same {
        return Ok(false);
    }
    if view.checked_out() && !store.head_holds(VIEW_DIR) {
        return Err(error::input(
            format!("{} is git-rune's view of memory, not a seed's folder", shown.display()),
            format!(
                "edits there are saved with `git rune save`; to import a {VIEW_DIR}/ folder committed on a branch, copy it out first (`mkdir /tmp/seed && git archive BRANCH {VIEW_DIR} | tar -x -C /tmp/seed`) and run `git rune import rune-dir /tmp/seed/{VIEW_DIR}`"
            ),
        ));
    }
    Ok(true)
}

/// One file of the folder: its path inside it and its text (`None`: not UTF-8).
struct DirFile {
    name: String,
    text: std::result::Result<String, String>,
}

/// Every file under `dir`, sorted by path (hidden ones skipped). Messages name the folder as
/// `shown` (as the user typed it) and its files below it.
fn read_dir(dir: &Path, shown: &Path) -> Result<Vec<DirFile>> {
    let hint = "name the seed's folder: `git rune import rune-dir DIR`; nothing was imported";
    if !dir.is_dir() {
        return Err(error::input(
            format!("{} is not a folder", shown.display()),
            hint,
        ));
    }
    let mut out = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), String::new())];
    while let Some((path, prefix)) = stack.pop() {
        let unreadable = |rel: &str| {
            let shown = shown.join(rel).display().to_string();
            move |e: std::io::Error| {
                error::environment(format!("cannot read {shown}: {}", error::io_text(&e)), hint)
            }
        };
        for e in std::fs::read_dir(&path).map_err(unreadable(&prefix))? {
            let e = e.map_err(unreadable(&prefix))?;
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let rel = format!("{prefix}{name}");
            let p = e.path();
            // A link could bring in a file from anywhere (a key, /etc/passwd) as a document
            // that sync then shares, or loop: only the folder's own files are imported.
            if e.file_type().map_err(unreadable(&rel))?.is_symlink() {
                return Err(error::input(
                    format!(
                        "{} is a symbolic link; nothing was imported",
                        shown.join(&rel).display()
                    ),
                    "git-rune imports only the folder's own files: replace the link with a copy of the file, or remove it",
                ));
            }
            if p.is_dir() {
                stack.push((p, format!("{rel}/")));
                continue;
            }
            let data = std::fs::read(&p).map_err(unreadable(&rel))?;
            let text = String::from_utf8(data)
                .map_err(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
            out.push(DirFile { name: rel, text });
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// The date of a `checkpoint-<date>.resolved.md` archive, as a time (`None` for other files).
fn archive_date(name: &str) -> Option<Option<String>> {
    let middle = name
        .strip_prefix("checkpoint-")?
        .strip_suffix(".resolved.md")?;
    let day = middle
        .get(..10)
        .filter(|d| chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d").is_ok());
    Some(day.map(|d| format!("{d}T00:00:00Z")))
}

/// Where the entries read from one file go: the import's items, and the file's report.
struct FileOut<'a> {
    items: &'a mut Vec<Item>,
    report: FileReport,
    /// The file's index.
    fi: usize,
}

impl FileOut<'_> {
    /// Adds an entry of the file (`resolved`: from a resolved checkpoint archive).
    fn push(&mut self, sealed: Sealed, resolved: bool) {
        self.report.entries += 1;
        self.items.push(Item {
            sealed,
            file: self.fi,
            resolved,
        });
    }
}

/// Reads and seals every file's entries; a secret refuses the whole import (unless the
/// sealer redacts).
fn seal_all(
    sealer: &mut Sealer,
    files: &[DirFile],
    now: &str,
) -> Result<(Vec<Item>, Vec<FileReport>)> {
    let mut items = Vec::new();
    let mut reports = Vec::new();
    for (fi, f) in files.iter().enumerate() {
        let report = FileReport {
            name: f.name.clone(),
            ..Default::default()
        };
        let mut out = FileOut {
            items: &mut items,
            report,
            fi,
        };
        seal_file(sealer, &mut out, f, now)?;
        reports.push(out.report);
    }
    Ok((items, reports))
}

/// Reads and seals the entries of one file.
fn seal_file(sealer: &mut Sealer, out: &mut FileOut<'_>, f: &DirFile, now: &str) -> Result<()> {
    let text = match &f.text {
        Ok(t) => t.as_str(),
        Err(_) => {
            out.report.notes.push(
                "line 1: binary (not UTF-8 text): not imported; memory keeps text only".into(),
            );
            return Ok(());
        }
    };
    let archive = archive_date(&f.name);
    let file = if archive.is_some() {
        Some(ViewFile::Checkpoint)
    } else {
        ViewFile::from_name(&f.name)
    };
    if let Some(stem) = oracle_stem(&f.name) {
        return seal_oracle(sealer, out, text, stem);
    }
    let Some(file) = file else {
        // Any other file is a document, kept whole (local ones aside).
        match super::view_dir::documents::place(&f.name) {
            super::view_dir::documents::Place::Document => document_item(sealer, out, f, text)?,
            _ => out
                .report
                .notes
                .push("line 1: local by design (docs/storage.md): not imported".into()),
        }
        return Ok(());
    };
    // learnings.jsonl is read line by line: one bad line is kept raw, not the file.
    if file == ViewFile::Learnings {
        let mut parsed = Vec::new();
        for (i, line) in text.lines().enumerate() {
            match view::parse(file, line) {
                Ok(p) => parsed.extend(p),
                Err(e) => raw_item(sealer, out, line, i + 1, text, &e.message)?,
            }
        }
        return seal_entries(sealer, out, f, parsed, None, now);
    }
    let parsed = match view::parse_framed(file, text) {
        Ok(view::Framed { items: p, frame }) => {
            // The file's text outside its entries is its frame.
            if let Some(frame) = frame.filter(|_| archive.is_none()) {
                let frame_file = DirFile {
                    name: view::frame_path(file)
                        .trim_start_matches(crate::model::kinds::document::RUNE_PREFIX)
                        .to_owned(),
                    text: Ok(frame.clone()),
                };
                let before = out.report.entries;
                document_item(sealer, out, &frame_file, &frame)?;
                out.report.entries = before;
            }
            p
        }
        Err(e) => return raw_item(sealer, out, text, e.line, text, &e.message),
    };
    seal_entries(sealer, out, f, parsed, archive, now)
}

/// Seals the dispatch an `oracle-pending/` file holds (its `dispatchedAt` as the record's
/// time); a file that cannot be read or fails validation is kept raw, and fields the record has
/// no place for are kept raw beside it.
fn seal_oracle(sealer: &mut Sealer, out: &mut FileOut<'_>, text: &str, stem: &str) -> Result<()> {
    let read = match view::oracle_json::parse(text, stem) {
        Ok(read) => read,
        Err(e) => return raw_item(sealer, out, text, e.line, text, &e.message),
    };
    let mut draft = Draft::new(read.body);
    if let Body::Oracle(Oracle { dispatched_at, .. }) = &draft.body {
        draft.at = Some(dispatched_at.clone());
    }
    let name = out.report.name.clone();
    match sealer.seal_in(draft, &name, text) {
        Ok(sealed) => out.push(sealed, false),
        Err(SealError::Invalid { error, .. }) => {
            return raw_item(sealer, out, text, 1, text, &error)
        }
        Err(other) => return Err(other.into()),
    }
    if !read.extra.is_empty() {
        let why = "fields an oracle record has no place for";
        raw_item(sealer, out, &read.extra, 1, text, why)?;
    }
    Ok(())
}

/// Seals the entries read from `f` (an archive's date, if it is one, as the time of entries
/// without their own); an entry that fails validation is kept raw.
fn seal_entries(
    sealer: &mut Sealer,
    out: &mut FileOut<'_>,
    f: &DirFile,
    parsed: Vec<Parsed>,
    archive: Option<Option<String>>,
    now: &str,
) -> Result<()> {
    let text = f.text.as_deref().unwrap_or_default();
    // Tasks without a number take the ones after the file's highest.
    let mut next_task = 1 + parsed
        .iter()
        .filter_map(|p| match p {
            Parsed::Entry(view::Entry {
                body: Body::Task(Task { num, .. }),
                ..
            }) => Some(*num),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    let salt = model::task::salt();
    for p in parsed {
        let Parsed::Entry(e) = p else { continue };
        let mut draft = Draft::new(e.body);
        draft.at = match (&archive, e.at) {
            (_, Some(at)) => Some(at),
            (Some(day), None) => Some(day.clone().unwrap_or_else(|| now.to_owned())),
            (None, None) => None,
        };
        model::task::complete(&mut draft.body, &mut next_task, now, &salt);
        let title = draft.body.title().to_owned();
        match sealer.seal_in(draft, &f.name, text) {
            Ok(sealed) => out.push(sealed, archive.is_some()),
            Err(SealError::Invalid { error, .. }) => {
                let line = line_of_title(text, &title);
                raw_item(sealer, out, &chunk_at(text, line), line, text, &error)?;
            }
            Err(other) => return Err(other.into()),
        }
    }
    Ok(())
}

/// Keeps a file whole as a document (or reports why it cannot be: too large).
fn document_item(
    sealer: &mut Sealer,
    out: &mut FileOut<'_>,
    f: &DirFile,
    text: &str,
) -> Result<()> {
    if let Some(why) = crate::model::kinds::document::content_problem(text.as_bytes()) {
        out.report.notes.push(format!(
            "line 1: {why}: not imported; keep it outside .rune/"
        ));
        return Ok(());
    }
    let body = Body::Document(Document {
        path: format!("{}{}", crate::model::kinds::document::RUNE_PREFIX, f.name),
        content: text.to_owned(),
    });
    match sealer.seal_in(Draft::new(body), &f.name, text) {
        Ok(sealed) => out.push(sealed, false),
        Err(SealError::Invalid { error, .. }) => {
            out.report
                .notes
                .push(format!("line 1: {error}: not imported"));
        }
        Err(other) => return Err(other.into()),
    }
    Ok(())
}

/// Keeps `raw` (from line `line` of the file, whose whole text is `text`) as a note in the
/// `Imported` section, noting `line {line}: {why}: kept raw`.
fn raw_item(
    sealer: &mut Sealer,
    out: &mut FileOut<'_>,
    raw: &str,
    line: usize,
    text: &str,
    why: impl std::fmt::Display,
) -> Result<()> {
    out.report
        .notes
        .push(format!("line {line}: {why}: kept raw"));
    let name = out.report.name.clone();
    let body = Body::CumulativeNote(CumulativeNote {
        section: IMPORTED_SECTION.to_owned(),
        text: format!("{name} (line {line}):\n{}", raw.trim()),
    });
    let sealed = sealer.seal_in(Draft::new(body), &name, text)?;
    out.report.raw += 1;
    out.items.push(Item {
        sealed,
        file: out.fi,
        resolved: false,
    });
    Ok(())
}

/// The 1-based line where `title` first appears (1 when it does not).
fn line_of_title(text: &str, title: &str) -> usize {
    let t = title.trim();
    if t.is_empty() {
        return 1;
    }
    text.find(t).map_or(1, |at| secrets::line_of(text, at))
}

/// The lines of one entry starting at `line`: up to the next heading of the same level (the
/// line itself for a JSON line).
fn chunk_at(text: &str, line: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let Some(first) = lines.get(line.saturating_sub(1)) else {
        return text.to_owned();
    };
    let level: String = first.chars().take_while(|c| *c == '#').collect();
    if level.is_empty() {
        return first.to_string();
    }
    let prefix = format!("{level} ");
    let rest = lines[line..].iter().take_while(|l| !l.starts_with(&prefix));
    std::iter::once(*first)
        .chain(rest.copied())
        .collect::<Vec<_>>()
        .join("\n")
}

fn resolve(sealer: &mut Sealer, target: &str) -> Result<Sealed> {
    Ok(sealer.seal(
        Draft::new(Body::Resolve(Resolve {
            target: target.to_owned(),
        })),
        &|f, _| f.into(),
    )?)
}

/// The entries a ref holds already, by kind and headline: an imported entry is present when
/// one of them shows the same content (fields the entry leaves empty taken from it, as a
/// task's identity and dates) at the same shown time (any time, for an entry without one).
struct Seen {
    by_title: HashMap<(Kind, String), Vec<Known>>,
}

/// One entry held: its visible content, its time, its record id (empty for an entry of this
/// import).
type Known = (Body, Option<String>, String);

impl Seen {
    /// The entries of `current` that share a kind and headline with one of `importing`
    /// (no other can be one an imported entry duplicates).
    fn new<'a>(current: &[Record], importing: impl Iterator<Item = &'a Body>) -> Seen {
        let wanted: HashSet<(Kind, &str)> = importing.map(|b| (b.kind(), b.title())).collect();
        let mut s = Seen {
            by_title: HashMap::new(),
        };
        for r in current {
            if matches!(r.kind(), Kind::Delete | Kind::Resolve)
                || !wanted.contains(&(r.kind(), r.body.title()))
            {
                continue;
            }
            s.by_title
                .entry((r.kind(), r.body.title().to_owned()))
                .or_default()
                .push((
                    view::visible(&r.body),
                    Some(r.meta.ts.clone()),
                    r.id.clone(),
                ));
        }
        s
    }

    /// The ids of the records `d` duplicates (`None` when it adds something).
    fn find(&self, d: &Draft) -> Option<Vec<String>> {
        let kind = d.body.kind();
        let list = self.by_title.get(&(kind, d.body.title().to_owned()))?;
        let file = ViewFile::ALL.into_iter().find(|f| f.kind() == kind);
        let shown = |t: &str| file.map(|f| f.shown_time(t)).unwrap_or_default();
        let ids: Vec<String> = list
            .iter()
            .filter(|(body, ts, _)| {
                let mut mine = view::visible(&d.body);
                fill_from(&mut mine, body);
                mine == *body
                    && match (&d.at, ts) {
                        (Some(a), Some(b)) => shown(a) == shown(b),
                        _ => true,
                    }
            })
            .map(|(_, _, id)| id.clone())
            .collect();
        (!ids.is_empty()).then_some(ids)
    }

    fn add(&mut self, d: &Draft) {
        self.by_title
            .entry((d.body.kind(), d.body.title().to_owned()))
            .or_default()
            .push((view::visible(&d.body), d.at.clone(), String::new()));
    }
}

/// The fields of a task a view line may leave out (filled at import time) taken from `from`.
fn fill_from(mine: &mut Body, from: &Body) {
    if let (Body::Task(t), Body::Task(f)) = (mine, from) {
        t.created.clone_from(&f.created);
        t.completed.clone_from(&f.completed);
    }
}
