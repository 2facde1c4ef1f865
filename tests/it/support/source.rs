//! The source scan's tests: run `mcpcheck source --json`, read its report.

use super::{mcpcheck, read_report, repo};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// tests/fixtures/source, one folder per language.
pub fn source_fixtures() -> PathBuf {
    repo().join("tests/fixtures/source")
}

pub struct Scan {
    pub exit: i32,
    pub json: Value,
    pub stderr: String,
}

/// A finding as (code, severity, file, line, column).
pub type Found = (String, String, String, u64, u64);

impl Scan {
    pub fn issues(&self) -> &Vec<Value> {
        self.json["issues"].as_array().expect("issues is an array")
    }

    pub fn found(&self) -> Vec<Found> {
        self.issues()
            .iter()
            .map(|i| {
                let l = &i["location"];
                (
                    i["code"].as_str().expect("code").to_string(),
                    i["severity"].as_str().expect("severity").to_string(),
                    l["file"].as_str().expect("file").to_string(),
                    l["line"].as_u64().expect("line"),
                    l["column"].as_u64().expect("column"),
                )
            })
            .collect()
    }

    /// Files with a finding, sorted and deduplicated.
    pub fn files(&self) -> Vec<String> {
        let mut files: Vec<String> = self.found().into_iter().map(|f| f.2).collect();
        files.dedup();
        files
    }

    pub fn at(&self, line: u64) -> &Value {
        self.issues()
            .iter()
            .find(|i| i["location"]["line"] == line)
            .unwrap_or_else(|| panic!("no finding on line {line}: {:#}", self.json["issues"]))
    }

    pub fn stat(&self, path: &str) -> u64 {
        let mut v = &self.json["stats"];
        for key in path.split('.') {
            v = &v[key];
        }
        v.as_u64().unwrap_or(0)
    }
}

/// Runs `mcpcheck source --json ARGS` in `dir`.
pub fn scan_in(dir: &Path, args: &[&str]) -> Scan {
    let out = mcpcheck()
        .current_dir(dir)
        .arg("source")
        .arg("--json")
        .args(args)
        .output()
        .expect("run mcpcheck");
    let r = read_report(out);
    super::schema::validate(super::schema::ReportKind::Source, &r.json);
    Scan {
        exit: r.exit,
        json: r.json,
        stderr: r.stderr,
    }
}

/// Scans one fixture file of `tests/fixtures/source/LANG/`.
pub fn scan_fixture(lang: &str, file: &str) -> Scan {
    let scan = scan_in(&source_fixtures().join(lang), &[file]);
    assert_eq!(scan.exit, 0, "warnings only: {}", scan.stderr);
    assert_eq!(scan.stat("filesScanned"), 1, "{file} was scanned");
    assert_eq!(
        scan.stat("filesParsed"),
        1,
        "{file} was parsed, not only text-tested"
    );
    scan
}

/// Asserts a fixture's findings exactly: (code, severity, line, column), in order.
pub fn expect_findings(lang: &str, file: &str, expected: &[(&str, &str, u64, u64)]) -> Scan {
    let scan = scan_fixture(lang, file);
    let expected: Vec<Found> = expected
        .iter()
        .map(|(c, s, l, col)| (c.to_string(), s.to_string(), file.to_string(), *l, *col))
        .collect();
    assert_eq!(scan.found(), expected, "findings of {lang}/{file}");
    scan
}

/// Asserts a finding's machine-applicable replacement: text and 1-based start/end.
pub fn expect_replacement(scan: &Scan, line: u64, text: &str, start: (u64, u64), end: (u64, u64)) {
    let r = &scan.at(line)["replacement"];
    assert_eq!(r["text"], text, "replacement on line {line}: {r:#}");
    assert_eq!(
        (r["startLine"].as_u64(), r["startColumn"].as_u64()),
        (Some(start.0), Some(start.1))
    );
    assert_eq!(
        (r["endLine"].as_u64(), r["endColumn"].as_u64()),
        (Some(end.0), Some(end.1))
    );
}

/// Asserts where a finding ends (inclusive line, exclusive column).
pub fn expect_end(scan: &Scan, line: u64, end: (u64, u64)) {
    let l = &scan.at(line)["location"];
    assert_eq!(
        (l["endLine"].as_u64(), l["endColumn"].as_u64()),
        (Some(end.0), Some(end.1))
    );
}

pub fn no_replacement(scan: &Scan, line: u64) {
    assert!(
        scan.at(line).get("replacement").is_none(),
        "no replacement on line {line}"
    );
}

/// A copy of the fixture project `tests/fixtures/source/NAME` in a fresh directory.
pub fn copy_project(name: &str) -> tempfile::TempDir {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).expect("mkdir");
        for entry in std::fs::read_dir(from).expect("read_dir") {
            let path = entry.expect("entry").path();
            let target = to.join(path.file_name().expect("name"));
            if path.is_dir() {
                copy(&path, &target);
            } else {
                std::fs::copy(&path, &target).expect("copy");
            }
        }
    }
    let dir = tempfile::tempdir().expect("tempdir");
    copy(&source_fixtures().join(name), dir.path());
    dir
}

/// Scans the project in `dir` (`.`) and asserts its findings exactly: (code, severity, file,
/// line, column), in order.
pub fn expect_project(
    dir: &Path,
    args: &[&str],
    expected: &[(&str, &str, &str, u64, u64)],
) -> Scan {
    let scan = scan_in(dir, &[args, &["."]].concat());
    let expected: Vec<Found> = expected
        .iter()
        .map(|(c, s, f, l, col)| (c.to_string(), s.to_string(), f.to_string(), *l, *col))
        .collect();
    assert_eq!(scan.found(), expected, "findings under {}", dir.display());
    scan
}

impl Scan {
    /// The finding at `file`:`line`.
    pub fn in_file(&self, file: &str, line: u64) -> &Value {
        self.issues()
            .iter()
            .find(|i| i["location"]["file"] == file && i["location"]["line"] == line)
            .unwrap_or_else(|| panic!("no finding at {file}:{line}: {:#}", self.json["issues"]))
    }
}
