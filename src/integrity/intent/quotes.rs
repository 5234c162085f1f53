//! Quoted and cited instructions: an attack written inside quotation marks in a line of prose,
//! or reported after a citing word, is documentation rather than an order.

use super::*;

/// Whether words `first..=last` are quoted inside a line of prose, or reported after a citing
/// word ("told the model to …") in a clause that does not address the reader.
pub(in crate::integrity) fn cited_or_quoted(
    w: &Words,
    cues: &[u64],
    first: usize,
    last: usize,
    quotes: &mut QuoteCache,
) -> bool {
    let (s, e) = (w.list[first].start, w.list[last].end);
    if quotes.quoted_in_prose(w.text(), s, e, false) {
        return true;
    }
    // A verb-final language's imperative is one by its form, wherever the clause starts.
    let verb_final = (first..=last).any(|k| cues.get(k).is_some_and(|c| c & FINAL != 0));
    if w.clause_start(first) || verb_final {
        return false;
    }
    let mut k = first;
    let mut cited = false;
    while k > 0 && !w.clause_start(k) && first - k < 8 {
        k -= 1;
        let c = cues.get(k).copied().unwrap_or(0);
        if c & (YOU | YOUR) != 0 {
            return false;
        }
        cited |= c & CITE != 0;
    }
    cited
}

/// The quotations of the last line looked at, so that many findings on one line read it
/// once.
#[derive(Default)]
pub(in crate::integrity) struct QuoteCache {
    /// The line's span in the text.
    line: (usize, usize),
    /// Its quotations: where the quote mark is, and the span of their content, in the line.
    spans: Vec<(usize, usize, usize)>,
    read: bool,
}

impl QuoteCache {
    /// Whether `text[s..e]` lies inside one quotation (straight, curly or angle quotes, CJK
    /// corner brackets, or a code span; only a code span if `code_only`) on its line, with at
    /// least a few letters of the line outside it: a quote inside prose, not a line that is
    /// only a quote. Lines of more than 4 KB are not read.
    pub(in crate::integrity) fn quoted_in_prose(
        &mut self,
        text: &[u8],
        s: usize,
        e: usize,
        code_only: bool,
    ) -> bool {
        // The line read last, when it holds the span: no search back over a long line.
        let known = self.read && self.line.0 <= s && e <= self.line.1;
        let ls = if known {
            self.line.0
        } else {
            text[..s]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |p| p + 1)
        };
        if !known {
            let le = text[e..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(text.len(), |p| e + p);
            self.line = (ls, le);
            self.read = true;
            self.spans = if le - ls > 4096 {
                Vec::new()
            } else {
                std::str::from_utf8(&text[ls..le]).map_or(Vec::new(), quotations)
            };
        }
        if self.spans.is_empty() {
            return false;
        }
        let Ok(line) = std::str::from_utf8(&text[self.line.0..self.line.1]) else {
            return false;
        };
        let (s, e) = (s - ls, e - ls);
        // A JSON or dict value (`"content": "…"`) is data of a structure, not a quote in prose.
        let value = |open: usize| {
            let before = line[..open].trim_end();
            before.ends_with(':') && before[..before.len() - 1].trim_end().ends_with(['"', '\''])
        };
        self.spans.iter().any(|&(open, qs, qe)| {
            qs <= s
                && e <= qe
                && !value(open)
                && (!code_only || line.as_bytes()[open] == b'`')
                && line[..open]
                    .chars()
                    .chain(line[qe..].chars())
                    .filter(|c| c.is_alphabetic())
                    .count()
                    >= 3
        })
    }
}

/// The quotations of a line: where the quote mark is, and the span of their content.
fn quotations(line: &str) -> Vec<(usize, usize, usize)> {
    // The quotations of the line: where the quote mark is, and the span of their content.
    let mut spans = Vec::new();
    let mut open: Option<(char, usize)> = None;
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    let mut k = 0;
    while k < chars.len() {
        let (at, ch) = chars[k];
        let prev = k.checked_sub(1).map(|p| chars[p].1);
        let next = chars.get(k + 1).map(|x| x.1);
        if ch == '`' {
            let run = chars[k..].iter().take_while(|x| x.1 == '`').count();
            if open.is_none() {
                // Find the closing run of the same length.
                let mut j = k + run;
                while j < chars.len() {
                    let r = chars[j..].iter().take_while(|x| x.1 == '`').count();
                    if r == run {
                        spans.push((at, chars[k + run - 1].0 + 1, chars[j].0));
                        k = j + r;
                        break;
                    }
                    j += r.max(1);
                }
                if j >= chars.len() {
                    k += run;
                }
                continue;
            }
            k += run;
            continue;
        }
        let closes = |o: char| match o {
            '"' => ch == '"',
            '\'' => ch == '\'' && !next.is_some_and(char::is_alphanumeric),
            '“' => ch == '”' || ch == '“',
            '„' => ch == '“' || ch == '”',
            '«' => ch == '»',
            '‘' => ch == '’',
            '「' => ch == '」',
            '『' => ch == '』',
            _ => false,
        };
        match open {
            Some((o, from)) if closes(o) => {
                spans.push((from - o.len_utf8(), from, at));
                open = None;
            }
            None => {
                let opens = match ch {
                    '"' | '“' | '„' | '«' | '‘' | '「' | '『' => true,
                    '\'' => {
                        !prev.is_some_and(char::is_alphanumeric)
                            && next.is_some_and(|n| !n.is_whitespace())
                    }
                    _ => false,
                };
                if opens {
                    open = Some((ch, at + ch.len_utf8()));
                }
            }
            _ => {}
        }
        k += 1;
    }
    spans
}
