//! Baselines: `mcpcheck baseline` writes a sorted, reviewable list once (never overwritten
//! without --force); `scan --baseline` reports and fails only on new findings, and a
//! reformatted file does not make known findings new.

use crate::support;
use std::path::Path;
use support::scan::*;
use support::*;

const TOKEN: &str = "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d";
const OTHER_TOKEN: &str = "npm_jq4i9DoV8gz4FkQ1okTBGzvAmwufUxbvJDCT";

fn compact(token: &str) -> String {
    format!(
        "{{\"mcpServers\": {{\"github\": {{\"command\": \"npx\", \"args\": [\"-y\", \"@modelcontextprotocol/server-github\"], \"env\": {{\"GITHUB_TOKEN\": \"{token}\"}}}}}}}}\n"
    )
}

fn reformatted(token: &str) -> String {
    format!(
        "{{\n  // reformatted, with a comment and different line breaks\n  \"mcpServers\": {{\n\n    \"github\": {{\n      \"command\": \"npx\",\n      \"args\": [\n        \"-y\",\n        \"@modelcontextprotocol/server-github\"\n      ],\n      \"env\": {{\n        \"GITHUB_TOKEN\": \"{token}\",\n      }},\n    }},\n  }},\n}}\n"
    )
}

fn baseline(dir: &Path, extra: &[&str]) -> std::process::Output {
    run(scan_command(dir).arg("baseline").args(extra))
}

#[test]
fn baseline_is_written_once_sorted_and_secret_free() {
    let dir = private_tempdir();
    std::fs::write(dir.path().join(".mcp.json"), compact(TOKEN)).expect("write");
    let out = baseline(dir.path(), &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "wrote .mcpcheck-baseline.json: 2 findings from 1 config\n"
    );
    let text =
        std::fs::read_to_string(dir.path().join(".mcpcheck-baseline.json")).expect("written");
    assert_no_secret(&[&text], &[TOKEN]);
    let b = support::schema::validate_text(support::schema::ReportKind::Baseline, &text);
    assert_eq!(b["schemaVersion"], 1);
    let entries = b["findings"].as_array().expect("findings");
    let summary: Vec<(&str, &str, &str)> = entries
        .iter()
        .map(|e| {
            (
                e["code"].as_str().expect("code"),
                e["severity"].as_str().expect("severity"),
                e["path"].as_str().expect("path"),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("unpinned-package", "warning", "/mcpServers/github/args/1"),
            (
                "hardcoded-secret",
                "error",
                "/mcpServers/github/env/GITHUB_TOKEN"
            ),
        ]
    );
    for e in entries {
        assert_eq!(e["fingerprint"].as_str().expect("fingerprint").len(), 32);
        assert_eq!(e["file"], ".mcp.json");
        assert!(!e["message"].as_str().expect("message").is_empty());
    }
    // Never overwritten without --force.
    let again = baseline(dir.path(), &[]);
    assert_eq!(again.status.code(), Some(2));
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(
        err.contains(".mcpcheck-baseline.json: a baseline already exists")
            && err.contains("--force"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join(".mcpcheck-baseline.json")).expect("kept"),
        text
    );
    assert_eq!(baseline(dir.path(), &["--force"]).status.code(), Some(0));
}

#[test]
fn scan_with_a_baseline_reports_only_new_findings_even_after_a_reformat() {
    let dir = private_tempdir();
    let config = dir.path().join(".mcp.json");
    std::fs::write(&config, compact(TOKEN)).expect("write");
    assert_eq!(baseline(dir.path(), &[]).status.code(), Some(0));
    let known = scan_in(dir.path(), &["--baseline", ".mcpcheck-baseline.json"]);
    assert_eq!(known.issues(), pairs(&[]));
    assert_eq!(known.exit, 0);
    assert_eq!(known.json["stats"]["suppressedByBaseline"], 2);

    // Same findings on other lines and columns: still known.
    std::fs::write(&config, reformatted(TOKEN)).expect("write");
    let moved = scan_in(dir.path(), &["--baseline", ".mcpcheck-baseline.json"]);
    assert_eq!(moved.issues(), pairs(&[]), "{:#}", moved.json["issues"]);
    assert_eq!(moved.json["stats"]["suppressedByBaseline"], 2);
    let without = scan_in(dir.path(), &[]);
    assert_eq!(
        without.places()[0],
        (
            "hardcoded-secret".into(),
            "critical".into(),
            12,
            25,
            "/mcpServers/github/env/GITHUB_TOKEN".into()
        )
    );

    // A new secret elsewhere is new, and fails the run.
    let mut text = reformatted(TOKEN);
    text = text.replace(
        "\"GITHUB_TOKEN\": ",
        &format!("\"NPM_TOKEN\": \"{OTHER_TOKEN}\",\n        \"GITHUB_TOKEN\": "),
    );
    std::fs::write(&config, text).expect("write");
    let new = scan_in(dir.path(), &["--baseline", ".mcpcheck-baseline.json"]);
    assert_eq!(
        new.places(),
        places(&[(
            "hardcoded-secret",
            "critical",
            12,
            22,
            "/mcpServers/github/env/NPM_TOKEN"
        )])
    );
    assert_eq!(new.exit, 1);
    let human = String::from_utf8(
        run(scan_command(dir.path()).args(["scan", "--baseline", ".mcpcheck-baseline.json"]))
            .stdout,
    )
    .expect("utf-8");
    assert!(human.contains("2 accepted by the baseline"), "{human}");
}

#[test]
fn a_bad_baseline_is_an_input_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join(".mcp.json"), compact(TOKEN)).expect("write");
    std::fs::write(dir.path().join("b.json"), "{\"findings\": 3}").expect("write");
    for file in ["b.json", "missing.json"] {
        let out = run(scan_command(dir.path()).args(["scan", "--baseline", file]));
        assert_eq!(out.status.code(), Some(2), "{file}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1);
        assert!(err.contains(file), "{err}");
    }
}

#[test]
fn baseline_live_accepts_live_surface_findings() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = serde_json::json!({"mcpServers": {"poisoned": {
        "command": "python3",
        "args": [fixture("poisoned_tool_description")]
    }}});
    std::fs::write(dir.path().join(".mcp.json"), config.to_string()).expect("write");
    // Without --live the baseline cannot hold what only a live listing finds.
    let live = scan_in(dir.path(), &["--live"]);
    assert!(
        live.issues()
            .contains(&("tool-poisoning-instructions".into(), "error".into())),
        "{:?}",
        live.issues()
    );
    assert_eq!(live.exit, 1);

    let out = baseline(dir.path(), &["--live"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text =
        std::fs::read_to_string(dir.path().join(".mcpcheck-baseline.json")).expect("written");
    assert!(text.contains("tool-poisoning-instructions"), "{text}");
    let known = scan_in(
        dir.path(),
        &["--live", "--baseline", ".mcpcheck-baseline.json"],
    );
    assert_eq!(known.issues(), pairs(&[]), "{:#}", known.json["issues"]);
    assert_eq!(known.exit, 0);
    assert_eq!(
        known.json["stats"]["suppressedByBaseline"],
        live.issues().len()
    );
}
