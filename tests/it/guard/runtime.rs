//! Process and runtime faults, and process hygiene: no orphan, no zombie, bounded memory.

use crate::support;
use std::time::Duration;
use support::guard::*;
use support::process::*;
use support::*;

#[test]
fn command_that_does_not_exist() {
    let r = guard(&[], &["/nonexistent/mcp-server-binary"]);
    assert_eq!(r.issues(), pairs(&[("spawn-failed", "error")]));
    assert_eq!(r.status(), "needs_inspection");
    assert_eq!(r.class(), Some("installRuntime"));
    assert_eq!(r.exit, 1);
    assert_eq!(r.json["process"]["outcome"], "spawn-failed");
    assert_eq!(r.json["process"]["started"], false);
    assert_eq!(r.json["process"]["phase"], "startup");
    // The contract's shape: the platform's code and the message.
    assert_eq!(r.json["process"]["spawnError"]["code"], "ENOENT");
    assert!(r.json["process"]["spawnError"]["message"]
        .as_str()
        .expect("spawnError.message")
        .contains("/nonexistent/mcp-server-binary"));
    let issue = r.issue("spawn-failed");
    assert_eq!(issue["spawnErrorCode"], "ENOENT");
    assert_eq!(issue["detailCode"], "spawn-failed-before-startup");
}

#[test]
fn clean_exit_before_initialize() {
    let r = expect_fixture(
        "exit_before_initialize_clean",
        &[],
        "needs_inspection",
        &[("server-exited", "error")],
    );
    assert_eq!(
        r.issue("server-exited")["detailCode"],
        "clean-exit-before-initialize"
    );
    assert_eq!(r.json["process"]["exitCode"], 0);
}

#[test]
fn error_exit_before_initialize_shows_stderr() {
    let r = expect_fixture(
        "exit_before_initialize_error",
        &[],
        "needs_inspection",
        &[("server-exited", "error")],
    );
    let issue = r.issue("server-exited");
    assert_eq!(issue["detailCode"], "nonzero-exit-before-initialize");
    assert_eq!(issue["evidence"], "stderr: fatal: missing config");
    assert_eq!(r.json["process"]["exitCode"], 3);
}

#[test]
fn signal_before_initialize() {
    let r = expect_fixture(
        "segfault_before_initialize",
        &[],
        "needs_inspection",
        &[("server-exited", "error")],
    );
    assert_eq!(
        r.issue("server-exited")["detailCode"],
        "signal-exit-before-initialize"
    );
    assert_eq!(r.json["process"]["signal"], "SIGSEGV");
    assert_eq!(r.json["process"]["signalNumber"], 11);
}

#[test]
fn initialize_never_answered() {
    let r = expect_fixture(
        "never_answers_initialize",
        &["--timeout", "1000"],
        "needs_inspection",
        &[("initialize-timeout", "error")],
    );
    assert_eq!(r.json["process"]["timedOut"], true);
}

#[test]
fn explicit_request_never_answered() {
    let r = expect_fixture(
        "ping_never_answered",
        &["--timeout", "3000", "--request", "ping"],
        "needs_inspection",
        &[("operation-timeout", "error")],
    );
    assert_eq!(r.issue("operation-timeout")["location"]["request"], "ping");
}

#[test]
fn crash_on_an_explicit_request() {
    expect_fixture(
        "crash_on_ping",
        &["--request", "ping"],
        "needs_inspection",
        &[
            ("operation-missing-response", "error"),
            ("server-crashed", "error"),
        ],
    );
}

#[test]
fn explicit_request_answered_with_an_error_is_a_warning() {
    expect_fixture(
        "ping_error",
        &["--request", "ping"],
        "warning",
        &[("operation-error", "warning")],
    );
}

#[test]
fn explicit_requests_with_params_are_sent_in_order() {
    let r = expect_fixture(
        "clean",
        &[
            "--request",
            "tools/call",
            "--params",
            r#"{"name":"echo","arguments":{"text":"hi"}}"#,
            "--request",
            "ping",
        ],
        "pass",
        &[],
    );
    let explicit: Vec<(&str, &str)> = r.json["exchanges"]
        .as_array()
        .expect("operations")
        .iter()
        .filter(|o| o["purpose"] == "explicit")
        .map(|o| {
            (
                o["method"].as_str().expect("m"),
                o["outcome"].as_str().expect("o"),
            )
        })
        .collect();
    assert_eq!(explicit, vec![("tools/call", "result"), ("ping", "result")]);
}

#[test]
fn every_explicit_request_the_dead_server_never_answered_is_missing() {
    let r = expect_fixture(
        "crash_after_initialized",
        &["--request", "tools/list", "--request", "prompts/list"],
        "needs_inspection",
        &[
            ("operation-missing-response", "error"),
            ("operation-missing-response", "error"),
            ("server-crashed", "error"),
        ],
    );
    let missing: Vec<(&str, &str)> = r.json["issues"]
        .as_array()
        .expect("issues")
        .iter()
        .filter(|i| i["code"] == "operation-missing-response")
        .map(|i| {
            (
                i["location"]["request"].as_str().expect("request"),
                i["detailCode"].as_str().expect("detailCode"),
            )
        })
        .collect();
    assert_eq!(
        missing,
        [
            ("prompts/list", "nonzero-exit-during-operation"),
            ("tools/list", "nonzero-exit-during-operation"),
        ]
    );
    let ops: Vec<(&str, bool, &str)> = r.json["operations"]
        .as_array()
        .expect("operations")
        .iter()
        .map(|o| {
            (
                o["method"].as_str().expect("method"),
                o["responded"].as_bool().expect("responded"),
                o["source"].as_str().expect("source"),
            )
        })
        .collect();
    assert_eq!(
        ops,
        [
            ("tools/list", false, "cli-request"),
            ("prompts/list", false, "cli-request"),
        ]
    );
    assert_eq!(r.json["operation"]["method"], "tools/list");
    assert_eq!(r.json["process"]["outcome"], "exited");
    assert_eq!(r.json["process"]["phase"], "operation");
    assert_eq!(r.json["process"]["detail"]["outcome"], "crashed");
}

#[test]
fn crash_after_initialized() {
    let r = expect_fixture(
        "crash_after_initialized",
        &[],
        "needs_inspection",
        &[("server-crashed", "error")],
    );
    assert_eq!(r.json["process"]["outcome"], "exited");
    assert_eq!(r.json["process"]["detail"]["outcome"], "crashed");
}

#[test]
fn server_that_answers_everything_then_exits_0_ended_the_session_early() {
    // An error since issue 32 item 3 (data/client-impact.json): every client lost the session
    // at its next request on this fixture.
    let r = expect_fixture(
        "ends_session_after_answering",
        &[],
        "needs_inspection",
        &[("server-ended-session", "error")],
    );
    assert_eq!(r.json["process"]["detail"]["outcome"], "ended-by-server");
    assert_eq!(r.json["process"]["outcome"], "exited");
    assert_eq!(r.json["process"]["exitCode"], 0);
}

#[test]
fn requests_left_unanswered_by_a_server_that_ended_the_session_stay_errors() {
    expect_fixture(
        "ends_session_after_answering",
        &["--request", "ping"],
        "needs_inspection",
        &[
            ("operation-missing-response", "error"),
            ("server-ended-session", "error"),
        ],
    );
}

#[test]
fn server_that_ignores_stdin_close_needs_sigterm() {
    let r = expect_fixture(
        "ignores_stdin_close",
        &["--shutdown-grace", "500"],
        "warning",
        &[("shutdown-slow", "warning")],
    );
    assert_eq!(r.issue("shutdown-slow")["detailCode"], "needed-sigterm");
    assert_eq!(r.json["process"]["killedByGuard"], true);
}

#[test]
fn server_that_ignores_sigterm_is_killed_and_leaves_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pid_file = dir.path().join("pids");
    let mut cmd = mcpcheck();
    cmd.env("FIXTURE_PID_FILE", &pid_file);
    let r = guard_with(
        cmd,
        &["--shutdown-grace", "500"],
        &[python_command(), &fixture("ignores_sigterm")],
    );
    assert_eq!(r.issues(), pairs(&[("shutdown-slow", "warning")]));
    assert_eq!(r.issue("shutdown-slow")["detailCode"], "needed-sigkill");
    assert_eq!(r.json["process"]["signal"], "SIGKILL");
    assert_eq!(r.json["process"]["signalNumber"], 9);
    assert_eq!(
        survivors(&pid_file, Duration::from_secs(5)),
        Vec::<u32>::new()
    );
}

#[test]
fn child_that_outlives_the_server_is_killed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pid_file = dir.path().join("pids");
    let mut cmd = mcpcheck();
    cmd.env("FIXTURE_PID_FILE", &pid_file);
    let r = guard_with(cmd, &[], &[python_command(), &fixture("forks_child")]);
    assert_eq!(r.issues(), pairs(&[]));
    assert_eq!(r.exit, 0);
    let pids = std::fs::read_to_string(&pid_file).expect("pid file");
    assert_eq!(pids.lines().count(), 2, "server and its child recorded");
    assert_eq!(
        survivors(&pid_file, Duration::from_secs(5)),
        Vec::<u32>::new()
    );
}

/// Issue 45: a daemon (double fork and setsid, streams on /dev/null) outlives the server and
/// would outlive every client's session: reported with its command line and how long it
/// outlived the server, on both backends (the portable one finds it through the variable
/// it inherits), and killed.
#[test]
fn daemon_that_left_the_process_group_is_reported_and_killed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pid_file = dir.path().join("pids");
    let mut cmd = mcpcheck();
    cmd.env("FIXTURE_PID_FILE", &pid_file);
    let r = guard_with(cmd, &[], &[python_command(), &fixture("daemonizes")]);
    assert_eq!(
        r.issues(),
        pairs(&[("process-left-running", "warning")]),
        "{:#}",
        r.json["issues"]
    );
    let pids = std::fs::read_to_string(&pid_file).expect("pid file");
    assert_eq!(pids.lines().count(), 2, "server and its daemon recorded");
    let daemon = pids.lines().nth(1).expect("the daemon's pid");
    let left = r.issue("process-left-running");
    assert_eq!(left["detailCode"], "detached");
    let message = left["message"].as_str().expect("message");
    assert!(
        message.starts_with(&format!("Process {daemon} (`"))
            && message.contains("daemonizes.py`), started by the server, detached from its process group and was still running "),
        "{message}"
    );
    let ms: u64 = message
        .split(" still running ")
        .nth(1)
        .and_then(|rest| rest.split(" ms ").next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no duration in {message}"));
    assert!((500..10_000).contains(&ms), "{message}");
    assert_eq!(
        survivors(&pid_file, Duration::from_secs(5)),
        Vec::<u32>::new()
    );
}

#[test]
fn a_child_that_escapes_the_group_with_stdout_is_named_and_killed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pid_file = dir.path().join("pids");
    let mut cmd = mcpcheck();
    cmd.env("FIXTURE_PID_FILE", &pid_file);
    let r = guard_with(
        cmd,
        &[],
        &[python_command(), &fixture("escapes_with_stdout")],
    );
    if portable_backend() {
        // Who holds a pipe cannot be seen there: not checked, and still nothing left. The
        // process outlived the server out of its group, found through the variable it
        // inherits: reported as left running (issue 45).
        assert_eq!(
            r.issues(),
            pairs(&[("process-left-running", "warning")]),
            "{:#}",
            r.json["issues"]
        );
        assert!(r.issue("process-left-running")["message"]
            .as_str()
            .is_some_and(|m| m.contains("(`sleep 300`)")));
        assert_eq!(
            r.json["checks"]["leftoverProcesses"]["status"],
            "not-checked"
        );
        assert_eq!(
            survivors(&pid_file, Duration::from_secs(5)),
            Vec::<u32>::new()
        );
        return;
    }
    assert_eq!(r.json["checks"].get("leftoverProcesses"), None);
    assert_eq!(
        r.issues(),
        pairs(&[("process-escaped-group", "warning")]),
        "{:#}",
        r.json["issues"]
    );
    assert_eq!(r.status(), "warning");
    let pids = std::fs::read_to_string(&pid_file).expect("pid file");
    let child: u32 = pids
        .lines()
        .nth(1)
        .expect("the child's pid")
        .parse()
        .expect("pid");
    let issue = r.issue("process-escaped-group");
    assert_eq!(issue["detailCode"], "holds-stdout");
    assert_eq!(
        issue["message"],
        format!("Process {child} (`sleep 300`), started by the server, left its process group and session but kept the server's stdin, stdout and stderr; the guard killed it at the end. A client stops a server by its process group, so it would be left with this process running, holding the pipe open.")
    );
    assert_eq!(
        survivors(&pid_file, Duration::from_secs(5)),
        Vec::<u32>::new()
    );
}

#[test]
fn stdout_flood_is_cut_off_with_bounded_memory_and_nothing_left() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pid_file = dir.path().join("pids");
    let mut cmd = mcpcheck();
    cmd.env("FIXTURE_PID_FILE", &pid_file)
        .args([
            "guard",
            "--json",
            // The 1 MiB budget this bound was set for (the default is now 17 MiB, so that
            // one line at the 16 MiB hard cap fits).
            "--max-stdout-bytes",
            "1048576",
            "--",
            python_command(),
            &fixture("flood_stdout"),
        ])
        .stdout(std::process::Stdio::piped());
    let mut child = cmd.spawn().expect("spawn mcpcheck");
    // VmHWM is the peak resident set so far; the last reading before exit is the run's peak.
    let mut peak_kib = 0u64;
    while child.try_wait().expect("try_wait").is_none() {
        if let Ok(status) = std::fs::read_to_string(format!("/proc/{}/status", child.id())) {
            if let Some(kib) = status
                .lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<u64>().ok())
            {
                peak_kib = peak_kib.max(kib);
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let out = child.wait_with_output().expect("output");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json report");
    let codes: Vec<&str> = json["issues"]
        .as_array()
        .expect("issues")
        .iter()
        .map(|i| i["code"].as_str().expect("code"))
        .collect();
    assert_eq!(
        codes,
        vec!["stdout-non-json", "stdout-output-limit-exceeded"]
    );
    assert!(peak_kib > 0, "peak memory was sampled");
    // 100 MB were offered; the guard holds at most its 1 MiB budget plus its own footprint.
    assert!(peak_kib < 64 * 1024, "guard peak RSS {peak_kib} KiB");
    assert_eq!(
        survivors(&pid_file, Duration::from_secs(5)),
        Vec::<u32>::new()
    );
}

#[test]
fn five_mb_of_stderr_is_drained_counted_and_only_noted() {
    // Deliberate change (issue 22): 5 MB of logs was a warning; it is a note that the report
    // keeps the tail, since logging to stderr is what a server should do.
    let r = expect_fixture(
        "stderr_flood",
        &[],
        "pass",
        &[("stderr-output-limit-exceeded", "note")],
    );
    assert_eq!(r.json["stderrFacts"]["totalBytes"], 5 * 1024 * 1024);
    // The contract's stderr text is the bounded tail, and says it was cut.
    let text = r.json["stderr"].as_str().expect("stderr text");
    assert!(
        !text.is_empty() && text.chars().count() <= 4096,
        "{}",
        text.len()
    );
    assert_eq!(r.json["process"]["output"]["stderrTruncated"], true);
    assert_eq!(r.json["process"]["output"]["stderrBytes"], 5 * 1024 * 1024);
}

#[test]
fn chatty_stderr_logging_in_synchronous_writes_is_only_a_note() {
    let r = expect_fixture(
        "chatty_stderr_logging",
        &[],
        "pass",
        &[("stderr-output-limit-exceeded", "note")],
    );
    assert_eq!(r.json["stderrFacts"]["totalBytes"], 5 * 1024 * 1024);
    assert_eq!(r.json["stderrFacts"]["lines"], 5 * 1024);
    assert_eq!(r.json["initialized"], true);
}

#[test]
fn stderr_past_the_flood_threshold_is_a_warning() {
    let r = expect_fixture(
        "chatty_stderr_logging",
        &["--stderr-flood-bytes", "4194304"],
        "warning",
        &[
            ("stderr-flood", "warning"),
            ("stderr-output-limit-exceeded", "note"),
        ],
    );
    assert!(r.issue("stderr-flood")["message"]
        .as_str()
        .expect("message")
        .contains("5242880 bytes"));
}

#[test]
fn cwd_is_where_the_server_runs() {
    let r = guard(
        &[
            "--cwd",
            &repo().join("tests/fixtures/servers").display().to_string(),
        ],
        &[python_command(), "clean.py"],
    );
    assert_eq!(r.issues(), pairs(&[]));
    assert_eq!(r.exit, 0);
}

/// An unbuilt Node project: the line that says why (`Cannot find module`) is the evidence and
/// heads the stderr excerpt in every human format, not the closing `Node.js vNN` line.
#[test]
fn a_crash_shows_the_stderr_line_that_explains_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = |format: &str| {
        mcpcheck_in(dir.path())
            .args(["guard", "--format", format, "--", "node", "dist/index.js"])
            .output()
            .expect("runs")
    };
    let json: serde_json::Value =
        serde_json::from_slice(&run("json").stdout).expect("a JSON report");
    let issue = json["issues"]
        .as_array()
        .and_then(|a| a.iter().find(|i| i["code"] == "server-exited"))
        .expect("server-exited");
    assert!(
        issue["evidence"]
            .as_str()
            .is_some_and(|e| e.starts_with("stderr: Error: Cannot find module")),
        "{issue}"
    );
    let excerpt: Vec<&str> = issue["stderrExcerpt"]
        .as_array()
        .expect("an excerpt")
        .iter()
        .filter_map(|l| l.as_str())
        .collect();
    assert!(
        excerpt
            .iter()
            .any(|l| l.starts_with("Error: Cannot find module")),
        "{excerpt:?}"
    );
    assert!(
        excerpt.last().is_some_and(|l| l.starts_with("Node.js v")),
        "{excerpt:?}"
    );
    let human = String::from_utf8_lossy(&run("human").stdout).into_owned();
    let at = human
        .find("stderr (excerpt):")
        .expect("an excerpt in the human report");
    assert!(
        human[at..].contains("│ Error: Cannot find module"),
        "{human}"
    );
    let markdown = String::from_utf8_lossy(&run("markdown").stdout).into_owned();
    assert!(
        markdown.contains("<details><summary>stderr of <code>server-exited</code></summary>"),
        "{markdown}"
    );
    assert!(
        markdown.contains("\nError: Cannot find module"),
        "{markdown}"
    );
}

/// A Python server whose import fails: the traceback's last frames and its exception.
#[test]
fn a_python_import_error_is_named_with_its_frames() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("server.py"),
        "import sys\nimport no_such_module_for_mcpcheck\n",
    )
    .expect("server");
    let out = mcpcheck_in(dir.path())
        .args(["guard", "--json", "--", python_command(), "server.py"])
        .output()
        .expect("runs");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
    let issue = json["issues"]
        .as_array()
        .and_then(|a| a.iter().find(|i| i["code"] == "server-exited"))
        .expect("server-exited");
    assert_eq!(
        issue["evidence"],
        "stderr: ModuleNotFoundError: No module named 'no_such_module_for_mcpcheck'"
    );
    let excerpt = issue["stderrExcerpt"].as_array().expect("an excerpt");
    assert!(
        excerpt.iter().any(|l| l
            .as_str()
            .is_some_and(|l| l.contains("import no_such_module_for_mcpcheck"))),
        "{excerpt:?}"
    );
}

/// An issue's own process facts (issue 27 item 3): phase, exitCode, signal, timeoutMs.
fn process_facts(r: &GuardResult, code: &str) -> serde_json::Value {
    let issue = r.issue(code);
    let keys = ["phase", "exitCode", "signal", "timeoutMs"];
    keys.iter()
        .filter_map(|k| issue.get(*k).map(|v| (k.to_string(), v.clone())))
        .collect()
}

#[test]
fn clean_exit_during_a_list_probe_is_in_the_operation_phase() {
    // Issue 27 item 3: an exit 0 while tools/list was pending was labelled post-initialize,
    // and neither issue said when or how the process ended.
    let r = expect_fixture(
        "exits_cleanly_on_tools_list",
        &[],
        "needs_inspection",
        &[
            ("capability-list-missing-response", "error"),
            ("server-ended-session", "error"),
        ],
    );
    assert_eq!(r.json["process"]["phase"], "operation");
    // Issue 44 item 13: an exit writes both keys, the one that does not apply as null, as
    // mcp-stdio-guard does.
    let exit_0 = serde_json::json!({"phase": "operation", "exitCode": 0, "signal": null});
    assert_eq!(
        process_facts(&r, "capability-list-missing-response"),
        exit_0
    );
    assert_eq!(process_facts(&r, "server-ended-session"), exit_0);
}

#[test]
fn issues_carry_their_own_exit_code_signal_and_timeout() {
    // Issue 27 item 3: only process.* had them; a crash, an exit and a timeout say so.
    let crashed = guard_fixture("crash_after_initialized", &[]);
    assert_eq!(
        process_facts(&crashed, "server-crashed"),
        serde_json::json!({"phase": "post-initialize", "exitCode": 1, "signal": null})
    );
    let segfault = guard_fixture("segfault_before_initialize", &[]);
    assert_eq!(
        process_facts(&segfault, "server-exited"),
        serde_json::json!({"phase": "initialize", "exitCode": null, "signal": "SIGSEGV"})
    );
    let silent = guard_fixture("never_answers_initialize", &["--timeout", "500"]);
    assert_eq!(
        process_facts(&silent, "initialize-timeout"),
        serde_json::json!({"phase": "initialize", "timeoutMs": 500})
    );
    let missing = guard(&[], &["/nonexistent/mcp-server-binary"]);
    assert_eq!(
        process_facts(&missing, "spawn-failed"),
        serde_json::json!({"phase": "startup"})
    );
}

/// `process.pid` (issue 27 item 4): the spawned server's pid, null when nothing was spawned.
#[test]
fn the_report_names_the_servers_pid() {
    let r = guard_fixture("clean", &[]);
    let pid = r.json["process"]["pid"].as_u64().expect("a pid");
    assert!(pid > 1, "{pid}");
    assert_ne!(pid, u64::from(std::process::id()));
    let missing = guard(&[], &["/nonexistent/mcp-server-binary"]);
    assert!(
        missing.json["process"]["pid"].is_null(),
        "{}",
        missing.json["process"]
    );
}

/// `frames` (issue 27 item 4): the JSON-RPC messages the server wrote, in order; a banner
/// line that is not JSON is not a frame.
#[test]
fn the_report_lists_the_servers_messages_as_frames() {
    let r = guard_fixture("banner_before_initialize", &[]);
    let frames = r.json["frames"].as_array().expect("frames");
    assert_eq!(
        frames.len() as u64,
        r.json["stdout"]["frames"].as_u64().expect("count") - 1
    );
    assert_eq!(frames[0]["id"], 1);
    assert!(
        frames[0]["result"]["protocolVersion"].is_string(),
        "{}",
        frames[0]
    );
    assert_eq!(r.json["framesOmitted"], 0);
}

/// A credential in a message the server wrote is masked in `frames` too.
#[test]
fn a_token_in_a_message_is_masked_in_the_frames() {
    let token = ["ghp_", "R7mKq2XvB9tLw4ZpN8cYd3HsJ6fGa1QeU5oT"].concat();
    let params = serde_json::json!({"name": "echo", "arguments": {"text": token}}).to_string();
    let r = guard_fixture("clean", &["--request", "tools/call", "--params", &params]);
    let frames = r.json["frames"].to_string();
    assert!(
        frames.contains("[REDACTED github-token]") && !frames.contains(&token),
        "{frames}"
    );
    assert!(!r.json.to_string().contains(&token));
}

/// The portable backend (macOS's, chosen here by the hidden switch): every server that
/// leaves processes behind, in its group or out of it, is cleaned up, and the leftover
/// checks say "not checked on this OS" in every format, never pass.
#[test]
fn the_portable_backend_leaves_nothing_and_reports_leftovers_not_checked() {
    for name in [
        "forks_child",
        "daemonizes",
        "escapes_with_stdout",
        "ignores_sigterm",
    ] {
        let dir = tempfile::tempdir().expect("tempdir");
        let pid_file = dir.path().join("pids");
        let mut cmd = mcpcheck();
        cmd.env("FIXTURE_PID_FILE", &pid_file)
            .env("MCPCHECK_PROCESS_BACKEND", "portable");
        let r = guard_with(
            cmd,
            &["--shutdown-grace", "500"],
            &[python_command(), &fixture(name)],
        );
        let expected: &[(&str, &str)] = match name {
            "ignores_sigterm" => &[("shutdown-slow", "warning")],
            // Out of the group and still running after the server exited (issue 45).
            "daemonizes" | "escapes_with_stdout" => &[("process-left-running", "warning")],
            _ => &[],
        };
        assert_eq!(
            r.issues(),
            pairs(expected),
            "{name}: {:#}",
            r.json["issues"]
        );
        assert_eq!(
            r.json["checks"]["leftoverProcesses"]["status"], "not-checked",
            "{name}"
        );
        assert!(r.json["checks"]["leftoverProcesses"]["reason"]
            .as_str()
            .is_some_and(|s| s.starts_with("not checked on this OS")));
        let recorded = std::fs::read_to_string(&pid_file).expect("pid file");
        assert!(recorded.lines().count() >= 1, "{name}: no pid recorded");
        assert_eq!(
            survivors(&pid_file, Duration::from_secs(5)),
            Vec::<u32>::new(),
            "{name}: a process outlived the run"
        );
    }
}

#[test]
fn leftovers_not_checked_reads_as_such_for_people_and_in_sarif() {
    let script = fixture("forks_child");
    let server = [python_command(), script.as_str()];
    let run = |format: &[&str], portable: bool| {
        let mut cmd = mcpcheck();
        if portable {
            cmd.env("MCPCHECK_PROCESS_BACKEND", "portable");
        }
        let out = cmd
            .arg("guard")
            .args(format)
            .arg("--")
            .args(server)
            .output()
            .expect("run mcpcheck");
        String::from_utf8(out.stdout).expect("utf-8")
    };
    let human = run(&[], true);
    assert!(
        human.contains("\n  leftover processes: not checked on this OS: "),
        "{human}"
    );
    let sarif: serde_json::Value =
        serde_json::from_str(&run(&["--format", "sarif"], true)).expect("sarif");
    let notes = &sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"];
    assert!(
        notes
            .as_array()
            .is_some_and(|n| n.iter().any(|n| n["message"]["text"]
                .as_str()
                .is_some_and(|t| t.starts_with("Leftover processes: not checked on this OS")))),
        "{notes:#}"
    );
    if !portable_backend() {
        // The Linux backend checks them: nothing said.
        assert!(!run(&[], false).contains("leftover processes"));
    }
}
