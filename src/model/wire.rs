//! The one decoder of stored record lines. A line is read in one pass: the meta fields first
//! (records serialize `id`, `ts`, `clock`, `author`, `supersedes`, then `kind`), then the rest
//! of the same JSON object straight into the struct of the kind the tag names (the table in
//! `kinds/mod.rs`). No intermediate tree and no buffering, which serde's flattened, internally
//! tagged enum would do for every line. A line in another key order takes a slower path
//! through a JSON tree and decodes to the same record.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::kinds::decode_body;
use super::record::{Meta, Record, RecordParseError};

/// The id of a stored line without decoding the rest: lines start `{"id":"<hex>"` (records
/// serialize their id first).
pub fn line_id(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("{\"id\":\"")?;
    let end = rest.find('"')?;
    Some(&rest[..end])
}

/// Decodes one stored line. A line the one pass cannot read (keys in another order, or
/// something wrong with it) is read again as a tree, which decodes the same record or says
/// what is wrong.
pub fn decode(line: &str) -> Result<Record, RecordParseError> {
    let mut de = serde_json::Deserializer::from_str(line);
    if let Ok(Some(r)) = de.deserialize_map(RecordVisitor) {
        if de.end().is_ok() {
            return Ok(r);
        }
    }
    decode_any_order(line)
}

/// The meta keys, which come before `kind` in a line git-rune wrote.
const META: [&str; 5] = ["id", "ts", "clock", "author", "supersedes"];

#[derive(Default)]
struct MetaFields {
    id: Option<String>,
    ts: Option<String>,
    clock: Option<u64>,
    author: Option<String>,
    supersedes: Vec<String>,
}

impl MetaFields {
    fn finish(self, body: super::Body) -> Result<Record, String> {
        let need = |v: Option<String>, f: &str| v.ok_or_else(|| format!("missing field `{f}`"));
        Ok(Record {
            id: need(self.id, "id")?,
            meta: Meta {
                ts: need(self.ts, "ts")?,
                clock: self.clock.ok_or("missing field `clock`")?,
                author: need(self.author, "author")?,
                supersedes: self.supersedes,
            },
            body,
        })
    }
}

struct RecordVisitor;

impl<'de> Visitor<'de> for RecordVisitor {
    /// `None`: a body field came before `kind`, or a meta field after it.
    type Value = Option<Record>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a record: a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<Record>, A::Error> {
        let mut meta = MetaFields::default();
        while let Some(key) = map.next_key::<Key<'de>>()? {
            match key.0.as_ref() {
                "id" => meta.id = Some(map.next_value()?),
                "ts" => meta.ts = Some(map.next_value()?),
                "clock" => meta.clock = Some(map.next_value()?),
                "author" => meta.author = Some(map.next_value()?),
                "supersedes" => meta.supersedes = map.next_value()?,
                "kind" => {
                    let tag: Key<'de> = map.next_value()?;
                    let mut late_meta = false;
                    let rest = RestOfLine {
                        map,
                        late_meta: &mut late_meta,
                    };
                    let body = decode_body(&tag.0, rest);
                    if late_meta {
                        return Ok(None);
                    }
                    let Some(body) = body? else {
                        return Err(de::Error::custom(format_args!(
                            "unknown record kind {:?}",
                            tag.0
                        )));
                    };
                    return meta.finish(body).map(Some).map_err(de::Error::custom);
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    return Ok(None);
                }
            }
        }
        Err(de::Error::custom("missing field `kind`"))
    }
}

/// A key or the kind tag: borrowed from the line when it has no escapes.
struct Key<'de>(std::borrow::Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(v.into()))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(v.to_owned().into()))
            }
        }
        d.deserialize_str(V)
    }
}

/// The rest of a line's object after `kind`, for the kind's struct to read its fields from;
/// it notes a meta key there (a line in another order), which the struct would ignore.
struct RestOfLine<'f, A> {
    map: A,
    late_meta: &'f mut bool,
}

impl<'de, A: MapAccess<'de>> Deserializer<'de> for RestOfLine<'_, A> {
    type Error = A::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, A::Error> {
        visitor.visit_map(WatchedMap {
            map: self.map,
            late_meta: self.late_meta,
        })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

struct WatchedMap<'f, A> {
    map: A,
    late_meta: &'f mut bool,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for WatchedMap<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.map.next_key_seed(WatchedKey {
            seed,
            late_meta: self.late_meta,
        })
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(seed)
    }
}

/// A key of the body's part of a line, looked at on its way to the struct's field visitor.
struct WatchedKey<'f, K> {
    seed: K,
    late_meta: &'f mut bool,
}

impl<'de, K: DeserializeSeed<'de>> DeserializeSeed<'de> for WatchedKey<'_, K> {
    type Value = K::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<K::Value, D::Error> {
        let key = Key::deserialize(d)?;
        if META.contains(&key.0.as_ref()) || key.0 == "kind" {
            *self.late_meta = true;
        }
        let d: de::value::CowStrDeserializer<'de, D::Error> =
            de::IntoDeserializer::into_deserializer(key.0);
        self.seed.deserialize(d)
    }
}

/// A line whose keys are in another order: read as a tree, then split into meta and body.
fn decode_any_order(line: &str) -> Result<Record, RecordParseError> {
    let err = |e: String| RecordParseError::new(e);
    let mut obj: Map<String, Value> = serde_json::from_str(line).map_err(|e| err(e.to_string()))?;
    let mut meta = MetaFields::default();
    let mut take = |k: &str| obj.remove(k);
    let text = |v: Option<Value>, k: &str| -> Result<Option<String>, RecordParseError> {
        v.map(|v| serde_json::from_value(v).map_err(|e| err(format!("{k}: {e}"))))
            .transpose()
    };
    meta.id = text(take("id"), "id")?;
    meta.ts = text(take("ts"), "ts")?;
    meta.author = text(take("author"), "author")?;
    meta.clock = take("clock")
        .map(|v| serde_json::from_value(v).map_err(|e| err(format!("clock: {e}"))))
        .transpose()?;
    if let Some(v) = take("supersedes") {
        meta.supersedes = serde_json::from_value(v).map_err(|e| err(format!("supersedes: {e}")))?;
    }
    let tag = text(take("kind"), "kind")?.ok_or_else(|| err("missing field `kind`".into()))?;
    let fields = de::value::MapDeserializer::<_, serde_json::Error>::new(obj.into_iter());
    let body = decode_body(&tag, fields)
        .map_err(|e| err(e.to_string()))?
        .ok_or_else(|| err(format!("unknown record kind {tag:?}")))?;
    meta.finish(body).map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testing::{decision, learning};

    #[test]
    fn a_line_in_any_key_order_decodes_to_the_same_record() {
        for r in [
            learning(3, "k", "an insight"),
            decision(4, "Use Postgres", &["x"]),
        ] {
            let line = r.to_line();
            let tree: Map<String, Value> = serde_json::from_str(&line).unwrap();
            // Keys reversed: body fields before `kind`, meta after it.
            let reversed: Map<String, Value> = tree.into_iter().rev().collect();
            let other = serde_json::to_string(&reversed).unwrap();
            assert_ne!(other, line);
            assert_eq!(decode(&other).unwrap(), r);
            assert_eq!(decode(&line).unwrap(), r);
        }
    }

    #[test]
    fn broken_lines_say_what_is_wrong() {
        let r = learning(3, "k", "an insight");
        let line = r.to_line();
        for (bad, says) in [
            (
                line.replace("\"insight\":", "\"insightx\":"),
                "missing field `insight`",
            ),
            (
                line.replace("\"learning\"", "\"lesson\""),
                "unknown record kind",
            ),
            (line.replace("\"clock\":3,", ""), "missing field `clock`"),
            (format!("{line}x"), "trailing"),
            ("[1]".to_owned(), "invalid type"),
        ] {
            let e = decode(&bad).unwrap_err().to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }
}
