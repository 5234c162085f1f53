//! Records as the local caches keep them: their stored lines, through serde, so a cache holds
//! what the tree holds and reads it back through the one decoder (`wire::decode`). A line
//! that does not decode fails the whole read, which a cache takes as no value.

use serde::de::{Deserializer, Error, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use super::record::Record;
use super::wire::decode;

/// Records written as their stored lines.
pub struct Lines<'a>(pub &'a [Record]);

impl Serialize for Lines<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(Record::to_line))
    }
}

/// Records read back from their stored lines (borrowed from the bytes read, not copied).
pub struct Records(pub Vec<Record>);

impl<'de> Deserialize<'de> for Records {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Records, D::Error> {
        struct Each;
        impl<'de> Visitor<'de> for Each {
            type Value = Vec<Record>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("stored record lines")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Record>, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
                while let Some(line) = seq.next_element::<&str>()? {
                    out.push(decode(line).map_err(A::Error::custom)?);
                }
                Ok(out)
            }
        }
        d.deserialize_seq(Each).map(Records)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testing::{decision, learning};

    #[test]
    fn records_read_back_from_their_lines_and_a_bad_line_fails_the_read() {
        let records = vec![decision(1, "d", &[]), learning(2, "k", "i")];
        let bytes = postcard::to_stdvec(&Lines(&records)).unwrap();
        let back: Records = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(back.0, records);
        let bad = postcard::to_stdvec(&["{\"id\":\"x\"}"]).unwrap();
        assert!(postcard::from_bytes::<Records>(&bad).is_err());
    }
}
