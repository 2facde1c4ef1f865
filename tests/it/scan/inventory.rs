//! `mcpcheck inventory`: configs, servers and transports for people and machines; content
//! (findings, even a broken file) never makes it fail.

use crate::support;
use serde_json::json;
use support::scan::*;

#[test]
fn inventory_lists_servers_and_never_fails_on_content() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join(".vscode")).expect("mkdir");
    std::fs::write(
        dir.path().join(".vscode/mcp.json"),
        r#"{
  "servers": {
    "notes": { "type": "stdio", "command": "uvx", "args": ["notes-mcp==1.0.0"], "env": { "NOTES_TOKEN": "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d" } },
    "search": { "type": "http", "url": "https://u:pw@search.example.com/mcp?api_key=k9", "headers": { "X-Api-Key": "${input:key}" } }
  }
}"#,
    )
    .expect("write");
    std::fs::write(dir.path().join(".mcp.json"), "{ \"mcpServers\": { ").expect("write");
    let out = run(scan_command(dir.path()).args(["inventory", "--format", "json"]));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let inv = inventory_json(&out.stdout);
    assert_eq!(inv["live"], false);
    let configs = inv["configs"].as_array().expect("configs");
    assert_eq!(
        configs[0],
        json!({"path": ".vscode/mcp.json", "client": "vscode", "scope": "project", "servers": 2})
    );
    assert_eq!(configs[1]["path"], ".mcp.json");
    assert!(
        configs[1]["error"]
            .as_str()
            .expect("error")
            .contains(".mcp.json:1:"),
        "{configs:?}"
    );
    let notes = &inv["servers"][0];
    assert_eq!(notes["transport"], "stdio");
    assert_eq!(notes["launcher"], "uvx");
    assert_eq!(notes["envNames"], json!(["NOTES_TOKEN"]));
    assert_eq!(
        notes["packages"],
        json!([{"runner": "uvx", "name": "notes-mcp", "version": "1.0.0", "pinned": true}])
    );
    assert_eq!(
        notes["live"],
        json!({"state": "not-asked", "reason": "--live not given"})
    );
    let search = &inv["servers"][1];
    assert_eq!(search["transport"], "http");
    assert_eq!(
        search["url"],
        "https://u:[REDACTED]@search.example.com/mcp?api_key=[REDACTED]"
    );
    assert_eq!(search["headerNames"], json!(["X-Api-Key"]));
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert_no_secret(&[&text], &["ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"]);
    assert!(!text.contains(":pw@") && !text.contains("=k9"));

    let human = run(scan_command(dir.path()).arg("inventory"));
    assert_eq!(human.status.code(), Some(0));
    let human = String::from_utf8(human.stdout).expect("utf-8");
    assert!(
        human.starts_with("mcpcheck inventory:  1 config, 2 servers\n"),
        "{human}"
    );
    assert!(human.contains("\n.vscode/mcp.json  (vscode, project)\n  notes  stdio · uvx notes-mcp==1.0.0\n    env: NOTES_TOKEN\n"), "{human}");
    assert!(human.contains(".mcp.json  unreadable: "), "{human}");
    // The same broken file is an input error for scan.
    assert_eq!(
        run(scan_command(dir.path()).arg("scan")).status.code(),
        Some(2)
    );
}
