//! The one parser for the "log of entries" formats (decisions, conventions, instincts, progress):
//! `## [date] Word: title` headings, each followed by `**Field:**` lines whose values may run on
//! over the following lines.

use super::text::{
    err, field_line, heading, is_blank, loose, numbered, one_line, strip_word, without_date, Src,
};
use super::ParseError;

/// How one format's entries look.
pub(crate) struct Form {
    /// The word after the date: `Decision`, `Session Summary`.
    pub word: &'static str,
    /// Whether `Word:` is followed by a title that the entry needs.
    pub titled: bool,
    /// The heading as the seed writes it, for error messages.
    pub shape: &'static str,
    /// Known field labels; other `**Label:**` lines (the seed's optional blocks) are skipped
    /// together with their continuation lines.
    pub fields: &'static [&'static str],
}

/// A field as written: its line number and its lines, the first being the text after the label.
#[derive(Debug, Default)]
pub(crate) struct RawField<'a> {
    pub line: usize,
    pub lines: Vec<Src<'a>>,
}

impl RawField<'_> {
    /// The value as one string, for multi-line text fields.
    pub fn joined(&self) -> String {
        self.lines
            .iter()
            .map(|s| s.text)
            .collect::<Vec<_>>()
            .join("\n")
    }
}

#[derive(Debug)]
pub(crate) struct RawEntry<'a> {
    pub line: usize,
    pub title: String,
    /// Indexed like [`Form::fields`]; `None` when the entry lacks the field.
    pub fields: Vec<Option<RawField<'a>>>,
}

impl RawEntry<'_> {
    pub fn field(&self, i: usize) -> Option<&RawField<'_>> {
        self.fields.get(i).and_then(Option::as_ref)
    }

    pub fn text(&self, i: usize) -> String {
        self.field(i).map(RawField::joined).unwrap_or_default()
    }

    /// The field's value, or an error naming the field the entry needs.
    pub fn required(&self, form: &Form, i: usize) -> Result<&RawField<'_>, ParseError> {
        let label = form.fields.get(i).copied().unwrap_or("?");
        self.field(i).ok_or_else(|| {
            err(
                self.line,
                format!(
                    "{} {:?} has no \"**{label}:**\" line; add one below its heading",
                    form.word.to_lowercase(),
                    self.title
                ),
            )
        })
    }
}

enum Target {
    /// After a heading, before any field: only blank lines may come here.
    Start,
    Field(usize),
    Skip,
}

/// Splits a file into raw entries; everything a format still has to check is per entry.
pub(crate) fn parse<'a>(text: &'a str, form: &Form) -> Result<Vec<RawEntry<'a>>, ParseError> {
    let mut entries: Vec<RawEntry<'a>> = Vec::new();
    let mut target = Target::Start;
    for src in numbered(text) {
        if let Some((level, h)) = heading(src.text).filter(|(level, _)| *level <= 2) {
            if level == 1 {
                if entries.is_empty() {
                    continue;
                }
                return Err(err(
                    src.no,
                    format!(
                        "unexpected title heading between entries; each entry starts with \"{}\"",
                        form.shape
                    ),
                ));
            }
            let title = entry_title(h, form)
                .ok_or_else(|| err(src.no, format!("expected \"{}\"", form.shape)))?;
            if form.titled && title.is_empty() {
                return Err(err(
                    src.no,
                    format!("missing title: write \"{}\"", form.shape),
                ));
            }
            entries.push(RawEntry {
                line: src.no,
                title,
                fields: form.fields.iter().map(|_| None).collect(),
            });
            target = Target::Start;
            continue;
        }
        let Some(entry) = entries.last_mut() else {
            if is_blank(src.text) {
                continue;
            }
            return Err(err(
                src.no,
                format!("expected \"{}\" to start an entry", form.shape),
            ));
        };
        if let Some((label, value)) = field_line(src.text) {
            let want = loose(label);
            target = match form.fields.iter().position(|f| loose(f) == want) {
                Some(i) => {
                    let slot = entry.fields[i].get_or_insert_with(|| RawField {
                        line: src.no,
                        lines: Vec::new(),
                    });
                    slot.lines.push(Src {
                        no: src.no,
                        text: value,
                    });
                    Target::Field(i)
                }
                None => Target::Skip,
            };
            continue;
        }
        match target {
            Target::Field(i) => {
                if let Some(f) = entry.fields[i].as_mut() {
                    f.lines.push(src);
                }
            }
            Target::Skip => {}
            Target::Start if is_blank(src.text) => {}
            Target::Start => {
                let first = form.fields.first().copied().unwrap_or("Field");
                return Err(err(
                    src.no,
                    format!("expected a field line such as \"**{first}:** …\" after the heading"),
                ));
            }
        }
    }
    Ok(entries)
}

/// The title of an entry heading (empty for untitled forms), or `None` when the heading is
/// not this format's.
fn entry_title(heading_text: &str, form: &Form) -> Option<String> {
    let rest = strip_word(without_date(heading_text), form.word)?;
    if !form.titled {
        return Some(String::new());
    }
    let rest = rest.trim_start().strip_prefix(':')?;
    Some(one_line(rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FORM: Form = Form {
        word: "Decision",
        titled: true,
        shape: "## [YYYY-MM-DD HH:MM] Decision: <title>",
        fields: &["Context", "Decision"],
    };

    #[test]
    fn fields_run_on_and_unknown_fields_are_skipped() {
        let text = "# Log\n\n## Decision: A\n**Context:** one\ntwo\n**Extra** (note):\n- skipped\n**decision**: d\n";
        let entries = parse(text, &FORM).unwrap();
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].title, "A");
        assert_eq!(entries[0].text(0), "one\ntwo");
        assert_eq!(entries[0].text(1), "d");
        assert_eq!(entries[0].field(1).map(|f| f.line), Some(8));
    }

    #[test]
    fn stray_text_is_an_error_with_its_line() {
        let e = parse("# Log\nhello\n", &FORM).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(
            e.message
                .contains("## [YYYY-MM-DD HH:MM] Decision: <title>"),
            "{e}"
        );
        assert_eq!(parse("## Decision: A\nprose\n", &FORM).unwrap_err().line, 2);
        assert_eq!(parse("## Decision:\n", &FORM).unwrap_err().line, 1);
        assert_eq!(parse("## Note: A\n", &FORM).unwrap_err().line, 1);
        assert_eq!(parse("## Decision: A\n# Log\n", &FORM).unwrap_err().line, 2);
    }
}
