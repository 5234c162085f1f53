//! The view refresh that costs what a write added: when the refs moved from the trees the
//! view was rendered from only by records that join the ends of the lists the view shows
//! ([`ViewIndex::admit`]; learnings may also join the log where their time puts them, or
//! take their groups' lines: `view_dir/log.rs`), their entries are appended to the files
//! that show them, every other file keeps its text, and load's digest for the new trees is
//! grown from the old one. Byte for byte what a full render writes (tests/it/view_append.rs compares them);
//! anything else — an edit, a tombstone, a file edited or deleted by hand, a kind shown any
//! other way or not at all (echoes keep caches only the full render stores), a missing
//! index — takes the full render. Without the old trees' digest none is grown: `load`
//! makes it on its first read.

use anyhow::Result;

use super::log::{LogRewrite, Written};
use super::{renderer, FileEntry, FileState, Manifest, Refresh, View, MANIFEST_VERSION};
use crate::files::{append_atomic, stat_of, write_atomic};
use crate::memory::cache::view_index::ViewIndex;
use crate::memory::cache::{self, echo_index};
use crate::memory::{Snapshot, Wrote};
use crate::model::{Record, Scope, State};
use crate::store::{HeadInfo, ObjectId, Store, Tip, MEMORY_REF};
use crate::view::{self, ViewFile};

/// A view file `save` read as its rendered text (the first `prefix` bytes, unchanged) with
/// entries written after it, which are now committed: the refresh replaces what was written
/// after the prefix with their rendering.
#[derive(Debug, Clone)]
pub struct SavedTail {
    pub file: ViewFile,
    pub prefix: usize,
    /// The file's stat when `save` read it: a file changed since is kept. `None` (a clock
    /// without sub-second times) keeps it too.
    pub stat: Option<(u64, i128)>,
}

/// The refresh by appending, or `None` when it does not apply (nothing is written then).
/// `told` is what the caller just wrote (the trees are not diffed for it); `saved` the view
/// file whose appended tail `save` committed.
#[allow(clippy::too_many_arguments)]
pub(crate) fn refresh(
    view: &View,
    store: &Store,
    manifest: &Manifest,
    head: &HeadInfo,
    branch_ref: &str,
    tips: (Option<Tip>, Option<Tip>),
    told: &[Wrote],
    saved: Option<&SavedTail>,
) -> Result<Option<Refresh>> {
    if manifest.version != MANIFEST_VERSION || manifest.renderer != renderer(store) {
        return Ok(None);
    }
    // The commits every file was rendered from: one per scope.
    let mut bases: [Option<Option<&String>>; 2] = [None, None];
    for file in ViewFile::ALL {
        let Some(e) = manifest.files.get(file.name()) else {
            return Ok(None);
        };
        let (slot, refname) = match file.scope() {
            Scope::Memory => (0, MEMORY_REF),
            Scope::Branch => (1, branch_ref),
        };
        if e.refname != refname || bases[slot].is_some_and(|b| b != e.base.as_ref()) {
            return Ok(None);
        }
        bases[slot] = Some(e.base.as_ref());
    }
    let old_tree =
        |name: &str, base: Option<Option<&String>>| -> Result<Option<Option<ObjectId>>> {
            match base.flatten() {
                None => Ok(Some(None)),
                Some(hex) => match ObjectId::from_hex(hex.as_bytes()) {
                    Ok(id) if store.has_object(id) => Ok(Some(Some(store.tip_of(name, id)?.tree))),
                    _ => Ok(None),
                },
            }
        };
    let (Some(old_memory), Some(old_branch)) = (
        old_tree(MEMORY_REF, bases[0])?,
        old_tree(branch_ref, bases[1])?,
    ) else {
        return Ok(None);
    };
    let Some(index) = ViewIndex::read(store).filter(|i| i.describes(old_memory, old_branch)) else {
        return Ok(None);
    };
    // What each ref gained; a ref that lost a record (a rewrite) or vanished is no append.
    let mut added: Vec<Record> = Vec::new();
    for (name, old, new) in [
        (MEMORY_REF, old_memory, tips.0),
        (branch_ref, old_branch, tips.1),
    ] {
        let new = new.map(|t| t.tree);
        if old == new {
            continue;
        }
        let Some(new) = new else {
            return Ok(None);
        };
        match Wrote::find(told, name, old, new) {
            Some(records) => added.extend(records.iter().cloned()),
            None => {
                let (gained, removed) = store.tree_changes(name, old, new)?;
                if removed {
                    return Ok(None);
                }
                added.extend(gained);
            }
        }
    }
    added.sort_by(|a, b| a.order_key().cmp(&b.order_key()));
    let Some(admitted) = index.admit(&added) else {
        return Ok(None);
    };
    let lite = Snapshot {
        head: head.clone(),
        branch_ref: branch_ref.to_owned(),
        memory_tip: tips.0,
        branch_tip: tips.1,
        state: State::default(),
    };
    let verdicts = cache::gate::verdicts_known(store, &lite, told)?;
    // What the files show: SUSPICIOUS records marked, as the full render marks them.
    let shown = verdicts.marked(&added);
    let withhold = |r: &Record| verdicts.withholds(r);

    // Decide every file before writing any: a file edited by hand whose list grows takes
    // the full render (which keeps it, unless it already says what memory says).
    let mut plan: Vec<(ViewFile, Vec<Record>)> = Vec::new();
    for file in ViewFile::ALL {
        let mine: Vec<Record> = shown
            .iter()
            .filter(|r| r.kind() == file.kind())
            .cloned()
            .collect();
        if let Some(s) = saved.filter(|s| s.file == file) {
            if s.stat.is_none() || stat_of(&view.path(file)) != s.stat {
                // Edited again while the save ran: the full render keeps it.
                return Ok(None);
            }
            plan.push((file, mine));
            continue;
        }
        match view.file_state(manifest, file) {
            FileState::Clean => plan.push((file, mine)),
            FileState::Modified if mine.is_empty() => {}
            _ => return Ok(None),
        }
    }
    // The log, when learnings join it anywhere but at its end or in groups it shows: where
    // each goes, read from its text (a plan that gives up takes the full render).
    let keep_of = |file: ViewFile| saved.filter(|s| s.file == file).map(|s| s.prefix as u64);
    let log = if admitted.appends_only() {
        None
    } else {
        let path = view.path(ViewFile::Learnings);
        match LogRewrite::plan(&path, keep_of(ViewFile::Learnings), &added, &admitted) {
            Some(log) => Some(log),
            // Not placeable from its text (or unreadable): the full render.
            None => return Ok(None),
        }
    };
    // The learnings shown after the write (a learning older than its group's line is not),
    // and the positions among them of those that took a group's line. Positions are sorted.
    let lost = log.as_ref().map(LogRewrite::lost).unwrap_or_default();
    let shown_added: Vec<Record> = added
        .iter()
        .enumerate()
        .filter(|(i, _)| lost.binary_search(i).is_err())
        .map(|(_, r)| r.clone())
        .collect();
    let replacing: Vec<usize> = admitted
        .shown
        .iter()
        .filter(|i| lost.binary_search(i).is_err())
        .map(|&i| i - lost.partition_point(|&l| l < i))
        .collect();
    let mut manifest = manifest.clone();
    let mut out = Refresh::default();
    for file in ViewFile::ALL {
        let (refname, tip) = match file.scope() {
            Scope::Memory => (MEMORY_REF, tips.0),
            Scope::Branch => (branch_ref, tips.1),
        };
        let Some((_, mine)) = plan.iter().find(|(f, _)| *f == file) else {
            // Edited by hand and not touched by the write: kept, as the full render keeps it.
            out.kept.push(file);
            continue;
        };
        let entry = manifest
            .files
            .get_mut(file.name())
            .expect("every file has an entry (checked above)");
        entry.refname = refname.to_owned();
        entry.base = tip.map(|t| t.commit.to_string());
        let saved_here = saved.is_some_and(|s| s.file == file);
        if mine.is_empty() && !saved_here {
            continue;
        }
        let path = view.path(file);
        let keep = keep_of(file);
        let log_here = log.as_ref().filter(|_| file == ViewFile::Learnings);
        let written = match log_here {
            // Learnings taking their places in the log, or their groups' lines: the file is
            // written whole, streamed.
            Some(log) => log.write(&path, keep, &shown, &withhold, || {
                view::appended(file, index.holds(file.kind()), mine, &withhold)
            })?,
            None => append(
                view,
                file,
                entry,
                keep,
                mine,
                index.holds(file.kind()),
                &withhold,
            )?,
        };
        let Some((stat, blob)) = written else {
            return Ok(None);
        };
        (entry.blob, entry.stat) = (blob, stat);
        out.written.push(file);
    }
    view.write_manifest(&manifest)?;
    index
        .appended(tips.0.map(|t| t.tree), tips.1.map(|t| t.tree), &added)
        .write(store);
    // load's digest for the new trees, grown from the old pair's when that one is cached.
    let old_tips = (
        old_memory.map(|tree| Tip { commit: tree, tree }),
        old_branch.map(|tree| Tip { commit: tree, tree }),
    );
    if let Some(digest) = cache::digest::read(store, old_tips.0, old_tips.1)
        .and_then(|d| d.appended(&shown_added, &replacing))
    {
        cache::digest::put(store, tips.0, tips.1, &digest);
    }
    // No echo was added: the echoes' caches of the old trees serve the new ones.
    echo_index::carry(store, old_tips, tips);
    Ok(Some(out))
}

/// Appends the entries of `mine` to `file` (after its first `keep` bytes, when `save` read
/// it so far): its stat and content id, or `None` when they do not render as a tail.
fn append(
    view: &View,
    file: ViewFile,
    entry: &FileEntry,
    keep: Option<u64>,
    mine: &[Record],
    holds: bool,
    withhold: view::Withhold<'_>,
) -> Result<Option<Written>> {
    let path = view.path(file);
    let Some(tail) = view::appended(file, holds, mine, withhold) else {
        return Ok(None);
    };
    if entry.blob.is_empty() && keep.is_none() {
        // Rendered empty: no file (a log with no learnings yet), or the header of one.
        let mut data = view::render(file, &State::default(), withhold).into_bytes();
        data.extend_from_slice(tail.as_bytes());
        let stat = write_atomic(&path, &data).map_err(super::io_err(&path))?;
        return Ok(Some((stat, super::content_id(&data))));
    }
    let stat = append_atomic(&path, keep, tail.as_bytes()).map_err(super::io_err(&path))?;
    // What the kept text's id names: the whole file's, or (after `save`) the rendered
    // text's, which `save` checked the file began with.
    let kept_id = match keep {
        Some(0) => super::content_id(b""),
        _ => entry.blob.clone(),
    };
    let blob = match super::appended_id(&kept_id, tail.as_bytes()) {
        Some(id) => id,
        None => super::content_id(&std::fs::read(&path).map_err(super::io_err(&path))?),
    };
    Ok(Some((stat, blob)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::seal::Sealer;
    use crate::memory::write;
    use crate::model::kinds::{Learning, Progress, Session};
    use crate::model::testing::decision;
    use crate::model::{Body, LearningType};

    /// Every view file's bytes (`None`: no file).
    fn files(view: &View) -> Vec<(ViewFile, Option<Vec<u8>>)> {
        ViewFile::ALL
            .into_iter()
            .map(|f| (f, std::fs::read(view.path(f)).ok()))
            .collect()
    }

    /// A mixed run of writes (new learning keys, keys already shown, decisions, progress,
    /// sessions), each refreshed as the write path refreshes; after each, the view must be
    /// byte for byte what a render from nothing writes.
    #[test]
    fn appending_refreshes_write_what_a_full_render_writes() {
        let (_dir, store) = crate::store::scratch();
        let view = View::open(&store).unwrap();
        let mut sealer = Sealer::new(false);
        let mut seed = 7u64;
        let mut appended = 0;
        let mut digests = 0;
        for step in 0..90u64 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let pick = (seed >> 33) % 8;
            let learning = |key: String| {
                Body::Learning(Learning {
                    skill: String::new(),
                    ltype: LearningType::Insight,
                    key,
                    insight: format!("insight {step}"),
                    confidence: 0.5,
                    files: Vec::new(),
                    file_blobs: Default::default(),
                    extra: Vec::new(),
                })
            };
            // Learnings dated in the past (a seed's, an import's) join the log by time: new
            // keys, keys shown (older or newer than their lines), and times shared.
            if pick >= 6 {
                let key = match pick {
                    6 => format!("old{step}"),
                    _ => format!("k{}", (seed >> 40) % (step + 1)),
                };
                let at = format!(
                    "2026-0{}-0{}T00:00:00Z",
                    1 + (seed >> 20) % 5,
                    1 + (seed >> 24) % 3
                );
                let draft = crate::model::Draft {
                    body: learning(key),
                    supersedes: Vec::new(),
                    at: Some(at),
                };
                let sealed = sealer.seal(draft, &|f, _| f.to_owned()).unwrap();
                write::append(&store, Scope::Memory, "dated", vec![sealed]).unwrap();
            }
            let body = match pick {
                0 | 1 | 6 => learning(format!("k{step}")),
                2 | 7 => learning(format!("k{}", (seed >> 40) % (step + 1))),
                3 => decision(step, &format!("d{step}"), &[]).body,
                4 => Body::Progress(Progress {
                    completed: vec![format!("done {step}")],
                    in_progress: Vec::new(),
                    blocked: Vec::new(),
                    next: Vec::new(),
                    extra: Vec::new(),
                }),
                _ => Body::Session(Session {
                    summary: format!("session {step}"),
                    git: None,
                }),
            };
            let scope = body.kind().scope().unwrap();
            let sealed = sealer.seal_body(body, Vec::new()).unwrap();
            write::append(&store, scope, "step", vec![sealed]).unwrap();
            let manifest = view.manifest();
            appended += manifest
                .files
                .values()
                .filter(|e| e.blob.contains('+'))
                .count();
            // What a render of the whole fold writes, beside what the refreshes left.
            let snap = Snapshot::read(&store).unwrap();
            let withheld = cache::gate::withheld(&store, &snap).unwrap();
            let whole: Vec<(ViewFile, Option<Vec<u8>>)> = ViewFile::ALL
                .into_iter()
                .map(|f| {
                    let text = view::render(f, &snap.state, &|r| withheld.contains(&r.id));
                    (f, (!text.is_empty()).then(|| text.into_bytes()))
                })
                .collect();
            assert_eq!(files(&view), whole, "step {step}");
            // load's digest of these trees, when grown or made (not when a replaced learning
            // was one it kept), is the whole fold's.
            if let Some(digest) = cache::digest::read(&store, snap.memory_tip, snap.branch_tip) {
                let made = crate::memory::load::digest::Digest::of(&snap.state, digest.cap);
                assert_eq!(
                    cache::digest::encoded(&digest),
                    cache::digest::encoded(&made),
                    "digest at step {step}"
                );
                digests += 1;
            }
            // And the manifest calls every file clean.
            for f in ViewFile::ALL {
                assert_eq!(view.file_state(&manifest, f), FileState::Clean, "{f:?}");
            }
        }
        assert!(
            appended > 20,
            "the append path ran ({appended} file refreshes)"
        );
        let merged = super::super::log::MERGES.with(|m| m.get());
        assert!(
            merged > 3,
            "learnings were placed by time ({merged} refreshes)"
        );
        assert!(digests > 30, "digests grown: {digests}");
    }

    /// A write's own account of what it added is used only while the ref is still where that
    /// write left it: when another write landed after it, the refresh diffs the trees and the
    /// view shows both.
    #[test]
    fn a_told_write_overtaken_by_another_still_shows_both() {
        let (_dir, store) = crate::store::scratch();
        let view = View::open(&store).unwrap();
        let mut sealer = Sealer::new(false);
        let mut learn = |key: &str| {
            let body = Body::Learning(Learning {
                skill: String::new(),
                ltype: LearningType::Insight,
                key: key.into(),
                insight: format!("about {key}"),
                confidence: 0.5,
                files: Vec::new(),
                file_blobs: Default::default(),
                extra: Vec::new(),
            });
            sealer.seal_body(body, Vec::new()).unwrap()
        };
        write::append(&store, Scope::Memory, "first", vec![learn("first")]).unwrap();
        // Two writes land; the view is refreshed only afterwards, told about the first.
        let a = store
            .append(MEMORY_REF, "a", vec![learn("told")])
            .unwrap()
            .unwrap();
        store
            .append(MEMORY_REF, "b", vec![learn("overtaking")])
            .unwrap()
            .unwrap();
        let told = write::wrote(&store, MEMORY_REF, &a).unwrap();
        assert_eq!(told.len(), 1);
        view.checkout_told(&store, &told).unwrap();
        let text = std::fs::read_to_string(view.path(ViewFile::Learnings)).unwrap();
        for key in ["first", "told", "overtaking"] {
            assert!(
                text.contains(&format!("\"key\":\"{key}\"")),
                "{key}: {text}"
            );
        }
        // Told what it wrote and nothing landed since: the same as a render of everything.
        let c = store
            .append(MEMORY_REF, "c", vec![learn("last")])
            .unwrap()
            .unwrap();
        view.checkout_told(&store, &write::wrote(&store, MEMORY_REF, &c).unwrap())
            .unwrap();
        let snap = Snapshot::read(&store).unwrap();
        let whole = view::render(ViewFile::Learnings, &snap.state, &|_| false);
        assert_eq!(
            std::fs::read_to_string(view.path(ViewFile::Learnings)).unwrap(),
            whole
        );
        assert!(view.manifest().files[ViewFile::Learnings.name()]
            .blob
            .contains('+'));
    }
}
