//! The note git-rune attaches to each code commit (`refs/notes/rune`): which memory produced
//! the commit, in git-trailer form so `git log --notes=rune` reads well and programs parse it.
//! Pure text in, text out.

use crate::model::Record;

/// What a commit's note says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommitNote {
    pub branch: Option<String>,
    /// `refs/rune/memory` when the commit was made.
    pub memory: Option<String>,
    /// The branch's session-state ref when the commit was made.
    pub session: Option<String>,
    /// Records added since the previous commit on this branch: (kind, id, headline).
    pub records: Vec<(String, String, String)>,
    /// The open checkpoint's resume line.
    pub checkpoint: Option<String>,
    /// Records recorded for the commit but not listed (past [`MAX_LISTED`]).
    pub omitted: usize,
}

/// At most this many records are listed in one note; the rest are counted (`Rune-Omitted`),
/// so a bulk import does not put a megabyte note on the next commit.
pub const MAX_LISTED: usize = 100;

/// Trailer keys, in the order they are written.
const BRANCH: &str = "Rune-Branch";
const MEMORY: &str = "Rune-Memory";
const SESSION: &str = "Rune-Session";
const CHECKPOINT: &str = "Rune-Checkpoint";
const OMITTED: &str = "Rune-Omitted";
/// The listed records' full ids, space-separated, for programs: the record trailers carry
/// short ids so `git log --notes=rune` stays readable.
const IDS: &str = "Rune-Ids";

/// How many hex digits of an id a record trailer shows.
const SHORT_ID: usize = 12;

/// The trailers that name one value per note (a joined note may hold one per clone).
pub(super) const TRAILER_KEYS: [&str; 4] = [BRANCH, MEMORY, SESSION, CHECKPOINT];

fn trailer_key(kind: &str) -> String {
    let mut k = String::from("Rune-");
    let mut upper = true;
    for c in kind.chars() {
        if c == '-' {
            upper = true;
            k.push('-');
        } else if upper {
            k.extend(c.to_uppercase());
            upper = false;
        } else {
            k.push(c);
        }
    }
    k
}

/// A one-line headline of a record for the note, through the integrity gate (notes are read
/// by `git log --notes=rune`, where nothing else gates them): the placeholder for a record
/// the gate withholds, marked for a SUSPICIOUS one.
fn headline(r: &Record) -> String {
    crate::integrity::gate::shown_title(r)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Where a kind's records go in a note's list: decisions, then conventions, then the rest.
fn rank(kind: &str) -> u8 {
    match kind {
        "decision" => 0,
        "convention" => 1,
        _ => 2,
    }
}

impl CommitNote {
    /// Lists `records` (kind, id, headline): decisions first, then conventions, then the
    /// rest, oldest first within each; past [`MAX_LISTED`] they are only counted. Which ones
    /// are listed when there are more: the first [`MAX_LISTED`] by kind (decisions, then
    /// conventions, then the rest) and, within the kind the limit cuts into, in the order
    /// they come, which for the hook is the order memory's tree stores them (by id), so it
    /// can read just those after a bulk import (docs/storage.md, "Commit notes"). Only the
    /// listed ones are formatted, and the records are sorted by reference.
    pub fn list_records(&mut self, records: &[Record]) {
        let mut order: Vec<&Record> = records.iter().collect();
        order.sort_by_key(|r| rank(r.kind().as_str()));
        self.omitted += order.len().saturating_sub(MAX_LISTED);
        order.truncate(MAX_LISTED);
        order.sort_by(|a, b| {
            (rank(a.kind().as_str()), a.order_key()).cmp(&(rank(b.kind().as_str()), b.order_key()))
        });
        self.records = order
            .into_iter()
            .map(|r| (r.kind().as_str().to_owned(), r.id.clone(), headline(r)))
            .collect();
    }

    /// The note text: a human summary line, a blank line, then trailers.
    pub fn render(&self) -> String {
        let mut out = String::new();
        if self.records.is_empty() && self.omitted == 0 {
            out.push_str("rune: no new memory since the previous commit\n");
        } else {
            let mut counts: Vec<(String, usize)> = Vec::new();
            for (kind, _, _) in &self.records {
                match counts.iter_mut().find(|(k, _)| k == kind) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((kind.clone(), 1)),
                }
            }
            let parts: Vec<String> = counts
                .iter()
                .map(|(k, n)| format!("{n} {k}{}", if *n == 1 { "" } else { "s" }))
                .collect();
            let more = match self.omitted {
                0 => String::new(),
                n => format!(" (and {n} more)"),
            };
            out.push_str(&format!(
                "rune: {} recorded for this commit{more}\n",
                parts.join(", ")
            ));
        }
        out.push('\n');
        let mut trailer = |k: &str, v: &str| {
            let v = v.split_whitespace().collect::<Vec<_>>().join(" ");
            out.push_str(&format!("{k}: {v}\n"));
        };
        if let Some(b) = &self.branch {
            trailer(BRANCH, b);
        }
        if let Some(m) = &self.memory {
            trailer(MEMORY, m);
        }
        if let Some(s) = &self.session {
            trailer(SESSION, s);
        }
        for (kind, id, title) in &self.records {
            let short = &id[..id.len().min(SHORT_ID)];
            trailer(&trailer_key(kind), &format!("{short} {title}"));
        }
        if self.records.iter().any(|(_, id, _)| id.len() > SHORT_ID) {
            let ids: Vec<&str> = self.records.iter().map(|(_, id, _)| id.as_str()).collect();
            trailer(IDS, &ids.join(" "));
        }
        if self.omitted > 0 {
            trailer(OMITTED, &self.omitted.to_string());
        }
        if let Some(c) = &self.checkpoint {
            trailer(CHECKPOINT, c);
        }
        out
    }

    /// Reads a note (ours or hand-written); unknown lines are ignored. A note that holds
    /// several notes (git concatenates them when commits are squashed, or when a rewrite copies
    /// a note onto a commit that has one) reads as their [`combine`](Self::combine).
    pub fn parse(text: &str) -> CommitNote {
        CommitNote::combine(CommitNote::parse_blocks(text))
    }

    /// The notes a note text holds, in order: a new one starts at each `rune:` summary line
    /// (or at the first line, for text that has none).
    pub fn parse_blocks(text: &str) -> Vec<CommitNote> {
        let mut blocks = Vec::new();
        let mut current: Option<CommitNote> = None;
        for line in text.lines() {
            if line.starts_with("rune: ") {
                blocks.extend(current.take());
            }
            let note = current.get_or_insert_with(CommitNote::default);
            let Some((key, value)) = line.split_once(": ") else {
                continue;
            };
            let value = value.trim().to_owned();
            match key {
                BRANCH => note.branch = Some(value),
                MEMORY => note.memory = Some(value),
                SESSION => note.session = Some(value),
                CHECKPOINT => note.checkpoint = Some(value),
                OMITTED => note.omitted += value.parse::<usize>().unwrap_or(0),
                IDS => {
                    // The full ids of the records listed above, in their order.
                    for full in value.split_whitespace() {
                        if let Some(r) = note
                            .records
                            .iter_mut()
                            .find(|r| full.len() > r.1.len() && full.starts_with(r.1.as_str()))
                        {
                            r.1 = full.to_owned();
                        }
                    }
                }
                k if k.starts_with("Rune-") => {
                    let kind = k["Rune-".len()..].to_ascii_lowercase();
                    let (id, title) = value.split_once(' ').unwrap_or((value.as_str(), ""));
                    note.records.push((kind, id.to_owned(), title.to_owned()));
                }
                _ => {}
            }
        }
        blocks.extend(current);
        blocks
    }

    /// One note standing for several, oldest first: every record any of them names (once,
    /// first mention first), and the branch, memory, session and checkpoint of the newest
    /// note that has each.
    pub fn combine(notes: impl IntoIterator<Item = CommitNote>) -> CommitNote {
        let mut out = CommitNote::default();
        let mut seen = std::collections::HashSet::new();
        for note in notes {
            for r in note.records {
                if seen.insert(r.1.clone()) {
                    out.records.push(r);
                }
            }
            out.omitted += note.omitted;
            out.branch = note.branch.or(out.branch);
            out.memory = note.memory.or(out.memory);
            out.session = note.session.or(out.session);
            out.checkpoint = note.checkpoint.or(out.checkpoint);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_parse_round_trip() {
        let note = CommitNote {
            branch: Some("main".into()),
            memory: Some("a".repeat(40)),
            session: Some("b".repeat(40)),
            records: vec![
                ("decision".into(), "c".repeat(64), "Use Postgres".into()),
                ("cumulative-note".into(), "d".repeat(64), String::new()),
            ],
            checkpoint: Some("Continue the rollback".into()),
            omitted: 0,
        };
        let text = note.render();
        assert!(
            text.starts_with("rune: 1 decision, 1 cumulative-note recorded for this commit\n\n"),
            "{text}"
        );
        assert!(
            text.contains("\nRune-Cumulative-Note: dddddddddddd\n"),
            "{text}"
        );
        assert!(
            text.contains("\nRune-Decision: cccccccccccc Use Postgres\n"),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "\nRune-Ids: {} {}\n",
                "c".repeat(64),
                "d".repeat(64)
            )),
            "{text}"
        );
        assert_eq!(CommitNote::parse(&text), note);
    }

    #[test]
    fn concatenated_notes_read_as_one() {
        let first = CommitNote {
            branch: Some("topic".into()),
            memory: Some("a".repeat(40)),
            session: None,
            records: vec![("decision".into(), "c".repeat(64), "Use Postgres".into())],
            checkpoint: Some("old".into()),
            omitted: 3,
        };
        let second = CommitNote {
            branch: Some("topic".into()),
            memory: Some("b".repeat(40)),
            session: Some("e".repeat(40)),
            records: vec![
                ("learning".into(), "d".repeat(64), "pool size".into()),
                ("decision".into(), "c".repeat(64), "Use Postgres".into()),
            ],
            checkpoint: None,
            omitted: 0,
        };
        // git's notes.rewriteMode=concatenate: the first note, a blank line, the second.
        let text = format!("{}\n{}", first.render(), second.render());
        assert_eq!(
            CommitNote::parse_blocks(&text),
            vec![first.clone(), second.clone()]
        );
        let both = CommitNote::parse(&text);
        assert_eq!(both.memory, second.memory);
        assert_eq!(both.session, second.session);
        assert_eq!(both.checkpoint, first.checkpoint);
        assert_eq!(both.records.len(), 2, "{:?}", both.records);
        assert_eq!(CommitNote::parse(&both.render()), both);
        // A hand-written note without a summary line is one block.
        assert_eq!(CommitNote::parse_blocks("Rune-Branch: x\n").len(), 1);
        assert!(CommitNote::parse_blocks("").is_empty());
    }

    #[test]
    fn records_are_listed_by_rank_then_age_and_only_the_listed_formatted() {
        use crate::model::testing::{decision, learning};
        // Newest first, and the one decision last: the listed order must come from the
        // records, while which learnings are listed is the first 99 in the order given (the
        // hook gives them in tree order, and reads no more blobs than those need).
        let mut records: Vec<Record> = (0..150u64)
            .rev()
            .map(|i| learning(i, &format!("key  {i}"), "i"))
            .collect();
        records.push(decision(200, "Late\ndecision", &[]));
        let mut note = CommitNote::default();
        note.list_records(&records);
        assert_eq!(note.records.len(), MAX_LISTED);
        assert_eq!(note.omitted, 51);
        assert_eq!(note.records[0].0, "decision");
        assert_eq!(bare(&note.records[0].2), "Late decision");
        assert_eq!(bare(&note.records[1].2), "key 51");
        assert_eq!(bare(&note.records[99].2), "key 149");
        assert_eq!(note.records[1].1, records[98].id);
        // All of them fit: every one is listed, oldest first.
        let mut note = CommitNote::default();
        note.list_records(&records[..60]);
        assert_eq!((note.records.len(), note.omitted), (60, 0));
        assert_eq!(bare(&note.records[0].2), "key 90");
        assert_eq!(bare(&note.records[59].2), "key 149");
    }

    /// A listed headline without the gate's SUSPICIOUS mark (the learned classifier marks
    /// these records' one-letter fields).
    fn bare(headline: &str) -> &str {
        headline
            .strip_prefix("[SUSPICIOUS: ")
            .and_then(|rest| rest.split_once("] "))
            .map_or(headline, |(_, rest)| rest)
    }

    #[test]
    fn long_lists_are_capped_decisions_first() {
        use crate::model::testing::{decision, learning};
        let mut note = CommitNote::default();
        let mut records: Vec<Record> = (0..150)
            .map(|i| learning(i, &format!("k{i}"), "i"))
            .collect();
        records.push(decision(200, "Late decision", &[]));
        note.list_records(&records);
        assert_eq!(note.records.len(), MAX_LISTED);
        assert_eq!(bare(&note.records[0].2), "Late decision");
        assert_eq!(note.omitted, 51);
        let text = note.render();
        assert!(
            text.starts_with(
                "rune: 1 decision, 99 learnings recorded for this commit (and 51 more)\n"
            ),
            "{text}"
        );
        assert!(text.contains("\nRune-Omitted: 51\n"), "{text}");
        assert_eq!(CommitNote::parse(&text), note);
    }
}
