//! Guard depth: config files, profiles, repeat runs and drift, tool calls, Python buffering.

use crate::support;
use support::guard::*;
use support::*;

fn repo_path(rel: &str) -> String {
    repo().join(rel).display().to_string()
}

#[test]
fn config_file_supplies_command_cwd_and_safe_tool_calls() {
    let r = guard(
        &[
            "--config",
            &repo_path("tests/fixtures/configs/tool_calls.json"),
        ],
        &[],
    );
    assert_eq!(
        r.issues(),
        pairs(&[
            ("tool-structured-content-invalid", "error"),
            ("tool-structured-content-invalid", "error"),
            ("tool-call-error", "warning"),
        ]),
        "{:#}",
        r.json["issues"]
    );
    let logical = r.logical_locations();
    assert_eq!(
        logical,
        vec!["tools/bad_sum", "tools/no_structured", "tools/divide"]
    );
    assert!(r.issue("tool-structured-content-invalid")["message"]
        .as_str()
        .expect("message")
        .contains("at /sum does not validate"));
    assert_eq!(r.exit, 1);
}

fn write_config(dir: &std::path::Path, body: &str) -> String {
    let path = dir.join("mcpcheck.json");
    std::fs::write(&path, body).expect("write config");
    path.display().to_string()
}

#[test]
fn config_errors_name_the_key_and_line_before_anything_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write_config(
        dir.path(),
        "{\n  \"command\": [\"python3\"],\n  \"timeout\": 5\n}\n",
    );
    let out = mcpcheck()
        .args(["guard", "--config", &path])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).expect("utf-8");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("mcpcheck.json:3:"), "{stderr}");
    assert!(stderr.contains("unknown field `timeout`"), "{stderr}");

    let path = write_config(dir.path(), "{\"repeat\": \"twice\"}");
    let out = mcpcheck()
        .args(["guard", "--config", &path])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid type"));
}

#[test]
fn config_env_reaches_the_server_and_never_the_report() {
    let dir = tempfile::tempdir().expect("tempdir");
    let body = serde_json::json!({
        "command": ["sh", "-c", "test \"$NEEDED_TOKEN\" = s3cr3t-value && exec python3 \"$0\"", fixture("clean")],
        "env": {"NEEDED_TOKEN": "s3cr3t-value"},
    });
    let path = write_config(dir.path(), &body.to_string());
    let out = mcpcheck()
        .args(["guard", "--json", "--config", &path])
        .output()
        .expect("run");
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(!text.contains("s3cr3t-value"), "{text}");
    assert!(text.contains("NEEDED_TOKEN=[REDACTED]"));
}

#[test]
fn flags_override_the_config_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let body = serde_json::json!({"command": ["python3", fixture("ping_never_answered")],
        "timeoutMs": 60000, "request": "ping"});
    let path = write_config(dir.path(), &body.to_string());
    // Without the flag the run would wait a minute for the ping.
    let r = guard(&["--config", &path, "--timeout", "2500"], &[]);
    assert_eq!(r.issues(), pairs(&[("operation-timeout", "error")]));
    assert_eq!(r.json["fingerprint"]["timings"]["timeoutMs"], 2500);
}

#[test]
fn smoke_profile_only_initializes() {
    let r = guard_fixture("tools_not_array", &["--profile", "smoke"]);
    assert_eq!(r.issues(), pairs(&[]));
    let methods: Vec<&str> = r.json["exchanges"]
        .as_array()
        .expect("operations")
        .iter()
        .map(|o| o["method"].as_str().expect("method"))
        .collect();
    assert_eq!(methods, vec!["initialize"]);
    assert_eq!(r.json["profile"], "smoke");
}

#[test]
fn smoke_profile_deepened_by_a_flag() {
    let r = guard_fixture("tools_not_array", &["--profile", "smoke", "--list-probes"]);
    assert_eq!(
        r.issues(),
        pairs(&[("capability-list-invalid-result", "error")])
    );
}

#[test]
fn registry_profile_runs_twice() {
    let r = guard_fixture("clean", &["--profile", "registry"]);
    assert_eq!(r.issues(), pairs(&[]));
    assert_eq!(r.json["runs"].as_array().map(Vec::len), Some(2));
    assert_eq!(r.json["runDrift"], serde_json::json!([]));
}

#[test]
fn ci_profile_writes_json_without_being_asked() {
    let out = mcpcheck()
        .args([
            "guard",
            "--profile",
            "ci",
            "--",
            python_command(),
            &fixture("clean"),
        ])
        .output()
        .expect("run");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON by default");
    assert_eq!(report["profile"], "ci");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn strict_profile_makes_wire_schema_violations_errors() {
    let r = guard_fixture(
        "log_level_invalid",
        &["--profile", "strict", "--adversarial-probes", "none"],
    );
    assert_eq!(r.issues(), pairs(&[("wire-schema-invalid", "error")]));
    assert_eq!(r.exit, 1);
}

#[test]
fn unknown_profile_is_a_usage_error() {
    let out = mcpcheck()
        .args(["guard", "--profile", "paranoid", "--", "x"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("custom, smoke, registry, ci, strict"));
}

#[test]
fn repeat_runs_report_drift_against_the_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut cmd = mcpcheck();
    cmd.env("FIXTURE_STATE_FILE", dir.path().join("starts"));
    let r = guard_with(
        cmd,
        &["--repeat", "2"],
        &[python_command(), &fixture("drifting_tools")],
    );
    assert_eq!(
        r.issues(),
        pairs(&[
            ("repeat-capability-drift", "warning"),
            ("repeat-list-shape-drift", "warning"),
            ("repeat-protocol-drift", "warning"),
            ("repeat-tool-drift", "warning"),
        ]),
        "{:#}",
        r.json["issues"]
    );
    let drift = &r.json["runDrift"][0];
    assert_eq!(drift["run"], 2);
    assert_eq!(drift["toolsAdded"], serde_json::json!(["exfiltrate"]));
    assert_eq!(drift["toolsChanged"], serde_json::json!(["echo"]));
    assert_eq!(drift["toolsRemoved"], serde_json::json!([]));
    assert_eq!(
        drift["protocol"],
        serde_json::json!(["2025-11-25", "2025-06-18"])
    );
    assert_eq!(
        drift["listCounts"]["prompts/list"],
        serde_json::json!([1, 2])
    );
    assert_eq!(r.json["runs"][1]["negotiatedProtocol"], "2025-06-18");
}

#[test]
fn python_block_buffering_is_diagnosed_by_rerunning_unbuffered() {
    let r = guard_fixture("buffered_stdout", &["--timeout", "3000"]);
    assert_eq!(
        r.issues(),
        pairs(&[("python-buffered-stdio", "error")]),
        "{:#}",
        r.json["issues"]
    );
    assert_eq!(r.class(), Some("stdioTransport"));
    // The report describes the run that answered.
    assert_eq!(r.json["initialized"], true);
    assert!(r.issue("python-buffered-stdio")["fix"]
        .as_str()
        .expect("fix")
        .contains("flush=True"));
}

#[test]
fn an_inherited_pythonunbuffered_does_not_hide_block_buffering() {
    let mut cmd = mcpcheck();
    cmd.env("PYTHONUNBUFFERED", "1");
    let r = guard_with(
        cmd,
        &["--timeout", "3000"],
        &[python_command(), &fixture("buffered_stdout")],
    );
    assert_eq!(
        r.issues(),
        pairs(&[("python-buffered-stdio", "error")]),
        "{:#}",
        r.json["issues"]
    );
    assert_eq!(
        r.json["fingerprint"]["unsetEnv"],
        serde_json::json!(["PYTHONUNBUFFERED"])
    );
    // Given with --env, it reaches the server, and the server answers.
    let r = guard(
        &["--timeout", "3000", "--env", "PYTHONUNBUFFERED=1"],
        &[python_command(), &fixture("buffered_stdout")],
    );
    assert_eq!(r.issues(), pairs(&[]));
    assert_eq!(r.json["fingerprint"]["unsetEnv"], serde_json::json!([]));
}

/// `mcpcheck guard --format FORMAT OPTIONS -- SERVER...`: (exit code, stdout, stderr).
fn guard_as(format: &str, options: &[&str], server: &[&str]) -> (i32, String, String) {
    let out = mcpcheck()
        .args(["guard", "--format", format])
        .args(options)
        .arg("--")
        .args(server)
        .output()
        .expect("run mcpcheck");
    let text = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
    (
        out.status.code().expect("exit"),
        text(out.stdout),
        text(out.stderr),
    )
}

#[test]
fn a_python_server_that_buffers_answers_after_initialize_gets_the_note_in_its_report() {
    // Issue 27 item 5: the heuristic was a stderr note before the run, absent from issues,
    // with checks.pythonBuffering pass and "0 notes" in the closing line.
    let server = [
        python_command(),
        &fixture("buffers_answers_after_initialize"),
    ];
    let r = guard(&["--timeout", "800"], &server);
    assert_eq!(
        r.issues(),
        pairs(&[
            ("capability-list-timeout", "error"),
            ("python-buffered-stdio", "note")
        ])
    );
    assert_eq!(
        r.json["checks"]["pythonBuffering"],
        serde_json::json!({"status": "warning", "issueCodes": ["python-buffered-stdio"]})
    );
    assert!(!r.stderr.contains("PYTHONUNBUFFERED"), "{}", r.stderr);
    let (exit, human, stderr) = guard_as("human", &["--timeout", "800"], &server);
    assert_eq!(exit, 1);
    assert!(stderr.is_empty(), "{stderr}");
    assert!(
        human.contains("note[python-buffered-stdio] tools/list"),
        "{human}"
    );
    assert!(human.contains("1 error, 0 warnings, 1 note"), "{human}");
    for format in ["sarif", "markdown"] {
        let (_, out, _) = guard_as(format, &["--timeout", "800"], &server);
        assert!(out.contains("python-buffered-stdio"), "{format}: {out}");
    }
    // Unbuffered by -u or by a PYTHONUNBUFFERED given, the same server answers everything.
    let unbuffered = [python_command(), "-u", server[1]];
    assert_eq!(
        guard(&["--timeout", "800"], &unbuffered).issues(),
        pairs(&[])
    );
    let given = ["--timeout", "800", "--env", "PYTHONUNBUFFERED=1"];
    assert_eq!(guard(&given, &server).issues(), pairs(&[]));
}

#[test]
fn a_python_server_that_flushes_every_answer_gets_no_buffering_note() {
    // Issue 27 item 5, deliberately changed: a server run without -u that answered everything
    // flushed, so neither the report nor stderr suspects buffering any more.
    for server in [
        fixture("clean"),
        repo()
            .join("examples/servers/hello.py")
            .display()
            .to_string(),
    ] {
        let r = guard(&[], &[python_command(), &server]);
        assert_eq!(r.issues(), pairs(&[]), "{server}");
        assert_eq!(r.json["checks"]["pythonBuffering"]["status"], "pass");
        assert!(!r.stderr.contains("PYTHONUNBUFFERED"), "{}", r.stderr);
        let (_, human, stderr) = guard_as("human", &[], &[python_command(), &server]);
        assert!(stderr.is_empty(), "{stderr}");
        assert!(!human.contains("python-buffered-stdio"), "{human}");
    }
}

#[test]
fn a_server_that_flushes_gets_no_buffering_warning_and_no_rerun() {
    // never_answers_initialize is Python too, but does not answer unbuffered either.
    let r = guard_fixture("never_answers_initialize", &["--timeout", "800"]);
    assert_eq!(r.issues(), pairs(&[("initialize-timeout", "error")]));
}

fn matrix_of(r: &GuardResult) -> Vec<(String, Option<String>)> {
    r.json["protocolMatrix"]
        .as_array()
        .expect("protocolMatrix")
        .iter()
        .map(|e| {
            (
                e["requested"].as_str().expect("requested").to_string(),
                e["negotiated"].as_str().map(str::to_string),
            )
        })
        .collect()
}

fn versions(items: &[(&str, Option<&str>)]) -> Vec<(String, Option<String>)> {
    items
        .iter()
        .map(|(a, b)| (a.to_string(), b.map(str::to_string)))
        .collect()
}

#[test]
fn protocol_matrix_of_a_correct_legacy_server() {
    let r = guard_fixture("clean", &["--protocol-matrix"]);
    assert_eq!(r.issues(), pairs(&[]));
    assert_eq!(
        matrix_of(&r),
        versions(&[
            ("2024-11-05", Some("2024-11-05")),
            ("2025-03-26", Some("2025-03-26")),
            ("2025-06-18", Some("2025-06-18")),
            ("2025-11-25", Some("2025-11-25")),
            ("2026-07-28", None),
            ("1900-01-01", Some("2025-11-25")),
        ])
    );
    assert_eq!(r.json["protocolMatrix"][4]["errorCode"], -32601);
}

#[test]
fn protocol_matrix_catches_an_echoed_bogus_version() {
    let r = guard_fixture("echoes_any_version", &["--protocol-matrix"]);
    assert_eq!(r.issues(), pairs(&[("protocol-bogus-version", "error")]));
    assert_eq!(
        r.issue("protocol-bogus-version")["location"]["logical"],
        "protocolMatrix/1900-01-01"
    );
    assert_eq!(
        matrix_of(&r)[5],
        ("1900-01-01".to_string(), Some("1900-01-01".to_string()))
    );
}

#[test]
fn protocol_matrix_warns_on_a_refused_bogus_version() {
    let r = guard_fixture("rejects_unknown_version", &["--protocol-matrix"]);
    assert_eq!(r.issues(), pairs(&[("protocol-bogus-version", "warning")]));
}

#[test]
fn protocol_matrix_catches_a_supported_version_answered_with_another() {
    let r = guard_fixture("downgrades_supported_version", &["--protocol-matrix"]);
    assert_eq!(r.issues(), pairs(&[("protocol-version-mismatch", "error")]));
    assert_eq!(
        r.issue("protocol-version-mismatch")["location"]["logical"],
        "protocolMatrix/2025-06-18"
    );
}

#[test]
fn protocol_matrix_catches_a_version_not_honoured() {
    let r = guard_fixture("not_honouring_version", &["--protocol-matrix"]);
    assert_eq!(
        r.issues(),
        pairs(&[("protocol-version-not-honoured", "error")])
    );
    assert!(r.issue("protocol-version-not-honoured")["message"]
        .as_str()
        .expect("message")
        .contains("/result/serverInfo: \"version\" is a required property (Implementation)"));
}

#[test]
fn strict_profile_runs_twice_with_every_probe() {
    let out = mcpcheck()
        .args([
            "guard",
            "--profile",
            "strict",
            "--",
            python_command(),
            &fixture("clean"),
        ])
        .output()
        .expect("run");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON by default");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(report["runs"].as_array().map(Vec::len), Some(2));
    assert_eq!(
        report["adversarialProbes"].as_array().map(Vec::len),
        Some(8)
    );
    assert_eq!(report["summary"]["status"], "pass");
}

#[test]
fn a_slow_first_start_is_not_blamed_on_buffering() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut cmd = mcpcheck();
    cmd.env("FIXTURE_STATE_FILE", dir.path().join("starts"));
    let r = guard_with(
        cmd,
        &["--timeout", "1500"],
        &[python_command(), &fixture("slow_first_start")],
    );
    assert_eq!(r.issues(), pairs(&[]), "{:#}", r.json["issues"]);
    assert_eq!(r.json["initialized"], true);
    // First start, the unbuffered rerun, and the control run with buffering on.
    let starts = std::fs::read_to_string(dir.path().join("starts")).expect("starts");
    assert_eq!(starts.trim(), "3");
}

/// `mcpcheck guard ARGS` with stderr on a pseudo-terminal (util-linux `script`); returns
/// what reached the terminal.
fn on_a_terminal(args: &str, ci: bool) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("terminal");
    let report = dir.path().join("report.json");
    let line = format!(
        "{} guard {args} --output {} -- {} -u {}",
        env!("CARGO_BIN_EXE_mcpcheck"),
        report.display(),
        python_command(),
        // Each start takes 400 ms, so every run below lasts past the second after which
        // progress is drawn (a clean server is now done sooner: issue 30).
        fixture("slow_start")
    );
    let mut cmd = std::process::Command::new("script");
    scrub(&mut cmd);
    if ci {
        cmd.env("CI", "true");
    }
    let out = cmd
        .args(["-qec", &line])
        .arg(&log)
        .output()
        .expect("run script (util-linux) for a pseudo-terminal");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&std::fs::read(&log).expect("terminal log")).into_owned()
}

#[test]
fn long_runs_show_progress_on_a_terminal_and_never_in_ci_or_pipes() {
    let drawn = on_a_terminal("--repeat 3 --json", false);
    assert!(drawn.contains("3/3 sessions"), "{drawn}");
    assert!(on_a_terminal("--adversarial-probes all --json", false).contains("sessions · probe"));
    // Under CI, or when stderr is a pipe, nothing is drawn.
    assert!(!on_a_terminal("--repeat 3 --json", true).contains("sessions"));
    let piped = guard(
        &["--repeat", "3"],
        &[python_command(), "-u", &fixture("clean")],
    );
    assert!(!piped.stderr.contains("sessions"), "{}", piped.stderr);
    // A single session is short: no bar even on a terminal.
    assert!(!on_a_terminal("--json", false).contains("sessions"));
}
