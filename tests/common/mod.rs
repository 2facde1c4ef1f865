//! Shared helpers for integration tests: run the real binary against real servers.
#![allow(dead_code)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

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

pub fn python() -> &'static str {
    "python3"
}

/// The guard binary with a controlled environment: tests must not depend on the developer's.
pub fn mcpcheck() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcpcheck"));
    cmd.env_remove("PYTHONUNBUFFERED")
        .env_remove("NO_COLOR")
        .env_remove("FIXTURE_PID_FILE");
    cmd
}

pub struct GuardResult {
    pub exit: i32,
    pub json: Value,
    pub stderr: String,
}

impl GuardResult {
    /// Every finding as (code, severity), in report order.
    pub fn issues(&self) -> Vec<(String, String)> {
        issue_pairs(&self.json)
    }

    pub fn issue(&self, code: &str) -> &Value {
        self.json["issues"]
            .as_array()
            .expect("issues")
            .iter()
            .find(|i| i["code"] == code)
            .unwrap_or_else(|| panic!("no {code} finding in {:#}", self.json["issues"]))
    }

    pub fn status(&self) -> &str {
        self.json["summary"]["status"].as_str().expect("status")
    }

    pub fn class(&self) -> Option<&str> {
        self.json["summary"]["issueClass"].as_str()
    }

    /// Every finding's logical location, in report order.
    pub fn logical_locations(&self) -> Vec<&str> {
        self.json["issues"]
            .as_array()
            .expect("issues")
            .iter()
            .map(|i| i["location"]["logical"].as_str().expect("logical"))
            .collect()
    }
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

/// Runs `mcpcheck guard --json OPTIONS -- SERVER...` and parses the report.
pub fn guard(options: &[&str], server: &[&str]) -> GuardResult {
    guard_with(mcpcheck(), options, server)
}

pub fn guard_with(mut cmd: Command, options: &[&str], server: &[&str]) -> GuardResult {
    cmd.arg("guard")
        .arg("--json")
        .args(options)
        .arg("--")
        .args(server);
    let out = cmd.output().expect("run mcpcheck");
    parse(out)
}

/// Parses a finished run's JSON report from stdout.
pub fn parse(out: Output) -> GuardResult {
    let stdout = String::from_utf8(out.stdout).expect("utf-8 report");
    let json: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("report is not JSON ({e}): {stdout}"));
    GuardResult {
        exit: out.status.code().expect("exit code"),
        json,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs a stdlib fixture with default options.
pub fn guard_fixture(name: &str, options: &[&str]) -> GuardResult {
    guard(options, &[python(), &fixture(name)])
}

/// Runs a stdlib fixture and asserts the exact findings, the verdict, `ok` and the exit code.
pub fn expect_fixture(
    name: &str,
    options: &[&str],
    status: &str,
    findings: &[(&str, &str)],
) -> GuardResult {
    let r = guard_fixture(name, options);
    assert_eq!(
        r.issues(),
        pairs(findings),
        "{name}: {:#}",
        r.json["issues"]
    );
    assert_eq!(r.status(), status, "{name}");
    let has_error = findings.iter().any(|(_, s)| *s == "error");
    assert_eq!(r.exit, i32::from(has_error), "{name}: exit code");
    assert_eq!(r.json["ok"], !has_error, "{name}: ok");
    r
}

pub fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// True while a pid names a live (non-zombie) process.
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => false,
        // The state follows the parenthesised command name.
        Ok(stat) => !stat
            .rsplit_once(')')
            .map(|(_, rest)| rest.trim_start().starts_with('Z'))
            .unwrap_or(false),
    }
}

/// Waits up to `limit` for every pid in a pid file to be gone; returns those still alive.
pub fn survivors(pid_file: &Path, limit: Duration) -> Vec<u32> {
    let pids: Vec<u32> = std::fs::read_to_string(pid_file)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect();
    assert!(!pids.is_empty(), "the fixture recorded no pid");
    let deadline = Instant::now() + limit;
    loop {
        let left: Vec<u32> = pids.iter().copied().filter(|p| alive(*p)).collect();
        if left.is_empty() || Instant::now() > deadline {
            return left;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
