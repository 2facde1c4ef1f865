//! Real servers built on the official SDKs: TypeScript (@modelcontextprotocol/sdk) and
//! Python (mcp). Their pinned dependencies are installed by scripts/install-fixtures.

use crate::support;
use std::path::PathBuf;
use support::guard::*;
use support::*;

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
        assert_eq!(r.json["listChecks"][list]["status"], "pass", "{list}");
        assert_eq!(
            r.json["listChecks"][list]["items"].as_u64().map(|n| n > 0),
            Some(true)
        );
    }
    assert_eq!(r.json["process"]["outcome"], "guard-terminated");
    assert_eq!(
        r.json["process"]["detail"]["outcome"],
        "exited-on-stdin-close"
    );
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
fn python_sdk_banner_held_in_the_buffer_until_exit_fails() {
    // Issue 44 item 1: a banner print()ed before run() without a flush waits in Python's
    // block buffer and is written at exit, after the session: it passed. Read to the end,
    // it is the same stray line that breaks an unbuffered launch's session first.
    let r = run(py("banner_unflushed"));
    assert_polluted(&r, 6, "starting demo server...");
    let issue = r.issue("stdout-non-json");
    let message = issue["message"].as_str().expect("message");
    assert!(
        message.contains("Python buffers stdout") && message.contains("PYTHONUNBUFFERED=1"),
        "{message}"
    );
    assert!(
        issue["fix"]
            .as_str()
            .expect("fix")
            .contains("file=sys.stderr"),
        "{issue:#}"
    );

    // Launched unbuffered, as many client configs launch it: the banner is line 1.
    let unbuffered = run_with(&["--env", "PYTHONUNBUFFERED=1"], py("banner_unflushed"));
    assert_polluted(&unbuffered, 1, "starting demo server...");

    // With the source scanned, the finding names the print.
    let file = sdk_dir("python").join("banner_unflushed.py");
    let file = file.display().to_string();
    let scanned = run_with(&["--scan", &file], py("banner_unflushed"));
    let printed_by = &scanned.issue("stdout-non-json")["printedBy"][0]["writes"];
    assert_eq!(printed_by[0]["line"], 10, "{printed_by:#}");
    assert_eq!(printed_by[0]["code"], "print(\"starting demo server...\")");
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
    let call = r.json["exchanges"]
        .as_array()
        .expect("operations")
        .iter()
        .find(|o| o["method"] == "tools/call")
        .expect("tools/call sent")
        .clone();
    assert_eq!(call["outcome"], "result");
}

fn run_with(options: &[&str], server: Vec<String>) -> GuardResult {
    let mut argv: Vec<&str> = options.to_vec();
    argv.extend(SLOW_START);
    let server: Vec<&str> = server.iter().map(String::as_str).collect();
    guard(&argv, &server)
}

#[test]
fn python_sdk_speaks_the_stateless_revision() {
    let r = run_with(&["--protocol", "2026-07-28"], py("clean"));
    assert_eq!(r.issues(), pairs(&[]), "{:#}", r.json["issues"]);
    assert_eq!(r.json["negotiatedProtocol"], "2026-07-28");
    assert_eq!(r.json["era"], "modern");
    let first = &r.json["exchanges"][0];
    assert_eq!(first["method"], "server/discover");
    assert_eq!(r.json["toolSchema"]["valid"], 2);
}

#[test]
fn typescript_sdk_does_not_speak_the_stateless_revision() {
    let r = run_with(&["--protocol", "2026-07-28"], ts("clean"));
    assert_eq!(
        r.issues(),
        pairs(&[("discover-error", "error")]),
        "{:#}",
        r.json["issues"]
    );
    assert_eq!(r.issue("discover-error")["detailCode"], "method-not-found");
    assert_eq!(r.json["era"], serde_json::Value::Null);
}

#[test]
fn auto_finds_each_server_s_era() {
    let modern = run_with(&["--protocol", "auto"], py("clean"));
    assert_eq!(modern.issues(), pairs(&[]), "{:#}", modern.json["issues"]);
    assert_eq!(modern.json["era"], "modern");
    assert_eq!(modern.json["negotiatedProtocol"], "2026-07-28");

    let legacy = run_with(&["--protocol", "auto"], ts("clean"));
    assert_eq!(legacy.issues(), pairs(&[]), "{:#}", legacy.json["issues"]);
    assert_eq!(legacy.json["era"], "legacy");
    assert_eq!(legacy.json["negotiatedProtocol"], "2025-11-25");
    let methods: Vec<&str> = legacy.json["exchanges"]
        .as_array()
        .expect("operations")
        .iter()
        .map(|o| o["method"].as_str().expect("method"))
        .collect();
    assert_eq!(&methods[..2], &["server/discover", "initialize"]);
}
