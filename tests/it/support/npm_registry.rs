//! A local npm registry of the fixture packages in tests/fixtures/npm (served by
//! tests/fixtures/registry/npm_packages.py), for the installs of `npx` in the sweep's and
//! the guard's tests.

use super::repo;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// The local registry, stopped when dropped.
pub struct Registry {
    child: Child,
    pub url: String,
}

impl Registry {
    /// Serves the fixture packages of tests/fixtures/npm named by `packages` (directories).
    pub fn serving(packages: &[&str]) -> Self {
        let mut child = Command::new("python3")
            .arg(repo().join("tests/fixtures/registry/npm_packages.py"))
            .args(
                packages
                    .iter()
                    .map(|p| repo().join("tests/fixtures/npm").join(p)),
            )
            .stdout(Stdio::piped())
            .spawn()
            .expect("start the npm registry fixture");
        let mut port = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut port)
            .expect("port");
        let url = format!("http://127.0.0.1:{}/", port.trim());
        Self { child, url }
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
