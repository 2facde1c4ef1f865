//! The guard over Streamable HTTP (`--url`): real SDK servers pass at every protocol version,
//! and each transport fault, reproduced by its own stdlib fixture, gets its code.

use crate::support;
use std::path::PathBuf;
use support::guard::GuardResult;
use support::http::*;
use support::*;

/// SDK servers start and answer slowly on a loaded machine; give them room.
const SLOW: &[&str] = &["--timeout", "30000"];
const VERSIONS: &[&str] = &[
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "auto",
];

fn sdk_dir(lang: &str) -> PathBuf {
    repo().join("tests/fixtures/sdk").join(lang)
}

fn ts_server(mode: &str, extra: &[&str]) -> HttpServer {
    let dir = sdk_dir("ts");
    assert!(
        dir.join("node_modules/@modelcontextprotocol/sdk").is_dir(),
        "TypeScript SDK fixtures are not installed: run scripts/install-fixtures (scripts/test does)"
    );
    let script = dir.join("http_server.mjs").display().to_string();
    let mut args = vec![script.as_str(), "{port}", mode];
    args.extend_from_slice(extra);
    HttpServer::command("node", &args, free_port())
}

fn py_server(mode: &str) -> HttpServer {
    let dir = sdk_dir("python");
    let python = dir.join(".venv/bin/python");
    assert!(
        python.exists(),
        "Python SDK fixtures are not installed: run scripts/install-fixtures (scripts/test does)"
    );
    let script = dir.join("http_server.py").display().to_string();
    HttpServer::command(
        &python.display().to_string(),
        &[script.as_str(), "{port}", mode],
        free_port(),
    )
}

fn assert_clean(r: &GuardResult, what: &str, version: &str) {
    assert_eq!(
        r.issues(),
        pairs(&[]),
        "{what} {version}: {:#}",
        r.json["issues"]
    );
    assert_eq!(r.status(), "pass", "{what} {version}");
    assert_eq!(r.exit, 0, "{what} {version}");
    assert_eq!(r.json["transport"], "http");
    assert_eq!(r.json["initialized"], true, "{what} {version}");
    let expected = if version == "auto" {
        "2025-11-25"
    } else {
        version
    };
    assert_eq!(r.json["negotiatedProtocol"], expected, "{what} {version}");
    assert_eq!(r.json["toolSchema"]["valid"], 2, "{what} {version}");
}

/// Every version, plus the list probes, a safe tool call and the transport probes.
fn passes_everywhere(server: &HttpServer, what: &str) -> GuardResult {
    let url = server.url("/mcp");
    let mut last = None;
    for version in VERSIONS {
        let mut options = SLOW.to_vec();
        options.extend(["--protocol", version]);
        options.extend(["--request", "tools/call"]);
        options.extend(["--params", r#"{"name":"echo","arguments":{"text":"hi"}}"#]);
        let r = guard_url(&url, &options);
        assert_clean(&r, what, version);
        assert_eq!(r.json["operation"]["outcome"], "result", "{what} {version}");
        last = Some(r);
    }
    last.expect("ran")
}

#[test]
fn typescript_sdk_stateful_server_passes() {
    let server = ts_server("stateful", &[]);
    let r = passes_everywhere(&server, "ts stateful");
    let http = &r.json["http"];
    assert_eq!(http["sessionIdIssued"], true);
    assert_eq!(http["probes"]["foreignOrigin"], 403);
    assert_eq!(http["probes"]["bogusProtocolVersion"], 400);
    assert_eq!(http["probes"]["missingSessionId"], 400);
    assert_eq!(http["probes"]["delete"], 200);
    assert_eq!(http["probes"]["afterDelete"], 404);
    // The standalone stream was held open for the session (and nothing came on it).
    assert_eq!(http["getStream"]["status"], 200);
    assert_eq!(http["getStream"]["eventStream"], true);
    assert_eq!(http["probes"]["get"]["status"], 200);
}

#[test]
fn typescript_sdk_stateless_json_server_passes() {
    let server = ts_server("stateless", &["--json-response"]);
    let r = passes_everywhere(&server, "ts stateless");
    assert_eq!(r.json["http"]["sessionIdIssued"], false);
    assert_eq!(r.json["http"]["probes"]["delete"], serde_json::Value::Null);
}

#[test]
fn python_sdk_server_passes_stateful_and_stateless() {
    let server = py_server("stateful");
    let r = passes_everywhere(&server, "python stateful");
    assert_eq!(r.json["http"]["sessionIdIssued"], true);
    assert_eq!(r.json["http"]["probes"]["afterDelete"], 404);
    assert_eq!(r.json["http"]["getStream"]["status"], 200);
    drop(server);
    passes_everywhere(&py_server("stateless"), "python stateless");
}

#[test]
fn an_sdk_server_without_an_origin_check_is_warned_about() {
    let server = ts_server("stateful", &["--no-origin-check"]);
    let r = guard_url(&server.url("/mcp"), SLOW);
    assert_eq!(
        r.issues(),
        pairs(&[("http-origin-not-validated", "warning")]),
        "{:#}",
        r.json["issues"]
    );
    assert_eq!(r.exit, 0);
}

/// Runs the guard against a stdlib fault fixture and expects exactly these findings.
fn expect_http(name: &str, status: &str, findings: &[(&str, &str)]) -> GuardResult {
    expect_http_with(name, &[], status, findings)
}

fn expect_http_with(
    name: &str,
    options: &[&str],
    status: &str,
    findings: &[(&str, &str)],
) -> GuardResult {
    let server = HttpServer::fixture(name);
    let mut all = vec!["--timeout", "5000"];
    all.extend_from_slice(options);
    let r = guard_url(&server.url("/mcp"), &all);
    assert_eq!(
        r.issues(),
        pairs(findings),
        "{name}: {:#}",
        r.json["issues"]
    );
    assert_eq!(r.status(), status, "{name}");
    let has_error = findings.iter().any(|(_, s)| *s == "error");
    assert_eq!(r.exit, i32::from(has_error), "{name}: exit code");
    assert_eq!(r.json["transport"], "http");
    r
}

fn detail<'a>(r: &'a GuardResult, code: &str) -> &'a str {
    r.issue(code)["detailCode"].as_str().unwrap_or("")
}

#[test]
fn the_clean_stdlib_server_passes() {
    let r = expect_http("http_clean", "pass", &[]);
    assert_eq!(r.json["http"]["probes"]["get"]["status"], 405);
    assert_eq!(r.json["http"]["getStream"]["status"], 405);
}

#[test]
fn a_wrong_content_type_is_reported() {
    let r = expect_http(
        "http_wrong_content_type",
        "fail",
        &[
            ("http-content-type", "error"),
            ("http-content-type", "error"),
        ],
    );
    assert_eq!(detail(&r, "http-content-type"), "wrong-content-type");
    assert!(r.issue("http-content-type")["message"]
        .as_str()
        .unwrap_or("")
        .contains("`text/plain`"));
}

#[test]
fn a_body_that_is_not_json_is_reported() {
    let r = expect_http(
        "http_body_not_json",
        "fail",
        &[("http-body-invalid", "error")],
    );
    assert_eq!(detail(&r, "http-body-invalid"), "not-json");
}

#[test]
fn a_malformed_event_stream_is_reported() {
    let r = expect_http(
        "http_sse_malformed",
        "fail",
        &[("http-sse-malformed", "error")],
    );
    assert_eq!(detail(&r, "http-sse-malformed"), "malformed-line");
}

#[test]
fn a_stream_that_ends_without_the_response_is_reported() {
    let r = expect_http(
        "http_stream_without_response",
        "fail",
        &[("http-response-missing", "error")],
    );
    assert_eq!(detail(&r, "http-response-missing"), "stream-ended");
}

#[test]
fn a_notification_answered_200_is_an_error() {
    // The transport's MUST, and an error over stdio too (notification-response).
    let r = expect_http(
        "http_notification_200",
        "fail",
        &[("http-notification-not-accepted", "error")],
    );
    assert_eq!(detail(&r, "http-notification-not-accepted"), "not-202");
}

#[test]
fn a_rotating_session_id_is_reported() {
    let r = expect_http(
        "http_rotates_session",
        "fail",
        &[("http-session-id", "error")],
    );
    assert_eq!(detail(&r, "http-session-id"), "rotated");
}

#[test]
fn an_ended_session_that_still_answers_is_reported() {
    let r = expect_http(
        "http_keeps_ended_session",
        "warning",
        &[("http-session-termination", "warning")],
    );
    assert_eq!(
        detail(&r, "http-session-termination"),
        "ended-session-status"
    );
}

#[test]
fn a_bogus_protocol_version_header_accepted_is_reported() {
    let r = expect_http(
        "http_accepts_bogus_version",
        "warning",
        &[("http-protocol-version-header", "warning")],
    );
    assert_eq!(
        detail(&r, "http-protocol-version-header"),
        "bogus-version-accepted"
    );
}

#[test]
fn a_get_that_is_not_an_event_stream_is_reported() {
    let r = expect_http(
        "http_get_not_stream",
        "warning",
        &[("http-get-stream", "warning")],
    );
    assert_eq!(detail(&r, "http-get-stream"), "not-event-stream");
}

#[test]
fn a_local_server_accepting_a_foreign_origin_is_warned_about() {
    let r = expect_http(
        "http_no_origin_check",
        "warning",
        &[("http-origin-not-validated", "warning")],
    );
    assert_eq!(r.issue("http-origin-not-validated")["class"], "security");
}

#[test]
fn a_401_leads_to_the_resource_metadata_which_is_checked() {
    let r = expect_http(
        "http_unauthorized",
        "needs_inspection",
        &[
            ("http-unauthorized", "error"),
            ("http-resource-metadata", "warning"),
        ],
    );
    assert!(r.issue("http-resource-metadata")["message"]
        .as_str()
        .unwrap_or("")
        .contains("authorization_servers"));
}

/// The 401 fixture whose metadata sits on a second listener (another origin), in `variant`.
fn auth_run(variant: &str, options: &[&str], findings: &[(&str, &str)]) -> GuardResult {
    let server = HttpServer::fixture_with("http_auth", &[variant]);
    let mut all = vec!["--timeout", "5000"];
    all.extend_from_slice(options);
    let r = guard_url(&server.url("/mcp"), &all);
    let mut expected = vec![("http-unauthorized", "error")];
    expected.extend_from_slice(findings);
    assert_eq!(
        r.issues(),
        pairs(&expected),
        "{variant}: {:#}",
        r.json["issues"]
    );
    assert_eq!(r.status(), "needs_inspection", "{variant}");
    assert_eq!(r.exit, 1, "{variant}: exit code");
    r
}

#[test]
fn complete_authorization_metadata_on_another_origin_adds_nothing_to_the_401() {
    auth_run("good", &[], &[]);
    // Only OpenID discovery is served: the fallback the MCP spec gives finds it.
    auth_run("openid", &[], &[]);
}

#[test]
fn header_credentials_never_go_to_the_metadata_origin() {
    // The metadata listener answers 400 to any Authorization or Cookie header.
    let r = auth_run(
        "good",
        &[
            "--header",
            "Authorization=Bearer auth-secret-7731",
            "--header",
            "Cookie=sid=cookie-secret-7731",
        ],
        &[],
    );
    let output = format!("{}{}", r.json, r.stderr);
    assert!(!output.contains("secret-7731"), "{output}");
}

#[test]
fn each_authorization_metadata_fault_gets_its_detail() {
    const SERVER: (&str, &str) = ("http-authorization-server-metadata", "warning");
    const RESOURCE: (&str, &str) = ("http-resource-metadata", "warning");
    let cases = [
        ("no-s256", SERVER, "no-pkce-s256", "`S256`"),
        ("no-pkce", SERVER, "no-pkce", "refuse to proceed"),
        (
            "issuer-mismatch",
            SERVER,
            "issuer-mismatch",
            "elsewhere.example",
        ),
        ("no-document", SERVER, "missing-document", "HTTP 404"),
        ("refused-issuer", SERVER, "not-fetched", "cloud metadata"),
        ("refused-address", RESOURCE, "not-fetched", "cloud metadata"),
        ("wrong-resource", RESOURCE, "resource-mismatch", "/other"),
    ];
    for (variant, expected, detail_code, said) in cases {
        let r = auth_run(variant, &[], &[expected]);
        let code = expected.0;
        assert_eq!(detail(&r, code), detail_code, "{variant}");
        let message = r.issue(code)["message"].as_str().unwrap_or("");
        assert!(message.contains(said), "{variant}: {message}");
    }
}

#[test]
fn a_response_with_another_id_is_one_finding() {
    for (args, detail_code) in [
        (&[][..], "stream-wrong-id"),
        (&["--json"][..], "body-wrong-id"),
    ] {
        let server = HttpServer::fixture_with("http_response_wrong_id", args);
        let r = guard_url(&server.url("/mcp"), &["--timeout", "5000"]);
        assert_eq!(
            r.issues(),
            pairs(&[("http-response-wrong-id", "error")]),
            "{detail_code}: {:#}",
            r.json["issues"]
        );
        assert_eq!(detail(&r, "http-response-wrong-id"), detail_code);
        assert!(r.issue("http-response-wrong-id")["message"]
            .as_str()
            .unwrap_or("")
            .contains("\"not-yours\""));
        assert_eq!(r.exit, 1);
    }
}

#[test]
fn an_http_error_without_a_json_rpc_error_is_reported() {
    let r = expect_http(
        "http_error_status",
        "fail",
        &[("http-error-status", "error")],
    );
    assert_eq!(detail(&r, "http-error-status"), "server-error");
}

#[test]
fn a_url_nothing_listens_on_is_unreachable() {
    let url = format!("http://127.0.0.1:{}/mcp", free_port());
    let r = guard_url(&url, &["--timeout", "3000"]);
    assert_eq!(
        r.issues(),
        pairs(&[("http-unreachable", "error")]),
        "{:#}",
        r.json["issues"]
    );
    assert_eq!(detail(&r, "http-unreachable"), "connect-failed");
    assert_eq!(r.exit, 1);
}

#[test]
fn a_self_signed_certificate_is_a_finding_not_a_crash() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    let made = std::process::Command::new("openssl")
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
        ])
        .args([
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
        ])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .expect("openssl makes the test certificate");
    assert!(
        made.status.success(),
        "openssl: {}",
        String::from_utf8_lossy(&made.stderr)
    );
    let server = HttpServer::fixture_with(
        "https_self_signed",
        &[&cert.display().to_string(), &key.display().to_string()],
    );
    let url = format!("https://127.0.0.1:{}/mcp", server.port);
    let r = guard_url(&url, &["--timeout", "5000"]);
    assert_eq!(
        r.issues(),
        pairs(&[("http-tls-invalid", "error")]),
        "{:#}",
        r.json["issues"]
    );
    assert_eq!(detail(&r, "http-tls-invalid"), "tls-handshake");
    assert_eq!(r.exit, 1);
}

#[test]
fn header_values_never_appear_in_any_report() {
    let server = HttpServer::fixture("http_clean");
    let url = server.url("/mcp");
    let secret = "sk-live-0123456789abcdefSECRETVALUE";
    let header = format!("Authorization=Bearer {secret}");
    for format in ["human", "json", "sarif", "markdown"] {
        let out = mcpcheck()
            .args([
                "guard", "--url", &url, "--header", &header, "--format", format,
            ])
            .output()
            .expect("run mcpcheck");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.status.code(), Some(0), "{format}: {text}");
        assert!(!text.contains(secret), "{format} leaked the header value");
        assert!(
            !text.contains("0123456789abcdef"),
            "{format} leaked part of it"
        );
    }
}

#[test]
fn private_and_metadata_addresses_are_refused_before_any_request() {
    for url in ["http://10.1.2.3/mcp", "http://169.254.169.254/latest"] {
        let out = mcpcheck()
            .args(["guard", "--url", url])
            .output()
            .expect("run mcpcheck");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{url}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{url}: {stderr}");
        assert!(stderr.contains("--url-allow-unsafe"), "{url}: {stderr}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn bad_url_flags_are_usage_errors() {
    for (args, says) in [
        (&["--header", "A=b"][..], "add --url"),
        (
            &["--url", "ftp://example.com/x"][..],
            "not an http:// or https:// URL",
        ),
        (
            &["--url", "http://127.0.0.1:1/mcp", "--header", "no-equals"][..],
            "NAME=VALUE",
        ),
        (
            &["--url", "http://127.0.0.1:1/mcp", "--", "python3", "x.py"][..],
            "not both",
        ),
    ] {
        let out = mcpcheck()
            .arg("guard")
            .args(args)
            .output()
            .expect("run mcpcheck");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{args:?}: {stderr}");
    }
}

fn everything(mode: &str) -> HttpServer {
    let bin =
        sdk_dir("ts").join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        bin.exists(),
        "server-everything is not installed: run scripts/install-fixtures (scripts/test does)"
    );
    HttpServer::command("node", &[&bin.display().to_string(), mode], free_port())
}

/// The reference server does not check Origin, and answers a request on a session it ended
/// with 400 rather than 404: both real deviations from the spec, reported as warnings and
/// nothing else, at every version.
#[test]
fn server_everything_streamable_http_has_only_its_two_known_warnings() {
    let server = everything("streamableHttp");
    for version in VERSIONS {
        let r = guard_url(
            &server.url("/mcp"),
            &["--timeout", "30000", "--protocol", version],
        );
        assert_eq!(
            r.issues(),
            pairs(&[
                ("http-origin-not-validated", "warning"),
                ("http-session-termination", "warning"),
            ]),
            "{version}: {:#}",
            r.json["issues"]
        );
        assert_eq!(r.exit, 0, "{version}");
        assert_eq!(r.json["initialized"], true, "{version}");
        assert_eq!(r.json["http"]["probes"]["afterDelete"], 400, "{version}");
        assert_eq!(r.json["http"]["getStream"]["status"], 200, "{version}");
        assert!(
            r.json["toolSchema"]["total"].as_u64().unwrap_or(0) > 0,
            "{version}"
        );
    }
}

#[test]
fn strict_makes_a_foreign_origin_accepted_an_error_and_probes_speak_http() {
    let r = expect_http_with(
        "http_no_origin_check",
        &["--profile", "strict"],
        "fail",
        &[
            ("http-origin-not-validated", "error"),
            ("adversarial-ping-before-initialize-result", "note"),
        ],
    );
    // Over HTTP two requests with one id are never in flight: the probe is skipped.
    let duplicate = r.json["adversarial"]["probes"]
        .as_array()
        .and_then(|p| p.iter().find(|p| p["name"] == "duplicate-id"))
        .expect("the duplicate-id probe");
    assert_eq!(duplicate["status"], "skipped");
    // A 400 before initialize is HTTP's refusal, not a stopped server.
    let ping = r.issue("adversarial-ping-before-initialize-result")["message"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(
        ping.contains("refused over HTTP (ping: HTTP 400: missing session)"),
        "{ping}"
    );
}

/// A server request that comes only on the standalone GET stream (held open from
/// notifications/initialized to the end of the session) is judged as one on a POST stream.
#[test]
fn a_server_request_sent_only_on_the_get_stream_is_checked() {
    let r = expect_http(
        "http_get_stream_sampling",
        "warning",
        &[("server-request-undeclared-capability", "warning")],
    );
    let message = r.issue("server-request-undeclared-capability")["message"]
        .as_str()
        .unwrap_or("");
    assert!(message.contains("sampling/createMessage"), "{message}");
    assert!(message.contains("(first at message "), "{message}");
    assert!(message.contains(" it sent over HTTP)"), "{message}");
    let g = &r.json["http"]["getStream"];
    assert_eq!(g["status"], 200, "{g}");
    assert_eq!(g["eventStream"], true, "{g}");
    assert_eq!(g["messages"], 1, "{g}");
    assert_eq!(g["responses"], 0, "{g}");
    assert_eq!(g["lastEventId"], "get-1", "{g}");
    assert_eq!(g["retryMs"], 3000, "{g}");
    // The fixture holds the stream open without writing; closing it ended the session.
    assert_eq!(g["endedByServer"], false, "{g}");
    // The human report says where the messages came from.
    let server = HttpServer::fixture("http_get_stream_sampling");
    let out = mcpcheck()
        .args(["guard", "--url", &server.url("/mcp"), "--timeout", "5000"])
        .output()
        .expect("run mcpcheck");
    let human = String::from_utf8_lossy(&out.stdout);
    assert!(human.contains("(1 on the GET stream, HTTP 200)"), "{human}");
}

#[test]
fn a_response_and_data_that_is_not_json_on_the_get_stream_are_reported() {
    let r = expect_http(
        "http_get_stream_response",
        "fail",
        &[
            ("http-sse-malformed", "error"),
            ("http-get-stream", "warning"),
        ],
    );
    assert_eq!(detail(&r, "http-get-stream"), "response-on-get-stream");
    assert_eq!(detail(&r, "http-sse-malformed"), "data-not-json");
    let message = r.issue("http-sse-malformed")["message"]
        .as_str()
        .unwrap_or("");
    assert_eq!(
        message,
        "An event on the standalone GET stream carries data that is not JSON: `{not json`."
    );
    let g = &r.json["http"]["getStream"];
    assert_eq!(g["events"], 2, "{g}");
    assert_eq!(g["responses"], 1, "{g}");
    // The response is judged on the stream, not handed to the session as a frame.
    assert_eq!(g["messages"], 0, "{g}");
}

/// server-everything's simulated logging (started by one of its tools) sends
/// notifications/message on the standalone stream: read as frames, and no new finding.
#[test]
fn server_everything_log_notifications_on_the_get_stream_are_read_and_pass() {
    let server = everything("streamableHttp");
    let r = guard_url(
        &server.url("/mcp"),
        &[
            "--timeout",
            "30000",
            "--request",
            "tools/call",
            "--params",
            r#"{"name":"toggle-simulated-logging","arguments":{}}"#,
            "--settle",
            "1500",
        ],
    );
    assert_eq!(
        r.issues(),
        pairs(&[
            ("http-origin-not-validated", "warning"),
            ("http-session-termination", "warning"),
        ]),
        "{:#}",
        r.json["issues"]
    );
    assert_eq!(r.json["operation"]["outcome"], "result");
    let g = &r.json["http"]["getStream"];
    assert!(g["messages"].as_u64().unwrap_or(0) >= 1, "{g}");
    assert_eq!(g["responses"], 0, "{g}");
}

/// A GET that never gets its headers holds nothing up: the guard drops the connection when
/// the session is over, though --timeout (300 s) would let it wait far longer, and it is no
/// finding. The 120 s bound only catches a hang; it measures nothing.
#[test]
fn a_get_stream_that_never_answers_is_dropped_at_the_end() {
    use std::process::Stdio;
    let server = HttpServer::fixture("http_get_never_answers");
    let mut child = mcpcheck()
        .args(["guard", "--json", "--url", &server.url("/mcp")])
        .args(["--timeout", "300000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run mcpcheck");
    let bound = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while child.try_wait().expect("wait").is_none() {
        if std::time::Instant::now() > bound {
            let _ = child.kill();
            panic!("the guard was still running after 120 s: the GET stream held it");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let r = support::guard::parse(child.wait_with_output().expect("output"));
    assert_eq!(r.issues(), pairs(&[]), "{:#}", r.json["issues"]);
    assert_eq!(r.exit, 0);
    let g = &r.json["http"]["getStream"];
    assert_eq!(g["status"], serde_json::Value::Null, "{g}");
    assert_eq!(r.json["http"]["probes"]["get"], serde_json::Value::Null);
    assert_eq!(r.json["http"]["probes"]["delete"], 200);
}

/// The adversarial probes over Streamable HTTP, each with its outcome and the words it has
/// there: what a real SDK server does with bad input, run as a client would send it.
#[test]
fn the_adversarial_probes_run_over_http_and_say_what_http_answered() {
    let server = ts_server("stateful", &[]);
    let r = guard_url(
        &server.url("/mcp"),
        &["--timeout", "30000", "--adversarial-probes", "all"],
    );
    assert_eq!(
        r.issues(),
        pairs(&[("adversarial-ping-before-initialize-result", "note")]),
        "{:#}",
        r.json["issues"]
    );
    let probes = r.json["adversarial"]["probes"]
        .as_array()
        .expect("probes")
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap_or("").to_string(),
                p["status"].as_str().unwrap_or("").to_string(),
                p["observed"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect::<Vec<_>>();
    let observed = |name: &str| {
        probes
            .iter()
            .find(|p| p.0 == name)
            .unwrap_or_else(|| panic!("no probe {name}: {probes:?}"))
            .clone()
    };
    assert_eq!(observed("invalid-method").2, "error -32601");
    assert_eq!(
        observed("notification").2,
        "HTTP 202, no body; ping still answered"
    );
    assert_eq!(
        observed("unknown-cancel").2,
        "ignored (HTTP 202, no body); ping still answered"
    );
    assert_eq!(
        observed("malformed-json").2,
        "HTTP 400; ping still answered"
    );
    // Each request is a POST the guard waits on: two are never in flight at once.
    let duplicate = observed("duplicate-id");
    assert_eq!(duplicate.1, "skipped");
    assert!(duplicate.2.contains("over HTTP"), "{}", duplicate.2);
}

#[test]
fn notifications_answered_with_a_body_over_http_fail_the_notification_probes() {
    let r = expect_http_with(
        "http_notification_200",
        &["--adversarial-probes", "notification,unknown-cancel"],
        "fail",
        &[
            // The transport's MUST is the error (listed first); the probes' own codes stay
            // warnings.
            ("http-notification-not-accepted", "error"),
            ("adversarial-notification-result", "warning"),
            ("adversarial-unknown-cancel-result", "warning"),
        ],
    );
    for code in [
        "adversarial-notification-result",
        "adversarial-unknown-cancel-result",
    ] {
        let message = r.issue(code)["message"].as_str().unwrap_or("");
        assert!(
            message.contains("answered over HTTP (HTTP 200 with a 12-byte body)"),
            "{code}: {message}"
        );
        assert!(message.contains("202 Accepted with no body"), "{message}");
    }
}

#[test]
fn a_request_refused_over_http_without_a_json_rpc_answer_is_left_unanswered() {
    let r = expect_http_with(
        "http_refuses_unknown_method",
        &["--adversarial-probes", "invalid-method"],
        "fail",
        &[("adversarial-probe-timeout", "error")],
    );
    let message = r.issue("adversarial-probe-timeout")["message"]
        .as_str()
        .unwrap_or("");
    assert!(
        message.contains("answered an unknown method over HTTP without a JSON-RPC answer (mcpcheck/no-such-method: HTTP 400"),
        "{message}"
    );
    assert!(!message.contains("stopped"), "{message}");
}

#[test]
fn a_body_that_is_not_json_answered_with_a_result_over_http_is_reported() {
    let r = expect_http_with(
        "http_malformed_result",
        &["--adversarial-probes", "malformed-json"],
        "warning",
        &[("adversarial-malformed-json-result", "warning")],
    );
    let message = r.issue("adversarial-malformed-json-result")["message"]
        .as_str()
        .unwrap_or("");
    assert!(
        message.contains("A POST body that is not JSON was answered over HTTP with a result (HTTP 200 with a result)"),
        "{message}"
    );
}

/// The HTTP counterpart of garbage on stdout after a probe: an answer that is not JSON-RPC.
#[test]
fn an_answer_to_a_probe_that_is_not_json_rpc_is_reported_over_http() {
    let r = expect_http_with(
        "http_probe_traceback",
        &["--adversarial-probes", "invalid-method"],
        "fail",
        &[
            ("adversarial-probe-invalid-stdout", "error"),
            ("adversarial-probe-timeout", "error"),
        ],
    );
    let message = r.issue("adversarial-probe-invalid-stdout")["message"]
        .as_str()
        .unwrap_or("");
    assert!(
        message.starts_with("After the invalid-method probe the server's HTTP answer to `mcpcheck/no-such-method` (a body that is not JSON: Traceback"),
        "{message}"
    );
    assert!(!message.contains("stdout"), "{message}");
}

/// Issue 27 item 10: a server that accepts the connection and never answers initialize was
/// reached; it did not answer. The verdict is the one a stdio server that never answers
/// gets: initialize-timeout, with the same severity, checks and status.
#[test]
fn a_server_that_never_answers_initialize_over_http_times_out_as_over_stdio() {
    let server = HttpServer::fixture("http_never_answers_initialize");
    let r = guard_url(&server.url("/mcp"), &["--timeout", "1500"]);
    let stdio = support::guard::guard_fixture("never_answers_initialize", &["--timeout", "1500"]);
    assert_eq!(
        r.issues(),
        pairs(&[("initialize-timeout", "error")]),
        "{:#}",
        r.json["issues"]
    );
    assert_eq!(r.issues(), stdio.issues());
    assert_eq!(r.status(), stdio.status());
    assert_eq!(r.class(), stdio.class());
    assert_eq!(
        r.json["checks"]["initialize"],
        stdio.json["checks"]["initialize"]
    );
    assert_eq!(r.json["checks"]["initialize"]["status"], "fail");
    assert_eq!(r.exit, stdio.exit);
    assert_eq!(r.json["initialized"], false);
}
