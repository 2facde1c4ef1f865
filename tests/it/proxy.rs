//! `mcpcheck proxy` between a real SDK client and real servers: transparent, byte for byte,
//! and checking the traffic as it happens.

use crate::support;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;
use support::*;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_mcpcheck")
}

fn ts_dir() -> std::path::PathBuf {
    let dir = repo().join("tests/fixtures/sdk/ts");
    assert!(
        dir.join("node_modules/@modelcontextprotocol/sdk").is_dir(),
        "TypeScript SDK fixtures are not installed: run scripts/install-fixtures (scripts/test does)"
    );
    dir
}

/// Runs the SDK client against a server command; returns (stdout, stderr).
fn client(calls: u32, server: &[&str]) -> (String, String) {
    let out = scrub(
        Command::new("node")
            .arg(ts_dir().join("client.mjs"))
            .args(["--calls", &calls.to_string(), "--"])
            .args(server),
    )
    .output()
    .expect("run the SDK client");
    assert!(
        out.status.success(),
        "client failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8(out.stdout).expect("utf-8"),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn sdk_server(lang: &str) -> Vec<String> {
    match lang {
        "ts" => vec![
            "node".into(),
            ts_dir().join("clean.mjs").display().to_string(),
        ],
        _ => {
            let dir = repo().join("tests/fixtures/sdk/python");
            vec![
                dir.join(".venv/bin/python").display().to_string(),
                dir.join("clean.py").display().to_string(),
            ]
        }
    }
}

fn through_proxy<'a>(extra: &[&'a str], server: &'a [String]) -> Vec<&'a str> {
    let mut argv = vec![bin(), "proxy"];
    argv.extend_from_slice(extra);
    argv.push("--");
    argv.extend(server.iter().map(String::as_str));
    argv
}

#[test]
fn sdk_client_gets_the_same_results_through_the_proxy() {
    for lang in ["ts", "py"] {
        let server = sdk_server(lang);
        let direct: Vec<&str> = server.iter().map(String::as_str).collect();
        let (expected, _) = client(2, &direct);
        let (proxied, stderr) = client(2, &through_proxy(&[], &server));
        assert_eq!(
            proxied, expected,
            "{lang}: results differ through the proxy"
        );
        assert!(
            expected.contains("\"add\":{\"content\""),
            "{lang}: the session really ran: {expected}"
        );
        assert!(
            stderr.contains("mcpcheck: → request tools/call"),
            "{lang}: records on stderr"
        );
        assert!(
            !stderr.contains("mcpcheck: error["),
            "{lang}: no finding on a clean server: {stderr}"
        );
    }
}

#[test]
fn random_bytes_pass_through_unchanged_both_ways() {
    // `cat` echoes the client's bytes back: both directions carry the same garbage.
    let mut bytes = Vec::new();
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..300_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        bytes.push((state >> 24) as u8);
    }
    bytes.extend_from_slice(b"\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n\xff\xfe\r\n");
    let mut child = mcpcheck()
        .args(["proxy", "--", "cat"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("proxy");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = bytes.clone();
    let writer = std::thread::spawn(move || {
        stdin.write_all(&input).expect("write");
    });
    let out = child.wait_with_output().expect("output");
    writer.join().expect("writer");
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stdout == bytes,
        "forwarded bytes differ ({} vs {})",
        out.stdout.len(),
        bytes.len()
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("mcpcheck: error[stdout-invalid-utf8]"),
        "garbage is recorded as invalid"
    );
}

#[test]
fn a_tool_list_changed_mid_session_is_a_rug_pull_finding() {
    let dir = tempfile::tempdir().expect("tempdir");
    let report = dir.path().join("session.json");
    let server = vec![
        python_command().to_string(),
        fixture("changes_tools_mid_session"),
    ];
    let report_arg = report.display().to_string();
    let sarif = dir.path().join("session.sarif");
    let sarif_arg = sarif.display().to_string();
    let (_, stderr) = client(
        3,
        &through_proxy(
            &[
                "--format",
                "json",
                "--report",
                &report_arg,
                "--sarif",
                &sarif_arg,
            ],
            &server,
        ),
    );
    let sarif_doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&sarif).expect("SARIF written")).expect("json");
    let rule_ids: Vec<&str> = sarif_doc["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["ruleId"].as_str().expect("ruleId"))
        .collect();
    assert_eq!(
        rule_ids,
        vec![
            "tool-poisoning-instructions",
            "mutating-tools-without-logging",
            "session-surface-drift"
        ]
    );
    assert!(stderr.contains("warning[session-surface-drift] `tools/list` changed since the first listing of the session: added upload; changed echo."), "{stderr}");
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).expect("report")).expect("json");
    let issues = issue_pairs(&doc);
    // The new description is poisoned: the live rules catch it the moment it is listed.
    // The new `upload` tool changes state, and the server's capabilities (from its
    // initialize result) include no logging.
    assert_eq!(
        issues,
        pairs(&[
            ("tool-poisoning-instructions", "error"),
            ("mutating-tools-without-logging", "warning"),
            ("session-surface-drift", "warning"),
        ])
    );
    assert_eq!(doc["session"]["perMethod"]["tools/list"], 2);
    assert!(doc["session"]["latencyMs"]["p50"].is_number());
}

#[test]
fn pollution_on_the_third_call_is_caught_when_it_happens() {
    let server = vec![python_command().to_string(), fixture("pollutes_third_call")];
    let direct: Vec<&str> = server.iter().map(String::as_str).collect();
    let (expected, _) = client(3, &direct);
    let (proxied, stderr) = client(3, &through_proxy(&[], &server));
    assert_eq!(
        proxied, expected,
        "the client sees what it sees without the proxy"
    );
    assert!(
        stderr.contains(
            "error[stdout-non-json] 1 line on stdout is not JSON (line 9), first after initialize: a client fails to parse it."
        ),
        "{stderr}"
    );
    assert_eq!(stderr.matches("stdout-non-json").count(), 1);
}

#[test]
fn exit_codes_pass_through() {
    let run = |server: &[&str]| {
        mcpcheck()
            .arg("proxy")
            .arg("--")
            .args(server)
            .stdin(Stdio::null())
            .output()
            .expect("proxy")
    };
    assert_eq!(run(&["sh", "-c", "exit 7"]).status.code(), Some(7));
    assert_eq!(
        run(&["sh", "-c", "kill -9 $$"]).status.code(),
        Some(128 + 9)
    );
    let missing = run(&["/nonexistent/server"]);
    assert_eq!(missing.status.code(), Some(127));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/nonexistent/server"));
}

#[test]
fn signals_are_forwarded_to_the_server() {
    // The handler writes with os.write: the signal may land while the main thread is still
    // inside its own stderr write, where a buffered write would raise "reentrant call".
    let script = "import os, signal, sys, time\n\
        def bye(n, f):\n    os.write(2, b'server got TERM\\n'); os._exit(3)\n\
        signal.signal(signal.SIGTERM, bye)\n\
        sys.stderr.write('ready\\n'); sys.stderr.flush()\n\
        time.sleep(30)\n";
    let mut child = mcpcheck()
        .args(["proxy", "--", python_command(), "-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("proxy");
    let mut stderr = child.stderr.take().expect("stderr");
    // Wait until the server is up before signalling the proxy.
    let mut seen = Vec::new();
    let mut buf = [0u8; 256];
    while !String::from_utf8_lossy(&seen).contains("ready") {
        let n = std::io::Read::read(&mut stderr, &mut buf).expect("read stderr");
        assert!(n > 0, "server never started");
        seen.extend_from_slice(&buf[..n]);
    }
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .expect("signal the proxy");
    let status = child.wait().expect("wait");
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).expect("rest");
    assert_eq!(status.code(), Some(3), "{rest}");
    assert!(rest.contains("server got TERM"), "{rest}");
}

#[test]
fn the_log_is_private_redacted_and_never_changes_the_traffic() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("session.jsonl");
    let line = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"x\",\"arguments\":{\"apiKey\":\"plain-secret-value\",\"note\":\"token ghp_0123456789abcdefghijABCDEFGHIJ0123 inside\"}}}\n";
    let mut child = mcpcheck()
        .args(["proxy", "--log"])
        .arg(&log)
        .args(["--", "cat"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("proxy");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(line)
        .expect("write");
    let out = child.wait_with_output().expect("output");
    assert_eq!(out.stdout, line.to_vec(), "forwarded traffic is untouched");
    let text = std::fs::read_to_string(&log).expect("log");
    assert_eq!(text.lines().count(), 2, "one record per direction: {text}");
    assert!(
        !text.contains("plain-secret-value") && !text.contains("ghp_0123"),
        "{text}"
    );
    assert!(text.contains("[REDACTED]"));
    let records: Vec<serde_json::Value> = text
        .lines()
        .map(|l| support::schema::validate_text(support::schema::ReportKind::ProxyLogLine, l))
        .collect();
    let record = &records[0];
    assert_eq!(record["direction"], "client-to-server");
    assert_eq!(record["kind"], "request");
    assert_eq!(record["method"], "tools/call");
    let mode = std::fs::metadata(&log).expect("meta").permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("plain-secret-value"));
}

#[test]
fn a_log_writer_that_blocks_never_stalls_the_session() {
    // A FIFO with no reader: opening it for writing blocks forever, like a dead disk.
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("stuck.log");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
    let report = dir.path().join("report.json");
    let mut input = Vec::new();
    // More records than the writer's queue holds (65,536 records or 8 MiB).
    for i in 0..40_000 {
        input.extend_from_slice(format!("{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progress\":{i}}}}}\n").as_bytes());
    }
    let mut child = mcpcheck()
        .args(["proxy", "--log"])
        .arg(&fifo)
        .arg("--report")
        .arg(&report)
        .args(["--", "cat"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("proxy");
    let mut stdin = child.stdin.take().expect("stdin");
    let data = input.clone();
    let writer = std::thread::spawn(move || stdin.write_all(&data).expect("write"));
    let out = child.wait_with_output().expect("output");
    writer.join().expect("writer");
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout == input, "every byte went through");
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).expect("report")).expect("json");
    let dropped = doc["session"]["logRecordsDropped"]
        .as_u64()
        .expect("dropped");
    assert!(
        dropped > 0,
        "records beyond the queue were dropped and counted"
    );
    assert_eq!(doc["session"]["messages"], 80_000);
    assert_eq!(doc["session"]["unobservedBytes"], 0);
}

#[test]
fn a_request_left_unanswered_is_reported_live() {
    let (child, mut stdin, _stdout) = initialized(
        &["--timeout", "1000"],
        "ping_never_answered",
        Stdio::piped(),
    );
    // Only once initialize is answered does the clock for the ping start.
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n")
        .expect("write");
    std::thread::sleep(Duration::from_millis(2000));
    drop(stdin);
    let out = child.wait_with_output().expect("output");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "error[operation-timeout] `ping` (id 2) has not been answered after 1000 ms."
        ),
        "{stderr}"
    );
}

/// Runs the SDK client through the proxy with `extra` options and a JSON report; returns the
/// client's output, the proxy's stderr and the report.
fn session_report(
    calls: u32,
    extra: &[&str],
    server: &[String],
) -> (String, String, serde_json::Value) {
    let dir = tempfile::tempdir().expect("tempdir");
    let report = dir.path().join("session.json").display().to_string();
    let mut options = extra.to_vec();
    options.extend(["--report", &report]);
    let (out, stderr) = client(calls, &through_proxy(&options, server));
    let doc = serde_json::from_slice(&std::fs::read(&report).expect("report")).expect("json");
    (out, stderr, doc)
}

#[test]
fn traffic_past_the_check_backlog_is_forwarded_and_reported_as_unchecked() {
    let server = vec![python_command().to_string(), fixture("hides_in_a_flood")];
    let direct: Vec<&str> = server.iter().map(String::as_str).collect();
    let (expected, _) = client(3, &direct);

    // With the default backlog every message is checked: the poisoned tool hidden in the
    // 77 KB listing is found.
    let (proxied, _, doc) = session_report(3, &[], &server);
    assert_eq!(proxied, expected);
    assert_eq!(
        issue_pairs(&doc),
        pairs(&[
            ("stdout-non-json", "error"),
            ("tool-poisoning-instructions", "error"),
        ])
    );
    assert_eq!(doc["session"]["unobservedBytes"], 0);

    // A 2 KiB backlog: each listing outruns the checks. The client still gets every byte,
    // the proxy says its checks were incomplete instead of passing the listing in silence,
    // and the checks pick up again: the pollution is caught on its right line.
    let (proxied, stderr, doc) = session_report(3, &["--check-backlog", "2"], &server);
    assert_eq!(
        proxied, expected,
        "the client sees what it sees without the proxy"
    );
    assert_eq!(
        issue_pairs(&doc),
        pairs(&[
            ("stdout-non-json", "error"),
            ("proxy-checks-incomplete", "warning"),
        ])
    );
    assert!(
        stderr.contains(
            "error[stdout-non-json] 1 line on stdout is not JSON (line 9), first after initialize: a client fails to parse it."
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("warning[proxy-checks-incomplete] The checks fell behind the traffic (server-to-client)"),
        "{stderr}"
    );
    let unchecked = doc["session"]["unobservedBytes"].as_u64().expect("bytes");
    assert!(
        unchecked >= 76_856,
        "at least one whole listing went unchecked: {unchecked}"
    );
    let message = doc["issues"][1]["message"].as_str().expect("message");
    let from_client: u64 = message
        .split(' ')
        .nth(6)
        .and_then(|n| n.parse().ok())
        .expect("bytes from the client");
    assert_eq!(
        message,
        format!(
            "The checks fell behind the traffic: {from_client} bytes from the client and {} bytes from the server were forwarded without being checked, so findings about them may be missing.",
            unchecked - from_client
        )
    );
}

#[test]
fn when_the_server_closes_stdout_the_client_reads_its_end_at_once() {
    use std::io::Read;
    let (mut child, stdin, mut stdout) = initialized(&[], "closes_stdout_early", Stdio::null());
    // The server has closed its stdout and sleeps: the client sees the end now, not when
    // the server exits.
    let mut rest = Vec::new();
    stdout.read_to_end(&mut rest).expect("read to the end");
    assert!(rest.is_empty());
    assert!(
        child.try_wait().expect("try_wait").is_none(),
        "the end of stdout came while the server (and the proxy) still ran"
    );
    drop(stdin);
    let status = child.wait().expect("wait");
    // The server ignored the closed stdin while sleeping, so it was stopped by SIGTERM.
    assert_eq!(status.code(), Some(128 + 15));
}

/// Starts `mcpcheck proxy OPTIONS -- python FIXTURE` and completes initialize through it;
/// returns the proxy and the client's ends of its stdin and stdout.
fn initialized(
    options: &[&str],
    fixture_name: &str,
    stderr: Stdio,
) -> (
    std::process::Child,
    std::process::ChildStdin,
    std::io::BufReader<std::process::ChildStdout>,
) {
    use std::io::BufRead;
    let mut child = mcpcheck()
        .arg("proxy")
        .args(options)
        .args(["--", python_command(), &fixture(fixture_name)])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("proxy");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n")
        .expect("write");
    let mut answer = String::new();
    stdout.read_line(&mut answer).expect("initialize answer");
    assert!(answer.contains("\"id\":1"), "{answer}");
    (child, stdin, stdout)
}

#[test]
fn poisoned_instructions_in_the_initialize_result_are_caught_live() {
    let server = vec![
        python_command().to_string(),
        fixture("poisoned_server_instructions"),
    ];
    let direct: Vec<&str> = server.iter().map(String::as_str).collect();
    let (expected, _) = client(1, &direct);
    let (proxied, stderr, doc) = session_report(1, &[], &server);
    assert_eq!(proxied, expected);
    assert_eq!(
        issue_pairs(&doc),
        pairs(&[("tool-poisoning-instructions", "error")])
    );
    assert!(
        stderr.contains(
            "error[tool-poisoning-instructions] In the instructions of the initialize result"
        ),
        "{stderr}"
    );
}

#[test]
fn server_requests_are_judged_against_what_the_real_client_declared() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().expect("tempdir");
    let report = dir.path().join("session.json");
    let mut child = mcpcheck()
        .arg("proxy")
        .arg("--report")
        .arg(&report)
        .args([
            "--",
            python_command(),
            &fixture("asks_undeclared_capabilities"),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("proxy");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    // This client declares roots (and nothing else), so only sampling and elicitation are faults.
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"roots\":{}},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n")
        .expect("write");
    let mut line = String::new();
    stdout.read_line(&mut line).expect("initialize answer");
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
        .expect("write");
    let mut asked = Vec::new();
    for _ in 0..5 {
        line.clear();
        stdout.read_line(&mut line).expect("server request");
        let v: serde_json::Value = serde_json::from_str(&line).expect("json");
        asked.push(v["method"].as_str().expect("method").to_string());
    }
    assert_eq!(asked.len(), 5, "{asked:?}");
    drop(stdin);
    child.wait().expect("wait");
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).expect("report")).expect("json");
    let found: Vec<(&str, &str, &str)> = doc["issues"]
        .as_array()
        .expect("issues")
        .iter()
        .filter(|i| i["code"] == "server-request-undeclared-capability")
        .map(|i| {
            (
                i["location"]["request"].as_str().expect("request"),
                i["severity"].as_str().expect("severity"),
                i["message"].as_str().expect("message"),
            )
        })
        .collect();
    let methods: Vec<(&str, &str)> = found.iter().map(|(m, s, _)| (*m, *s)).collect();
    assert_eq!(
        methods,
        [
            // Warnings: the clients answer -32601 and go on (issue 32 item 3).
            ("sampling/createMessage", "warning"),
            ("elicitation/create", "warning")
        ],
        "{found:?}"
    );
    let sampling = found
        .iter()
        .find(|f| f.0 == "sampling/createMessage")
        .expect("sampling");
    assert!(sampling.2.contains("3 times"), "{}", sampling.2);
}

#[test]
fn a_flood_is_reported_and_the_stderr_lines_stay_bounded() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().expect("tempdir");
    let report = dir.path().join("session.json");
    let stderr_path = dir.path().join("stderr");
    let mut child = mcpcheck()
        .arg("proxy")
        .arg("--report")
        .arg(&report)
        .args([
            "--",
            python_command(),
            &fixture("floods_notifications_and_requests"),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&stderr_path).expect("stderr file"))
        .spawn()
        .expect("proxy");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n")
        .expect("write");
    let mut line = String::new();
    stdout.read_line(&mut line).expect("initialize answer");
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
        .expect("write");
    // Read the whole flood as a client would (all 7,000 messages), then close.
    let mut read = 0;
    while read < 7_000 {
        line.clear();
        if stdout.read_line(&mut line).expect("read") == 0 {
            break;
        }
        read += 1;
    }
    assert_eq!(read, 7_000);
    drop(stdin);
    child.wait().expect("wait");
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).expect("report")).expect("json");
    let floods: Vec<(&str, &str)> = doc["issues"]
        .as_array()
        .expect("issues")
        .iter()
        .filter(|i| i["code"] == "server-message-flood")
        .map(|i| {
            (
                i["detailCode"].as_str().expect("detail"),
                i["message"].as_str().expect("message"),
            )
        })
        .collect();
    assert_eq!(floods.len(), 2, "{floods:?}");
    assert!(
        floods.iter().any(|(d, m)| *d == "notification-flood"
            && m.contains("`notifications/message` notifications: 5000 in all")),
        "{floods:?}"
    );
    assert!(
        floods
            .iter()
            .any(|(d, m)| *d == "request-flood" && m.contains("`ping` requests: 2000 in all")),
        "{floods:?}"
    );
    // One compact line a message would be 7,000 lines; at 20 a second of each kind, plus
    // what was held back, it is a few hundred at most.
    let stderr = std::fs::read_to_string(&stderr_path).expect("stderr");
    let lines = stderr.lines().count();
    assert!(lines < 500, "{lines} stderr lines");
    assert!(
        stderr.contains("mcpcheck: ← notification notifications/message: ")
            && stderr.contains(" more lines not shown"),
        "{stderr}"
    );
    assert!(
        stderr.contains("mcpcheck: warning[server-message-flood] The server flooded the client with `notifications/message` notifications"),
        "{stderr}"
    );
}

#[test]
fn a_server_that_cannot_start_gets_a_report_of_the_published_shape() {
    let dir = tempfile::tempdir().expect("tempdir");
    let report = dir.path().join("report.json");
    let out = mcpcheck()
        .args(["proxy", "--name", "gone", "--report"])
        .arg(&report)
        .args(["--", "/nonexistent/mcp-server"])
        .stdin(Stdio::null())
        .output()
        .expect("proxy");
    assert_eq!(out.status.code(), Some(127));
    let text = std::fs::read_to_string(&report).expect("report");
    let doc = support::schema::validate_text(support::schema::ReportKind::Proxy, &text);
    assert_eq!(doc["session"]["messages"], 0);
    assert_eq!(doc["session"]["exitCode"], 127);
    assert_eq!(doc["session"]["name"], "gone");
    assert_eq!(doc["issues"][0]["code"], "spawn-failed");
}

/// One message through `proxy --log LOG -- cat`; returns the proxy's output.
fn proxied_with_log(log: &std::path::Path) -> std::process::Output {
    let mut child = mcpcheck()
        .args(["proxy", "--log"])
        .arg(log)
        .args(["--", "cat"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("proxy");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n")
        .expect("write");
    child.wait_with_output().expect("output")
}

#[test]
fn the_log_refuses_a_symlink_and_leaves_its_target_alone() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let target = dir.path().join("target.txt");
    std::fs::write(&target, "keep\n").expect("target");
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let link = dir.path().join("session.jsonl");
    std::os::unix::fs::symlink(&target, &link).expect("symlink");
    let dangling_target = dir.path().join("never.txt");
    let dangling = dir.path().join("dangling.jsonl");
    std::os::unix::fs::symlink(&dangling_target, &dangling).expect("symlink");
    for log in [&link, &dangling] {
        let out = proxied_with_log(log);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.contains("--log") && stderr.contains("symlink"),
            "{stderr}"
        );
        assert!(out.stdout.is_empty(), "the server ran");
    }
    assert_eq!(std::fs::read_to_string(&target).expect("target"), "keep\n");
    let mode = std::fs::metadata(&target)
        .expect("meta")
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o644, "the target's mode changed");
    assert!(
        !dangling_target.exists(),
        "created through a dangling symlink"
    );
}

#[test]
fn the_log_file_is_0600_new_or_tightened() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let mode =
        |p: &std::path::Path| std::fs::metadata(p).expect("meta").permissions().mode() & 0o777;
    let new = dir.path().join("new.jsonl");
    let out = proxied_with_log(&new);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(mode(&new), 0o600);
    let text = std::fs::read_to_string(&new).expect("log");
    // `cat` echoes the request: one line each way, each as the published schema says.
    let directions: Vec<serde_json::Value> = text
        .lines()
        .map(|l| {
            support::schema::validate_text(support::schema::ReportKind::ProxyLogLine, l)
                ["direction"]
                .clone()
        })
        .collect();
    assert_eq!(
        directions,
        ["client-to-server", "server-to-client"],
        "{text}"
    );
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("0600"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let old = dir.path().join("old.jsonl");
    std::fs::write(&old, "{\"earlier\":true}\n").expect("old log");
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let out = proxied_with_log(&old);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(mode(&old), 0o600);
    let notices: Vec<&str> = stderr.lines().filter(|l| l.contains("0600")).collect();
    assert_eq!(notices.len(), 1, "{stderr}");
    assert!(
        notices[0].contains("--log") && notices[0].contains("0644"),
        "{}",
        notices[0]
    );
    let text = std::fs::read_to_string(&old).expect("log");
    assert!(text.starts_with("{\"earlier\":true}\n"), "appended: {text}");
    assert_eq!(text.lines().count(), 3, "{text}");
}
