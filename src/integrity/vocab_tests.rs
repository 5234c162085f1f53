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
