//! A temporary repository checkout holding a fixture server, as the Action and the report
//! tests see one.

use super::{mcpcheck, repo};
use std::path::Path;
use std::process::Command;

/// A temporary repository checkout holding one fixture server (and its base module).
pub struct Workspace {
    pub dir: tempfile::TempDir,
}

impl Workspace {
    /// `server` is a name in tests/fixtures/servers; `manifest` an optional (name, content).
    pub fn new(server: &str, manifest: Option<(&str, &str)>) -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let servers = repo().join("tests/fixtures/servers");
        for name in ["mcpfixture.py", &format!("{server}.py")] {
            std::fs::copy(servers.join(name), dir.path().join(name)).expect("copy fixture");
        }
        if let Some((name, content)) = manifest {
            std::fs::write(dir.path().join(name), content).expect("write manifest");
        }
        Self { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `mcpcheck` run from the workspace as GITHUB_WORKSPACE.
    pub fn mcpcheck(&self) -> Command {
        let mut cmd = mcpcheck();
        cmd.current_dir(self.path())
            .env("GITHUB_WORKSPACE", self.path());
        cmd
    }
}

pub const PYPROJECT: &str = "[project]\nname = \"fixture-server\"\nversion = \"1.0.0\"\n";
