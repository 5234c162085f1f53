//! Where learnings joining memory go in a rendered `learnings.jsonl`, worked out from its
//! text a line at a time, so that a refresh can rewrite the log as a whole render would
//! without folding memory: the log shows one line per group (type and key), its newest
//! learning's, in (ts, clock, id) order, and each line starts with its `ts`.
//!
//! A learning that sorts after every one shown goes to the end; one that sorts before the
//! last goes before the first line with a later `ts`. A learning in a group already shown
//! either takes its group's line away (it is newer: its own line goes where its time puts
//! it) or is not shown (the line's learning is newer). The text gives times, not clocks or
//! ids, so the plan gives up (the caller renders in full) where those would decide: a line
//! with the same `ts` as a learning placed by time, or withheld lines (which show no time)
//! where one is placed. Pure: lines in, plan out.

use std::collections::HashMap;
use std::ops::Range;

use xxhash_rust::xxh3::xxh3_64;

use super::learnings::{group_run, LineReader};
use crate::model::Record;

/// A learning joining the log.
pub struct Joining<'a> {
    pub record: &'a Record,
    /// It sorts after every learning the log shows (the view index says so).
    pub last: bool,
    /// Its group has a line in the log (the view index says so).
    pub shown: bool,
}

/// What a rewrite of the log does.
#[derive(Debug, PartialEq, Eq)]
pub struct MergePlan {
    /// Per joining learning, in the order given: the byte offset of the old line its line
    /// goes before (the end of the text for the end), or `None`: a newer learning of its
    /// group keeps the line.
    pub at: Vec<Option<u64>>,
    /// The old lines that go, sorted: their groups' learnings are older than the joining ones.
    pub cuts: Vec<Range<u64>>,
}

/// The plan being made; fed every line of the old text in order ([`LogMerge::line`]), then
/// [`LogMerge::finish`]ed.
pub struct LogMerge<'a> {
    joining: &'a [Joining<'a>],
    reader: LineReader,
    /// The group runs of the joining learnings in shown groups, by hash (none: no line's
    /// group needs reading).
    runs: HashMap<u64, (Vec<u8>, usize)>,
    /// Per joining learning: its group's line, and whether that line's learning is older.
    matched: Vec<Option<(Range<u64>, bool)>>,
    at: Vec<Option<u64>>,
    /// The joining learnings placed by time are `joining[..placed_by_time]`; `next` is the
    /// first not placed yet.
    placed_by_time: usize,
    next: usize,
    /// A withheld line was read since the last line with a time.
    unknown: bool,
    failed: bool,
}

impl<'a> LogMerge<'a> {
    /// `joining` sorted by order key, no two in one group: those sorting after every
    /// learning shown come last.
    pub fn new(joining: &'a [Joining<'a>]) -> LogMerge<'a> {
        let mut runs = HashMap::new();
        let mut failed = false;
        for (i, j) in joining.iter().enumerate().filter(|(_, j)| j.shown) {
            match group_run(j.record) {
                Some(run) => failed |= runs.insert(xxh3_64(&run), (run, i)).is_some(),
                None => failed = true,
            }
        }
        let placed_by_time = joining.iter().take_while(|j| !j.last).count();
        failed |= joining[placed_by_time..].iter().any(|j| !j.last);
        LogMerge {
            joining,
            reader: LineReader::new(),
            runs,
            matched: vec![None; joining.len()],
            at: vec![None; joining.len()],
            placed_by_time,
            next: 0,
            unknown: false,
            failed,
        }
    }

    /// Reads the line (its bytes, newline included) that starts at byte `start`. `false`:
    /// the plan gave up (no more lines are needed).
    pub fn line(&mut self, start: u64, line: &[u8]) -> bool {
        if self.failed {
            return false;
        }
        let ts = self.reader.ts(line);
        let group = match self.runs.is_empty() {
            true => None,
            false => self.reader.group(line),
        };
        let hit = group.and_then(|g| match self.runs.get(&xxh3_64(g)) {
            Some((run, i)) if run == g => Some(*i),
            _ => None,
        });
        if let Some(i) = hit {
            let j = &self.joining[i];
            let older = match ts {
                _ if j.last => Some(true),
                Some(t) => match t.cmp(j.record.meta.ts.as_bytes()) {
                    std::cmp::Ordering::Less => Some(true),
                    std::cmp::Ordering::Greater => Some(false),
                    std::cmp::Ordering::Equal => None,
                },
                None => None,
            };
            match older {
                Some(older) if self.matched[i].is_none() => {
                    self.matched[i] = Some((start..start + line.len() as u64, older));
                }
                _ => return self.fail(),
            }
        }
        let Some(ts) = ts else {
            self.unknown = true;
            return true;
        };
        while self.next < self.placed_by_time {
            let mine = self.joining[self.next].record.meta.ts.as_bytes();
            match mine.cmp(ts) {
                std::cmp::Ordering::Less if !self.unknown => {
                    self.at[self.next] = Some(start);
                    self.next += 1;
                }
                std::cmp::Ordering::Greater => break,
                // The same time (clocks and ids decide), or withheld lines just before.
                _ => return self.fail(),
            }
        }
        self.unknown = false;
        true
    }

    fn fail(&mut self) -> bool {
        self.failed = true;
        false
    }

    /// The plan, given the end of the text; `None` when it gave up or the text is not the
    /// log the view index describes (a shown group without its one line).
    pub fn finish(mut self, end: u64) -> Option<MergePlan> {
        if self.failed || (self.next < self.placed_by_time && self.unknown) {
            return None;
        }
        for at in &mut self.at[self.next..] {
            *at = Some(end);
        }
        let mut cuts = Vec::new();
        for (i, j) in self.joining.iter().enumerate() {
            match (j.shown, self.matched[i].take()) {
                (false, _) => {}
                (true, Some((line, true))) => cuts.push(line),
                (true, Some((_, false))) => self.at[i] = None,
                (true, None) => return None,
            }
        }
        cuts.sort_by_key(|c| c.start);
        Some(MergePlan { at: self.at, cuts })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::kinds::Learning;
    use crate::model::{fold, Body, LearningType, Record};
    use crate::view::{render, ViewFile};

    fn at(ts: &str, clock: u64, key: &str) -> Record {
        let mut r = crate::model::testing::learning(clock, key, &format!("{key} at {ts}"));
        r.meta.ts = ts.to_owned();
        Record::new(r.meta, r.body)
    }

    /// The rendered log of `records` (nothing withheld but `withheld`).
    fn log(records: &[Record], withheld: &[&str]) -> String {
        render(ViewFile::Learnings, &fold(records), &|r| {
            withheld.contains(&r.id.as_str())
        })
    }

    /// Feeds `text` to a merge of `joining` and applies the plan.
    fn merged(text: &str, joining: &[Joining<'_>], withheld: &[&str]) -> Option<String> {
        let mut merge = LogMerge::new(joining);
        let mut start = 0u64;
        for line in text.split_inclusive('\n') {
            if !merge.line(start, line.as_bytes()) {
                return None;
            }
            start += line.len() as u64;
        }
        let plan = merge.finish(start)?;
        let mut out = String::new();
        let mut pos = 0usize;
        let mut events: Vec<(u64, usize, Option<&Record>, u64)> = Vec::new();
        for (i, a) in plan.at.iter().enumerate() {
            if let Some(a) = a {
                events.push((*a, 0, Some(joining[i].record), 0));
            }
        }
        for c in &plan.cuts {
            events.push((c.start, 1, None, c.end - c.start));
        }
        events.sort_by_key(|e| (e.0, e.1));
        for (offset, _, record, skip) in events {
            out.push_str(&text[pos..offset as usize]);
            pos = offset as usize;
            if let Some(r) = record {
                out.push_str(&log(std::slice::from_ref(r), withheld));
            }
            pos += skip as usize;
        }
        out.push_str(&text[pos..]);
        Some(out)
    }

    fn group(r: &Record) -> (LearningType, String) {
        match &r.body {
            Body::Learning(Learning { ltype, key, .. }) => (*ltype, key.clone()),
            _ => unreachable!(),
        }
    }

    /// Every plan it makes writes what a render of all the records writes; where it gives up
    /// is where clocks or ids would decide.
    #[test]
    fn a_merged_log_is_the_render_of_everything_or_none() {
        let base = vec![
            at("2026-01-01T00:00:00Z", 1, "a"),
            at("2026-02-01T00:00:00Z", 2, "b"),
            at("2026-03-01T00:00:00Z", 3, "c"),
            at("2026-04-01T00:00:00Z", 4, "d"),
        ];
        let last_key = base.iter().map(|r| r.order_key()).max().unwrap();
        let cases: Vec<(Vec<Record>, &[&str], bool)> = vec![
            // Before everything, between lines, at the end.
            (vec![at("2025-12-01T00:00:00Z", 9, "x")], &[], true),
            (
                vec![
                    at("2026-01-15T00:00:00Z", 9, "x"),
                    at("2026-01-16T00:00:00Z", 10, "y"),
                    at("2026-03-15T00:00:00Z", 11, "z"),
                    at("2026-05-01T00:00:00Z", 12, "w"),
                ],
                &[],
                true,
            ),
            // In a shown group: newer than its line (the line goes), older (not shown).
            (vec![at("2026-02-15T00:00:00Z", 9, "a")], &[], true),
            (vec![at("2026-01-15T00:00:00Z", 9, "c")], &[], true),
            (vec![at("2026-05-01T00:00:00Z", 9, "b")], &[], true),
            // The same time as a line: the clock decides, which the text does not show.
            (vec![at("2026-02-01T00:00:00Z", 9, "x")], &[], false),
            (vec![at("2026-02-01T00:00:00Z", 9, "b")], &[], false),
            // A withheld line where one is placed; away from it, no matter.
            (vec![at("2026-02-15T00:00:00Z", 9, "x")], &["b"], false),
            (vec![at("2026-03-15T00:00:00Z", 9, "x")], &["b"], true),
            (vec![at("2026-05-15T00:00:00Z", 9, "x")], &["d"], true),
        ];
        for (added, withheld_keys, expect) in cases {
            let withheld: Vec<&str> = base
                .iter()
                .filter(|r| withheld_keys.contains(&group(r).1.as_str()))
                .map(|r| r.id.as_str())
                .collect();
            let text = log(&base, &withheld);
            let shown: Vec<_> = base.iter().map(group).collect();
            let joining: Vec<Joining<'_>> = added
                .iter()
                .map(|r| Joining {
                    record: r,
                    last: r.order_key() > last_key,
                    shown: shown.contains(&group(r)),
                })
                .collect();
            let all: Vec<Record> = base.iter().chain(&added).cloned().collect();
            let got = merged(&text, &joining, &withheld);
            assert_eq!(got.is_some(), expect, "{added:?}");
            if let Some(got) = got {
                assert_eq!(got, log(&all, &withheld), "{added:?}");
            }
        }
    }

    /// A text that is not the log the index describes gives no plan.
    #[test]
    fn a_log_that_does_not_match_the_index_gives_no_plan() {
        let base = vec![at("2026-01-01T00:00:00Z", 1, "a")];
        let text = log(&base, &[]);
        let other = at("2026-02-01T00:00:00Z", 2, "b");
        let said_shown = [Joining {
            record: &other,
            last: true,
            shown: true,
        }];
        assert_eq!(merged(&text, &said_shown, &[]), None);
    }
}
