//! Tests of `vocab.rs` (moved out of the file they test, which stays under 600 lines).

use super::*;

/// `data/vocab.bin` is what a fresh build from the tables encodes to, and reads back as
/// itself. After a table edit, `UPDATE_VOCAB=1 cargo test --lib vocab_bin` writes it (until
/// then every process builds the vocabulary from the tables: correct, only slower).
#[test]
fn vocab_bin_is_current() {
    let fresh = Vocabulary::build(tables()).encode();
    if std::env::var_os("UPDATE_VOCAB").is_some() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/integrity/data/vocab.bin");
        std::fs::write(path, &fresh).expect("write vocab.bin");
        return;
    }
    assert!(
        fresh == COMPILED,
        "src/integrity/data/vocab.bin is stale: run `UPDATE_VOCAB=1 cargo test --locked \
         --lib vocab_bin` and commit it"
    );
    let read = Vocabulary::compiled().expect("the compiled vocabulary reads back");
    assert!(read.encode() == COMPILED);
}

#[test]
#[ignore]
fn vocab_part_sizes() {
    let v = Vocabulary::compiled().unwrap();
    let t = |name: &str, bytes: Vec<u8>, f: &dyn Fn(&[u8])| {
        let start = std::time::Instant::now();
        for _ in 0..20 {
            f(&bytes);
        }
        eprintln!("{name}: {} bytes, {:?} per decode", bytes.len(), start.elapsed() / 20);
    };
    t("entries", postcard::to_allocvec(&v.entries).unwrap(), &|b| {
        let _: Vec<Slot> = postcard::from_bytes(b).unwrap();
    });
    t("patterns", postcard::to_allocvec(&v.patterns).unwrap(), &|b| {
        let _: Vec<Pattern> = postcard::from_bytes(b).unwrap();
    });
    t("by_first", postcard::to_allocvec(&v.by_first).unwrap(), &|b| {
        let _: Lists<u16> = postcard::from_bytes(b).unwrap();
    });
    t("cue_seqs", postcard::to_allocvec(&v.cue_seqs).unwrap(), &|b| {
        let _: Lists<CueSeq> = postcard::from_bytes(b).unwrap();
    });
    t("lexicon", postcard::to_allocvec(&v.lexicon).unwrap(), &|b| {
        let _: crate::integrity::lexicon::Lexicon = postcard::from_bytes(b).unwrap();
    });
    t("keys", postcard::to_allocvec(&String::from_utf8(v.keys.clone()).unwrap()).unwrap(), &|b| {
        let _: String = postcard::from_bytes(b).unwrap();
    });
}
