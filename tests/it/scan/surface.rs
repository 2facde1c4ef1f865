//! `mcpcheck scan --live` runs the surface rules over every server that answered, together,
//! with each server's initialize result (its instructions and capabilities), and points each
//! finding at the config that declares the server.

use crate::support;
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

mod toxic_flow {
    use super::support::scan::{private_tempdir, ScanResult};
    use super::support::*;

    /// A config of two servers from tests/fixtures/servers/toolset.py, one per line (3 and 4).
    fn config_of(a: (&str, &str), b: (&str, &str)) -> (tempfile::TempDir, String) {
        let dir = private_tempdir();
        let path = dir.path().join(".mcp.json");
        let server = fixture("toolset");
        let entry = |(name, set): (&str, &str)| {
            format!(
                "\"{name}\": {{ \"command\": \"python3\", \"args\": [\"{server}\", \"{set}\"] }}"
            )
        };
        std::fs::write(
            &path,
            format!(
                "{{\n  \"mcpServers\": {{\n    {},\n    {}\n  }}\n}}\n",
                entry(a),
                entry(b)
            ),
        )
        .expect("write config");
        (dir, path.display().to_string())
    }

    fn scan(config: &str, live: bool) -> ScanResult {
        let mut cmd = super::support::scan::scan_command(&repo());
        cmd.args(["scan", "--format", "json"]);
        if live {
            cmd.arg("--live");
        }
        super::support::scan::parse(cmd.arg(config).output().expect("run"))
    }

    /// The toxic-flow findings as (code, risk, line, column, logical, detail code).
    fn flows(r: &ScanResult) -> Vec<(String, String, u64, u64, String, String)> {
        r.json["issues"]
            .as_array()
            .expect("issues")
            .iter()
            .filter(|i| i["code"] == "toxic-flow")
            .map(|i| {
                let s = |v: &serde_json::Value| v.as_str().unwrap_or("").to_string();
                (
                    s(&i["code"]),
                    s(&i["risk"]),
                    i["location"]["line"].as_u64().expect("line"),
                    i["location"]["column"].as_u64().expect("column"),
                    s(&i["location"]["logical"]),
                    s(&i["detailCode"]),
                )
            })
            .collect()
    }

    fn message(r: &ScanResult) -> String {
        r.json["issues"]
            .as_array()
            .expect("issues")
            .iter()
            .find(|i| i["code"] == "toxic-flow")
            .and_then(|i| i["message"].as_str())
            .expect("a toxic-flow message")
            .to_string()
    }

    fn one(
        risk: &str,
        line: u64,
        column: u64,
        logical: &str,
        detail: &str,
    ) -> Vec<(String, String, u64, u64, String, String)> {
        vec![(
            "toxic-flow".into(),
            risk.into(),
            line,
            column,
            logical.into(),
            detail.into(),
        )]
    }

    #[test]
    fn a_file_reader_and_a_mailer_in_one_config_are_a_flow_naming_the_tools() {
        let (_dir, config) = config_of(("files", "filesystem"), ("mail", "mailer"));
        let r = scan(&config, true);
        assert_eq!(
            flows(&r),
            one("medium", 4, 13, "/mcpServers/mail", "source-and-sink")
        );
        assert_eq!(
        message(&r),
        format!("Toxic flow in {config}: private data read with \"files\" (read_text_file, list_directory) can be sent out with \"mail\" (send_email) (from the tools the servers advertise).")
    );
    }

    #[test]
    fn a_file_reader_and_fetch_are_the_lethal_trifecta() {
        let (_dir, config) = config_of(("files", "filesystem"), ("web", "fetch"));
        let r = scan(&config, true);
        assert_eq!(
            flows(&r),
            one("high", 4, 12, "/mcpServers/web", "lethal-trifecta")
        );
        assert!(
            message(&r).contains(": untrusted content from \"web\" (fetch) can instruct the model to read private data with \"files\" (read_text_file, list_directory) and send it out with \"web\" (fetch)"),
            "{}",
            message(&r)
        );
        assert_eq!(r.exit, 1, "high fails at the default threshold");
        assert!(r.issues().contains(&pairs(&[("toxic-flow", "error")])[0]));
    }

    #[test]
    fn one_github_server_reading_an_issue_and_a_repository_and_opening_a_pull_request_is_the_trifecta(
    ) {
        let (_dir, config) = config_of(("github", "github"), ("calc", "calculator"));
        let r = scan(&config, true);
        assert_eq!(
            flows(&r),
            one(
                "high",
                3,
                15,
                "/mcpServers/github",
                "lethal-trifecta-in-one-server"
            )
        );
        assert_eq!(
            message(&r),
            format!("Lethal trifecta inside one server in {config}: \"github\" brings in untrusted content (get_issue), reads private data (get_file_contents) and can send it out (create_pull_request) (from the tools the servers advertise).")
        );
        assert_eq!(r.exit, 1, "high fails at the default threshold");
    }

    #[test]
    fn a_private_source_and_a_sink_inside_one_server_are_a_flow() {
        let (_dir, config) = config_of(("calc", "calculator"), ("assistant", "files_and_mail"));
        let r = scan(&config, true);
        assert_eq!(
            flows(&r),
            one(
                "medium",
                4,
                18,
                "/mcpServers/assistant",
                "source-and-sink-in-one-server"
            )
        );
        assert_eq!(
            message(&r),
            format!("Toxic flow inside one server in {config}: \"assistant\" reads private data (read_text_file) and can send it out (send_email) (from the tools the servers advertise).")
        );
    }

    #[test]
    fn a_homoglyph_in_a_tool_name_hides_no_tool_from_the_flow() {
        // re\u{430}d_file (a Cyrillic a) is read_file to the flow analysis; with the mailer on
        // the same server list it is a flow between servers.
        let (_dir, config) = config_of(("files", "homoglyph_files"), ("mail", "mailer"));
        let r = scan(&config, true);
        assert_eq!(
            flows(&r),
            one("medium", 4, 13, "/mcpServers/mail", "source-and-sink")
        );
        assert!(
            message(&r).contains("private data read with \"files\" (re\u{430}d_file read as read_file) can be sent out with \"mail\" (send_email)"),
            "{}",
            message(&r)
        );
    }

    #[test]
    fn read_only_docs_and_a_calculator_are_not_a_flow() {
        let (_dir, config) = config_of(("docs", "docs"), ("calc", "calculator"));
        let r = scan(&config, true);
        assert_eq!(flows(&r), []);
        assert_eq!(
            r.json["stats"]["live"]["answered"], 2,
            "{:#}",
            r.json["servers"]
        );
        let notices = r.json["notices"].to_string();
        assert!(!notices.contains("toxic-flow"), "{notices}");
    }

    #[test]
    fn without_a_listing_server_names_are_only_a_guess_in_the_notices() {
        let (_dir, config) = config_of(("filesystem", "filesystem"), ("fetch", "fetch"));
        let r = scan(&config, false);
        assert_eq!(flows(&r), []);
        let notices: Vec<&str> = r.json["notices"]
            .as_array()
            .expect("notices")
            .iter()
            .filter_map(|n| n.as_str())
            .filter(|n| n.starts_with("toxic-flow (a guess, not a finding): Lethal trifecta in "))
            .collect();
        assert_eq!(notices.len(), 1, "{:#}", r.json["notices"]);
        assert!(
            notices[0].ends_with("(guessed from the servers' names, as they were not listed; run with --live to classify their tools)."),
            "{}",
            notices[0]
        );
        // Listed, the same servers are a finding and no longer a guess.
        let live = scan(&config, true);
        assert_eq!(
            flows(&live),
            one("high", 4, 14, "/mcpServers/fetch", "lethal-trifecta")
        );
        assert!(!live.json["notices"].to_string().contains("a guess"));
    }

    #[test]
    fn without_a_listing_the_tools_pinned_in_the_lock_are_classified() {
        let (dir, config) = config_of(("files", "filesystem"), ("web", "fetch"));
        let lock = dir.path().join("lock.json");
        let pinned = super::support::scan::scan_command(&repo())
            .args(["pin", "--live", "--output"])
            .arg(&lock)
            .arg(&config)
            .output()
            .expect("run pin");
        assert!(pinned.status.success(), "{pinned:?}");
        let r = super::support::scan::parse(
            super::support::scan::scan_command(&repo())
                .args(["scan", "--format", "json", "--lock"])
                .arg(&lock)
                .arg(&config)
                .output()
                .expect("run scan"),
        );
        assert_eq!(
            flows(&r),
            one("high", 4, 12, "/mcpServers/web", "lethal-trifecta")
        );
        assert!(
            message(&r).contains("\"web\" (fetch) can instruct the model to read private data with \"files\" (list_directory, read_text_file)")
                && message(&r).ends_with("(from the tools the servers advertise or, for servers not listed, the tools pinned in the lock file)."),
            "{}",
            message(&r)
        );
        assert!(!r.json["notices"].to_string().contains("a guess"));
    }
}
