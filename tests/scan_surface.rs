//! `mcpcheck scan --live` runs the surface rules over every server that answered, together,
//! and points each finding at the config that declares the server.

mod common;
use common::*;

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
