//! The command line: usage errors are one line with exit code 2, never a panic.

use crate::support;
use support::guard::*;
use support::*;

fn usage_error(args: &[&str]) -> String {
    let out = mcpcheck().args(args).output().expect("run");
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    assert!(out.stdout.is_empty(), "nothing on stdout for a usage error");
    let stderr = String::from_utf8(out.stderr).expect("utf-8");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr:?}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

#[test]
fn usage_errors_are_one_line_with_exit_code_2() {
    assert!(usage_error(&["guard"]).contains("no server command"));
    assert!(usage_error(&["guard", "--protocol"]).contains("--protocol <VERSION>"));
    assert!(usage_error(&["guard", "--bogus", "--", "x"]).contains("--bogus"));
    assert!(usage_error(&["frobnicate"]).contains("frobnicate"));
    assert!(usage_error(&["guard", "--timeout", "soon", "--", "x"]).contains("soon"));
    assert!(usage_error(&["guard", "--protocol", "1999-01-01", "--", "x"]).contains("1999-01-01"));
    assert!(usage_error(&["guard", "--params", "{}", "--", "x"]).contains("--params"));
    assert!(
        usage_error(&["guard", "--request", "ping", "--params", "{nope", "--", "x"])
            .contains("invalid JSON")
    );
    assert!(
        usage_error(&["guard", "--cwd", "/nonexistent/dir", "--", "x"]).contains("not a directory")
    );
    assert!(usage_error(&["guard", "--env", "NOEQUALS", "--", "x"]).contains("KEY=VALUE"));
    assert!(usage_error(&["explain", "no-such-code"]).contains("mcpcheck rules"));
}

#[test]
fn typos_get_the_nearest_name_and_the_help_of_their_subcommand() {
    assert_eq!(
        usage_error(&["guard", "--timout", "100", "--", "x"]),
        "mcpcheck: error: unexpected argument '--timout' found; did you mean '--timeout'?; see `mcpcheck guard --help`\n"
    );
    assert_eq!(
        usage_error(&["sorce", "."]),
        "mcpcheck: error: unrecognized subcommand 'sorce'; did you mean 'surface' or 'source'?; see `mcpcheck --help`\n"
    );
    assert!(usage_error(&["guard", "--format", "xml", "--", "x"])
        .ends_with("; see `mcpcheck guard --help`\n"));
    assert_eq!(
        usage_error(&["explain", "stdout-non-jsn"]),
        "mcpcheck: error: unknown code \"stdout-non-jsn\" (did you mean stdout-non-json?); `mcpcheck rules` lists them\n"
    );
    // Codes are case-insensitive.
    let out = mcpcheck()
        .args(["explain", "STDOUT-NON-JSON"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("stdout-non-json ("));
}

#[test]
fn common_mistakes_get_the_hint_that_fixes_them() {
    // Issue 44 item 5: no word about `--`, and `--runs` was "did you mean '--request'?".
    assert_eq!(
        usage_error(&["guard", "node", "dist/index.js"]),
        "mcpcheck: error: unexpected argument 'node' found; the server command goes after `--`: mcpcheck guard -- node dist/index.js; see `mcpcheck guard --help`\n"
    );
    assert_eq!(
        usage_error(&["guard", "--json", "node", "dist/index.js"]),
        "mcpcheck: error: unexpected argument 'node' found; the server command goes after `--`: mcpcheck guard --json -- node dist/index.js; see `mcpcheck guard --help`\n"
    );
    assert_eq!(
        usage_error(&["guard", "--runs", "3", "--", "x"]),
        "mcpcheck: error: unexpected argument '--runs' found; did you mean '--repeat'?; see `mcpcheck guard --help`\n"
    );
}

#[test]
fn times_take_units_and_a_short_bare_number_is_warned_about() {
    // Issue 44 item 5: `--timeout 5` was silently 5 ms, and the fix then blamed buffering.
    let clean = [python_command(), &fixture("clean")];
    let r = guard(&["--timeout", "5s", "--shutdown-grace", "2s"], &clean);
    assert_eq!(r.issues(), pairs(&[]), "{:#}", r.json["issues"]);
    assert_eq!(r.json["process"]["timeoutMs"], 5000);
    assert!(!r.stderr.contains("warning"), "{}", r.stderr);

    // A bare number stays milliseconds, and one this short is named as such.
    let r = guard(&["--timeout", "5", "--settle", "10s"], &clean);
    assert_eq!(r.json["process"]["timeoutMs"], 5);
    assert_eq!(
        r.stderr.lines().next(),
        Some("mcpcheck: warning: --timeout 5 is 5 milliseconds (a bare number is milliseconds); write 5s for seconds, or 5ms to keep it and silence this")
    );
    let issue = r.issue("initialize-timeout");
    let fix = issue["fix"].as_str().expect("fix");
    assert!(fix.contains("raise --timeout"), "{fix}");
    assert!(!fix.contains("PYTHONUNBUFFERED"), "{fix}");
    assert!(
        issue["message"]
            .as_str()
            .expect("message")
            .contains("past the timeout"),
        "{issue:#}"
    );
}

#[test]
fn explain_takes_a_code_as_a_report_spells_it() {
    // Issue 44 item 9: `explain error[stdout-non-json]`, pasted from a report, was refused.
    for pasted in [
        "error[stdout-non-json]",
        "warning[stdout-non-json]",
        "stdout-non-json:",
    ] {
        let out = mcpcheck().args(["explain", pasted]).output().expect("run");
        assert_eq!(out.status.code(), Some(0), "{pasted}");
        assert!(
            String::from_utf8_lossy(&out.stdout).starts_with("stdout-non-json ("),
            "{pasted}"
        );
    }
}

/// Runs the binary in `dir` with `args`: (exit code, stdout, stderr).
fn run_in(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let out = mcpcheck_in(dir).args(args).output().expect("run");
    (
        out.status.code().expect("exit code"),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn small_things_of_first_contact() {
    // Issue 44 item 11.
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("server.py"), "print('one')\nprint('two')\n").expect("write");

    // `mcpcheck` alone asked for nothing: the help, and a usage error's exit code.
    let (code, stdout, stderr) = run_in(dir.path(), &[]);
    assert_eq!(code, 2);
    assert!(stdout.is_empty(), "{stdout}");
    assert!(stderr.contains("Usage: mcpcheck"), "{stderr}");

    // `mcpcheck source` scans the current directory, as ruff does.
    let (code, stdout, _) = run_in(dir.path(), &["source", "--json"]);
    assert_eq!(code, 0, "{stdout}");
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    assert_eq!(report["issues"].as_array().map(Vec::len), Some(2));

    // Findings after the first are set apart by a blank line too.
    let (_, text, _) = run_in(dir.path(), &["source"]);
    let (_, guard_text, _) = run_in(
        dir.path(),
        &["guard", "--", python_command(), &fixture("hostile_output")],
    );
    for text in [&text, &guard_text] {
        let lines: Vec<&str> = text.lines().collect();
        let heads: Vec<usize> = (0..lines.len())
            .filter(|&i| lines[i].starts_with("error[") || lines[i].starts_with("warning["))
            .collect();
        assert!(heads.len() >= 2, "{text}");
        for i in heads {
            assert_eq!(
                lines[i - 1],
                "",
                "a blank line before {:?}:\n{text}",
                lines[i]
            );
        }
    }

    // A source scan ran no server: its Markdown has no empty "What was run" table.
    let (_, markdown, _) = run_in(dir.path(), &["source", "--format", "markdown"]);
    assert!(markdown.contains("server.py"), "{markdown}");
    assert!(!markdown.contains("What was run"), "{markdown}");

    // A server whose version is empty is shown by its name, with no trailing blank.
    let (_, text, _) = run_in(
        dir.path(),
        &[
            "guard",
            "--",
            python_command(),
            &fixture("empty_server_version"),
        ],
    );
    let line = text.lines().nth(1).expect("the protocol line");
    assert!(line.ends_with("· server: weather"), "{line:?}");
}

#[test]
fn the_tool_points_to_its_own_fixes() {
    // Issue 44 item 8: no report mentioned --fix, and a stray-stdout finding never
    // suggested --scan or `mcpcheck source`.
    let r = guard_fixture("banner_before_initialize", &[]);
    let fix = r.issue("stdout-non-json")["fix"]
        .as_str()
        .expect("fix")
        .to_string();
    assert!(
        fix.contains("`--scan DIR`") && fix.contains("`mcpcheck source DIR`"),
        "{fix}"
    );
    // With the source scanned, the finding names the write instead.
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("server.py"),
        "print('Starting fixture server v1')\n",
    )
    .expect("write");
    let scanned = guard_fixture(
        "banner_before_initialize",
        &["--scan", dir.path().to_str().expect("utf-8")],
    );
    let issue = scanned.issue("stdout-non-json");
    assert!(
        !issue["fix"].as_str().unwrap_or("").contains("--scan"),
        "{issue:#}"
    );

    // The source report says how many findings `--fix` rewrites, as ruff does.
    let out = mcpcheck_in(dir.path())
        .args(["source", "."])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.ends_with("[*] 1 fixable with `mcpcheck source --fix .` (`--diff` instead of `--fix` shows the rewrites first)\n"),
        "{text}"
    );
}

#[test]
fn guard_help_is_grouped_by_purpose_and_ends_with_examples() {
    // Issue 44 item 10: `guard --help` was 122 lines in one flat list with no examples.
    let help = |flag: &str| {
        let out = mcpcheck().args(["guard", flag]).output().expect("run");
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8(out.stdout).expect("utf-8")
    };
    let long = help("--help");
    for heading in [
        "Configuration:",
        "Server:",
        "Session:",
        "Timing:",
        "Limits:",
        "Report:",
        "Source scan:",
    ] {
        assert!(
            long.contains(&format!("\n{heading}\n")),
            "{heading}\n{long}"
        );
    }
    let examples = long.split("\nExamples:\n").nth(1).expect("examples last");
    let commands: Vec<&str> = examples
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("mcpcheck guard "))
        .collect();
    assert_eq!(commands.len(), 3, "{examples}");
    // -h stays short: the same groups, no examples.
    let short = help("-h");
    assert!(short.contains("\nTiming:\n"), "{short}");
    assert!(!short.contains("Examples:"), "{short}");
    assert!(short.lines().count() < long.lines().count());
    // Short: the everyday options only; limits and tuning are in --help.
    assert!(short.lines().count() <= 50, "{short}");
    assert!(
        short.contains("--timeout") && short.contains("--output"),
        "{short}"
    );
    assert!(
        !short.contains("--max-stdout-bytes") && !short.contains("--settle"),
        "{short}"
    );

    // The first example runs as written, on a server named server.py.
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::copy(
        repo().join("examples/servers/hello.py"),
        dir.path().join("server.py"),
    )
    .expect("copy");
    let words: Vec<&str> = commands[0].split_whitespace().skip(1).collect();
    let out = mcpcheck_in(dir.path()).args(&words).output().expect("run");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn an_unknown_process_backend_is_refused() {
    // Issue 44 item 13: MCPCHECK_PROCESS_BACKEND=protable silently ran the default backend.
    let out = mcpcheck()
        .env("MCPCHECK_PROCESS_BACKEND", "protable")
        .args(["guard", "--", python_command(), &fixture("clean")])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "mcpcheck: error: MCPCHECK_PROCESS_BACKEND is \"protable\", which names no process backend; the known ones are subreaper (Linux's, the default there) and portable (any Unix); unset it for the default\n"
    );
}

#[test]
fn output_file_that_cannot_be_written_is_a_usage_error() {
    let stderr = usage_error(&[
        "guard",
        "--output",
        "/nonexistent/dir/report.json",
        "--",
        python_command(),
        &fixture("clean"),
    ]);
    assert!(stderr.contains("/nonexistent/dir/report.json"));
}

#[test]
fn output_file_receives_the_report() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("report.json");
    let out = mcpcheck()
        .args(["guard", "--format", "json", "--output"])
        .arg(&path)
        .args(["--", python_command(), &fixture("banner_before_initialize")])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).expect("report written")).expect("json");
    assert_eq!(report["schemaVersion"], 1);
    assert_eq!(report["summary"]["primaryIssueCode"], "stdout-non-json");
}

#[test]
fn human_output_has_a_headline_and_each_finding_with_its_fix() {
    let out = mcpcheck()
        .args([
            "guard",
            "--",
            python_command(),
            &fixture("banner_before_initialize"),
        ])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(text.starts_with("FAIL  mcpcheck guard: python3 "), "{text}");
    assert!(
        text.contains("error[stdout-non-json] stdout line 1"),
        "{text}"
    );
    assert!(
        text.contains("evidence: Starting fixture server v1"),
        "{text}"
    );
    assert!(text.contains("fix: "), "{text}");
    assert!(
        !text.contains('\x1b'),
        "no colour when stdout is not a terminal"
    );
}

#[test]
fn secrets_in_argv_and_env_never_reach_the_report() {
    let secret = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    let out = mcpcheck()
        .args([
            "guard",
            "--json",
            "--env",
            "API_TOKEN=hunter2-very-secret",
            "--",
        ])
        .args([
            python_command(),
            &fixture("clean"),
            "--token",
            "plain-secret-value",
            secret,
        ])
        .output()
        .expect("run");
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert_eq!(out.status.code(), Some(0), "{text}");
    for leaked in ["hunter2-very-secret", "plain-secret-value", secret] {
        assert!(!text.contains(leaked), "{leaked} leaked into {text}");
    }
    assert!(text.contains("API_TOKEN=[REDACTED]"));
}

#[test]
fn explain_and_rules_come_from_the_catalog() {
    let out = mcpcheck()
        .args(["explain", "stdout-non-json"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(text.starts_with(
        "stdout-non-json (A line on stdout is not JSON, stdioTransport, default error)"
    ));
    let out = mcpcheck().arg("rules").output().expect("run");
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert_eq!(text.lines().count(), mcpcheck::catalog::ALL.len());
}

#[test]
fn env_reaches_the_server() {
    // The clean fixture echoes; a server that needs a variable to start is the usual case.
    let r = guard(
        &["--env", "MCPCHECK_TEST_VAR=1"],
        &[
            "sh",
            "-c",
            r#"test "$MCPCHECK_TEST_VAR" = 1 && exec python3 "$0""#,
            &fixture("clean"),
        ],
    );
    assert_eq!(r.issues(), pairs(&[]), "{:#}", r.json["issues"]);
}

/// `--json` with a `--format` that is not json asks for two formats: a usage error (exit 2,
/// one line) in every subcommand that has both, before any work; `--json --format json` agrees.
#[test]
fn json_and_a_different_format_are_a_usage_error_in_every_subcommand() {
    use clap::CommandFactory;
    let dir = tempfile::tempdir().expect("tempdir");
    let base = base_args(dir.path());
    let cli = mcpcheck::app::cli::Cli::command();
    let mut checked = 0;
    for sub in cli.get_subcommands() {
        let (Some(format), true) = (
            sub.get_arguments().find(|a| a.get_id() == "format"),
            sub.get_arguments().any(|a| a.get_id() == "json"),
        ) else {
            continue;
        };
        let args = &base
            .iter()
            .find(|(name, _)| *name == sub.get_name())
            .unwrap_or_else(|| panic!("no base arguments for `{}`: add them", sub.get_name()))
            .1;
        let split = args.iter().position(|a| a == "--").unwrap_or(args.len());
        for value in format.get_possible_values() {
            let mut cmd = mcpcheck();
            cmd.arg(sub.get_name())
                .args(["--json", "--format", value.get_name()])
                .args(&args[..split])
                .args(&args[split..])
                .stdin(std::process::Stdio::null());
            let out = cmd.output().expect("run");
            let stderr = String::from_utf8_lossy(&out.stderr);
            if value.get_name() == "json" {
                assert_ne!(
                    out.status.code(),
                    Some(2),
                    "{} --json --format json: {stderr}",
                    sub.get_name()
                );
                let doc: serde_json::Value =
                    serde_json::from_slice(&out.stdout).expect("--json --format json is JSON");
                assert!(doc.get("$schema").is_none(), "{}", sub.get_name());
                continue;
            }
            assert_eq!(
                out.status.code(),
                Some(2),
                "{} --json --format {}: {stderr}",
                sub.get_name(),
                value.get_name()
            );
            assert!(
                out.stdout.is_empty(),
                "{}: {}",
                sub.get_name(),
                String::from_utf8_lossy(&out.stdout)
            );
            assert_eq!(stderr.lines().count(), 1, "{stderr}");
            assert!(
                stderr.contains(&format!("--json and --format {}", value.get_name()))
                    && stderr.contains("give one"),
                "{stderr}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 8, "only {checked} subcommand/format pairs found");
}

/// Arguments that make each subcommand with `--format` run on a fixture.
fn base_args(dir: &std::path::Path) -> Vec<(&'static str, Vec<String>)> {
    let results = dir.join("results.jsonl");
    // A whole line: sweep-report reads each field it shows, and counts a partial line as unreadable.
    let line = serde_json::json!({
        "id": "x", "status": "pass", "startedAt": "2026-01-01T00:00:00.000Z", "wallMs": 1,
        "summary": {"issueClass": "", "primaryIssueCode": "", "issueCounts": {"error": 0, "warning": 0}},
        "issues": [], "command": ["true"], "serverInfo": null,
    });
    std::fs::write(&results, format!("{line}\n")).expect("results");
    let listing = repo().join("tests/fixtures/listings");
    let first_listing = std::fs::read_dir(&listing)
        .expect("listings")
        .map(|e| e.expect("entry").path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .expect("a listing");
    let clean = fixture("clean");
    let report_arg = dir.join("proxy.json").display().to_string();
    vec![
        (
            "guard",
            vec!["--".into(), python_command().into(), clean.clone()],
        ),
        (
            "source",
            vec![repo().join("tests/fixtures/source").display().to_string()],
        ),
        ("surface", vec![first_listing.display().to_string()]),
        (
            "scan",
            vec![repo()
                .join("tests/fixtures/configs/credential_in_url.benign.json")
                .display()
                .to_string()],
        ),
        (
            "inventory",
            vec![repo().join("tests/fixtures/configs").display().to_string()],
        ),
        ("sweep-report", vec![results.display().to_string()]),
        (
            "proxy",
            vec![
                "--report".into(),
                report_arg,
                "--".into(),
                python_command().into(),
                clean,
            ],
        ),
    ]
}

/// Every `--format` value that `--help` offers is accepted by its subcommand.
#[test]
fn every_format_a_subcommand_offers_works() {
    use clap::CommandFactory;
    let dir = tempfile::tempdir().expect("tempdir");
    let base = base_args(dir.path());
    let cli = mcpcheck::app::cli::Cli::command();
    let mut checked = 0;
    for sub in cli.get_subcommands() {
        let Some(format) = sub.get_arguments().find(|a| a.get_id() == "format") else {
            continue;
        };
        let args = &base
            .iter()
            .find(|(name, _)| *name == sub.get_name())
            .unwrap_or_else(|| panic!("no base arguments for `{}`: add them", sub.get_name()))
            .1;
        for value in format.get_possible_values() {
            let mut cmd = mcpcheck();
            cmd.arg(sub.get_name()).args(["--format", value.get_name()]);
            // Flags before `--`; the server command after.
            let split = args.iter().position(|a| a == "--").unwrap_or(args.len());
            cmd.args(&args[..split]).args(&args[split..]);
            let out = cmd
                .stdin(std::process::Stdio::null())
                .output()
                .expect("run");
            assert_ne!(
                out.status.code(),
                Some(2),
                "`{} --format {}` is offered but refused: {}",
                sub.get_name(),
                value.get_name(),
                String::from_utf8_lossy(&out.stderr)
            );
            checked += 1;
        }
    }
    assert!(
        checked >= 20,
        "only {checked} subcommand/format pairs found"
    );
}

#[test]
fn config_env_expands_variables_from_mcpchecks_environment() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("mcpcheck.json");
    let server = fixture("clean");
    std::fs::write(
        &config,
        serde_json::json!({
            "command": ["sh", "-c", r#"test "$API_KEY" = "Bearer s3cr3t-value" && exec python3 "$0""#, server],
            "env": {"API_KEY": "Bearer ${env:MCPCHECK_TEST_SECRET}"}
        })
        .to_string(),
    )
    .expect("config");
    let out = mcpcheck()
        .args(["guard", "--json", "--config"])
        .arg(&config)
        .env("MCPCHECK_TEST_SECRET", "s3cr3t-value")
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        !text.contains("s3cr3t-value"),
        "the value reached the report"
    );
    // Unset: exit 2 before the server starts, naming the variable and not the value.
    let out = mcpcheck()
        .args(["guard", "--json", "--config"])
        .arg(&config)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("${MCPCHECK_TEST_SECRET} is not set"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn proxy_output_paths_that_cannot_be_written_fail_before_the_server_starts() {
    let dir = tempfile::tempdir().expect("tempdir");
    let marker = dir.path().join("server-started");
    let missing = dir.path().join("no/such/dir/file");
    for flag in ["--log", "--report", "--sarif"] {
        let out = mcpcheck()
            .args(["proxy", flag])
            .arg(&missing)
            .args(["--", "touch"])
            .arg(&marker)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(2), "{flag}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{flag}: {stderr}");
        assert!(stderr.contains(flag), "{flag}: {stderr}");
        assert!(
            stderr.contains("the directory does not exist"),
            "{flag}: {stderr}"
        );
        assert!(!marker.exists(), "{flag}: the server was started");
    }
}
