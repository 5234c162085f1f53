//! The `echo` record kind (seed 002's role memories): an entry of a role's `MEMORY.md`, and
//! the vocabulary — layers and their weights and ages, what a role name and a title may be,
//! the identity two clones agree on without talking (`uid`), the seed's e-mail-in-evidence
//! rule, and which of two versions of one entry the fold keeps. Pure.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use super::skip::{is_empty_str, is_empty_vec, is_false};
use super::KindRules;
use crate::model::fields::{extras, Field, Shape};
use crate::model::State;
use crate::model::meta::{Extra};
use super::Record;
use crate::model::validate::{confidence_in, ensure, invalid, require};
use crate::model::{Body, ValidationError};

/// An echo (seed 002): one entry of a role's memory (`.claude/echoes/<role>/MEMORY.md`).
/// Edits, archiving and restoring are new versions superseding the previous one; every
/// version of one entry shares its `uid`, and the fold keeps one per uid (docs/storage.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Echo {
    /// The entry's identity across versions: [`super::echo::uid_for`] when created.
    pub uid: String,
    /// `planner`, `workers`, `reviewer`, `auditor`, `team`, or any role name.
    pub role: String,
    /// `etched`, `inscribed` or `traced`.
    pub layer: String,
    /// The date in the entry's heading (`YYYY-MM-DD`).
    pub date: String,
    /// Usually with its kind word (`Pattern: Unused imports in new files`, the seed's form);
    /// the Rune Echoes plugin's titles have none.
    pub title: String,
    /// `manual`, `rune:review PR #42`, …
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub source: String,
    pub confidence: f64,
    /// `` `file:lines` — what was found ``; empty when stripped or not given.
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub evidence: String,
    /// When it was last confirmed (`YYYY-MM-DD`).
    pub verified: String,
    /// The title of the entry it replaces (the seed's `supersedes`); empty for `none`.
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub supersedes_title: String,
    /// The learning, in 1 to 3 sentences.
    pub text: String,
    /// Moved to the role's archive: kept, shown with `--archived`, never loaded.
    #[serde(default, skip_serializing_if = "is_false")]
    pub archived: bool,
    /// A knowledge block (`knowledge.md`): the uids of the entries it compresses.
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub members: Vec<String>,
    /// What the view kept that the fields above do not hold (see [`Extra`]).
    #[serde(default, skip_serializing_if = "is_empty_vec")]
    pub extra: Vec<Extra>,
}

impl Echo {
    /// The echo a body is, if it is one.
    pub fn of(body: &Body) -> Option<&Echo> {
        match body {
            Body::Echo(e) => Some(e),
            _ => None,
        }
    }

    /// [`Echo::of`], to change it.
    pub fn of_mut(body: &mut Body) -> Option<&mut Echo> {
        match body {
            Body::Echo(e) => Some(e),
            _ => None,
        }
    }
}

/// The uid of an echo body (empty for other kinds).
pub fn uid(body: &Body) -> &str {
    Echo::of(body).map_or("", |e| &e.uid)
}

impl KindRules for Echo {
    field_rules!(title: title, extra);

    fn fields_mut(&mut self, f: &mut dyn FnMut(&'static str, Shape, Field<'_>)) {
        use Shape::Line;
        f("role", Line, Field::One(&mut self.role));
        f("layer", Line, Field::One(&mut self.layer));
        f("date", Line, Field::One(&mut self.date));
        f("title", Line, Field::One(&mut self.title));
        f("source", Line, Field::One(&mut self.source));
        f("evidence", Line, Field::One(&mut self.evidence));
        f("verified", Line, Field::One(&mut self.verified));
        f("supersedes", Line, Field::One(&mut self.supersedes_title));
        f("text", Shape::Text, Field::One(&mut self.text));
        f("members", Shape::Items, Field::Many(&mut self.members));
        extras(&mut self.extra, Line, f);
    }

    fn validate(&self) -> Result<(), ValidationError> {
        let e = self;
        let hex = |s: &str| {
            s.len() == UID_LEN
                && s.bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        };
        ensure(hex(&e.uid), "uid", || {
            format!("{:?} is not {UID_LEN} lowercase hex digits", e.uid)
        })?;
        ensure(valid_role(&e.role), "role", || {
            format!(
                "{:?}: use lowercase letters, digits, - and _ (planner, workers, \
                 reviewer, auditor, team, or your own)",
                e.role
            )
        })?;
        ensure(LAYERS.contains(&e.layer.as_str()), "layer", || {
            format!("{:?}: use one of {}", e.layer, LAYERS.join(", "))
        })?;
        let date = |field: &'static str, d: &str| {
            ensure(valid_date(d), field, || {
                format!("{d:?} is not a date like 2026-02-11")
            })
        };
        date("date", &e.date)?;
        // The seed writes a kind word (`Pattern: …`); the Rune Echoes plugin's titles have
        // none. Either is a title.
        require("title", &e.title)?;
        confidence_in("confidence", e.confidence, 0.0, 1.0)?;
        date("verified", &e.verified)?;
        require("text", &e.text)?;
        if has_email(&e.evidence) && !about_email(&e.title, &e.text) {
            return Err(invalid(
                "evidence",
                "holds an e-mail address and the learning is not about e-mail handling",
            ));
        }
        if let Some(m) = e.members.iter().find(|m| !hex(m)) {
            return Err(invalid("members", format!("{m:?} is not an echo uid")));
        }
        Ok(())
    }

    /// Every field, empty optional ones as `null`.
    fn json(&self, full: bool, out: &mut Map<String, Value>) {
        super::stored_json(self, full, out);
        let or_null = |s: &str| if s.is_empty() { Value::Null } else { json!(s) };
        out.insert("source".into(), or_null(&self.source));
        out.insert("evidence".into(), or_null(&self.evidence));
        out.insert("supersedes_title".into(), or_null(&self.supersedes_title));
        out.insert("archived".into(), json!(self.archived));
    }

    /// One version per `uid` (see [`echo_wins`]), archived ones and knowledge blocks included,
    /// by role, heading date, layer, title, then uid.
    fn fold(live: Vec<&Record>, _state: &mut State) -> Vec<Record> {
        let mut winner: HashMap<&str, &Record> = HashMap::new();
        for r in live {
            let Body::Echo(e) = &r.body else {
                continue;
            };
            let slot = winner.entry(&e.uid).or_insert(r);
            if echo_wins(r, slot) {
                *slot = r;
            }
        }
        let mut list: Vec<&Record> = winner.into_values().collect();
        list.sort_by(|a, b| echo_order(a).cmp(&echo_order(b)));
        list.into_iter().cloned().collect()
    }
}

/// The order echoes are listed and rendered in: by role, heading date, layer (etched,
/// inscribed, traced: the seed's own order), title, then uid.
fn echo_order(r: &Record) -> (&str, &str, usize, &str, &str) {
    match &r.body {
        Body::Echo(e) => {
            let rank = LAYERS.iter().position(|l| *l == e.layer).unwrap_or(3);
            (&e.role, &e.date, rank, &e.title, &e.uid)
        }
        _ => ("", "", 0, "", &r.id),
    }
}

pub const ETCHED: &str = "etched";
pub const INSCRIBED: &str = "inscribed";
pub const TRACED: &str = "traced";
/// The Rune Echoes plugin's user-explicit memories (`/rune:echoes remember`): never pruned.
pub const NOTES: &str = "notes";
/// The plugin's agent-observed patterns: pruned 60 days after they were last confirmed.
pub const OBSERVATIONS: &str = "observations";

/// The layers, most permanent first: the seed's three and the plugin's two more.
pub const LAYERS: [&str; 5] = [ETCHED, NOTES, INSCRIBED, OBSERVATIONS, TRACED];

/// The roles the seed names; any other role name is allowed too.
pub const KNOWN_ROLES: [&str; 5] = ["planner", "workers", "reviewer", "auditor", "team"];

/// Length of an echo's `uid` in hex digits.
pub const UID_LEN: usize = 16;

/// The Importance of a layer in the Echo Score (etched 1.0, notes 0.9, inscribed 0.7,
/// observations 0.5, traced 0.3: the seed's and the plugin's weights).
pub fn importance(layer: &str) -> f64 {
    match layer {
        ETCHED => 1.0,
        NOTES => 0.9,
        INSCRIBED => 0.7,
        OBSERVATIONS => 0.5,
        _ => 0.3,
    }
}

/// The max age of a layer in days (`None`: etched and notes never expire).
pub fn max_age_days(layer: &str) -> Option<i64> {
    match layer {
        ETCHED | NOTES => None,
        INSCRIBED => Some(90),
        OBSERVATIONS => Some(60),
        _ => Some(30),
    }
}

/// A role name: it is a directory name, so lowercase letters, digits, `-` and `_`, 1 to 64
/// characters, not starting with `-` or `.`.
pub fn valid_role(role: &str) -> bool {
    !role.is_empty()
        && role.len() <= 64
        && !role.starts_with('-')
        && role
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

/// Whether `date` is a calendar date written `YYYY-MM-DD`.
pub fn valid_date(date: &str) -> bool {
    date.len() == 10 && chrono::NaiveDate::parse_from_str(date, "%Y-%m-%d").is_ok()
}

/// The kind word of a title (`Pattern` in `Pattern: Unused imports`), when it has one: one
/// word of letters before the first `:`, followed by a non-empty description.
pub fn title_kind(title: &str) -> Option<&str> {
    let (word, rest) = title.split_once(':')?;
    let ok = !word.is_empty()
        && word.chars().all(|c| c.is_alphabetic() || c == '-')
        && !rest.trim().is_empty();
    ok.then_some(word)
}

/// Text compared for identity: lowercase, runs of whitespace as one space, trimmed.
pub fn norm(s: &str) -> String {
    s.split_whitespace()
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Where evidence points, which is what makes two findings one (the seed's duplicate rule:
/// same pattern and evidence): the `` `file:lines` `` it quotes, else the text before the
/// description (` — …`), else all of it; compared without case and spacing. The description
/// after the location may differ between two findings of one entry.
pub fn evidence_location(evidence: &str) -> String {
    let quoted = evidence.split('`').nth(1).filter(|q| !q.trim().is_empty());
    let place = match quoted {
        Some(q) if evidence.matches('`').count() >= 2 => q,
        _ => [" — ", " – ", " - "]
            .iter()
            .find_map(|sep| evidence.split_once(sep).map(|(l, _)| l))
            .unwrap_or(evidence),
    };
    norm(place)
}

/// The identity of an entry: 16 hex digits of the sha256 of its role, title (the pattern)
/// and where its evidence points ([`evidence_location`]), compared without case and spacing.
/// Two clones (or two agents) recording the same pattern on the same evidence make the same
/// entry, which the fold then merges (the seed's duplicate rule); an edit keeps the uid it was
/// created with. (Entries created before 0.x hashed the whole evidence: they are matched by
/// [`same_entry`] too.)
pub fn uid_for(role: &str, title: &str, evidence: &str) -> String {
    let mut h = Sha256::new();
    for part in [role, &norm(title), &evidence_location(evidence)] {
        h.update(part.as_bytes());
        h.update([0]);
    }
    h.finalize()
        .iter()
        .take(UID_LEN / 2)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Whether two entries (role, title, evidence) are duplicates in the seed's sense: same
/// role, same pattern, evidence pointing at the same place.
pub fn same_entry(a: (&str, &str, &str), b: (&str, &str, &str)) -> bool {
    a.0 == b.0 && norm(a.1) == norm(b.1) && evidence_location(a.2) == evidence_location(b.2)
}

/// Whether `s` holds an e-mail address (`local@domain.tld`).
pub fn has_email(s: &str) -> bool {
    let b = s.as_bytes();
    let local = |c: u8| c.is_ascii_alphanumeric() || b"._%+-".contains(&c);
    let domain = |c: u8| c.is_ascii_alphanumeric() || c == b'-' || c == b'.';
    b.iter().enumerate().any(|(i, &c)| {
        if c != b'@' || i == 0 || !local(b[i - 1]) {
            return false;
        }
        let end = b[i + 1..]
            .iter()
            .position(|&c| !domain(c))
            .map_or(b.len(), |p| i + 1 + p);
        let host = s[i + 1..end].trim_end_matches('.');
        match host.rsplit_once('.') {
            Some((name, tld)) => {
                !name.is_empty() && tld.len() >= 2 && tld.bytes().all(|c| c.is_ascii_alphabetic())
            }
            None => false,
        }
    })
}

/// Whether the learning is about e-mail handling (then an address in its evidence is the
/// subject, and the seed keeps it).
pub fn about_email(title: &str, text: &str) -> bool {
    let t = format!("{title} {text}").to_lowercase();
    t.contains("email") || t.contains("e-mail")
}

/// The seed's rule for sensitive evidence: an e-mail address in the evidence of an entry that
/// is not about e-mail handling strips the evidence and keeps the learning. True when it
/// stripped (the caller says so).
pub fn strip_email_evidence(body: &mut Body) -> bool {
    if let Body::Echo(Echo {
        title,
        evidence,
        text,
        ..
    }) = body
    {
        if has_email(evidence) && !about_email(title, text) {
            evidence.clear();
            return true;
        }
    }
    false
}

/// The confidence as the entry format writes it: at least one decimal (`1.0`, `0.85`).
pub fn format_confidence(c: f64) -> String {
    let s = format!("{c}");
    if s.contains('.') {
        s
    } else {
        format!("{s}.0")
    }
}

/// Whether echo version `a` beats `b` for one `uid` (two clones or two agents changed or
/// re-recorded one entry concurrently): the seed's duplicate rule — the newer `verified`,
/// then the higher confidence — then the higher Lamport clock, then the greater id. Depends
/// only on the two records, so every clone keeps the same one.
pub fn echo_wins(a: &Record, b: &Record) -> bool {
    fn key(r: &Record) -> (&str, f64, u64, &str) {
        match &r.body {
            Body::Echo(Echo {
                verified,
                confidence,
                ..
            }) => (verified, *confidence, r.meta.clock, &r.id),
            _ => ("", 0.0, r.meta.clock, &r.id),
        }
    }
    let (ka, kb) = (key(a), key(b));
    (ka.0, ka.1)
        .partial_cmp(&(kb.0, kb.1))
        .unwrap_or(std::cmp::Ordering::Equal)
        .then_with(|| (ka.2, ka.3).cmp(&(kb.2, kb.3)))
        .is_gt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::kinds::EchoRef;

    #[test]
    fn evidence_points_at_its_location_whatever_the_description() {
        assert_eq!(
            evidence_location("`src/auth.py:1-5` — 3 unused imports found"),
            "src/auth.py:1-5"
        );
        assert_eq!(
            evidence_location("`src/auth.py:1-5` — two of them now"),
            "src/auth.py:1-5"
        );
        assert_eq!(
            evidence_location("CI logs — test suite took 8min"),
            "ci logs"
        );
        assert_eq!(evidence_location("package.json"), "package.json");
        assert_eq!(
            uid_for("reviewer", "Pattern: x", "`a.rs:1` — one"),
            uid_for("reviewer", "pattern:  X", "`a.rs:1` — another description")
        );
        assert_ne!(
            uid_for("reviewer", "Pattern: x", "`a.rs:1`"),
            uid_for("reviewer", "Pattern: x", "`a.rs:2`")
        );
        assert!(same_entry(
            ("r", "P: x", "`a.rs:1` — a"),
            ("r", "p: x", "`a.rs:1` — b")
        ));
    }

    #[test]
    fn roles_titles_and_dates() {
        assert!(valid_role("reviewer"));
        assert!(valid_role("data-team_2"));
        for bad in ["", "Reviewer", "../x", "a/b", "-x", ".x", "a b"] {
            assert!(!valid_role(bad), "{bad}");
        }
        assert_eq!(title_kind("Pattern: Unused imports"), Some("Pattern"));
        assert_eq!(
            title_kind("Architecture: Express + Prisma async"),
            Some("Architecture")
        );
        assert_eq!(title_kind("no kind word"), None);
        assert_eq!(title_kind("Pattern:  "), None);
        assert_eq!(title_kind("Two words: x"), None);
        assert!(valid_date("2026-02-11"));
        assert!(!valid_date("2026-02-30"));
        assert!(!valid_date("2026-2-11"));
    }

    #[test]
    fn uid_ignores_case_and_spacing_but_not_evidence() {
        let a = uid_for(
            "reviewer",
            "Pattern: Unused imports",
            "`src/a.py:1-5` — 3 found",
        );
        let b = uid_for(
            "reviewer",
            "pattern:  unused IMPORTS ",
            "`src/a.py:1-5`  — 3 found",
        );
        assert_eq!(a, b);
        assert_eq!(a.len(), UID_LEN);
        assert_ne!(
            a,
            uid_for("reviewer", "Pattern: Unused imports", "`src/b.py:1`")
        );
        assert_ne!(
            a,
            uid_for(
                "auditor",
                "Pattern: Unused imports",
                "`src/a.py:1-5` — 3 found"
            )
        );
    }

    #[test]
    fn emails_in_evidence() {
        assert!(has_email("reported by jane.doe@example.com in CI"));
        assert!(has_email("<ops+alerts@mail.example.org>"));
        assert!(!has_email("`src/auth.py:1-5` — 3 unused imports found"));
        assert!(!has_email("@decorator in a.py"));
        assert!(!has_email("user@localhost"));
        assert!(!has_email("pkg@1.2.3"));
        assert!(about_email("Pattern: Email validation", "x"));
        assert!(!about_email("Pattern: N+1", "queries"));
    }

    #[test]
    fn one_version_per_uid_newest_verified_then_highest_confidence() {
        use crate::model::testing::{echo, meta};
        use crate::model::{fold, validate, Record};
        let a = echo(1, "reviewer", "Pattern: N+1 queries", "2026-02-01", 0.9);
        // The same finding recorded later by another clone: newer verified, lower confidence.
        let b = echo(2, "reviewer", "Pattern: N+1 queries", "2026-03-01", 0.5);
        // A third, same verified as b, higher confidence.
        let c = echo(3, "reviewer", "Pattern: n+1  queries", "2026-03-01", 0.7);
        for r in [&a, &b, &c] {
            validate(&r.body).unwrap();
            let back = crate::model::decode_line(&r.to_line()).unwrap();
            assert_eq!(&back, r);
        }
        for order in [[&a, &b, &c], [&c, &b, &a], [&b, &a, &c]] {
            let st = fold(order);
            assert_eq!(st.echoes.len(), 1);
            assert_eq!(st.echoes[0].id, c.id);
        }
        // An edit supersedes: its lower confidence stands.
        let mut body = c.body.clone();
        if let Body::Echo(Echo { confidence, .. }) = &mut body {
            *confidence = 0.2;
        }
        let edit = Record::new(meta(4, &[&c.id, &b.id, &a.id]), body);
        let st = fold([&a, &b, &c, &edit]);
        assert_eq!(st.echoes.len(), 1);
        assert_eq!(st.echoes[0].id, edit.id);
        // References are a union.
        let r1 = Record::new(
            meta(5, &[]),
            Body::EchoRef(EchoRef {
                uid: "0123456789abcdef".into(),
                workflow: "w1".into(),
            }),
        );
        let st = fold([&a, &r1, &r1]);
        assert_eq!(st.echo_refs.len(), 1);
    }

    #[test]
    fn confidence_keeps_one_decimal() {
        assert_eq!(format_confidence(1.0), "1.0");
        assert_eq!(format_confidence(0.85), "0.85");
        assert_eq!(format_confidence(0.6), "0.6");
        assert_eq!(format_confidence(0.0), "0.0");
    }
}
