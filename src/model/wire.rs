//! The one decoder of stored record lines. A line is read in one pass: the meta fields first
//! (records serialize `id`, `ts`, `clock`, `author`, `supersedes`, then `kind`), then the rest
//! of the same JSON object straight into the struct of the kind the tag names (the table in
//! `kinds/mod.rs`). No intermediate tree and no buffering, which serde's flattened, internally
//! tagged enum would do for every line. A line in another key order takes a slower path
//! through a JSON tree and decodes to the same record.
//!
//! Forward compatibility: a field the kind's struct does not know is noticed as it is skipped
//! (serde asks for it as `IgnoredAny`), and the record then keeps its stored line (`raw`), so
//! it is written back byte for byte. A kind this build does not know, or a known kind whose
//! fields do not decode here, becomes a [`Future`] body holding the tag, when the line's id is
//! the sha256 of its bytes (a record a newer git-rune wrote); otherwise the line is damaged.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::kinds::{decode_body, Body, Future};
use super::record::{raw_id_matches, Meta, Record, RecordParseError};

/// Decodes one stored line. A line the one pass cannot read (keys in another order, or
/// something wrong with it) is read again as a tree, which decodes the same record or says
/// what is wrong.
pub fn decode(line: &str) -> Result<Record, RecordParseError> {
    let unknown = Cell::new(false);
    let mut de = serde_json::Deserializer::from_str(line);
    if let Ok(Some(mut r)) = de.deserialize_map(RecordVisitor { unknown: &unknown }) {
        if de.end().is_ok() {
            if unknown.get() {
                r.raw = Some(line.into());
            }
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
    fn finish(self, body: Body) -> Result<Record, String> {
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
            raw: None,
        })
    }
}

struct RecordVisitor<'f> {
    /// Set when the kind's struct skipped a field it does not know.
    unknown: &'f Cell<bool>,
}

impl<'de> Visitor<'de> for RecordVisitor<'_> {
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
                        unknown: self.unknown,
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
    unknown: &'f Cell<bool>,
}

impl<'de, A: MapAccess<'de>> Deserializer<'de> for RestOfLine<'_, A> {
    type Error = A::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, A::Error> {
        visitor.visit_map(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for RestOfLine<'_, A> {
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
        self.map.next_value_seed(SkipWatch {
            seed,
            unknown: self.unknown,
        })
    }
}

/// A body field's value on its way to the struct: if the struct skips it (serde reads a field
/// it does not know as `IgnoredAny`), the line holds something this build would not write.
struct SkipWatch<'f, S> {
    seed: S,
    unknown: &'f Cell<bool>,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for SkipWatch<'_, S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        self.seed.deserialize(Watched {
            inner: d,
            unknown: self.unknown,
        })
    }
}

/// A deserializer that passes everything through and notes a skipped value.
struct Watched<'f, D> {
    inner: D,
    unknown: &'f Cell<bool>,
}

macro_rules! pass_through {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, D::Error> {
            self.inner.$method($($arg,)* visitor)
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Watched<'_, D> {
    type Error = D::Error;

    pass_through! {
        deserialize_any(); deserialize_bool(); deserialize_i8(); deserialize_i16();
        deserialize_i32(); deserialize_i64(); deserialize_i128(); deserialize_u8();
        deserialize_u16(); deserialize_u32(); deserialize_u64(); deserialize_u128();
        deserialize_f32(); deserialize_f64(); deserialize_char(); deserialize_str();
        deserialize_string(); deserialize_bytes(); deserialize_byte_buf(); deserialize_option();
        deserialize_unit(); deserialize_seq(); deserialize_map(); deserialize_identifier();
        deserialize_unit_struct(name: &'static str);
        deserialize_newtype_struct(name: &'static str);
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.unknown.set(true);
        self.inner.deserialize_ignored_any(visitor)
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
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
    let unknown = Cell::new(false);
    let mut late_meta = false;
    let fields = RestOfLine {
        map: de::value::MapDeserializer::<_, serde_json::Error>::new(obj.into_iter()),
        late_meta: &mut late_meta,
        unknown: &unknown,
    };
    // What this build cannot read is a newer build's record when the id is its bytes' hash.
    let future = |why: String, unreadable: Option<String>| {
        if !raw_id_matches(line) {
            return Err(err(format!(
                "{why} (and its id is not the hash of its bytes)"
            )));
        }
        // The tag names the record's directory in the tree: a plain name, nothing else.
        let plain = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-';
        if tag.is_empty() || tag.len() > 64 || !tag.chars().all(plain) || tag.starts_with('-') {
            return Err(err(format!(
                "{why} (and its kind {tag:?} is not a plain name)"
            )));
        }
        let body = Body::Future(Future {
            tag: tag.clone(),
            unreadable,
        });
        Ok(Some(body))
    };
    let body = match decode_body(&tag, fields) {
        Ok(Some(body)) => Some(body),
        Ok(None) => future(format!("unknown record kind {tag:?}"), None)?,
        Err(e) => future(e.to_string(), Some(e.to_string()))?,
    };
    let Some(body) = body else {
        return Err(err(format!("unknown record kind {tag:?}")));
    };
    let keep_line = unknown.get() || matches!(body, Body::Future(_));
    let mut r = meta.finish(body).map_err(err)?;
    if keep_line {
        r.raw = Some(line.into());
    }
    Ok(r)
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

    /// A stored line a newer build would write: `rest` is the content after the id, without
    /// its opening brace; the id is the sha256 of `{` + rest, as every build computes it.
    fn newer(rest: &str) -> String {
        use sha2::{Digest, Sha256};
        let id: String = Sha256::digest(format!("{{{rest}").as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        format!("{{\"id\":\"{id}\",{rest}")
    }

    const META: &str = r#""ts":"2026-01-01T00:00:00Z","clock":3,"author":"Ada <ada@example.com>""#;

    #[test]
    fn a_field_this_build_does_not_know_keeps_the_line_byte_for_byte() {
        let line = newer(&format!(
            r#"{META},"kind":"learning","type":"insight","key":"k","insight":"x","confidence":0.8,"mood":{{"a":[1,2]}}}}"#
        ));
        let r = decode(&line).unwrap();
        assert!(matches!(r.body, Body::Learning(_)), "{r:?}");
        assert_eq!(r.body.title(), "k");
        assert!(r.is_from_newer_version());
        assert_eq!(r.to_line(), line);
        assert!(r.id_matches());
        // A field inside a nested value, and a new meta field before `kind`, too.
        for rest in [
            format!(
                r#"{META},"kind":"session","summary":"s","git":{{"branch":"main","worktree":"w"}}}}"#
            ),
            format!(
                r#"{META},"signature":"abc","kind":"learning","type":"insight","key":"k","insight":"x","confidence":0.8}}"#
            ),
        ] {
            let line = newer(&rest);
            let r = decode(&line).unwrap();
            assert!(r.is_from_newer_version(), "{line}");
            assert_eq!(r.to_line(), line);
            assert!(r.id_matches());
        }
        // What this build writes itself is not marked.
        let plain = learning(3, "k", "x");
        assert!(!decode(&plain.to_line()).unwrap().is_from_newer_version());
    }

    #[test]
    fn a_kind_this_build_does_not_know_is_kept_with_its_tag() {
        let line = newer(&format!(r#"{META},"kind":"widget","size":3}}"#));
        let r = decode(&line).unwrap();
        assert_eq!(r.tag(), "widget");
        assert!(matches!(&r.body, Body::Future(f) if f.tag == "widget" && f.unreadable.is_none()));
        assert_eq!(r.to_line(), line);
        assert!(r.id_matches());
        assert_eq!(r.canonical_content()[0], b'{');
        // A known kind whose fields this build cannot read (a new learning type).
        let line = newer(&format!(
            r#"{META},"kind":"learning","type":"pattern","key":"k","insight":"x","confidence":0.8}}"#
        ));
        let r = decode(&line).unwrap();
        assert!(
            matches!(&r.body, Body::Future(f) if f.tag == "learning" && f.unreadable.is_some())
        );
        assert_eq!(r.to_line(), line);
        // Without a matching id it is damaged, not news; nor may a tag name a path.
        let forged = line.replace("\"k\"", "\"j\"");
        assert!(decode(&forged).is_err());
        assert!(decode(&newer(&format!(r#"{META},"kind":"../x"}}"#))).is_err());
    }
}
