//! Real servers built on the official SDKs: TypeScript (@modelcontextprotocol/sdk) and
//! Python (mcp). Their pinned dependencies are installed by scripts/install-fixtures.

mod common;
use common::*;
use std::path::PathBuf;

fn sdk_dir(lang: &str) -> PathBuf {
    repo().join("tests/fixtures/sdk").join(lang)
}

fn ts(server: &str) -> Vec<String> {
    let dir = sdk_dir("ts");
    assert!(
        dir.join("node_modules/@modelcontextprotocol/sdk").is_dir(),
        "TypeScript SDK fixtures are not installed: run scripts/install-fixtures (scripts/test does)"
    );
    vec![
        "node".into(),
        dir.join(format!("{server}.mjs")).display().to_string(),
    ]
}

fn py(server: &str) -> Vec<String> {
    let dir = sdk_dir("python");
    let python = dir.join(".venv/bin/python");
    assert!(
        python.exists(),
        "Python SDK fixtures are not installed: run scripts/install-fixtures (scripts/test does)"
    );
    vec![
        python.display().to_string(),
        dir.join(format!("{server}.py")).display().to_string(),
    ]
}

/// SDK servers start slowly on a loaded machine; give them room.
const SLOW_START: &[&str] = &["--timeout", "30000"];

fn run(server: Vec<String>) -> GuardResult {
    let argv: Vec<&str> = server.iter().map(String::as_str).collect();
    guard(SLOW_START, &argv)
}

fn assert_clean(r: &GuardResult) {
    assert_eq!(r.issues(), pairs(&[]), "{:#}", r.json["issues"]);
    assert_eq!(r.status(), "pass");
    assert_eq!(r.exit, 0);
    assert_eq!(r.json["negotiatedProtocol"], "2025-11-25");
    assert_eq!(r.json["toolSchema"]["total"], 2);
    assert_eq!(r.json["toolSchema"]["valid"], 2);
    for list in [
        "tools/list",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
    ] {
        assert_eq!(r.json["capabilityChecks"][list]["status"], "pass", "{list}");
        assert_eq!(
            r.json["capabilityChecks"][list]["items"]
                .as_u64()
                .map(|n| n > 0),
            Some(true)
        );
    }
    assert_eq!(r.json["process"]["outcome"], "exited-on-stdin-close");
}

fn assert_polluted(r: &GuardResult, line: u64, text: &str) {
    assert_eq!(
        r.issues(),
        pairs(&[("stdout-non-json", "error")]),
        "{:#}",
        r.json["issues"]
    );
    assert_eq!(r.status(), "fail");
    assert_eq!(r.class(), Some("stdioTransport"));
    assert_eq!(r.exit, 1);
    let issue = r.issue("stdout-non-json");
    assert_eq!(issue["location"]["stdoutLine"], line);
    assert_eq!(issue["evidence"], text);
}

#[test]
fn typescript_sdk_clean_server_passes() {
    assert_clean(&run(ts("clean")));
}

#[test]
fn python_sdk_clean_server_passes() {
    assert_clean(&run(py("clean")));
}

#[test]
fn typescript_sdk_start_up_pollution() {
    assert_polluted(&run(ts("polluted_startup")), 1, "starting demo server...");
}

#[test]
fn python_sdk_start_up_pollution() {
    assert_polluted(&run(py("polluted_startup")), 1, "starting demo server...");
}

#[test]
fn typescript_sdk_pollution_after_connecting() {
    assert_polluted(&run(ts("polluted_after_connect")), 2, "client connected");
}

#[test]
fn python_sdk_pollution_after_connecting() {
    assert_polluted(&run(py("polluted_after_connect")), 2, "client connected");
}

#[test]
fn typescript_sdk_older_protocol_and_tool_call() {
    let mut argv = vec![
        "--protocol",
        "2024-11-05",
        "--request",
        "tools/call",
        "--params",
    ];
    argv.push(r#"{"name":"add","arguments":{"a":2,"b":3.5}}"#);
    argv.extend(SLOW_START);
    let server = ts("clean");
    let server: Vec<&str> = server.iter().map(String::as_str).collect();
    let r = guard(&argv, &server);
    assert_eq!(r.issues(), pairs(&[]), "{:#}", r.json["issues"]);
    assert_eq!(r.json["negotiatedProtocol"], "2024-11-05");
    let call = r.json["operations"]
        .as_array()
        .expect("operations")
        .iter()
        .find(|o| o["method"] == "tools/call")
        .expect("tools/call sent")
        .clone();
    assert_eq!(call["outcome"], "result");
}
