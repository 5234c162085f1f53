//! A kind that exists only in tests: it proves that a kind is one module plus one line of
//! the table (`kinds/mod.rs`), with nothing else in the program to change.

use serde::{Deserialize, Serialize};

use super::skip::is_empty_str;
use super::KindRules;
use crate::model::fields::{Field, Shape};
use crate::model::validate::require;
use crate::model::ValidationError;

/// A throwaway kind: a name and an optional note.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Probe {
    pub name: String,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub note: String,
}

impl KindRules for Probe {
    field_rules!(title: name);

    fn fields_mut(&mut self, f: &mut dyn FnMut(&'static str, Shape, Field<'_>)) {
        f("name", Shape::Line, Field::One(&mut self.name));
        f("note", Shape::Text, Field::One(&mut self.note));
    }

    fn validate(&self) -> Result<(), ValidationError> {
        require("name", &self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testing::meta;
    use crate::model::{decode_line, fold, Body, Kind, Record, Scope};

    fn probe(name: &str) -> Record {
        Record::new(
            meta(1, &[]),
            Body::Probe(Probe {
                name: name.into(),
                note: "a note".into(),
            }),
        )
    }

    #[test]
    fn a_kind_from_its_module_and_table_line_alone_is_stored_checked_walked_and_shown() {
        let r = probe("p");
        assert_eq!(r.kind(), Kind::Probe);
        assert_eq!(Kind::parse("probe"), Some(Kind::Probe));
        assert_eq!(Kind::Probe.scope(), Some(Scope::Memory));
        assert!(Kind::ALL.contains(&Kind::Probe));
        // Stored and read back by the one decoder, id intact.
        let line = r.to_line();
        assert!(line.contains("\"kind\":\"probe\""), "{line}");
        let back = decode_line(&line).unwrap();
        assert_eq!(back, r);
        assert!(back.id_matches());
        // Validated, walked, shown.
        assert!(r.body.validate().is_ok());
        assert!(probe(" ").body.validate().is_err());
        let texts = r.body.texts();
        assert_eq!(
            texts,
            vec![("name", "p".to_owned()), ("note", "a note".to_owned())]
        );
        let mut json = serde_json::Map::new();
        r.body.json_fields(false, &mut json);
        assert_eq!(json["name"], "p");
        assert_eq!(r.body.title(), "p");
        // The fold keeps no list for it (its table line says `_`) and loses nothing else.
        let st = fold([&r]);
        assert!(st.of_kind(Kind::Probe).is_empty());
    }
}
