//! The prose lexicon (`src/secrets/data/prose.txt`): per language, the nouns that name a
//! secret, the words that introduce its value and how the language attaches words, with an
//! index by the nouns' first bytes. Compiled in, parsed the first time a scan needs it.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::data::parse_lists;

const PROSE: &str = include_str!("data/prose.txt");

/// What a noun in prose names.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) enum Said {
    Password,
    Token,
    /// A login pair: `login: admin / S3cret!`.
    Login,
}

/// One language's glue words and how its words attach.
#[derive(Debug, Default)]
pub(super) struct Lang {
    pub(super) tag: &'static str,
    pub(super) qualifiers: Vec<String>,
    pub(super) copulas: Vec<String>,
    pub(super) adverbs: Vec<String>,
    /// Words between a login noun and its pair ("log in *with* admin / …").
    pub(super) through: Vec<String>,
    pub(super) glued: bool,
    pub(super) inflects: usize,
    pub(super) compounds: bool,
    pub(super) genitive: bool,
    pub(super) dash: bool,
}

/// A noun of some language, lower-cased.
#[derive(Debug)]
pub(super) struct Noun {
    pub(super) text: String,
    /// The languages that have it ("token" is in several), in file order.
    pub(super) langs: Vec<usize>,
    pub(super) said: Said,
}

/// Which nouns may start at a position: at a word's start, or also inside a word (the nouns of
/// languages that build compounds or glue words).
#[derive(Debug, Default, Clone)]
pub(super) struct Starts {
    pub(super) at_word: Vec<usize>,
    pub(super) in_word: Vec<usize>,
}

/// The parsed `prose.txt`, with an index by the nouns' first character.
#[derive(Debug)]
pub(super) struct Lexicon {
    pub(super) langs: Vec<Lang>,
    pub(super) nouns: Vec<Noun>,
    /// Nouns by their first ASCII byte (lower case), longest first.
    ascii: Vec<Starts>,
    /// Nouns by their first non-ASCII character (lower case), longest first.
    other: HashMap<char, Starts>,
    /// Which bytes can start a noun (either case): most text positions are rejected by one
    /// probe.
    pub(super) first_bytes: [bool; 256],
    /// Which (lower-case) first two bytes start a noun that starts with an ASCII letter: a
    /// second probe for the positions the first let through.
    pairs: Box<[u64; 1024]>,
    /// The same for the nouns that may start inside a word (compounds): most positions of a
    /// text are inside a word, and few nouns can start there.
    in_word_pairs: Box<[u64; 1024]>,
}

/// The bit of two bytes in [`Lexicon`]'s `pairs`.
fn pair_bit(b0: u8, b1: u8) -> usize {
    usize::from(b0.to_ascii_lowercase()) << 8 | usize::from(b1.to_ascii_lowercase())
}

impl Lexicon {
    /// Whether a noun may start with ASCII byte `b0` followed by byte `b1`, at a word's start
    /// or (`in_word`) inside one.
    pub(super) fn may_start(&self, b0: u8, b1: u8, in_word: bool) -> bool {
        let k = pair_bit(b0, b1);
        let bits = if in_word {
            &self.in_word_pairs
        } else {
            &self.pairs
        };
        bits[k >> 6] >> (k & 63) & 1 == 1
    }

    /// The nouns that may start with `c`, longest first.
    pub(super) fn starting_with(&self, c: char) -> Option<&Starts> {
        if c.is_ascii() {
            return self.ascii.get(c.to_ascii_lowercase() as usize);
        }
        let lower = c.to_lowercase().next().unwrap_or(c);
        self.other.get(&lower)
    }
}

/// The prose lexicon, parsed on first use.
pub(super) fn lexicon() -> &'static Lexicon {
    static LEXICON: OnceLock<Lexicon> = OnceLock::new();
    LEXICON.get_or_init(|| parse_lexicon(PROSE).unwrap_or_else(|e| panic!("{e}")))
}

pub(super) fn parse_lexicon(text: &'static str) -> Result<Lexicon, String> {
    let file = "src/secrets/data/prose.txt";
    let mut langs: Vec<Lang> = Vec::new();
    let mut nouns: Vec<Noun> = Vec::new();
    // (text, kind) → index in `nouns`: a noun several languages share is one entry.
    let mut seen: HashMap<(String, u8), usize> = HashMap::new();
    for (name, entries) in parse_lists(file, text)? {
        let Some((tag, list)) = name.split_once('.') else {
            return Err(format!("{file}: [{name}] is not [<lang>.<list>]"));
        };
        let lang = match langs.iter().position(|l| l.tag == tag) {
            Some(i) => i,
            None => {
                langs.push(Lang {
                    tag,
                    ..Lang::default()
                });
                langs.len() - 1
            }
        };
        let lower = || entries.iter().map(|e| e.to_lowercase());
        let l = &mut langs[lang];
        let said = match list {
            "password" => Some(Said::Password),
            "token" => Some(Said::Token),
            "login" => Some(Said::Login),
            "qualifier" | "copula" | "adverb" | "through" => {
                let words = match list {
                    "qualifier" => &mut l.qualifiers,
                    "copula" => &mut l.copulas,
                    "adverb" => &mut l.adverbs,
                    _ => &mut l.through,
                };
                words.extend(lower());
                None
            }
            "flags" => {
                for flag in lower() {
                    match flag.split_once('=') {
                        Some(("inflects", n)) => {
                            l.inflects = n
                                .parse()
                                .map_err(|_| format!("{file}: [{name}]: inflects={n}"))?;
                        }
                        None if flag == "glued" => l.glued = true,
                        None if flag == "compounds" => l.compounds = true,
                        None if flag == "genitive" => l.genitive = true,
                        None if flag == "dash" => l.dash = true,
                        _ => return Err(format!("{file}: [{name}]: unknown flag {flag}")),
                    }
                }
                None
            }
            _ => return Err(format!("{file}: unknown list [{name}]")),
        };
        if let Some(said) = said {
            for text in lower() {
                match seen.entry((text.clone(), said as u8)) {
                    std::collections::hash_map::Entry::Occupied(at) => {
                        nouns[*at.get()].langs.push(lang);
                    }
                    std::collections::hash_map::Entry::Vacant(at) => {
                        at.insert(nouns.len());
                        nouns.push(Noun {
                            text,
                            langs: vec![lang],
                            said,
                        });
                    }
                }
            }
        }
    }
    let mut ascii = vec![Starts::default(); 128];
    let mut other: HashMap<char, Starts> = HashMap::new();
    let mut first_bytes = [false; 256];
    let mut pairs = Box::new([0u64; 1024]);
    let mut in_word_pairs = Box::new([0u64; 1024]);
    for (i, n) in nouns.iter().enumerate() {
        let in_word = n
            .langs
            .iter()
            .any(|&l| langs[l].glued || langs[l].compounds);
        if let [b0, b1, ..] = n.text.as_bytes() {
            if b0.is_ascii() {
                let k = pair_bit(*b0, *b1);
                pairs[k >> 6] |= 1 << (k & 63);
                if in_word {
                    in_word_pairs[k >> 6] |= 1 << (k & 63);
                }
            }
        }
        let Some(c) = n.text.chars().next() else {
            return Err(format!("{file}: an empty noun"));
        };
        let starts = if c.is_ascii() {
            &mut ascii[c as usize]
        } else {
            other.entry(c).or_default()
        };
        starts.at_word.push(i);
        if in_word {
            starts.in_word.push(i);
        }
        if n.text.len() < 2 {
            return Err(format!(
                "{file}: noun {:?} is shorter than two bytes",
                n.text
            ));
        }
        let mut buf = [0u8; 4];
        for variant in c.to_lowercase().chain(c.to_uppercase()).chain([c]) {
            first_bytes[variant.encode_utf8(&mut buf).as_bytes()[0] as usize] = true;
        }
    }
    let longest_first = |list: &mut Vec<usize>| {
        list.sort_by_key(|&i| std::cmp::Reverse(nouns[i].text.len()));
    };
    for s in ascii.iter_mut().chain(other.values_mut()) {
        longest_first(&mut s.at_word);
        longest_first(&mut s.in_word);
    }
    Ok(Lexicon {
        langs,
        nouns,
        ascii,
        other,
        first_bytes,
        pairs,
        in_word_pairs,
    })
}
