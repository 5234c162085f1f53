//! `session-log.md`: the seed's one-line-per-session log.

use super::text::{
    heading, is_blank, minute, numbered, one_line, parse_time, withheld_id, withheld_line,
};
use super::{normal, ParseError, Parsed, Withhold};
use crate::model::kinds::Session;
use crate::model::{Body, Record};

pub(crate) fn render(records: &[Record], withhold: Withhold<'_>) -> String {
    let mut out = String::from("# Session Log\n");
    if !records.is_empty() {
        out.push('\n');
    }
    for r in records {
        if withhold(r) {
            out.push_str(&withheld_line("session", &r.id));
            out.push('\n');
            continue;
        }
        if let Body::Session(Session { summary, .. }) = normal(&r.body) {
            out.push_str(&format!("[{}] — {summary}\n", minute(&r.meta.ts)));
        }
    }
    out
}

/// Every non-blank line is an entry, the file's title excepted (a heading further down is an
/// entry too: nothing written is dropped). A leading `[date]` (a bracket opening with a digit,
/// so `[WIP] …` stays text) is the entry's time; the separator after it (` — `, ` - `, `: `)
/// is dropped. Render always writes the date, so a summary may itself start with one.
pub(crate) fn parse(text: &str) -> Result<super::Framed, ParseError> {
    let lines: Vec<_> = numbered(text).collect();
    // The frame: the title and whatever comes before the first dated line (or placeholder).
    let first = lines
        .iter()
        .position(|src| withheld_id(src.text).is_some() || summary_of(src.text.trim()).0.is_some())
        .unwrap_or(lines.len());
    let frame: Vec<&str> = lines[..first].iter().map(|s| s.text).collect();
    let mut out = Vec::new();
    for src in &lines[first..] {
        let line = src.text.trim();
        if is_blank(line) {
            continue;
        }
        if let Some(id) = withheld_id(src.text) {
            out.push(Parsed::Withheld(id.to_owned()));
            continue;
        }
        let line = match heading(src.text) {
            Some((_, h)) => h,
            None => line,
        };
        let (at, summary) = summary_of(line);
        out.push(Parsed::entry(
            Body::Session(Session {
                summary: one_line(summary),
                git: None,
            }),
            at,
        ));
    }
    Ok(super::Framed {
        items: out,
        frame: super::entry::frame_text(&frame).filter(|f| f != "# Session Log\n"),
    })
}

fn summary_of(line: &str) -> (Option<String>, &str) {
    let line = match line.strip_prefix(['-', '*']) {
        Some(rest) if rest.starts_with(' ') && rest.trim_start().starts_with('[') => {
            rest.trim_start()
        }
        _ => line,
    };
    let Some(inner) = line.strip_prefix('[') else {
        return (None, line);
    };
    let Some(close) = inner.find(']') else {
        return (None, line);
    };
    if !inner.starts_with(|c: char| c.is_ascii_digit()) {
        return (None, line);
    }
    let at = parse_time(&inner[..close]);
    let rest = inner[close + 1..].trim_start();
    (at, rest.strip_prefix(['—', '–', '-', ':']).unwrap_or(rest))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{fold, Draft};
    use crate::view::{self, ViewFile};

    fn session(s: &str) -> Body {
        Body::Session(Session {
            summary: s.into(),
            git: None,
        })
    }

    #[test]
    fn renders_one_line_per_session() {
        let a = Draft::new(session("Built the parser")).stamp("2026-04-04T14:30:00Z", 1, "a");
        let b = Draft::new(session("[WIP] diff")).stamp("2026-04-04T18:02:09Z", 2, "a");
        assert_eq!(
            view::render_all(ViewFile::SessionLog, &fold([&a, &b])),
            "# Session Log

[2026-04-04 14:30] — Built the parser
[2026-04-04 18:02] — [WIP] diff
"
        );
        assert_eq!(
            view::render_all(ViewFile::SessionLog, &fold([])),
            "# Session Log\n"
        );
    }

    #[test]
    fn parses_hand_written_lines() {
        let text = "# Session Log\n\n[2026-04-04 14:30] — Built the parser\n[2026-04-05 09:00] - dash\n[2026-04-05] : colon\n- [2026-04-06 10:00] — bullet\nno date at all\n[WIP] bracket text\n";
        assert_eq!(
            view::parse_bodies(ViewFile::SessionLog, text).unwrap(),
            vec![
                session("Built the parser"),
                session("dash"),
                session("colon"),
                session("bullet"),
                session("no date at all"),
                session("[WIP] bracket text"),
            ]
        );
    }
}
