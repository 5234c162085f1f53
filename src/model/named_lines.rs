//! The text form the local caches keep named lists of records in (load's digest, the folded
//! echoes): a header line (JSON, the caller's), one `<list name> <stored record line>` per
//! record, and `end <count>`, so a file cut short reads as nothing.

use super::record::Record;
use super::wire::decode as decode_line;

/// The text of `header` (one line) and the records of `lists`, in order.
pub fn encode<'a>(
    header: &str,
    lists: impl IntoIterator<Item = (&'a str, &'a [Record])>,
) -> String {
    let mut out = String::from(header);
    out.push('\n');
    let mut n = 0;
    for (name, list) in lists {
        for r in list {
            out.push_str(name);
            out.push(' ');
            out.push_str(&r.to_line());
            out.push('\n');
            n += 1;
        }
    }
    out.push_str(&format!("end {n}\n"));
    out
}

/// Reads such a text back: `accept` judges the header line first (`None`: not this cache's,
/// nothing more is read), then `push` takes each record with its list's name (`None`: a name
/// it does not know). `None` unless every line reads and the count at the end is right.
pub fn decode<H>(
    text: &str,
    accept: impl FnOnce(&str) -> Option<H>,
    mut push: impl FnMut(&mut H, &str, Record) -> Option<()>,
) -> Option<H> {
    let mut lines = text.lines();
    let mut out = accept(lines.next()?)?;
    let mut lines = lines.enumerate();
    while let Some((n, line)) = lines.next() {
        let (name, record) = line.split_once(' ')?;
        if name == "end" {
            return (record.parse() == Ok(n) && lines.next().is_none()).then_some(out);
        }
        push(&mut out, name, decode_line(record).ok()?)?;
    }
    None
}
