//! Records for unit tests: a clock gives both the Lamport clock and a timestamp that grows
//! with it (one second per tick from 2026-01-01T00:00:00Z).

use super::record::{Body, LearningType, Meta, Record};
use crate::model::kinds::{Decision, Echo, Learning};

pub fn meta(clock: u64, supersedes: &[&str]) -> Meta {
    Meta {
        ts: format!(
            "2026-01-01T{:02}:{:02}:{:02}Z",
            clock / 3600 % 24,
            clock / 60 % 60,
            clock % 60
        ),
        clock,
        author: "t <t@t>".into(),
        supersedes: supersedes.iter().map(|s| s.to_string()).collect(),
    }
}

pub fn learning(clock: u64, key: &str, insight: &str) -> Record {
    Record::new(
        meta(clock, &[]),
        Body::Learning(Learning {
            skill: String::new(),
            ltype: LearningType::Insight,
            key: key.into(),
            insight: insight.into(),
            confidence: 0.5,
            files: vec![],
            file_blobs: Default::default(),
            extra: Vec::new(),
        }),
    )
}

pub fn decision(clock: u64, title: &str, supersedes: &[&str]) -> Record {
    Record::new(
        meta(clock, supersedes),
        Body::Decision(Decision {
            title: title.into(),
            context: "c".into(),
            decision: "d".into(),
            rationale: "r".into(),
            impact: "i".into(),
            files: vec![],
            file_blobs: Default::default(),
            extra: Vec::new(),
        }),
    )
}

/// A record of `body` written at `ts` (RFC 3339), clock 1.
pub fn record_at(ts: &str, body: Body) -> Record {
    let mut m = meta(1, &[]);
    m.ts = ts.to_owned();
    Record::new(m, body)
}

/// An echo of `role` at `clock` (its uid from the title and evidence), verified on `verified`.
pub fn echo(clock: u64, role: &str, title: &str, verified: &str, confidence: f64) -> Record {
    Record::new(
        meta(clock, &[]),
        echo_body(role, title, verified, confidence),
    )
}

/// The body of [`echo`]: inscribed, evidence `src/a.rs:1`, dated when verified.
pub fn echo_body(role: &str, title: &str, verified: &str, confidence: f64) -> Body {
    let evidence = "`src/a.rs:1` — seen".to_owned();
    Body::Echo(Echo {
        uid: super::echo::uid_for(role, title, &evidence),
        role: role.into(),
        layer: "inscribed".into(),
        date: verified.into(),
        title: title.into(),
        source: "manual".into(),
        confidence,
        evidence,
        verified: verified.into(),
        supersedes_title: String::new(),
        text: "A learning.".into(),
        archived: false,
        members: Vec::new(),
        extra: Vec::new(),
    })
}
