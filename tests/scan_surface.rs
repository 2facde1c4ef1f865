//! `mcpcheck scan --live` runs the surface rules over every server that answered, together,
//! with each server's initialize result (its instructions and capabilities), and points each
//! finding at the config that declares the server.

mod support;
use support::*;

#[test]
fn live_scan_runs_the_surface_rules_across_servers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join(".mcp.json");
    let body = serde_json::json!({"mcpServers": {
        "poisoned": {"command": "python3", "args": [fixture("poisoned_tool_description")]},
        "clean": {"command": "python3", "args": [fixture("clean")]},
    }});
    std::fs::write(&config, body.to_string()).expect("write config");
    let out = mcpcheck()
        .args(["scan", "--live", "--format", "json"])
        .arg(&config)
        .output()
        .expect("run");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let issues: Vec<(String, String, String)> = report["issues"]
        .as_array()
        .expect("issues")
        .iter()
        .map(|i| {
            (
                i["code"].as_str().expect("code").to_string(),
                i["severity"].as_str().expect("severity").to_string(),
                i["location"]["logical"]
                    .as_str()
                    .expect("logical")
                    .to_string(),
            )
        })
        .collect();
    let expected = |c: &str, s: &str, l: &str| (c.to_string(), s.to_string(), l.to_string());
    assert_eq!(
        issues,
        vec![
            expected(
                "tool-poisoning-instructions",
                "error",
                "servers/poisoned/tools/add/description"
            ),
            // Both servers offer `add` and `echo`: a client cannot tell which one it calls.
            expected(
                "cross-server-tool-collision",
                "warning",
                "servers/clean/tools/add/name"
            ),
            expected(
                "cross-server-tool-collision",
                "warning",
                "servers/clean/tools/echo/name"
            ),
        ]
    );
    for issue in report["issues"].as_array().expect("issues") {
        assert_eq!(issue["location"]["file"], config.display().to_string());
    }
    assert_eq!(out.status.code(), Some(1));
}

/// Runs `scan --live --format json` on a config declaring these servers, one per line.
fn scan_live(dir: &std::path::Path, servers: serde_json::Value) -> (serde_json::Value, i32) {
    let config = dir.join(".mcp.json");
    std::fs::write(
        &config,
        serde_json::to_string_pretty(&serde_json::json!({ "mcpServers": servers })).expect("json"),
    )
    .expect("write config");
    let out = mcpcheck()
        .current_dir(dir)
        .args(["scan", "--live", "--format", "json", ".mcp.json"])
        .output()
        .expect("run");
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&out.stderr));
    });
    (report, out.status.code().expect("exit code"))
}

/// Every issue as (code, severity, file, line, column, logical path).
fn places(report: &serde_json::Value) -> Vec<(String, String, String, u64, u64, String)> {
    report["issues"]
        .as_array()
        .expect("issues")
        .iter()
        .map(|i| {
            let s = |v: &serde_json::Value| v.as_str().expect("string").to_string();
            let l = &i["location"];
            (
                s(&i["code"]),
                s(&i["severity"]),
                s(&l["file"]),
                l["line"].as_u64().expect("line"),
                l["column"].as_u64().expect("column"),
                s(&l["logical"]),
            )
        })
        .collect()
}

/// An issue at the `.mcp.json` entry that starts at this line and column.
fn place(
    code: &str,
    severity: &str,
    (line, column): (u64, u64),
    logical: &str,
) -> (String, String, String, u64, u64, String) {
    let (c, s, l) = (code.to_string(), severity.to_string(), logical.to_string());
    (c, s, ".mcp.json".to_string(), line, column, l)
}

#[test]
fn live_scan_judges_each_servers_initialize_result() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = |name: &str| serde_json::json!({"command": "python3", "args": [fixture(name)]});
    // Where each entry's object starts in the pretty-printed config.
    let (instructed, notes) = ((3, 19), (9, 14));
    let (report, exit) = scan_live(
        dir.path(),
        serde_json::json!({
            "instructed": server("poisoned_server_instructions"),
            "notes": server("mutating_tools_without_logging"),
        }),
    );
    assert_eq!(
        places(&report),
        vec![
            // The instructions a client puts in the model's context hide an order.
            place(
                "tool-poisoning-instructions",
                "error",
                instructed,
                "servers/instructed/instructions"
            ),
            // `write_note` (annotated readOnlyHint: false) changes state, and the server's
            // capabilities do not include logging. (`add` alone is a calculator: no change.)
            place(
                "mutating-tools-without-logging",
                "warning",
                notes,
                "servers/notes/capabilities"
            ),
        ],
        "{:#}",
        report["issues"]
    );
    let messages: Vec<&str> = report["issues"]
        .as_array()
        .expect("issues")
        .iter()
        .map(|i| i["message"].as_str().expect("message"))
        .collect();
    assert!(
        messages[0].starts_with(
            "In the instructions of the initialize result of server \"instructed\", the text addresses the model"
        ),
        "{}",
        messages[0]
    );
    assert!(
        messages[1].starts_with("Server \"notes\" has 1 tool that changes state (\"write_note\")"),
        "{}",
        messages[1]
    );
    assert_eq!(exit, 1);
}

#[test]
fn live_scan_accepts_mutating_tools_when_logging_is_advertised() {
    let dir = tempfile::tempdir().expect("tempdir");
    // The same tools and benign instructions as `mutating_tools_without_logging`, with logging.
    let (report, exit) = scan_live(
        dir.path(),
        serde_json::json!({"notes": {
            "command": "python3",
            "args": [fixture("mutating_tools_with_logging")],
        }}),
    );
    assert_eq!(places(&report), vec![], "{:#}", report["issues"]);
    let live = &report["servers"][0]["live"];
    assert_eq!(live["state"], "answered", "{live:#}");
    assert_eq!(exit, 0);
}

#[test]
fn live_findings_are_placed_at_entries_whose_names_need_escaping() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = |name: &str| serde_json::json!({"command": "python3", "args": [fixture(name)]});
    // `/` is escaped as `~1` in logical paths; a finding on the server itself has no `/` after
    // its name.
    let (report, _) = scan_live(
        dir.path(),
        serde_json::json!({
            "team/notes": server("mutating_tools_without_logging"),
            "big": server("oversized_instructions"),
        }),
    );
    assert_eq!(
        places(&report),
        vec![
            place(
                "mutating-tools-without-logging",
                "warning",
                (3, 19),
                "servers/team~1notes/capabilities"
            ),
            place("surface-scan-incomplete", "note", (9, 12), "servers/big"),
        ],
        "{:#}",
        report["issues"]
    );
    // The instructions are bounded like any advertised field: the rest is reported, not read.
    let incomplete = report["issues"][1]["message"].as_str().expect("message");
    assert!(
        incomplete.contains("initialize result") && incomplete.contains("past 65536 bytes"),
        "{incomplete}"
    );
}
