//! What the step checks and reports: the scan inputs, fail_on, the summary and log, a remote server, and parity with `mcpcheck guard`.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_scan_input_names_the_line_that_printed_stray_stdout() {
    // The fixture prints "late log line"; the source under `scan` has the write that would.
    let mut runner = Runner::new("late_stdout_write", None);
    let src = runner.ws.path().join("src");
    std::fs::create_dir_all(&src).expect("src");
    std::fs::write(
        src.join("logger.py"),
        "def usage():\n    print(\"usage: logger\")\n\n\ndef log(what):\n    print(f\"late {what} line\")\n",
    )
    .expect("source");
    runner.input("scan", "src").input("comment", "false");
    let step = runner.run().await;
    assert_eq!(step.exit, 1, "{}", step.log);
    let doc = validate_sarif(&std::fs::read_to_string(runner.sarif()).expect("SARIF"));
    let result = doc["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|r| r["ruleId"] == "stdout-non-json")
        .expect("a stdout-non-json result")
        .clone();
    let related = result["relatedLocations"].as_array().expect("related");
    assert_eq!(related.len(), 1, "{result:#}");
    let at = &related[0]["physicalLocation"];
    assert_eq!(at["artifactLocation"]["uri"], "src/logger.py");
    assert_eq!(at["region"]["startLine"], 6);
    assert_eq!(result["locations"][0]["physicalLocation"], *at);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_scan_input_nothing_is_said_of_a_scan_only_how_to_ask_for_one() {
    // Issue 44 item 2: without `scan`, the log and the summary said "printed by: no stdout
    // write in the scanned source prints this line" of a scan that never ran.
    let mut runner = Runner::new("late_stdout_write", None);
    runner.input("comment", "false");
    let step = runner.run().await;
    assert_eq!(step.exit, 1, "{}", step.log);
    for (name, text) in [("log", &step.log), ("summary", &step.summary)] {
        assert!(text.contains("stdout-non-json"), "{name}: {text}");
        assert!(!text.contains("scanned source"), "{name}: {text}");
        assert!(!text.contains("printed by"), "{name}: {text}");
        assert!(text.contains("add `scan: src`"), "{name}: {text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_banner_held_in_python_s_buffer_fails_the_step() {
    // Issue 44 item 1: the banner came at exit, after the session, and the step passed.
    let mut runner = Runner::new("banner_held_in_buffer", None);
    runner.input("comment", "false");
    let step = runner.run().await;
    assert_eq!(step.exit, 1, "{}", step.log);
    let doc = validate_sarif(&std::fs::read_to_string(runner.sarif()).expect("SARIF"));
    assert!(
        doc["runs"][0]["results"]
            .as_array()
            .expect("results")
            .iter()
            .any(|r| r["ruleId"] == "stdout-non-json"),
        "{doc:#}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_security_and_source_scans_run_on_their_inputs() {
    let mut runner = Runner::new("clean", None);
    let cursor = runner.ws.path().join(".cursor");
    std::fs::create_dir_all(&cursor).expect("dir");
    // A hard-coded token in a committed config: the scan's findings join the guard's.
    std::fs::write(
        cursor.join("mcp.json"),
        "{\n  \"mcpServers\": {\n    \"gh\": {\"command\": \"gh-mcp\", \"env\": {\"GITHUB_TOKEN\": \"ghp_abcdefghijklmnopqrstuvwxyz0123456789\"}}\n  }\n}\n",
    )
    .expect("config");
    // And a stdout write in the server's source: the source scan's finding joins them.
    let src = runner.ws.path().join("src");
    std::fs::create_dir_all(&src).expect("src");
    std::fs::write(src.join("server.js"), "// start\nconsole.log(\"ready\");\n").expect("source");
    runner
        .input("scan", "src")
        .input("paths", ".cursor/mcp.json")
        .input("comment", "false");
    let step = runner.run().await;
    assert_eq!(step.exit, 1, "{}", step.log);
    assert!(!step
        .log
        .contains("ghp_abcdefghijklmnopqrstuvwxyz0123456789"));
    assert!(!step
        .summary
        .contains("ghp_abcdefghijklmnopqrstuvwxyz0123456789"));
    let sarif = std::fs::read_to_string(runner.sarif()).expect("SARIF");
    assert!(!sarif.contains("ghp_abcdefghijklmnopqrstuvwxyz0123456789"));
    let doc = validate_sarif(&sarif);
    let secret = doc["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|r| r["ruleId"] == "hardcoded-secret")
        .expect("a hardcoded-secret result")
        .clone();
    let location = &secret["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], ".cursor/mcp.json");
    assert_eq!(location["region"]["startLine"], 3);
    let write = doc["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|r| r["ruleId"] == "static-stdout-write")
        .expect("a static-stdout-write result")
        .clone();
    let location = &write["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], "src/server.js");
    assert_eq!(location["region"]["startLine"], 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fail_on_decides_the_exit_code() {
    // A warning and nothing worse (tool-description-missing, used before, became a note).
    let mut runner = Runner::new("empty_line", None);
    runner.input("comment", "false");
    let step = runner.run().await;
    assert_eq!(
        (step.exit, step.outputs["status"].as_str()),
        (0, "warning"),
        "{}",
        step.log
    );
    assert!(
        step.log
            .contains("::warning file=pyproject.toml,line=1,title=mcpcheck stdout-empty-line::"),
        "{}",
        step.log
    );
    runner.input("fail_on", "warning");
    assert_eq!(runner.run().await.exit, 1);
    let mut failing = Runner::new("banner_before_initialize", None);
    failing.input("comment", "false").input("fail_on", "never");
    let step = failing.run().await;
    assert_eq!((step.exit, step.outputs["ok"].as_str()), (0, "false"));
    failing.input("fail_on", "sometimes");
    let step = failing.run().await;
    assert_eq!(step.exit, 2);
    assert_eq!(step.stderr.lines().count(), 1, "{}", step.stderr);
    assert!(step.stderr.contains("fail_on"), "{}", step.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_summary_headline_names_the_primary_issue_json_names() {
    // Two critical findings: the headline must name the one the scan's JSON and human
    // reports put first (risk first, then place), not the first code by name.
    let fixture = "tests/fixtures/configs/primary_issue_same_in_every_format.json";
    let mut runner = Runner::new("clean", None);
    std::fs::copy(
        support::repo().join(fixture),
        runner.ws.path().join(".mcp.json"),
    )
    .expect("config");
    runner.input("paths", ".mcp.json").input("comment", "false");
    let step = runner.run().await;
    assert_eq!(step.exit, 1, "{}", step.log);
    let headline = step
        .summary
        .lines()
        .find(|l| l.starts_with("**FAIL"))
        .unwrap_or_else(|| panic!("no headline in:\n{}", step.summary));
    assert!(
        headline.starts_with("**FAIL\\: remote\\-script\\-execution \\("),
        "{headline}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_log_report_tells_the_verdict_the_scans_decide() {
    let mut runner = Runner::new("clean", None);
    let cursor = runner.ws.path().join(".cursor");
    std::fs::create_dir_all(&cursor).expect("dir");
    std::fs::write(
        cursor.join("mcp.json"),
        "{\"mcpServers\": {\"gh\": {\"command\": \"gh-mcp\", \"env\": {\"GITHUB_TOKEN\": \"ghp_abcdefghijklmnopqrstuvwxyz0123456789\"}}}}\n",
    )
    .expect("config");
    // Only its owner may read it: the verdict here is about hardcoded-secret alone.
    std::fs::set_permissions(
        cursor.join("mcp.json"),
        std::os::unix::fs::PermissionsExt::from_mode(0o600),
    )
    .expect("chmod");
    // Only its owner may read it: the verdict here is about hardcoded-secret alone.
    std::fs::set_permissions(
        cursor.join("mcp.json"),
        std::os::unix::fs::PermissionsExt::from_mode(0o600),
    )
    .expect("chmod");
    std::fs::write(
        runner.ws.path().join("server.js"),
        "console.log(\"ready\");\n",
    )
    .expect("src");
    runner
        .input("paths", ".cursor/mcp.json")
        .input("scan", "server.js")
        .input("comment", "false");
    let step = runner.run().await;
    assert_eq!(
        (step.exit, step.outputs["status"].as_str()),
        (1, "fail"),
        "{}",
        step.log
    );
    let report = step
        .log
        .split("::group::mcpcheck report")
        .nth(1)
        .expect("the report group");
    assert!(!report.contains("PASS"), "{report}");
    assert!(report.contains("FAIL  mcpcheck guard"), "{report}");
    assert!(report.contains("error[hardcoded-secret]"), "{report}");
    assert!(report.contains("1 error"), "{report}");
    assert!(
        step.summary.contains("mcpcheck guard: FAIL"),
        "{}",
        step.summary
    );
    assert!(
        step.summary.contains("mcpcheck scan .cursor/mcp.json"),
        "{}",
        step.summary
    );
    // The guard job scans the `scan` paths itself: its line reproduces both.
    assert!(
        step.summary
            .contains("mcpcheck guard --scan server.js -- python3 clean.py"),
        "{}",
        step.summary
    );

    // The scans alone: the same verdict, headline first.
    runner.env.remove("INPUT_COMMAND");
    let step = runner.run().await;
    assert_eq!(
        (step.exit, step.outputs["status"].as_str()),
        (1, "fail"),
        "{}",
        step.log
    );
    let report = step
        .log
        .split("::group::mcpcheck report")
        .nth(1)
        .expect("the report group");
    assert!(
        report.contains("FAIL: hardcoded-secret (1 error, 1 warning)"),
        "{report}"
    );
    assert!(!report.contains("PASS"), "{report}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_url_input_guards_a_remote_server_and_never_shows_its_headers() {
    let server = support::http::HttpServer::fixture("http_no_origin_check");
    let secret = "mcp-token-5f1e2d3c4b5a69788796a5b4c3d2e1f0";
    let mut runner = Runner::new("clean", None);
    runner
        .input("command", "")
        .input("url", &server.url("/mcp"))
        .input(
            "headers",
            &format!("Authorization=Bearer {secret}\nX-Team=core"),
        )
        .input("comment", "false");
    let step = runner.run().await;
    assert_eq!(
        (step.exit, step.outputs["status"].as_str()),
        (0, "warning"),
        "{}{}",
        step.log,
        step.stderr
    );
    assert!(
        step.log
            .contains("title=mcpcheck http-origin-not-validated::"),
        "{}",
        step.log
    );
    let sarif = std::fs::read_to_string(runner.ws.path().join("mcpcheck.sarif")).expect("sarif");
    for (what, text) in [
        ("log", &step.log),
        ("stderr", &step.stderr),
        ("summary", &step.summary),
        ("sarif", &sarif),
    ] {
        assert!(!text.contains(secret), "{what} shows the header value");
    }
    // The invocation names the headers, never their values.
    assert!(sarif.contains("--header 'X-Team=<redacted>'"), "{sarif}");
    assert!(sarif.contains("--header 'Authorization="), "{sarif}");

    runner.input("url", "http://10.9.8.7/mcp");
    let step = runner.run().await;
    assert_eq!(step.exit, 2, "{}", step.stderr);
    assert_eq!(step.stderr.trim().lines().count(), 1, "{}", step.stderr);
    assert!(step.stderr.contains("input `url`"), "{}", step.stderr);
}

/// What differs between two runs of one server: the durations.
fn without_durations(markdown: &str) -> String {
    let mut out = String::new();
    for word in markdown.split_inclusive(' ') {
        let digits = word.trim_end().trim_end_matches(" ms");
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            out.push_str("N ");
        } else {
            out.push_str(word);
        }
    }
    out.trim_end().to_string()
}

/// The Action runs the guard job `mcpcheck guard` runs: for the same server and `scan`, its
/// job summary is the CLI's Markdown report (the source scan a `static` check in both), but
/// for the note on the step's environment, which only the Action has.
#[tokio::test]
async fn the_job_summary_is_the_guards_markdown_for_the_same_inputs() {
    let mut runner = Runner::new("clean", None);
    let src = runner.ws.path().join("src");
    std::fs::create_dir(&src).expect("src");
    std::fs::write(src.join("app.py"), "import sys\nprint(\"hello banner\")\n").expect("app.py");
    runner.input("scan", "src").input("comment", "false");
    let step = runner.run().await;
    assert_eq!(step.exit, 0, "{}{}", step.log, step.stderr);
    // In the same job: the runner's GITHUB_* variables (which make paths links), no inputs.
    let cli = support::mcpcheck()
        .current_dir(runner.ws.path())
        .envs(runner.env.iter().filter(|(k, _)| k.starts_with("GITHUB_")))
        .args(["guard", "--format", "markdown", "--scan", "src", "--"])
        .args(["python3", "clean.py"])
        .output()
        .expect("run mcpcheck guard");
    let cli = String::from_utf8_lossy(&cli.stdout).into_owned();
    assert!(cli.contains("| static | ⚠️ warning |"), "{cli}");
    let environment_note = step
        .summary
        .lines()
        .find(|l| l.starts_with("- Setup and server environment"))
        .expect("the Action's note on the environment")
        .to_string();
    // Only that note goes: others (the portable backend's on leftover processes) are in both.
    let summary = step
        .summary
        .replace(&format!("{environment_note}\n"), "")
        .replace("### Notes\n\n\n", "");
    assert_eq!(without_durations(&summary), without_durations(&cli));
}
