//! The normalised view of a text that every scanner but the hidden-character one reads, with
//! a map back to the original offsets.
//!
//! What a model reads past, the scanners must read past too. Each character that is not ASCII
//! is folded, in this order:
//!
//! 1. **Width and compatibility** (Unicode NFKD, compatibility decomposition): full-width
//!    `ｉｇｎｏｒｅ` and `＜/system＞`, mathematical `𝐢𝐠𝐧𝐨𝐫𝐞`, circled `ⓘ`, ligatures `ﬁ`, the
//!    ideographic space and half-width kana become their plain forms.
//! 2. **Marks and invisibles dropped**: combining diacritics (so `ïgnörè` reads `ignore`, and
//!    table words may be written with or without accents), the marks stacked by "Zalgo" text,
//!    Arabic vowel signs and the tatweel, and every character [`hidden_kind`] names (zero-width
//!    characters, bidi controls, soft hyphens, tag characters). Their presence is reported by
//!    `hidden-character` on the original text; here they only stop splitting words.
//! 3. **Homoglyphs folded**, per word: Cyrillic, Greek, Armenian and a few Latin look-alikes
//!    ([`confusable`], a small table in the spirit of the UTS #39 confusables, restricted to
//!    letters that pass for Latin ones) become the Latin letter they imitate, in a word that
//!    also holds Latin letters (`ignоre` with a Cyrillic `о`) or whose every non-Latin letter
//!    is a look-alike (`іgnоrе`). A Russian or Greek word with any letter of its own (`игнорируй`)
//!    is left as it is, so the Russian tables still match it.
//! 4. **Lower case** for letters that are not ASCII (ASCII keeps its case: shell flags such as
//!    `-O` and `-o` differ, and the word matchers ignore ASCII case anyway).
//!
//! Plain ASCII text, the common case, is its own normal form and costs nothing. Joined
//! hyphenation (`ig-\nnore`) and emphasis inside a word (`ig**nore**`) are undone by the word
//! reader ([`super::words::Words`]), which knows the vocabulary.

use std::borrow::Cow;

use unicode_normalization::char::decompose_compatible;

use super::hidden_kind;

/// A text in normal form, and where each of its bytes came from.
pub(super) struct Norm<'a> {
    pub(super) text: Cow<'a, str>,
    /// For each byte of `text`, and one past its end, the offset in the original text of the
    /// character it came from. Empty when `text` is the original.
    map: Vec<u32>,
}

impl<'a> Norm<'a> {
    pub(super) fn new(original: &'a str) -> Self {
        if original.is_ascii() {
            return Norm {
                text: Cow::Borrowed(original),
                map: Vec::new(),
            };
        }
        let mut b = Builder {
            out: String::with_capacity(original.len() + 8),
            map: Vec::with_capacity(original.len() + 9),
            word: Vec::new(),
        };
        for (i, c) in original.char_indices() {
            if c.is_ascii() {
                b.push(c, i);
            } else if dropped(c) {
            } else if ('\u{AC00}'..='\u{D7A3}').contains(&c) {
                b.push(c, i); // Hangul syllables: decomposing them only costs
            } else {
                decompose_compatible(c, |d| {
                    if !dropped(d) {
                        b.push(d, i)
                    }
                });
            }
        }
        b.flush();
        b.map.push(original.len() as u32);
        Norm {
            text: Cow::Owned(b.out),
            map: b.map,
        }
    }

    /// The offset in the original text of byte `i` of the normal form (`i` may be its length).
    pub(super) fn orig(&self, i: usize) -> usize {
        if self.map.is_empty() {
            i
        } else {
            self.map[i] as usize
        }
    }
}

struct Builder {
    out: String,
    map: Vec<u32>,
    /// The letters of the current word, with their original offsets.
    word: Vec<(char, u32)>,
}

impl Builder {
    fn push(&mut self, c: char, at: usize) {
        if is_word_char(c) {
            self.word.push((c, at as u32));
        } else {
            self.flush();
            self.emit(c, at as u32);
        }
    }

    fn emit(&mut self, c: char, at: u32) {
        self.out.push(c);
        self.map.extend(std::iter::repeat_n(at, c.len_utf8()));
    }

    fn flush(&mut self) {
        let mut word = std::mem::take(&mut self.word);
        let look_alike = |c: char| !c.is_ascii() && confusable(c).is_some();
        if word.iter().any(|&(c, _)| look_alike(c)) {
            let latin = word.iter().any(|(c, _)| c.is_ascii_alphabetic());
            // Judged in lower case: `Не` is Russian, though `Н` alone passes for `H`.
            let all = word.iter().all(|&(c, _)| {
                c.is_ascii() || !c.is_alphabetic() || c.to_lowercase().all(look_alike)
            });
            if latin || all {
                for (c, _) in word.iter_mut() {
                    *c = confusable(*c).unwrap_or(*c);
                }
            }
        }
        for &(c, at) in &word {
            if c.is_ascii() {
                self.emit(c, at);
            } else {
                for l in c.to_lowercase() {
                    if !dropped(l) {
                        self.emit(l, at);
                    }
                }
            }
        }
        word.clear();
        self.word = word;
    }
}

/// Characters the normal form leaves out: combining marks that only decorate a letter, Arabic
/// vowel signs and the tatweel, and invisible characters.
fn dropped(c: char) -> bool {
    matches!(c as u32,
        0x0300..=0x036F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F
        | 0x064B..=0x065F | 0x0670 | 0x0640)
        || (!c.is_ascii() && hidden_kind(c).is_some())
}

/// Letters, digits, and the marks that belong inside words of the scripts the tables cover
/// (Indic vowel signs, virama and nukta; kana voicing marks).
pub(super) fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || (!c.is_ascii()
            && (common_letter(c)
                || c.is_alphanumeric()
                || matches!(c as u32, 0x0900..=0x0963 | 0x0966..=0x0DFF | 0x3099..=0x309C)))
}

/// Letters of the scripts most text is in, answered without the standard library's slow
/// Unicode table search (`char::is_alphanumeric` past ASCII): every range here is letters
/// only, so the answer is the same (a test checks each range against the table).
fn common_letter(c: char) -> bool {
    matches!(c as u32, 0x00C0..=0x00D6 | 0x00D8..=0x00F6 | 0x00F8..=0x024F // Latin
        | 0x0391..=0x03A1 | 0x03A3..=0x03A9 | 0x03B1..=0x03C9 // Greek
        | 0x0400..=0x0481 | 0x048A..=0x04FF // Cyrillic
        | 0x05D0..=0x05EA // Hebrew
        | 0x0621..=0x063A | 0x0641..=0x064A // Arabic
        | 0x3041..=0x3096 | 0x30A1..=0x30FA // kana
        | 0x4E00..=0x9FFF // CJK ideographs
        | 0xAC00..=0xD7A3) // Hangul syllables
}

/// Scripts written without spaces between words (Han, kana), which the word reader segments
/// with its vocabulary.
pub(super) fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3005..=0x3007 | 0x3040..=0x30FA | 0x30FC..=0x30FF | 0x31F0..=0x31FF | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FA1F)
}

/// The Latin letter a look-alike imitates: Cyrillic, Greek and Armenian letters drawn like Latin
/// ones, and Latin variants (dotless ı, script ɑ and ɡ), in that order in each arm. Full-width,
/// mathematical and other compatibility forms are folded before this, by NFKD.
pub(super) fn confusable(c: char) -> Option<char> {
    Some(match c {
        'А' | 'Α' => 'A',
        'В' | 'Β' => 'B',
        'С' | 'Ϲ' => 'C',
        'Ԁ' => 'D',
        'Е' | 'Ε' => 'E',
        'Н' | 'Η' => 'H',
        'І' | 'Ӏ' | 'Ι' => 'I',
        'Ј' => 'J',
        'К' | 'Κ' => 'K',
        'М' | 'Μ' => 'M',
        'Ν' => 'N',
        'О' | 'Ο' | 'Օ' => 'O',
        'Р' | 'Ρ' => 'P',
        'Ԛ' => 'Q',
        'Ѕ' => 'S',
        'Т' | 'Τ' => 'T',
        'Ս' => 'U',
        'Ԝ' => 'W',
        'Х' | 'Χ' => 'X',
        'У' | 'Ү' | 'Υ' => 'Y',
        'Ζ' => 'Z',
        'а' | 'α' | 'ɑ' => 'a',
        'с' | 'ϲ' => 'c',
        'ԁ' => 'd',
        'е' => 'e',
        'ɡ' => 'g',
        'һ' | 'Һ' | 'հ' => 'h',
        'і' | 'ι' | 'ı' | 'ɩ' => 'i',
        'ј' | 'ϳ' | 'ȷ' => 'j',
        'к' | 'κ' => 'k',
        'ӏ' => 'l',
        'η' | 'ո' => 'n',
        'о' | 'ο' | 'օ' => 'o',
        'р' | 'ρ' => 'p',
        'ԛ' => 'q',
        'ѕ' => 's',
        'υ' | 'ս' => 'u',
        'ν' => 'v',
        'ԝ' => 'w',
        'х' | 'χ' => 'x',
        'у' | 'ү' => 'y',
        _ => return None,
    })
}

/// The character `c` stands for once width and compatibility forms are folded and marks
/// dropped (`＜` and `≮` stand for `<`); `c` itself if nothing is left.
pub(super) fn base_char(c: char) -> char {
    if c.is_ascii() {
        return c;
    }
    let mut first = None;
    decompose_compatible(c, |d| {
        if first.is_none() && !dropped(d) {
            first = Some(d);
        }
    });
    first.unwrap_or(c)
}

#[cfg(test)]
mod common_letter_tests {
    #[test]
    fn common_letters_are_what_the_unicode_table_says() {
        for u in 0x80..0x1_0000u32 {
            if let Some(c) = char::from_u32(u) {
                if super::common_letter(c) {
                    assert!(c.is_alphanumeric(), "U+{u:04X} is not a letter");
                }
            }
        }
    }
}
