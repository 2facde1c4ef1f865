//! The runtimes a stdio server runs on, recorded for the report's fingerprint as
//! mcp-stdio-guard records them: for the command's interpreter or launcher (node, python,
//! npm for npx, uv for uvx, docker), what `--version` printed. Each probe runs through the
//! process layer (own process group, a deadline, nothing left running), with the server's
//! own environment, while the session runs, so it adds no wait.

use crate::finding::excerpt;
use crate::process::{self, ExitKind, ServerCommand};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long one `--version` may take.
const DEADLINE: Duration = Duration::from_secs(1);
/// What a probe's output is read up to.
const MAX_OUTPUT: usize = 4096;

/// One runtime and what its `--version` said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Runtime {
    /// `node`, `python`, `npm`, `uv` or `docker`.
    pub name: &'static str,
    /// `target` (the interpreter that runs the server) or `launcher` (what fetches and
    /// starts it: npm for npx, uv for uvx, docker).
    pub role: &'static str,
    /// The program asked, as the command names it.
    pub command: String,
    /// The first line it printed, bounded; empty when it printed none.
    pub version: String,
    /// It exited 0 within the deadline.
    pub available: bool,
    /// Its exit code; `None` when a signal ended it, it timed out or could not start.
    pub status: Option<i32>,
    /// The signal that ended it, by name.
    pub signal: Option<&'static str>,
}

/// Which runtime the command runs on, and the program to ask: `(name, role, program)`.
pub fn wanted(cmd: &ServerCommand) -> Option<(&'static str, &'static str, String)> {
    let base = std::path::Path::new(&cmd.program)
        .file_name()?
        .to_str()?
        .to_ascii_lowercase();
    let same = cmd.program.clone();
    let sibling = |name: &str| match std::path::Path::new(&cmd.program).parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.join(name).display().to_string(),
        _ => name.to_string(),
    };
    match base.as_str() {
        "node" | "nodejs" => Some(("node", "target", same)),
        b if super::python::is_python_name(b) => Some(("python", "target", same)),
        "npx" | "npm" => Some(("npm", "launcher", sibling("npm"))),
        "uv" => Some(("uv", "launcher", same)),
        "uvx" => Some(("uv", "launcher", sibling("uv"))),
        "docker" | "podman" => Some(("docker", "launcher", same)),
        _ => None,
    }
}

/// Asks the command's runtime for its version, with the server's environment and cwd.
pub async fn probe(cmd: &ServerCommand) -> Vec<Runtime> {
    let Some((name, role, program)) = wanted(cmd) else {
        return Vec::new();
    };
    let asked = ServerCommand {
        program: program.clone(),
        args: vec!["--version".into()],
        ..cmd.clone()
    };
    let output = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&output);
    let ran = process::setup::run(
        &asked,
        DEADLINE,
        Arc::new(move |chunk: &[u8]| {
            if let Ok(mut out) = sink.lock() {
                let room = MAX_OUTPUT.saturating_sub(out.len());
                out.extend_from_slice(&chunk[..chunk.len().min(room)]);
            }
        }),
    )
    .await;
    let text = output
        .lock()
        .map(|o| String::from_utf8_lossy(&o).into_owned())
        .unwrap_or_default();
    let version = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(|l| excerpt(&crate::secrets::redact(l), 120))
        .unwrap_or_default();
    let exit = ran.ok().and_then(|r| r.exit);
    vec![Runtime {
        name,
        role,
        command: excerpt(&program, 200),
        version,
        available: exit == Some(ExitKind::Code(0)),
        status: match exit {
            Some(ExitKind::Code(c)) => Some(c),
            _ => None,
        },
        signal: match exit {
            Some(ExitKind::Signal(s)) => Some(process::signal_name(s)),
            _ => None,
        },
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(program: &str) -> ServerCommand {
        ServerCommand {
            program: program.into(),
            args: vec!["server.js".into()],
            cwd: None,
            env: Vec::new(),
            clear_env: false,
            unset_env: Vec::new(),
        }
    }

    #[test]
    fn the_runtime_is_read_from_the_program() {
        let name = |p: &str| wanted(&cmd(p));
        assert_eq!(
            name("/usr/bin/node"),
            Some(("node", "target", "/usr/bin/node".into()))
        );
        assert_eq!(
            name("python3.12"),
            Some(("python", "target", "python3.12".into()))
        );
        assert_eq!(name("npx"), Some(("npm", "launcher", "npm".into())));
        assert_eq!(
            name("/opt/node/bin/npx"),
            Some(("npm", "launcher", "/opt/node/bin/npm".into()))
        );
        assert_eq!(name("uvx"), Some(("uv", "launcher", "uv".into())));
        assert_eq!(
            name("docker"),
            Some(("docker", "launcher", "docker".into()))
        );
        assert_eq!(name("./my-server"), None);
        assert_eq!(name("bun"), None);
    }
}
