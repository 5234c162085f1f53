//! `instincts.md`: the seed's learned trigger → action patterns with a confidence.

use super::entry::{self, Form};
use super::text::{block, day, err, push_field};
use super::{normal, ParseError};
use crate::model::{Body, Record};

const FORM: Form = Form {
    word: "Instinct",
    titled: true,
    shape: "## [YYYY-MM-DD] Instinct: <name>",
    fields: &["Trigger", "Action", "Confidence", "Evidence"],
};

pub(crate) fn render(records: &[Record]) -> String {
    let mut out = String::from("# Instincts\n");
    for r in records {
        if let Body::Instinct {
            name,
            trigger,
            action,
            confidence,
            evidence,
        } = normal(&r.body)
        {
            out.push_str(&format!("\n## [{}] Instinct: {name}\n", day(&r.meta.ts)));
            push_field(&mut out, "Trigger", &trigger);
            push_field(&mut out, "Action", &action);
            // `{}` prints the shortest text that reads back as the same f64.
            push_field(&mut out, "Confidence", &format!("{confidence}"));
            push_field(&mut out, "Evidence", &evidence);
        }
    }
    out
}

pub(crate) fn parse(text: &str) -> Result<Vec<Body>, ParseError> {
    let mut out = Vec::new();
    for e in entry::parse(text, &FORM)? {
        e.required(&FORM, 0)?;
        e.required(&FORM, 1)?;
        let conf = e.required(&FORM, 2)?;
        let raw = conf.joined();
        let confidence = raw.trim().parse::<f64>().map_err(|_| {
            err(
                conf.line,
                format!(
                    "confidence must be a number from 0.3 to 0.9, like \"**Confidence:** 0.7\"; found {:?}",
                    raw.trim()
                ),
            )
        })?;
        out.push(Body::Instinct {
            name: e.title.clone(),
            trigger: block(&e.text(0), true),
            action: block(&e.text(1), true),
            confidence,
            evidence: block(&e.text(3), true),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{fold, Draft};
    use crate::view::{self, ViewFile};

    #[test]
    fn renders_the_seed_format() {
        let a = Draft::new(Body::Instinct {
            name: "Prefer httpx".into(),
            trigger: "Adding an HTTP call".into(),
            action: "Use httpx.AsyncClient".into(),
            confidence: 0.7,
            evidence: "User corrected requests → httpx twice".into(),
        })
        .stamp("2026-04-04T14:30:00Z", 1, "a");
        assert_eq!(
            view::render(ViewFile::Instincts, &fold([&a])),
            "# Instincts

## [2026-04-04] Instinct: Prefer httpx
**Trigger:** Adding an HTTP call
**Action:** Use httpx.AsyncClient
**Confidence:** 0.7
**Evidence:** User corrected requests → httpx twice
"
        );
    }

    #[test]
    fn parses_an_appended_instinct() {
        let text = "# Instincts

## [2026-04-04] Instinct: Run migrations first
**Trigger:** Tests fail with missing table
**Action:** Run `make migrate`
before the test suite
**Confidence:** 0.55
**Evidence:** Two sessions lost time on this
";
        assert_eq!(
            view::parse(ViewFile::Instincts, text).unwrap(),
            vec![Body::Instinct {
                name: "Run migrations first".into(),
                trigger: "Tests fail with missing table".into(),
                action: "Run `make migrate`\nbefore the test suite".into(),
                confidence: 0.55,
                evidence: "Two sessions lost time on this".into(),
            }]
        );
    }

    #[test]
    fn errors_name_the_line() {
        let bad =
            "# Instincts\n\n## Instinct: X\n**Trigger:** t\n**Action:** a\n**Confidence:** high\n";
        let e = view::parse(ViewFile::Instincts, bad).unwrap_err();
        assert_eq!(e.line, 6);
        assert!(e.message.contains("must be a number"), "{e}");
        let missing = "# Instincts\n\n## Instinct: X\n**Trigger:** t\n**Action:** a\n";
        let e = view::parse(ViewFile::Instincts, missing).unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("**Confidence:**"), "{e}");
        let nameless = "# Instincts\n\n## [2026-04-04] Instinct:\n";
        assert_eq!(
            view::parse(ViewFile::Instincts, nameless).unwrap_err().line,
            3
        );
    }
}
