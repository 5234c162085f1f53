//! `git daemon` on 127.0.0.1 serving a folder of bare repositories (receive-pack enabled),
//! started on a free port and stopped when dropped. Shared by the integration tests
//! (`tests/it/common.rs`) and the burst bench (`benches/burst.rs`).

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running `git daemon`; killed when dropped.
pub struct GitDaemon {
    child: Child,
    /// The port it listens on: `git://127.0.0.1:<port>/<repository>`.
    pub port: u16,
}

impl GitDaemon {
    /// Serves every repository under `base` until the handle is dropped.
    pub fn start(base: &Path) -> GitDaemon {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new("git")
            .args([
                "daemon",
                "--reuseaddr",
                "--listen=127.0.0.1",
                &format!("--port={port}"),
                "--export-all",
                "--enable=receive-pack",
                "--max-connections=0",
                &format!("--base-path={}", base.display()),
            ])
            .arg(base)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("git daemon");
        let daemon = GitDaemon { child, port };
        let up = (0..200).any(|_| {
            std::thread::sleep(Duration::from_millis(25));
            std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
        });
        assert!(up, "git daemon did not start");
        daemon
    }
}

impl Drop for GitDaemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
