//! Echoes (seed 002): role memories with a lifecycle. The use cases of `git rune echo …`:
//! add, list, search, reference, archive and restore, reset, prune, and saving the echoes
//! directory (hand edits and agents' findings files) back into records. No clap and no
//! printing: each returns what it did. The entry format is `view::echoes`, the scoring
//! `score`, the directory on disk `dir`.

pub mod compress;
pub mod dir;
mod lifecycle;
mod migrate;
mod promote;
pub mod remembrance;
pub mod save;
pub mod score;
pub mod search;
pub mod transfer;

use anyhow::Result;
use chrono::NaiveDate;

use crate::error;
use crate::memory::seal::{Sealed, Sealer};
use crate::memory::write::{write_records, Written};
use crate::memory::Snapshot;
use crate::model::echo::{self, ETCHED};
use crate::model::{Body, Draft, Record, Scope, State};
use crate::store::Store;

use crate::model::kinds::{Echo, EchoRef};
pub use dir::EchoDir;
pub use lifecycle::{compress, prune};
pub use migrate::migrate;
pub use promote::{promote, remembrance_docs, stale_refs};
pub use score::Scorer;
#[cfg(test)]
pub use testing::search;

/// Today in UTC (`GIT_RUNE_TIMESTAMP` pins it, as it pins record times).
pub fn today() -> NaiveDate {
    std::env::var("GIT_RUNE_TIMESTAMP")
        .ok()
        .and_then(|t| NaiveDate::parse_from_str(t.get(..10)?, "%Y-%m-%d").ok())
        .unwrap_or_else(|| chrono::Utc::now().date_naive())
}

/// A new entry, as `echo add` takes it.
#[derive(Debug, Clone)]
pub struct NewEcho {
    pub role: String,
    pub layer: String,
    pub title: String,
    pub source: String,
    pub confidence: f64,
    pub evidence: String,
    pub supersedes: String,
    pub text: String,
}

/// What adding did.
#[derive(Debug)]
pub enum Added {
    /// A new entry.
    New(Written),
    /// The same pattern and evidence was already recorded: its `verified` date and confidence
    /// were raised (the higher wins), and it is active again if it was archived.
    Merged(Written),
    /// Already recorded with at least this confidence, verified today: nothing written.
    Unchanged(String),
}

/// The uid of an echo body (empty for other kinds).
pub fn uid_of(r: &Record) -> &str {
    echo::uid(&r.body)
}

/// `body` with `archived` set as given (an archived version, or a restored one).
fn with_archived(body: &Body, archived: bool) -> Body {
    let mut body = body.clone();
    if let Some(e) = Echo::of_mut(&mut body) {
        e.archived = archived;
    }
    body
}

/// How entries of one score are ordered: newest `verified` first, then by uid.
fn ties(a: &Record, b: &Record) -> std::cmp::Ordering {
    fn verified(r: &Record) -> &str {
        Echo::of(&r.body).map_or("", |e| &e.verified)
    }
    verified(b)
        .cmp(verified(a))
        .then_with(|| uid_of(a).cmp(uid_of(b)))
}

/// Seals an echo body as a new version of `current` (when given), superseding it; a refused
/// field is named as `{whose} {field}` (`the echo's`, `an echo's`).
fn seal_version(
    sealer: &mut Sealer,
    body: Body,
    current: Option<&Record>,
    whose: &str,
) -> Result<Sealed, crate::memory::seal::SealError> {
    sealer.seal(
        Draft {
            body,
            supersedes: current.map(|r| vec![r.id.clone()]).unwrap_or_default(),
            at: None,
        },
        &|field, _| format!("{whose} {field}"),
    )
}

/// The seed's duplicate rule applied to `into`: the newer `verified` and the higher confidence
/// win; with `reactivate`, an archived entry found again is active again.
fn raise(into: &mut Body, found: &Body, reactivate: bool) {
    if let (Some(e), Some(f)) = (Echo::of_mut(into), Echo::of(found)) {
        if f.verified > e.verified {
            e.verified = f.verified.clone();
        }
        e.confidence = e.confidence.max(f.confidence);
        if reactivate {
            e.archived = false;
        }
    }
}

/// The live entry with this uid in `state`.
pub fn by_uid<'a>(state: &'a State, uid: &str) -> Option<&'a Record> {
    state.echoes.iter().find(|r| uid_of(r) == uid)
}

/// Finds one entry by a prefix of its uid (or of a record id), archived ones included.
pub fn find<'a>(state: &'a State, id: &str) -> Result<&'a Record> {
    let id = id.trim().to_lowercase();
    let matches: Vec<&Record> = state
        .echoes
        .iter()
        .filter(|r| !id.is_empty() && (uid_of(r).starts_with(&id) || r.id.starts_with(&id)))
        .collect();
    match matches.as_slice() {
        [one] => Ok(one),
        [] => Err(error::input(
            format!("no echo has the id {id:?}"),
            error::run("echo show", " (or `echo show --archived`) to see the ids"),
        )),
        _ => Err(error::input(
            format!("{} echoes have an id starting with {id:?}", matches.len()),
            "give more digits of the id",
        )),
    }
}

/// The live entry an entry's `supersedes` names (same role, same title, not the entry itself,
/// not archived): the seed's `supersedes` retires it, so contradictory entries do not both
/// load.
pub fn superseded_by<'a>(state: &'a State, body: &Body) -> Option<&'a Record> {
    let e = Echo::of(body)?;
    let want = crate::text::one_line(&e.supersedes_title).to_lowercase();
    if want.is_empty() || want == "none" {
        return None;
    }
    state.echoes.iter().find(|r| {
        Echo::of(&r.body).is_some_and(|o| {
            o.role == e.role
                && o.uid != e.uid
                && !o.archived
                && crate::text::one_line(&o.title).to_lowercase() == want
        })
    })
}

/// The version that retires `old` (archived), sealed.
pub fn retire(old: &Record) -> Result<Sealed> {
    let body = with_archived(&old.body, true);
    Ok(seal_version(
        &mut Sealer::new(false),
        body,
        Some(old),
        "the echo's",
    )?)
}

/// Adds an entry (`echo add`), or merges it into the one with the same pattern and evidence.
/// `confirmed`: an etched entry needs the user's confirmation, which the command obtained.
pub fn add(store: &Store, sealer: &mut Sealer, new: NewEcho, confirmed: bool) -> Result<Added> {
    if new.layer == ETCHED && !confirmed {
        return Err(error::input(
            "etched entries are permanent project knowledge: adding one needs confirmation",
            error::pass("confirm", "", " (a person, not an agent, should), or run the command on a terminal and answer yes"),
        ));
    }
    let day = today().format("%Y-%m-%d").to_string();
    let body = Body::Echo(Echo {
        uid: echo::uid_for(&new.role, &new.title, &new.evidence),
        role: new.role,
        layer: new.layer,
        date: day.clone(),
        title: new.title,
        source: new.source,
        confidence: new.confidence,
        evidence: new.evidence,
        verified: day.clone(),
        supersedes_title: new.supersedes,
        text: new.text,
        archived: false,
        members: Vec::new(),
        extra: Vec::new(),
    });
    // Sealed once up front, so a secret or an invalid field is refused before any write.
    let sealed = seal_version(sealer, body, None, "the echo's")?;
    let uid = echo::uid(sealed.body()).to_owned();
    let mut merged = false;
    let mut unchanged = false;
    let written = write_records(store, Scope::Memory, "echo: add", |state| {
        merged = false;
        unchanged = false;
        let Some(existing) = by_uid(state, &uid) else {
            // A new entry that supersedes another retires it.
            let mut out = vec![sealed.clone()];
            if let Some(old) = superseded_by(state, sealed.body()) {
                out.push(retire(old)?);
            }
            return Ok::<_, anyhow::Error>(out);
        };
        merged = true;
        // Unchanged when it already has at least this confidence and `verified`, active.
        let mut body = existing.body.clone();
        raise(&mut body, sealed.body(), true);
        if body == existing.body {
            unchanged = true;
            return Ok(Vec::new());
        }
        let mut sealer = Sealer::new(false);
        Ok(vec![seal_version(
            &mut sealer,
            body,
            Some(existing),
            "the echo's",
        )?])
    })?;
    Ok(match written {
        Some(w) if merged => Added::Merged(w),
        Some(w) => Added::New(w),
        None => Added::Unchanged(uid),
    })
}

/// Which entries `echo show` lists.
#[derive(Debug, Default, Clone)]
pub struct Filter {
    pub role: Option<String>,
    pub layer: Option<String>,
    /// Archived entries instead of active ones.
    pub archived: bool,
}

impl Filter {
    pub fn keeps(&self, r: &Record) -> bool {
        let Some(e) = Echo::of(&r.body) else {
            return false;
        };
        self.role.as_ref().is_none_or(|x| *x == e.role)
            && self.layer.as_ref().is_none_or(|x| *x == e.layer)
            && e.archived == self.archived
    }
}

/// The entries a filter keeps, in the fold's order, with their scores.
pub fn list<'a>(state: &'a State, filter: &Filter) -> Vec<(&'a Record, score::Score)> {
    let scorer = Scorer::new(&state.echoes, &state.echo_refs, today());
    state
        .echoes
        .iter()
        .filter(|r| filter.keeps(r))
        .map(|r| (r, scorer.score(r)))
        .collect()
}

/// Records that a workflow used an entry (`echo ref`).
pub fn reference(
    store: &Store,
    sealer: &mut Sealer,
    id: &str,
    workflow: &str,
) -> Result<(String, Option<Written>)> {
    let snap = Snapshot::read(store)?;
    let uid = uid_of(find(&snap.state, id)?).to_owned();
    let sealed = sealer.seal_body(
        Body::EchoRef(EchoRef {
            uid: uid.clone(),
            workflow: workflow.to_owned(),
        }),
        Vec::new(),
    )?;
    let w = crate::memory::write::append(store, Scope::Memory, "echo: ref", vec![sealed])?;
    Ok((uid, w))
}

/// Archives (or restores, `archived: false`) the entries `pick` chooses among the fold's
/// echoes, each as a new version; etched ones only when `confirmed`. Returns the titles
/// changed and the write. Already archived (restored) ones are left alone.
pub fn set_archived(
    store: &Store,
    summary: &str,
    archived: bool,
    confirmed: bool,
    pick: &dyn Fn(&State, &Record) -> bool,
) -> Result<(Vec<String>, Option<Written>)> {
    let mut titles = Vec::new();
    let mut refused = None;
    let written = write_records(store, Scope::Memory, summary, |state| {
        titles.clear();
        let mut out = Vec::new();
        let mut sealer = Sealer::new(false);
        for r in &state.echoes {
            let Some(e) = Echo::of(&r.body) else {
                continue;
            };
            if e.archived == archived || !pick(state, r) {
                continue;
            }
            if e.layer == ETCHED && archived && !confirmed {
                refused = Some(crate::integrity::gate::shown_title(r));
                continue;
            }
            let body = with_archived(&r.body, archived);
            titles.push(crate::integrity::gate::shown_title(r));
            out.push(seal_version(&mut sealer, body, Some(r), "the echo's")?);
        }
        Ok::<_, anyhow::Error>(out)
    })?;
    if written.is_none() {
        if let Some(t) = refused {
            return Err(error::input(
                format!("{t:?} is etched: removing it needs confirmation"),
                error::pass(
                    "confirm",
                    "",
                    " (a person, not an agent, should), or answer yes on a terminal",
                ),
            ));
        }
    }
    Ok((titles, written))
}

/// Re-renders the echoes directory (after a write), leaving files with unsaved edits; returns
/// those it left. `force`: renders it from memory over what is on disk (after `import echoes`
/// of that very directory: its content is in memory now).
pub fn refresh(store: &Store, force: bool) -> Result<Vec<std::path::PathBuf>> {
    let Some(dir) = EchoDir::open(store) else {
        return Ok(Vec::new());
    };
    let lock = dir.lock()?;
    dir.checkout(store, &lock, force)
}

/// Renders the echoes directory again when another renderer wrote it (another build, other
/// rules, other trusted authors), as a reader brings the `.rune/` view up to date; files with
/// unsaved edits are left as they are.
pub fn refresh_stale(store: &Store) -> Result<()> {
    if let Some(dir) = EchoDir::open(store).filter(|d| d.stale(store)) {
        let lock = dir.lock()?;
        dir.checkout(store, &lock, false)?;
    }
    Ok(())
}

/// What `load --role` shows of a role: its active entries best Echo Score first (then newest
/// `verified`, then uid), and a pointer to the Remembrance documents promoted from them.
pub fn briefing_picker(
    store: &Store,
    role: &str,
) -> Result<impl Fn(&State) -> crate::memory::load::RoleEchoes> {
    let role = role.to_owned();
    let docs: Vec<remembrance::Doc> = match store.workdir() {
        Some(w) => remembrance::documents(w)?,
        None => Vec::new(),
    };
    let ours = format!("/{role}/MEMORY.md#");
    let mine: Vec<&remembrance::Doc> = docs.iter().filter(|d| d.echo_ref.contains(&ours)).collect();
    let solutions = (!mine.is_empty()).then(|| {
        format!(
            "Remembrance (check before fixing): {}",
            mine.iter()
                .map(|d| format!("{} ({})", d.path, d.title))
                .collect::<Vec<_>>()
                .join("; ")
        )
    });
    Ok(move |state: &State| {
        let filter = Filter {
            role: Some(role.clone()),
            ..Filter::default()
        };
        let mut listed = list(state, &filter);
        listed.sort_by(|a, b| b.1.total.total_cmp(&a.1.total).then_with(|| ties(a.0, b.0)));
        crate::memory::load::RoleEchoes {
            role: role.clone(),
            uids: listed.iter().map(|(r, _)| uid_of(r).to_owned()).collect(),
            solutions: solutions.clone(),
        }
    })
}

#[cfg(test)]
mod testing {
    use super::*;

    /// One search result of [`search`].
    #[derive(Debug)]
    pub struct Found<'a> {
        pub record: &'a Record,
        /// BM25 relevance to the query.
        pub relevance: f32,
        pub score: score::Score,
        /// What the ranking sorts by: relevance weighted by the Echo Score
        /// (`relevance · (0.5 + 0.5 · score)`).
        pub rank: f64,
    }

    /// Active entries (of `role`, when given) matching `query`, best first: BM25 over title,
    /// learning and evidence, weighted by the Echo Score; ties newest `verified` first, then uid.
    /// Over the whole fold: what `echo search` gives from the cached index ([`search::search`]),
    /// which the tests compare with this.
    pub fn search<'a>(state: &'a State, query: &str, role: Option<&str>) -> Vec<Found<'a>> {
        let filter = Filter {
            role: role.map(str::to_owned),
            ..Filter::default()
        };
        let records: Vec<&Record> = state.echoes.iter().filter(|r| filter.keeps(r)).collect();
        let docs = records
            .iter()
            .map(|r| crate::memory::cache::echo_index::document(r))
            .collect();
        let scorer = Scorer::new(&state.echoes, &state.echo_refs, today());
        let mut found: Vec<Found<'a>> = crate::rank::bm25(docs, query)
            .into_iter()
            .map(|(i, relevance)| {
                let score = scorer.score(records[i]);
                Found {
                    record: records[i],
                    relevance,
                    score,
                    rank: relevance as f64 * (0.5 + 0.5 * score.total),
                }
            })
            .collect();
        found.sort_by(|a, b| {
            b.rank
                .total_cmp(&a.rank)
                .then_with(|| ties(a.record, b.record))
        });
        found
    }
}
