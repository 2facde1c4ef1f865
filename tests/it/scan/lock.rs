//! Lock files: `mcpcheck pin [--live]` records each server's definition (names, never values)
//! and its advertised surface; a later scan reports definition drift, surface drift (saying
//! what changed) and servers added since pinning.

use crate::support;
use serde_json::{json, Value};
use std::path::Path;
use support::scan::*;
use support::*;

const DIGEST: &str = "0f3cd2bd8a2ebfad6a2d9a31f5ecb0c5d1c5ad4d4c1ca1ce43e1a7ad1e3e38a1";

fn write_config(dir: &Path, servers: Value) {
    let text = serde_json::to_string_pretty(&json!({"mcpServers": servers})).expect("json");
    std::fs::write(dir.join(".mcp.json"), text).expect("write");
}

fn pin(dir: &Path, extra: &[&str]) -> std::process::Output {
    run(scan_command(dir).arg("pin").args(extra))
}

fn servers() -> Value {
    json!({
        "notes": {"command": "npx", "args": ["-y", "@acme/notes-mcp@1.2.3"], "env": {"NOTES_DIR": "/srv/notes", "API_KEY": "${NOTES_KEY}"}},
        "search": {"type": "http", "url": "https://search.example.com/mcp", "headers": {"Authorization": "Bearer ${SEARCH_TOKEN}"}},
    })
}

#[test]
fn pin_records_definitions_without_values() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut s = servers();
    s["notes"]["env"]["DB_PASSWORD"] = json!("Xk9mP2vL7qR4tW8nZ3bQ");
    write_config(dir.path(), s);
    let out = pin(dir.path(), &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "wrote .mcpcheck-lock.json: 2 servers\n"
    );
    let text = std::fs::read_to_string(dir.path().join(".mcpcheck-lock.json")).expect("lock");
    assert!(
        !text.contains("Xk9mP2vL7qR4tW8nZ3bQ") && !text.contains("/srv/notes"),
        "values never reach the lock: {text}"
    );
    let lock = support::schema::validate_text(support::schema::ReportKind::Lock, &text);
    assert_eq!(lock["schemaVersion"], 1);
    let notes = &lock["servers"][0];
    assert_eq!(notes["name"], "notes");
    assert_eq!(notes["config"], ".mcp.json");
    assert_eq!(notes["definition"]["launcher"], "npx");
    assert_eq!(
        notes["definition"]["envNames"],
        json!(["API_KEY", "DB_PASSWORD", "NOTES_DIR"])
    );
    assert_eq!(notes["definitionHash"].as_str().expect("hash").len(), 64);
    assert!(notes.get("surface").is_none());
    assert_eq!(
        lock["servers"][1]["definition"]["headerNames"],
        json!(["Authorization"])
    );
    // An existing lock is kept unless --force.
    let again = pin(dir.path(), &[]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
}

#[test]
fn definition_drift_and_added_servers_are_reported() {
    let dir = tempfile::tempdir().expect("tempdir");
    write_config(dir.path(), servers());
    assert_eq!(pin(dir.path(), &[]).status.code(), Some(0));
    let unchanged = scan_in(dir.path(), &[]);
    assert_eq!(unchanged.issues(), pairs(&[]));
    assert_eq!(unchanged.json["stats"]["lock"], ".mcpcheck-lock.json");

    // Changing an environment value is not drift: values are never pinned.
    let mut s = servers();
    s["notes"]["env"]["NOTES_DIR"] = json!("/srv/other-notes");
    write_config(dir.path(), s.clone());
    assert_eq!(scan_in(dir.path(), &[]).issues(), pairs(&[]));

    // New arguments, a new variable name and a new server are.
    s["notes"]["args"] = json!(["-y", "@acme/notes-mcp@1.2.3", "--allow-delete"]);
    s["notes"]["env"]["EXTRA_FLAG"] = json!("1");
    s["added"] = json!({"command": "docker", "args": ["run", "-i", "--rm", format!("mcp/time@sha256:{DIGEST}")]});
    write_config(dir.path(), s);
    let r = scan_in(dir.path(), &[]);
    assert_eq!(
        r.places(),
        places(&[
            (
                "server-definition-drift",
                "high",
                3,
                14,
                "/mcpServers/notes"
            ),
            (
                "server-added-since-pin",
                "medium",
                23,
                14,
                "/mcpServers/added"
            ),
        ])
    );
    assert_eq!(
        r.issues(),
        pairs(&[
            ("server-definition-drift", "error"),
            ("server-added-since-pin", "warning")
        ])
    );
    let message = r.issue_at("/mcpServers/notes")["message"]
        .as_str()
        .expect("message")
        .to_string();
    assert!(
        message.contains(
            "args [-y @acme/notes-mcp@1.2.3] → [-y @acme/notes-mcp@1.2.3 --allow-delete]"
        ),
        "{message}"
    );
    assert!(message.contains("env names added: EXTRA_FLAG"), "{message}");
    assert_eq!(r.exit, 1);

    // A server that disappeared is noted; --lock names another file.
    write_config(dir.path(), json!({"notes": servers()["notes"].clone()}));
    let gone = scan_in(dir.path(), &["--lock", ".mcpcheck-lock.json"]);
    let notices = gone.json["notices"].to_string();
    assert!(
        notices.contains("server search in .mcp.json was pinned but is no longer configured"),
        "{notices}"
    );
}

#[test]
fn surface_drift_says_what_changed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = |variant: &str| {
        json!({"notes": {
            "command": "python3",
            "args": [fixture("surface_variant")],
            "env": {"SURFACE_VARIANT": variant},
        }})
    };
    write_config(dir.path(), server("a"));
    let out = pin(dir.path(), &["--live"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "wrote .mcpcheck-lock.json: 1 server, 1 with their live surface\n"
    );
    let lock = support::schema::validate_text(
        support::schema::ReportKind::Lock,
        &std::fs::read_to_string(dir.path().join(".mcpcheck-lock.json")).expect("lock"),
    );
    let surface = &lock["servers"][0]["surface"];
    assert_eq!(surface["hash"].as_str().expect("hash").len(), 64);
    let items: Vec<&String> = surface["items"]
        .as_object()
        .expect("items")
        .keys()
        .collect();
    assert_eq!(
        items,
        [
            "prompts/greeting",
            "resourceTemplates/note",
            "resources/README",
            "tools/add",
            "tools/echo"
        ]
    );

    // The same surface again: no drift, and nothing for the live surface rules (its `add`
    // is a calculator, not a write).
    assert_eq!(scan_in(dir.path(), &["--live"]).places(), places(&[]));
    // Without --live the surface cannot be compared, and the report says so.
    let static_scan = scan_in(dir.path(), &[]);
    assert!(static_scan.json["notices"]
        .to_string()
        .contains("run with --live"));

    // Same definition, different surface: a rug pull.
    write_config(dir.path(), server("b"));
    let r = scan_in(dir.path(), &["--live"]);
    // The new surface is also judged by the live surface rules: its poisoned descriptions,
    // its unannotated destructive tool and its mutating tools without logging are findings of
    // their own, at the same entry, in one order with the drift: highest risk first.
    assert_eq!(
        r.places(),
        places(&[
            (
                "tool-poisoning-instructions",
                "critical",
                3,
                14,
                "servers/notes/tools/echo/description"
            ),
            (
                "tool-poisoning-instructions",
                "critical",
                3,
                14,
                "servers/notes/tools/echo/inputSchema/properties/text/description"
            ),
            ("tool-surface-drift", "critical", 3, 14, "/mcpServers/notes"),
            (
                "unconfirmed-destructive-tool",
                "medium",
                3,
                14,
                "servers/notes/tools/delete_all/annotations"
            ),
            (
                "mutating-tools-without-logging",
                "low",
                3,
                14,
                "servers/notes/capabilities"
            ),
        ])
    );
    assert_eq!(
        r.issues(),
        pairs(&[
            ("tool-poisoning-instructions", "error"),
            ("tool-poisoning-instructions", "error"),
            ("tool-surface-drift", "error"),
            ("unconfirmed-destructive-tool", "warning"),
            ("mutating-tools-without-logging", "warning"),
        ])
    );
    let message = r.issue_at("/mcpServers/notes")["message"]
        .as_str()
        .expect("message");
    assert!(message.contains("tools/delete_all added"), "{message}");
    assert!(
        message.contains("tools/echo: description changed, inputSchema/properties/text changed"),
        "{message}"
    );
    assert!(message.contains("tools/add removed"), "{message}");
    assert!(!message.contains("prompts/greeting"), "{message}");
}
