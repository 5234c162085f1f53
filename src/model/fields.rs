//! The one walk over a record's human-written text fields, with the shape each is written
//! in: the seal's normalizer and secret filter and the integrity scan all use it, so a new
//! field cannot be missed by one of them.

use super::meta::Extra;

/// How a text field is written in the view, which decides its normal form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// One line (titles, names, keys, summaries).
    Line,
    /// Free text over several lines; `inline_first` when its first line follows a label on
    /// the same line (`**Context:** …`).
    Block { inline_first: bool },
    /// Free text kept as written (a learning's insight).
    Text,
    /// One list item.
    Item,
    /// A list of items.
    Items,
    /// A list of file paths; `split_commas` when one item may hold several.
    Paths { split_commas: bool },
    /// One of a fixed list of section names.
    Section(&'static [&'static str]),
    /// Kept byte for byte (a document's content): never rewritten.
    Raw,
    /// Prose that starts a line of its own, its indentation kept: otherwise as
    /// `Block { inline_first: false }`.
    Prose,
}

/// A text field: one string, or a list of them.
pub enum Field<'a> {
    One(&'a mut String),
    Many(&'a mut Vec<String>),
}

/// A block whose first line follows its label (`**Context:** …`).
pub(crate) const BLOCK: Shape = Shape::Block { inline_first: true };
/// A block on lines of its own.
pub(crate) const BLOCK_OWN_LINE: Shape = Shape::Block {
    inline_first: false,
};

/// Visits what the view kept beside a record's fields: each label as a line, each text in
/// `shape`. The rest of a heading line (label `#`) is one line; a labelled line's value
/// starts after its label (`**Owner:** x`); prose and a section's text start a line of their
/// own, and keep their indentation.
pub(crate) fn extras(
    list: &mut [Extra],
    shape: Shape,
    f: &mut dyn FnMut(&'static str, Shape, Field<'_>),
) {
    for e in list {
        f("extra", Shape::Line, Field::One(&mut e.label));
        let labelled = !e.label.is_empty() && !e.label.starts_with('#');
        let shape = match shape {
            _ if e.label == "#" => Shape::Line,
            Shape::Block { .. } | Shape::Prose if labelled => BLOCK,
            other => other,
        };
        f("extra", shape, Field::One(&mut e.text));
    }
}
