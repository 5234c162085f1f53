//! Echoes (seed 002): role memories with a lifecycle. The use cases of `git rune echo …`:
//! add, list, search, reference, archive and restore, reset, prune, and saving the echoes
//! directory (hand edits and agents' findings files) back into records. No clap and no
//! printing: each returns what it did. The entry format is `view::echoes`, the scoring
//! `score`, the directory on disk `dir`.

pub mod compress;
pub mod dir;
pub mod remembrance;
pub mod save;
pub mod score;
pub mod transfer;

use anyhow::Result;
use chrono::NaiveDate;

use crate::error::user_error;
use crate::memory::seal::{Sealed, Sealer};
use crate::memory::write::{write_records, Written};
use crate::memory::Snapshot;
use crate::model::echo::{self, ETCHED};
use crate::model::{Body, Draft, Record, Scope, State};
use crate::store::Store;

pub use dir::EchoDir;
pub use score::Scorer;

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
    match &r.body {
        Body::Echo { uid, .. } => uid,
        _ => "",
    }
}

/// Seals an echo body as a new version of `current` (when given), superseding it.
fn seal_version(
    sealer: &mut Sealer,
    body: Body,
    current: Option<&Record>,
) -> Result<Sealed, crate::memory::seal::SealError> {
    sealer.seal(
        Draft {
            body,
            supersedes: current.map(|r| vec![r.id.clone()]).unwrap_or_default(),
            at: None,
        },
        &|field, _| format!("the echo's {field}"),
    )
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
        [] => Err(user_error(
            format!("no echo has the id {id:?}"),
            "see the ids with `git rune echo show` (or `--archived`)",
        )),
        _ => Err(user_error(
            format!("{} echoes have an id starting with {id:?}", matches.len()),
            "give more digits of the id",
        )),
    }
}

/// Adds an entry (`echo add`), or merges it into the one with the same pattern and evidence.
/// `confirmed`: an etched entry needs the user's confirmation, which the command obtained.
pub fn add(store: &Store, sealer: &mut Sealer, new: NewEcho, confirmed: bool) -> Result<Added> {
    if new.layer == ETCHED && !confirmed {
        return Err(user_error(
            "etched entries are permanent project knowledge: adding one needs confirmation",
            "pass --confirm (a person, not an agent, should), or run the command on a terminal \
             and answer yes",
        ));
    }
    let day = today().format("%Y-%m-%d").to_string();
    let body = Body::Echo {
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
    };
    // Sealed once up front, so a secret or an invalid field is refused before any write.
    let sealed = seal_version(sealer, body, None)?;
    let uid = match sealed.body() {
        Body::Echo { uid, .. } => uid.clone(),
        _ => String::new(),
    };
    let mut merged = false;
    let mut unchanged = false;
    let written = write_records(store, Scope::Memory, "echo: add", |state| {
        merged = false;
        unchanged = false;
        let Some(existing) = by_uid(state, &uid) else {
            return Ok::<_, anyhow::Error>(vec![sealed.clone()]);
        };
        merged = true;
        let Body::Echo {
            confidence: new_c,
            verified: new_v,
            ..
        } = sealed.body()
        else {
            return Ok(Vec::new());
        };
        let mut body = existing.body.clone();
        if let Body::Echo {
            confidence,
            verified,
            archived,
            ..
        } = &mut body
        {
            if *confidence >= *new_c && *verified >= *new_v && !*archived {
                unchanged = true;
                return Ok(Vec::new());
            }
            *confidence = confidence.max(*new_c);
            if *new_v > *verified {
                *verified = new_v.clone();
            }
            *archived = false;
        }
        Ok(vec![seal_version(
            &mut Sealer::new(false),
            body,
            Some(existing),
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
        let Body::Echo {
            role,
            layer,
            archived,
            ..
        } = &r.body
        else {
            return false;
        };
        self.role.as_ref().is_none_or(|x| x == role)
            && self.layer.as_ref().is_none_or(|x| x == layer)
            && *archived == self.archived
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

/// One search result.
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
pub fn search<'a>(state: &'a State, query: &str, role: Option<&str>) -> Vec<Found<'a>> {
    let filter = Filter {
        role: role.map(str::to_owned),
        ..Filter::default()
    };
    let records: Vec<&Record> = state.echoes.iter().filter(|r| filter.keeps(r)).collect();
    let docs = records
        .iter()
        .map(|r| match &r.body {
            Body::Echo {
                title,
                text,
                evidence,
                ..
            } => format!("{title}\n{title}\n{text}\n{evidence}"),
            _ => String::new(),
        })
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
    let verified = |r: &Record| match &r.body {
        Body::Echo { verified, .. } => verified.clone(),
        _ => String::new(),
    };
    found.sort_by(|a, b| {
        b.rank
            .total_cmp(&a.rank)
            .then_with(|| verified(b.record).cmp(&verified(a.record)))
            .then_with(|| uid_of(a.record).cmp(uid_of(b.record)))
    });
    found
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
        Body::EchoRef {
            uid: uid.clone(),
            workflow: workflow.to_owned(),
        },
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
            let Body::Echo {
                layer,
                archived: now,
                ..
            } = &r.body
            else {
                continue;
            };
            if *now == archived || !pick(state, r) {
                continue;
            }
            if layer == ETCHED && archived && !confirmed {
                refused = Some(r.body.title().to_owned());
                continue;
            }
            let mut body = r.body.clone();
            if let Body::Echo { archived: a, .. } = &mut body {
                *a = archived;
            }
            titles.push(r.body.title().to_owned());
            out.push(seal_version(&mut sealer, body, Some(r))?);
        }
        Ok::<_, anyhow::Error>(out)
    })?;
    if written.is_none() {
        if let Some(t) = refused {
            return Err(user_error(
                format!("{t:?} is etched: removing it needs confirmation"),
                "pass --confirm (a person, not an agent, should), or answer yes on a terminal",
            ));
        }
    }
    Ok((titles, written))
}

/// Re-renders the echoes directory (after a write), leaving files with unsaved edits; returns
/// those it left.
pub fn refresh(store: &Store) -> Result<Vec<std::path::PathBuf>> {
    let Some(dir) = EchoDir::open(store) else {
        return Ok(Vec::new());
    };
    let lock = dir.lock()?;
    dir.checkout(store, &lock, false)
}

/// An entry pruning archives: uid, title, Echo Score.
pub type PruneEntry = (String, String, f64);

/// One role's pruning: the role, its MEMORY.md line count, the entries archived.
pub type RolePrune = (String, usize, Vec<PruneEntry>);

/// Renders the echoes directory from memory over what is on disk (after `import echoes` of
/// that very directory: its content is in memory now).
pub fn refresh_forced(store: &Store) -> Result<()> {
    let Some(dir) = EchoDir::open(store) else {
        return Ok(());
    };
    let lock = dir.lock()?;
    dir.checkout(store, &lock, true)?;
    Ok(())
}

/// What `echo prune` did or would do.
#[derive(Debug, Default)]
pub struct Pruned {
    /// Per role: the MEMORY.md line count, and the entries archived (uid, title, score).
    pub roles: Vec<RolePrune>,
    pub written: Option<Written>,
}

/// The seed's pruning: for every role (or `role`) whose MEMORY.md is over 150 lines, archive
/// the entries the rules pick ([`Scorer::prunable`]). Etched entries are never pruned. The
/// seed's "backup before pruning" is memory's history: every archived entry's earlier version
/// stays in it, and `echo restore` brings it back.
pub fn prune(store: &Store, role: Option<&str>, dry_run: bool) -> Result<Pruned> {
    let snap = Snapshot::read(store)?;
    let plan = prune_plan(&snap.state, role, today());
    let mut out = Pruned {
        roles: plan,
        written: None,
    };
    let uids: std::collections::HashSet<String> = out
        .roles
        .iter()
        .flat_map(|(_, _, e)| e.iter().map(|(u, _, _)| u.clone()))
        .collect();
    if dry_run || uids.is_empty() {
        return Ok(out);
    }
    let (_, w) = set_archived(store, "echo: prune", true, false, &|_, r| {
        uids.contains(uid_of(r))
    })?;
    out.written = w;
    Ok(out)
}

/// What pruning would archive, per role over the line limit: (role, lines, entries).
pub fn prune_plan(state: &State, role: Option<&str>, today: NaiveDate) -> Vec<RolePrune> {
    let scorer = Scorer::new(&state.echoes, &state.echo_refs, today);
    let show_all = |_: &Record| false;
    let mut out = Vec::new();
    for r in dir::roles_of(state) {
        if role.is_some_and(|x| x != r) {
            continue;
        }
        let text = crate::view::echoes::render(
            &r,
            crate::view::echoes::EchoFile::Memory,
            &state.echoes,
            &show_all,
        );
        let lines = text.lines().count();
        if lines <= score::MAX_LINES {
            out.push((r, lines, Vec::new()));
            continue;
        }
        let picked = state
            .echoes
            .iter()
            .filter(|e| matches!(&e.body, Body::Echo { role, .. } if *role == r))
            .filter(|e| scorer.prunable(e))
            .map(|e| {
                (
                    uid_of(e).to_owned(),
                    e.body.title().to_owned(),
                    scorer.score(e).total,
                )
            })
            .collect();
        out.push((r, lines, picked));
    }
    out
}

/// What `echo compress` did or would do: per role, its MEMORY.md lines and the blocks.
#[derive(Debug, Default)]
pub struct Compressed {
    pub roles: Vec<(String, usize, Vec<compress::Block>)>,
    pub written: Option<Written>,
}

/// The seed's active context compression: for every role (or `role`) whose MEMORY.md is over
/// 300 lines (any size with `force`), related entries become knowledge blocks in
/// `knowledge.md` and the entries they compress are archived, in one commit.
pub fn compress(
    store: &Store,
    role: Option<&str>,
    dry_run: bool,
    force: bool,
) -> Result<Compressed> {
    let day = today().format("%Y-%m-%d").to_string();
    let select = |state: &State| -> Vec<(String, usize, Vec<compress::Block>)> {
        let show_all = |_: &Record| false;
        dir::roles_of(state)
            .into_iter()
            .filter(|r| role.is_none_or(|x| x == r))
            .map(|r| {
                let lines = crate::view::echoes::render(
                    &r,
                    crate::view::echoes::EchoFile::Memory,
                    &state.echoes,
                    &show_all,
                )
                .lines()
                .count();
                let blocks = if force || lines > compress::MAX_LINES {
                    compress::plan(&state.echoes, &r, &day)
                } else {
                    Vec::new()
                };
                (r, lines, blocks)
            })
            .collect()
    };
    let snap = Snapshot::read(store)?;
    let mut out = Compressed {
        roles: select(&snap.state),
        written: None,
    };
    if dry_run || out.roles.iter().all(|(_, _, b)| b.is_empty()) {
        return Ok(out);
    }
    let mut roles = Vec::new();
    out.written = write_records(store, Scope::Memory, "echo: compress", |state| {
        roles = select(state);
        let mut sealer = Sealer::new(false);
        let mut drafts = Vec::new();
        for (_, _, blocks) in &roles {
            for b in blocks {
                drafts.push(seal_version(&mut sealer, b.body.clone(), None)?);
                for m in &b.members {
                    let mut body = m.body.clone();
                    if let Body::Echo { archived, .. } = &mut body {
                        *archived = true;
                    }
                    drafts.push(seal_version(&mut sealer, body, Some(m))?);
                }
            }
        }
        Ok::<_, anyhow::Error>(drafts)
    })?;
    out.roles = roles;
    Ok(out)
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
        let verified = |r: &Record| match &r.body {
            Body::Echo { verified, .. } => verified.clone(),
            _ => String::new(),
        };
        listed.sort_by(|a, b| {
            b.1.total
                .total_cmp(&a.1.total)
                .then_with(|| verified(b.0).cmp(&verified(a.0)))
                .then_with(|| uid_of(a.0).cmp(uid_of(b.0)))
        });
        crate::memory::load::RoleEchoes {
            role: role.clone(),
            uids: listed.iter().map(|(r, _)| uid_of(r).to_owned()).collect(),
            solutions: solutions.clone(),
        }
    })
}

/// What `echo promote` wrote (or would write).
#[derive(Debug)]
pub struct Promoted {
    pub doc: remembrance::Doc,
    pub written: bool,
}

/// Promotes an etched entry to a Remembrance document (`docs/solutions/<category>/<slug>.md`)
/// when the seed's rules hold ([`remembrance::plan`]); the file is the user's to commit.
pub fn promote(
    store: &Store,
    id: &str,
    req: &remembrance::Request,
    dry_run: bool,
) -> Result<Promoted> {
    let Some(workdir) = store.workdir() else {
        return Err(user_error(
            "Remembrance documents are files of a work tree; this repository has none",
            "run the command in a clone with a work tree",
        ));
    };
    let snap = Snapshot::read(store)?;
    let r = find(&snap.state, id)?;
    let sessions = Scorer::new(&snap.state.echoes, &snap.state.echo_refs, today())
        .score(r)
        .references;
    let docs = remembrance::documents(workdir)?;
    let rel = EchoDir::open(store).map_or_else(|| dir::DEFAULT_DIR.to_owned(), |d| d.rel);
    let day = today().format("%Y-%m-%d").to_string();
    let doc = remembrance::plan(r, sessions, req, &rel, &day, &docs)?;
    if dry_run {
        return Ok(Promoted {
            doc,
            written: false,
        });
    }
    let path = workdir.join(&doc.path);
    if path.exists() {
        return Err(user_error(
            format!("{} already exists", doc.path),
            "edit that document, or change the entry's title",
        ));
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", parent.display()))?;
    }
    let learning = match &r.body {
        Body::Echo { text, .. } => text.as_str(),
        _ => "",
    };
    crate::files::write_atomic(&path, remembrance::render(&doc, learning).as_bytes())
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", doc.path))?;
    Ok(Promoted { doc, written: true })
}

/// The Remembrance documents of the work tree, of one category or matching a query (BM25
/// over title, symptom, root cause, solution and tags, best first).
pub fn remembrance_docs(
    store: &Store,
    category: Option<&str>,
    query: Option<&str>,
) -> Result<Vec<remembrance::Doc>> {
    let Some(workdir) = store.workdir() else {
        return Ok(Vec::new());
    };
    let docs: Vec<remembrance::Doc> = remembrance::documents(workdir)?
        .into_iter()
        .filter(|d| category.is_none_or(|c| d.category == c))
        .collect();
    let Some(q) = query else {
        return Ok(docs);
    };
    let texts = docs
        .iter()
        .map(|d| {
            format!(
                "{0}\n{0}\n{1}\n{2}\n{3}\n{4}",
                d.title,
                d.symptom,
                d.root_cause,
                d.solution_summary,
                d.tags.join(" ")
            )
        })
        .collect();
    Ok(crate::rank::bm25(texts, q)
        .into_iter()
        .map(|(i, _)| docs[i].clone())
        .collect())
}

/// The Remembrance documents whose `echo_ref` no longer matches memory (for `verify`).
pub fn stale_refs(store: &Store) -> Result<Vec<remembrance::Stale>> {
    let Some(workdir) = store.workdir() else {
        return Ok(Vec::new());
    };
    let docs = remembrance::documents(workdir)?;
    if docs.is_empty() {
        return Ok(Vec::new());
    }
    let snap = Snapshot::read(store)?;
    Ok(remembrance::stale(&docs, &snap.state))
}

/// One rename `echo migrate` made: the entry, the field, the value before and after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Renamed {
    pub uid: String,
    pub field: &'static str,
    pub before: String,
    pub after: String,
}

/// Renames old agent or concept names to new ones in the metadata of every entry (archived
/// ones too): `source`, `evidence`, `supersedes` and the extra labelled lines, never the title
/// or the learning (the seed's RENAME-2). Whole words only, case as given. Each changed entry
/// is a new version, so the migration is undone by restoring the previous versions from
/// history. `dry_run` only reports.
pub fn migrate(
    store: &Store,
    renames: &[(String, String)],
    dry_run: bool,
) -> Result<(Vec<Renamed>, Option<Written>)> {
    let apply = |state: &State| -> (Vec<Renamed>, Vec<(Body, Record)>) {
        let mut changes = Vec::new();
        let mut bodies = Vec::new();
        for r in &state.echoes {
            let mut body = r.body.clone();
            let mut changed = false;
            if let Body::Echo {
                uid,
                source,
                evidence,
                supersedes_title,
                extra,
                ..
            } = &mut body
            {
                let uid = uid.clone();
                let mut fields: Vec<(&'static str, &mut String)> = vec![
                    ("source", source),
                    ("evidence", evidence),
                    ("supersedes", supersedes_title),
                ];
                for x in extra.iter_mut().filter(|x| !x.label.is_empty()) {
                    fields.push(("extra", &mut x.text));
                }
                for (field, value) in fields {
                    let before = value.clone();
                    for (old, new) in renames {
                        *value = rename_words(value, old, new);
                    }
                    if *value != before {
                        changed = true;
                        changes.push(Renamed {
                            uid: uid.clone(),
                            field,
                            before,
                            after: value.clone(),
                        });
                    }
                }
            }
            if changed {
                bodies.push((body, r.clone()));
            }
        }
        (changes, bodies)
    };
    let snap = Snapshot::read(store)?;
    let (changes, _) = apply(&snap.state);
    if dry_run || changes.is_empty() {
        return Ok((changes, None));
    }
    let mut done = Vec::new();
    let written = write_records(store, Scope::Memory, "echo: migrate", |state| {
        let (changes, bodies) = apply(state);
        done = changes;
        let mut sealer = Sealer::new(false);
        bodies
            .into_iter()
            .map(|(b, r)| seal_version(&mut sealer, b, Some(&r)).map_err(anyhow::Error::from))
            .collect::<Result<Vec<_>>>()
    })?;
    Ok((done, written))
}

/// Replaces `old` by `new` where it stands as a whole word (not inside a longer name).
pub fn rename_words(text: &str, old: &str, new: &str) -> String {
    if old.is_empty() {
        return text.to_owned();
    }
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-');
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(old) {
        let before = out.chars().last().or_else(|| rest[..i].chars().last());
        let before = if i > 0 {
            rest[..i].chars().last()
        } else {
            before
        };
        let after = rest[i + old.len()..].chars().next();
        out.push_str(&rest[..i]);
        if word(before) || word(after) {
            out.push_str(old);
        } else {
            out.push_str(new);
        }
        rest = &rest[i + old.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testing::meta;
    use crate::model::{fold, Meta};

    /// A generated history of 500 entries over one role, pinned dates: layers in turn, verified
    /// dates spread over 400 days before 2026-06-01, a reference for every seventh entry.
    fn history() -> Vec<Record> {
        let start = NaiveDate::from_ymd_opt(2025, 4, 27).unwrap();
        let mut out = Vec::new();
        for i in 0..500u64 {
            let layer = ["etched", "inscribed", "inscribed", "traced"][i as usize % 4];
            let verified = (start + chrono::Days::new(i * 4 / 5))
                .format("%Y-%m-%d")
                .to_string();
            let title = format!("Pattern: generated entry {i}");
            let evidence = format!("`src/m{}.rs:{i}`", i % 13);
            let body = Body::Echo {
                uid: echo::uid_for("reviewer", &title, &evidence),
                role: "reviewer".into(),
                layer: layer.into(),
                date: verified.clone(),
                title,
                source: "rune:review".into(),
                confidence: 0.5,
                evidence,
                verified: verified.clone(),
                supersedes_title: String::new(),
                text: format!("Learning number {i}."),
                archived: false,
                members: vec![],
                extra: vec![],
            };
            crate::model::validate(&body).unwrap();
            let uid = match &body {
                Body::Echo { uid, .. } => uid.clone(),
                _ => unreachable!(),
            };
            out.push(Record::new(meta(i + 1, &[]), body));
            if i % 7 == 0 {
                let m = Meta {
                    ts: format!("{verified}T12:00:00Z"),
                    ..meta(1000 + i, &[])
                };
                out.push(Record::new(
                    m,
                    Body::EchoRef {
                        uid,
                        workflow: format!("wf-{}", i % 11),
                    },
                ));
            }
        }
        out
    }

    #[test]
    fn renames_whole_words_only() {
        assert_eq!(
            rename_words("rune:review by tarnished", "tarnished", "runebearer"),
            "rune:review by runebearer"
        );
        assert_eq!(
            rename_words("tarnished-x tarnished", "tarnished", "r"),
            "tarnished-x r"
        );
        assert_eq!(
            rename_words("`src/tarnished.rs:1`", "tarnished", "r"),
            "`src/r.rs:1`"
        );
        assert_eq!(rename_words("abc", "", "r"), "abc");
    }

    #[test]
    fn scoring_and_pruning_a_500_entry_history() {
        let today = NaiveDate::from_ymd_opt(2026, 6, 1).unwrap();
        let records = history();
        let state = fold(&records);
        assert_eq!(state.echoes.len(), 500);
        let plan = prune_plan(&state, Some("reviewer"), today);
        assert_eq!(plan.len(), 1);
        let (_, lines, picked) = &plan[0];
        assert!(*lines > 150, "{lines}");
        let scorer = Scorer::new(&state.echoes, &state.echo_refs, today);
        let picked_uids: std::collections::HashSet<&str> =
            picked.iter().map(|(u, _, _)| u.as_str()).collect();
        for r in &state.echoes {
            let Body::Echo {
                uid,
                layer,
                verified,
                ..
            } = &r.body
            else {
                unreachable!()
            };
            let s = scorer.score(r);
            let age = scorer.days_since(verified);
            let referenced_lately = state.echo_refs.iter().any(|x| {
                matches!(&x.body, Body::EchoRef { uid: u, .. } if u == uid)
                    && scorer.days_since(&x.meta.ts[..10]) <= 90
            });
            let want = match layer.as_str() {
                "etched" => {
                    assert_eq!(s.total, 1.0);
                    false
                }
                "inscribed" => s.total < 0.3 && age > 90 && !referenced_lately,
                _ => s.total < 0.2 && age > 30,
            };
            assert_eq!(
                picked_uids.contains(uid.as_str()),
                want,
                "{uid} {layer} {age} {s:?}"
            );
            assert!((0.0..=1.0).contains(&s.total));
        }
        // Pinned: the same history on the same day prunes the same entries, in any order.
        assert_eq!(picked.len(), 309);
        let mut shuffled = records.clone();
        shuffled.reverse();
        let again = prune_plan(&fold(&shuffled), Some("reviewer"), today);
        assert_eq!(&again[0].2, picked);
        // Nothing etched and nothing recent goes.
        assert!(picked.iter().all(|(_, _, s)| *s < 0.3));
    }
}
