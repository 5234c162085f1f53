//! Active context compression (the seed's knowledge blocks), pure and deterministic: a role's
//! related entries — sharing an evidence path, or two significant title words — are grouped
//! by topic, and each group of two or more becomes one knowledge block of 3 to 5 lines that
//! keeps every evidence reference. The members are archived (history keeps them); the block
//! lists their uids in `members`.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::echo::{self, ETCHED, INSCRIBED, TRACED};
use crate::model::kinds::Echo;
use crate::model::{Body, Record};
use crate::view::echoes::render_entry;

/// A role's memory longer than this many lines is compressed.
pub const MAX_LINES: usize = 300;

/// One knowledge block to write.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub body: Body,
    /// The entries it compresses (live records, to archive).
    pub members: Vec<Record>,
    /// Estimated tokens (characters / 4) of the members as rendered, and of the block.
    pub tokens_before: usize,
    pub tokens_after: usize,
}

/// Words that say nothing about a topic.
const STOP: [&str; 12] = [
    "with", "from", "that", "this", "into", "when", "have", "should", "their", "there", "about",
    "files",
];

/// The significant words of a title, without its kind word: lowercase, 4 letters or more.
fn words(title: &str) -> BTreeSet<String> {
    let desc = match echo::title_kind(title) {
        Some(kind) => &title[kind.len() + 1..],
        None => title,
    };
    desc.split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| w.len() >= 4 && !STOP.contains(&w.as_str()))
        .collect()
}

/// The file paths evidence names: `` `src/a.py:1-5` `` → `src/a.py`.
fn paths(evidence: &str) -> BTreeSet<String> {
    evidence
        .split('`')
        .skip(1)
        .step_by(2)
        .filter_map(|p| p.split(':').next())
        .map(|p| p.trim().to_owned())
        .filter(|p| !p.is_empty())
        .collect()
}

fn tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}

fn first_sentence(text: &str) -> &str {
    let t = text.lines().next().unwrap_or("");
    match t.find(". ") {
        Some(i) => &t[..=i],
        None => t,
    }
}

/// The knowledge blocks for `role`'s active entries (etched ones and existing blocks are left
/// as they are), by topic; `today` dates them.
pub fn plan(echoes: &[Record], role: &str, today: &str) -> Vec<Block> {
    let mut entries: Vec<&Record> = echoes
        .iter()
        .filter(|r| {
            Echo::of(&r.body).is_some_and(|e| {
                e.role == role && e.layer != ETCHED && !e.archived && e.members.is_empty()
            })
        })
        .collect();
    entries.sort_by(|a, b| super::uid_of(a).cmp(super::uid_of(b)));
    let n = entries.len();
    let feats: Vec<(BTreeSet<String>, BTreeSet<String>)> = entries
        .iter()
        .map(|r| {
            Echo::of(&r.body)
                .map_or_else(Default::default, |e| (words(&e.title), paths(&e.evidence)))
        })
        .collect();
    // "Related": a shared evidence path or two shared title words.
    crate::rank::groups(n, |i, j| {
        !feats[i].1.is_disjoint(&feats[j].1) || feats[i].0.intersection(&feats[j].0).count() >= 2
    })
    .into_iter()
    .filter(|g| g.len() >= 2)
    .map(|g| block(role, today, g.iter().map(|&i| entries[i]).collect()))
    .collect()
}

fn block(role: &str, today: &str, mut members: Vec<&Record>) -> Block {
    // Most confident first, then newest verified, then uid: the order the summary follows.
    let confidence = |r: &Record| Echo::of(&r.body).map_or(0.0, |e| e.confidence);
    members.sort_by(|a, b| {
        confidence(b)
            .total_cmp(&confidence(a))
            .then_with(|| super::ties(a, b))
    });
    let mut topic_words: BTreeMap<String, usize> = BTreeMap::new();
    let mut evidence: Vec<String> = Vec::new();
    let mut descs = Vec::new();
    let mut sentences = Vec::new();
    let (mut conf, mut verified, mut any_inscribed) = (0.0f64, String::new(), false);
    for r in &members {
        if let Some(e) = Echo::of(&r.body) {
            for w in words(&e.title) {
                *topic_words.entry(w).or_default() += 1;
            }
            if !e.evidence.is_empty() && !evidence.contains(&e.evidence) {
                evidence.push(e.evidence.clone());
            }
            descs.push(match echo::title_kind(&e.title) {
                Some(k) => e.title[k.len() + 1..].trim().to_owned(),
                None => e.title.clone(),
            });
            sentences.push(first_sentence(&e.text).to_owned());
            conf = conf.max(e.confidence);
            if e.verified > verified {
                verified = e.verified.clone();
            }
            any_inscribed |= e.layer == INSCRIBED;
        }
    }
    let mut top: Vec<(String, usize)> = topic_words.into_iter().collect();
    top.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let topic: Vec<String> = top.into_iter().take(3).map(|(w, _)| w).collect();
    let topic = if topic.is_empty() {
        "related entries".to_owned()
    } else {
        topic.join(" ")
    };
    let title = format!("Knowledge: {topic}");
    let mut lines = vec![format!(
        "{} entries on {topic}: {}.",
        members.len(),
        descs.join("; ")
    )];
    lines.extend(sentences.into_iter().filter(|s| !s.is_empty()).take(3));
    let evidence_line = evidence.join("; ");
    let mut uids: Vec<String> = members
        .iter()
        .map(|r| super::uid_of(r).to_owned())
        .collect();
    uids.sort();
    let body = Body::Echo(Echo {
        uid: echo::uid_for(role, &title, &uids.join(",")),
        role: role.to_owned(),
        layer: if any_inscribed { INSCRIBED } else { TRACED }.to_owned(),
        date: today.to_owned(),
        title,
        source: "rune:compress".to_owned(),
        confidence: conf,
        evidence: evidence_line,
        verified: if verified.is_empty() {
            today.to_owned()
        } else {
            verified
        },
        supersedes_title: String::new(),
        text: lines.join("\n"),
        archived: false,
        members: uids,
        extra: Vec::new(),
    });
    let tokens_before = members.iter().map(|r| tokens(&render_entry(&r.body))).sum();
    let tokens_after = tokens(&render_entry(&body));
    Block {
        body,
        members: members.into_iter().cloned().collect(),
        tokens_before,
        tokens_after,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testing::meta;

    fn entry(clock: u64, title: &str, evidence: &str, text: &str) -> Record {
        let body = Body::Echo(Echo {
            uid: echo::uid_for("reviewer", title, evidence),
            role: "reviewer".into(),
            layer: "inscribed".into(),
            date: "2026-02-01".into(),
            title: title.into(),
            source: "rune:review".into(),
            confidence: 0.5 + clock as f64 / 100.0,
            evidence: evidence.into(),
            verified: "2026-02-01".into(),
            supersedes_title: String::new(),
            text: text.into(),
            archived: false,
            members: vec![],
            extra: vec![],
        });
        crate::model::validate(&body).unwrap();
        Record::new(meta(clock, &[]), body)
    }

    #[test]
    fn groups_by_shared_paths_and_title_words_keeping_every_evidence_reference() {
        let all = vec![
            entry(
                1,
                "Pattern: N+1 queries in user service",
                "`app/users.rb:10` — per-user posts",
                "Eager-load posts. It helps.",
            ),
            entry(
                2,
                "Pattern: Missing index on users",
                "`app/users.rb:40` — scan",
                "Add an index.",
            ),
            entry(
                3,
                "Gotcha: Slow query planner cache",
                "`db/plan.rs:1`",
                "Warm the cache.",
            ),
            entry(
                4,
                "Observation: Query planner cache misses",
                "`db/cache.rs:2`",
                "Misses at startup.",
            ),
            entry(5, "Pattern: Unused imports", "`src/x.py:1`", "Flag them."),
        ];
        let blocks = plan(&all, "reviewer", "2026-03-01");
        assert_eq!(blocks.len(), 2, "{blocks:#?}");
        for b in &blocks {
            let Body::Echo(Echo {
                evidence,
                text,
                members,
                ..
            }) = &b.body
            else {
                panic!()
            };
            crate::model::validate(&b.body).unwrap();
            for m in &b.members {
                let Body::Echo(Echo { evidence: e, .. }) = &m.body else {
                    panic!()
                };
                assert!(evidence.contains(e.as_str()), "{evidence} lacks {e}");
            }
            let n = text.lines().count();
            assert!((3..=5).contains(&n), "{text}");
            assert_eq!(members.len(), b.members.len());
            assert!(
                b.tokens_after < b.tokens_before,
                "{} -> {}",
                b.tokens_before,
                b.tokens_after
            );
        }
        // Deterministic, whatever the input order.
        let mut rev = all.clone();
        rev.reverse();
        assert_eq!(plan(&rev, "reviewer", "2026-03-01"), blocks);
    }
}
