//! `verify`: every memory ref checked against git's object hashes (the whole history present,
//! each record's id the sha256 of its content) and the record rules, each text scanned, and
//! the view compared with its checkout.

use super::view_dir::{View, VIEW_DIR};
use crate::integrity::{scan_text, Verdict};
use crate::model::{self, Record};
use crate::store::{Store, StoreError, NOTES_REF};

/// One finding: where, what, and how bad.
#[derive(Debug)]
pub struct Finding {
    pub verdict: Verdict,
    /// The ref (or view file) it was found in.
    pub refname: String,
    pub record: Option<String>,
    pub kind: Option<&'static str>,
    /// The blob in the ref's tree that holds the record.
    pub path: Option<String>,
    pub rule: String,
    pub detail: String,
    /// The text the rule matched, which may be the very payload the gate withholds: shown
    /// only when asked (`verify --show-text`).
    pub excerpt: Option<String>,
}

/// Everything `verify` found.
#[derive(Debug)]
pub struct Verification {
    pub findings: Vec<Finding>,
    pub refs: usize,
    pub records: usize,
}

impl Verification {
    /// The worst verdict found (CLEAN when nothing was).
    pub fn verdict(&self) -> Verdict {
        self.findings
            .iter()
            .map(|f| f.verdict)
            .max()
            .unwrap_or(Verdict::Clean)
    }
}

/// Checks every memory ref, the notes ref's objects, and the view.
pub fn verify(store: &Store) -> crate::store::Result<Verification> {
    let mut findings = Vec::new();
    let mut records = 0usize;
    let (mut refs, damaged) = store.memory_refs_and_damaged()?;
    for e in &damaged {
        let name = match e {
            StoreError::BadRef { name, .. } => name.as_str(),
            _ => "refs/rune/",
        };
        findings.push(broken(name, e));
    }
    if store.ref_id(NOTES_REF)?.is_some() {
        refs.push(NOTES_REF.into());
    }
    for name in &refs {
        // A tip that cannot be read is one finding: its history cannot be walked either.
        let mut readable = true;
        if name != NOTES_REF {
            // Notes are written by the notes feature; only their objects are checked. Each
            // line is read once, with the blob it is in (linear in the records).
            match store.tip(name).and_then(|tip| match tip {
                Some(t) => store.record_lines(name, t),
                None => Ok(Vec::new()),
            }) {
                Ok(lines) => {
                    for (path, line, r) in lines {
                        records += 1;
                        match r {
                            Ok(r) => check_record(name, Some(path), &r, &mut findings),
                            Err(why) => findings.push(Finding {
                                verdict: Verdict::Tainted,
                                refname: name.clone(),
                                record: None,
                                kind: None,
                                path: Some(path.clone()),
                                rule: "unreadable-record".into(),
                                detail: format!("line {line}: {why}"),
                                excerpt: None,
                            }),
                        }
                    }
                }
                Err(e) => {
                    readable = false;
                    findings.push(broken(name, &e));
                }
            }
        }
        if !readable {
            continue;
        }
        match store.check_history(name) {
            Ok(problems) => findings.extend(problems.iter().map(|p| broken(name, &p.error))),
            Err(e) => findings.push(broken(name, &e)),
        }
    }
    if let Some(view) = View::open(store) {
        for file in view.unsaved() {
            findings.push(Finding {
                verdict: Verdict::Suspicious,
                refname: format!("{VIEW_DIR}/{}", file.name()),
                record: None,
                kind: None,
                path: None,
                rule: "view-modified".into(),
                detail:
                    "changed outside git-rune and not saved (its blob id differs from the checkout)"
                        .into(),
                excerpt: None,
            });
        }
    }
    Ok(Verification {
        findings,
        refs: refs.len(),
        records,
    })
}

fn broken(name: &str, e: &StoreError) -> Finding {
    Finding {
        verdict: Verdict::Tainted,
        refname: name.into(),
        record: None,
        kind: None,
        path: None,
        rule: "unreadable".into(),
        detail: e.to_string(),
        excerpt: None,
    }
}

fn check_record(name: &str, path: Option<String>, r: &Record, out: &mut Vec<Finding>) {
    let mut push_text = |verdict, rule: &str, detail: String, excerpt: Option<String>| {
        out.push(Finding {
            verdict,
            refname: name.into(),
            record: Some(r.id.clone()),
            kind: Some(r.kind().as_str()),
            path: path.clone(),
            rule: rule.into(),
            detail,
            excerpt,
        })
    };
    if r.is_from_newer_version() {
        let what = match &r.body {
            model::Body::Future(f) => match &f.unreadable {
                Some(why) => format!("a {} record this build cannot read ({why})", f.tag),
                None => format!(
                    "a record of kind {:?}, which this build does not know",
                    f.tag
                ),
            },
            _ => "fields this build does not know".to_owned(),
        };
        let detail = format!("from a newer git-rune: {what}; kept as stored and shared as it is");
        push_text(Verdict::Clean, "newer-version", detail, None);
    }
    if !r.id_matches() {
        push_text(
            Verdict::Tainted,
            "id-mismatch",
            "the record's id is not the sha256 of its content: it was changed after it was written"
                .into(),
            None,
        );
    }
    if let Err(e) = model::validate(&r.body) {
        push_text(Verdict::Suspicious, "schema", e.to_string(), None);
    }
    let raw = r.raw_texts().into_iter().map(|t| ("(newer field)", t));
    for (field, text) in r.body.texts().into_iter().chain(raw) {
        for issue in scan_text(&text) {
            let at = text[..issue.offset.min(text.len())].chars().count();
            push_text(
                issue.verdict,
                issue.rule,
                format!("field `{field}` at character {at}"),
                Some(issue.detail),
            );
        }
    }
}
