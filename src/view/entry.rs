//! The one parser for the "log of entries" formats (decisions, conventions, instincts,
//! progress): a heading per entry (`## [date] Word: title`, at `##`, `###` or `####`), then
//! `**Field:**` lines (also bulleted: `- **Field:** …`) whose values run on over the lines that
//! follow, up to a blank line.
//!
//! Nothing written inside an entry is dropped: a labelled field the format does not know, a
//! heading that does not start an entry, and prose after a blank line become the entry's
//! [`Extra`]s, each remembering the known field it came after, and render back in place. Code
//! fences are read whole: blank lines and structure inside them are content.
//!
//! Past 600 lines only with the test helpers at its end (`testing`: the raw parse other
//! tests read); the parser alone is under 600 lines.

use super::text::{
    bullet_field_line, date_prefix, err, fence, field_line, heading, is_blank, loose, numbered,
    one_line, starts_list_item, strip_word, withheld_id, withheld_line, DatePrefix, Src,
};
use super::ParseError;
use super::Withhold;
use crate::model::{Body, Extra, Record};
#[cfg(test)]
pub(crate) use testing::{entries, parse};

/// One known field of a form.
pub(crate) struct Spec {
    /// The label as written (`Applies to`).
    pub label: &'static str,
    /// Other labels read as this field (`Next steps` for `Next Session Should`).
    pub aliases: &'static [&'static str],
    /// A list field: its items may follow blank lines.
    pub list: bool,
    /// A one-line value (a list of paths, a number): never opens a code fence.
    pub line: bool,
}

/// A text field without aliases.
pub(crate) const fn text(label: &'static str) -> Spec {
    Spec {
        label,
        aliases: &[],
        list: false,
        line: false,
    }
}

/// A one-line field without aliases.
pub(crate) const fn line(label: &'static str) -> Spec {
    Spec {
        line: true,
        ..text(label)
    }
}

/// How one format's entries look.
pub(crate) struct Form {
    /// The words that may follow the date; the first is the one written (`Decision`,
    /// `Session Summary`).
    pub words: &'static [&'static str],
    /// Other words agents start such an entry with (`ADR`, `Architecture decision`): read as
    /// this format's word; an alias followed by a number (`ADR-004: …`) keeps it in the title.
    pub aliases: &'static [&'static str],
    /// The title line the view writes: a file whose text before its first entry is just this
    /// has no frame of its own.
    pub header: &'static str,
    /// Whether `Word:` is followed by a title that the entry needs.
    pub titled: bool,
    /// The heading as the seed writes it, for error messages.
    pub shape: &'static str,
    pub fields: &'static [Spec],
}

impl Form {
    fn field_of(&self, label: &str) -> Option<usize> {
        let want = loose(label);
        self.fields
            .iter()
            .position(|f| loose(f.label) == want || f.aliases.iter().any(|a| loose(a) == want))
    }
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

/// One item of a parsed file: an entry, or the placeholder of a record the view withheld.
#[derive(Debug)]
pub(crate) enum RawItem<'a> {
    Entry(RawEntry<'a>),
    /// The id (or its prefix) a placeholder names.
    Withheld(String),
}

#[derive(Debug)]
pub(crate) struct RawEntry<'a> {
    pub line: usize,
    /// The time its heading gives (RFC 3339 UTC), if any.
    pub at: Option<String>,
    pub title: String,
    /// Indexed like [`Form::fields`]; `None` when the entry lacks the field.
    pub fields: Vec<Option<RawField<'a>>>,
    /// What the form does not know, in order.
    pub extras: Vec<Extra>,
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
        let label = form.fields.get(i).map(|f| f.label).unwrap_or("?");
        self.field(i).ok_or_else(|| {
            err(
                self.line,
                format!(
                    "{} {:?} has no \"**{label}:**\" line; add one below its heading",
                    form.words[0].to_lowercase(),
                    self.title
                ),
            )
        })
    }
}

/// Parses a file of `form` entries into view entries: `body` makes each entry's record body
/// (or refuses it), which is then normalized and given the entry's own time; placeholders of
/// withheld records pass through.
pub(crate) fn parse_entries(
    text: &str,
    form: &Form,
    mut body: impl FnMut(RawEntry<'_>) -> Result<crate::model::Body, ParseError>,
) -> Result<super::Framed, ParseError> {
    let mut out = Vec::new();
    let (items, frame) = parse_framed(text, form)?;
    for item in items {
        match item {
            RawItem::Withheld(id) => out.push(super::Parsed::Withheld(id)),
            RawItem::Entry(mut e) => {
                let at = e.at.take();
                let mut b = body(e)?;
                super::normalize(&mut b);
                out.push(super::Parsed::entry(b, at));
            }
        }
    }
    Ok(super::Framed {
        items: out,
        frame: frame.filter(|f| f != form.header),
    })
}

/// Where the next content line goes.
#[derive(Clone, Copy)]
enum Target {
    /// After a heading, before any field.
    Start,
    Field(usize),
    /// An extra: (index, whether it is a section, which runs on over blank lines).
    Extra(usize, bool),
}

/// [`parse`], and the file's frame: its text before the first entry (the title, an intro,
/// a note), as written, `None` when there is none.
pub(crate) fn parse_framed<'a>(
    text: &'a str,
    form: &Form,
) -> Result<(Vec<RawItem<'a>>, Option<String>), ParseError> {
    let lines: Vec<Src<'a>> = numbered(text).collect();
    let mut items: Vec<RawItem<'a>> = Vec::new();
    let mut frame: Vec<&'a str> = Vec::new();
    let mut title: Option<String> = None;
    let mut target = Target::Start;
    let mut blank = false;
    let mut open_fence: Option<&'static str> = None;
    // The heading level of the entry being read.
    let mut level_of_entry = 0;
    let no_entry = |no| err(no, format!("expected \"{}\" to start an entry", form.shape));
    for (i, &src) in lines.iter().enumerate() {
        let in_frame = items.is_empty();
        let entry = match items.last_mut() {
            Some(RawItem::Entry(e)) => Some(e),
            _ => None,
        };
        // Inside a code fence every line belongs to what the fence is in.
        if let Some(marker) = open_fence {
            match entry {
                Some(e) => target = push_line(e, form, target, src, blank),
                None if in_frame => frame.push(src.text),
                None => {}
            }
            blank = false;
            if src.text.starts_with(marker) {
                open_fence = None;
            }
            continue;
        }
        if let Some(id) = withheld_id(src.text) {
            items.push(RawItem::Withheld(id.to_owned()));
            target = Target::Start;
            continue;
        }
        if let Some((level, h)) = heading(src.text) {
            // Where an entry may start, headings are read leniently.
            let lenient = level >= 2 && (entry.is_none() || level <= level_of_entry);
            let head = if level >= 2 {
                classify(h, form, lenient, || has_fields_below(&lines[i + 1..], form))
                    .map_err(|m| err(src.no, m))?
            } else {
                Head::Other
            };
            if let Head::Entry(at, title) = head {
                if form.titled && title.is_empty() {
                    return Err(err(
                        src.no,
                        format!("missing title: write \"{}\"", form.shape),
                    ));
                }
                items.push(RawItem::Entry(RawEntry {
                    line: src.no,
                    at,
                    title,
                    fields: form.fields.iter().map(|_| None).collect(),
                    extras: Vec::new(),
                }));
                level_of_entry = level;
                target = Target::Start;
                blank = false;
                continue;
            }
            let Some(e) = entry else {
                // Before the first entry: the file's frame (its title, an intro, a note).
                if in_frame {
                    if level == 1 && title.is_none() {
                        title = Some(loose(h));
                    }
                    frame.push(src.text);
                    continue;
                }
                // After a placeholder: a heading with nothing to belong to.
                return Err(no_entry(src.no));
            };
            // The file's title again (agents repeat it when they append).
            if level == 1 && title.as_deref() == Some(&loose(h)) {
                continue;
            }
            // The extra a heading that does not start an entry becomes: its line as written.
            target = push_extra(e, form, src.text.trim().to_owned(), "", true);
            blank = false;
            continue;
        }
        let Some(e) = entry else {
            if in_frame {
                frame.push(src.text);
                open_fence = fence(src.text);
                continue;
            }
            if is_blank(src.text) {
                continue;
            }
            return Err(no_entry(src.no));
        };
        if let Some((label, value)) = field_line(src.text).or_else(|| bullet_field_line(src.text)) {
            target = match form.field_of(label) {
                Some(i) => {
                    let slot = e.fields[i].get_or_insert_with(|| RawField {
                        line: src.no,
                        lines: Vec::new(),
                    });
                    slot.lines.push(Src {
                        no: src.no,
                        text: value,
                    });
                    Target::Field(i)
                }
                None => push_extra(e, form, one_line(label), value, false),
            };
            blank = false;
            open_fence = fence(value).filter(|_| !is_list(form, target));
            continue;
        }
        // A thematic break separates; indented, it is a list item's content.
        if src.text.trim().is_empty() || (is_blank(src.text) && !src.text.starts_with(' ')) {
            blank = true;
            continue;
        }
        target = push_line(e, form, target, src, blank);
        blank = false;
        open_fence = fence(src.text).filter(|_| !is_list(form, target));
    }
    Ok((items, frame_text(&frame)))
}

/// The frame as stored: its lines as written, trailing blank lines left out, ending with a
/// newline; `None` for none.
pub(crate) fn frame_text(lines: &[&str]) -> Option<String> {
    let end = lines
        .iter()
        .rposition(|l| !l.trim().is_empty())
        .map_or(0, |i| i + 1);
    (end > 0).then(|| {
        let mut t = lines[..end].join("\n");
        t.push('\n');
        t
    })
}

/// Adds one content line to where it belongs, and returns where the next one goes. A blank
/// line before it ends a text field or a labelled extra: the line starts prose of its own.
fn push_line<'a>(
    e: &mut RawEntry<'a>,
    form: &Form,
    target: Target,
    src: Src<'a>,
    blank: bool,
) -> Target {
    // After a blank line a list goes on only with another item (or an item's indented
    // continuation); anything else is prose.
    let list_goes_on = |i: usize| {
        form.fields[i].list
            && (starts_list_item(src.text) || src.text.starts_with(char::is_whitespace))
    };
    match target {
        Target::Field(i) if !blank || list_goes_on(i) => {
            if let Some(f) = e.fields[i].as_mut() {
                f.lines.push(src);
            }
            target
        }
        Target::Extra(j, section) if !blank || section => {
            let x = &mut e.extras[j];
            if !x.text.is_empty() {
                x.text.push_str(if blank { "\n\n" } else { "\n" });
            }
            x.text.push_str(src.text);
            target
        }
        _ => push_extra(e, form, String::new(), src.text, false),
    }
}

/// Whether lines go to a list or one-line field (those are not read for code fences).
fn is_list(form: &Form, target: Target) -> bool {
    matches!(target, Target::Field(i) if form.fields[i].list || form.fields[i].line)
}

/// Adds an extra after the last known field the entry has so far (after none: empty), and
/// returns it as where the next lines go.
fn push_extra(
    e: &mut RawEntry<'_>,
    form: &Form,
    label: String,
    text: &str,
    section: bool,
) -> Target {
    // Fields are filled in the order met, so the last one met is the one with the highest
    // first line.
    let after = e
        .fields
        .iter()
        .enumerate()
        .filter_map(|(i, f)| f.as_ref().map(|f| (f.line, i)))
        .max()
        .map(|(_, i)| form.fields[i].label.to_owned())
        .unwrap_or_default();
    let text = text.to_owned();
    e.extras.push(Extra { after, label, text });
    Target::Extra(e.extras.len() - 1, section)
}

/// What a heading is to an entry format.
#[derive(Debug, PartialEq)]
enum Head {
    /// An entry's heading: its time (if it gives one) and its title (empty for untitled
    /// forms, or what the heading holds after its word).
    Entry(Option<String>, String),
    /// Any other heading: a sub-section of the entry above, the file's title, prose.
    Other,
}

/// The words every entry format starts its entries with: in another format's file, a heading
/// with one of them is an entry filed in the wrong place, never part of the entry above.
const EVERY_WORD: [&str; 5] = [
    "Decision",
    "Convention",
    "Instinct",
    "Session Summary",
    "Progress Update",
];

/// What separates a heading's date or word from what follows (`— Decision`, `Decision - x`).
fn strip_separator(s: &str) -> Option<&str> {
    let t = s.trim_start();
    ["—", "–", "-", "|", ":"]
        .iter()
        .find_map(|sep| t.strip_prefix(sep))
        .filter(|r| r.is_empty() || r.starts_with(char::is_whitespace))
        .map(str::trim_start)
}

/// `word` at the start of `s` as a whole word (`Decisions` is not `Decision`): what follows.
fn whole_word<'a>(s: &'a str, word: &str) -> Option<&'a str> {
    strip_word(s, word).filter(|r| !r.starts_with(|c: char| c.is_alphanumeric()))
}

/// Reads a heading line (its text after the `#`s) as `form` does. `lenient`: the heading
/// stands where an entry may start (before any entry, or at the level of the entry above or
/// higher); there a heading written loosely (`## 2026-11-25 — Decision: x`, `## Decision - x`,
/// `## Decision x`, `## ADR-004: x`, a date and a title without the word) starts an entry,
/// and one that starts like an entry but cannot be read (a date that is none, another
/// format's word) is refused, so it never joins the entry above. `fields_below` says whether
/// known field lines follow, which a heading without a colon or word needs to be an entry.
fn classify(
    h: &str,
    form: &Form,
    lenient: bool,
    fields_below: impl Fn() -> bool,
) -> Result<Head, String> {
    let (at, rest) = match date_prefix(h) {
        DatePrefix::Date(at, rest) => (Some(at), rest),
        DatePrefix::Bad(d) if lenient => {
            return Err(format!(
                "{d:?} is not a date: write the heading as \"{}\"",
                form.shape
            ))
        }
        DatePrefix::Bad(_) => return Ok(Head::Other),
        DatePrefix::None => (None, h.trim_start()),
    };
    // `2026-11-25 — Decision: x`: a dash between the date and the word.
    let rest = match (&at, strip_separator(rest)) {
        (Some(_), Some(r)) if lenient => r,
        _ => rest,
    };
    let words = form.words.iter().map(|w| (*w, false));
    for (w, alias) in words.chain(form.aliases.iter().map(|a| (*a, true))) {
        let Some(r) = whole_word(rest, w) else {
            continue;
        };
        if !form.titled {
            let r = r.trim_start();
            return Ok(Head::Entry(at, one_line(r.strip_prefix(':').unwrap_or(r))));
        }
        if let Some(t) = r.trim_start().strip_prefix(':') {
            // `ADR-004: x` reads as an alias followed by its number below.
            if !(alias && t.is_empty()) {
                return Ok(Head::Entry(at, one_line(t)));
            }
        }
        if !lenient {
            continue;
        }
        // An alias with a number (`ADR-004: x`, `ADR 4 - x`) keeps it in the title.
        let numbered = r
            .trim_start()
            .trim_start_matches(['-', '#'])
            .starts_with(|c: char| c.is_ascii_digit());
        if alias && numbered {
            return Ok(Head::Entry(at, one_line(rest)));
        }
        if let Some(t) = strip_separator(r) {
            return Ok(Head::Entry(at, one_line(t)));
        }
        if r.trim().is_empty() {
            return Ok(Head::Entry(at, String::new()));
        }
        // `## Decision without date`: an entry when its fields follow.
        if r.starts_with(char::is_whitespace) && fields_below() {
            return Ok(Head::Entry(at, one_line(r)));
        }
    }
    if !lenient {
        return Ok(Head::Other);
    }
    if let Some(other) = EVERY_WORD.iter().find(|w| {
        whole_word(rest, w).is_some_and(|r| r.trim_start().starts_with(':'))
            && !form.words.contains(w)
    }) {
        return Err(format!(
            "a {other} heading where \"{}\" entries go: move it to the file of its kind, or \
             write it as \"{}\"",
            form.words[0], form.shape
        ));
    }
    // A date and a title without the word (`## [2026-04-05] Use Redis`), with fields below.
    if at.is_some() && fields_below() {
        return Ok(Head::Entry(at, one_line(rest)));
    }
    Ok(Head::Other)
}

/// Whether a known field line of `form` comes before the next heading (code fences skipped).
fn has_fields_below(lines: &[Src<'_>], form: &Form) -> bool {
    let mut open: Option<&str> = None;
    for src in lines {
        if let Some(marker) = open {
            if src.text.starts_with(marker) {
                open = None;
            }
            continue;
        }
        if heading(src.text).is_some() {
            return false;
        }
        if let Some((label, _)) = field_line(src.text).or_else(|| bullet_field_line(src.text)) {
            if form.field_of(label).is_some() {
                return true;
            }
        }
        open = fence(src.text);
    }
    false
}

/// A file of `header` then each of `records`: a withheld one as a placeholder naming its kind,
/// the others as `each` writes their normal body.
pub(crate) fn render_each(
    header: &str,
    records: &[Record],
    withhold: Withhold<'_>,
    mut each: impl FnMut(&mut String, &Record, Body),
) -> String {
    let mut out = String::from(header);
    for r in records {
        if withhold(r) {
            out.push_str(&format!("\n{}\n", withheld_line(r.kind().as_str(), &r.id)));
        } else {
            each(&mut out, r, super::normal(&r.body));
        }
    }
    out
}

/// Writes the extras that came after `after` (the empty string: right after the heading):
/// a section as its heading and text, a labelled field as `**Label:** text`, prose after a
/// blank line.
pub(crate) fn push_extras(out: &mut String, extras: &[Extra], after: &str) {
    for x in extras.iter().filter(|x| x.after == after && x.label != "#") {
        if x.label.starts_with('#') {
            out.push_str(&x.label);
            out.push('\n');
            if !x.text.is_empty() {
                out.push_str(&x.text);
                out.push('\n');
            }
        } else if !x.label.is_empty() {
            super::text::push_field(out, &x.label, &x.text);
        } else {
            out.push('\n');
            out.push_str(&x.text);
            out.push('\n');
        }
    }
}

/// The text an untitled heading carried after its word (`Session Summary — sprint 3`), kept
/// as the extra labelled `#`.
pub(crate) fn heading_rest(extras: &[Extra]) -> Option<&str> {
    extras
        .iter()
        .find(|x| x.label == "#")
        .map(|x| x.text.as_str())
}

#[cfg(test)]
#[path = "entry_tests.rs"]
mod tests;

#[cfg(test)]
mod testing {
    use super::*;

    /// Splits a file into raw entries; everything a format still has to check is per entry.
    pub(crate) fn parse<'a>(text: &'a str, form: &Form) -> Result<Vec<RawItem<'a>>, ParseError> {
        parse_framed(text, form).map(|(items, _)| items)
    }

    /// The entries of a parse, with each placeholder where it stood.
    pub(crate) fn entries<'a, 'b>(
        items: &'b [RawItem<'a>],
    ) -> impl Iterator<Item = &'b RawEntry<'a>> {
        items.iter().filter_map(|i| match i {
            RawItem::Entry(e) => Some(e),
            RawItem::Withheld(_) => None,
        })
    }
}
