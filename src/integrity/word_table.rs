//! The vocabulary's words as an open-addressing table laid out in bytes, so the compiled
//! vocabulary (`data/vocab.bin`) is read where it lies: a process that scans decodes none of
//! it, and touches only the pages its words hash to. (Decoded, its 9,565 entries were a
//! third of what a `save` of one line spent before it scanned anything.)
//!
//! Layout, little-endian: `tags` holds 15 bits of each place's hash (0: empty), two bytes a
//! place; `index` the entry at each place, two bytes; `slots` [`SLOT`] bytes an entry: where
//! its word starts in `keys` (4), the word's length (1), its id (2), which side tables hold
//! it (1), its cue classes (8). The rare values (the list bits of a few hundred words, the
//! cue classes of a few dozen stems and endings) are side tables of (entry, value) rows
//! sorted by entry, [`ROW`] bytes a row.
//!
//! Open addressing rather than a `HashMap`: a lookup runs for every word and token of every
//! scanned text and stays cheap in unoptimised builds; a miss reads only the tags.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

/// Bytes an entry.
const SLOT: usize = 16;
/// Bytes a row of a side table.
const ROW: usize = 10;
const HAS_MASK: u8 = 1;
const HAS_STEM: u8 = 2;
const HAS_SUFFIX: u8 = 4;

pub(super) const FNV: u64 = 0xcbf2_9ce4_8422_2325;

/// One byte more of a word's hash (FNV-1a over its ASCII-lower-cased bytes).
pub(super) fn fnv(h: u64, c: u8) -> u64 {
    (h ^ u64::from(c.to_ascii_lowercase())).wrapping_mul(0x0100_0000_01b3)
}

/// The part of a hash kept to tell places apart without reading their keys (never 0).
fn tag(h: u64) -> u16 {
    (h >> 48) as u16 | 1
}

/// What the table knows of one word.
#[derive(Clone, Copy, Default)]
pub(super) struct Slot {
    /// Where the word (lower case) starts in the keys, and its length.
    pub(super) key: u32,
    pub(super) len: u8,
    /// The lists it is in.
    pub(super) mask: u64,
    /// Its id in the phrase tables and cue sequences (0: none).
    pub(super) id: u32,
    /// The cue classes of the word itself.
    pub(super) cues: u64,
    /// The cue classes of every word that starts with it (a `word*` stem).
    pub(super) stem_cues: u64,
    /// The cue classes of every word that ends with it (a `*word` stem).
    pub(super) suffix_cues: u64,
}

/// The table; borrowed from the compiled vocabulary, or owned when built from the tables.
#[derive(Clone, Default, Serialize, Deserialize)]
pub(super) struct WordTable<'a> {
    #[serde(borrow)]
    tags: Cow<'a, [u8]>,
    #[serde(borrow)]
    index: Cow<'a, [u8]>,
    #[serde(borrow)]
    slots: Cow<'a, [u8]>,
    #[serde(borrow)]
    keys: Cow<'a, [u8]>,
    #[serde(borrow)]
    masks: Cow<'a, [u8]>,
    #[serde(borrow)]
    stems: Cow<'a, [u8]>,
    #[serde(borrow)]
    suffixes: Cow<'a, [u8]>,
}

fn u16_at(b: &[u8], i: usize) -> u16 {
    b.get(2 * i..2 * i + 2)
        .map_or(0, |x| u16::from_le_bytes([x[0], x[1]]))
}

fn u64_of(b: &[u8]) -> u64 {
    b.try_into().map_or(0, u64::from_le_bytes)
}

/// The value a side table holds for entry `k` (0 when none).
fn side(table: &[u8], k: usize) -> u64 {
    let rows = table.len() / ROW;
    let (mut lo, mut hi) = (0, rows);
    while lo < hi {
        let mid = (lo + hi) / 2;
        let row = &table[mid * ROW..mid * ROW + ROW];
        let at = usize::from(u16::from_le_bytes([row[0], row[1]]));
        match at.cmp(&k) {
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
            std::cmp::Ordering::Equal => return u64_of(&row[2..]),
        }
    }
    0
}

impl WordTable<'_> {
    /// The table of `entries`, whose words are in `keys` (at most 65,535 entries, ids below
    /// 65,536), its places at most half full so probes stay short.
    pub(super) fn of(entries: &[Slot], keys: &[u8]) -> WordTable<'static> {
        assert!(entries.len() < 1 << 16, "too many vocabulary words");
        let size = (2 * entries.len()).max(16).next_power_of_two();
        let (mut tags, mut index) = (vec![0u16; size], vec![0u16; size]);
        let (mut slots, mut masks, mut stems, mut suffixes) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (k, e) in entries.iter().enumerate() {
            let word = &keys[e.key as usize..e.key as usize + usize::from(e.len)];
            let h = word.iter().fold(FNV, |h, &c| fnv(h, c));
            let mut at = h as usize & (size - 1);
            while tags[at] != 0 {
                at = (at + 1) & (size - 1);
            }
            tags[at] = tag(h);
            index[at] = k as u16;
            let id = u16::try_from(e.id).expect("a word id past 65,535");
            let mut flags = 0;
            for (value, flag, table) in [
                (e.mask, HAS_MASK, &mut masks),
                (e.stem_cues, HAS_STEM, &mut stems),
                (e.suffix_cues, HAS_SUFFIX, &mut suffixes),
            ] {
                if value != 0 {
                    flags |= flag;
                    table.extend_from_slice(&(k as u16).to_le_bytes());
                    table.extend_from_slice(&value.to_le_bytes());
                }
            }
            slots.extend_from_slice(&e.key.to_le_bytes());
            slots.push(e.len);
            slots.extend_from_slice(&id.to_le_bytes());
            slots.push(flags);
            slots.extend_from_slice(&e.cues.to_le_bytes());
        }
        let bytes = |v: Vec<u16>| -> Cow<'static, [u8]> {
            Cow::Owned(v.into_iter().flat_map(u16::to_le_bytes).collect())
        };
        WordTable {
            tags: bytes(tags),
            index: bytes(index),
            slots: Cow::Owned(slots),
            keys: Cow::Owned(keys.to_vec()),
            masks: Cow::Owned(masks),
            stems: Cow::Owned(stems),
            suffixes: Cow::Owned(suffixes),
        }
    }

    /// Whether the layout holds together: places a power of two with an index each, whole
    /// entries and side-table rows. (A damaged entry only reads as an unknown word.)
    pub(super) fn is_whole(&self) -> bool {
        let places = self.tags.len() / 2;
        places.is_power_of_two()
            && self.tags.len() == 2 * places
            && self.index.len() == self.tags.len()
            && self.slots.len().is_multiple_of(SLOT)
            && [&self.masks, &self.stems, &self.suffixes]
                .iter()
                .all(|t| t.len().is_multiple_of(ROW))
    }

    /// Entry `k`.
    pub(super) fn slot(&self, k: usize) -> Option<Slot> {
        let b = self.slots.get(k * SLOT..(k + 1) * SLOT)?;
        let flags = b[7];
        let value = |flag: u8, table: &[u8]| if flags & flag != 0 { side(table, k) } else { 0 };
        Some(Slot {
            key: u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            len: b[4],
            id: u32::from(u16::from_le_bytes([b[5], b[6]])),
            cues: u64_of(&b[8..16]),
            mask: value(HAS_MASK, &self.masks),
            stem_cues: value(HAS_STEM, &self.stems),
            suffix_cues: value(HAS_SUFFIX, &self.suffixes),
        })
    }

    /// The word of entry `s` (lower case).
    pub(super) fn key(&self, s: &Slot) -> &[u8] {
        self.keys
            .get(s.key as usize..s.key as usize + usize::from(s.len))
            .unwrap_or(&[])
    }

    /// The entry of `word` (matched ASCII case-insensitively), whose hash is `h`.
    pub(super) fn probe(&self, h: u64, word: &[u8]) -> Option<Slot> {
        let places = self.tags.len() / 2;
        if !places.is_power_of_two() {
            return None;
        }
        let (tag, mut at) = (tag(h), h as usize & (places - 1));
        for _ in 0..places {
            match u16_at(&self.tags, at) {
                0 => return None,
                t if t == tag => {
                    let s = self.slot(usize::from(u16_at(&self.index, at)))?;
                    let key = self.key(&s);
                    if key.len() == word.len()
                        && key
                            .iter()
                            .zip(word)
                            .all(|(k, c)| *k == c.to_ascii_lowercase())
                    {
                        return Some(s);
                    }
                }
                _ => {}
            }
            at = (at + 1) & (places - 1);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(w: &[u8]) -> u64 {
        w.iter().fold(FNV, |h, &c| fnv(h, c))
    }

    #[test]
    fn every_entry_is_found_with_its_values_and_nothing_else_is() {
        let words: [&[u8]; 4] = [b"ignore", b"system", b"\xe5\xbf\xbd\xe7\x95\xa5", b"x"];
        let mut keys = Vec::new();
        let entries: Vec<Slot> = words
            .iter()
            .enumerate()
            .map(|(k, w)| {
                let s = Slot {
                    key: keys.len() as u32,
                    len: w.len() as u8,
                    mask: if k == 1 { 1 << 33 } else { 0 },
                    id: k as u32 + 1,
                    cues: 1 << k,
                    stem_cues: if k == 2 { 7 } else { 0 },
                    suffix_cues: if k == 3 { 1 << 63 } else { 0 },
                };
                keys.extend_from_slice(w);
                s
            })
            .collect();
        let table = WordTable::of(&entries, &keys);
        assert!(table.is_whole());
        for (k, w) in words.iter().enumerate() {
            let s = table.probe(hash(w), w).expect("found");
            let e = entries[k];
            assert_eq!(
                (
                    s.id,
                    s.mask,
                    s.cues,
                    s.stem_cues,
                    s.suffix_cues,
                    table.key(&s)
                ),
                (e.id, e.mask, e.cues, e.stem_cues, e.suffix_cues, *w)
            );
        }
        // ASCII case does not matter; other words are not found.
        assert_eq!(
            table.probe(hash(b"SYSTEM"), b"SYSTEM").map(|s| s.id),
            Some(2)
        );
        assert!(table.probe(hash(b"systems"), b"systems").is_none());
        // Read back through its stored form, borrowed.
        let bytes = postcard::to_allocvec(&table).unwrap();
        let read: WordTable<'_> = postcard::from_bytes(&bytes).unwrap();
        assert!(matches!(read.keys, Cow::Borrowed(_)));
        assert_eq!(
            read.probe(hash(b"ignore"), b"ignore").map(|s| s.id),
            Some(1)
        );
        // A damaged table reads as one that knows nothing, without a panic.
        let mut cut = read.clone();
        cut.slots = Cow::Owned(cut.slots[..SLOT + 3].to_vec());
        assert!(!cut.is_whole());
        assert!(cut.probe(hash(b"x"), b"x").is_none());
        cut.tags = Cow::Owned(vec![1; 6]);
        assert!(cut.probe(hash(b"x"), b"x").is_none());
    }
}
