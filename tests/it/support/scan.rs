//! The security scan's tests: run `mcpcheck scan --format json` on fixture configs.

use super::{read_report, repo};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A config fixture in tests/fixtures/configs.
pub fn config(name: &str) -> String {
    repo()
        .join("tests/fixtures/configs")
        .join(name)
        .display()
        .to_string()
}

/// An empty home directory: a scan without paths also reads the user's client configs,
/// and a test must never read the real user's.
pub fn empty_home() -> PathBuf {
    let home = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("scan-empty-home");
    std::fs::create_dir_all(&home).expect("create the empty home");
    home
}

/// The binary run from `dir` with the shared environment policy, and an empty HOME so the
/// user's own client configs are never read.
pub fn scan_command(dir: &Path) -> Command {
    let mut cmd = super::mcpcheck_in(dir);
    let home = empty_home();
    cmd.env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env_remove("APPDATA")
        .env_remove("USERPROFILE")
        .env_remove("MCPCHECK_PYPI_URL");
    cmd
}

pub struct ScanResult {
    pub exit: i32,
    pub json: Value,
    pub stdout: String,
    pub stderr: String,
}

impl ScanResult {
    pub fn issues(&self) -> Vec<(String, String)> {
        self.json["issues"]
            .as_array()
            .expect("issues")
            .iter()
            .map(|i| (s(&i["code"]), s(&i["severity"])))
            .collect()
    }

    /// Every issue as (code, risk, line, column, logical path), in report order.
    pub fn places(&self) -> Vec<(String, String, u64, u64, String)> {
        self.json["issues"]
            .as_array()
            .expect("issues")
            .iter()
            .map(|i| {
                (
                    s(&i["code"]),
                    s(&i["risk"]),
                    i["location"]["line"].as_u64().expect("line"),
                    i["location"]["column"].as_u64().expect("column"),
                    s(&i["location"]["logical"]),
                )
            })
            .collect()
    }

    pub fn issue_at(&self, logical: &str) -> &Value {
        self.json["issues"]
            .as_array()
            .expect("issues")
            .iter()
            .find(|i| i["location"]["logical"] == logical)
            .unwrap_or_else(|| panic!("no issue at {logical}: {:#}", self.json["issues"]))
    }
}

fn s(v: &Value) -> String {
    v.as_str()
        .unwrap_or_else(|| panic!("not a string: {v}"))
        .to_string()
}

pub fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("run mcpcheck")
}

/// `mcpcheck scan --format json ARGS...` from `dir`.
pub fn scan_in(dir: &Path, args: &[&str]) -> ScanResult {
    let out = run(scan_command(dir)
        .arg("scan")
        .arg("--format")
        .arg("json")
        .args(args));
    parse(out)
}

/// `mcpcheck scan --format json ARGS...` from the repository root.
pub fn scan(args: &[&str]) -> ScanResult {
    scan_in(&repo(), args)
}

/// Parses `scan --format json` and validates it against the scan report's schema.
pub fn parse(out: Output) -> ScanResult {
    let r = read_report(out);
    super::schema::validate(super::schema::ReportKind::Scan, &r.json);
    ScanResult {
        exit: r.exit,
        json: r.json,
        stdout: r.stdout,
        stderr: r.stderr,
    }
}

pub fn places(items: &[(&str, &str, u64, u64, &str)]) -> Vec<(String, String, u64, u64, String)> {
    items
        .iter()
        .map(|(c, r, l, col, p)| (c.to_string(), r.to_string(), *l, *col, p.to_string()))
        .collect()
}

/// Asserts that no output of a run contains any of the secrets.
pub fn assert_no_secret(texts: &[&str], secrets: &[&str]) {
    for t in texts {
        for s in secrets {
            // Any 8-character window of a secret is a leak (evidence shows at most 4 characters).
            let body: Vec<char> = s.chars().collect();
            for w in body.windows(8) {
                let w: String = w.iter().collect();
                assert!(
                    !t.contains(&w),
                    "secret fragment {w:?} of {s:?} leaked into output:\n{t}"
                );
            }
        }
    }
}

/// Scans one fixture; the findings must be exactly these, in report order.
pub fn expect(fixture: &str, expected: &[(&str, &str, u64, u64, &str)]) -> ScanResult {
    let r = scan(&[&config(fixture)]);
    assert_eq!(
        r.places(),
        places(expected),
        "{fixture}: {:#}",
        r.json["issues"]
    );
    r
}

/// The report holds a finding of this code with this severity.
pub fn has(r: &ScanResult, (code, severity): (&str, &str)) {
    assert!(
        r.issues()
            .contains(&(code.to_string(), severity.to_string())),
        "no ({code}, {severity}) in {:?}",
        r.issues()
    );
}

pub fn expect_clean(fixture: &str) {
    let r = scan(&[&config(fixture)]);
    assert_eq!(r.places(), places(&[]), "{fixture}: {:#}", r.json["issues"]);
    assert_eq!(r.exit, 0, "{fixture}");
    assert_eq!(r.json["summary"]["status"], "pass", "{fixture}");
}

/// A temporary directory only its owner can enter: configs planted with secrets in it are
/// not readable by other users whatever the umask, so `config-file-exposure` (which judges
/// exactly that) stays out of tests about other things.
pub fn private_tempdir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700))
            .expect("chmod 700 the temporary directory");
    }
    dir
}

/// `mcpcheck inventory --format json` output, validated against its published schema.
pub fn inventory_json(stdout: &[u8]) -> Value {
    let text = std::str::from_utf8(stdout).expect("utf-8");
    super::schema::validate_text(super::schema::ReportKind::Inventory, text)
}
