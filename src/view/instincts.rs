//! `instincts.md`: the seed's learned trigger → action patterns with a confidence.

use super::entry::{self, line, push_extras, text, Form};
use super::text::{day, err, push_field};
use super::{ParseError, Withhold};
use crate::model::kinds::Instinct;
use crate::model::{Body, Extra, Record};

const FORM: Form = Form {
    aliases: &[],
    header: "# Instincts\n",
    words: &["Instinct"],
    titled: true,
    shape: "## [YYYY-MM-DD] Instinct: <name>",
    fields: &[
        text("Trigger"),
        text("Action"),
        line("Confidence"),
        text("Evidence"),
    ],
};

/// What a confidence written as a word means; the word is kept beside the number.
const WORDS: [(&str, f64); 7] = [
    ("very high", 0.9),
    ("high", 0.8),
    ("medium", 0.6),
    ("moderate", 0.6),
    ("low", 0.4),
    ("very low", 0.3),
    ("validated", 0.7),
];

/// The label under which the words written around a confidence are kept.
const NOTE: &str = "Confidence note";

pub(crate) fn render(records: &[Record], withhold: Withhold<'_>) -> String {
    entry::render_each("# Instincts\n", records, withhold, |out, r, body| {
        if let Body::Instinct(i) = body {
            let name = &i.name;
            out.push_str(&format!("\n## [{}] Instinct: {name}\n", day(&r.meta.ts)));
            push_extras(out, &i.extra, "");
            // `{}` prints the shortest text that reads back as the same f64.
            let confidence = format!("{}", i.confidence);
            for (label, value) in [
                ("Trigger", &i.trigger),
                ("Action", &i.action),
                ("Confidence", &confidence),
                ("Evidence", &i.evidence),
            ] {
                push_field(out, label, value);
                push_extras(out, &i.extra, label);
            }
        }
    })
}

/// A confidence as written: a number (`0.7`, `0.7 (validated)`, `70%`) or a word (`High`).
/// Returns the number and what was written besides it.
fn confidence(raw: &str) -> Option<(f64, String)> {
    let t = raw.trim();
    let sign = usize::from(t.starts_with('-'));
    let end = t[sign..]
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .map_or(t.len(), |i| i + sign);
    if end > 0 {
        let number: f64 = t[..end].parse().ok()?;
        let rest = t[end..].trim_start();
        if let Some(rest) = rest.strip_prefix('%') {
            return Some((number / 100.0, rest.trim().to_owned()));
        }
        return Some((number, rest.to_owned()));
    }
    let lower = t.to_lowercase();
    WORDS
        .iter()
        .find(|(w, _)| lower.starts_with(w))
        .map(|(_, v)| (*v, t.to_owned()))
}

pub(crate) fn parse(text: &str) -> Result<super::Framed, ParseError> {
    entry::parse_entries(text, &FORM, |mut e| {
        e.required(&FORM, 0)?;
        e.required(&FORM, 1)?;
        let conf = e.required(&FORM, 2)?;
        let raw = conf.joined();
        let (value, note) = confidence(&raw).ok_or_else(|| {
                err(
                    conf.line,
                    format!(
                        "confidence must be a number from 0.3 to 0.9 (or high, medium, low), like \"**Confidence:** 0.7\"; found {:?}",
                        raw.trim()
                    ),
                )
            })?;
        if !note.is_empty() {
            // Right after the confidence, before anything else written after it.
            let at = e
                .extras
                .iter()
                .position(|x| x.after == "Confidence")
                .unwrap_or(e.extras.len());
            e.extras.insert(
                at,
                Extra {
                    after: "Confidence".into(),
                    label: NOTE.into(),
                    text: note,
                },
            );
        }
        Ok(Body::Instinct(Instinct {
            name: e.title.clone(),
            trigger: e.text(0),
            action: e.text(1),
            confidence: value,
            evidence: e.text(3),
            extra: e.extras,
        }))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{fold, Draft};
    use crate::view::{self, ViewFile};

    #[test]
    fn renders_the_seed_format() {
        let a = Draft::new(Body::Instinct(Instinct {
            name: "Prefer httpx".into(),
            trigger: "Adding an HTTP call".into(),
            action: "Use httpx.AsyncClient".into(),
            confidence: 0.7,
            evidence: "User corrected requests → httpx twice".into(),
            extra: Vec::new(),
        }))
        .stamp("2026-04-04T14:30:00Z", 1, "a");
        assert_eq!(
            view::render_all(ViewFile::Instincts, &fold([&a])),
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
            view::parse_bodies(ViewFile::Instincts, text).unwrap(),
            vec![Body::Instinct(Instinct {
                name: "Run migrations first".into(),
                trigger: "Tests fail with missing table".into(),
                action: "Run `make migrate`\nbefore the test suite".into(),
                confidence: 0.55,
                evidence: "Two sessions lost time on this".into(),
                extra: Vec::new(),
            })]
        );
    }

    #[test]
    fn errors_name_the_line() {
        let bad =
            "# Instincts\n\n## Instinct: X\n**Trigger:** t\n**Action:** a\n**Confidence:** sure\n";
        let e = view::parse_bodies(ViewFile::Instincts, bad).unwrap_err();
        assert_eq!(e.line, 6);
        assert!(e.message.contains("must be a number"), "{e}");
        // Words and notes around the number are read, and kept.
        for (written, value, note) in [
            ("High", 0.8, "High"),
            ("0.7 (validated)", 0.7, "(validated)"),
            ("70%", 0.7, ""),
        ] {
            let text = format!(
                "## Instinct: X\n**Trigger:** t\n**Action:** a\n**Confidence:** {written}\n"
            );
            match &view::parse_bodies(ViewFile::Instincts, &text).unwrap()[0] {
                Body::Instinct(Instinct {
                    confidence, extra, ..
                }) => {
                    assert_eq!(*confidence, value, "{written}");
                    let kept: Vec<&str> = extra.iter().map(|x| x.text.as_str()).collect();
                    let want: Vec<&str> =
                        Some(note).filter(|n| !n.is_empty()).into_iter().collect();
                    assert_eq!(kept, want, "{written}");
                }
                other => panic!("{other:?}"),
            }
        }
        let missing = "# Instincts\n\n## Instinct: X\n**Trigger:** t\n**Action:** a\n";
        let e = view::parse_bodies(ViewFile::Instincts, missing).unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("**Confidence:**"), "{e}");
        let nameless = "# Instincts\n\n## [2026-04-04] Instinct:\n";
        assert_eq!(
            view::parse_bodies(ViewFile::Instincts, nameless)
                .unwrap_err()
                .line,
            3
        );
    }
}
