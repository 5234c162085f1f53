//! Tests of `summary.rs` (moved out of the file they test, which stays under 600 lines).

use super::*;
use crate::model::kinds::Decision;
use crate::model::testing::record_at;

fn session() -> Session {
    let mut s = Session::new("s1", "2026-04-04T10:00:00Z");
    s.tool_calls = 87;
    s.files = vec!["src/auth/validate.ts".into(), "src/auth/mod.ts".into()];
    s
}

#[test]
fn sections_come_from_what_the_session_recorded() {
    let old = record_at(
        "2026-04-03T10:00:00Z",
        Body::Decision(Decision {
            title: "Old".into(),
            context: "c".into(),
            decision: "d".into(),
            rationale: "r".into(),
            impact: "i".into(),
            files: vec![],
            file_blobs: Default::default(),
            extra: vec![],
        }),
    );
    let new = record_at(
        "2026-04-04T11:00:00Z",
        Body::Decision(Decision {
            title: "Use Zod".into(),
            context: "c".into(),
            decision: "d".into(),
            rationale: "one schema for types and checks".into(),
            impact: "auth".into(),
            files: vec!["src/auth/validate.ts".into()],
            file_blobs: Default::default(),
            extra: vec![],
        }),
    );
    let progress = record_at(
        "2026-04-04T11:30:00Z",
        Body::Progress(Progress {
            completed: vec!["schema".into()],
            in_progress: vec!["validation logic".into()],
            blocked: vec!["waiting on the API spec".into()],
            next: vec!["implement validate() in src/auth/validate.ts:47".into()],
            extra: vec![],
        }),
    );
    let state = crate::model::fold([&old, &new, &progress]);
    let s = assemble(
        &state,
        &session(),
        &[".rune/artifacts/artifact-1-Bash.md".into()],
    );
    insta::assert_snapshot!(s.text(), @r"
    ## Compaction Summary (generated at 87 tool calls)

    ### Topics Covered
    - Decision: Use Zod
    - Done: schema

    ### Key Decisions Made
    - Use Zod: one schema for types and checks — affects src/auth/validate.ts

    ### Active Threads
    - validation logic
    - Current file: src/auth/mod.ts
    - Files touched: src/auth/validate.ts, src/auth/mod.ts
    - Partial progress: 1 in progress, 1 next
    - Folded output: .rune/artifacts/artifact-1-Bash.md

    ### Emotional/Priority Context
    - Blocked: waiting on the API spec

    ### Continuation Point
    > Resume: implement validate() in src/auth/validate.ts:47
    ");
    // Stored as a checkpoint and shown back the same.
    let body = s.checkpoint(None).unwrap();
    let r = record_at("2026-04-04T12:00:00Z", body);
    assert_eq!(shown(&r).unwrap(), s.text());
}

#[test]
fn an_empty_session_still_says_where_to_resume() {
    let s = assemble(
        &State::default(),
        &Session::new("s", "2026-04-04T10:00:00Z"),
        &[],
    );
    assert!(s.text().contains(
        "### Emotional/Priority Context\n\n### Continuation Point\n> Resume: run `git rune load`"
    ));
    let r = record_at("2026-04-04T12:00:00Z", s.checkpoint(None).unwrap());
    assert_eq!(shown(&r).unwrap(), s.text());
}

/// A record written after the ones `record_at` makes (a higher logical clock).
fn later(ts: &str, body: Body) -> Record {
    let mut m = crate::model::testing::meta(2, &[]);
    m.ts = ts.to_owned();
    Record::new(m, body)
}

fn checkpoint_body(doing: &str, left: &[&str], context: &[&str], resume: &str) -> Body {
    Body::Checkpoint(Checkpoint {
        doing: doing.into(),
        left: left.iter().map(|s| (*s).into()).collect(),
        context: context.iter().map(|s| (*s).into()).collect(),
        resume: resume.into(),
        git: None,
        extra: vec![crate::model::Extra {
            after: "What I Was Doing".into(),
            label: format!("## {LOAD_BEARING}"),
            text: "- Zod over io-ts: one schema\n- 422 for schema errors".into(),
        }],
    })
}

/// Regression (issue 24): the summary replaced the open checkpoint and lost its context
/// items, load-bearing decisions and steps. They are carried forward, through a second
/// compaction too; steps progress shows done are dropped; a resume the engine made up is
/// made afresh while one the agent wrote is kept.
#[test]
fn the_summary_carries_the_checkpoint_forward() {
    let agent = record_at(
        "2026-04-04T09:00:00Z",
        checkpoint_body(
            "implementing validate()",
            &["write the happy path", "handle errors"],
            &[
                "the spec says 422",
                "deny_unknown_fields breaks old clients",
            ],
            "implement validate() in src/a.rs:47",
        ),
    );
    let progress = |completed: &[&str]| {
        record_at(
            "2026-04-04T11:30:00Z",
            Body::Progress(Progress {
                completed: completed.iter().map(|s| (*s).into()).collect(),
                in_progress: vec![],
                blocked: vec![],
                next: vec!["wire it into the handler".into()],
                extra: vec![],
            }),
        )
    };
    let p = progress(&[]);
    let state = crate::model::fold([&agent, &p]);
    let s1 = assemble(&state, &session(), &[]);
    assert_eq!(
        s1.context,
        [
            "the spec says 422",
            "deny_unknown_fields breaks old clients"
        ]
    );
    assert_eq!(
        s1.left,
        [
            "write the happy path",
            "handle errors",
            "wire it into the handler"
        ]
    );
    assert_eq!(s1.resume, "implement validate() in src/a.rs:47");
    assert_eq!(
        s1.load_bearing,
        ["Zod over io-ts: one schema", "422 for schema errors"]
    );
    assert!(s1
        .text()
        .contains("### Key Decisions Made\n- Zod over io-ts: one schema\n"));
    assert!(
        s1.doing.ends_with("): implementing validate()"),
        "{}",
        s1.doing
    );
    // Stored, it reads back with all of it; a second compaction carries it again.
    let cp = later("2026-04-04T12:00:00Z", s1.checkpoint(None).unwrap());
    let done = progress(&["write the happy path"]);
    let state = crate::model::fold([&agent, &cp, &done]);
    assert_eq!(state.open_checkpoint().unwrap().id, cp.id);
    let s2 = assemble(&state, &session(), &[]);
    assert_eq!(s2.context, s1.context);
    assert_eq!(s2.load_bearing, s1.load_bearing);
    assert_eq!(s2.left, ["handle errors", "wire it into the handler"]);
    assert_eq!(s2.resume, s1.resume);
    assert!(
        s2.doing.ends_with("): implementing validate()"),
        "{}",
        s2.doing
    );
    // A summary whose resume the engine made up (the file last touched) makes it afresh.
    let empty = record_at("2026-04-04T09:00:00Z", checkpoint_body("x", &[], &[], ""));
    let mut s = session();
    let state = crate::model::fold([&empty]);
    let first = assemble(&state, &s, &[]);
    assert_eq!(first.resume, "continue the work in src/auth/mod.ts");
    let again = later("2026-04-04T12:00:00Z", first.checkpoint(None).unwrap());
    s.files.push("src/new.rs".into());
    let state = crate::model::fold([&empty, &again]);
    assert_eq!(
        assemble(&state, &s, &[]).resume,
        "continue the work in src/new.rs"
    );
}
