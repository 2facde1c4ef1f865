//! The sweep's tests: fixture manifests, runs, verdicts.

use super::process::survivors;
use super::{fixture, issue_pairs, mcpcheck, python_executable};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

/// The id of a fixture entry, and the fixture it runs.
pub struct Server {
    pub id: String,
    pub fixture: &'static str,
}

pub fn servers(names: &[&'static str]) -> Vec<Server> {
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    names
        .iter()
        .map(|&name| {
            let n = seen.entry(name).or_default();
            *n += 1;
            Server {
                id: if *n == 1 {
                    name.to_string()
                } else {
                    format!("{name}-{n}")
                },
                fixture: name,
            }
        })
        .collect()
}

pub fn entry(s: &Server, pid_file: &Path) -> Value {
    json!({
        "id": s.id,
        "command": [python_executable(), fixture(s.fixture)],
        "env": {"FIXTURE_PID_FILE": pid_file.display().to_string()},
    })
}

pub fn write_manifest(dir: &Path, entries: &[Value]) -> PathBuf {
    let path = dir.join("manifest.json");
    std::fs::write(&path, serde_json::to_string_pretty(&entries).expect("json")).expect("manifest");
    path
}

pub fn sweep(args: &[&str]) -> Output {
    mcpcheck()
        .arg("sweep")
        .args(args)
        .output()
        .expect("run sweep")
}

/// The lines of a sweep results file, each validated against the published schema.
pub fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("results")
        .lines()
        .map(|l| super::schema::validate_text(super::schema::ReportKind::SweepResultLine, l))
        .collect()
}

/// The lines of any other JSON Lines file (a fixture's own record).
pub fn json_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("JSON lines")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

pub fn ids(lines: &[Value]) -> Vec<String> {
    let mut ids: Vec<String> = lines
        .iter()
        .map(|l| l["id"].as_str().expect("id").to_string())
        .collect();
    ids.sort();
    ids
}

/// (status, sorted (code, severity) pairs): what must match between a sweep and single runs.
pub type Verdict = (String, Vec<(String, String)>);

pub fn verdict(doc: &Value) -> Verdict {
    let mut issues = issue_pairs(doc);
    issues.sort();
    (
        doc["summary"]["status"]
            .as_str()
            .expect("status")
            .to_string(),
        issues,
    )
}

/// Single `mcpcheck guard` runs of each fixture, a few at a time.
pub fn single_verdicts(
    fixtures: &[&'static str],
    timeout: &str,
) -> BTreeMap<&'static str, Verdict> {
    let mut unique = fixtures.to_vec();
    unique.sort();
    unique.dedup();
    let mut out = BTreeMap::new();
    for chunk in unique.chunks(4) {
        std::thread::scope(|scope| {
            let handles: Vec<_> = chunk
                .iter()
                .map(|&name| {
                    scope.spawn(move || {
                        let r = super::guard::guard(
                            &["--timeout", timeout],
                            &[python_executable(), &fixture(name)],
                        );
                        (name, verdict(&r.json))
                    })
                })
                .collect();
            for h in handles {
                let (name, v) = h.join().expect("thread");
                out.insert(name, v);
            }
        });
    }
    out
}

pub fn assert_matches_single_runs(
    results: &[Value],
    servers: &[Server],
    singles: &BTreeMap<&str, Verdict>,
) {
    for s in servers {
        let line = results
            .iter()
            .find(|l| l["id"] == s.id.as_str())
            .expect("a line per server");
        assert_eq!(line["status"], line["summary"]["status"], "{}", s.id);
        assert_eq!(
            &verdict(line),
            &singles[s.fixture],
            "{}: sweep and single run disagree",
            s.id
        );
    }
}

pub fn assert_no_survivors(pid_file: &Path) {
    let left = survivors(pid_file, Duration::from_secs(5));
    assert!(left.is_empty(), "processes outlived the sweep: {left:?}");
}

/// Complete lines of a results file that is being written.
pub fn complete_lines(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    match text.rfind('\n') {
        Some(i) => text[..=i].to_string(),
        None => String::new(),
    }
}

/// Exit code 2 and exactly one line on stderr.
pub fn assert_usage_error(out: &Output, expected: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains(expected), "{stderr}");
}

/// The sweep sandboxes in the temporary directory that the sweep with this pid created.
/// The sweep sandboxes under `tmp` (the sweep's `TMPDIR`) made by the sweep with this pid.
pub fn sandboxes_of(tmp: &Path, pid: u32) -> Vec<PathBuf> {
    std::fs::read_dir(tmp)
        .expect("temp dir")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("mcpcheck-sweep-"))
        })
        .filter(|p| {
            std::fs::read_to_string(p.join("owner-pid")).is_ok_and(|o| o.trim() == pid.to_string())
        })
        .collect()
}

/// Every line of a results file reads back typed, as `sweep-report` reads it: none is
/// unreadable, the sweep's own fields write back to what the line holds, and each field a
/// report shows (summary, issues, command, server name) equals the line's JSON. A field
/// renamed on the writing side (the guard report, the findings of an install failure) or
/// the reading side (`sweep::line_verdict`) fails here rather than blanking a column.
pub fn assert_reads_back_typed(path: &Path) {
    use mcpcheck::sweep::line_verdict::LineVerdict;
    let raw = lines(path);
    let read = mcpcheck::sweep::results::read(path).expect("read the results");
    assert_eq!(read.unreadable, 0, "lines sweep-report cannot read");
    assert_eq!(read.lines.len(), raw.len());
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    for (typed, json) in read.lines.iter().zip(&raw) {
        let id = &typed.fields.id;
        let own = serde_json::to_value(&typed.fields).expect("the sweep's fields");
        for (key, value) in own.as_object().expect("an object") {
            assert_eq!(&json[key], value, "{id}: {key} does not write back");
        }
        let verdict = &typed.verdict;
        let expected_kind = match json["status"].as_str().expect("status") {
            "pass" | "warning" | "fail" | "needs_inspection" => "guarded",
            "install-failed" => "install-failed",
            _ => "nothing",
        };
        let kind = match verdict {
            LineVerdict::Guarded(_) => "guarded",
            LineVerdict::InstallFailed(_) => "install-failed",
            LineVerdict::Nothing => "nothing",
        };
        assert_eq!(kind, expected_kind, "{id}");
        if let Some(summary) = verdict.summary() {
            let s = &json["summary"];
            assert_eq!(
                summary.primary_issue_code.clone().unwrap_or_default(),
                text(&s["primaryIssueCode"]),
                "{id}"
            );
            assert_eq!(
                summary.issue_class.clone().unwrap_or_default(),
                text(&s["issueClass"]),
                "{id}"
            );
            assert_eq!(
                summary.issue_counts.error, s["issueCounts"]["error"],
                "{id}"
            );
            assert_eq!(
                summary.issue_counts.warning, s["issueCounts"]["warning"],
                "{id}"
            );
        }
        let issues: Vec<[String; 4]> = verdict
            .issues()
            .iter()
            .map(|i| {
                [
                    i.code.clone(),
                    i.severity.clone(),
                    i.class.clone(),
                    i.message.clone(),
                ]
            })
            .collect();
        let written: Vec<[String; 4]> = json["issues"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|i| ["code", "severity", "class", "message"].map(|k| text(&i[k])))
            .collect();
        assert_eq!(issues, written, "{id}");
        assert_eq!(
            verdict.command().map(<[String]>::to_vec),
            json.get("command")
                .map(|c| serde_json::from_value::<Vec<String>>(c.clone()).expect("argv")),
            "{id}"
        );
        assert_eq!(
            verdict.server_name(),
            json["serverInfo"]["name"].as_str(),
            "{id}"
        );
    }
}
