//! The guard over the legacy HTTP+SSE transport (2024-11-05): a server that refuses the
//! Streamable HTTP POST and answers GET with an `endpoint` event gets the whole session over
//! the legacy transport. The real `server-everything sse` passes; each legacy fault,
//! reproduced by its own stdlib fixture (tests/fixtures/servers/http_legacy_*.py), gets its code.

use crate::support;
use std::net::TcpListener;
use support::guard::GuardResult;
use support::http::*;
use support::*;

const VERSIONS: &[&str] = &[
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "auto",
];

fn detail<'a>(r: &'a GuardResult, code: &str) -> &'a str {
    r.issue(code)["detailCode"].as_str().unwrap_or("")
}

fn everything_sse() -> HttpServer {
    let bin = repo().join(
        "tests/fixtures/sdk/ts/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    );
    assert!(
        bin.exists(),
        "server-everything is not installed: run scripts/install-fixtures (scripts/test does)"
    );
    HttpServer::command("node", &[&bin.display().to_string(), "sse"], free_port())
}

/// Every finding it gets is a real one: `http-legacy-sse` because the transport was replaced
/// in 2025-03-26, and `http-origin-not-validated` because it opens a stream for a foreign
/// Origin on 127.0.0.1, where the 2024-11-05 transport says servers MUST validate Origin.
#[test]
fn server_everything_sse_passes_a_full_session_over_the_legacy_transport() {
    let server = everything_sse();
    let url = server.url("/sse");
    for version in VERSIONS {
        let r = guard_url(
            &url,
            &[
                "--timeout",
                "30000",
                "--protocol",
                version,
                "--request",
                "tools/call",
                "--params",
                r#"{"name":"echo","arguments":{"message":"hi"}}"#,
            ],
        );
        assert_eq!(
            r.issues(),
            pairs(&[
                ("http-legacy-sse", "warning"),
                ("http-origin-not-validated", "warning"),
            ]),
            "{version}: {:#}",
            r.json["issues"]
        );
        assert_eq!(r.exit, 0, "{version}");
        assert_eq!(r.json["transport"], "sse", "{version}");
        assert_eq!(r.json["initialized"], true, "{version}");
        let expected = if *version == "auto" {
            "2025-11-25"
        } else {
            version
        };
        assert_eq!(r.json["negotiatedProtocol"], *expected, "{version}");
        assert_eq!(r.json["operation"]["outcome"], "result", "{version}");
        assert!(
            r.json["toolSchema"]["total"].as_u64().unwrap_or(0) > 0,
            "{version}"
        );
        let legacy = &r.json["http"]["legacy"];
        assert_eq!(legacy["streamStatus"], 200, "{version}");
        // The endpoint is shown without its query: the session id never reaches a report.
        assert_eq!(legacy["endpoint"], server.url("/message?…"), "{version}");
        assert_eq!(r.json["http"]["probes"]["foreignOrigin"], 200, "{version}");
        assert_eq!(r.json["http"]["sessionIdIssued"], false, "{version}");
    }
}

#[test]
fn the_human_report_says_the_legacy_transport_ran() {
    let server = HttpServer::fixture("http_legacy_sse");
    let out = mcpcheck()
        .args(["guard", "--url", &server.url("/sse"), "--timeout", "5000"])
        .output()
        .expect("run mcpcheck");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("http+sse (legacy 2024-11-05):"))
        .unwrap_or_else(|| panic!("no transport line: {text}"));
    assert!(line.contains(&server.url("/messages?…")), "{line}");
    assert!(!text.contains("sessionId="), "{text}");
}

/// Runs the guard against a legacy fixture and expects these findings besides the
/// deprecation warning every legacy server gets.
fn expect_legacy(name: &str, args: &[&str], findings: &[(&str, &str)]) -> GuardResult {
    let server = HttpServer::fixture_with(name, args);
    let r = guard_url(&server.url("/sse"), &["--timeout", "3000"]);
    let mut all = findings.to_vec();
    all.push(("http-legacy-sse", "warning"));
    assert_eq!(r.issues(), pairs(&all), "{name}: {:#}", r.json["issues"]);
    let has_error = findings.iter().any(|(_, s)| *s == "error");
    assert_eq!(r.exit, i32::from(has_error), "{name}: exit code");
    assert_eq!(r.json["transport"], "sse", "{name}");
    r
}

#[test]
fn the_clean_legacy_fixture_passes_with_only_the_deprecation_warning() {
    let r = expect_legacy("http_legacy_sse", &[], &[]);
    assert_eq!(r.status(), "warning");
    assert_eq!(r.json["initialized"], true);
    assert_eq!(r.json["toolSchema"]["valid"], 1);
    assert_eq!(r.json["http"]["probes"]["foreignOrigin"], 403);
    assert_eq!(detail(&r, "http-legacy-sse"), "endpoint-event");
}

/// The server asks the client (`ping`) before it answers tools/list: the session answers on
/// the endpoint and keeps reading the stream, so nothing waits for the timeout.
#[test]
fn a_server_request_before_the_response_is_answered_and_the_response_read() {
    let r = expect_legacy("http_legacy_server_request", &[], &[]);
    assert_eq!(r.json["toolSchema"]["valid"], 1);
    let asked = &r.json["stdout"]["serverRequests"][0];
    assert_eq!(asked["method"], "ping", "{:#}", r.json["stdout"]);
    assert_eq!(asked["answeredWithError"], false);
}

/// At 2025-03-26, the one revision with batches, a response inside a batch on the stream is
/// found by its id: the session completes with nothing but the deprecation warning.
#[test]
fn a_response_inside_a_batch_on_the_stream_is_found() {
    let server = HttpServer::fixture("http_legacy_batch");
    let r = guard_url(
        &server.url("/sse"),
        &["--timeout", "3000", "--protocol", "2025-03-26"],
    );
    assert_eq!(
        r.issues(),
        pairs(&[("http-legacy-sse", "warning")]),
        "{:#}",
        r.json["issues"]
    );
    assert_eq!(r.json["transport"], "sse");
    assert_eq!(r.json["toolSchema"]["valid"], 1);
}

#[test]
fn a_cross_origin_endpoint_is_reported_and_never_followed() {
    // The endpoint names this listener, another origin (port) on the same host.
    let elsewhere = TcpListener::bind("127.0.0.1:0").expect("bind");
    elsewhere.set_nonblocking(true).expect("nonblocking");
    let port = elsewhere.local_addr().expect("addr").port().to_string();
    let r = expect_legacy(
        "http_legacy_endpoint",
        &["cross-origin", &port],
        &[("http-legacy-endpoint", "error")],
    );
    assert_eq!(detail(&r, "http-legacy-endpoint"), "cross-origin");
    assert!(
        elsewhere.accept().is_err(),
        "the guard connected to the cross-origin endpoint"
    );
    assert_eq!(r.json["initialized"], false);
}

#[test]
fn a_session_stream_without_an_endpoint_event_is_reported() {
    for (variant, said) in [
        ("refused", "HTTP 503"),
        ("first-event", "first event is `message`"),
    ] {
        let r = expect_legacy(
            "http_legacy_no_endpoint",
            &[variant],
            &[("http-legacy-endpoint", "error")],
        );
        assert_eq!(
            detail(&r, "http-legacy-endpoint"),
            "no-endpoint",
            "{variant}"
        );
        let message = r.issue("http-legacy-endpoint")["message"]
            .as_str()
            .unwrap_or("");
        assert!(message.contains(said), "{variant}: {message}");
    }
}

#[test]
fn an_endpoint_that_is_not_a_uri_is_reported() {
    let r = expect_legacy(
        "http_legacy_endpoint",
        &["not-a-uri"],
        &[("http-legacy-endpoint", "error")],
    );
    assert_eq!(detail(&r, "http-legacy-endpoint"), "not-a-uri");
}

#[test]
fn a_post_to_the_endpoint_answered_500_is_reported() {
    let r = expect_legacy(
        "http_legacy_post_rejected",
        &[],
        &[("http-legacy-post-rejected", "error")],
    );
    assert_eq!(detail(&r, "http-legacy-post-rejected"), "server-error");
    assert!(r.issue("http-legacy-post-rejected")["message"]
        .as_str()
        .unwrap_or("")
        .contains("HTTP 500"));
}

#[test]
fn a_response_that_never_comes_on_the_stream_is_reported_within_the_timeout() {
    let started = std::time::Instant::now();
    let r = expect_legacy(
        "http_legacy_no_response",
        &["stall"],
        &[("http-legacy-response-missing", "error")],
    );
    assert_eq!(detail(&r, "http-legacy-response-missing"), "timeout");
    // Bounded by --timeout, not by the stream the server keeps open (a correctness bound,
    // far above the 3 s timeout; timing itself is measured in bench/).
    assert!(started.elapsed() < std::time::Duration::from_secs(50));
}

#[test]
fn a_stream_that_ends_before_the_response_is_reported() {
    let r = expect_legacy(
        "http_legacy_no_response",
        &["end"],
        &[("http-legacy-response-missing", "error")],
    );
    assert_eq!(detail(&r, "http-legacy-response-missing"), "stream-ended");
}

#[test]
fn malformed_sse_on_the_legacy_stream_is_reported_once() {
    let r = expect_legacy(
        "http_legacy_sse_malformed",
        &[],
        &[("http-sse-malformed", "error")],
    );
    assert_eq!(detail(&r, "http-sse-malformed"), "malformed-line");
    // The messages still came through: the session completed.
    assert_eq!(r.json["initialized"], true);
}

#[test]
fn header_values_never_reach_the_report_or_a_cross_origin_endpoint() {
    let secret = "legacy-secret-5521";
    let elsewhere = TcpListener::bind("127.0.0.1:0").expect("bind");
    elsewhere.set_nonblocking(true).expect("nonblocking");
    let port = elsewhere.local_addr().expect("addr").port().to_string();
    for (fixture, args) in [
        ("http_legacy_sse", vec![]),
        ("http_legacy_endpoint", vec!["cross-origin", port.as_str()]),
    ] {
        let server = HttpServer::fixture_with(fixture, &args);
        let out = mcpcheck()
            .args(["guard", "--json", "--url", &server.url("/sse")])
            .args(["--timeout", "3000", "--header"])
            .arg(format!("Authorization=Bearer {secret}"))
            .output()
            .expect("run mcpcheck");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!text.contains(secret), "{fixture} leaked the header value");
    }
    assert!(
        elsewhere.accept().is_err(),
        "credentials went to another origin"
    );
}

/// The stream the server never ends is closed by the guard when each session ends: with
/// --repeat, no session's stream is still connected when the next session opens its own.
#[test]
fn each_session_closes_its_stream_before_the_next_one_opens() {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("streams.log");
    let server = HttpServer::fixture_with(
        "http_legacy_stream_open",
        &[log.to_str().expect("utf-8 path")],
    );
    let r = guard_url(
        &server.url("/sse"),
        &["--timeout", "10000", "--repeat", "3"],
    );
    assert_eq!(
        r.issues(),
        pairs(&[("http-legacy-sse", "warning")]),
        "{:#}",
        r.json["issues"]
    );
    assert_eq!(r.exit, 0);
    let text = std::fs::read_to_string(&log).expect("the fixture's log");
    let opened: Vec<&str> = text.lines().filter(|l| l.starts_with("open")).collect();
    // The Streamable HTTP GET probe meets `endpoint` first, then three legacy sessions.
    assert!(opened.len() >= 3, "{text}");
    assert!(opened.iter().all(|l| *l == "open 0"), "{text}");
}

/// Every adversarial probe runs over the legacy transport, replies read from the stream as
/// over stdio; duplicate-id is skipped, since each request waits for its answer there too.
#[test]
fn the_adversarial_probes_run_over_the_legacy_transport() {
    let server = HttpServer::fixture("http_legacy_sse");
    let r = guard_url(
        &server.url("/sse"),
        &["--timeout", "5000", "--adversarial-probes", "all"],
    );
    assert_eq!(
        r.issues(),
        pairs(&[
            ("http-legacy-sse", "warning"),
            ("adversarial-ping-before-initialize-result", "note"),
        ]),
        "{:#}",
        r.json["issues"]
    );
    let probes = r.json["adversarial"]["probes"].as_array().expect("probes");
    assert_eq!(probes.len(), 8);
    for p in probes {
        let expected = if p["name"] == "duplicate-id" {
            "skipped"
        } else {
            "pass"
        };
        assert_eq!(p["status"], expected, "{p}");
    }
    let notification = probes.iter().find(|p| p["name"] == "notification");
    assert_eq!(
        notification.map(|p| p["observed"].clone()),
        Some(serde_json::json!("silence; ping still answered"))
    );
}
