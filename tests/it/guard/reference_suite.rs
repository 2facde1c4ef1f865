//! mcp-stdio-guard's own test suite (test/index.test.js and test/live-mcp-sdk.test.js at
//! 056c87c), case by case: each test runs `mcpcheck guard --json` on a server of our own that
//! does what the reference's inline server does (tests/fixtures/servers/reference/cases.mjs,
//! tests/fixtures/sdk/ts/reference_live.mjs) with the reference's options, and asserts the
//! fields the reference's test asserts, under the same names. Where mcpcheck answers
//! otherwise on purpose, the assertion says so and docs/json.md lists the exception.

use crate::support;
use serde_json::{json, Value};
use support::guard::*;
use support::*;

fn case_path() -> String {
    repo()
        .join("tests/fixtures/servers/reference/cases.mjs")
        .display()
        .to_string()
}

/// The node executable's path, asked once.
fn node() -> String {
    static PATH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PATH.get_or_init(|| {
        let out = std::process::Command::new("node")
            .args(["-p", "process.execPath"])
            .output()
            .expect("node");
        String::from_utf8(out.stdout)
            .expect("utf8")
            .trim()
            .to_string()
    })
    .clone()
}

/// `guard --json OPTIONS -- node cases.mjs CASE ARGS...`.
fn case(name: &str, options: &[&str], args: &[&str]) -> GuardResult {
    let node = node();
    let script = case_path();
    let mut server = vec![node.as_str(), script.as_str(), name];
    server.extend_from_slice(args);
    guard(options, &server)
}

/// The field at a JSON pointer.
fn at<'a>(r: &'a GuardResult, pointer: &str) -> &'a Value {
    r.json
        .pointer(pointer)
        .unwrap_or_else(|| panic!("no {pointer} in {:#}", r.json))
}

fn has_issue(r: &GuardResult, wanted: &[(&str, Value)]) -> bool {
    r.json["issues"]
        .as_array()
        .expect("issues")
        .iter()
        // A key the reference writes as null must be there, null: absent is not the same.
        .any(|i| wanted.iter().all(|(k, v)| i.get(*k) == Some(v)))
}

#[track_caller]
fn assert_issue(r: &GuardResult, wanted: &[(&str, Value)]) {
    assert!(
        has_issue(r, wanted),
        "no issue with {wanted:?} in {:#}",
        r.json["issues"]
    );
}

#[track_caller]
fn assert_no_issue(r: &GuardResult, code: &str) {
    assert!(
        !has_issue(r, &[("code", json!(code))]),
        "{:#}",
        r.json["issues"]
    );
}

#[test]
fn accepts_a_clean_mcp_initialize_response() {
    let r = case("clean", &["--timeout", "1000"], &[]);
    assert_eq!(at(&r, "/ok"), true);
    assert_eq!(at(&r, "/initialized"), true);
    assert_eq!(at(&r, "/frames").as_array().expect("frames").len(), 1);
}

#[test]
fn adds_a_reproducibility_fingerprint_without_env_or_arg_secret_values() {
    let cwd = tempfile::tempdir().expect("tempdir");
    let cwd_path = cwd.path().canonicalize().expect("canonical");
    let cwd_text = cwd_path.to_str().expect("path");
    let r = case(
        "clean",
        &[
            "--timeout",
            "1000",
            "--cwd",
            cwd_text,
            "--env",
            "API_TOKEN=super-secret-token",
            "--env",
            "MCP_STDIO_GUARD_MODE=registry",
        ],
        &["--api-token", "do-not-leak"],
    );
    assert_eq!(at(&r, "/ok"), true);
    // Exception: the guard names itself.
    assert_eq!(at(&r, "/fingerprint/guard/name"), "mcpcheck");
    assert_eq!(at(&r, "/fingerprint/cwd/resolved"), cwd_text);
    assert_eq!(at(&r, "/fingerprint/timeoutMs"), 1000);
    // Exception: mcpcheck is not a node program, so node is the target's runtime only.
    assert_eq!(at(&r, "/fingerprint/runtimes/node/role"), "target");
    assert_eq!(
        at(&r, "/fingerprint/env/names"),
        &json!(["API_TOKEN", "MCP_STDIO_GUARD_MODE"])
    );
    assert_eq!(at(&r, "/fingerprint/env/values/API_TOKEN"), "<redacted>");
    assert_eq!(
        at(&r, "/fingerprint/env/values/MCP_STDIO_GUARD_MODE"),
        "<redacted>"
    );
    let args = at(&r, "/fingerprint/command/args")
        .as_array()
        .expect("args");
    assert_eq!(
        &args[args.len() - 2..],
        &[json!("--api-token"), json!("<redacted>")]
    );
    assert!(at(&r, "/fingerprint/timings/startupMs").is_number());
    assert!(at(&r, "/fingerprint/timings/totalMs").is_number());
    let fingerprint = r.json["fingerprint"].to_string();
    for secret in ["super-secret-token", "do-not-leak", "registry"] {
        assert!(!fingerprint.contains(secret), "{secret} in {fingerprint}");
    }
}

/// The fingerprint's `package` on a real run ("fingerprint local node package detection
/// skips node flags"); the install commands' cases are rows of tests/launch_commands.rs and
/// unit tests in src/guard/fingerprint_package.rs, as the reference's are of its
/// createFingerprint.
#[test]
fn fingerprint_local_node_package_detection_skips_node_flags() {
    let root = tempfile::tempdir().expect("tempdir");
    let package = root.path().join("package");
    std::fs::create_dir_all(package.join("src")).expect("mkdir");
    std::fs::write(
        package.join("package.json"),
        r#"{"name":"local-node-server","version":"9.8.7"}"#,
    )
    .expect("write");
    let script = package.join("src/server.mjs");
    std::fs::copy(case_path(), &script).expect("copy");
    let node = node();
    let r = guard(
        &["--timeout", "1000"],
        &[
            &node,
            "--enable-source-maps",
            "-r",
            "node:process",
            "--",
            script.to_str().expect("path"),
            "clean",
        ],
    );
    assert_eq!(
        at(&r, "/fingerprint/package"),
        &json!({"manager": "local", "name": "local-node-server", "versionSpec": "9.8.7"})
    );
}

#[test]
fn fingerprint_runtime_probes_mark_non_zero_probes_unavailable() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let fake = dir.path().join("python");
    std::fs::write(&fake, "#!/bin/sh\nexit 7\n").expect("write");
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let r = guard(&["--timeout", "1000"], &[fake.to_str().expect("path")]);
    assert_eq!(at(&r, "/fingerprint/runtimes/python/available"), false);
    assert_eq!(at(&r, "/fingerprint/runtimes/python/status"), 7);
}

#[test]
fn fails_when_stdout_contains_non_json_diagnostics() {
    let r = case("stdout-banner", &["--timeout", "1000"], &[]);
    assert_eq!(at(&r, "/ok"), false);
    assert_issue(&r, &[("code", json!("stdout-non-json"))]);
    assert_issue(
        &r,
        &[
            ("code", json!("stdout-non-json")),
            ("class", json!("stdioTransport")),
        ],
    );
    assert_eq!(at(&r, "/issueClasses/stdioTransport/status"), "fail");
    assert_eq!(
        at(&r, "/issueClasses/stdioTransport/issueCodes"),
        &json!(["stdout-non-json"])
    );
    assert_eq!(at(&r, "/issueClasses/installRuntime/status"), "pass");
    assert_eq!(at(&r, "/issueClasses/mcpProtocol/status"), "pass");
}

#[test]
fn reports_content_length_framing_clearly() {
    let r = case("content-length", &["--timeout", "1000"], &[]);
    assert_eq!(at(&r, "/ok"), false);
    assert_issue(&r, &[("code", json!("stdout-content-length-framing"))]);
    assert_eq!(at(&r, "/checks/initialize/status"), "fail");
    assert_eq!(
        at(&r, "/checks/initialize/issueCodes"),
        &json!(["stdout-content-length-framing"])
    );
    assert_no_issue(&r, "initialize-timeout");
    assert_no_issue(&r, "stdout-empty-line");
}

#[test]
fn allows_stderr_diagnostics() {
    let r = case("stderr-banner", &["--timeout", "1000"], &[]);
    assert_eq!(at(&r, "/ok"), true);
    assert!(at(&r, "/stderr")
        .as_str()
        .expect("stderr")
        .contains("server starting"));
}

/// Exception: mcpcheck reports `python-buffered-stdio` only where it can matter (issue 27
/// item 5: not for a server that flushed every answer); this server answered everything it
/// was asked, so there is no note. What the reference asserts of the verdict holds.
#[test]
fn warns_when_python_commands_may_use_buffered_stdio() {
    let dir = tempfile::tempdir().expect("tempdir");
    let python = dir.path().join("python");
    std::os::unix::fs::symlink(node(), &python).expect("symlink");
    let script = case_path();
    let r = guard(
        &["--timeout", "1000", "--env", "PYTHONUNBUFFERED="],
        &[python.to_str().expect("path"), &script, "clean"],
    );
    assert_eq!(at(&r, "/ok"), true);
    assert_no_issue(&r, "python-buffered-stdio");
    // A request it leaves unanswered is when buffering may be why: then it is a note.
    let r = guard(
        &[
            "--timeout",
            "500",
            "--no-list-probes",
            "--request",
            "tools/list",
            "--env",
            "PYTHONUNBUFFERED=",
        ],
        &[
            python.to_str().expect("path"),
            &script,
            "silent-after-initialize",
        ],
    );
    assert_issue(
        &r,
        &[
            ("code", json!("python-buffered-stdio")),
            ("severity", json!("note")),
        ],
    );
}

#[test]
fn merges_env_overrides_with_the_parent_environment() {
    let r = case(
        "env-required",
        &[
            "--timeout",
            "1000",
            "--env",
            "MCP_STDIO_GUARD_ENV_TEST=present",
        ],
        &[],
    );
    assert_eq!(at(&r, "/ok"), true);
}

#[test]
fn can_repeat_runs_and_identify_the_failing_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let marker = dir.path().join("warm-cache");
    let r = case(
        "banner-on-first-run",
        &["--timeout", "1000", "--repeat", "2"],
        &[marker.to_str().expect("path")],
    );
    assert_eq!(at(&r, "/ok"), false);
    assert_eq!(at(&r, "/repeat"), 2);
    assert_eq!(at(&r, "/runs").as_array().expect("runs").len(), 2);
    assert_eq!(at(&r, "/schemaVersion"), 1);
    assert_eq!(at(&r, "/fingerprint/repeat"), 2);
    assert_eq!(
        at(&r, "/fingerprint/runs").as_array().expect("runs").len(),
        2
    );
    assert_eq!(at(&r, "/checks/repeat/status"), "fail");
    assert_eq!(at(&r, "/checks/repeat/failedRuns"), &json!([1]));
    assert_eq!(at(&r, "/runs/0/schemaVersion"), 1);
    assert_eq!(at(&r, "/runs/0/ok"), false);
    assert_eq!(at(&r, "/runs/1/ok"), true);
    assert_issue(&r, &[("run", json!(1)), ("code", json!("stdout-non-json"))]);
    assert_issue(
        &r,
        &[
            ("run", json!(1)),
            ("code", json!("stdout-non-json")),
            ("class", json!("stdioTransport")),
        ],
    );
    assert_eq!(at(&r, "/issueClasses/stdioTransport/status"), "fail");
    assert_eq!(
        at(&r, "/issueClasses/stdioTransport/issueCodes"),
        &json!(["stdout-non-json"])
    );
}

#[test]
fn reports_initialize_timeout() {
    let r = case("never-answers", &["--timeout", "150"], &[]);
    assert_eq!(at(&r, "/ok"), false);
    assert_issue(
        &r,
        &[
            ("code", json!("initialize-timeout")),
            ("detailCode", json!("startup-timeout")),
            ("phase", json!("initialize")),
        ],
    );
    assert_eq!(at(&r, "/process/timedOut"), true);
    assert_eq!(at(&r, "/process/timeoutCode"), "initialize-timeout");
    assert_eq!(at(&r, "/process/timeoutMs"), 150);
    assert_eq!(at(&r, "/process/killedByGuard"), true);
    assert_eq!(at(&r, "/process/killReason"), "timeout");
}

/// The reference sends its operation without probing lists first: `--no-list-probes`.
const OPERATION: &[&str] = &[
    "--timeout",
    "1000",
    "--no-list-probes",
    "--request",
    "tools/list",
];

#[test]
fn can_send_a_post_initialize_mcp_request() {
    let r = case("lists-tools", OPERATION, &[]);
    assert_eq!(at(&r, "/ok"), true);
    assert_eq!(at(&r, "/operation/responded"), true);
    assert_eq!(at(&r, "/frames").as_array().expect("frames").len(), 2);
    assert_eq!(at(&r, "/schemaVersion"), 1);
    assert_eq!(at(&r, "/checks/initialize/status"), "pass");
    assert_eq!(at(&r, "/checks/stdout/status"), "pass");
    assert_eq!(at(&r, "/checks/jsonRpc/status"), "pass");
    assert_eq!(at(&r, "/checks/operation/status"), "pass");
    assert_eq!(at(&r, "/checks/staticScan/status"), "skipped");
}

#[test]
fn operation_check_reports_stdout_framing_errors_after_initialize() {
    let r = case("content-length-on-tools-list", OPERATION, &[]);
    assert_eq!(at(&r, "/ok"), false);
    assert_eq!(at(&r, "/initialized"), true);
    assert_eq!(at(&r, "/operation/responded"), false);
    assert_eq!(at(&r, "/checks/operation/status"), "fail");
    assert_eq!(
        at(&r, "/checks/operation/issueCodes"),
        &json!(["stdout-content-length-framing"])
    );
}

#[test]
fn json_cli_output_exposes_stable_schema_and_static_scan_metadata() {
    let scan_root = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        scan_root.path().join("server.js"),
        "console.log(\"debug\");\n",
    )
    .expect("write");
    let root = scan_root.path().to_str().expect("path");
    let node = node();
    let script = case_path();
    let out = mcpcheck()
        .args(["guard", "--json", "--scan", root, "--fail-on-static", "--"])
        .args([node.as_str(), script.as_str(), "clean"])
        .output()
        .expect("run mcpcheck");
    let r = parse(out);
    assert_eq!(r.exit, 1);
    assert_eq!(at(&r, "/schemaVersion"), 1);
    assert_eq!(at(&r, "/ok"), false);
    assert_eq!(at(&r, "/issues/0/class"), "stdioTransport");
    assert_eq!(at(&r, "/staticScan/enabled"), true);
    assert_eq!(at(&r, "/staticScan/path"), root);
    assert_eq!(at(&r, "/staticScan/failOnFindings"), true);
    assert_eq!(at(&r, "/fingerprint/staticScan/enabled"), true);
    assert_eq!(at(&r, "/fingerprint/staticScan/path"), root);
    // Exception: the guard names itself.
    assert_eq!(at(&r, "/fingerprint/guard/name"), "mcpcheck");
    assert_eq!(at(&r, "/fingerprint/command/argv/0"), node.as_str());
    assert_eq!(at(&r, "/fingerprint/system/platform"), std::env::consts::OS);
    assert_eq!(at(&r, "/checks/staticScan/status"), "fail");
    assert_eq!(
        at(&r, "/checks/staticScan/issueCodes"),
        &json!(["static-stdout-write"])
    );
    assert_eq!(at(&r, "/issueClasses/stdioTransport/status"), "fail");
    assert_eq!(
        at(&r, "/issueClasses/stdioTransport/issueCodes"),
        &json!(["static-stdout-write"])
    );
    assert_eq!(at(&r, "/checks/initialize/status"), "pass");
}

#[test]
fn reports_initialize_response_id_type_mismatch() {
    let r = case("string-id-initialize", &["--timeout", "1000"], &[]);
    assert_eq!(at(&r, "/ok"), false);
    assert_issue(&r, &[("code", json!("response-id-type-mismatch"))]);
    assert_issue(
        &r,
        &[
            ("code", json!("response-id-type-mismatch")),
            ("class", json!("mcpProtocol")),
        ],
    );
    assert_eq!(at(&r, "/checks/initialize/status"), "fail");
    assert_eq!(
        at(&r, "/checks/initialize/issueCodes"),
        &json!(["response-id-type-mismatch"])
    );
    assert_eq!(at(&r, "/issueClasses/mcpProtocol/status"), "fail");
    assert_eq!(
        at(&r, "/issueClasses/mcpProtocol/issueCodes"),
        &json!(["response-id-type-mismatch"])
    );
}

#[test]
fn classifies_install_runtime_exits_separately_from_protocol_failures() {
    // The reference gives 150 ms; the server exits at once, and node may take longer than
    // that to start on a loaded machine: the timeout is not what this case is about.
    let r = case("exit-2", &["--timeout", "5000"], &[]);
    assert_eq!(at(&r, "/ok"), false);
    assert_issue(
        &r,
        &[
            ("code", json!("server-exited")),
            ("class", json!("installRuntime")),
            ("detailCode", json!("nonzero-exit-before-initialize")),
            ("exitCode", json!(2)),
            ("signal", Value::Null),
        ],
    );
    assert_eq!(at(&r, "/process/outcome"), "exited");
    assert_eq!(at(&r, "/process/phase"), "initialize");
    assert_eq!(at(&r, "/process/exitCode"), 2);
    assert_eq!(at(&r, "/process/signal"), &Value::Null);
    assert_eq!(at(&r, "/issueClasses/installRuntime/status"), "fail");
    assert_eq!(
        at(&r, "/issueClasses/installRuntime/issueCodes"),
        &json!(["server-exited"])
    );
    assert_eq!(at(&r, "/issueClasses/stdioTransport/status"), "pass");
    assert_eq!(at(&r, "/issueClasses/mcpProtocol/status"), "pass");
}

#[test]
fn reports_spawn_failures_as_startup_process_failures() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("mcp-stdio-missing");
    let r = guard(&["--timeout", "150"], &[missing.to_str().expect("path")]);
    assert_eq!(at(&r, "/ok"), false);
    assert_issue(
        &r,
        &[
            ("code", json!("spawn-failed")),
            ("detailCode", json!("spawn-failed-before-startup")),
            ("phase", json!("startup")),
        ],
    );
    assert_eq!(at(&r, "/process/outcome"), "spawn-failed");
    assert_eq!(at(&r, "/process/phase"), "startup");
    assert_eq!(at(&r, "/process/started"), false);
    assert_eq!(at(&r, "/process/killedByGuard"), false);
    assert!(!at(&r, "/process/spawnError/message")
        .as_str()
        .expect("message")
        .is_empty());
}

/// The one verdict where mcpcheck departs from mcp-stdio-guard's suite ("records clean exit
/// after initialize without failing"): the spec lets a server end the session, but every real
/// client lost its session on this scenario and on ends_session_after_answering.py
/// (data/client-impact.json, issue 32 item 3), so the exit is an error, in the class that asks
/// a person to look (needs_inspection), not a crash.
#[test]
fn records_clean_exit_after_initialize_as_an_ended_session_not_a_crash() {
    let r = case("exit-0-after-initialize", &["--timeout", "1000"], &[]);
    assert_eq!(at(&r, "/ok"), false);
    assert_eq!(at(&r, "/summary/status"), "needs_inspection");
    assert_issue(
        &r,
        &[
            ("code", json!("server-ended-session")),
            ("severity", json!("error")),
        ],
    );
    assert_eq!(at(&r, "/initialized"), true);
    assert_eq!(at(&r, "/process/outcome"), "exited");
    assert_eq!(at(&r, "/process/phase"), "post-initialize");
    assert_eq!(at(&r, "/process/exitCode"), 0);
    assert_eq!(at(&r, "/process/signal"), &Value::Null);
    assert_no_issue(&r, "server-crashed");
}

#[test]
fn reports_clean_exit_during_requested_operation() {
    let r = case("exit-0-on-tools-list", OPERATION, &[]);
    assert_eq!(at(&r, "/ok"), false);
    assert_issue(
        &r,
        &[
            ("code", json!("operation-missing-response")),
            ("detailCode", json!("clean-exit-during-operation")),
            ("exitCode", json!(0)),
            ("signal", Value::Null),
        ],
    );
    assert_eq!(at(&r, "/process/outcome"), "exited");
    assert_eq!(at(&r, "/process/phase"), "operation");
    assert_eq!(at(&r, "/process/exitCode"), 0);
    assert_no_issue(&r, "server-crashed");
}

/// Exception: the reference calls this `stdout-unexpected-request-id`. In MCP each side
/// numbers its own requests ("Request IDs MUST NOT have been previously used by the
/// requestor within the same session", basic/index), so a server request with the id of
/// ours breaks no rule of ids; what is wrong is that the answer never came and a request
/// stood in its place: `request-instead-of-response` (issue 27 item 7).
#[test]
fn rejects_request_frames_that_reuse_the_initialize_response_id() {
    let r = case("request-reuses-initialize-id", &["--timeout", "1000"], &[]);
    assert_eq!(at(&r, "/ok"), false);
    assert_eq!(at(&r, "/initialized"), false);
    assert_issue(&r, &[("code", json!("request-instead-of-response"))]);
}

#[test]
fn reports_operation_response_id_type_mismatch() {
    let r = case("string-id-tools-list", OPERATION, &[]);
    assert_eq!(at(&r, "/ok"), false);
    assert_issue(&r, &[("code", json!("response-id-type-mismatch"))]);
    assert_eq!(at(&r, "/checks/operation/status"), "fail");
    assert_eq!(
        at(&r, "/checks/operation/issueCodes"),
        &json!(["response-id-type-mismatch"])
    );
}

/// Exception: `request-instead-of-response`, as for initialize above.
#[test]
fn rejects_request_frames_that_reuse_the_operation_response_id() {
    let r = case("request-reuses-tools-list-id", OPERATION, &[]);
    assert_eq!(at(&r, "/ok"), false);
    assert_eq!(at(&r, "/operation/responded"), false);
    assert_issue(&r, &[("code", json!("request-instead-of-response"))]);
    assert_eq!(at(&r, "/checks/operation/status"), "fail");
}

#[test]
fn reports_operation_timeout_after_initialize() {
    let r = case(
        "silent-after-initialize",
        // 150 ms in the reference; initialize must be answered within it, which node may
        // not manage on a loaded machine.
        &[
            "--timeout",
            "1000",
            "--no-list-probes",
            "--request",
            "tools/list",
        ],
        &[],
    );
    assert_eq!(at(&r, "/ok"), false);
    assert_issue(
        &r,
        &[
            ("code", json!("operation-timeout")),
            ("detailCode", json!("request-timeout")),
            ("phase", json!("operation")),
        ],
    );
    assert_eq!(at(&r, "/process/timedOut"), true);
    assert_eq!(at(&r, "/process/timeoutCode"), "operation-timeout");
    assert_eq!(at(&r, "/process/phase"), "operation");
}

#[test]
fn fails_when_server_crashes_after_initialized_notification() {
    let r = case("throws-on-initialized", &["--timeout", "1000"], &[]);
    assert_eq!(at(&r, "/ok"), false);
    assert_issue(
        &r,
        &[
            ("code", json!("server-crashed")),
            ("detailCode", json!("nonzero-exit-after-initialize")),
            ("signal", Value::Null),
        ],
    );
    assert_ne!(r.issue("server-crashed")["exitCode"], 0);
    assert_eq!(at(&r, "/process/outcome"), "exited");
    assert_eq!(at(&r, "/process/exitCode"), 1);
}

#[test]
fn records_signal_termination_after_initialize() {
    let r = case("sigterm-after-initialize", &["--timeout", "1000"], &[]);
    assert_eq!(at(&r, "/ok"), false);
    assert_issue(
        &r,
        &[
            ("code", json!("server-crashed")),
            ("detailCode", json!("signal-exit-after-initialize")),
            ("signal", json!("SIGTERM")),
            ("exitCode", Value::Null),
        ],
    );
    assert_eq!(at(&r, "/process/outcome"), "exited");
    assert_eq!(at(&r, "/process/exitCode"), &Value::Null);
    assert_eq!(at(&r, "/process/signal"), "SIGTERM");
}

/// "static scan catches risky stdout calls", through `guard --scan`'s findings.
#[test]
fn static_scan_catches_risky_stdout_calls() {
    let root = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        root.path().join("server.js"),
        "console.log(\"debug\");\nconsole.error(\"ok\");\n",
    )
    .expect("write");
    std::fs::write(
        root.path().join("server.py"),
        "import sys\nprint(\"debug\")\nprint(\"ok\", file=sys.stderr)\n",
    )
    .expect("write");
    let r = case(
        "clean",
        &[
            "--timeout",
            "1000",
            "--scan",
            root.path().to_str().expect("path"),
        ],
        &[],
    );
    let findings = at(&r, "/staticFindings").as_array().expect("findings");
    assert_eq!(findings.len(), 2, "{findings:#?}");
    let files: Vec<&str> = findings
        .iter()
        .map(|f| f["file"].as_str().expect("file"))
        .collect();
    assert!(files.iter().any(|f| f.ends_with("server.js")), "{files:?}");
    assert!(files.iter().any(|f| f.ends_with("server.py")), "{files:?}");
}

/// "parses command after separator": what the command line set, as the report's `config`
/// and fingerprint echo it.
#[test]
fn parses_command_after_separator() {
    let node = node();
    let script = case_path();
    let root = tempfile::tempdir().expect("tempdir");
    let r = guard(
        &[
            "--timeout",
            "9000",
            "--repeat",
            "2",
            "--scan",
            root.path().to_str().expect("path"),
            "--fail-on-static",
            "--no-list-probes",
            "--request",
            "tools/call",
            "--params",
            r#"{"name":"echo","arguments":{}}"#,
        ],
        &[&node, &script, "lists-tools"],
    );
    assert_eq!(at(&r, "/fingerprint/timeoutMs"), 9000);
    assert_eq!(at(&r, "/repeat"), 2);
    assert_eq!(at(&r, "/staticScan/failOnFindings"), true);
    assert_eq!(at(&r, "/fingerprint/operation/method"), "tools/call");
    // Exception: the params are not echoed (they may carry credentials); that they were
    // given is, and the server got them (it answered the call).
    assert_eq!(at(&r, "/fingerprint/operation/hasParams"), true);
    assert_eq!(at(&r, "/operation/responded"), true);
    assert_eq!(
        at(&r, "/fingerprint/command/argv"),
        &json!([node, script, "lists-tools"])
    );
}

#[test]
fn rejects_params_without_request() {
    let out = mcpcheck()
        .args(["guard", "--params", "{}", "--", "node", "server.js"])
        .output()
        .expect("run mcpcheck");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--params"));
}

fn live(mode: &str) -> GuardResult {
    let node = node();
    let server = repo()
        .join("tests/fixtures/sdk/ts/reference_live.mjs")
        .display()
        .to_string();
    guard(
        &[
            "--timeout",
            "10000",
            "--no-list-probes",
            "--request",
            "tools/list",
        ],
        &[&node, &server, mode],
    )
}

#[test]
fn passes_a_real_mcp_sdk_stdio_server_through_initialize_and_tools_list() {
    let r = live("clean");
    assert_eq!(at(&r, "/ok"), true);
    assert_eq!(at(&r, "/initialized"), true);
    assert_eq!(at(&r, "/operation/responded"), true);
    // mcpcheck numbers its requests from 1: initialize is 1, the operation 2.
    assert!(
        at(&r, "/frames")
            .as_array()
            .expect("frames")
            .iter()
            .any(|f| f["id"] == 2 && f["result"]["tools"].is_array()),
        "{:#}",
        r.json["frames"]
    );
}

#[test]
fn fails_a_real_mcp_sdk_server_with_startup_stdout_pollution() {
    let r = live("stdout-banner");
    assert_eq!(at(&r, "/ok"), false);
    assert_issue(&r, &[("code", json!("stdout-non-json"))]);
}

#[test]
fn allows_real_mcp_sdk_server_diagnostics_on_stderr() {
    let r = live("stderr-banner");
    assert_eq!(at(&r, "/ok"), true);
    assert!(at(&r, "/stderr")
        .as_str()
        .expect("stderr")
        .contains("debug banner before connect"));
}

#[test]
fn catches_real_mcp_sdk_late_stdout_pollution_during_operation_window() {
    let r = live("late-stdout");
    assert_eq!(at(&r, "/ok"), false);
    assert_issue(&r, &[("code", json!("stdout-non-json"))]);
}

#[test]
fn docs_json_lists_what_the_suite_changes_in_the_reference_s_scenarios() {
    // Issue 44 item 13: the suite adds serverInfo, passes --no-list-probes and raises
    // timeouts, and docs/json.md did not say so.
    let docs = std::fs::read_to_string(repo().join("docs/json.md")).expect("docs/json.md");
    let suite = include_str!("reference_suite.rs");
    let cases = std::fs::read_to_string(case_path()).expect("cases.mjs");
    let changes = [
        (cases.contains("serverInfo"), "`serverInfo`"),
        (suite.contains("\"--no-list-probes\""), "`--no-list-probes"),
        (
            suite.contains("\"--timeout\", \"5000\""),
            "`--timeout 5000`",
        ),
    ];
    let table = docs
        .split("The suite also changes the reference's scenarios")
        .nth(1)
        .expect("docs/json.md lists the suite's changes to the scenarios");
    for (made, named) in changes {
        assert!(made, "the suite no longer makes this change: {named}");
        assert!(table.contains(named), "docs/json.md does not list {named}");
    }
}

#[test]
fn the_list_check_fails_when_the_list_s_answer_never_came() {
    // Issue 44 item 13: with the list probes on (as the reference's suite runs, without
    // --no-list-probes), checks.capabilities.tools said pass with responded: false.
    let r = case(
        "content-length-on-tools-list",
        &["--timeout", "1000", "--request", "tools/list"],
        &[],
    );
    assert_eq!(at(&r, "/checks/capabilities/tools/responded"), false);
    assert_eq!(at(&r, "/checks/capabilities/tools/status"), "fail");
    assert_eq!(
        at(&r, "/checks/capabilities/tools/issueCodes"),
        &json!(["stdout-content-length-framing"])
    );
    assert_eq!(at(&r, "/checks/capabilities/status"), "fail");
}
