//! Adversarial probes: each fault reproduced by its own fixture, and a clean server that
//! passes every probe.

use crate::support;
use support::guard::*;
use support::*;

fn probe(name: &str, probe: &str, findings: &[(&str, &str)]) -> GuardResult {
    let r = guard_fixture(name, &["--timeout", "3000", "--adversarial-probes", probe]);
    assert_eq!(
        r.issues(),
        pairs(findings),
        "{name}: {:#}",
        r.json["issues"]
    );
    let has_error = findings.iter().any(|(_, s)| *s == "error");
    assert_eq!(r.exit, i32::from(has_error), "{name}: exit code");
    for (code, _) in findings {
        assert_eq!(
            r.issue(code)["location"]["logical"],
            format!("probes/{probe}"),
            "{name}: {code} names its probe"
        );
    }
    r
}

#[test]
fn clean_server_passes_every_probe_and_two_are_reported_only() {
    let r = guard_fixture("clean", &["--adversarial-probes", "all"]);
    assert_eq!(
        r.issues(),
        pairs(&[
            ("adversarial-duplicate-id-result", "note"),
            ("adversarial-ping-before-initialize-result", "note"),
        ])
    );
    assert_eq!(r.status(), "pass");
    assert_eq!(r.exit, 0);
    let statuses: Vec<(&str, &str)> = r.json["adversarialProbes"]
        .as_array()
        .expect("probes")
        .iter()
        .map(|p| {
            (
                p["probe"].as_str().expect("probe"),
                p["status"].as_str().expect("status"),
            )
        })
        .collect();
    assert_eq!(
        statuses,
        vec![
            ("invalid-method", "pass"),
            ("invalid-params", "pass"),
            ("notification", "pass"),
            ("malformed-json", "pass"),
            ("unknown-cancel", "pass"),
            ("ping-before-initialize", "report"),
            ("bogus-version", "pass"),
            ("duplicate-id", "report"),
        ]
    );
}

#[test]
fn probes_are_opt_in() {
    let r = guard_fixture("unknown_method_returns_result", &[]);
    assert_eq!(r.issues(), pairs(&[]));
    assert_eq!(r.json["adversarialProbes"], serde_json::Value::Null);
}

#[test]
fn unknown_method_answered_with_a_result() {
    probe(
        "unknown_method_returns_result",
        "invalid-method",
        &[("adversarial-invalid-method-result", "warning")],
    );
}

#[test]
fn unknown_method_never_answered() {
    probe(
        "ignores_unknown_methods",
        "invalid-method",
        &[("adversarial-probe-timeout", "error")],
    );
}

#[test]
fn invalid_params_accepted() {
    probe(
        "accepts_invalid_params",
        "invalid-params",
        &[("adversarial-invalid-params-result", "warning")],
    );
}

#[test]
fn unknown_notification_answered() {
    probe(
        "answers_unknown_notifications",
        "notification",
        &[("adversarial-notification-result", "error")],
    );
}

#[test]
fn malformed_json_crashes_the_server() {
    let r = probe(
        "crash_on_malformed_json",
        "malformed-json",
        &[("adversarial-probe-crash", "error")],
    );
    // The evidence names the line that was sent and what the server said as it went down.
    let evidence = r.issue("adversarial-probe-crash")["evidence"]
        .as_str()
        .expect("evidence")
        .to_string();
    assert!(
        evidence.starts_with(r#"sent: {"jsonrpc": "2.0", "id": 77, "method": "#),
        "{evidence}"
    );
    assert!(evidence.contains("| stderr: "), "{evidence}");
    assert!(evidence.contains("JSONDecodeError"), "{evidence}");
}

#[test]
fn malformed_json_prints_a_traceback_on_stdout() {
    probe(
        "traceback_on_malformed_json",
        "malformed-json",
        &[("adversarial-probe-invalid-stdout", "error")],
    );
}

#[test]
fn cancellation_of_an_unknown_request_answered() {
    probe(
        "answers_unknown_cancel",
        "unknown-cancel",
        &[("adversarial-unknown-cancel-result", "error")],
    );
}

#[test]
fn bogus_version_refused_with_an_error_is_a_warning() {
    probe(
        "rejects_unknown_version",
        "bogus-version",
        &[("adversarial-bogus-version-result", "warning")],
    );
}

#[test]
fn bogus_version_that_crashes_is_an_error() {
    probe(
        "crash_on_unknown_version",
        "bogus-version",
        &[("adversarial-probe-crash", "error")],
    );
}

#[test]
fn adversarial_tool_call_that_succeeds() {
    let r = guard(
        &[
            "--config",
            &repo()
                .join("tests/fixtures/configs/adversarial_tool_call.json")
                .display()
                .to_string(),
        ],
        &[],
    );
    assert_eq!(
        r.issues(),
        pairs(&[("adversarial-tool-call-result", "warning")])
    );
    assert_eq!(
        r.issue("adversarial-tool-call-result")["location"]["logical"],
        "probes/tool-call:echo"
    );
}

#[test]
fn unknown_probe_name_is_a_usage_error() {
    let out = mcpcheck()
        .args([
            "guard",
            "--adversarial-probes",
            "invalid-method,fuzz",
            "--",
            "x",
        ])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("\"fuzz\""));
}

#[test]
fn malformed_json_answered_with_a_result() {
    probe(
        "answers_malformed_json_with_result",
        "malformed-json",
        &[("adversarial-malformed-json-result", "warning")],
    );
}

/// Issue 27 item 13: a banner the server writes at every start is its own fault, reported
/// once (stdout-non-json); no probe is blamed for it, since each probe's fresh process
/// prints it before anything was sent.
#[test]
fn a_start_up_banner_is_blamed_on_no_probe() {
    let r = guard_fixture(
        "banner_before_initialize",
        &["--timeout", "3000", "--adversarial-probes", "all"],
    );
    assert_eq!(
        r.count("adversarial-probe-invalid-stdout"),
        0,
        "{:#}",
        r.json["issues"]
    );
    assert_eq!(r.count("stdout-non-json"), 1, "{:#}", r.json["issues"]);
    let probes = r.json["adversarialProbes"].as_array().expect("probes");
    assert!(
        probes.iter().all(|p| p["status"] != "finding"),
        "{probes:#?}"
    );
}

/// Output that follows a probe is still the probe's, banner or not.
#[test]
fn text_after_a_probe_is_blamed_on_it_even_after_a_banner() {
    let r = guard_fixture(
        "banner_then_text_on_unknown_version",
        &["--timeout", "3000", "--adversarial-probes", "bogus-version"],
    );
    let issue = r.issue("adversarial-probe-invalid-stdout");
    assert_eq!(issue["location"]["logical"], "probes/bogus-version");
    assert!(
        issue["message"]
            .as_str()
            .expect("message")
            .contains("line 2"),
        "the complaint is line 2, the banner line 1: {issue:#}"
    );
    assert_eq!(r.count("adversarial-probe-invalid-stdout"), 1);
}
