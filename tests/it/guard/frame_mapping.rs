//! The same faulty stdout frames, seen by the guard (its own session) and by the proxy (a
//! real client's session through it), give the same findings: code, message, detail code,
//! evidence and line.

use crate::support;
use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;
use support::guard::*;
use support::*;

/// The codes both engines derive from stdout frames and the messages on them.
const FRAME_CODES: &[&str] = &[
    "stdout-non-json",
    "stdout-json-beyond-parser-limits",
    "stdout-empty-line",
    "stdout-invalid-utf8",
    "stdout-carriage-return",
    "stdout-content-length-framing",
    "stdout-without-newline",
    "stdout-invalid-json-rpc",
    "response-id-mismatch",
    "response-id-type-mismatch",
    "notification-response",
];

/// A report's frame findings, as the fields that must agree.
fn frame_findings(report: &Value) -> Vec<Value> {
    report["issues"]
        .as_array()
        .expect("issues")
        .iter()
        .filter(|i| FRAME_CODES.contains(&i["code"].as_str().expect("code")))
        .map(|i| {
            json!({
                "code": i["code"],
                "message": i["message"],
                "detailCode": i["detailCode"],
                "evidence": i["evidence"],
                "stdoutLine": i["location"]["stdoutLine"],
            })
        })
        .collect()
}

fn ts_client() -> std::path::PathBuf {
    let dir = repo().join("tests/fixtures/sdk/ts");
    assert!(
        dir.join("node_modules/@modelcontextprotocol/sdk").is_dir(),
        "TypeScript SDK fixtures are not installed: run scripts/install-fixtures (scripts/test does)"
    );
    dir.join("client.mjs")
}

/// The official TypeScript SDK client's session with `fixture` through the proxy; returns
/// the proxy's report.
fn through_proxy_with_sdk_client(fixture_name: &str) -> Value {
    let dir = tempfile::tempdir().expect("tempdir");
    let report = dir.path().join("session.json");
    let out = Command::new("node")
        .arg(ts_client())
        .args([
            "--calls",
            "1",
            "--",
            env!("CARGO_BIN_EXE_mcpcheck"),
            "proxy",
        ])
        .arg("--report")
        .arg(&report)
        .args(["--", python_command(), &fixture(fixture_name)])
        .env_remove("PYTHONUNBUFFERED")
        .output()
        .expect("run the SDK client");
    assert!(
        out.status.success(),
        "{fixture_name}: client failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&std::fs::read(&report).expect("report")).expect("json")
}

/// A scripted client for servers whose first answer no SDK client gets past: it sends
/// initialize, waits, sends `notifications/initialized`, waits and closes.
fn through_proxy_with_line_client(fixture_name: &str) -> Value {
    let dir = tempfile::tempdir().expect("tempdir");
    let report = dir.path().join("session.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcpcheck"))
        .arg("proxy")
        .arg("--report")
        .arg(&report)
        .args(["--", python_command(), &fixture(fixture_name)])
        .env_remove("PYTHONUNBUFFERED")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("proxy");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n")
        .expect("write");
    std::thread::sleep(Duration::from_millis(1000));
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
        .expect("write");
    std::thread::sleep(Duration::from_millis(500));
    drop(stdin);
    child.wait().expect("wait");
    serde_json::from_slice(&std::fs::read(&report).expect("report")).expect("json")
}

fn guard_findings(fixture_name: &str) -> Vec<Value> {
    frame_findings(&guard_fixture(fixture_name, &["--timeout", "1500"]).json)
}

#[test]
fn guard_and_proxy_report_a_fault_on_one_line_identically() {
    let cases = [
        ("log_after_initialize", "stdout-non-json"),
        ("empty_line", "stdout-empty-line"),
        ("invalid_utf8", "stdout-invalid-utf8"),
        ("json_not_object", "stdout-invalid-json-rpc"),
        ("unknown_response_id", "response-id-mismatch"),
        ("replies_to_notification", "notification-response"),
    ];
    for (fixture_name, code) in cases {
        let guard = guard_findings(fixture_name);
        assert!(
            guard.iter().any(|f| f["code"] == code),
            "{fixture_name}: the guard reports {code}: {guard:#?}"
        );
        let proxy = frame_findings(&through_proxy_with_sdk_client(fixture_name));
        assert_eq!(
            proxy, guard,
            "{fixture_name}: proxy (left) and guard (right)"
        );
    }
}

#[test]
fn a_byte_order_mark_before_the_first_answer_reads_the_same_in_both() {
    let guard = guard_findings("bom_before_json");
    assert_eq!(guard[0]["detailCode"], "byte-order-mark", "{guard:#?}");
    let proxy = frame_findings(&through_proxy_with_line_client("bom_before_json"));
    assert_eq!(proxy, guard);
}

/// Faults spread over many lines (or answers): the guard lists every line in one finding,
/// the proxy reports the first when it sees it; code, detail code and first line agree.
#[test]
fn faults_over_many_lines_get_the_same_code_detail_and_first_line() {
    let key = |findings: Vec<Value>| -> Vec<Value> {
        findings
            .into_iter()
            .map(|f| json!([f["code"], f["detailCode"], f["stdoutLine"]]))
            .collect()
    };
    let cases = [
        ("pretty_printed_json", "multi-line-json"),
        ("content_length_framing", "stdout-content-length-framing"),
        ("crlf_line_endings", "stdout-carriage-return"),
        ("string_id", "response-id-type-mismatch"),
        ("deeply_nested_json", "nesting-too-deep"),
        // Text behind a JSON prefix past a parser limit is not JSON in either engine.
        ("text_behind_json_past_parser_limits", "plain-text"),
    ];
    for (fixture_name, expected) in cases {
        let guard = key(guard_findings(fixture_name));
        assert!(
            guard.iter().any(|k| k[0] == expected || k[1] == expected),
            "{fixture_name}: the guard reports {expected}: {guard:?}"
        );
        let proxy = key(frame_findings(&through_proxy_with_line_client(
            fixture_name,
        )));
        assert_eq!(
            proxy, guard,
            "{fixture_name}: proxy (left) and guard (right)"
        );
    }
}
