//! The refresh of `learnings.jsonl` (the log) when learnings do not only join its end in
//! groups of their own: a learning taking its group's line, or sorting before the last one
//! shown (a seed imported into a memory written since). Where each goes is read from the
//! log's text ([`LogMerge`]); the log is then written whole, streamed through a buffer and
//! hashed on the way, never held in memory.

use std::path::Path;

use anyhow::Result;

use crate::files::{rewrite_atomic, rewrite_without_lines, Edit};
use crate::memory::cache::view_index::Admitted;
use crate::model::{Kind, Record};
use crate::view::log_merge::{Joining, LogMerge, MergePlan};
use crate::view::{self, ViewFile, Withhold};

/// Up to how many learnings taking their groups' places the log is rewritten by searching
/// for their groups in its text, in one pass ([`rewrite_without_lines`]); more are placed
/// line by line ([`LogMerge`]).
const DROP_MAX: usize = 32;

#[cfg(test)]
thread_local! {
    /// How many refreshes on this thread rewrote the log by a [`MergePlan`].
    pub(super) static MERGES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// What a view file's refresh wrote: its stat and its content id.
pub(super) type Written = (Option<(u64, i128)>, String);

/// How the log is rewritten.
pub(super) enum LogRewrite {
    /// Every learning sorts last: the lines of these group runs go, the new lines are
    /// appended.
    Drop(Vec<Vec<u8>>),
    /// Learnings placed by [`MergePlan`] (`at`: their positions among the records added;
    /// `end`: the length of the text planned for).
    Merge {
        at: Vec<usize>,
        end: u64,
        plan: MergePlan,
    },
}

impl LogRewrite {
    /// How the log at `path` (its first `keep` bytes, after `save`) takes `added` (sorted by
    /// order key), which the view index admitted as `admitted`; `None` when its text does not
    /// say (or cannot be read): the full render then.
    pub(super) fn plan(
        path: &Path,
        keep: Option<u64>,
        added: &[Record],
        admitted: &Admitted,
    ) -> Option<LogRewrite> {
        if admitted.earlier.is_empty() && admitted.shown.len() <= DROP_MAX {
            let runs: Option<Vec<Vec<u8>>> = admitted
                .shown
                .iter()
                .map(|&i| view::learning_group_run(&added[i]))
                .collect();
            return runs.map(LogRewrite::Drop);
        }
        let (at, joining): (Vec<usize>, Vec<Joining<'_>>) = added
            .iter()
            .enumerate()
            .filter(|(_, r)| r.kind() == Kind::Learning)
            .map(|(i, r)| {
                let joining = Joining {
                    record: r,
                    last: admitted.earlier.binary_search(&i).is_err(),
                    shown: admitted.shown.binary_search(&i).is_ok(),
                };
                (i, joining)
            })
            .unzip();
        let (end, plan) = plan_log(path, keep, &joining).ok().flatten()?;
        Some(LogRewrite::Merge { at, end, plan })
    }

    /// The positions in what was added of the learnings the log does not show (their
    /// groups' lines are newer), sorted.
    pub(super) fn lost(&self) -> Vec<usize> {
        match self {
            LogRewrite::Merge { at, plan, .. } => at
                .iter()
                .zip(&plan.at)
                .filter(|(_, place)| place.is_none())
                .map(|(&i, _)| i)
                .collect(),
            LogRewrite::Drop(_) => Vec::new(),
        }
    }

    /// Rewrites the log at `path` (its first `keep` bytes) with `added`'s learnings, `tail`
    /// rendering them all when they all go at the end: the stat and content id of what it
    /// wrote, or `None` when the text was not the log the plan was made for (nothing is
    /// written then).
    pub(super) fn write(
        &self,
        path: &Path,
        keep: Option<u64>,
        added: &[Record],
        withhold: Withhold<'_>,
        tail: impl FnOnce() -> Option<String>,
    ) -> Result<Option<Written>> {
        let written = match self {
            LogRewrite::Drop(runs) => {
                let Some(tail) = tail() else {
                    return Ok(None);
                };
                rewrite_without_lines(path, keep, runs, tail.as_bytes())
                    .map_err(super::io_err(path))?
            }
            LogRewrite::Merge { at, end, plan } => {
                let mut edits: std::collections::BTreeMap<u64, Edit> = Default::default();
                fn edit_at(
                    edits: &mut std::collections::BTreeMap<u64, Edit>,
                    at: u64,
                ) -> &mut Edit {
                    edits.entry(at).or_insert_with(|| Edit {
                        at,
                        insert: Vec::new(),
                        skip: 0,
                    })
                }
                for (&i, place) in at.iter().zip(&plan.at) {
                    let Some(place) = *place else { continue };
                    let Some(line) =
                        view::appended(ViewFile::Learnings, true, &added[i..=i], withhold)
                    else {
                        return Ok(None);
                    };
                    edit_at(&mut edits, place)
                        .insert
                        .extend_from_slice(line.as_bytes());
                }
                for cut in &plan.cuts {
                    edit_at(&mut edits, cut.start).skip = cut.end - cut.start;
                }
                let edits: Vec<Edit> = edits.into_values().collect();
                #[cfg(test)]
                MERGES.with(|m| m.set(m.get() + 1));
                Some(rewrite_atomic(path, *end, &edits).map_err(super::io_err(path))?)
            }
        };
        Ok(written.map(|(stat, hash)| (stat, super::content_id_of_hash(hash))))
    }
}

/// Reads the log at `path` (its first `keep` bytes when given) a line at a time into a
/// [`LogMerge`] of `joining`: the end of the text read, and where each learning goes.
/// `Ok(None)` when the text does not say.
fn plan_log(
    path: &Path,
    keep: Option<u64>,
    joining: &[Joining<'_>],
) -> std::io::Result<Option<(u64, MergePlan)>> {
    use std::io::Read;
    let file = std::fs::File::open(path)?;
    let mut text = file.take(keep.unwrap_or(u64::MAX));
    let mut merge = LogMerge::new(joining);
    // Lines are cut from a buffer read a chunk at a time; a line longer than the buffer
    // grows it.
    let mut buf = vec![0u8; 1 << 18];
    let (mut filled, mut base) = (0usize, 0u64);
    let start = loop {
        if filled == buf.len() {
            buf.resize(buf.len() * 2, 0);
        }
        let n = text.read(&mut buf[filled..])?;
        filled += n;
        let mut at = 0;
        while let Some(i) = memchr::memchr(b'\n', &buf[at..filled]) {
            if !merge.line(base + at as u64, &buf[at..at + i + 1]) {
                return Ok(None);
            }
            at += i + 1;
        }
        if n == 0 {
            if at < filled && !merge.line(base + at as u64, &buf[at..filled]) {
                return Ok(None);
            }
            break base + filled as u64;
        }
        buf.copy_within(at..filled, 0);
        base += at as u64;
        filled -= at;
    };
    if keep.is_some_and(|k| k != start) {
        return Ok(None);
    }
    Ok(merge.finish(start).map(|plan| (start, plan)))
}
