//! The `.rune/` view: renders the folded memory into the seed's markdown and JSONL files, and
//! reads hand-edited files back into record bodies and the drafts that save them.
//!
//! Pure text in, text out: no git and no I/O. The guarantees the rest of git-rune builds on:
//! `render` is deterministic; for a normalised body, `parse(render(..))` gives it back
//! (compared with [`visible`]); and render → parse → render is byte-stable.

mod checkpoint;
mod conventions;
mod decisions;
mod diff;
mod entry;
mod instincts;
pub mod invariants;
mod learnings;
mod notes;
mod progress;
mod session_log;
mod text;

#[cfg(test)]
mod roundtrip_tests;

pub use diff::diff;

use crate::model::{canonical_section, Body, Field, Kind, Scope, Shape, State};
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
}

impl ViewFile {
    pub const ALL: [ViewFile; 10] = [
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
    ];

    /// Every file in the order commands list their kinds (`show`, `diff --kind`).
    pub const LISTED: [ViewFile; 10] = [
        ViewFile::Decisions,
        ViewFile::Conventions,
        ViewFile::Learnings,
        ViewFile::Instincts,
        ViewFile::Progress,
        ViewFile::Checkpoint,
        ViewFile::SessionLog,
        ViewFile::CumulativeNotes,
        ViewFile::TaskNotes,
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
        }
    }

    pub fn from_name(name: &str) -> Option<ViewFile> {
        ViewFile::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The name commands use for the file's records (`git rune show decisions`).
    pub fn label(self) -> &'static str {
        match self {
            ViewFile::Decisions => "decisions",
            ViewFile::Conventions => "conventions",
            ViewFile::Learnings => "learnings",
            ViewFile::Instincts => "instincts",
            ViewFile::CumulativeNotes => "cumulative-notes",
            ViewFile::Invariants => "invariants",
            ViewFile::Progress => "progress",
            ViewFile::SessionLog => "session-log",
            ViewFile::Checkpoint => "checkpoint",
            ViewFile::TaskNotes => "task-notes",
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
        }
    }

    /// The ref the file's records live under (the same as `kind().scope()`, without the
    /// `Option` that only `Delete` needs).
    pub fn scope(self) -> Scope {
        match self {
            ViewFile::Decisions
            | ViewFile::Conventions
            | ViewFile::Learnings
            | ViewFile::Instincts
            | ViewFile::CumulativeNotes
            | ViewFile::Invariants => Scope::Memory,
            ViewFile::Progress
            | ViewFile::SessionLog
            | ViewFile::Checkpoint
            | ViewFile::TaskNotes => Scope::Branch,
        }
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

/// Renders `file` from the folded state. Deterministic: the same state gives the same bytes,
/// ending with `"\n"`, with two exceptions that render as `""` so the caller removes the file:
/// `checkpoint.md` when no checkpoint is open, and `learnings.jsonl` when there are no learnings
/// (a JSONL file has no header, and a blank line would break line-by-line readers).
///
/// Bodies are normalised before rendering, so even a record written by an older version cannot
/// produce text that reads back as different structure.
pub fn render(file: ViewFile, state: &State) -> String {
    let records = state.of_kind(file.kind());
    match file {
        ViewFile::Decisions => decisions::render(records),
        ViewFile::Conventions => conventions::render(records),
        ViewFile::Learnings => learnings::render(records),
        ViewFile::Instincts => instincts::render(records),
        ViewFile::CumulativeNotes => notes::render_cumulative(records),
        ViewFile::Invariants => invariants::render(records),
        ViewFile::Progress => progress::render(records),
        ViewFile::SessionLog => session_log::render(records),
        ViewFile::Checkpoint => checkpoint::render(state.open_checkpoint()),
        ViewFile::TaskNotes => notes::render_tasks(records),
    }
}

/// Parses a (possibly hand-edited) file into entry bodies, in file order. The output is
/// already normal (see [`normalize`]). Dates in headings and `ts` in learnings are ignored: a
/// new entry gets the time of the save.
pub fn parse(file: ViewFile, text: &str) -> Result<Vec<Body>, ParseError> {
    match file {
        ViewFile::Decisions => decisions::parse(text),
        ViewFile::Conventions => conventions::parse(text),
        ViewFile::Learnings => learnings::parse(text),
        ViewFile::Instincts => instincts::parse(text),
        ViewFile::CumulativeNotes => notes::parse_cumulative(text),
        ViewFile::Invariants => invariants::parse(text),
        ViewFile::Progress => progress::parse(text),
        ViewFile::SessionLog => session_log::parse(text),
        ViewFile::Checkpoint => checkpoint::parse(text),
        ViewFile::TaskNotes => notes::parse_tasks(text),
    }
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
}

/// The content of a body as the view shows it: fields the view does not display (file blob
/// ids, git state) cleared. Two bodies are the same entry for save when their `visible` match.
pub fn visible(body: &Body) -> Body {
    let mut b = body.clone();
    match &mut b {
        Body::Decision { file_blobs, .. } | Body::Learning { file_blobs, .. } => file_blobs.clear(),
        Body::Checkpoint { git, .. } | Body::Session { git, .. } => *git = None,
        _ => {}
    }
    b
}

/// A normalised copy, for rendering.
fn normal(body: &Body) -> Body {
    let mut b = body.clone();
    normalize(&mut b);
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::GitState;

    #[test]
    fn names_kinds_and_scopes_agree() {
        for f in ViewFile::ALL {
            assert_eq!(ViewFile::from_name(f.name()), Some(f));
            assert_eq!(f.kind().scope(), Some(f.scope()), "{f:?}");
        }
        assert_eq!(ViewFile::from_name("nope.md"), None);
    }

    #[test]
    fn visible_hides_blobs_and_git_state() {
        let s = Body::Session {
            summary: "s".into(),
            git: Some(GitState::default()),
        };
        assert_eq!(
            visible(&s),
            Body::Session {
                summary: "s".into(),
                git: None
            }
        );
    }

    #[test]
    fn normalize_is_idempotent_on_tricky_text() {
        let mut b = Body::Decision {
            title: " a\nb ".into(),
            context: "x\r\n## y\n**Z:** w  \n\n".into(),
            decision: "d".into(),
            rationale: String::new(),
            impact: String::new(),
            files: vec!["`a`, b".into(), " ".into()],
            file_blobs: Default::default(),
        };
        normalize(&mut b);
        let once = b.clone();
        normalize(&mut b);
        assert_eq!(b, once);
        match once {
            Body::Decision {
                title,
                context,
                files,
                ..
            } => {
                assert_eq!(title, "a b");
                assert_eq!(context, "x\n ## y\n **Z:** w");
                assert_eq!(files, vec!["a", "b"]);
            }
            _ => unreachable!(),
        }
    }

    #[test]
    fn note_sections_get_canonical_names() {
        let mut b = Body::CumulativeNote {
            section: "attention-points".into(),
            text: "- [ ] x".into(),
        };
        normalize(&mut b);
        assert_eq!(
            b,
            Body::CumulativeNote {
                section: "Attention Points".into(),
                text: "x".into()
            }
        );
    }
}
