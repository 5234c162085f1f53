//! Objects are staged in memory and written in one go right before the ref that makes them
//! reachable moves: a failed command leaves no stray objects, and small objects are written the
//! way git writes them.
//!
//! gix creates each loose object's temporary file in the top of `objects/` and runs a full
//! deflate set-up (a few hundred kilobytes zeroed) per object; on ext4 both show up as most of
//! a notes write (the per-commit hook). Here an object of at most [`STORED_MAX`] bytes (a blob
//! of at most [`STORED_BLOB_MAX`]) goes into
//! a temporary file in its own fanout directory (as git does) as a zlib stream of stored blocks
//! (what git writes with `core.looseCompression=0`; `git gc` compresses it into a pack), then
//! is renamed into place. Larger objects are deflated the same way gix's writer would, into the
//! same kind of temporary file, so that a killed process leaves nothing the next one does not
//! find (gix's own writer names its temporary files at random); reads are gix's throughout.

use std::io::Write as _;
use std::path::Path;

use gix::objs::Kind;
use gix::ObjectId;

use super::owner::Owner;

/// Objects up to this size are written uncompressed.
pub const STORED_MAX: usize = 16 * 1024;

/// Blobs past this size are compressed all the same: record blobs (JSON lines, which deflate
/// to about a third) are what a memory write adds, and 1,000 single writes stay a few
/// megabytes before any gc. Trees, and notes that list a few records, stay on the fast path.
pub const STORED_BLOB_MAX: usize = 2 * 1024;

/// Writes every object the repository holds in memory (see [`super::Store::open`]) to the
/// object database: as one pack when there are many ([`super::pack`]), otherwise small ones
/// directly and larger ones through gix's compressing writer.
/// Called right before a ref is moved to make them reachable.
///
/// Each fanout directory is listed in the process's owner file before a temporary object is
/// created in it, and temporary objects are named after the owner, so what a killed process
/// left is found and removed by the next one (`owner.rs`).
pub(crate) fn flush(
    repo: &gix::Repository,
    owner: &mut Owner,
) -> std::result::Result<usize, gix::Error> {
    let Some(staged) = repo.objects.reset_object_memory() else {
        return Ok(0);
    };
    if staged.len() >= super::pack::PACK_MIN {
        super::pack::write_pack(
            repo,
            owner,
            staged
                .iter()
                .map(|(id, (kind, data))| (*id, *kind, data.as_slice())),
        )?;
        return Ok(staged.len());
    }
    let objects_dir = repo.objects.store_ref().path().to_owned();
    for (id, (kind, data)) in staged.iter() {
        let stored_max = if *kind == Kind::Blob {
            STORED_BLOB_MAX
        } else {
            STORED_MAX
        };
        write_loose(
            &objects_dir,
            *kind,
            data,
            *id,
            data.len() > stored_max,
            owner,
        )
        .map_err(gix::Error::from_error)?;
    }
    Ok(staged.len())
}

/// Writes `<objects>/<xx>/<rest>`: a temporary file beside it, then a rename; deflated
/// (`compress`, at zlib's default level, what gix's own loose writer uses) or in stored
/// blocks.
///
/// gix staged the object only after finding it nowhere in the object database, so its path is
/// not looked up again. Should another process have written the same object meanwhile, the
/// rename replaces that file with another encoding of the same object (readers that have it
/// open keep reading theirs).
fn write_loose(
    objects: &Path,
    kind: Kind,
    data: &[u8],
    id: ObjectId,
    compress: bool,
    owner: &mut Owner,
) -> std::io::Result<()> {
    let hex = id.to_hex().to_string();
    let dir = objects.join(&hex[..2]);
    let path = dir.join(&hex[2..]);
    let header = gix::objs::encode::loose_header(kind, data.len() as u64);
    let stream = if compress {
        let mut out = gix::zlib::stream::deflate::Write::new(
            Vec::with_capacity(data.len() / 2 + 64),
            gix::zlib::Compression::DEFAULT,
        );
        out.write_all(&header)?;
        out.write_all(data)?;
        out.flush()?;
        out.into_inner()
    } else {
        let mut raw = header.to_vec();
        raw.extend_from_slice(data);
        zlib_stored(&raw)
    };
    owner.objects(&dir)?;
    // The fanout directory usually exists: create it only when the temporary file cannot be.
    let (mut file, tmp) = match create_temp(&dir, owner.id()) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            match std::fs::create_dir(&dir) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(e),
            }
            create_temp(&dir, owner.id())?
        }
        other => other?,
    };
    let written = file.write_all(&stream);
    drop(file);
    if let Err(e) = written.and_then(|()| std::fs::rename(&tmp, &path)) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    Ok(())
}

/// A new read-only file `tmp_obj_<owner>_<n>` in `dir` (git's `tmp_obj_` prefix, so `git gc`
/// would clear it too).
fn create_temp(dir: &Path, owner: &str) -> std::io::Result<(std::fs::File, std::path::PathBuf)> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o444);
    }
    for i in 0..64u64 {
        let tmp = dir.join(format!("tmp_obj_{owner}_{i}"));
        match options.open(&tmp) {
            Ok(f) => return Ok((f, tmp)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::AlreadyExists,
        format!("no free temporary object name in {}", dir.display()),
    ))
}

/// A zlib stream of `data` in stored (uncompressed) deflate blocks.
pub(crate) fn zlib_stored(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + data.len() / 65535 * 5 + 11);
    out.extend_from_slice(&[0x78, 0x01]);
    let mut chunks = data.chunks(65535).peekable();
    if chunks.peek().is_none() {
        out.extend_from_slice(&[0x01, 0x00, 0x00, 0xff, 0xff]);
    }
    while let Some(chunk) = chunks.next() {
        out.push(u8::from(chunks.peek().is_none()));
        let len = chunk.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(chunk);
    }
    out.extend_from_slice(&adler32(data).to_be_bytes());
    out
}

fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for chunk in data.chunks(5552) {
        for &byte in chunk {
            a += u32::from(byte);
            b += a;
        }
        a %= 65521;
        b %= 65521;
    }
    (b << 16) | a
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `git -C dir args…` with a pinned identity and no user config; panics on failure.
    fn git(dir: &Path, args: &[&str]) -> String {
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@t")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@t")
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    }

    #[test]
    fn objects_reach_the_disk_only_with_a_ref_update() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        git(dir, &["init", "-q", "-b", "main"]);
        git(dir, &["commit", "-q", "--allow-empty", "-m", "c"]);
        let head = ObjectId::from_hex(git(dir, &["rev-parse", "HEAD"]).as_bytes()).unwrap();
        let store = crate::store::Store::open(dir).unwrap();
        let staged = store
            .repo
            .write_blob(b"staged, not yet reachable\n")
            .unwrap()
            .detach();
        let on_disk = |id: ObjectId| {
            std::process::Command::new("git")
                .arg("-C")
                .arg(dir)
                .args(["cat-file", "-e", &id.to_string()])
                .status()
                .unwrap()
                .success()
        };
        // A blob past the stored size is deflated, in a temporary file of this owner's.
        let big_text: String = (0..400).map(|i| format!("{{\"line\":{i}}}\n")).collect();
        let big = store.repo.write_blob(big_text.as_bytes()).unwrap().detach();
        assert!(store.has_object(staged), "readable in-process");
        assert!(!on_disk(staged), "not on disk before a ref moves");
        store.set_note(head, "hello", "note").unwrap();
        assert!(on_disk(staged), "written with the notes commit");
        assert_eq!(
            git(dir, &["cat-file", "-p", &big.to_string()]),
            big_text.trim_end()
        );
        let hex = big.to_string();
        let file = dir.join(".git/objects").join(&hex[..2]).join(&hex[2..]);
        let size = std::fs::metadata(file).unwrap().len() as usize;
        assert!(size < big_text.len() / 3, "deflated: {size} bytes");
        git(dir, &["fsck", "--strict", "--no-progress"]);
    }

    #[test]
    fn adler32_matches_the_reference_value() {
        assert_eq!(adler32(b"Wikipedia"), 0x11E6_0398);
        assert_eq!(adler32(b""), 1);
        // Past the 5552-byte reduction interval.
        let big = vec![0xffu8; 100_000];
        let (mut a, mut b) = (1u64, 0u64);
        for &x in &big {
            a = (a + u64::from(x)) % 65521;
            b = (b + a) % 65521;
        }
        assert_eq!(adler32(&big), ((b << 16) | a) as u32);
    }

    #[test]
    fn stored_blocks_frame_the_data() {
        let data = vec![7u8; 70_000];
        let z = zlib_stored(&data);
        assert_eq!(&z[..2], &[0x78, 0x01]);
        // First block: not final, 65535 bytes.
        assert_eq!(z[2], 0);
        assert_eq!(u16::from_le_bytes([z[3], z[4]]), 65535);
        assert_eq!(u16::from_le_bytes([z[5], z[6]]), !65535u16);
        // Second block: final, the rest.
        let second = 7 + 65535;
        assert_eq!(z[second], 1);
        assert_eq!(
            u16::from_le_bytes([z[second + 1], z[second + 2]]),
            (70_000 - 65535) as u16
        );
        assert_eq!(z.len(), 2 + 2 * 5 + 70_000 + 4);
        assert_eq!(&z[z.len() - 4..], &adler32(&data).to_be_bytes());
        assert_eq!(
            zlib_stored(b""),
            vec![0x78, 0x01, 0x01, 0, 0, 0xff, 0xff, 0, 0, 0, 1]
        );
    }
}
