//! Instinct promotion to the user-level memory (seed 000's "promotion to global"):
//! `git rune instinct promote` records this project's strong instincts as sightings in the
//! user-level repository (`memory::user`), and promotes those that another project has been
//! seen holding too. Nothing leaves a project unless this command runs; `--dry-run` writes
//! nothing anywhere. The rule is in `plan`.

pub mod plan;

use std::path::PathBuf;

use anyhow::Result;

use crate::error;
use crate::memory::seal::{Sealed, Sealer};
use crate::memory::user::{self, SIGHTINGS_PREFIX};
use crate::memory::Snapshot;
use crate::model::{fold, Body, Draft, Record};
use crate::store::{Store, MEMORY_REF};
use plan::Candidate;

/// What the command asks.
#[derive(Debug, Default, Clone)]
pub struct Options {
    /// Promote this instinct (by its name here).
    pub name: Option<String>,
    /// Promote every candidate.
    pub all: bool,
    /// Write nothing: not the sightings, not the promotions.
    pub dry_run: bool,
}

/// What a run found and did.
#[derive(Debug, Default)]
pub struct Promotion {
    /// The user-level repository.
    pub repo: PathBuf,
    pub dry_run: bool,
    /// This project's instincts at confidence ≥ 0.8.
    pub qualifying: usize,
    /// Sightings recorded by this run (already recorded ones are not again).
    pub sighted: usize,
    /// Other projects with sightings.
    pub other_projects: usize,
    /// Instincts offered (not yet promoted), this project's record of each.
    pub candidates: Vec<Candidate>,
    /// Names promoted by this run (or that would be, when dry).
    pub promoted: Vec<String>,
}

/// Records sightings and promotes what `opts` names (nothing, when it names nothing: then the
/// candidates are only listed).
pub fn promote(store: &Store, sealer: &mut Sealer, opts: &Options) -> Result<Promotion> {
    let project = store.root_commit().ok_or_else(|| {
        error::input(
            "this repository has no commits yet",
            "a project is known by its first commit: commit something, then run `git rune instinct promote`",
        )
    })?;
    let repo = user::repo_path().ok_or_else(|| {
        error::environment(
            "cannot find a data directory for the user-level memory",
            format!("set {} (or XDG_DATA_HOME, or HOME)", user::DATA_DIR_ENV),
        )
    })?;
    let state = Snapshot::read(store)?.state;
    // A TAINTED instinct is neither sighted nor offered: the user-level memory reaches every
    // project's briefing, and this project's gate withholds it anyway.
    let mine: Vec<&Record> = plan::qualifying(&state.instincts)
        .into_iter()
        .filter(|r| !crate::integrity::gate::withheld(r))
        .collect();
    let sealed_mine: Vec<Sealed> = mine
        .iter()
        .map(|r| seal(sealer, r.body.clone()))
        .collect::<Result<_>>()?;
    let user = user::open(!opts.dry_run)?;
    let mut out = Promotion {
        repo,
        dry_run: opts.dry_run,
        qualifying: mine.len(),
        ..Promotion::default()
    };
    let Some(user) = user else {
        // Dry, and no user-level memory yet: nothing sighted anywhere else.
        out.sighted = mine.len();
        return select(out, opts);
    };
    let own_ref = format!("{SIGHTINGS_PREFIX}{project}");
    // This project's sightings: its qualifying instincts not recorded with this content yet.
    let (_, recorded) = user.records(&own_ref)?;
    let fresh = unrecorded(&sealed_mine, &recorded);
    out.sighted = fresh.len();
    if !opts.dry_run && !fresh.is_empty() {
        user.commit(
            &own_ref,
            &format!("sightings: {} instincts of project {project}", fresh.len()),
            |current| Ok::<_, anyhow::Error>(unrecorded(&fresh, current)),
        )?;
    }
    let mut others = Vec::new();
    for name in user.memory_refs()? {
        if !name.starts_with(SIGHTINGS_PREFIX) || name == own_ref {
            continue;
        }
        let (_, records) = user.records(&name)?;
        others.push(fold(records.iter()).instincts);
    }
    out.other_projects = others.len();
    let (_, global) = user.records(MEMORY_REF)?;
    let promoted = fold(global.iter()).instincts;
    out.candidates = plan::candidates(&mine, &others, &promoted);
    let out = select(out, opts)?;
    if opts.dry_run || out.promoted.is_empty() {
        return Ok(out);
    }
    let chosen: Vec<&Candidate> = out
        .candidates
        .iter()
        .filter(|c| out.promoted.contains(&c.record.body.title().to_owned()))
        .collect();
    let drafts: Vec<Sealed> = chosen
        .iter()
        .map(|c| seal(sealer, global_body(c)))
        .collect::<Result<_>>()?;
    user.commit(
        MEMORY_REF,
        &format!("promote: {}", out.promoted.join(", ")),
        |current| {
            // Another run may have promoted some meanwhile.
            let held: Vec<String> = fold(current.iter())
                .instincts
                .iter()
                .filter_map(|r| plan::key(&r.body))
                .collect();
            Ok::<_, anyhow::Error>(
                drafts
                    .iter()
                    .filter(|d| plan::key(d.body()).is_none_or(|k| !held.contains(&k)))
                    .cloned()
                    .collect(),
            )
        },
    )?;
    Ok(out)
}

/// The sightings of `sealed` whose content no record of `recorded` holds.
fn unrecorded(sealed: &[Sealed], recorded: &[Record]) -> Vec<Sealed> {
    use crate::view::visible;
    sealed
        .iter()
        .filter(|s| {
            !recorded
                .iter()
                .any(|r| visible(&r.body) == visible(s.body()))
        })
        .cloned()
        .collect()
}

/// Picks what `opts` asks to promote among the candidates.
fn select(mut out: Promotion, opts: &Options) -> Result<Promotion> {
    if opts.all {
        out.promoted = out
            .candidates
            .iter()
            .map(|c| c.record.body.title().to_owned())
            .collect();
    } else if let Some(name) = &opts.name {
        let found = out
            .candidates
            .iter()
            .find(|c| c.record.body.title().eq_ignore_ascii_case(name.trim()));
        match found {
            Some(c) => out.promoted = vec![c.record.body.title().to_owned()],
            None => {
                return Err(error::input(
                    format!("{name:?} is not offered for the user-level memory"),
                    format!(
                        "an instinct is offered once another project holds the same trigger and action at confidence {} or more (and it is not promoted already); `git rune instinct promote` lists the candidates",
                        plan::MIN_CONFIDENCE
                    ),
                ))
            }
        }
    }
    Ok(out)
}

/// The instinct as the user-level memory keeps it: the highest confidence seen, tagged as the
/// seed tags promoted instincts.
fn global_body(c: &Candidate) -> Body {
    let mut body = c.record.body.clone();
    if let Body::Instinct(i) = &mut body {
        i.confidence = c.confidence;
        i.evidence = format!(
            "[cross-project, instinct] seen in {} projects. {}",
            c.projects, i.evidence
        );
        i.extra.clear();
    }
    body
}

fn seal(sealer: &mut Sealer, body: Body) -> Result<Sealed> {
    let title = body.title().to_owned();
    Ok(sealer.seal(Draft::new(body), &|field, _| {
        format!("instinct {title:?} (field `{field}`)")
    })?)
}
