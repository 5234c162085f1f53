//! A large write goes to disk as one pack, not as thousands of loose objects.
//!
//! Saving 10,000 appended learnings into a big memory rewrites about as many shard blobs and
//! their trees; written loose, that is a file created and renamed per object, which costs
//! seconds on a busy file system (most of all right after `git gc` emptied the fanout
//! directories). Git makes the same choice for what it receives: a fetch of fewer objects than
//! `transfer.unpackLimit` (default 100) is written loose, a larger one is kept as a pack. Here
//! a write of at least [`PACK_MIN`] objects becomes one pack of whole objects (no deltas;
//! `git gc` deltifies when it repacks) and its index, built by gix-pack (the encoder and the
//! index writer git's fetch uses in gix), then moved into `objects/pack/` index last, so a
//! reader sees the pack only once it is complete.
//!
//! Objects are deflated at level 1, what git uses for loose objects: these packs are a
//! stopgap until git's automatic maintenance (started after the write) packs them with the
//! rest.

use std::sync::atomic::AtomicBool;

use gix::objs::Kind;
use gix::ObjectId;
use gix_pack::data::output as pack_out;

use super::owner::Owner;

/// Writes of at least this many objects become a pack (git's default `transfer.unpackLimit`).
pub(crate) const PACK_MIN: usize = 100;

/// Writes `objects` as one pack and index into the repository's `objects/pack/`.
pub(crate) fn write_pack<'a>(
    repo: &gix::Repository,
    owner: &mut Owner,
    objects: impl ExactSizeIterator<Item = (ObjectId, Kind, &'a [u8])>,
) -> Result<(), gix::Error> {
    let hash = repo.object_hash();
    let count = u32::try_from(objects.len()).map_err(gix::Error::from_error)?;
    // Encoded a chunk at a time as the pack is written, so only the pack's bytes are held.
    let mut objects = objects.peekable();
    let chunks = std::iter::from_fn(|| {
        objects.peek()?;
        Some(
            objects
                .by_ref()
                .take(256)
                .map(|(id, kind, data)| {
                    pack_out::Entry::from_data(
                        &pack_out::Count::from_data(id, None),
                        &gix::objs::Data {
                            kind,
                            object_hash: hash,
                            data,
                        },
                        gix::zlib::Compression::BEST_SPEED,
                    )
                })
                .collect::<Result<Vec<_>, _>>(),
        )
    });
    let mut pack = Vec::new();
    let mut writer = pack_out::bytes::FromEntriesIter::new(
        chunks,
        &mut pack,
        count,
        gix_pack::data::Version::V2,
        hash,
    );
    for written in &mut writer {
        written?;
    }
    drop(writer);
    let directory = repo.objects.store_ref().path().join("pack");
    // Written in a directory of this process's own (gix's temporary files have random names,
    // which nothing would know to remove after a `kill -9`), then moved into place.
    let staging = owner
        .scratch_dir(&directory)
        .map_err(gix::Error::from_error)?;
    let result = write_staged(repo, &pack, &staging, &directory);
    let _ = std::fs::remove_dir_all(&staging);
    result
}

/// Writes the pack's bytes and their index into `staging` and moves both into `directory`,
/// the index last, so a reader sees the pack only once it is complete.
fn write_staged(
    repo: &gix::Repository,
    pack: &[u8],
    staging: &std::path::Path,
    directory: &std::path::Path,
) -> Result<(), gix::Error> {
    let hash = repo.object_hash();
    let outcome = gix_pack::Bundle::write_to_directory(
        &mut &pack[..],
        Some(staging),
        &mut gix::progress::Discard,
        &AtomicBool::new(false),
        None::<gix::objs::find::Never>,
        hash,
        gix_pack::bundle::write::Options {
            // One thread: the objects are whole (no deltas to resolve), and a command runs
            // beside others.
            thread_limit: Some(1),
            // The bytes were encoded just now, in memory.
            iteration_mode: gix_pack::data::input::Mode::AsIs,
            ..Default::default()
        },
    )?;
    // gix leaves a `.keep` file, as a fetch does until its refs are updated; it stays behind
    // in the staging directory. The objects are as safe without it as loose ones are (git's
    // gc keeps unreachable objects younger than gc.pruneExpire), and a kept pack would never
    // be repacked by gc.
    for path in [outcome.data_path, outcome.index_path]
        .into_iter()
        .flatten()
    {
        let Some(name) = path.file_name() else {
            continue;
        };
        std::fs::rename(&path, directory.join(name)).map_err(gix::Error::from_error)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pack written here is read by gix and by git (`fsck` checks every object and the index).
    #[test]
    fn a_written_pack_is_whole_and_readable_by_git() {
        let (dir, store) = crate::store::scratch();
        let blobs: Vec<Vec<u8>> = (0..250)
            .map(|i| {
                format!("{{\"id\":\"{i:04}\",\"text\":\"blob {i}\"}}\n")
                    .repeat(i % 7 + 1)
                    .into_bytes()
            })
            .collect();
        let ids: Vec<ObjectId> = blobs
            .iter()
            .map(|b| gix::objs::compute_hash(store.repo.object_hash(), Kind::Blob, b).unwrap())
            .collect();
        write_pack(
            &store.repo,
            &mut store.owner().unwrap(),
            ids.iter()
                .zip(&blobs)
                .map(|(id, b)| (*id, Kind::Blob, b.as_slice())),
        )
        .unwrap();
        let pack_dir = dir.path().join(".git/objects/pack");
        let names: Vec<String> = std::fs::read_dir(&pack_dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names.iter().filter(|n| n.ends_with(".pack")).count(),
            1,
            "{names:?}"
        );
        assert_eq!(
            names.iter().filter(|n| n.ends_with(".idx")).count(),
            1,
            "{names:?}"
        );
        assert!(!names.iter().any(|n| n.ends_with(".keep")), "{names:?}");
        let fresh = crate::store::Store::open(dir.path()).unwrap();
        for (id, b) in ids.iter().zip(&blobs) {
            assert_eq!(&fresh.repo.find_object(*id).unwrap().data, b);
        }
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(dir.path())
            .args(["cat-file", "-p", &ids[249].to_string()])
            .output()
            .unwrap();
        assert_eq!(out.stdout, blobs[249]);
        let ok = std::process::Command::new("git")
            .arg("-C")
            .arg(dir.path())
            .args(["verify-pack", "-v"])
            .arg(pack_dir.join(names.iter().find(|n| n.ends_with(".idx")).unwrap()))
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap()
            .success();
        assert!(ok, "git verify-pack");
    }
}
