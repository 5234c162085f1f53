//! Tests of `remembrance.rs` (moved out of the file they test, which stays under 600 lines).

use super::*;
use crate::model::testing::meta;
use crate::model::Extra;

fn etched(confidence: f64, extras: &[(&str, &str)]) -> Record {
    let title = "Pattern: N+1 queries in user list";
    let evidence = "`app/users.rb:10`";
    Record::new(
        meta(1, &[]),
        Body::Echo(Echo {
            uid: crate::model::echo::uid_for("reviewer", title, evidence),
            role: "reviewer".into(),
            layer: "etched".into(),
            date: "2026-02-12".into(),
            title: title.into(),
            source: "manual".into(),
            confidence,
            evidence: evidence.into(),
            verified: "2026-02-12".into(),
            supersedes_title: String::new(),
            text: "Use includes(:posts).".into(),
            archived: false,
            members: vec![],
            extra: extras
                .iter()
                .map(|(l, t)| Extra {
                    after: "supersedes".into(),
                    label: (*l).into(),
                    text: (*t).into(),
                })
                .collect(),
        }),
    )
}

const PAIR: [(&str, &str); 4] = [
    ("symptom", "User list endpoint takes 5+ seconds"),
    ("root_cause", "N+1 query pattern in user.posts association"),
    (
        "solution_summary",
        "Added includes(:posts) to User.list scope",
    ),
    ("tags", "n-plus-one, eager-loading, orm, rails"),
];

fn req(category: &str) -> Request {
    Request {
        category: category.into(),
        ..Request::default()
    }
}

#[test]
fn each_rule_refuses_and_all_of_them_allow() {
    let ok = etched(0.9, &PAIR);
    let doc = plan(
        &ok,
        0,
        &req("performance"),
        ".claude/echoes",
        "2026-03-01",
        &[],
    )
    .unwrap();
    assert_eq!(
        doc.path,
        "docs/solutions/performance/n-1-queries-in-user-list.md"
    );
    assert_eq!(doc.confidence, "high");
    assert_eq!(doc.verified_by, "agent");
    assert!(doc
        .echo_ref
        .starts_with(".claude/echoes/reviewer/MEMORY.md#"));
    let text = render(&doc, "Use includes(:posts).");
    assert_eq!(parse(&text, &doc.path).unwrap(), doc);
    let refuse = |r: &Record, sessions: usize, q: &Request, existing: &[Doc], want: &str| {
        let e = plan(r, sessions, q, ".claude/echoes", "2026-03-01", existing)
            .unwrap_err()
            .to_string();
        assert!(e.contains(want), "{e}");
    };
    // Not etched.
    let mut inscribed = ok.clone();
    if let Body::Echo(Echo { layer, .. }) = &mut inscribed.body {
        *layer = "inscribed".into();
    }
    refuse(&inscribed, 5, &req("performance"), &[], "only etched");
    // No problem-solution pair.
    refuse(
        &etched(0.9, &PAIR[..2]),
        5,
        &req("performance"),
        &[],
        "problem-solution",
    );
    // Not validated: low confidence, one session; two sessions make it so.
    refuse(
        &etched(0.6, &PAIR),
        1,
        &req("performance"),
        &[],
        "not validated",
    );
    assert!(plan(
        &etched(0.6, &PAIR),
        2,
        &req("performance"),
        "d",
        "2026-03-01",
        &[]
    )
    .is_ok());
    // Agent-internal.
    let mut internal = PAIR.to_vec();
    internal.push(("audience", "agents"));
    refuse(
        &etched(0.9, &internal),
        0,
        &req("performance"),
        &[],
        "for agents only",
    );
    // Security without a person.
    refuse(&ok, 0, &req("security"), &[], "BLOCKED");
    let human = Request {
        human: true,
        ..req("security")
    };
    let sec = plan(&ok, 0, &human, "d", "2026-03-01", &[]).unwrap();
    assert_eq!(sec.verified_by, "human");
    assert!(sec.requires_human_approval);
    // Duplicates: title, root cause, 3 shared tags.
    let other = |title: &str, root: &str, tags: &[&str]| Doc {
        title: title.into(),
        root_cause: root.into(),
        tags: tags.iter().map(|t| t.to_string()).collect(),
        path: "docs/solutions/performance/x.md".into(),
        ..Doc::default()
    };
    refuse(
        &ok,
        0,
        &req("performance"),
        &[other("n+1 QUERIES in user list", "x", &[])],
        "docs/solutions/performance/x.md",
    );
    refuse(
        &ok,
        0,
        &req("performance"),
        &[other(
            "t",
            "N+1 query pattern in user.posts association",
            &[],
        )],
        "already covers",
    );
    refuse(
        &ok,
        0,
        &req("performance"),
        &[other("t", "r", &["orm", "rails", "n-plus-one"])],
        "already covers",
    );
    assert!(plan(
        &ok,
        0,
        &req("performance"),
        "d",
        "2026-03-01",
        &[other("t", "r", &["orm", "rails"])]
    )
    .is_ok());
    refuse(&ok, 0, &req("nonsense"), &[], "not a Remembrance category");
}

#[test]
fn stale_refs_are_found() {
    let r = etched(0.9, &PAIR);
    let state = crate::model::fold([&r]);
    let doc = plan(&r, 0, &req("performance"), "d", "2026-03-01", &[]).unwrap();
    assert!(stale(std::slice::from_ref(&doc), &state).is_empty());
    let mut changed = r.clone();
    if let Body::Echo(Echo { text, .. }) = &mut changed.body {
        *text = "Something else.".into();
    }
    let changed = Record::new(meta(2, &[&r.id]), changed.body);
    let state = crate::model::fold([&r, &changed]);
    assert_eq!(stale(std::slice::from_ref(&doc), &state)[0].why, "changed");
    let empty = crate::model::fold(std::iter::empty::<&Record>());
    assert_eq!(stale(&[doc], &empty)[0].why, "missing");
}

#[test]
fn a_problem_solution_pair_written_as_prose_is_read() {
    let text = "Symptom: the user list takes 5 s. Root cause: an N+1 query on posts. Solution: eager-load posts with includes(:posts).";
    assert_eq!(prose_field(text, "symptom"), "the user list takes 5 s.");
    assert_eq!(prose_field(text, "root_cause"), "an N+1 query on posts.");
    assert_eq!(
        prose_field(text, "solution_summary"),
        "eager-load posts with includes(:posts)."
    );
    let lines = "**Symptom**: builds hang\n**Root cause**: a stale lock\n**Solution summary**: remove it on start";
    assert_eq!(prose_field(lines, "symptom"), "builds hang");
    assert_eq!(prose_field(lines, "root_cause"), "a stale lock");
    assert_eq!(prose_field(lines, "solution_summary"), "remove it on start");
    assert_eq!(prose_field("no pair here", "symptom"), "");
}
