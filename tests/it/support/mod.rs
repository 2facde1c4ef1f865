//! The one support module of the integration tests: run the real binary in a controlled
//! environment, find fixtures, and read, check and snapshot what it writes. Submodules by
//! concern; every test module uses what it needs (`use crate::support;`).

pub mod docs;
pub mod github;
pub mod guard;
pub mod http;
pub mod markdown;
pub mod npm_registry;
pub mod process;
pub mod sarif;
pub mod scan;
pub mod schema;
pub mod snapshot;
pub mod source;
pub mod sweep;
pub mod workspace;
pub mod yaml;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Path of a stdlib fixture server in tests/fixtures/servers.
pub fn fixture(name: &str) -> String {
    repo()
        .join("tests/fixtures/servers")
        .join(format!("{name}.py"))
        .display()
        .to_string()
}

/// The interpreter as a user types it: `python3`, looked up on PATH by whoever starts it.
pub fn python_command() -> &'static str {
    "python3"
}

/// The real interpreter behind `python3`, as an absolute path (a version-manager shim
/// costs a second per start, and needs variables a scrubbed environment does not pass).
pub fn python_executable() -> &'static str {
    static PATH: OnceLock<String> = OnceLock::new();
    PATH.get_or_init(|| {
        let out = Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .expect("python3");
        String::from_utf8(out.stdout)
            .expect("utf-8")
            .trim()
            .to_string()
    })
}

/// Prefixes of variables that change what mcpcheck or a fixture does: the GitHub runner
/// and Action inputs, and mcpcheck's own settings.
const SCRUBBED_PREFIXES: &[&str] = &["GITHUB_", "INPUT_", "RUNNER_", "ACTIONS_", "MCPCHECK_"];
/// Single variables of the same kind: colour, CI detection, Python buffering, the
/// fixtures' pid file, package registries.
const SCRUBBED: &[&str] = &[
    "CI",
    "NO_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "PYTHONUNBUFFERED",
    "FIXTURE_PID_FILE",
    "npm_config_registry",
    "NPM_CONFIG_REGISTRY",
];

/// Removes from `cmd` every variable of the developer's or CI's environment that would
/// change the outcome: a test sets what it needs explicitly, after this.
pub fn scrub(cmd: &mut Command) -> &mut Command {
    for (key, _) in std::env::vars_os() {
        let k = key.to_string_lossy();
        if SCRUBBED_PREFIXES.iter().any(|p| k.starts_with(p)) {
            cmd.env_remove(&key);
        }
    }
    for name in SCRUBBED {
        cmd.env_remove(name);
    }
    cmd
}

/// Set to `portable` in the test's own environment (scripts/test, CI), every run of the
/// binary uses the portable process backend: the suite's second pass over the hygiene and
/// guard corpus tests (docs/development.md).
pub const TEST_BACKEND: &str = "MCPCHECK_TEST_PROCESS_BACKEND";

/// Whether the binary runs its portable process backend: asked for by [`TEST_BACKEND`], or
/// the only one this build has (macOS, or the `portable-only` feature).
pub fn portable_backend() -> bool {
    cfg!(any(not(target_os = "linux"), feature = "portable-only"))
        || std::env::var(TEST_BACKEND).as_deref() == Ok("portable")
}

/// The binary in the scrubbed environment.
pub fn mcpcheck() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcpcheck"));
    scrub(&mut cmd);
    if std::env::var(TEST_BACKEND).as_deref() == Ok("portable") {
        cmd.env("MCPCHECK_PROCESS_BACKEND", "portable");
    }
    cmd
}

/// The binary in the scrubbed environment, run from `dir`.
pub fn mcpcheck_in(dir: &Path) -> Command {
    let mut cmd = mcpcheck();
    cmd.current_dir(dir);
    cmd
}

pub fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// Every finding of a JSON report as (code, severity), in report order.
pub fn issue_pairs(report: &Value) -> Vec<(String, String)> {
    report["issues"]
        .as_array()
        .expect("issues is an array")
        .iter()
        .map(|i| {
            (
                i["code"].as_str().expect("code").to_string(),
                i["severity"].as_str().expect("severity").to_string(),
            )
        })
        .collect()
}

/// A finished run whose stdout is a JSON report.
pub struct Report {
    pub exit: i32,
    pub json: Value,
    pub stdout: String,
    pub stderr: String,
}

/// Reads a finished run's JSON report from stdout; panics with both streams otherwise.
pub fn read_report(out: Output) -> Report {
    let stdout = String::from_utf8(out.stdout).expect("utf-8 report");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let json: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("report is not JSON ({e}): {stdout}\nstderr: {stderr}"));
    Report {
        exit: out.status.code().expect("exit code"),
        json,
        stdout,
        stderr,
    }
}

/// A directory holding only the named tools (`uv`, `uvx`) of the pinned uv that
/// `scripts/install-uv` provides, to put in front of PATH.
pub fn pinned_uv(dir: &Path, names: &[&str]) -> PathBuf {
    let out = Command::new(repo().join("scripts/install-uv"))
        .output()
        .expect("scripts/install-uv");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let uv = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let bin = dir.join("uv-bin");
    std::fs::create_dir_all(&bin).expect("uv dir");
    for name in names {
        let link = bin.join(name);
        if !link.exists() {
            std::os::unix::fs::symlink(uv.with_file_name(name), &link).expect("symlink");
        }
    }
    bin
}

/// PATH with `dir` in front.
pub fn path_with(dir: &Path) -> String {
    format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}
