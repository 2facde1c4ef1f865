//! A registry's consumer written only from the v1 contract's documentation
//! (tests/consumer/registry_consumer.py, Python stdlib) reads mcpcheck's `guard --json` for
//! a clean, a polluted, a crashing and a timing-out server, and a drifting one with
//! --repeat: badge, display bucket, surface honesty and drift advisories come out right.

use crate::support;
use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};
use support::guard::*;
use support::*;

/// What the consumer shows for one guard result.
fn consume(result: &Value) -> Value {
    let script = repo().join("tests/consumer/registry_consumer.py");
    let mut child = Command::new(python_command())
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(result.to_string().as_bytes())
        .expect("write the result");
    let out = child.wait_with_output().expect("consumer output");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the consumer prints JSON")
}

#[test]
fn clean_server_is_verified_and_serves_what_it_advertises() {
    let r = guard_fixture("clean", &["--list-probes", "--request", "tools/list"]);
    assert_eq!(
        consume(&r.json),
        json!({
            "badge": {"label": "mcp stdio", "message": "pass", "color": "brightgreen", "status": "pass"},
            "bucket": {"bucket": "verified", "classes": []},
            "surface": {
                "tools": "served (2 via tools/list)",
                "resources": "served (1 via resources/list)",
                "prompts": "served (1 via prompts/list)",
            },
            "drift": {"checked": false, "advisories": []},
        })
    );
}

#[test]
fn polluted_server_is_a_stdio_hygiene_failure() {
    let r = guard_fixture("banner_before_initialize", &["--list-probes"]);
    let shown = consume(&r.json);
    assert_eq!(
        shown["badge"],
        json!({"label": "mcp stdio", "message": "fail", "color": "red", "status": "fail"})
    );
    assert_eq!(
        shown["bucket"],
        json!({"bucket": "stdio hygiene failure", "classes": ["stdioTransport"]})
    );
    assert_eq!(shown["surface"]["tools"], "served (2 via tools/list)");
}

#[test]
fn crashing_server_needs_inspection_not_a_protocol_verdict() {
    let r = guard_fixture("crash_after_initialized", &["--request", "tools/list"]);
    let shown = consume(&r.json);
    assert_eq!(
        shown["badge"],
        json!({"label": "mcp stdio", "message": "needs inspection", "color": "orange", "status": "needs_inspection"})
    );
    assert_eq!(
        shown["bucket"],
        json!({"bucket": "needs inspection", "classes": ["installRuntime"]})
    );
    // It advertised nothing and answered nothing: nothing is claimed.
    assert_eq!(
        shown["surface"],
        json!({"tools": "not offered", "resources": "not offered", "prompts": "not offered"})
    );
}

#[test]
fn timing_out_server_needs_inspection() {
    let r = guard_fixture("never_answers_initialize", &["--timeout", "800"]);
    let shown = consume(&r.json);
    assert_eq!(shown["badge"]["status"], "needs_inspection");
    assert_eq!(shown["bucket"]["bucket"], "needs inspection");
    assert_eq!(shown["surface"]["tools"], "not offered");
}

#[test]
fn drift_across_repeat_runs_becomes_advisories() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut cmd = mcpcheck();
    cmd.env("FIXTURE_STATE_FILE", dir.path().join("starts"));
    let r = guard_with(
        cmd,
        &["--repeat", "2", "--list-probes"],
        &[python_command(), &fixture("drifting_tools")],
    );
    let shown = consume(&r.json);
    assert_eq!(shown["bucket"]["bucket"], "verified with warnings");
    assert_eq!(shown["drift"]["checked"], true);
    assert_eq!(shown["drift"]["status"], "warning");
    assert_eq!(shown["drift"]["compared"], json!([1, 2]));
    let advisories: Vec<&str> = shown["drift"]["advisories"]
        .as_array()
        .expect("advisories")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        advisories,
        [
            "tools changed in run 2 against run 1: +['exfiltrate'] -[]",
            "capabilities changed in run 2 against run 1: +['tools.listChanged'] -[]",
        ],
        "{shown:#}"
    );
}

#[test]
fn the_consumer_refuses_what_is_not_the_contract() {
    let script = repo().join("tests/consumer/registry_consumer.py");
    let mut child = Command::new(python_command())
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(br#"{"schemaVersion": 1, "summary": {}}"#)
        .expect("write");
    let out = child.wait_with_output().expect("output");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("documented field is missing"), "{stderr}");
}
