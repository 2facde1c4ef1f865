//! The guard's tests: run `mcpcheck guard --json` against real servers, read the report.

use super::schema::{validate, ReportKind};
use super::{fixture, issue_pairs, mcpcheck, pairs, python_command, read_report};
use serde_json::Value;
use std::process::{Command, Output};

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

    /// How many findings carry `code`.
    pub fn count(&self, code: &str) -> usize {
        self.json["issues"]
            .as_array()
            .expect("issues")
            .iter()
            .filter(|i| i["code"] == code)
            .count()
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

/// Parses a finished run's JSON report from stdout and validates it against the guard
/// report's published schema.
pub fn parse(out: Output) -> GuardResult {
    parse_as(out, ReportKind::Guard)
}

/// Parses a report of the guard's shape (`surface` shares its result type) and validates
/// it against the schema of `kind`.
pub fn parse_as(out: Output, kind: ReportKind) -> GuardResult {
    let r = read_report(out);
    validate(kind, &r.json);
    GuardResult {
        exit: r.exit,
        json: r.json,
        stderr: r.stderr,
    }
}

/// Runs a stdlib fixture with default options.
pub fn guard_fixture(name: &str, options: &[&str]) -> GuardResult {
    guard(options, &[python_command(), &fixture(name)])
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
