//! On Linux with glibc, link libgcc's unwinder into the binary instead of loading libgcc_s.so.
//!
//! Rust's standard library links the unwinder from libgcc_s.so. Loading that library, whose
//! start-up code probes the CPU (slow in a virtual machine), costs every git-rune process about
//! a tenth of a millisecond, and the post-commit hook starts one per `git commit`
//! (docs/performance.md). gcc's `-static-libgcc` does the same for C++ programs: the unwinder
//! comes from libgcc_eh.a. Here a linker script named `libgcc_s.so`, placed first on the
//! library path, reads libgcc_eh.a instead. Nothing changes when cross-compiling or when the C
//! compiler has no libgcc_eh.a: the binary then links libgcc_s.so as usual.

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CC");
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    if var("CARGO_CFG_TARGET_OS") != "linux"
        || var("CARGO_CFG_TARGET_ENV") != "gnu"
        || var("HOST") != var("TARGET")
    {
        return;
    }
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    let found = Command::new(&cc)
        .arg("-print-file-name=libgcc_eh.a")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .is_some_and(|p| Path::new(&p).is_absolute() && Path::new(&p).is_file());
    if !found {
        return;
    }
    let out = std::path::PathBuf::from(var("OUT_DIR")).join("static-libgcc");
    let script = out.join("libgcc_s.so");
    if std::fs::create_dir_all(&out)
        .and_then(|()| std::fs::write(&script, "INPUT(-lgcc_eh -lgcc)\n"))
        .is_err()
    {
        return;
    }
    println!("cargo:rustc-link-search=native={}", out.display());
}
