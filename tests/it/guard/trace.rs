//! `guard --scan` traces stray stdout to the source line that printed it: a template literal,
//! an f-string, a logger wrapper in another file (tests/fixtures/trace), in JSON, human,
//! Markdown and SARIF; writes that cannot print the line (usage text, a debug branch) are
//! never named, and a line no write matches says so.

use crate::support;
use serde_json::{json, Value};
use std::path::PathBuf;
use support::guard::{guard_with, GuardResult};

fn trace_dir() -> PathBuf {
    support::repo().join("tests/fixtures/trace")
}

fn guard_in_trace(options: &[&str], server: &[&str]) -> GuardResult {
    let mut cmd = support::mcpcheck();
    cmd.current_dir(trace_dir());
    guard_with(cmd, options, server)
}

fn node() -> [&'static str; 2] {
    ["node", "node/index.js"]
}

fn python() -> [&'static str; 2] {
    [support::python_executable(), "python/server.py"]
}

/// (stdout line, [file:line of each candidate]) for every traced line of `code`.
fn traced(result: &GuardResult, code: &str) -> Vec<(u64, Vec<String>)> {
    result.issue(code)["printedBy"]
        .as_array()
        .unwrap_or_else(|| panic!("{code} has printedBy: {:#}", result.issue(code)))
        .iter()
        .map(|t| {
            let writes = t["writes"]
                .as_array()
                .expect("writes")
                .iter()
                .map(|w| format!("{}:{}", w["file"].as_str().expect("file"), w["line"]))
                .collect();
            (t["stdoutLine"].as_u64().expect("stdoutLine"), writes)
        })
        .collect()
}

#[test]
fn a_template_literal_and_a_logger_wrapper_in_another_file_are_named() {
    let result = guard_in_trace(&["--scan", "node"], &node());
    assert_eq!(result.exit, 1, "{}", result.stderr);
    // Line 1 from the template literal in index.js (not the usage text on line 10 or the
    // debug branch on line 14, which come first); line 2 from the wrapper in logger.js.
    assert_eq!(
        traced(&result, "stdout-non-json"),
        [
            (1, vec!["node/index.js:16".to_string()]),
            (2, vec!["node/logger.js:3".to_string()]),
        ]
    );
    let first = &result.issue("stdout-non-json")["printedBy"][0]["writes"][0];
    assert_eq!(first["column"], 1);
    assert_eq!(
        first["code"],
        "console.log(`Server started on port ${port}`)"
    );
}

#[test]
fn an_f_string_and_an_empty_print_are_named() {
    let result = guard_in_trace(&["--scan", "python"], &python());
    assert_eq!(
        traced(&result, "stdout-non-json"),
        [(1, vec!["python/server.py:22".to_string()])]
    );
    assert_eq!(
        traced(&result, "stdout-empty-line"),
        [(2, vec!["python/server.py:23".to_string()])]
    );
}

#[test]
fn a_line_no_write_matches_says_so_instead_of_guessing() {
    // The Node server's lines against the Python server's source: nothing there prints them.
    let result = guard_in_trace(&["--scan", "python"], &node());
    assert_eq!(
        result.issue("stdout-non-json")["printedBy"],
        json!([
            {"stdoutLine": 1, "writes": []},
            {"stdoutLine": 2, "writes": []},
        ])
    );
    // Without --scan nothing is traced at all.
    let plain = guard_in_trace(&[], &node());
    assert!(plain.issue("stdout-non-json").get("printedBy").is_none());
}

fn run_text(options: &[&str], server: &[&str]) -> String {
    let out = support::mcpcheck()
        .current_dir(trace_dir())
        .arg("guard")
        .args(options)
        .arg("--")
        .args(server)
        .output()
        .expect("run mcpcheck");
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn human_and_markdown_say_which_line_printed_it() {
    let human = run_text(&["--scan", "node"], &node());
    for line in [
        "  stdout line 1: printed by node/index.js:16:1 (`console.log(`Server started on port ${port}`)`)",
        "  stdout line 2: printed by node/logger.js:3:3 (`console.log(\"[info] \" + m)`)",
    ] {
        assert!(human.lines().any(|l| l == line), "{line:?} in\n{human}");
    }
    let none = run_text(&["--scan", "python"], &node());
    assert!(none.contains(
        "  stdout line 1: printed by: no stdout write in the scanned source prints this line\n"
    ));
    let single = run_text(&["--scan", "python"], &python());
    assert!(single.contains(
        "  printed by python/server.py:22:1 (`print(f\"Listening on port {PORT} (pid {os.getpid()})\")`)\n"
    ));
    let markdown = run_text(&["--scan", "node", "--format", "markdown"], &node());
    assert!(
        markdown.contains("stdout line 1 printed by ` node/index.js:16 ` (`` console.log(`Server started on port ${port}`) ``)"),
        "{markdown}"
    );
}

#[test]
fn sarif_relates_the_writes_and_makes_an_unambiguous_one_the_location() {
    let text = run_text(&["--scan", "node", "--format", "sarif"], &node());
    let doc = support::sarif::validate_sarif(&text);
    let result: &Value = doc["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|r| r["ruleId"] == "stdout-non-json")
        .expect("a stdout-non-json result");
    let uri = |l: &Value| l["physicalLocation"]["artifactLocation"]["uri"].clone();
    let line = |l: &Value| l["physicalLocation"]["region"]["startLine"].clone();
    let related = result["relatedLocations"].as_array().expect("related");
    assert_eq!(related.len(), 2);
    assert_eq!(uri(&related[0]), "tests/fixtures/trace/node/index.js");
    assert_eq!(line(&related[0]), 16);
    assert_eq!(uri(&related[1]), "tests/fixtures/trace/node/logger.js");
    assert_eq!(line(&related[1]), 3);
    assert_eq!(
        related[1]["message"]["text"],
        "The write that printed stdout line 2"
    );
    let primary = &result["locations"][0];
    assert_eq!(uri(primary), "tests/fixtures/trace/node/index.js");
    assert_eq!(line(primary), 16);
    assert_eq!(
        primary["logicalLocations"][0]["fullyQualifiedName"],
        "stdout:1"
    );
}
