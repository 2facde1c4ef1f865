//! MCP lifecycle faults: initialize, capability honesty and tool schemas.

use crate::support;
use support::guard::*;

#[test]
fn initialize_error() {
    let r = expect_fixture(
        "initialize_error",
        &[],
        "fail",
        &[("initialize-error", "error")],
    );
    assert!(r.issue("initialize-error")["message"]
        .as_str()
        .expect("message")
        .contains("-32603: boom"));
    assert_eq!(r.json["initialized"], false);
}

#[test]
fn initialize_result_not_an_object() {
    expect_fixture(
        "initialize_result_not_object",
        &[],
        "fail",
        &[("initialize-invalid-result", "error")],
    );
}

#[test]
fn missing_protocol_version() {
    expect_fixture(
        "missing_protocol_version",
        &[],
        "fail",
        &[("initialize-missing-protocol-version", "error")],
    );
}

#[test]
fn protocol_version_that_does_not_exist() {
    let r = expect_fixture(
        "bogus_protocol_version",
        &[],
        "fail",
        &[("initialize-invalid-protocol-version", "error")],
    );
    assert_eq!(
        r.issue("initialize-invalid-protocol-version")["detailCode"],
        "unknown-version"
    );
    assert_eq!(r.json["negotiatedProtocol"], "2099-01-01");
}

#[test]
fn older_real_version_is_accepted() {
    // Asked for 2024-11-05, the fixture answers with it: a legitimate negotiation.
    let r = expect_fixture("clean", &["--protocol", "2024-11-05"], "pass", &[]);
    assert_eq!(r.json["negotiatedProtocol"], "2024-11-05");
}

#[test]
fn missing_capabilities() {
    expect_fixture(
        "missing_capabilities",
        &[],
        "fail",
        &[("initialize-missing-capabilities", "error")],
    );
}

#[test]
fn capabilities_not_an_object() {
    let r = expect_fixture(
        "capabilities_not_object",
        &[],
        "fail",
        &[("initialize-invalid-capabilities", "error")],
    );
    // Nothing is probed when nothing valid is advertised.
    assert_eq!(r.json["exchanges"].as_array().expect("ops").len(), 1);
}

#[test]
fn missing_server_info_is_an_error() {
    // Severity from data/client-impact.json (issue 32 item 3): every client refused the initialize result.
    expect_fixture(
        "missing_server_info",
        &[],
        "fail",
        &[("initialize-missing-server-info", "error")],
    );
}

#[test]
fn server_info_without_name_is_an_error() {
    // Severity from data/client-impact.json (issue 32 item 3): every client refused the initialize result.
    expect_fixture(
        "server_info_without_name",
        &[],
        "fail",
        &[("initialize-invalid-server-info", "error")],
    );
}

#[test]
fn advertised_prompts_not_implemented() {
    let r = expect_fixture(
        "prompts_method_not_found",
        &[],
        "fail",
        &[("capability-list-unsupported", "error")],
    );
    assert_eq!(
        r.issue("capability-list-unsupported")["location"]["request"],
        "prompts/list"
    );
    assert_eq!(r.json["listChecks"]["prompts/list"]["status"], "fail");
    assert_eq!(r.json["listChecks"]["tools/list"]["status"], "pass");
}

#[test]
fn list_method_error() {
    expect_fixture(
        "tools_list_internal_error",
        &[],
        "fail",
        &[("capability-list-error", "error")],
    );
}

#[test]
fn an_unreachable_upstream_is_the_environments_fault_and_a_server_bug_is_not() {
    let env = expect_fixture(
        "tools_list_upstream_unreachable",
        &[],
        "needs_inspection",
        &[("capability-list-error", "error")],
    );
    let issue = env.issue("capability-list-error");
    assert_eq!(issue["class"], "environment");
    assert!(
        issue["evidence"]
            .as_str()
            .is_some_and(|e| e.ends_with("getaddrinfo ENOTFOUND api.airtable.com")),
        "{issue}"
    );
    assert!(
        issue["message"]
            .as_str()
            .is_some_and(|m| m.contains("a host name it needs does not resolve")),
        "{issue}"
    );
    assert_eq!(env.json["summary"]["issueClass"], "environment");
    let bug = expect_fixture(
        "tools_list_server_bug",
        &[],
        "fail",
        &[("capability-list-error", "error")],
    );
    assert_eq!(bug.issue("capability-list-error")["class"], "mcpProtocol");
    // A credential the server names and does not get, on its way out.
    let exited = expect_fixture(
        "exits_without_its_credential",
        &[],
        "needs_inspection",
        &[("server-exited", "error")],
    );
    let issue = exited.issue("server-exited");
    assert_eq!(issue["class"], "environment");
    assert_eq!(
        issue["evidence"],
        "Please provide EXAMPLE_API_KEY environment variable."
    );
    // A native library the server loads is not on this host.
    let native = expect_fixture(
        "needs_a_missing_native_library",
        &[],
        "needs_inspection",
        &[("server-exited", "error")],
    );
    let issue = native.issue("server-exited");
    assert_eq!(issue["class"], "environment");
    assert_eq!(
        issue["evidence"],
        "ImportError: libodbc.so.2: cannot open shared object file: No such file or directory"
    );
    assert!(
        issue["message"]
            .as_str()
            .is_some_and(|m| m.contains("a native library it loads is missing")),
        "{issue}"
    );
}

#[test]
fn list_method_never_answers() {
    let r = expect_fixture(
        "tools_list_never_answers",
        &["--timeout", "3000"],
        "fail",
        &[("capability-list-timeout", "error")],
    );
    assert_eq!(r.json["process"]["timedOut"], true);
    // The other lists were still probed after the timeout.
    assert_eq!(r.json["listChecks"]["prompts/list"]["status"], "pass");
}

#[test]
fn server_request_before_initialize_is_answered_is_a_warning() {
    // The request also needs a capability the guard never declares (sampling): two
    // problems, two findings, both warnings (the clients answer -32601 and go on:
    // data/client-impact.json, issue 32 item 3).
    let r = expect_fixture(
        "asks_before_initialized",
        &[],
        "warning",
        &[
            ("server-request-before-initialized", "warning"),
            ("server-request-undeclared-capability", "warning"),
        ],
    );
    let issue = r.issue("server-request-before-initialized");
    assert_eq!(issue["location"]["stdoutLine"], 1);
    assert!(issue["message"]
        .as_str()
        .expect("message")
        .contains("`sampling/createMessage`"));
}

#[test]
fn crash_while_listing_tools() {
    let r = expect_fixture(
        "crash_on_tools_list",
        &[],
        "needs_inspection",
        &[
            ("capability-list-missing-response", "error"),
            ("server-crashed", "error"),
        ],
    );
    assert_eq!(r.class(), Some("installRuntime"));
    assert_eq!(r.json["process"]["exitCode"], 1);
    assert_eq!(r.json["process"]["outcome"], "exited");
    assert_eq!(r.json["process"]["detail"]["outcome"], "crashed");
}

#[test]
fn tools_that_are_not_an_array() {
    let r = expect_fixture(
        "tools_not_array",
        &[],
        "fail",
        &[("capability-list-invalid-result", "error")],
    );
    assert_eq!(
        r.issue("capability-list-invalid-result")["detailCode"],
        "items-not-array"
    );
}

#[test]
fn cursor_that_loops_forever() {
    let r = expect_fixture(
        "cursor_loop",
        &[],
        "fail",
        &[("capability-list-invalid-result", "error")],
    );
    assert_eq!(
        r.issue("capability-list-invalid-result")["detailCode"],
        "cursor-loop"
    );
}

#[test]
fn pages_are_followed_to_the_end() {
    let r = expect_fixture("paginated_tools", &[], "pass", &[]);
    assert_eq!(r.json["listChecks"]["tools/list"]["pages"], 3);
    assert_eq!(
        r.json["toolSchema"]["total"].as_u64(),
        r.json["listChecks"]["tools/list"]["items"].as_u64()
    );
}

#[test]
fn page_cap_stops_a_long_listing() {
    let r = expect_fixture(
        "paginated_tools",
        &["--max-list-pages", "2"],
        "fail",
        &[("capability-list-invalid-result", "error")],
    );
    assert_eq!(
        r.issue("capability-list-invalid-result")["detailCode"],
        "page-cap"
    );
}

#[test]
fn duplicate_tool_names() {
    expect_fixture(
        "duplicate_tool_names",
        &[],
        "fail",
        &[("tool-name-duplicate", "error")],
    );
}

#[test]
fn empty_tool_name_is_an_error() {
    let r = expect_fixture(
        "empty_tool_name",
        &[],
        "fail",
        &[("tool-name-invalid", "error")],
    );
    assert_eq!(r.json["toolSchema"]["invalid"], 1);
}

#[test]
fn tool_name_outside_the_guidance_is_a_warning() {
    let r = expect_fixture(
        "tool_name_with_spaces",
        &[],
        "warning",
        &[("tool-name-invalid", "warning")],
    );
    assert_eq!(
        r.issue("tool-name-invalid")["location"]["logical"],
        "tools/do stuff!/name"
    );
}

#[test]
fn input_schema_of_type_array() {
    let r = expect_fixture(
        "input_schema_type_array",
        &[],
        "fail",
        &[("tool-input-schema-invalid", "error")],
    );
    assert_eq!(
        r.issue("tool-input-schema-invalid")["detailCode"],
        "root-type-not-object"
    );
}

#[test]
fn missing_input_schema() {
    let r = expect_fixture(
        "missing_input_schema",
        &[],
        "fail",
        &[("tool-input-schema-invalid", "error")],
    );
    assert_eq!(
        r.issue("tool-input-schema-invalid")["detailCode"],
        "missing"
    );
}

#[test]
fn input_schema_that_fails_the_meta_schema() {
    let r = expect_fixture(
        "input_schema_not_json_schema",
        &[],
        "fail",
        &[("tool-input-schema-invalid", "error")],
    );
    let issue = r.issue("tool-input-schema-invalid");
    assert_eq!(issue["detailCode"], "meta-schema");
    assert!(issue["message"]
        .as_str()
        .expect("message")
        .contains("/properties"));
}

#[test]
fn required_property_not_defined() {
    expect_fixture(
        "required_not_in_properties",
        &[],
        "fail",
        &[("tool-input-schema-required-missing", "error")],
    );
}

#[test]
fn output_schema_invalid() {
    expect_fixture(
        "output_schema_invalid",
        &[],
        "fail",
        &[("tool-output-schema-invalid", "error")],
    );
}

#[test]
fn tool_without_description_is_a_note() {
    // The schema makes `description` optional in every revision: a note, and the server passes.
    expect_fixture(
        "tool_without_description",
        &[],
        "pass",
        &[("tool-description-missing", "note")],
    );
}

#[test]
fn wire_schema_names_the_pointer_and_definition() {
    let r = expect_fixture(
        "prompt_arguments_not_array",
        &[],
        "warning",
        &[("wire-schema-invalid", "warning")],
    );
    let issue = r.issue("wire-schema-invalid");
    assert_eq!(issue["location"]["logical"], "/result/prompts/0/arguments");
    let message = issue["message"].as_str().expect("message");
    assert!(
        message.contains("/result/prompts/0/arguments: {\"name\":\"who\"} is not of type \"array\" (Prompt.arguments)"),
        "{message}"
    );
}

#[test]
fn wire_schema_covers_server_notifications() {
    let r = expect_fixture(
        "log_level_invalid",
        &[],
        "warning",
        &[("wire-schema-invalid", "warning")],
    );
    let issue = r.issue("wire-schema-invalid");
    assert_eq!(issue["location"]["logical"], "/params/level");
    assert!(issue["message"]
        .as_str()
        .expect("message")
        .contains("(LoggingLevel)"));
}

#[test]
fn wire_schema_leaves_a_named_fault_to_its_specific_check() {
    // The tool schema is also invalid on the wire; one fault gets one finding.
    expect_fixture(
        "input_schema_type_array",
        &[],
        "fail",
        &[("tool-input-schema-invalid", "error")],
    );
}

#[test]
fn discover_result_without_supported_versions() {
    let r = expect_fixture(
        "discover_without_versions",
        &["--protocol", "2026-07-28"],
        "fail",
        &[("discover-invalid-result", "error")],
    );
    assert_eq!(
        r.issue("discover-invalid-result")["detailCode"],
        "missing-supported-versions"
    );
}

#[test]
fn auto_falls_back_to_initialize_for_a_legacy_server() {
    let r = expect_fixture("clean", &["--protocol", "auto"], "pass", &[]);
    assert_eq!(r.json["era"], "legacy");
    assert_eq!(r.json["negotiatedProtocol"], "2025-11-25");
}

/// Runs `sends_requests_instead_of_answers` under a 10 s timeout: (report, wall time).
fn mirrored(args: &[&str]) -> (GuardResult, std::time::Duration) {
    let server = support::fixture("sends_requests_instead_of_answers");
    let mut command = vec![support::python_command(), server.as_str()];
    command.extend_from_slice(args);
    let started = std::time::Instant::now();
    let r = guard(&["--timeout", "10000"], &command);
    (r, started.elapsed())
}

#[test]
fn a_server_that_sends_requests_instead_of_answers_is_reported_without_waiting() {
    // Issue 27 item 7: a request of the server's with the id of ours (here the mirrored
    // initialize) replaced the answer; the guard waited the whole timeout, then reran
    // unbuffered and waited again, and reported only initialize-timeout.
    let (r, took) = mirrored(&[]);
    assert_eq!(
        r.issues(),
        support::pairs(&[
            ("request-instead-of-response", "error"),
            ("server-request-before-initialized", "warning"),
        ])
    );
    assert!(took < std::time::Duration::from_secs(5), "{took:?}");
    assert_eq!(r.json["exchanges"][0]["outcome"], "request-instead");
    assert!(r
        .issue("request-instead-of-response")["message"]
        .as_str()
        .expect("message")
        .contains("a request from the server, `initialize`, carrying the id of the client's `initialize` request (id 1)"));
    assert_eq!(r.json["checks"]["initialize"]["status"], "fail");
    // The same after initialize: the list probe's answer is replaced, and not waited for.
    let (r, took) = mirrored(&["--answer-initialize"]);
    assert_eq!(
        r.issues(),
        support::pairs(&[("request-instead-of-response", "error")])
    );
    assert!(took < std::time::Duration::from_secs(5), "{took:?}");
    assert_eq!(
        r.issue("request-instead-of-response")["location"]["stdoutLine"],
        2
    );
}

#[test]
fn a_request_whose_list_probe_timed_out_is_not_sent_again() {
    // Issue 27 item 8: `--request tools/list` after the tools/list probe had timed out was
    // sent again and waited on a second whole timeout.
    let started = std::time::Instant::now();
    let r = expect_fixture(
        "tools_list_never_answers",
        &["--timeout", "3000", "--request", "tools/list"],
        "fail",
        &[
            ("capability-list-timeout", "error"),
            ("operation-timeout", "error"),
        ],
    );
    let took = started.elapsed();
    assert!(took < std::time::Duration::from_millis(5500), "{took:?}");
    assert_eq!(r.json["operation"]["outcome"], "not-sent");
    assert!(r.issue("operation-timeout")["message"]
        .as_str()
        .expect("message")
        .contains("was not sent: the same request (id 2) had already gone unanswered"));
    let sent: Vec<&str> = r.json["exchanges"]
        .as_array()
        .expect("exchanges")
        .iter()
        .filter(|e| e["method"] == "tools/list")
        .map(|e| e["outcome"].as_str().expect("outcome"))
        .collect();
    assert_eq!(sent, ["timeout", "not-sent"]);
}
