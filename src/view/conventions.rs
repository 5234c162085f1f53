//! `conventions.md`: the seed's established patterns, one entry per convention.

use super::entry::{self, push_extras, text, Form};
use super::text::{day, push_field};
use super::{ParseError, Withhold};
use crate::model::kinds::Convention;
use crate::model::{Body, Record};

const FORM: Form = Form {
    aliases: &[],
    header: "# Conventions\n",
    words: &["Convention"],
    titled: true,
    shape: "## [YYYY-MM-DD] Convention: <title>",
    fields: &[text("Pattern"), text("Example"), text("Applies to")],
};

pub(crate) fn render(records: &[Record], withhold: Withhold<'_>) -> String {
    entry::render_each("# Conventions\n", records, withhold, |out, r, body| {
        if let Body::Convention(c) = body {
            let title = &c.title;
            out.push_str(&format!("\n## [{}] Convention: {title}\n", day(&r.meta.ts)));
            push_extras(out, &c.extra, "");
            for (label, value, always) in [
                ("Pattern", &c.pattern, true),
                ("Example", &c.example, false),
                ("Applies to", &c.applies_to, false),
            ] {
                if always || !value.is_empty() {
                    push_field(out, label, value);
                    push_extras(out, &c.extra, label);
                }
            }
        }
    })
}

pub(crate) fn parse(text: &str) -> Result<super::Framed, ParseError> {
    entry::parse_entries(text, &FORM, |e| {
        e.required(&FORM, 0)?;
        Ok(Body::Convention(Convention {
            title: e.title.clone(),
            pattern: e.text(0),
            example: e.text(1),
            applies_to: e.text(2),
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
    fn renders_the_seed_format_with_a_fenced_example() {
        let a = Draft::new(Body::Convention(Convention {
            title: "Async-First I/O".into(),
            pattern: "All I/O functions use `async def`".into(),
            example: "```python\n# fetch\nasync def fetch(): ...\n```".into(),
            applies_to: "All modules in `src/`".into(),
            extra: Vec::new(),
        }))
        .stamp("2026-04-04T14:30:00Z", 1, "a");
        let b = Draft::new(Body::Convention(Convention {
            title: "Errors".into(),
            pattern: "thiserror in libraries".into(),
            example: String::new(),
            applies_to: String::new(),
            extra: Vec::new(),
        }))
        .stamp("2026-04-06T08:00:00Z", 2, "a");
        let text = view::render_all(ViewFile::Conventions, &fold([&a, &b]));
        assert_eq!(
            text,
            "# Conventions

## [2026-04-04] Convention: Async-First I/O
**Pattern:** All I/O functions use `async def`
**Example:**
```python
# fetch
async def fetch(): ...
```
**Applies to:** All modules in `src/`

## [2026-04-06] Convention: Errors
**Pattern:** thiserror in libraries
"
        );
        assert_eq!(
            view::parse_bodies(ViewFile::Conventions, &text).unwrap()[0],
            Body::Convention(Convention {
                title: "Async-First I/O".into(),
                pattern: "All I/O functions use `async def`".into(),
                example: "```python\n# fetch\nasync def fetch(): ...\n```".into(),
                applies_to: "All modules in `src/`".into(),
                extra: Vec::new(),
            })
        );
    }

    #[test]
    fn parses_the_seed_example() {
        let text = "# Conventions
## [2026-04-04] Convention: Async-First I/O
**Pattern:** All I/O functions use `async def`; blocking calls are forbidden in async modules
**Example:** `async def fetch_data(): async with httpx.AsyncClient() as client: ...`
**Applies to:** All modules in `src/` — sync wrappers only in CLI entry points
## Convention: Bare
**Pattern:** p
";
        let got = view::parse_bodies(ViewFile::Conventions, text).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(
            got[1],
            Body::Convention(Convention {
                title: "Bare".into(),
                pattern: "p".into(),
                example: String::new(),
                applies_to: String::new(),
                extra: Vec::new(),
            })
        );
        match &got[0] {
            Body::Convention(Convention { applies_to, .. }) => {
                assert_eq!(
                    applies_to,
                    "All modules in `src/` — sync wrappers only in CLI entry points"
                )
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn errors_name_the_line() {
        let e = view::parse_bodies(
            ViewFile::Conventions,
            "# Conventions\n\n## Convention: X\n**Example:** e\n",
        )
        .unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("**Pattern:**"), "{e}");
        // Text before the first entry is the file's frame, not an error.
        let f = view::parse_framed(ViewFile::Conventions, "# Conventions\n- loose item\n").unwrap();
        assert!(f.items.is_empty());
        assert_eq!(f.frame.as_deref(), Some("# Conventions\n- loose item\n"));
    }
}
