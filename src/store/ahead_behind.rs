//! Exact ahead/behind counts between two commits, by walking the graph (never by trusting commit dates).
//!
//! Past 600 lines: one walk and its fallbacks (commit-graph, generation cache, straight line)
//! share one proof of exactness; split, the proof would span files.
//!
//! The walk pops commits in decreasing generation order, where a commit's generation is larger than
//! that of each of its parents. A commit therefore leaves the queue only after every walked commit
//! that can reach it, so the flags it carries then (reachable from the saved commit, from the
//! current one, or from both) are final and can be counted on the spot. Commit dates are never
//! consulted, so skewed or backdated commits cannot make the answer wrong.
//!
//! Generation numbers come from git's commit-graph when there is one; otherwise from git-rune's
//! own cache of them (`generations.rs`), which the walk fills the first time it has to compute
//! them over the whole history.

use std::collections::BinaryHeap;

use gix::commitgraph::{Position, GENERATION_NUMBER_MAX};
use gix::objs::commit::ref_iter::Token;
use gix::ObjectId;

use super::generations::{self, Cache};
use super::Store;

/// How far two commits have moved apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AheadBehind {
    /// Commits reachable from the current commit but not from the saved one.
    pub ahead: usize,
    /// Commits reachable from the saved commit but not from the current one.
    pub behind: usize,
}

/// Failures while counting commits between two points of history.
#[derive(Debug, thiserror::Error)]
pub enum AheadBehindError {
    #[error("commit {id} is missing from the object database")]
    MissingCommit { id: ObjectId },
    #[error("object {id} is a {kind}, not a commit")]
    NotACommit { id: ObjectId, kind: gix::objs::Kind },
    #[error("could not read object {id}: {error}")]
    Read { id: ObjectId, error: gix::Error },
    #[error("commit {id} could not be decoded: {error}")]
    Decode { id: ObjectId, error: gix::Error },
    #[error("could not read the list of shallow commits: {error}")]
    Shallow { error: gix::Error },
    #[error("commit {id} is its own ancestor, so the history (or its replace refs) forms a cycle")]
    Cycle { id: ObjectId },
}

/// What a count had to read, so a caller can tell the user how to make it cheaper.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WalkCost {
    /// Commits read from the object database (not found in a commit-graph).
    pub commits_read: usize,
    /// Whether the generation numbers computed could not be kept for the next count (no
    /// commit-graph, and the cache is unusable here or could not be written).
    pub uncached: bool,
}

impl WalkCost {
    /// Past this many commits read, and nothing kept for next time, the count says how to make
    /// it fast.
    pub const SLOW: usize = 20_000;

    /// A hint for the user when this count was slow and the next one will be too.
    pub fn hint(&self) -> Option<String> {
        (self.uncached && self.commits_read >= Self::SLOW).then(|| {
            format!(
                "counting drift read {} commits because this repository has no commit-graph; `git commit-graph write --reachable` (or `git gc`) makes it fast",
                self.commits_read
            )
        })
    }
}

impl Store {
    /// Counts commits reachable from `now` but not from `saved` (`ahead`) and from `saved` but
    /// not from `now` (`behind`), exactly as `git rev-list --left-right --count saved...now`
    /// (see [`ahead_behind`]).
    pub fn ahead_behind(
        &self,
        saved: ObjectId,
        now: ObjectId,
    ) -> Result<AheadBehind, AheadBehindError> {
        ahead_behind(&self.repo, Some(saved), now).map(|(counts, _)| counts)
    }

    /// [`Store::ahead_behind`], with what the count had to read.
    pub fn ahead_behind_cost(
        &self,
        saved: ObjectId,
        now: ObjectId,
    ) -> Result<(AheadBehind, WalkCost), AheadBehindError> {
        ahead_behind(&self.repo, Some(saved), now)
    }

    /// Counts the commits reachable from `now` (`git rev-list --count now`): how far the code
    /// moved since memory saved before the first commit.
    pub fn commits_reachable(&self, now: ObjectId) -> Result<usize, AheadBehindError> {
        ahead_behind(&self.repo, None, now).map(|(ab, _)| ab.ahead)
    }
}

/// Counts commits reachable from `now` but not from `saved` (`ahead`) and from `saved` but not from `now` (`behind`);
/// identical to `git rev-list --left-right --count saved...now` (behind is the left count, ahead the right).
///
/// Annotated tags are peeled to the commit they point at, and shallow commits count as having no parents,
/// as git does. Equal ids return `(0, 0)` without touching the object database.
///
/// A commit-graph, when present and enabled, provides generation numbers and parents, so the walk stays
/// within the commits that differ plus a frontier around their merge bases. Commits missing from it
/// (typically the newest ones) are read from the object database. Without a commit-graph, the
/// generation numbers cached in `<common-dir>/rune/generations` play its part, and the ones the
/// walk computes are added there (unless they are few: those are cheap to compute again).
///
/// # Errors
///
/// Fails if a commit on either side is missing (outside a shallow boundary), is not a commit, cannot be
/// read or decoded, or if replace refs make a commit its own ancestor.
pub(super) fn ahead_behind(
    repo: &gix::Repository,
    saved: Option<ObjectId>,
    now: ObjectId,
) -> Result<(AheadBehind, WalkCost), AheadBehindError> {
    if saved == Some(now) {
        return Ok((AheadBehind::default(), WalkCost::default()));
    }
    let shallow = shallow_commits(repo)?;
    // Git ignores the commit-graph in shallow repositories (commit_graph_compatible() in
    // commit-graph.c) because it records parents the shallow boundary cuts off. A commit-graph that
    // cannot be opened only costs speed, never exactness.
    let graph = if shallow.is_empty() {
        repo.commit_graph_if_enabled().ok().flatten()
    } else {
        None
    };
    // The cache stands in for a commit-graph where git would use one: not in a shallow
    // repository, nor when replace refs may give commits other parents than their own.
    let cache_path = (shallow.is_empty() && graph.is_none() && !has_replace_refs(repo))
        .then(|| generations::path(repo.common_dir()));
    let mut walk = Walk::new(repo, graph.as_ref(), &shallow);
    walk.cache = cache_path.as_deref().and_then(Cache::open);
    // Where the cache would serve but holds nothing yet (a fresh clone: no commit-graph, not
    // shallow, no replace refs), the common case first (HEAD a few plain commits past the
    // save, or reset back before it): a straight line needs no generation numbers, so it
    // costs the commits between, not the whole history.
    if let Some(saved) = saved.filter(|_| cache_path.is_some() && walk.cache.is_none()) {
        let (mut buf, mut parents) = (Vec::new(), Vec::new());
        for (from, to, ahead) in [(now, saved, true), (saved, now, false)] {
            if let Some(steps) = along_a_line(repo, &shallow, from, to, &mut buf, &mut parents)? {
                let counts = match ahead {
                    true => AheadBehind {
                        ahead: steps,
                        behind: 0,
                    },
                    false => AheadBehind {
                        ahead: 0,
                        behind: steps,
                    },
                };
                let cost = WalkCost {
                    commits_read: steps,
                    uncached: false,
                };
                return Ok((counts, cost));
            }
        }
    }
    let counts = walk.run(saved, now)?;
    let fresh: Vec<(ObjectId, u64)> = walk
        .nodes
        .iter()
        .filter(|n| n.flags & FRESH != 0)
        .map(|n| (n.id, n.generation))
        .collect();
    let mut cost = WalkCost {
        commits_read: walk.commits_read,
        uncached: !fresh.is_empty(),
    };
    if let Some(path) = cache_path {
        if walk.cache_contradicted || fresh.len() >= generations::WRITE_THRESHOLD {
            // A cache that cannot be written only costs speed; the count stands.
            cost.uncached = generations::store(&path, &fresh, !walk.cache_contradicted).is_err();
        } else {
            cost.uncached = false;
        }
    }
    Ok((counts, cost))
}

/// Decodes the parent ids of commit `id` from the object database into `out`.
fn read_parents(
    repo: &gix::Repository,
    id: ObjectId,
    buf: &mut Vec<u8>,
    out: &mut Vec<ObjectId>,
) -> Result<(), AheadBehindError> {
    let kind = super::objects::find_data(repo, &id, buf)
        .map_err(|error| AheadBehindError::Read { id, error })?
        .ok_or(AheadBehindError::MissingCommit { id })?;
    if kind != gix::objs::Kind::Commit {
        return Err(AheadBehindError::NotACommit { id, kind });
    }
    out.clear();
    for token in gix::objs::CommitRefIter::from_bytes(buf, repo.object_hash()) {
        match token.map_err(|error| AheadBehindError::Decode { id, error })? {
            Token::Tree { .. } => {}
            Token::Parent { id: parent } => out.push(parent),
            _ => break,
        }
    }
    Ok(())
}

/// The commit `id` names: itself, or what the annotated tags it names point at.
fn peel(
    repo: &gix::Repository,
    mut id: ObjectId,
    buf: &mut Vec<u8>,
) -> Result<ObjectId, AheadBehindError> {
    loop {
        let kind = super::objects::find_data(repo, &id, buf)
            .map_err(|error| AheadBehindError::Read { id, error })?
            .ok_or(AheadBehindError::MissingCommit { id })?;
        match kind {
            gix::objs::Kind::Commit => return Ok(id),
            gix::objs::Kind::Tag => {
                id = gix::objs::TagRefIter::from_bytes(buf, repo.object_hash())
                    .target_id()
                    .map_err(|error| AheadBehindError::Decode { id, error })?;
            }
            kind => return Err(AheadBehindError::NotACommit { id, kind }),
        }
    }
}

/// How many commits a straight line is followed before the walk with generation numbers
/// takes over.
const LINE_MAX: usize = 256;

/// The counts when one commit is the other's ancestor along a straight line: following the
/// only parent of each commit from `from`, `to` is reached in `steps` (at most [`LINE_MAX`];
/// a merge, a root or a shallow boundary on the way ends the try). Exact without generation
/// numbers: the commits passed are ancestors of `from` and descendants of `to`, so no
/// ancestor of `to` (history has no cycles), and every other ancestor of `from` is one of
/// `to`'s. `None` when the line does not reach `to`.
fn along_a_line(
    repo: &gix::Repository,
    shallow: &[ObjectId],
    from: ObjectId,
    to: ObjectId,
    buf: &mut Vec<u8>,
    parents: &mut Vec<ObjectId>,
) -> Result<Option<usize>, AheadBehindError> {
    let mut at = peel(repo, from, buf)?;
    let to = peel(repo, to, buf)?;
    for steps in 0..=LINE_MAX {
        if at == to {
            return Ok(Some(steps));
        }
        if steps == LINE_MAX || shallow.contains(&at) {
            break;
        }
        read_parents(repo, at, buf, parents)?;
        match parents.as_slice() {
            [only] => at = *only,
            _ => break,
        }
    }
    Ok(None)
}

/// Whether any ref under `refs/replace/` exists (then gix reads replaced objects, as git does).
fn has_replace_refs(repo: &gix::Repository) -> bool {
    let Ok(platform) = repo.references() else {
        return true;
    };
    match platform.prefixed("refs/replace/") {
        Ok(mut refs) => refs.next().is_some(),
        Err(_) => true,
    }
}

/// Returns the shallow boundary, sorted for binary search; empty unless the repository is shallow.
fn shallow_commits(repo: &gix::Repository) -> Result<Vec<ObjectId>, AheadBehindError> {
    let mut commits: Vec<ObjectId> = repo
        .shallow_commits()
        .map_err(|error| AheadBehindError::Shallow { error })?
        .map(|commits| commits.iter().copied().collect())
        .unwrap_or_default();
    commits.sort_unstable();
    Ok(commits)
}

enum Fail {
    Drift(AheadBehindError),
    /// The commit-graph contradicted itself (a parent whose generation is not below its child's, or an
    /// unreadable parent list); the walk is repeated from the object database alone.
    GraphUnusable,
}

impl From<AheadBehindError> for Fail {
    fn from(err: AheadBehindError) -> Self {
        Fail::Drift(err)
    }
}

const LEFT: u8 = 1;
const RIGHT: u8 = 2;
const BOTH: u8 = LEFT | RIGHT;
const QUEUED: u8 = 4;
const EXPANDED: u8 = 8;
const ON_STACK: u8 = 16;
/// The generation was computed by this walk (neither a commit-graph's nor the cache's).
const FRESH: u8 = 32;

/// Generation 0 means "not known yet"; known generations start at 1 for root commits.
const UNKNOWN: u64 = 0;

struct Node {
    id: ObjectId,
    graph_pos: Option<Position>,
    generation: u64,
    flags: u8,
    /// Range into `Walk::edges`, valid once `EXPANDED` is set.
    parents_start: usize,
    parents_end: usize,
}

struct Walk<'a> {
    repo: &'a gix::Repository,
    graph: Option<&'a gix::commitgraph::Graph>,
    /// Generation numbers kept by an earlier walk, when there is no commit-graph.
    cache: Option<Cache>,
    /// The cache gave a parent a generation not below its child's.
    cache_contradicted: bool,
    /// Commits whose parents were read from the object database.
    commits_read: usize,
    /// Sorted commits whose parents git pretends do not exist.
    shallow: &'a [ObjectId],
    index: gix::hashtable::HashMap<ObjectId, usize>,
    nodes: Vec<Node>,
    edges: Vec<usize>,
    buf: Vec<u8>,
    parent_ids: Vec<ObjectId>,
    /// `(node, next parent to look at)` for the generation computation.
    stack: Vec<(usize, usize)>,
}

impl<'a> Walk<'a> {
    fn new(
        repo: &'a gix::Repository,
        graph: Option<&'a gix::commitgraph::Graph>,
        shallow: &'a [ObjectId],
    ) -> Self {
        Walk {
            repo,
            graph,
            cache: None,
            cache_contradicted: false,
            commits_read: 0,
            shallow,
            index: gix::hashtable::HashMap::default(),
            nodes: Vec::new(),
            edges: Vec::new(),
            buf: Vec::new(),
            parent_ids: Vec::new(),
            stack: Vec::new(),
        }
    }

    fn run(
        &mut self,
        saved: Option<ObjectId>,
        now: ObjectId,
    ) -> Result<AheadBehind, AheadBehindError> {
        loop {
            match self.attempt(saved, now) {
                Ok(counts) => return Ok(counts),
                Err(Fail::Drift(err)) => return Err(err),
                // A damaged commit-graph cannot be trusted for anything, the objects themselves can.
                // Without a graph `GraphUnusable` cannot occur, so this repeats at most once.
                Err(Fail::GraphUnusable) => {
                    self.cache_contradicted |= self.cache.is_some();
                    self.cache = None;
                    self.commits_read = 0;
                    self.graph = None;
                    self.index.clear();
                    self.nodes.clear();
                    self.edges.clear();
                }
            }
        }
    }

    fn attempt(&mut self, saved: Option<ObjectId>, now: ObjectId) -> Result<AheadBehind, Fail> {
        let left = saved.map(|saved| self.tip(saved)).transpose()?;
        let right = self.tip(now)?;
        let mut queue = BinaryHeap::new();
        // Queued commits that are not yet known to be reachable from both sides; once none are left,
        // everything still unvisited is a common ancestor and cannot change the counts.
        let mut undecided = 0usize;
        if let Some(left) = left {
            self.ensure_generation(left)?;
            self.paint(left, LEFT, &mut queue, &mut undecided);
        }
        self.ensure_generation(right)?;
        self.paint(right, RIGHT, &mut queue, &mut undecided);

        let mut counts = AheadBehind::default();
        while undecided > 0 {
            let Some((generation, n)) = queue.pop() else {
                break;
            };
            let side = self.nodes[n].flags & BOTH;
            self.nodes[n].flags &= !QUEUED;
            match side {
                LEFT => counts.behind += 1,
                RIGHT => counts.ahead += 1,
                _ => {}
            }
            if side != BOTH {
                undecided -= 1;
            }
            self.expand(n)?;
            for edge in self.nodes[n].parents_start..self.nodes[n].parents_end {
                let parent = self.edges[edge];
                self.ensure_generation(parent)?;
                // Computed generations satisfy this by construction; a commit-graph or the cache
                // must be checked, as the popped-means-final argument rests on it.
                if (self.graph.is_some() || self.cache.is_some())
                    && self.nodes[parent].generation >= generation
                {
                    return Err(Fail::GraphUnusable);
                }
                self.paint(parent, side, &mut queue, &mut undecided);
            }
        }
        Ok(counts)
    }

    fn paint(
        &mut self,
        n: usize,
        side: u8,
        queue: &mut BinaryHeap<(u64, usize)>,
        undecided: &mut usize,
    ) {
        let node = &mut self.nodes[n];
        let old = node.flags;
        node.flags |= side | QUEUED;
        let new = node.flags;
        if old & QUEUED == 0 {
            queue.push((node.generation, n));
            if new & BOTH != BOTH {
                *undecided += 1;
            }
        } else if old & BOTH != BOTH && new & BOTH == BOTH {
            *undecided -= 1;
        }
    }

    /// Resolves a starting point to its commit node, peeling annotated tags like git does.
    fn tip(&mut self, id: ObjectId) -> Result<usize, Fail> {
        if let Some(pos) = self.graph.and_then(|graph| graph.lookup(id)) {
            return Ok(self.node(id, Some(pos)));
        }
        let id = peel(self.repo, id, &mut self.buf)?;
        Ok(self.node(id, None))
    }

    /// Returns the node for `id`, creating it on first sight; `graph_pos` is its commit-graph position if known.
    fn node(&mut self, id: ObjectId, graph_pos: Option<Position>) -> usize {
        if let Some(&n) = self.index.get(&id) {
            return n;
        }
        let graph_pos = graph_pos.or_else(|| self.graph.and_then(|graph| graph.lookup(id)));
        let generation = match (self.graph, graph_pos) {
            (Some(graph), Some(pos)) => {
                // 0 comes from graphs written before generation numbers, the maximum from capped
                // ones; neither orders parents strictly before children, so both get recomputed.
                match graph.commit_at(pos).generation() {
                    g if g == 0 || g >= GENERATION_NUMBER_MAX => UNKNOWN,
                    g => u64::from(g),
                }
            }
            _ => self
                .cache
                .as_mut()
                .and_then(|cache| cache.get(&id))
                .filter(|&g| g != UNKNOWN)
                .unwrap_or(UNKNOWN),
        };
        let n = self.nodes.len();
        self.nodes.push(Node {
            id,
            graph_pos,
            generation,
            flags: 0,
            parents_start: 0,
            parents_end: 0,
        });
        self.index.insert(id, n);
        n
    }

    /// Loads the parents of `n` into `edges` once.
    fn expand(&mut self, n: usize) -> Result<(), Fail> {
        if self.nodes[n].flags & EXPANDED != 0 {
            return Ok(());
        }
        let id = self.nodes[n].id;
        let start = self.edges.len();
        if let (Some(graph), Some(pos)) = (self.graph, self.nodes[n].graph_pos) {
            for parent in graph.commit_at(pos).iter_parents() {
                let parent = parent.map_err(|_| Fail::GraphUnusable)?;
                let parent = self.node(graph.id_at(parent).to_owned(), Some(parent));
                self.edges.push(parent);
            }
        } else if self.shallow.binary_search(&id).is_err() {
            self.commits_read += 1;
            self.read_parents(id)?;
            let mut parent_ids = std::mem::take(&mut self.parent_ids);
            for parent in parent_ids.drain(..) {
                let parent = self.node(parent, None);
                self.edges.push(parent);
            }
            self.parent_ids = parent_ids;
        }
        let node = &mut self.nodes[n];
        node.parents_start = start;
        node.parents_end = self.edges.len();
        node.flags |= EXPANDED;
        Ok(())
    }

    /// Decodes the parent ids of commit `id` from the object database into `parent_ids`.
    fn read_parents(&mut self, id: ObjectId) -> Result<(), AheadBehindError> {
        read_parents(self.repo, id, &mut self.buf, &mut self.parent_ids)
    }

    /// Gives `root` a generation number: one more than the largest among its parents, roots being 1.
    // Without a commit-graph this visits every ancestor of `root` once, so the first call costs
    // O(history) object reads; that is the price of exactness when no generation numbers are stored.
    // With a commit-graph it only visits the commits the graph lacks. The depth-first search keeps
    // its own stack because histories can be far deeper than the thread's stack.
    fn ensure_generation(&mut self, root: usize) -> Result<(), Fail> {
        if self.nodes[root].generation != UNKNOWN {
            return Ok(());
        }
        self.stack.clear();
        self.stack.push((root, 0));
        self.nodes[root].flags |= ON_STACK;
        while let Some(&(n, cursor)) = self.stack.last() {
            self.expand(n)?;
            let (start, end) = (self.nodes[n].parents_start, self.nodes[n].parents_end);
            let mut edge = start + cursor;
            let mut descend = None;
            while edge < end {
                let parent = self.edges[edge];
                if self.nodes[parent].generation == UNKNOWN {
                    if self.nodes[parent].flags & ON_STACK != 0 {
                        return Err(AheadBehindError::Cycle {
                            id: self.nodes[parent].id,
                        }
                        .into());
                    }
                    descend = Some(parent);
                    break;
                }
                edge += 1;
            }
            if let Some(parent) = descend {
                if let Some(top) = self.stack.last_mut() {
                    top.1 = edge - start;
                }
                self.nodes[parent].flags |= ON_STACK;
                self.stack.push((parent, 0));
                continue;
            }
            let highest = self.edges[start..end]
                .iter()
                .map(|&parent| self.nodes[parent].generation)
                .max()
                .unwrap_or(0);
            let node = &mut self.nodes[n];
            node.generation = highest + 1;
            node.flags = (node.flags & !ON_STACK) | FRESH;
            self.stack.pop();
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "ahead_behind_tests.rs"]
mod tests;
