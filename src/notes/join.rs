//! Joining two clones' notes on the same commit (sync): one note that keeps every line of
//! both, in a canonical order, so that any clones that saw the same notes hold the same note
//! text — whatever order they synced in (the join is commutative, associative and
//! idempotent).
//!
//! The joined note lists every record either side names (sorted by kind, then id), every value
//! each trailer had on either side (sorted: `Rune-Memory`, `Rune-Session`, `Rune-Branch` and
//! `Rune-Checkpoint` may hold one per clone; readers take the last, as they do for
//! concatenated notes), the larger `Rune-Omitted`, and any other line either side held
//! (sorted, after the trailers). The summary line is written anew from the records.

use std::collections::BTreeSet;

use super::format::{CommitNote, TRAILER_KEYS};

/// The canonical join of the note texts `texts` (all for one commit).
pub fn join(texts: &[&str]) -> String {
    let mut records: BTreeSet<(usize, String, String, String)> = BTreeSet::new();
    let mut values: Vec<BTreeSet<String>> = vec![BTreeSet::new(); TRAILER_KEYS.len()];
    let mut omitted = 0usize;
    let mut others: BTreeSet<String> = BTreeSet::new();
    for text in texts {
        for note in CommitNote::parse_blocks(text) {
            for (kind, id, title) in note.records {
                records.insert((kind_rank(&kind), kind, id, title));
            }
            omitted = omitted.max(note.omitted);
        }
        for line in text.lines() {
            let line = line.trim_end();
            if line.is_empty() || line.starts_with("rune: ") {
                continue;
            }
            match line.split_once(": ") {
                Some((key, value)) if TRAILER_KEYS.contains(&key) => {
                    let i = TRAILER_KEYS.iter().position(|k| *k == key).unwrap_or(0);
                    values[i].insert(value.trim().to_owned());
                }
                Some((key, _)) if key.starts_with("Rune-") => {}
                _ => {
                    others.insert(line.to_owned());
                }
            }
        }
    }
    let note = CommitNote {
        records: records
            .into_iter()
            .map(|(_, kind, id, title)| (kind, id, title))
            .collect(),
        omitted,
        ..CommitNote::default()
    };
    // The summary and the record trailers as a note renders them, then every value of the
    // single-valued trailers, then the other lines.
    let rendered = note.render();
    let mut out = String::new();
    let mut lines = rendered.lines();
    if let Some(summary) = lines.next() {
        out.push_str(summary);
        out.push_str("\n\n");
    }
    for (key, vals) in TRAILER_KEYS.iter().zip(&values) {
        for v in vals {
            out.push_str(&format!("{key}: {v}\n"));
        }
    }
    for line in (lines.filter(|l| !l.is_empty())).chain(others.iter().map(String::as_str)) {
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Decisions first, then conventions, learnings, the rest (as notes list them).
fn kind_rank(kind: &str) -> usize {
    match kind {
        "decision" => 0,
        "convention" => 1,
        "learning" => 2,
        _ => 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "rune: 1 decision recorded for this commit\n\nRune-Branch: main\nRune-Memory: aaaa\nRune-Decision: d1 Use Postgres\n";
    const B: &str = "rune: 1 learning recorded for this commit\n\nRune-Branch: main\nRune-Memory: bbbb\nRune-Learning: l1 flaky-ci\nsigned-off by a person\n";
    const C: &str = "rune: no new memory since the previous commit\n\nRune-Branch: topic\nRune-Memory: cccc\nRune-Checkpoint: resume here\n";

    #[test]
    fn join_keeps_every_line_of_both_in_one_order() {
        let j = join(&[A, B]);
        assert_eq!(
            j,
            "rune: 1 decision, 1 learning recorded for this commit\n\nRune-Branch: main\nRune-Memory: aaaa\nRune-Memory: bbbb\nRune-Decision: d1 Use Postgres\nRune-Learning: l1 flaky-ci\nsigned-off by a person\n"
        );
        let parsed = CommitNote::parse(&j);
        assert_eq!(parsed.records.len(), 2);
        assert_eq!(parsed.memory.as_deref(), Some("bbbb"));
    }

    #[test]
    fn join_is_commutative_associative_and_idempotent() {
        assert_eq!(join(&[A, B]), join(&[B, A]));
        let ab = join(&[A, B]);
        let bc = join(&[B, C]);
        assert_eq!(join(&[&ab, C]), join(&[A, &bc]));
        assert_eq!(join(&[&ab, A]), ab);
        assert_eq!(join(&[&ab, &ab]), ab);
    }
}
