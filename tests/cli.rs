//! The command line: usage errors are one line with exit code 2, never a panic.

mod support;
use support::guard::*;
use support::*;

fn usage_error(args: &[&str]) -> String {
    let out = mcpcheck().args(args).output().expect("run");
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    assert!(out.stdout.is_empty(), "nothing on stdout for a usage error");
    let stderr = String::from_utf8(out.stderr).expect("utf-8");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr:?}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

#[test]
fn usage_errors_are_one_line_with_exit_code_2() {
    assert!(usage_error(&["guard"]).contains("no server command"));
    assert!(usage_error(&["guard", "--protocol"]).contains("--protocol <VERSION>"));
    assert!(usage_error(&["guard", "--bogus", "--", "x"]).contains("--bogus"));
    assert!(usage_error(&["frobnicate"]).contains("frobnicate"));
    assert!(usage_error(&["guard", "--timeout", "soon", "--", "x"]).contains("soon"));
    assert!(usage_error(&["guard", "--protocol", "1999-01-01", "--", "x"]).contains("1999-01-01"));
    assert!(usage_error(&["guard", "--params", "{}", "--", "x"]).contains("--params"));
    assert!(
        usage_error(&["guard", "--request", "ping", "--params", "{nope", "--", "x"])
            .contains("invalid JSON")
    );
    assert!(
        usage_error(&["guard", "--cwd", "/nonexistent/dir", "--", "x"]).contains("not a directory")
    );
    assert!(usage_error(&["guard", "--env", "NOEQUALS", "--", "x"]).contains("KEY=VALUE"));
    assert!(usage_error(&["explain", "no-such-code"]).contains("mcpcheck rules"));
}

#[test]
fn output_file_that_cannot_be_written_is_a_usage_error() {
    let stderr = usage_error(&[
        "guard",
        "--output",
        "/nonexistent/dir/report.json",
        "--",
        python_command(),
        &fixture("clean"),
    ]);
    assert!(stderr.contains("/nonexistent/dir/report.json"));
}

#[test]
fn output_file_receives_the_report() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("report.json");
    let out = mcpcheck()
        .args(["guard", "--format", "json", "--output"])
        .arg(&path)
        .args(["--", python_command(), &fixture("banner_before_initialize")])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).expect("report written")).expect("json");
    assert_eq!(report["schemaVersion"], 1);
    assert_eq!(report["summary"]["primaryIssueCode"], "stdout-non-json");
}

#[test]
fn human_output_has_a_headline_and_each_finding_with_its_fix() {
    let out = mcpcheck()
        .args([
            "guard",
            "--",
            python_command(),
            &fixture("banner_before_initialize"),
        ])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(text.starts_with("FAIL  mcpcheck guard: python3 "), "{text}");
    assert!(
        text.contains("error[stdout-non-json] stdout line 1"),
        "{text}"
    );
    assert!(
        text.contains("evidence: Starting fixture server v1"),
        "{text}"
    );
    assert!(text.contains("fix: "), "{text}");
    assert!(
        !text.contains('\x1b'),
        "no colour when stdout is not a terminal"
    );
}

#[test]
fn secrets_in_argv_and_env_never_reach_the_report() {
    let secret = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    let out = mcpcheck()
        .args([
            "guard",
            "--json",
            "--env",
            "API_TOKEN=hunter2-very-secret",
            "--",
        ])
        .args([
            python_command(),
            &fixture("clean"),
            "--token",
            "plain-secret-value",
            secret,
        ])
        .output()
        .expect("run");
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert_eq!(out.status.code(), Some(0), "{text}");
    for leaked in ["hunter2-very-secret", "plain-secret-value", secret] {
        assert!(!text.contains(leaked), "{leaked} leaked into {text}");
    }
    assert!(text.contains("API_TOKEN=[REDACTED]"));
}

#[test]
fn explain_and_rules_come_from_the_catalog() {
    let out = mcpcheck()
        .args(["explain", "stdout-non-json"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(text.starts_with(
        "stdout-non-json (A line on stdout is not JSON, stdioTransport, default error)"
    ));
    let out = mcpcheck().arg("rules").output().expect("run");
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert_eq!(text.lines().count(), mcpcheck::catalog::ALL.len());
}

#[test]
fn env_reaches_the_server() {
    // The clean fixture echoes; a server that needs a variable to start is the usual case.
    let r = guard(
        &["--env", "MCPCHECK_TEST_VAR=1"],
        &[
            "sh",
            "-c",
            r#"test "$MCPCHECK_TEST_VAR" = 1 && exec python3 "$0""#,
            &fixture("clean"),
        ],
    );
    assert_eq!(r.issues(), pairs(&[]), "{:#}", r.json["issues"]);
}
