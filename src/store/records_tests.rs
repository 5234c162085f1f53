//! Tests of the tree layout (`records.rs`).

use super::*;

use crate::model::testing::learning;
use crate::store::MEMORY_REF;

/// Every blob path and its line count in `tree`.
fn shape(store: &crate::store::Store, tree: ObjectId) -> Vec<(String, usize)> {
    let mut blobs = Vec::new();
    let root = store.repo.read_tree(tree).unwrap();
    for e in root.decode().unwrap().entries {
        if e.mode.is_tree() {
            let dir = e.filename.to_string();
            collect_blobs(&store.repo, "t", e.oid.to_owned(), &dir, &mut blobs).unwrap();
        }
    }
    blobs
        .into_iter()
        .map(|(path, oid)| {
            let blob = store.repo.read_blob(oid).unwrap();
            (path, blob.data.iter().filter(|&&b| b == b'\n').count())
        })
        .collect()
}

#[test]
fn the_tree_is_a_function_of_the_record_set_and_blobs_stay_small() {
    let (_dir, store) = crate::store::scratch();
    let records: Vec<Record> = (0..300)
        .map(|i| learning(i, &format!("k{i}"), "v"))
        .collect();
    let at_once = write_records(&store.repo, MEMORY_REF, None, &records).unwrap();
    // One at a time, in another order.
    let mut one_by_one = None;
    for r in records.iter().rev() {
        one_by_one = Some(
            write_records(&store.repo, MEMORY_REF, one_by_one, std::slice::from_ref(r)).unwrap(),
        );
    }
    assert_eq!(one_by_one, Some(at_once));
    // In two halves, interleaved.
    let (even, odd): (Vec<Record>, Vec<Record>) =
        records.iter().cloned().partition(|r| r.meta.clock % 2 == 0);
    let half = write_records(&store.repo, MEMORY_REF, None, &odd).unwrap();
    assert_eq!(
        write_records(&store.repo, MEMORY_REF, Some(half), &even).unwrap(),
        at_once
    );

    let blobs = shape(&store, at_once);
    assert_eq!(blobs.iter().map(|(_, n)| n).sum::<usize>(), 300);
    assert!(blobs.iter().all(|(_, n)| *n <= LEAF), "{blobs:?}");
    assert!(blobs
        .iter()
        .all(|(p, _)| p.starts_with("learning/") && p.ends_with(".jsonl")));
    assert!(!blobs.iter().any(|(p, _)| p == "learning/all.jsonl"));
    assert_eq!(read_records(&store.repo, "t", at_once).unwrap().len(), 300);
    for r in &records {
        let path = record_path(&store.repo, at_once, r);
        assert!(blobs.iter().any(|(p, _)| *p == path), "{path}");
    }

    // A small kind is one blob.
    let small = write_records(&store.repo, MEMORY_REF, None, &records[..LEAF]).unwrap();
    assert_eq!(
        shape(&store, small),
        vec![("learning/all.jsonl".to_owned(), LEAF)]
    );
}

/// A tree as layout 1 wrote a kind past 1,024 records: `<kind>/<two hex digits>.jsonl`.
fn layout_1_sharded(store: &crate::store::Store, records: &[Record]) -> ObjectId {
    let mut shards: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for r in records {
        shards
            .entry(format!("{}/{}.jsonl", r.kind().as_str(), &r.id[..2]))
            .or_default()
            .insert(r.id.clone(), r.to_line());
    }
    let empty = ObjectId::empty_tree(store.repo.object_hash());
    let mut editor = store.repo.edit_tree(empty).unwrap();
    for (path, lines) in shards {
        let data: String = lines.values().map(|l| format!("{l}\n")).collect();
        let blob = store.repo.write_blob(data.as_bytes()).unwrap().detach();
        editor.upsert(path.as_str(), EntryKind::Blob, blob).unwrap();
    }
    let version = store
        .repo
        .write_blob(b"git-rune records 1\n")
        .unwrap()
        .detach();
    editor.upsert("VERSION", EntryKind::Blob, version).unwrap();
    editor.write().unwrap().detach()
}

#[test]
fn layout_1_shards_are_read_and_the_next_write_lays_them_out_afresh() {
    let (_dir, store) = crate::store::scratch();
    let records: Vec<Record> = (0..400)
        .map(|i| learning(i, &format!("k{i}"), "v"))
        .collect();
    let old = layout_1_sharded(&store, &records[..399]);
    let mut read = read_records(&store.repo, "t", old).unwrap();
    read.sort_by(|a, b| a.id.cmp(&b.id));
    let mut want = records[..399].to_vec();
    want.sort_by(|a, b| a.id.cmp(&b.id));
    assert_eq!(read, want);
    let r = &records[0];
    assert_eq!(
        record_path(&store.repo, old, r),
        format!("learning/{}.jsonl", &r.id[..2])
    );
    let migrated = write_records(&store.repo, MEMORY_REF, Some(old), &records[399..]).unwrap();
    assert_eq!(
        migrated,
        write_records(&store.repo, MEMORY_REF, None, &records).unwrap()
    );
    let added = added_records(&store.repo, "t", Some(old), migrated, &["learning"]).unwrap();
    assert_eq!(added, records[399..].to_vec(), "only the new record is new");
}

#[test]
fn version_blobs_name_their_layout() {
    assert_eq!(layout_of(LAYOUT_VERSION.as_bytes()), Some(LAYOUT));
    assert_eq!(layout_of(b"git-rune records 1\n"), Some(1));
    assert_eq!(layout_of(b"git-rune records 12\n"), Some(12));
    assert_eq!(layout_of(b"something else"), None);
}

/// Where record `r` sits in memory tree `tree` (either layout): its kind's single blob, or the
/// blob of its id prefix.
pub(crate) fn record_path(repo: &gix::Repository, tree: ObjectId, r: &Record) -> String {
    let kind = r.tag();
    let all = format!("{kind}/all.jsonl");
    let Ok(root) = repo.read_tree(tree) else {
        return all;
    };
    let has = |path: &str| {
        crate::store::objects::entry_at(repo, &root, path)
            .ok()
            .flatten()
            .is_some()
    };
    if has(&all) {
        return all;
    }
    let legacy = format!("{kind}/{}.jsonl", r.id.get(..2).unwrap_or(&r.id));
    if has(&legacy) {
        return legacy;
    }
    let mut dir = kind.to_owned();
    for digit in r.id.chars() {
        let leaf = format!("{dir}/{digit}.jsonl");
        if has(&leaf) {
            return leaf;
        }
        dir = format!("{dir}/{digit}");
        if !has(&dir) {
            break;
        }
    }
    all
}
