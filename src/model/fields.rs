//! The one walk over a record's human-written text fields, with the shape each is written
//! in: the seal's normalizer and secret filter and the integrity scan all use it, so a new
//! field cannot be missed by one of them.

use super::record::{Body, Extra};
use crate::model::kinds::{
    Checkpoint, ContextBlock, Convention, CumulativeNote, Decision, Delete, Document, Echo,
    EchoRef, Instinct, Invariant, Learning, Oracle, Progress, Resolve, Session, Task, TaskNote,
};

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

impl Body {
    /// Visits every human-written field of the record once, with its name and [`Shape`]:
    /// the one walk over the fields that the seal's normalizer and secret filter and the
    /// integrity scan all use, so a new field cannot be missed by one of them.
    pub fn fields_mut(&mut self, f: &mut dyn FnMut(&'static str, Shape, Field<'_>)) {
        use Field::{Many, One};
        use Shape::*;
        let block = Block { inline_first: true };
        let block_own_line = Block {
            inline_first: false,
        };
        fn extras(
            list: &mut [Extra],
            shape: Shape,
            f: &mut dyn FnMut(&'static str, Shape, Field<'_>),
        ) {
            for e in list {
                f("extra", Line, One(&mut e.label));
                // `#`: the rest of a heading line, which is one line. A labelled line's value
                // starts after its label (`**Owner:** x`); prose and a section's text start a
                // line of their own, and keep their indentation.
                let shape = match shape {
                    _ if e.label == "#" => Line,
                    Block { .. } if !e.label.is_empty() && !e.label.starts_with('#') => {
                        Block { inline_first: true }
                    }
                    Prose if !e.label.is_empty() && !e.label.starts_with('#') => {
                        Block { inline_first: true }
                    }
                    other => other,
                };
                f("extra", shape, One(&mut e.text));
            }
        }
        match self {
            Body::Decision(Decision {
                title,
                context,
                decision,
                rationale,
                impact,
                files,
                extra,
                ..
            }) => {
                f("title", Line, One(title));
                f("context", block, One(context));
                f("decision", block, One(decision));
                f("rationale", block, One(rationale));
                f("impact", block, One(impact));
                f("files", Paths { split_commas: true }, Many(files));
                extras(extra, Prose, f);
            }
            Body::Convention(Convention {
                title,
                pattern,
                example,
                applies_to,
                extra,
            }) => {
                f("title", Line, One(title));
                f("pattern", block, One(pattern));
                f("example", block, One(example));
                f("applies_to", block, One(applies_to));
                extras(extra, Prose, f);
            }
            Body::Learning(Learning {
                skill,
                key,
                insight,
                files,
                extra,
                ..
            }) => {
                f("skill", Line, One(skill));
                f("key", Line, One(key));
                f("insight", Text, One(insight));
                f(
                    "files",
                    Paths {
                        split_commas: false,
                    },
                    Many(files),
                );
                extras(extra, Text, f);
            }
            Body::Instinct(Instinct {
                name,
                trigger,
                action,
                evidence,
                extra,
                ..
            }) => {
                f("name", Line, One(name));
                f("trigger", block, One(trigger));
                f("action", block, One(action));
                f("evidence", block, One(evidence));
                extras(extra, Prose, f);
            }
            Body::Progress(Progress {
                completed,
                in_progress,
                blocked,
                next,
                extra,
            }) => {
                f("completed", Items, Many(completed));
                f("in_progress", Items, Many(in_progress));
                f("blocked", Items, Many(blocked));
                f("next", Items, Many(next));
                extras(extra, block_own_line, f);
            }
            Body::Checkpoint(Checkpoint {
                doing,
                left,
                context,
                resume,
                extra,
                ..
            }) => {
                let block = Block {
                    inline_first: false,
                };
                f("doing", block, One(doing));
                f("left", Items, Many(left));
                f("context", Items, Many(context));
                f("resume", block, One(resume));
                extras(extra, block, f);
            }
            Body::Session(Session { summary, .. }) => f("summary", Line, One(summary)),
            Body::CumulativeNote(CumulativeNote { section, text }) => {
                f(
                    "section",
                    Section(&super::CUMULATIVE_SECTIONS),
                    One(section),
                );
                f("text", Item, One(text));
            }
            Body::TaskNote(TaskNote {
                task,
                section,
                text,
            }) => {
                f("task", Line, One(task));
                f("section", Section(&super::TASK_SECTIONS), One(section));
                f("text", Item, One(text));
            }
            Body::Invariant(Invariant {
                section,
                title,
                what,
                r#where,
                why,
                extra,
            }) => {
                f("section", Line, One(section));
                f("title", Line, One(title));
                f("what", Line, One(what));
                f(
                    "where",
                    Paths {
                        split_commas: false,
                    },
                    Many(r#where),
                );
                f("why", Line, One(why));
                // Every line of a rule is kept as written (view::invariants::normalize_extras).
                extras(extra, Raw, f);
            }
            Body::Task(Task {
                title,
                context,
                files,
                extra,
                ..
            }) => {
                f("title", Line, One(title));
                f("context", Line, One(context));
                f("files", Paths { split_commas: true }, Many(files));
                extras(extra, Line, f);
            }
            Body::ContextBlock(ContextBlock {
                title,
                content,
                related_tasks,
                ..
            }) => {
                f("title", Line, One(title));
                f("content", Text, One(content));
                f("related_tasks", Items, Many(related_tasks));
            }
            Body::Oracle(Oracle {
                target_model,
                response_id,
                response_excerpt,
                ..
            }) => {
                f("target_model", Line, One(target_model));
                f("response_id", Line, One(response_id));
                f("response_excerpt", Text, One(response_excerpt));
            }
            Body::Echo(Echo {
                role,
                layer,
                date,
                title,
                source,
                evidence,
                verified,
                supersedes_title,
                text,
                members,
                extra,
                ..
            }) => {
                f("role", Line, One(role));
                f("layer", Line, One(layer));
                f("date", Line, One(date));
                f("title", Line, One(title));
                f("source", Line, One(source));
                f("evidence", Line, One(evidence));
                f("verified", Line, One(verified));
                f("supersedes", Line, One(supersedes_title));
                f("text", Text, One(text));
                f("members", Items, Many(members));
                extras(extra, Line, f);
            }
            Body::EchoRef(EchoRef { workflow, .. }) => f("workflow", Line, One(workflow)),
            Body::Document(Document { path, content }) => {
                f("path", Line, One(path));
                f("content", Raw, One(content));
            }
            Body::Resolve(Resolve { .. }) | Body::Delete(Delete { .. }) => {}
        }
    }

    /// Visits every human-written string in the record (field name, value), so filters
    /// see all text and can rewrite it (redaction) before the record is sealed.
    pub fn texts_mut(&mut self, f: &mut dyn FnMut(&'static str, &mut String)) {
        self.fields_mut(&mut |name, _, field| match field {
            Field::One(s) => f(name, s),
            Field::Many(list) => list.iter_mut().for_each(|s| f(name, s)),
        });
    }

    /// Every human-written string in the record, with its field name.
    pub fn texts(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        self.clone()
            .texts_mut(&mut |name, s| out.push((name, std::mem::take(s))));
        out
    }
}
