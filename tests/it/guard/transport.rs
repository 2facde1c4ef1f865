//! stdio transport and JSON-RPC faults, each reproduced by its own fixture server.

use crate::support;
use support::guard::*;
use support::portable_backend;

#[test]
fn clean_server_has_no_finding() {
    let r = expect_fixture("clean", &[], "pass", &[]);
    // The contract's strings are empty, not null, when nothing was found.
    assert_eq!(r.json["summary"]["primaryIssueCode"], "");
    assert_eq!(r.json["summary"]["primaryIssueClass"], "");
    assert_eq!(r.json["summary"]["display"], "verified");
    assert_eq!(r.json["negotiatedProtocol"], "2025-11-25");
    assert_eq!(r.json["initialized"], true);
    assert_eq!(r.json["toolSchema"]["valid"], 2);
    assert_eq!(r.json["process"]["outcome"], "guard-terminated");
    assert_eq!(
        r.json["process"]["detail"]["outcome"],
        "exited-on-stdin-close"
    );
    // Every check that ran passed; the contract's checks of what was not asked for are skipped.
    let mut skipped = Vec::new();
    for (name, check) in r.json["checks"].as_object().expect("checks") {
        match check["status"].as_str() {
            Some("pass") => {}
            Some("skipped") => skipped.push(name.as_str()),
            // The portable backend (macOS) cannot check leftovers, and says so.
            Some("not-checked") if name == "leftoverProcesses" && portable_backend() => {}
            other => panic!("check {name}: {other:?}"),
        }
    }
    assert_eq!(
        skipped,
        ["operation", "adversarial", "staticScan", "repeat"]
    );
}

#[test]
fn banner_before_initialize_is_non_json_on_line_1() {
    let r = expect_fixture(
        "banner_before_initialize",
        &[],
        "fail",
        &[("stdout-non-json", "error")],
    );
    let issue = r.issue("stdout-non-json");
    assert_eq!(issue["location"]["stdoutLine"], 1);
    assert_eq!(issue["evidence"], "Starting fixture server v1");
    assert_eq!(issue["detailCode"], "plain-text");
    assert_eq!(r.class(), Some("stdioTransport"));
    assert_eq!(r.json["summary"]["primaryIssueCode"], "stdout-non-json");
}

#[test]
fn a_line_written_at_exit_is_read_and_judged() {
    // Issue 44 item 1: stdout was not read once stdin closed, so a line a server wrote as it
    // exited was missing from stdoutBytes and never judged. The same server without the
    // line (clean.py) is unaffected: it passes, ending the same way.
    let clean = expect_fixture("clean", &[], "pass", &[]);
    let r = expect_fixture(
        "goodbye_on_eof",
        &[],
        "fail",
        &[("stdout-non-json", "error")],
    );
    let issue = r.issue("stdout-non-json");
    assert_eq!(issue["evidence"], "goodbye");
    assert_eq!(issue["location"]["stdoutLine"], 6);
    let message = issue["message"].as_str().expect("message");
    assert!(
        message.contains("first during shutdown") && message.contains("after stdin closed"),
        "{message}"
    );
    let bytes = |r: &GuardResult| r.json["process"]["output"]["stdoutBytes"].as_u64();
    assert_eq!(
        bytes(&r),
        bytes(&clean).map(|b| b + "goodbye\n".len() as u64)
    );
    for run in [&clean, &r] {
        assert_eq!(
            run.json["process"]["detail"]["outcome"],
            "exited-on-stdin-close"
        );
    }
}

#[test]
fn log_after_initialize_is_non_json_on_line_2() {
    let r = expect_fixture(
        "log_after_initialize",
        &[],
        "fail",
        &[("stdout-non-json", "error")],
    );
    assert_eq!(r.issue("stdout-non-json")["location"]["stdoutLine"], 2);
}

#[test]
fn pretty_printed_json_is_named_as_the_cause() {
    let r = expect_fixture(
        "pretty_printed_json",
        &["--timeout", "1500"],
        "fail",
        &[
            ("initialize-timeout", "error"),
            ("stdout-non-json", "error"),
        ],
    );
    let issue = r.issue("stdout-non-json");
    assert_eq!(issue["detailCode"], "multi-line-json");
    assert_eq!(issue["evidence"], "{");
    assert_eq!(r.class(), Some("stdioTransport"));
}

#[test]
fn byte_order_mark_is_named_as_the_cause() {
    let r = expect_fixture(
        "bom_before_json",
        &["--timeout", "1500"],
        "fail",
        &[
            ("initialize-timeout", "error"),
            ("stdout-non-json", "error"),
        ],
    );
    assert_eq!(r.issue("stdout-non-json")["detailCode"], "byte-order-mark");
}

#[test]
fn late_stdout_write_is_caught_by_the_settle_window() {
    let r = expect_fixture(
        "late_stdout_write",
        &["--settle", "1500"],
        "fail",
        &[("stdout-non-json", "error")],
    );
    assert_eq!(r.issue("stdout-non-json")["evidence"], "late log line");
}

#[test]
fn empty_line_is_a_warning() {
    let r = expect_fixture(
        "empty_line",
        &[],
        "warning",
        &[("stdout-empty-line", "warning")],
    );
    assert_eq!(r.class(), Some("stdioTransport"));
}

#[test]
fn content_length_framing_is_named_as_the_cause() {
    // No client can read another message after the header: the root cause only, no
    // initialize-timeout waited for.
    let r = expect_fixture(
        "content_length_framing",
        &["--timeout", "1500"],
        "fail",
        &[("stdout-content-length-framing", "error")],
    );
    // The wait for initialize ended at the header, not at the timeout.
    assert_eq!(r.json["exchanges"][0]["purpose"], "initialize");
    assert_eq!(r.json["exchanges"][0]["outcome"], "no-response");
}

#[test]
fn content_length_framing_after_initialize_is_the_only_finding() {
    expect_fixture(
        "content_length_after_initialize",
        &["--timeout", "1500", "--request", "ping"],
        "fail",
        &[("stdout-content-length-framing", "error")],
    );
}

#[test]
fn missing_trailing_newline_is_reported_with_the_timeout_it_causes() {
    let r = expect_fixture(
        "no_trailing_newline",
        &["--timeout", "1500"],
        "fail",
        &[
            ("initialize-timeout", "error"),
            ("stdout-without-newline", "error"),
        ],
    );
    assert_eq!(
        r.issue("stdout-without-newline")["detailCode"],
        "json-without-newline"
    );
    assert_eq!(r.class(), Some("stdioTransport"));
}

#[test]
fn huge_line_stops_the_run() {
    // Over the hard cap the run stops; the default cap (16 MiB) is set lower here.
    let r = expect_fixture(
        "huge_line",
        &["--max-stdout-line-bytes", "262144"],
        "fail",
        &[("stdout-line-too-large", "error")],
    );
    assert_eq!(
        r.issue("stdout-line-too-large")["location"]["stdoutLine"],
        2
    );
    assert_eq!(r.json["process"]["outcome"], "guard-terminated");
    assert_eq!(r.json["process"]["detail"]["outcome"], "killed-for-limit");
    let output = &r.json["process"]["output"];
    assert_eq!(output["limitExceeded"], true);
    assert_eq!(output["exceededCode"], "stdout-line-too-large");
    assert_eq!(r.json["process"]["killReason"], "output-limit");
}

#[test]
fn a_2_mb_tools_list_line_is_parsed_judged_and_only_warned_about() {
    let r = expect_fixture(
        "tools_list_2mb_line",
        &[],
        "warning",
        &[("stdout-line-large", "warning")],
    );
    let issue = r.issue("stdout-line-large");
    assert_eq!(issue["location"]["stdoutLine"], 2);
    let message = issue["message"].as_str().expect("message");
    assert!(message.contains("the largest 2"), "{message}");
    assert!(message.contains("TypeScript and Python SDK"), "{message}");
    // The answer was read: its tools were judged like any others.
    assert_eq!(r.json["toolSchema"]["total"], 1000);
    assert_eq!(
        r.json["process"]["detail"]["outcome"],
        "exited-on-stdin-close"
    );
}

#[test]
fn a_400_kib_line_under_the_default_cap_is_a_warning() {
    // Deliberate change (issue 22): under the 16 MiB hard cap a large line is judged (its
    // 400000-char description is past what the surface rules read, which they say).
    expect_fixture(
        "huge_line",
        &[],
        "warning",
        &[
            ("stdout-line-large", "warning"),
            ("surface-scan-incomplete", "note"),
        ],
    );
}

#[test]
fn line_limit_is_configurable() {
    let r = expect_fixture(
        "clean",
        &["--max-stdout-line-bytes", "100"],
        "fail",
        &[("stdout-line-too-large", "error")],
    );
    assert_eq!(
        r.issue("stdout-line-too-large")["location"]["stdoutLine"],
        1
    );
}

#[test]
fn flood_stops_at_the_output_limit() {
    let r = expect_fixture(
        "flood_stdout",
        &[],
        "fail",
        &[
            ("stdout-non-json", "error"),
            ("stdout-output-limit-exceeded", "error"),
        ],
    );
    assert_eq!(r.json["process"]["outcome"], "guard-terminated");
    assert_eq!(r.json["process"]["detail"]["outcome"], "killed-for-limit");
    assert_eq!(r.json["process"]["killedByGuard"], true);
    let bytes = r.json["stdout"]["bytes"].as_u64().expect("bytes");
    assert!(bytes > 1_048_576, "read past the limit: {bytes}");
}

#[test]
fn invalid_utf8_is_reported() {
    let r = expect_fixture(
        "invalid_utf8",
        &[],
        "fail",
        &[("stdout-invalid-utf8", "error")],
    );
    assert_eq!(r.issue("stdout-invalid-utf8")["location"]["stdoutLine"], 2);
}

#[test]
fn crlf_line_endings_are_a_warning() {
    expect_fixture(
        "crlf_line_endings",
        &[],
        "warning",
        &[("stdout-carriage-return", "warning")],
    );
}

#[test]
fn wrong_jsonrpc_version() {
    let r = expect_fixture(
        "wrong_jsonrpc_version",
        &[],
        "fail",
        &[("stdout-invalid-json-rpc", "error")],
    );
    assert_eq!(
        r.issue("stdout-invalid-json-rpc")["detailCode"],
        "wrong-jsonrpc-version"
    );
    assert_eq!(r.class(), Some("mcpProtocol"));
}

#[test]
fn result_and_error_together() {
    let r = expect_fixture(
        "result_and_error",
        &[],
        "fail",
        &[("stdout-invalid-json-rpc", "error")],
    );
    assert_eq!(
        r.issue("stdout-invalid-json-rpc")["detailCode"],
        "result-and-error"
    );
}

#[test]
fn method_and_result_together_is_invalid_json_rpc() {
    let r = expect_fixture(
        "request_with_result",
        &[],
        "fail",
        &[("stdout-invalid-json-rpc", "error")],
    );
    assert_eq!(
        r.issue("stdout-invalid-json-rpc")["detailCode"],
        "method-and-result"
    );
}

#[test]
fn error_code_that_is_a_string() {
    let r = expect_fixture(
        "error_code_string",
        &[],
        "fail",
        &[("stdout-invalid-json-rpc", "error")],
    );
    assert_eq!(
        r.issue("stdout-invalid-json-rpc")["detailCode"],
        "error-code-not-integer"
    );
}

#[test]
fn batch_response_is_reported() {
    let r = expect_fixture(
        "batch_response",
        &[],
        "fail",
        &[("stdout-invalid-json-rpc", "error")],
    );
    assert_eq!(r.issue("stdout-invalid-json-rpc")["detailCode"], "batch");
    // The batch still answered tools/list, so nothing cascades into a timeout.
    assert_eq!(r.json["toolSchema"]["total"], 2);
}

#[test]
fn json_that_is_not_an_object() {
    let r = expect_fixture(
        "json_not_object",
        &[],
        "fail",
        &[("stdout-invalid-json-rpc", "error")],
    );
    assert_eq!(
        r.issue("stdout-invalid-json-rpc")["detailCode"],
        "not-an-object"
    );
}

#[test]
fn json_past_the_parsers_depth_limit_is_not_called_not_json() {
    let r = expect_fixture(
        "deeply_nested_json",
        &[],
        // The clients drop the line and go on (issue 32 item 3).
        "warning",
        &[("stdout-json-beyond-parser-limits", "warning")],
    );
    let issue = r.issue("stdout-json-beyond-parser-limits");
    assert_eq!(issue["detailCode"], "nesting-too-deep");
    assert_eq!(issue["location"]["stdoutLine"], 2);
    let message = issue["message"].as_str().expect("message");
    assert!(
        message.starts_with("1 line on stdout is JSON nested deeper than 127 levels (line 2)"),
        "{message}"
    );
}

#[test]
fn ids_no_client_can_hold_are_named_as_out_of_range() {
    let r = expect_fixture(
        "ids_out_of_range",
        &[],
        "fail",
        &[
            ("stdout-invalid-json-rpc", "error"),
            ("stdout-json-beyond-parser-limits", "warning"),
        ],
    );
    let range = r.issue("stdout-json-beyond-parser-limits");
    assert_eq!(range["detailCode"], "number-out-of-range");
    assert_eq!(range["location"]["stdoutLine"], 2);
    let message = range["message"].as_str().expect("message");
    assert!(
        message
            .starts_with("1 line on stdout holds a number outside the range clients can represent"),
        "{message}"
    );
    let big = r.issue("stdout-invalid-json-rpc");
    assert_eq!(big["detailCode"], "id-out-of-range");
    assert_eq!(big["location"]["stdoutLine"], 3);
    let message = big["message"].as_str().expect("message");
    assert!(message.contains("outside the 64-bit range"), "{message}");
    assert!(
        !message.contains("must be a string or an integer"),
        "{message}"
    );
}

#[test]
fn text_behind_a_json_prefix_past_parser_limits_is_not_json() {
    // A line is JSON or it is not: a prefix that runs into a parser limit does not make
    // the log text after it a warning (issue 40 item 4).
    let r = expect_fixture(
        "text_behind_json_past_parser_limits",
        &[],
        "fail",
        &[("stdout-non-json", "error")],
    );
    let issue = r.issue("stdout-non-json");
    assert_eq!(issue["detailCode"], "plain-text");
    assert_eq!(issue["location"]["stdoutLine"], 2);
    let message = issue["message"].as_str().expect("message");
    assert!(
        message.starts_with("3 lines on stdout are not JSON (lines 2, 3, 4)"),
        "{message}"
    );
}

#[test]
fn response_to_an_unknown_id() {
    let r = expect_fixture(
        "unknown_response_id",
        &[],
        // The clients drop the stray response and go on (issue 32 item 3).
        "warning",
        &[("response-id-mismatch", "warning")],
    );
    assert_eq!(r.issue("response-id-mismatch")["detailCode"], "unknown-id");
}

/// A fault repeated on every line is one finding, and the report stays small: 20,000 answers
/// to ids never sent make one `unknown-id` finding naming the first lines and counting the
/// rest (issue 42: each had been a finding, and the report grew with them).
#[test]
fn answers_to_many_unknown_ids_are_one_finding_and_a_small_report() {
    let out = support::mcpcheck()
        .args(["guard", "--json", "--"])
        .args([
            support::python_command(),
            &support::fixture("answers_many_unknown_ids"),
        ])
        .arg("20000")
        .output()
        .expect("run mcpcheck");
    let size = out.stdout.len();
    let r = support::guard::parse(out);
    assert_eq!(
        r.issues(),
        [("response-id-mismatch".to_string(), "warning".to_string())]
    );
    let issue = r.issue("response-id-mismatch");
    assert_eq!(issue["detailCode"], "unknown-id");
    assert_eq!(issue["location"]["stdoutLine"], 2);
    assert_eq!(
        issue["message"],
        "20000 stdout lines are responses to ids the client never sent (lines 2, 3, 4, 5, 6, 7, 8, 9 and 19992 more)."
    );
    assert!(size < 256 * 1024, "the report is {size} bytes");
}

#[test]
fn string_ids_for_integer_requests() {
    expect_fixture(
        "string_id",
        &[],
        "fail",
        &[("response-id-type-mismatch", "error")],
    );
}

#[test]
fn reply_to_a_notification() {
    expect_fixture(
        "replies_to_notification",
        &[],
        // The clients drop the stray reply and go on (issue 32 item 3).
        "warning",
        &[("notification-response", "warning")],
    );
}

#[test]
fn server_requests_are_answered_like_a_real_client() {
    // The fixture prints plain text on stdout if ping or roots/list is answered wrongly.
    // roots/list needs the roots capability, which the guard does not declare.
    let r = expect_fixture(
        "server_asks_client",
        &["--settle", "1000"],
        "warning",
        &[("server-request-undeclared-capability", "warning")],
    );
    let asked = r.json["stdout"]["serverRequests"]
        .as_array()
        .expect("serverRequests");
    let methods: Vec<(&str, bool)> = asked
        .iter()
        .map(|q| {
            (
                q["method"].as_str().expect("method"),
                q["answeredWithError"].as_bool().expect("bool"),
            )
        })
        .collect();
    assert_eq!(methods, vec![("ping", false), ("roots/list", true)]);
}

#[test]
fn requests_for_capabilities_the_guard_never_declared_are_named_with_their_count() {
    let r = expect_fixture(
        "asks_undeclared_capabilities",
        &["--settle", "500"],
        // The clients answer -32601 and go on (issue 32 item 3).
        "warning",
        &[
            ("server-request-undeclared-capability", "warning"),
            ("server-request-undeclared-capability", "warning"),
            ("server-request-undeclared-capability", "warning"),
        ],
    );
    let found: Vec<(String, String, u64)> = r.json["issues"]
        .as_array()
        .expect("issues")
        .iter()
        .map(|i| {
            (
                i["location"]["request"]
                    .as_str()
                    .expect("request")
                    .to_string(),
                i["message"].as_str().expect("message").to_string(),
                i["location"]["stdoutLine"].as_u64().expect("line"),
            )
        })
        .collect();
    let methods: Vec<&str> = found.iter().map(|(m, _, _)| m.as_str()).collect();
    // In the order the server sent them.
    assert_eq!(
        methods,
        ["sampling/createMessage", "roots/list", "elicitation/create"]
    );
    let sampling = &found[0];
    assert!(
        sampling.1.starts_with("The server sent `sampling/createMessage` 3 times (first at stdout line 2), which needs the client capability `sampling`"),
        "{}",
        sampling.1
    );
    assert_eq!(sampling.2, 2);
    assert!(found[1].1.contains("`roots/list` once"), "{}", found[1].1);
    // Under 2024-11-05 the lifecycle says SHOULD: the same requests are warnings.
    let old = guard_fixture(
        "asks_undeclared_capabilities",
        &["--settle", "500", "--protocol", "2024-11-05"],
    );
    let severities: Vec<&str> = old.json["issues"]
        .as_array()
        .expect("issues")
        .iter()
        .map(|i| i["severity"].as_str().expect("severity"))
        .collect();
    assert_eq!(severities, ["warning", "warning", "warning"]);
}

#[test]
fn many_server_requests_are_counted_with_a_bounded_sample() {
    let r = guard_fixture("many_server_requests", &["--settle", "1500"]);
    let stdout = &r.json["stdout"];
    let sample = stdout["serverRequests"].as_array().expect("serverRequests");
    assert_eq!(sample.len(), 100, "the list is a sample");
    assert_eq!(sample[0]["method"], "ping");
    assert_eq!(sample[0]["answeredWithError"], false);
    assert_eq!(stdout["serverRequestCount"], 10_000);
    assert_eq!(stdout["serverRequestsOmitted"], 9_900);
    assert_eq!(stdout["serverRequestsOtherMethods"], 0);
    let methods = &stdout["serverRequestMethods"];
    assert_eq!(methods["ping"]["count"], 6_000);
    assert_eq!(methods["ping"]["answeredWithError"], false);
    assert_eq!(methods["fixture/custom"]["count"], 4_000);
    assert_eq!(methods["fixture/custom"]["answeredWithError"], true);
    // 10,000 listed requests would take over 600 KB; the whole report stays far below.
    let size = serde_json::to_vec(&r.json).expect("json").len();
    assert!(size < 100_000, "report of {size} bytes");
}

#[test]
fn floods_of_notifications_and_requests_are_named_per_method() {
    let r = expect_fixture(
        "floods_notifications_and_requests",
        &["--settle", "1500"],
        "warning",
        &[
            ("server-message-flood", "warning"),
            ("server-message-flood", "warning"),
        ],
    );
    let floods: Vec<(&str, &str)> = r.json["issues"]
        .as_array()
        .expect("issues")
        .iter()
        .map(|i| {
            (
                i["detailCode"].as_str().expect("detail"),
                i["message"].as_str().expect("message"),
            )
        })
        .collect();
    let (detail, message) = floods[0];
    assert_eq!(detail, "notification-flood");
    assert!(
        message.starts_with("The server flooded the client with `notifications/message` notifications: 5000 in all, up to "),
        "{message}"
    );
    let (detail, message) = floods[1];
    assert_eq!(detail, "request-flood");
    assert!(
        message
            .starts_with("The server flooded the client with `ping` requests: 2000 in all, up to "),
        "{message}"
    );
    assert_eq!(r.json["stdout"]["serverRequestCount"], 2000);
}

#[test]
fn batch_answers_are_tolerated_only_under_2025_03_26() {
    expect_fixture("batch_response", &["--protocol", "2025-03-26"], "pass", &[]);
}
