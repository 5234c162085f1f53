//! The `.rune/` view: renders the folded memory into the seed's markdown and JSONL files, and
//! reads hand-edited files back into record bodies and the drafts that save them.
//!
//! Pure text in, text out: no git and no I/O. The guarantees the rest of git-rune builds on:
//! `render` is deterministic; for a normalised body, `parse(render(..))` gives it back
//! (compared with [`visible`]); and render → parse → render is byte-stable.
//!
//! Past 600 lines: the one dispatch between every view file and its renderer and parser (render,
//! parse, the drafts a save makes), which the other `view/` files implement per file.

mod checkpoint;
mod context_blocks;
mod conventions;
mod decisions;
mod diff;
pub mod echoes;
mod entry;
mod instincts;
pub mod invariants;
mod invariants_file;
mod learnings;
pub mod log_merge;
mod notes;
pub mod oracle_json;
mod progress;
pub mod seed_files;
mod session_log;
pub(crate) mod tasks;
mod text;

#[cfg(test)]
mod corpus_tests;
#[cfg(test)]
mod invariants_loader_tests;
#[cfg(test)]
mod lenient_tests;
#[cfg(test)]
mod roundtrip_tests;

pub use diff::diff;
#[cfg(test)]
pub use testing::{parse_bodies, render_all, show_all};

use crate::model::kinds::{
    Checkpoint, Decision, Echo, Instinct, Invariant, Learning, Session, Task,
};
use crate::model::{
    canonical_section, Body, Draft, Extra, Field, Kind, Record, Scope, Shape, State,
};
use text::{block, item, items_normal, one_line, paths};

/// One file of the view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ViewFile {
    Decisions,
    Conventions,
    Learnings,
    Instincts,
    CumulativeNotes,
    Invariants,
    Progress,
    SessionLog,
    Checkpoint,
    TaskNotes,
    Tasks,
    ContextBlocks,
}

impl ViewFile {
    pub const ALL: [ViewFile; 12] = [
        ViewFile::Decisions,
        ViewFile::Conventions,
        ViewFile::Learnings,
        ViewFile::Instincts,
        ViewFile::CumulativeNotes,
        ViewFile::Invariants,
        ViewFile::Progress,
        ViewFile::SessionLog,
        ViewFile::Checkpoint,
        ViewFile::TaskNotes,
        ViewFile::Tasks,
        ViewFile::ContextBlocks,
    ];

    /// Every file in the order commands list their kinds (`show`, `diff --kind`).
    pub const LISTED: [ViewFile; 12] = [
        ViewFile::Decisions,
        ViewFile::Conventions,
        ViewFile::Learnings,
        ViewFile::Instincts,
        ViewFile::Progress,
        ViewFile::Checkpoint,
        ViewFile::SessionLog,
        ViewFile::CumulativeNotes,
        ViewFile::TaskNotes,
        ViewFile::Tasks,
        ViewFile::ContextBlocks,
        ViewFile::Invariants,
    ];

    /// The file name inside `.rune/`.
    pub fn name(self) -> &'static str {
        match self {
            ViewFile::Decisions => "decisions.md",
            ViewFile::Conventions => "conventions.md",
            ViewFile::Learnings => "learnings.jsonl",
            ViewFile::Instincts => "instincts.md",
            ViewFile::CumulativeNotes => "cumulative-notes.md",
            ViewFile::Invariants => "INVARIANTS.md",
            ViewFile::Progress => "progress.md",
            ViewFile::SessionLog => "session-log.md",
            ViewFile::Checkpoint => "checkpoint.md",
            ViewFile::TaskNotes => "task-notes.md",
            ViewFile::Tasks => "tasks.md",
            ViewFile::ContextBlocks => "context-blocks.md",
        }
    }

    pub fn from_name(name: &str) -> Option<ViewFile> {
        ViewFile::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The name commands use for the file's records (`git rune show decisions`): the file's
    /// name without its extension, in lowercase.
    pub fn label(self) -> &'static str {
        match self {
            ViewFile::Invariants => "invariants",
            f => f.name().split('.').next().unwrap_or_default(),
        }
    }

    /// The file a [`ViewFile::label`] names.
    pub fn from_label(label: &str) -> Option<ViewFile> {
        ViewFile::ALL.into_iter().find(|f| f.label() == label)
    }

    /// The one record kind the file shows.
    pub fn kind(self) -> Kind {
        match self {
            ViewFile::Decisions => Kind::Decision,
            ViewFile::Conventions => Kind::Convention,
            ViewFile::Learnings => Kind::Learning,
            ViewFile::Instincts => Kind::Instinct,
            ViewFile::CumulativeNotes => Kind::CumulativeNote,
            ViewFile::Invariants => Kind::Invariant,
            ViewFile::Progress => Kind::Progress,
            ViewFile::SessionLog => Kind::Session,
            ViewFile::Checkpoint => Kind::Checkpoint,
            ViewFile::TaskNotes => Kind::TaskNote,
            ViewFile::Tasks => Kind::Task,
            ViewFile::ContextBlocks => Kind::ContextBlock,
        }
    }

    /// The ref the file's records live under: its kind's (which every kind a file shows has).
    pub fn scope(self) -> Scope {
        self.kind().scope().unwrap_or(Scope::Memory)
    }
}

/// A view file that cannot be read back; the message says what was expected and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ParseError {
    /// 1-based.
    pub line: usize,
    pub message: String,
}

/// One entry read from a view file.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub body: Body,
    /// The time the entry gives (a heading's date, a learning's `ts`), RFC 3339 UTC.
    pub at: Option<String>,
}

/// What a view file holds, in order: entries, and the placeholders of withheld records.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)] // Entries are the common case; boxing them buys nothing.
pub enum Parsed {
    Entry(Entry),
    /// A record the view showed as withheld (its id, or a prefix of it).
    Withheld(String),
}

impl Parsed {
    fn entry(body: Body, at: Option<String>) -> Parsed {
        Parsed::Entry(Entry { body, at })
    }
}

/// A view file as read: its entries and placeholders, and its frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Framed {
    pub items: Vec<Parsed>,
    /// The file's text outside its entries as written (its title, an intro, a note, a
    /// template; for `INVARIANTS.md` its whole layout), kept as a document record at
    /// [`frame_path`]; `None` when it is the view's own.
    pub frame: Option<String>,
}

impl Framed {
    /// The entries of a format without a frame.
    fn bare(items: Vec<Parsed>) -> Framed {
        Framed { items, frame: None }
    }
}

/// The path of the document that holds a view file's frame: the view file's own path.
pub fn frame_path(file: ViewFile) -> String {
    crate::model::kinds::document::RUNE_PREFIX.to_owned() + file.name()
}

/// Whether a document path names a view file's frame rather than a file of its own.
pub fn is_frame_path(path: &str) -> bool {
    path.strip_prefix(crate::model::kinds::document::RUNE_PREFIX)
        .is_some_and(|name| ViewFile::from_name(name).is_some())
}

/// The frame document of `file` in the state, if it has one.
pub fn frame_of(state: &State, file: ViewFile) -> Option<&Record> {
    let path = frame_path(file);
    state.documents.iter().find(|r| r.body.title() == path)
}

/// The drafts that make memory hold `frame` as `file`'s frame: none when it already does
/// (`current`: the frame document memory holds now) or when the file was rendered with it
/// and not changed since (`base`: the one it was rendered with), so an edit of entries never
/// undoes another writer's frame; else a document superseding the current one, or a
/// tombstone when the file went back to the view's own frame.
pub fn frame_drafts(
    file: ViewFile,
    frame: Option<&str>,
    current: Option<&Record>,
    base: Option<&Record>,
) -> Vec<Draft> {
    use crate::model::kinds::{Delete, Document};
    if frame == current.and_then(frame_text) || frame == base.and_then(frame_text) {
        return Vec::new();
    }
    let ids: Vec<String> = current.map(|r| r.id.clone()).into_iter().collect();
    match frame {
        Some(text) => vec![Draft {
            body: Body::Document(Document {
                path: frame_path(file),
                content: text.to_owned(),
            }),
            supersedes: ids,
            at: None,
        }],
        None if ids.is_empty() => Vec::new(),
        None => vec![Draft::new(Body::Delete(Delete { targets: ids }))],
    }
}

/// The title line a file's default rendering starts with, which a frame replaces.
fn title_line(file: ViewFile) -> Option<&'static str> {
    Some(match file {
        ViewFile::Decisions => "# Decisions Log\n",
        ViewFile::Conventions => "# Conventions\n",
        ViewFile::Instincts => "# Instincts\n",
        ViewFile::Progress => "# Progress\n",
        ViewFile::SessionLog => "# Session Log\n",
        ViewFile::CumulativeNotes => "# Cumulative Project Notes\n",
        _ => return None,
    })
}

/// The text a frame document holds.
fn frame_text(r: &Record) -> Option<&str> {
    match &r.body {
        Body::Document(d) => Some(&d.content),
        _ => None,
    }
}

/// The text of `file`'s frame, unless `withhold` picks it.
fn shown_frame<'a>(state: &'a State, file: ViewFile, withhold: Withhold<'_>) -> Option<&'a str> {
    frame_of(state, file)
        .filter(|r| !withhold(r))
        .and_then(frame_text)
}

/// `text` (a default rendering of `file`) with the file's frame in place of its title line.
fn with_frame(file: ViewFile, text: String, state: &State, withhold: Withhold<'_>) -> String {
    let (Some(content), Some(title)) = (shown_frame(state, file, withhold), title_line(file))
    else {
        return text;
    };
    match text.strip_prefix(title) {
        Some(rest) => format!("{content}{rest}"),
        None => text,
    }
}

/// Which records the view shows as a placeholder instead of their text (the integrity gate's
/// TAINTED ones).
pub type Withhold<'a> = &'a dyn Fn(&Record) -> bool;

/// Renders `file` from the folded state. Deterministic: the same state gives the same bytes,
/// ending with `"\n"`, with three exceptions that render as `""` so the caller removes the file:
/// `checkpoint.md` when no checkpoint is open, `learnings.jsonl` when there are no learnings
/// (a JSONL file has no header, and a blank line would break line-by-line readers), and
/// `context-blocks.md` when there are no context blocks (most branches have none). Records
/// `withhold` picks show as a one-line placeholder naming `git rune verify`.
///
/// Bodies are normalised before rendering, so even a record written by an older version cannot
/// produce text that reads back as different structure.
pub fn render(file: ViewFile, state: &State, withhold: Withhold<'_>) -> String {
    let records = state.of_kind(file.kind());
    let text = match file {
        ViewFile::Decisions => decisions::render(records, withhold),
        ViewFile::Conventions => conventions::render(records, withhold),
        ViewFile::Learnings => learnings::render(records, withhold),
        ViewFile::Instincts => instincts::render(records, withhold),
        ViewFile::CumulativeNotes => notes::render_cumulative(records, withhold),
        ViewFile::Invariants => invariants::render(
            records,
            // A frame the gate withholds is not shown: the view's own layout stands.
            shown_frame(state, file, withhold),
            withhold,
        ),
        ViewFile::Progress => progress::render(records, withhold),
        ViewFile::SessionLog => session_log::render(records, withhold),
        ViewFile::Checkpoint => checkpoint::render(state.open_checkpoint(), withhold),
        ViewFile::TaskNotes => notes::render_tasks(records, withhold),
        ViewFile::Tasks => tasks::render(records, withhold),
        ViewFile::ContextBlocks => context_blocks::render(records, withhold),
    };
    if file == ViewFile::Invariants {
        return text;
    }
    with_frame(file, text, state, withhold)
}

/// The header a file whose text is "a header, then one entry per record of its kind's list,
/// in order" starts with (`nonempty`: the list holds a record); `None` for the other files.
fn header(file: ViewFile, nonempty: bool) -> Option<&'static str> {
    match file {
        ViewFile::SessionLog if nonempty => Some("# Session Log\n\n"),
        ViewFile::Learnings => Some(""),
        ViewFile::Decisions | ViewFile::Conventions | ViewFile::Progress | ViewFile::SessionLog => {
            title_line(file)
        }
        _ => None,
    }
}

/// What [`render`] adds to `file`'s text when records `added` join the end of its kind's list
/// (`before_nonempty`: the list held records already): the text of `before ++ added` is the
/// text of `before` followed by this, for the files [`header`] names (a test proves it per
/// file). `None` for the other files, whose text is not a plain sequence of entries.
pub fn appended(
    file: ViewFile,
    before_nonempty: bool,
    added: &[Record],
    withhold: Withhold<'_>,
) -> Option<String> {
    let before_header = header(file, before_nonempty)?;
    if added.is_empty() {
        return Some(String::new());
    }
    let mut state = State::default();
    if let Some(list) = state.of_kind_mut(file.kind()) {
        *list = added.to_vec();
    }
    let text = render(file, &state, withhold);
    text.strip_prefix(before_header).map(str::to_owned)
}

/// The branch and last commit an agent wrote in a checkpoint's "Current Git State" section.
pub fn checkpoint_git_state(extra: &[Extra]) -> Option<(Option<String>, Option<String>)> {
    checkpoint::written_git_state(extra)
}

/// The run of bytes that names `r`'s group in the one line of a rendered `learnings.jsonl`
/// that shows that group (`None` for a record of another kind).
pub fn learning_group_run(r: &Record) -> Option<Vec<u8>> {
    learnings::group_run(r)
}

/// Parses a (possibly hand-edited) file into its entries and placeholders, in file order.
/// Entry bodies are already normal (see [`normalize`]); each carries the time it gives.
pub fn parse(file: ViewFile, text: &str) -> Result<Vec<Parsed>, ParseError> {
    parse_framed(file, text).map(|f| f.items)
}

/// [`parse`], and the file's frame (its text outside the entries).
pub fn parse_framed(file: ViewFile, text: &str) -> Result<Framed, ParseError> {
    let mut framed = match file {
        ViewFile::Decisions => decisions::parse(text),
        ViewFile::Conventions => conventions::parse(text),
        ViewFile::Learnings => learnings::parse(text).map(Framed::bare),
        ViewFile::Instincts => instincts::parse(text),
        ViewFile::CumulativeNotes => notes::parse_cumulative(text),
        ViewFile::Invariants => invariants::parse(text),
        ViewFile::Progress => progress::parse(text),
        ViewFile::SessionLog => session_log::parse(text),
        ViewFile::Checkpoint => checkpoint::parse(text).map(Framed::bare),
        ViewFile::TaskNotes => notes::parse_tasks(text).map(Framed::bare),
        ViewFile::Tasks => tasks::parse(text).map(Framed::bare),
        ViewFile::ContextBlocks => context_blocks::parse(text).map(Framed::bare),
    }?;
    // The marks the render put on SUSPICIOUS records are not what the entries say.
    for p in &mut framed.items {
        if let Parsed::Entry(e) = p {
            unmark_body(&mut e.body);
        }
    }
    Ok(framed)
}

impl ViewFile {
    /// A time as this file shows it (to the minute, the day, or the second; files without
    /// dates show none), for telling an edited date from an unchanged one.
    pub fn shown_time(self, ts: &str) -> String {
        match self {
            ViewFile::Decisions
            | ViewFile::Progress
            | ViewFile::SessionLog
            | ViewFile::Checkpoint => text::minute(ts),
            ViewFile::Conventions | ViewFile::Instincts => text::day(ts),
            ViewFile::Learnings => ts.to_owned(),
            ViewFile::CumulativeNotes
            | ViewFile::TaskNotes
            | ViewFile::Invariants
            | ViewFile::Tasks
            | ViewFile::ContextBlocks => String::new(),
        }
    }
}

/// Takes the gate's SUSPICIOUS marks off every text of `body` ([`crate::text::unmark`]): a
/// mark a reader showed (a view file, an export, a copied line) is not content; what it
/// marked is judged afresh wherever it is read. Every entry [`parse_framed`] reads, and every
/// record the seal takes, comes through here.
pub fn unmark_body(body: &mut Body) {
    body.texts_mut(&mut |_, v| {
        let marked = v.len() - crate::text::unmark(v).len();
        v.drain(..marked);
    });
}

/// Rewrites content so it survives render → parse unchanged: `\r\n` becomes `\n`; values are
/// trimmed; one-line fields (titles, names, keys, paths, summaries, sections, invariant fields)
/// get newlines folded to spaces; lines of multi-line fields that the view would read as
/// structure (a `#`/`##` heading or a `**Label**` line at column 0) get a leading space, or a
/// leading backslash on a first line that starts a line of its own; list items lose blank
/// lines, trailing `---` breaks and leading markers and checkboxes; decision `files` are split
/// at commas and lose backticks; note sections get their canonical spelling. Confidence stays
/// as is. Idempotent.
pub fn normalize(body: &mut Body) {
    body.fields_mut(&mut |_, shape, field| match (shape, field) {
        (Shape::Line, Field::One(s)) => *s = one_line(s),
        (Shape::Block { inline_first }, Field::One(s)) => *s = block(s, inline_first),
        (Shape::Text, Field::One(s)) => {
            *s = s
                .replace("\r\n", "\n")
                .replace('\r', "\n")
                .trim()
                .to_owned()
        }
        (Shape::Item, Field::One(s)) => *s = item(s),
        (Shape::Raw, _) => {}
        (Shape::Prose, Field::One(s)) => *s = text::block_indented(s),
        (Shape::Section(names), Field::One(s)) => {
            *s = one_line(s);
            if let Some(canon) = canonical_section(s, names) {
                *s = canon.to_owned();
            }
        }
        (Shape::Items, Field::Many(list)) => *list = items_normal(list),
        (Shape::Paths { split_commas }, Field::Many(list)) => *list = paths(list, split_commas),
        // Every field has one of the pairs above (model::Body::fields_mut).
        (_, Field::One(s)) => *s = one_line(s),
        (_, Field::Many(list)) => *list = items_normal(list),
    });
    if let Body::Invariant(Invariant { section, .. }) = body {
        *section = invariants::section_name(section);
    }
    let shown = shown_slots(body);
    // In checkpoint.md a section holds everything up to the next heading, so an extra's
    // unlabelled lines come before the sections placed after the same section; in the entry
    // formats, prose after a section reads back as part of it.
    let sections_hold_prose = !matches!(body, Body::Checkpoint(Checkpoint { .. }));
    let kind = body.kind();
    if let Some(extra) = body.extra_mut() {
        normalize_extras(extra, &shown, sections_hold_prose);
        match kind {
            // learnings.jsonl: keys of a JSON object, once each, in the order serde reads them.
            Kind::Learning => {
                let mut by_key = std::collections::BTreeMap::new();
                for x in extra.drain(..) {
                    by_key.insert(x.label.clone(), x);
                }
                extra.extend(by_key.into_values());
            }
            // Unlabelled lines of a checkpoint come before its first section or in the git
            // state section; anywhere else they would read back as that section's content.
            Kind::Checkpoint => {
                for x in extra.iter_mut() {
                    if x.label.is_empty() && x.after != checkpoint::GIT_STATE {
                        x.after = String::new();
                    }
                }
                extra.sort_by_key(|x| (shown_rank(&shown, &x.after), !x.label.is_empty()));
                // Unlabelled lines in one place read back as one extra.
                join_into_previous(extra, |prev, x| {
                    prev.label.is_empty() && x.label.is_empty() && prev.after == x.after
                });
            }
            // tasks.md and the echo files keep unknown lines literally, one line each.
            Kind::Task | Kind::Echo => {}
            // INVARIANTS.md keeps every line of a rule as written (invariants::normalize_extras).
            Kind::Invariant => {
                invariants::normalize_extras(extra);
                extra.sort_by_key(|x| shown_rank(&shown, &x.after));
            }
            // Prose must not start like a list item (it would join a list above it).
            _ => {
                // An untitled heading's own text: one line, once, in the heading.
                let heading: Vec<String> = extra
                    .iter()
                    .filter(|x| x.label == "#")
                    .map(|x| one_line(&x.text))
                    .filter(|t| !t.is_empty())
                    .collect();
                extra.retain(|x| x.label != "#");
                if !heading.is_empty() {
                    extra.insert(
                        0,
                        Extra {
                            after: String::new(),
                            label: "#".into(),
                            text: heading.join(" "),
                        },
                    );
                }
                for x in extra.iter_mut() {
                    if x.label == "#" {
                        continue;
                    }
                    let first = x.text.lines().next().unwrap_or("");
                    if x.label.is_empty() && text::starts_list_item(first) {
                        x.text.insert(0, '\\');
                    }
                }
            }
        }
    }
}

/// Where a field stands among the ones the view writes (0: before all of them).
fn shown_rank(shown: &[(&str, bool)], after: &str) -> usize {
    shown
        .iter()
        .position(|(label, _)| *label == after)
        .map_or(0, |i| i + 1)
}

/// The known fields (or sections) of a body in the order the view writes them, and whether
/// it writes each: an extra placed after a field that is not written moves to the nearest
/// written one before it, where it reads back.
fn shown_slots(body: &Body) -> Vec<(&'static str, bool)> {
    match body {
        Body::Decision(Decision { files, .. }) => vec![
            ("Context", true),
            ("Decision", true),
            ("Rationale", true),
            ("Impact", true),
            ("Files", !files.is_empty()),
        ],
        Body::Convention(c) => vec![
            ("Pattern", true),
            ("Example", !c.example.is_empty()),
            ("Applies to", !c.applies_to.is_empty()),
        ],
        Body::Instinct(Instinct { .. }) => vec![
            ("Trigger", true),
            ("Action", true),
            ("Confidence", true),
            ("Evidence", true),
        ],
        Body::Progress(p) => vec![
            ("Completed", !p.completed.is_empty()),
            ("In Progress", !p.in_progress.is_empty()),
            ("Blocked", !p.blocked.is_empty()),
            ("Next Session Should", !p.next.is_empty()),
        ],
        Body::Checkpoint(Checkpoint { git, extra, .. }) => checkpoint::SECTIONS
            .iter()
            .map(|s| {
                let written = *s != checkpoint::GIT_STATE
                    || git.is_some()
                    || extra.iter().any(|x| x.after == *s);
                (*s, written)
            })
            .collect(),
        // Keys an sp.json task had that the seed does not define: kept, not shown.
        Body::Task(Task { .. }) => vec![
            (tasks::AFTER_TASK, true),
            (tasks::AFTER_END, true),
            (tasks::SP_JSON_KEY, true),
        ],
        Body::Echo(Echo { .. }) => std::iter::once(echoes::BEFORE_HEADING)
            .chain(echoes::SLOTS)
            .map(|s| (s, true))
            .collect(),
        Body::Invariant(Invariant {
            what, r#where, why, ..
        }) => vec![
            ("What", !what.is_empty()),
            ("Where", !r#where.is_empty()),
            ("Why", !why.is_empty()),
        ],
        _ => Vec::new(),
    }
}

/// Extras in the form they read back in: each after a field that is written (or nothing),
/// empty ones gone, and prose that follows a section merged into it (a section runs on over
/// blank lines).
fn normalize_extras(extra: &mut Vec<Extra>, shown: &[(&str, bool)], sections_hold_prose: bool) {
    for x in extra.iter_mut() {
        x.after = match shown.iter().position(|(label, _)| *label == x.after) {
            Some(i) => shown[..=i]
                .iter()
                .rev()
                .find(|(_, written)| *written)
                .map(|(label, _)| (*label).to_owned())
                .unwrap_or_default(),
            None => String::new(),
        };
    }
    extra.retain(|x| !(x.label.is_empty() && x.text.is_empty()));
    // The view writes the extras of each field together, in field order.
    if !sections_hold_prose {
        return;
    }
    extra.sort_by_key(|x| shown_rank(shown, &x.after));
    join_into_previous(extra, |prev, x| {
        prev.label.starts_with('#')
            && prev.label != "#"
            && x.label.is_empty()
            && prev.after == x.after
    });
}

/// Appends each extra `joins` the one before to that one's text (on a line of its own).
fn join_into_previous(extra: &mut Vec<Extra>, joins: impl Fn(&Extra, &Extra) -> bool) {
    let mut out: Vec<Extra> = Vec::with_capacity(extra.len());
    for x in extra.drain(..) {
        match out.last_mut() {
            Some(prev) if joins(prev, &x) => {
                if !prev.text.is_empty() {
                    prev.text.push('\n');
                }
                prev.text.push_str(&x.text);
            }
            _ => out.push(x),
        }
    }
    *extra = out;
}

/// The content of a body as the view shows it: fields the view does not display (file blob
/// ids, git state) cleared. Two bodies are the same entry for save when their `visible` match.
pub fn visible(body: &Body) -> Body {
    let mut b = body.clone();
    match &mut b {
        Body::Decision(Decision { file_blobs, .. })
        | Body::Learning(Learning { file_blobs, .. }) => file_blobs.clear(),
        Body::Checkpoint(Checkpoint { git, .. }) | Body::Session(Session { git, .. }) => {
            *git = None
        }
        // The view shows a task's number, not its identity or claim (nor the keys of its
        // sp.json object the seed does not define).
        Body::Task(t) => {
            t.uid.clear();
            t.claimed.clear();
            t.aliases.clear();
            t.extra.retain(|x| x.after != tasks::SP_JSON_KEY);
        }
        _ => {}
    }
    b
}

/// An edit read from the view keeps what the view does not show of the record it edits (a
/// task's identity, claim and aliases).
pub fn inherit(body: &mut Body, from: &Body) {
    if let (Body::Task(t), Body::Task(f)) = (body, from) {
        if t.uid.is_empty() {
            t.uid.clone_from(&f.uid);
        }
        if t.claimed.is_empty() || t.num != f.num {
            t.claimed.clone_from(&f.claimed);
        }
        if t.aliases.is_empty() {
            t.aliases.clone_from(&f.aliases);
        }
        // ... and the keys of its sp.json object the view does not show.
        if !t.extra.iter().any(|x| x.after == tasks::SP_JSON_KEY) {
            t.extra.extend(
                f.extra
                    .iter()
                    .filter(|x| x.after == tasks::SP_JSON_KEY)
                    .cloned(),
            );
        }
    }
}

/// A normalised copy, for rendering.
fn normal(body: &Body) -> Body {
    let mut b = body.clone();
    normalize(&mut b);
    b
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod testing {
    use super::*;

    /// Nothing withheld (for tests).
    pub fn show_all(_: &Record) -> bool {
        false
    }

    /// [`render`] with nothing withheld (for tests).
    pub fn render_all(file: ViewFile, state: &State) -> String {
        render(file, state, &show_all)
    }

    /// The bodies of the entries [`parse`] reads (for tests).
    pub fn parse_bodies(file: ViewFile, text: &str) -> Result<Vec<Body>, ParseError> {
        Ok(parse(file, text)?
            .into_iter()
            .filter_map(|p| match p {
                Parsed::Entry(e) => Some(e.body),
                Parsed::Withheld(_) => None,
            })
            .collect())
    }
}
