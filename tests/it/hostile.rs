//! The hostile corpus (issue 40): servers, manifests and Action inputs that try to make
//! mcpcheck say what is not so — a verdict the server's behaviour does not earn, or a
//! secret in an output.

use crate::support;
use support::guard::{guard, GuardResult};
use support::*;

/// Start-up lines a failing server could write to stderr to pass for a victim of its
/// environment: a missing credential, an unresolved or refused host, TLS, a failed fetch.
const DECOY_LINES: [&str; 7] = [
    "warning: OPENAI_API_KEY not set, using defaults",
    "getaddrinfo ENOTFOUND telemetry.example.com",
    "Error: connect ECONNREFUSED 127.0.0.1:6379",
    "telemetry disabled: Network is unreachable",
    "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed (update check)",
    "TypeError: fetch failed (update check skipped)",
    "Please set SLACK_BOT_TOKEN and SLACK_TEAM_ID environment variables",
];

fn decoyed(fail_by: &str, line: Option<&str>) -> GuardResult {
    let fail_by = format!("FAIL_BY={fail_by}");
    let decoy = line.map(|l| format!("DECOY_LINE={l}"));
    let mut options = vec!["--env", &fail_by];
    if let Some(d) = &decoy {
        options.extend(["--env", d]);
    }
    guard(
        &options,
        &[python_command(), &fixture("fails_after_a_stderr_line")],
    )
}

#[test]
fn no_stderr_line_moves_a_servers_own_failure_to_the_environment() {
    for (fail_by, code) in [
        ("answer", "capability-list-error"),
        ("crash", "server-crashed"),
    ] {
        let plain = decoyed(fail_by, None);
        assert_eq!(plain.exit, 1, "{fail_by}: {:#}", plain.json);
        let class = plain.issue(code)["class"].clone();
        assert_ne!(class, "environment");
        if fail_by == "answer" {
            assert_eq!(plain.status(), "fail", "{:#}", plain.json);
        }
        for line in DECOY_LINES {
            let r = decoyed(fail_by, Some(line));
            assert_eq!(
                r.status(),
                plain.status(),
                "{fail_by} with {line:?}: {:#}",
                r.json
            );
            assert_eq!(r.exit, 1, "{fail_by} with {line:?}");
            assert_eq!(r.issue(code)["class"], class, "{fail_by} with {line:?}");
            assert_eq!(r.issues(), plain.issues(), "{fail_by} with {line:?}");
        }
    }
}

/// Values given as secret: plain, and one holding a tab, a newline, a quote and a
/// backslash (as a PEM key does), whose escaped forms a report could leak instead.
const GIVEN: [&str; 2] = ["zq8ValueXyz123", "pem\t\"Line\\one\nLINE-two-Zx9Q"];

/// Every form of `secret` that must not appear: itself, each 8-character piece, its JSON-
/// and shell-escaped forms.
fn leaked_forms(secret: &str) -> Vec<String> {
    let chars: Vec<char> = secret.chars().collect();
    let mut forms: Vec<String> = chars.windows(8).map(|w| w.iter().collect()).collect();
    forms.push(secret.to_string());
    let json = serde_json::to_string(secret).expect("json");
    forms.push(json[1..json.len() - 1].to_string());
    forms.extend(
        json[1..json.len() - 1]
            .chars()
            .collect::<Vec<_>>()
            .windows(8)
            .map(|w| w.iter().collect::<String>()),
    );
    forms.push(shell_words::quote(secret).into_owned());
    forms
}

fn assert_no_leak(what: &str, output: &str, secret: &str) {
    for form in leaked_forms(secret) {
        assert!(
            !output.contains(&form),
            "{what} shows {form:?} of the secret:\n{output}"
        );
    }
}

/// `mcpcheck guard --format F ARGS` in each report format, with `envs` in mcpcheck's own
/// environment.
fn guard_in_every_format(
    args: &[&str],
    envs: &[(&str, &str)],
) -> Vec<(&'static str, std::process::Output)> {
    ["human", "json", "sarif", "markdown"]
        .into_iter()
        .map(|format| {
            let out = mcpcheck()
                .envs(envs.iter().copied())
                .args(["guard", "--format", format])
                .args(args)
                .output()
                .expect("run mcpcheck");
            (format, out)
        })
        .collect()
}

#[test]
fn a_value_given_with_env_never_appears_in_any_format_whatever_the_server_does_with_it() {
    for secret in GIVEN {
        let env = format!("GIVEN={secret}");
        let server = fixture("echoes_what_it_was_given");
        let args = ["--env", &env, "--", python_command(), &server];
        for (format, out) in guard_in_every_format(&args, &[]) {
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert_eq!(out.status.code(), Some(1), "{format}: {stdout}");
            assert!(stdout.contains("stdout-non-json"), "{format}: {stdout}");
            if format == "json" {
                // The server's words are in the report, with the value removed.
                assert!(stdout.contains("yyyyyyyy [REDACTED]"), "{stdout}");
            }
            assert_no_leak(format, &stdout, secret);
            assert_no_leak(format, &String::from_utf8_lossy(&out.stderr), secret);
        }
    }
}

#[test]
fn a_token_in_the_servers_name_is_masked_in_every_format() {
    let token = "ghp_R7mZq4XvB9tLw4ZpN8cYd3HsJ6fGa1QeU5oT";
    let server = fixture("echoes_what_it_was_given");
    let args = ["--", python_command(), &server];
    for (format, out) in guard_in_every_format(&args, &[("GIVEN", token)]) {
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("demo"), "{format}: {stdout}");
        assert_no_leak(format, &stdout, token);
    }
}

/// Sweeps `entries` (with `args`) into a results file; the sweep itself must succeed.
fn swept(
    entries: &[serde_json::Value],
    args: &[&str],
) -> (tempfile::TempDir, std::path::PathBuf, std::process::Output) {
    let dir = tempfile::tempdir().expect("tmp");
    let manifest = support::sweep::write_manifest(dir.path(), entries);
    let results = dir.path().join("results.jsonl");
    let mut argv = vec![
        manifest.to_str().expect("utf-8"),
        "--out",
        results.to_str().expect("utf-8"),
    ];
    argv.extend(args);
    let run = support::sweep::sweep(&argv);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    (dir, results, run)
}

/// Every key path of a JSON document (array items under `[]`), so two documents of the
/// same shape compare equal whatever their values.
fn key_paths(v: &serde_json::Value, at: &str, out: &mut std::collections::BTreeSet<String>) {
    match v {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                let path = format!("{at}/{k}");
                out.insert(path.clone());
                key_paths(v, &path, out);
            }
        }
        serde_json::Value::Array(items) => items
            .iter()
            .for_each(|v| key_paths(v, &format!("{at}[]"), out)),
        _ => {}
    }
}

#[test]
fn ordinary_variable_values_change_no_status_severity_key_or_count_of_a_sweep() {
    use support::sweep::lines;
    let envs = [
        ("MODE", "pass"),
        ("K", "status"),
        ("LOG_LEVEL", "error"),
        ("NODE_ENV", "test"),
        ("SEVERITY", "warning"),
        ("KIND", "issues"),
    ];
    let clean = fixture("clean");
    let mut entries =
        vec![serde_json::json!({"id": "plain", "command": [python_executable(), clean]})];
    for (i, (k, v)) in envs.iter().enumerate() {
        entries.push(serde_json::json!({
            "id": format!("env-{i}"),
            "command": [python_executable(), clean],
            "env": {*k: *v},
        }));
    }
    let (_dir, results, _) = swept(&entries, &[]);
    let lines = lines(&results);
    let plain = lines
        .iter()
        .find(|l| l["id"] == "plain")
        .expect("plain line");
    let shape = |l: &serde_json::Value| {
        let mut keys = std::collections::BTreeSet::new();
        key_paths(l, "", &mut keys);
        keys
    };
    for line in lines.iter().filter(|l| l["id"] != "plain") {
        assert_eq!(line["status"], plain["status"], "{line:#}");
        assert_eq!(line["status"], "pass", "{line:#}");
        assert_eq!(issue_pairs(line), issue_pairs(plain), "{line:#}");
        assert_eq!(
            line["summary"]["issueCounts"], plain["summary"]["issueCounts"],
            "{line:#}"
        );
        // The one key the entry adds: its variable's name in the fingerprint (the value
        // there is masked), not a key rewritten from a value.
        let i: usize = line["id"]
            .as_str()
            .and_then(|id| id.strip_prefix("env-")?.parse().ok())
            .expect("env-N");
        let mut b = shape(plain);
        b.insert(format!("/fingerprint/env/values/{}", envs[i].0));
        assert_eq!(shape(line), b, "{line:#}");
    }
    for format in ["human", "markdown"] {
        let report = mcpcheck()
            .args(["sweep-report", "--format", format])
            .arg(&results)
            .output()
            .expect("sweep-report");
        let text = String::from_utf8_lossy(&report.stdout);
        assert!(text.contains("7 working"), "{format}: {text}");
    }
    let sarif = mcpcheck()
        .args(["sweep-report", "--format", "sarif"])
        .arg(&results)
        .output()
        .expect("sweep-report");
    let doc: serde_json::Value = serde_json::from_slice(&sarif.stdout).expect("sarif");
    let levels: Vec<&serde_json::Value> = doc["runs"][0]["results"]
        .as_array()
        .map(|r| r.iter().map(|r| &r["level"]).collect())
        .unwrap_or_default();
    assert!(levels.iter().all(|l| *l != "error"), "{levels:?}");
}

#[test]
fn a_secret_url_variable_of_an_invalid_remote_is_not_quoted_in_its_reason() {
    use support::sweep::lines;
    let token = "UrlSecr3tValue77";
    let entries = vec![serde_json::json!({
        "id": "bad-scheme", "inputs": {"token": token},
        "server": {"name": "io.example/bad-scheme", "version": "1.0.0",
                   "remotes": [{"type": "streamable-http", "url": "ftp://mcp.example.com/{token}",
                                "variables": {"token": {"isRequired": true, "isSecret": true}}}]}
    })];
    let (_dir, results, _) = swept(&entries, &["--remote"]);
    let lines = lines(&results);
    assert_eq!(lines[0]["status"], "not-asked", "{:#}", lines[0]);
    assert!(
        lines[0]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("${token}")),
        "{:#}",
        lines[0]
    );
    assert_no_leak(
        "results",
        &std::fs::read_to_string(&results).expect("results"),
        token,
    );
    for format in ["human", "json", "markdown", "sarif"] {
        let report = mcpcheck()
            .args(["sweep-report", "--format", format])
            .arg(&results)
            .output()
            .expect("sweep-report");
        assert_no_leak(format, &String::from_utf8_lossy(&report.stdout), token);
    }
}

#[test]
fn a_header_value_the_server_repeats_never_appears_in_any_format() {
    let secret = "Hdr-v4lue-Qx71zz";
    let server = support::http::HttpServer::fixture("http_echoes_a_header");
    let header = format!("X-Custom-Auth={secret}");
    let url = server.url("/mcp");
    let args = ["--url", &url, "--header", &header];
    for (format, out) in guard_in_every_format(&args, &[]) {
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(!stdout.is_empty(), "{format}");
        if format == "json" {
            // The description is in the report, with the value removed.
            assert!(stdout.contains("zzzzzzzz [REDACTED]"), "{stdout}");
        }
        assert_no_leak(format, &stdout, secret);
        assert_no_leak(format, &String::from_utf8_lossy(&out.stderr), secret);
    }
}

#[test]
fn a_sweep_entrys_variable_the_server_repeats_is_in_no_result_or_report() {
    use support::sweep::lines;
    for secret in GIVEN {
        let entries = vec![serde_json::json!({
            "id": "echoes",
            "command": [python_executable(), fixture("echoes_what_it_was_given")],
            "env": {"GIVEN": secret},
        })];
        let (_dir, results, run) = swept(&entries, &[]);
        let text = std::fs::read_to_string(&results).expect("results");
        assert_eq!(lines(&results)[0]["status"], "fail", "{text}");
        // The server's words are kept, with the value shown by the variable's name.
        assert!(text.contains("yyyyyyyy ${GIVEN}"), "{text}");
        assert_no_leak("results", &text, secret);
        assert_no_leak("sweep", &String::from_utf8_lossy(&run.stdout), secret);
        assert_no_leak("sweep", &String::from_utf8_lossy(&run.stderr), secret);
        for format in ["human", "json", "markdown", "sarif"] {
            let report = mcpcheck()
                .args(["sweep-report", "--format", format])
                .arg(&results)
                .output()
                .expect("sweep-report");
            assert_no_leak(format, &String::from_utf8_lossy(&report.stdout), secret);
        }
    }
}

#[test]
fn a_configs_credential_a_live_server_repeats_is_in_no_scan_output() {
    let secret = "CfgT0ken-v4lue-Zq81";
    let dir = tempfile::tempdir().expect("tmp");
    let config = serde_json::json!({"mcpServers": {"echoes": {
        "command": "python3",
        "args": [fixture("echoes_what_it_was_given")],
        "env": {"API_TOKEN": secret},
    }}});
    std::fs::write(dir.path().join(".mcp.json"), config.to_string()).expect("config");
    for args in [
        &["scan", "--live", "--format", "human"][..],
        &["scan", "--live", "--format", "json"],
        &["scan", "--live", "--format", "sarif"],
        &["scan", "--live", "--format", "markdown"],
        &["inventory", "--live", "--format", "json"],
    ] {
        let out = support::scan::scan_command(dir.path())
            .args(args)
            .output()
            .expect("run mcpcheck");
        let stdout = String::from_utf8_lossy(&out.stdout);
        if args[0] == "inventory" {
            // The server's name is in the listing, with the value removed.
            assert!(stdout.contains("demo [REDACTED]"), "{stdout}");
        }
        assert_no_leak(&args.join(" "), &stdout, secret);
        assert_no_leak(
            &args.join(" "),
            &String::from_utf8_lossy(&out.stderr),
            secret,
        );
    }
}
