//! `conventions.md`: the seed's established patterns, one entry per convention.

use super::entry::{self, Form};
use super::text::{block, day, push_field};
use super::{normal, ParseError};
use crate::model::{Body, Record};

const FORM: Form = Form {
    word: "Convention",
    titled: true,
    shape: "## [YYYY-MM-DD] Convention: <title>",
    fields: &["Pattern", "Example", "Applies to"],
};

pub(crate) fn render(records: &[Record]) -> String {
    let mut out = String::from("# Conventions\n");
    for r in records {
        if let Body::Convention {
            title,
            pattern,
            example,
            applies_to,
        } = normal(&r.body)
        {
            out.push_str(&format!("\n## [{}] Convention: {title}\n", day(&r.meta.ts)));
            push_field(&mut out, "Pattern", &pattern);
            if !example.is_empty() {
                push_field(&mut out, "Example", &example);
            }
            if !applies_to.is_empty() {
                push_field(&mut out, "Applies to", &applies_to);
            }
        }
    }
    out
}

pub(crate) fn parse(text: &str) -> Result<Vec<Body>, ParseError> {
    let mut out = Vec::new();
    for e in entry::parse(text, &FORM)? {
        e.required(&FORM, 0)?;
        out.push(Body::Convention {
            title: e.title.clone(),
            pattern: block(&e.text(0), true),
            example: block(&e.text(1), true),
            applies_to: block(&e.text(2), true),
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
    fn renders_the_seed_format_with_a_fenced_example() {
        let a = Draft::new(Body::Convention {
            title: "Async-First I/O".into(),
            pattern: "All I/O functions use `async def`".into(),
            example: "```python\n# fetch\nasync def fetch(): ...\n```".into(),
            applies_to: "All modules in `src/`".into(),
        })
        .stamp("2026-04-04T14:30:00Z", 1, "a");
        let b = Draft::new(Body::Convention {
            title: "Errors".into(),
            pattern: "thiserror in libraries".into(),
            example: String::new(),
            applies_to: String::new(),
        })
        .stamp("2026-04-06T08:00:00Z", 2, "a");
        let text = view::render(ViewFile::Conventions, &fold([&a, &b]));
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
            view::parse(ViewFile::Conventions, &text).unwrap()[0],
            Body::Convention {
                title: "Async-First I/O".into(),
                pattern: "All I/O functions use `async def`".into(),
                example: "```python\n # fetch\nasync def fetch(): ...\n```".into(),
                applies_to: "All modules in `src/`".into(),
            }
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
        let got = view::parse(ViewFile::Conventions, text).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(
            got[1],
            Body::Convention {
                title: "Bare".into(),
                pattern: "p".into(),
                example: String::new(),
                applies_to: String::new(),
            }
        );
        match &got[0] {
            Body::Convention { applies_to, .. } => {
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
        let e = view::parse(
            ViewFile::Conventions,
            "# Conventions\n\n## Convention: X\n**Example:** e\n",
        )
        .unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("**Pattern:**"), "{e}");
        let e = view::parse(ViewFile::Conventions, "# Conventions\n- loose item\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(
            e.message.contains("## [YYYY-MM-DD] Convention: <title>"),
            "{e}"
        );
    }
}
