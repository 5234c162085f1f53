//! The `sp.json` bridge as use cases: importing the seed's session-protocol file into tasks and
//! context blocks (renumbering clashes, the WF2 drift check) and exporting memory back to it.
//! The file format itself is `sp_json.rs`.

use anyhow::Result;

use super::*;

/// What an import brought in.
#[derive(Debug)]
pub struct Imported {
    pub tasks: usize,
    pub blocks: usize,
    /// Imported tasks whose number another task held: (the file's id, the id given).
    pub renumbered: Vec<(String, String)>,
    pub written: Option<Written>,
    pub summary: Summary,
    /// How the code moved since the file was saved (the seed's WF2: its metadata's
    /// `git_branch` and `git_commit` against HEAD), one warning per line.
    pub drift: Vec<String>,
}

/// The seed's WF2 check: the file's saved branch and commit against HEAD now.
fn sp_drift(store: &Store, branch: Option<&str>, commit: Option<&str>) -> Result<Vec<String>> {
    let head = store.head_info()?;
    let mut out = Vec::new();
    if let Some(saved) = commit {
        let now = head.head.map(|h| h.to_string());
        let same = now
            .as_deref()
            .is_some_and(|n| n.starts_with(&saved.to_lowercase()) && saved.len() >= 4);
        if !same {
            out.push(format!(
                "Git state changed: the file was saved at {}, HEAD is {}",
                crate::text::short(saved),
                now.as_deref()
                    .map(crate::text::short)
                    .unwrap_or("(no commits)")
            ));
        }
    }
    if let (Some(saved), Some(now)) = (branch, head.branch.as_deref()) {
        if saved != now {
            out.push(format!("Branch: {saved} → {now}"));
        }
    }
    Ok(out)
}

/// Brings an `sp.json` in: each task keeps its number unless another task with another title
/// holds it (then it takes the next, its id kept as an alias); a task with the same number
/// and title is updated; a context block with the same title is replaced. Nothing is written
/// when the file cannot be read. `shown` is the file as the user named it (messages say it);
/// the memory commit names its file name alone.
pub fn import_sp_json(
    store: &Store,
    sealer: &mut Sealer,
    text: &str,
    shown: &str,
) -> Result<Imported> {
    let mut file = sp_json::parse(text, &store.now()).map_err(|e| {
        error::input(
            e.to_string(),
            match &e {
                sp_json::SpError::InvalidJson(why) => {
                    format!("{shown} is not JSON ({why}); nothing was imported")
                }
                sp_json::SpError::MissingMetadata => format!(
                    "{shown} has no \"metadata\" object (the seed's sp.json has one); nothing was imported"
                ),
                sp_json::SpError::Invalid(_) => format!("fix {shown}; nothing was imported"),
            },
        )
    })?;
    // An exported file marks SUSPICIOUS titles: the marks are not what the task says.
    (file.tasks.iter_mut())
        .chain(&mut file.blocks)
        .for_each(crate::view::unmark_body);
    let drift = sp_drift(
        store,
        file.git_branch.as_deref(),
        file.git_commit.as_deref(),
    )?;
    let salt = task::salt();
    let mut renumbered = Vec::new();
    let file_name = std::path::Path::new(shown)
        .file_name()
        .map_or_else(|| shown.to_owned(), |n| n.to_string_lossy().into_owned());
    let message = format!("import {file_name}");
    let written = write_records(store, Scope::Branch, &message, |state| {
        let now = store.now();
        renumbered.clear();
        let mut next = task::next_number(state)
            .max(file.tasks.iter().map(Body::task_num).max().unwrap_or(0) + 1);
        let mut out = pins(sealer, state, &now, &[])?;
        for t in &file.tasks {
            let mut body = t.clone();
            let num = body.task_num();
            let holder = state.tasks.iter().find(|r| r.body.task_num() == num);
            let mut supersedes = Vec::new();
            match holder {
                Some(r) if r.body.title() == body.title() => {
                    if let (Body::Task(t), Body::Task(old)) = (&mut body, &r.body) {
                        t.uid.clone_from(&old.uid);
                        t.claimed.clone_from(&old.claimed);
                    }
                    supersedes.push(r.id.clone());
                }
                Some(_) => {
                    if let Body::Task(Task { num, aliases, .. }) = &mut body {
                        aliases.push(task_id(*num));
                        *num = 0;
                    }
                }
                None => {}
            }
            task::complete(&mut body, &mut next, &now, &salt);
            if holder.is_some() && supersedes.is_empty() {
                renumbered.push((task_id(num), task_id(body.task_num())));
            }
            if holder.is_some_and(|r| !supersedes.is_empty() && r.body == body) {
                continue;
            }
            out.push(seal(sealer, Draft::superseding(body, supersedes), shown)?);
        }
        for b in &file.blocks {
            let old = block(state, b.title());
            if old.is_some_and(|r| r.body == *b) {
                continue;
            }
            out.push(seal(
                sealer,
                Draft::superseding(
                    b.clone(),
                    old.map(|r| vec![r.id.clone()]).unwrap_or_default(),
                ),
                shown,
            )?);
        }
        Ok::<_, anyhow::Error>(out)
    })?;
    let snap = Snapshot::read(store)?;
    Ok(Imported {
        tasks: file.tasks.len(),
        blocks: file.blocks.len(),
        renumbered,
        written,
        summary: summary(&snap.state.tasks),
        drift,
    })
}

/// The branch's tasks and context blocks as the seed's `sp.json` (one line, no newline),
/// through the integrity gate: a task or block it withholds is left out of the file (an
/// import of the file then leaves it as it is in memory), a SUSPICIOUS one is marked.
pub fn export_sp_json(store: &Store) -> Result<String> {
    let mut snap = Snapshot::read(store)?;
    // SUSPICIOUS tasks and blocks marked, as `task list` prints them.
    let verdicts = crate::memory::cache::gate::verdicts(store, &snap)?;
    verdicts.mark(&mut snap.state, true);
    let withheld = verdicts.withheld;
    let shown = |records: &[Record]| -> Vec<Record> {
        records
            .iter()
            .filter(|r| !withheld.contains(&r.id))
            .cloned()
            .collect()
    };
    let place = sp_json::Place {
        branch: snap.head.branch.clone(),
        commit: snap.head.head.map(|h| h.to_string()),
        work_tree: store.workdir().map(|w| w.to_string_lossy().into_owned()),
        home: std::env::var("HOME").ok().filter(|h| !h.is_empty()),
        now: store.now(),
    };
    Ok(sp_json::render(
        &shown(&snap.state.tasks),
        &shown(&snap.state.context_blocks),
        &place,
    ))
}
