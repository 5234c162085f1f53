//! The Remembrance use cases: promoting an etched echo to `docs/solutions/`, listing the
//! documents, and finding the stale `echo_ref`s `verify` reports. The rules and the format
//! are in `remembrance`.

use anyhow::Result;

use super::{dir, find, remembrance, today, EchoDir, Scorer};
use crate::error;
use crate::memory::Snapshot;
use crate::model::kinds::Echo;
use crate::store::Store;

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
        return Err(error::environment(
            "Remembrance documents are files of a work tree; this repository has none",
            "run the command in a clone with a work tree",
        ));
    };
    let snap = Snapshot::read(store)?;
    let r = find(&snap.state, id)?;
    // A Remembrance document carries the entry's text out of memory, into a file anyone reads:
    // never the text of one the integrity gate withholds.
    if crate::memory::cache::gate::withheld(store, &snap)?.contains(&r.id) {
        return Err(error::input(
            crate::integrity::gate::placeholder(r),
            "a withheld entry is not written into docs/solutions/; reword it and save, then promote it",
        ));
    }
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
        return Err(error::input(
            format!("{} already exists", doc.path),
            "edit that document, or change the entry's title",
        ));
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| {
            anyhow::Error::new(e).context(format!("cannot create {}", parent.display()))
        })?;
    }
    let learning = Echo::of(&r.body).map_or("", |e| e.text.as_str());
    crate::files::write_atomic(&path, remembrance::render(&doc, learning).as_bytes())
        .map_err(|e| anyhow::Error::new(e).context(format!("cannot write {}", doc.path)))?;
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
