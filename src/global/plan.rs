//! Which instincts are offered for the user-level memory (seed 000's promotion to global): an
//! instinct with the same trigger and action at confidence ≥ 0.8 in 2+ projects. Pure.

use crate::model::kinds::Instinct;
use crate::model::{Body, Record};

/// The lowest confidence an instinct is sighted or promoted at.
pub const MIN_CONFIDENCE: f64 = 0.8;
/// How many projects must hold an instinct before it is offered.
pub const MIN_PROJECTS: usize = 2;

/// What makes two instincts the same: their trigger and action, compared by words (case,
/// spacing and punctuation do not matter; names may differ between projects).
pub fn key(body: &Body) -> Option<String> {
    let Body::Instinct(Instinct {
        trigger, action, ..
    }) = body
    else {
        return None;
    };
    let words = |s: &str| -> String {
        s.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect::<Vec<_>>()
            .join(" ")
    };
    Some(format!("{}\u{0}{}", words(trigger), words(action)))
}

/// An instinct's confidence (0 for other records).
pub fn confidence(r: &Record) -> f64 {
    match &r.body {
        Body::Instinct(Instinct { confidence, .. }) => *confidence,
        _ => 0.0,
    }
}

/// The instincts strong enough to be sighted: confidence ≥ [`MIN_CONFIDENCE`].
pub fn qualifying(instincts: &[Record]) -> Vec<&Record> {
    instincts
        .iter()
        .filter(|r| confidence(r) >= MIN_CONFIDENCE && key(&r.body).is_some())
        .collect()
}

/// One instinct offered for the user-level memory.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// This project's instinct.
    pub record: Record,
    /// How many projects hold it (this one included).
    pub projects: usize,
    /// The highest confidence any of them gives it.
    pub confidence: f64,
}

/// This project's qualifying instincts (`mine`) that other projects' sightings (`others`: one
/// list of qualifying instincts per project) make [`MIN_PROJECTS`] projects or more, leaving out
/// those the user-level memory holds already (`promoted`). In `mine`'s order.
pub fn candidates(mine: &[&Record], others: &[Vec<Record>], promoted: &[Record]) -> Vec<Candidate> {
    let held: Vec<String> = promoted.iter().filter_map(|r| key(&r.body)).collect();
    let mut out = Vec::new();
    for r in mine {
        let Some(k) = key(&r.body) else { continue };
        if held.contains(&k) {
            continue;
        }
        let mut projects = 1;
        let mut best = confidence(r);
        for list in others {
            let same: Vec<&Record> = list
                .iter()
                .filter(|o| confidence(o) >= MIN_CONFIDENCE && key(&o.body).as_ref() == Some(&k))
                .collect();
            if !same.is_empty() {
                projects += 1;
                best = same.iter().map(|o| confidence(o)).fold(best, f64::max);
            }
        }
        if projects >= MIN_PROJECTS {
            out.push(Candidate {
                record: (*r).clone(),
                projects,
                confidence: best,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testing::record_at;

    fn instinct(name: &str, trigger: &str, action: &str, confidence: f64) -> Record {
        record_at(
            "2026-04-04T10:00:00Z",
            Body::Instinct(Instinct {
                name: name.into(),
                trigger: trigger.into(),
                action: action.into(),
                confidence,
                evidence: "seen".into(),
                extra: Vec::new(),
            }),
        )
    }

    #[test]
    fn offered_when_two_projects_hold_it_strongly() {
        let a = instinct("pnpm", "Installing packages", "Use pnpm, not npm.", 0.85);
        let weak = instinct("tabs", "Formatting", "Use tabs", 0.6);
        let lone = instinct("lone", "Only here", "Only here", 0.9);
        let mine = qualifying(std::slice::from_ref(&a))
            .into_iter()
            .chain(qualifying(std::slice::from_ref(&weak)))
            .chain(qualifying(std::slice::from_ref(&lone)))
            .collect::<Vec<_>>();
        assert_eq!(mine.len(), 2, "the weak one is not sighted");
        // Another name, other case and punctuation: the same instinct.
        let other = vec![
            instinct("use-pnpm", "installing  packages", "use pnpm not npm", 0.95),
            instinct("tabs", "Formatting", "Use tabs", 0.9),
        ];
        let got = candidates(&mine, std::slice::from_ref(&other), &[]);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].record, a);
        assert_eq!((got[0].projects, got[0].confidence), (2, 0.95));
        // Weak elsewhere does not count; promoted already is not offered again.
        let weak_there = vec![instinct(
            "p",
            "Installing packages",
            "Use pnpm, not npm",
            0.7,
        )];
        assert!(candidates(&mine, &[weak_there], &[]).is_empty());
        assert!(candidates(&mine, &[other], std::slice::from_ref(&a)).is_empty());
    }
}
