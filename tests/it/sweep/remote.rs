//! `mcpcheck sweep --remote`: remote entries (a manifest's `url` entries, `server.json`
//! `remotes`) guarded over HTTP against real servers beside stdio ones; header secrets from
//! the manifest or from `--pass-env` never printed; without `--remote`, not asked.

use crate::support;

use serde_json::{json, Value};
use support::http::HttpServer;
use support::mcpcheck;
use support::sweep::*;

const ENV_TOKEN: &str = "env-t0ken-4b1d9c";
const LITERAL_TOKEN: &str = "literal-t0ken-77e2a0";

fn line<'a>(lines: &'a [Value], id: &str) -> &'a Value {
    lines
        .iter()
        .find(|l| l["id"] == id)
        .unwrap_or_else(|| panic!("no line for {id}"))
}

#[test]
fn remote_entries_are_guarded_over_http_beside_stdio_ones_and_secrets_stay_out() {
    let clean = HttpServer::fixture("http_clean");
    let env_guarded = HttpServer::fixture_with("http_requires_token", &[ENV_TOKEN]);
    let literal_guarded = HttpServer::fixture_with("http_requires_token", &[LITERAL_TOKEN]);
    let dir = tempfile::tempdir().expect("tempdir");
    let pid_file = dir.path().join("pids");
    let stdio = Server {
        id: "stdio-clean".into(),
        fixture: "clean",
    };
    let entries = vec![
        entry(&stdio, &pid_file),
        json!({"id": "remote-clean", "url": clean.url("/mcp")}),
        json!({"id": "remote-env-token", "url": env_guarded.url("/mcp"),
               "headers": {"Authorization": {"env": "SWEEP_REMOTE_TOKEN"}}}),
        json!({"id": "remote-literal-token", "url": literal_guarded.url("/mcp"),
               "headers": {"Authorization": format!("Bearer {LITERAL_TOKEN}")}}),
        json!({"id": "remote-missing-header", "url": clean.url("/mcp"), "headers": {"Authorization": null}}),
        json!({"id": "remote-env-not-passed", "url": clean.url("/mcp"),
               "headers": {"Authorization": {"env": "SWEEP_REMOTE_OTHER"}}}),
        json!({"id": "remote-private", "url": "http://10.255.255.1:9/mcp"}),
        json!({"name": "io.example/hosted", "version": "1.0.0",
               "remotes": [{"type": "streamable-http", "url": clean.url("/mcp")}]}),
        json!({"name": "io.example/hosted-secret", "version": "1.0.0",
               "remotes": [{"type": "streamable-http", "url": env_guarded.url("/mcp"),
                            "headers": [{"name": "Authorization", "isRequired": true, "isSecret": true}]}]}),
        json!({"id": "hosted-secret-given",
               "server": {"name": "io.example/hosted-secret", "version": "1.0.0",
                          "remotes": [{"type": "streamable-http", "url": env_guarded.url("/mcp"),
                                       "headers": [{"name": "Authorization", "isRequired": true, "isSecret": true}]}]},
               "headers": {"Authorization": {"env": "SWEEP_REMOTE_TOKEN"}}}),
    ];
    let manifest = write_manifest(dir.path(), &entries);
    let out = dir.path().join("r.jsonl");
    let run = mcpcheck()
        .args(["sweep", manifest.to_str().expect("utf-8"), "--out"])
        .arg(&out)
        .args([
            "--remote",
            "--pass-env",
            "SWEEP_REMOTE_TOKEN",
            "--jobs",
            "4",
        ])
        .env("SWEEP_REMOTE_TOKEN", format!("Bearer {ENV_TOKEN}"))
        .env("SWEEP_REMOTE_OTHER", "Bearer never-passed-value")
        .output()
        .expect("run sweep");
    let stderr = String::from_utf8_lossy(&run.stderr);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    let lines = lines(&out);
    assert_eq!(lines.len(), entries.len());

    let stdio_line = line(&lines, "stdio-clean");
    assert_eq!(
        (&stdio_line["status"], &stdio_line["transport"]),
        (&json!("pass"), &json!("stdio"))
    );
    for id in [
        "remote-clean",
        "remote-env-token",
        "remote-literal-token",
        "io.example/hosted@1.0.0",
        "hosted-secret-given",
    ] {
        let l = line(&lines, id);
        assert_eq!(l["status"], "pass", "{id}: {l}");
        assert_eq!(l["transport"], "http", "{id}");
        // The server.json name of the transport beside the guard's own (v1 unchanged).
        assert_eq!(l["remoteType"], "streamable-http", "{id}");
        assert_eq!(l["issues"], json!([]), "{id}");
        assert!(l["http"]["posts"].as_u64().expect("posts") > 0, "{id}");
    }
    // The guarded server echoed the header it got; the line shows it masked.
    assert_eq!(
        line(&lines, "remote-env-token")["serverInfo"]["version"],
        "[REDACTED]"
    );
    assert_eq!(
        line(&lines, "remote-literal-token")["serverInfo"]["version"],
        "[REDACTED]"
    );

    let missing = line(&lines, "remote-missing-header");
    assert_eq!(missing["status"], "needs-configuration");
    assert_eq!(missing["missing"], json!(["header Authorization"]));
    let not_passed = line(&lines, "remote-env-not-passed");
    assert_eq!(not_passed["status"], "needs-configuration");
    assert_eq!(
        not_passed["missing"],
        json!([
            "header Authorization (from SWEEP_REMOTE_OTHER: add --pass-env SWEEP_REMOTE_OTHER)"
        ])
    );
    let hosted_secret = line(&lines, "io.example/hosted-secret@1.0.0");
    assert_eq!(hosted_secret["status"], "needs-configuration");
    assert_eq!(
        hosted_secret["missing"],
        json!(["header Authorization (secret)"])
    );
    let private = line(&lines, "remote-private");
    assert_eq!(private["status"], "not-asked");
    assert_eq!(
        private["reason"],
        "refused to dial 10.255.255.1 (a private network address); add --remote-allow-unsafe to allow it"
    );

    let results_text = std::fs::read_to_string(&out).expect("results");
    for secret in [ENV_TOKEN, LITERAL_TOKEN, "never-passed-value"] {
        assert!(!results_text.contains(secret), "results hold {secret}");
        assert!(!stderr.contains(secret) && !stdout.contains(secret));
    }

    // sweep-report counts the remote runs with the others.
    let report = mcpcheck()
        .args(["sweep-report", "--format", "json"])
        .arg(&out)
        .output()
        .expect("sweep-report");
    assert_eq!(report.status.code(), Some(0));
    let doc: Value = serde_json::from_slice(&report.stdout).expect("report JSON");
    assert_eq!(
        doc["totals"]["statuses"],
        json!({"pass": 6, "needs-configuration": 3, "not-asked": 1})
    );
    assert!(!String::from_utf8_lossy(&report.stdout).contains(ENV_TOKEN));
}

#[test]
fn a_wrong_header_value_is_guarded_and_fails_without_showing_it() {
    let guarded = HttpServer::fixture_with("http_requires_token", &[ENV_TOKEN]);
    let dir = tempfile::tempdir().expect("tempdir");
    let wrong = "wrong-t0ken-5c3e11";
    let manifest = write_manifest(
        dir.path(),
        &[
            json!({"id": "wrong", "url": guarded.url("/mcp"), "headers": {"Authorization": format!("Bearer {wrong}")}}),
        ],
    );
    let out = dir.path().join("r.jsonl");
    let run = sweep(&[
        manifest.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
        "--remote",
    ]);
    assert_eq!(run.status.code(), Some(0));
    let lines = lines(&out);
    assert_eq!(lines[0]["status"], "fail", "{}", lines[0]);
    assert!(
        lines[0]["issues"]
            .as_array()
            .expect("issues")
            .iter()
            .any(|i| i["code"] == "http-error-status"),
        "{}",
        lines[0]
    );
    let text = std::fs::read_to_string(&out).expect("results");
    assert!(!text.contains(wrong));
    assert!(!String::from_utf8_lossy(&run.stderr).contains(wrong));
}

#[test]
fn without_remote_the_entries_are_listed_not_asked_with_how_to_enable() {
    let dir = tempfile::tempdir().expect("tempdir");
    let secret = "unsent-t0ken-90ab";
    let entries = vec![
        json!({"id": "remote", "url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": format!("Bearer {secret}")}}),
        json!({"name": "io.example/hosted", "version": "1.0.0",
               "remotes": [{"type": "sse", "url": "http://127.0.0.1:9/sse"}]}),
    ];
    let manifest = write_manifest(dir.path(), &entries);
    let out = dir.path().join("r.jsonl");
    let run = sweep(&[
        manifest.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(run.status.code(), Some(0));
    let lines = lines(&out);
    assert_eq!(line(&lines, "remote")["status"], "not-asked");
    assert_eq!(
        line(&lines, "remote")["reason"],
        "remote-only server (streamable-http); mcpcheck sweeps servers it can start over stdio; add --remote to guard it over HTTP"
    );
    assert_eq!(
        line(&lines, "io.example/hosted@1.0.0")["reason"],
        "remote-only server (sse); mcpcheck sweeps servers it can start over stdio; add --remote to guard it over HTTP"
    );
    assert!(!std::fs::read_to_string(&out)
        .expect("results")
        .contains(secret));
    let summary = String::from_utf8_lossy(&run.stdout);
    assert!(
        summary
            .lines()
            .any(|l| l == "  2 remote servers not asked: add --remote to guard them over HTTP"),
        "{summary}"
    );
}

#[test]
fn bad_remote_entries_are_one_line_and_exit_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (entry, expected) in [
        (
            json!({"id": "r", "url": "ftp://x/mcp"}),
            "is not an http:// or https:// URL with a host",
        ),
        (
            json!({"id": "r", "url": "https://x/mcp", "headers": {"Bad Name": "v"}}),
            "header name \"Bad Name\" is not valid",
        ),
        (
            json!({"id": "r", "url": "https://x/mcp", "headers": {"A": {"env": ""}}}),
            "header A: `env` must name a variable",
        ),
    ] {
        let manifest = write_manifest(dir.path(), &[entry]);
        let out = dir.path().join("bad.jsonl");
        let run = sweep(&[
            manifest.to_str().expect("utf-8"),
            "--out",
            out.to_str().expect("utf-8"),
            "--remote",
        ]);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(expected), "{stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    }
}

#[test]
fn registry_remotes_on_real_sdk_and_legacy_servers_match_single_guard_runs() {
    let ts_dir = support::repo().join("tests/fixtures/sdk/ts");
    assert!(
        ts_dir.join("node_modules/@modelcontextprotocol/sdk").is_dir(),
        "TypeScript SDK fixtures are not installed: run scripts/install-fixtures (scripts/test does)"
    );
    let script = ts_dir.join("http_server.mjs").display().to_string();
    let ts = HttpServer::command(
        "node",
        &[script.as_str(), "{port}", "stateful"],
        support::http::free_port(),
    );
    let legacy = HttpServer::fixture("http_legacy_sse");
    let dir = tempfile::tempdir().expect("tempdir");
    // The TS server's port comes from the wrapper's inputs, as a package's {variables} do;
    // its streamable-http remote is preferred to the (dead) sse one listed first.
    let entries = vec![
        json!({"id": "ts-sdk", "inputs": {"port": ts.port.to_string()},
               "server": {"name": "io.example/ts-sdk", "version": "1.0.0",
                          "packages": [{"registryType": "mcpb", "identifier": "https://x/y.mcpb"}],
                          "remotes": [{"type": "sse", "url": "http://127.0.0.1:9/unused"},
                                      {"type": "streamable-http", "url": "http://127.0.0.1:{port}/mcp",
                                       "variables": {"port": {"isRequired": true}}}]}}),
        json!({"id": "legacy",
               "server": {"name": "io.example/legacy", "version": "1.0.0",
                          "remotes": [{"type": "sse", "url": legacy.url("/mcp")}]}}),
    ];
    let manifest = write_manifest(dir.path(), &entries);
    let out = dir.path().join("r.jsonl");
    let run = sweep(&[
        manifest.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
        "--remote",
        "--jobs",
        "1",
    ]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let lines = lines(&out);
    let ts_line = line(&lines, "ts-sdk");
    assert_eq!(ts_line["status"], "pass", "{ts_line}");
    assert_eq!(ts_line["http"]["url"], ts.url("/mcp"));
    assert_eq!(ts_line["http"]["sessionIdIssued"], true);
    let single = support::http::guard_url(&ts.url("/mcp"), &[]);
    assert_eq!(verdict(ts_line), verdict(&single.json));
    let legacy_line = line(&lines, "legacy");
    let single = support::http::guard_url(&legacy.url("/mcp"), &[]);
    assert_eq!(
        verdict(legacy_line),
        (
            "warning".to_string(),
            vec![("http-legacy-sse".to_string(), "warning".to_string())]
        )
    );
    assert_eq!(verdict(legacy_line), verdict(&single.json));
}

/// A server.json `sse` remote is guarded over the legacy transport: the line says both names,
/// the server.json one (`remoteType`) and the guard's (`transport`); without `--remote` the
/// not-asked line names it too.
#[test]
fn an_sse_remote_carries_its_server_json_name_beside_the_guards_transport() {
    let legacy = HttpServer::fixture("http_legacy_sse");
    let dir = tempfile::tempdir().expect("tempdir");
    let manifest = write_manifest(
        dir.path(),
        &[json!({"name": "io.example/legacy", "version": "1.0.0",
                 "remotes": [{"type": "sse", "url": legacy.url("/sse")}]})],
    );
    for (remote, status, transport) in [
        (true, json!("warning"), json!("sse")),
        (false, json!("not-asked"), Value::Null),
    ] {
        let out = dir.path().join(format!("r-{remote}.jsonl"));
        let mut args = vec![
            manifest.to_str().expect("utf-8"),
            "--out",
            out.to_str().expect("utf-8"),
        ];
        if remote {
            args.push("--remote");
        }
        let run = sweep(&args);
        assert_eq!(run.status.code(), Some(0), "{remote}");
        let lines = lines(&out);
        let l = line(&lines, "io.example/legacy@1.0.0");
        assert_eq!(l["status"], status, "{l}");
        assert_eq!(l["transport"], transport, "{l}");
        assert_eq!(l["remoteType"], "sse", "{l}");
    }
}
