//! The load gate on everything the MCP server hands out, as `load` applies it: memory framed
//! as quoted data, TAINTED records withheld, SUSPICIOUS ones marked where they are shown — in
//! a view file rendered for a tool or a resource, on the record's headline — and text that
//! names a record inside other text (a commit note's line, a status line) through the same
//! scan.

pub use crate::integrity::gate::{gated_text, mark};
use crate::memory::load::{quoted, withheld_line, FRAME_CLOSE, FRAME_OPEN};

/// Memory framed as quoted data, as `load` frames it (links made inert, frame markers
/// escaped), closing with the gate's count.
pub fn framed(body: &str, withheld: usize) -> String {
    let mut out = String::from(FRAME_OPEN);
    out.push_str(&quoted(body));
    if !out.ends_with('\n') {
        out.push('\n');
    }
    if let Some(line) = withheld_line(withheld) {
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str(FRAME_CLOSE);
    out
}
