//! `decisions.md`: the seed's architectural decision log.

use super::entry::{self, line, push_extras, text, Form};
use super::text::{minute, one_line, push_field, read_paths};
use super::{ParseError, Withhold};
use crate::model::kinds::Decision;
use crate::model::{Body, Record};

const FORM: Form = Form {
    aliases: &["ADR", "Architecture decision", "Architectural decision"],
    header: "# Decisions Log\n",
    words: &["Decision"],
    titled: true,
    shape: "## [YYYY-MM-DD HH:MM] Decision: <title>",
    fields: &[
        text("Context"),
        text("Decision"),
        text("Rationale"),
        text("Impact"),
        line("Files"),
    ],
};

pub(crate) fn render(records: &[Record], withhold: Withhold<'_>) -> String {
    entry::render_each("# Decisions Log\n", records, withhold, |out, r, body| {
        if let Body::Decision(d) = body {
            out.push_str(&format!(
                "\n## [{}] Decision: {}\n",
                minute(&r.meta.ts),
                d.title
            ));
            push_extras(out, &d.extra, "");
            for (label, value) in [
                ("Context", &d.context),
                ("Decision", &d.decision),
                ("Rationale", &d.rationale),
                ("Impact", &d.impact),
            ] {
                push_field(out, label, value);
                push_extras(out, &d.extra, label);
            }
            if !d.files.is_empty() {
                push_field(out, "Files", &d.files.join(", "));
                push_extras(out, &d.extra, "Files");
            }
        }
    })
}

pub(crate) fn parse(text: &str) -> Result<super::Framed, ParseError> {
    entry::parse_entries(text, &FORM, |e| {
        e.required(&FORM, 1)?;
        Ok(Body::Decision(Decision {
            title: e.title.clone(),
            context: e.text(0),
            decision: e.text(1),
            rationale: e.text(2),
            impact: e.text(3),
            files: read_paths(&one_line(&e.text(4))),
            file_blobs: Default::default(),
            extra: e.extras,
        }))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{fold, Draft};
    use crate::view::{self, ViewFile};

    fn decision(title: &str, decision: &str, files: &[&str]) -> Body {
        Body::Decision(Decision {
            title: title.into(),
            context: "Dashboards re-render too often".into(),
            decision: decision.into(),
            rationale: "Fewer re-renders\nand less boilerplate".into(),
            impact: "src/store".into(),
            files: files.iter().map(|s| s.to_string()).collect(),
            file_blobs: Default::default(),
            extra: Vec::new(),
        })
    }

    #[test]
    fn renders_the_seed_format() {
        let a = Draft::new(decision(
            "State library",
            "Use Zustand",
            &["src/store/index.ts", "src/app.ts"],
        ))
        .stamp("2026-04-04T14:30:00Z", 1, "a");
        let b = Draft::new(decision("Router", "Keep the router", &[])).stamp(
            "2026-04-05T09:05:00Z",
            2,
            "a",
        );
        let text = view::render_all(ViewFile::Decisions, &fold([&a, &b]));
        assert_eq!(
            text,
            "# Decisions Log

## [2026-04-04 14:30] Decision: State library
**Context:** Dashboards re-render too often
**Decision:** Use Zustand
**Rationale:** Fewer re-renders
and less boilerplate
**Impact:** src/store
**Files:** src/store/index.ts, src/app.ts

## [2026-04-05 09:05] Decision: Router
**Context:** Dashboards re-render too often
**Decision:** Keep the router
**Rationale:** Fewer re-renders
and less boilerplate
**Impact:** src/store
"
        );
    }

    #[test]
    fn parses_an_entry_appended_by_an_agent() {
        let text = "# Decisions Log

## [2026-04-04 14:30] Decision: Use Zustand
**Context:** Why this decision was needed
**Decision:** Zustand over Redux
**Rationale:** Why this approach
  over alternatives
**Impact:** What files/modules are affected
**Files:** `src/store/index.ts`, `src/app.ts`
**Reviewed by:** someone
kept continuation

## Decision: Minimal
**Decision:** just this
";
        let got = view::parse_bodies(ViewFile::Decisions, text).unwrap();
        assert_eq!(
            got,
            vec![
                Body::Decision(Decision {
                    title: "Use Zustand".into(),
                    context: "Why this decision was needed".into(),
                    decision: "Zustand over Redux".into(),
                    rationale: "Why this approach\n  over alternatives".into(),
                    impact: "What files/modules are affected".into(),
                    files: vec!["src/store/index.ts".into(), "src/app.ts".into()],
                    file_blobs: Default::default(),
                    extra: vec![crate::model::Extra {
                        after: "Files".into(),
                        label: "Reviewed by".into(),
                        text: "someone\nkept continuation".into(),
                    }],
                }),
                Body::Decision(Decision {
                    title: "Minimal".into(),
                    context: String::new(),
                    decision: "just this".into(),
                    rationale: String::new(),
                    impact: String::new(),
                    files: vec![],
                    file_blobs: Default::default(),
                    extra: Vec::new(),
                }),
            ]
        );
    }

    #[test]
    fn separators_between_entries_are_not_content() {
        let text = "# Decisions Log\n---\n## Decision: A\n**Decision:** a\n\n---\n\n## Decision: B\n---\n**Decision:** b\n";
        let got = view::parse_bodies(ViewFile::Decisions, text).unwrap();
        assert!(matches!(&got[0], Body::Decision(Decision { decision, .. }) if decision == "a"));
        assert!(matches!(&got[1], Body::Decision(Decision { decision, .. }) if decision == "b"));
    }

    #[test]
    fn errors_name_the_line() {
        let e = view::parse_bodies(
            ViewFile::Decisions,
            "# Decisions Log\n\n## Decision: A\n**Context:** c\n",
        )
        .unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("**Decision:**"), "{e}");
        let e = view::parse_bodies(ViewFile::Decisions, "# Decisions Log\n## Convention: A\n")
            .unwrap_err();
        assert_eq!(e.line, 2);
    }
}
