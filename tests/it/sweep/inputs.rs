//! `mcpcheck sweep` inputs and `sweep-report`: shards, registry entries, bad input, Markdown.

use crate::support;

use serde_json::{json, Value};
use support::mcpcheck;
use support::sweep::*;

/// 64-bit FNV-1a, written out again here so a change to the sweep's hash fails this test.
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

#[test]
fn three_shards_cover_the_manifest_exactly_once_and_merge_into_one_report() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pid_file = dir.path().join("pids");
    let mut entries = Vec::new();
    let mut all_ids = Vec::new();
    for n in 0..6 {
        let s = Server {
            id: format!("clean-{n}"),
            fixture: "clean",
        };
        entries.push(entry(&s, &pid_file));
        all_ids.push(s.id);
    }
    for n in 0..24 {
        let id = format!("needs-config-{n}");
        entries.push(json!({"id": id, "command": ["x"], "env": {"SECRET": null}}));
        all_ids.push(id);
    }
    all_ids.sort();
    let manifest = write_manifest(dir.path(), &entries);
    let mut files = Vec::new();
    for i in 1..=3u64 {
        let out = dir.path().join(format!("shard-{i}.jsonl"));
        let run = sweep(&[
            manifest.to_str().expect("utf-8"),
            "--out",
            out.to_str().expect("utf-8"),
            "--shard",
            &format!("{i}/3"),
            "--jobs",
            "3",
        ]);
        assert_eq!(
            run.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        assert!(String::from_utf8_lossy(&run.stdout).contains(&format!("shard {i}/3")));
        let got = ids(&lines(&out));
        let mut want: Vec<String> = all_ids
            .iter()
            .filter(|id| fnv1a64(id.as_bytes()) % 3 == i - 1)
            .cloned()
            .collect();
        want.sort();
        assert_eq!(got, want, "shard {i}/3 holds exactly its hash share");
        files.push(out);
    }
    assert_no_survivors(&pid_file);
    let report = mcpcheck()
        .arg("sweep-report")
        .args(&files)
        .args(["--format", "json"])
        .output()
        .expect("sweep-report");
    assert_eq!(report.status.code(), Some(0));
    let doc: Value = serde_json::from_slice(&report.stdout).expect("JSON report");
    let mut merged: Vec<String> = doc["servers"]
        .as_array()
        .expect("servers")
        .iter()
        .map(|s| s["id"].as_str().expect("id").to_string())
        .collect();
    merged.sort();
    assert_eq!(merged, all_ids, "the merged report has every id once");
    assert_eq!(doc["totals"]["servers"], 30);
    assert_eq!(
        doc["totals"]["statuses"],
        json!({"pass": 6, "needs-configuration": 24})
    );
    assert_eq!(doc["totals"]["duplicatesReplaced"], 0);
    assert_eq!(doc["timing"]["count"], 6);
    assert_eq!(doc["files"].as_array().expect("files").len(), 3);
}

#[test]
fn registry_entries_needing_values_or_remote_only_are_recorded_not_started() {
    let dir = tempfile::tempdir().expect("tempdir");
    let manifest = dir.path().join("servers.jsonl");
    std::fs::write(
        &manifest,
        concat!(
            r#"{"name":"io.github.example/weather","version":"0.5.0","packages":[{"registryType":"pypi","identifier":"weather-mcp","version":"0.5.0","runtimeHint":"uvx","transport":{"type":"stdio"},"environmentVariables":[{"name":"WEATHER_API_KEY","isRequired":true,"isSecret":true},{"name":"UNITS","default":"celsius"}]}]}"#,
            "\n",
            r#"{"name":"io.github.example/hosted","version":"1.0.0","remotes":[{"type":"sse","url":"https://example.com/sse"}]}"#,
            "\n",
        ),
    )
    .expect("manifest");
    let out = dir.path().join("r.jsonl");
    let run = sweep(&[
        manifest.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(run.status.code(), Some(0));
    let results = lines(&out);
    let weather = results
        .iter()
        .find(|l| l["id"] == "io.github.example/weather@0.5.0")
        .expect("weather");
    assert_eq!(weather["status"], "needs-configuration");
    assert_eq!(weather["missing"], json!(["WEATHER_API_KEY (secret)"]));
    let hosted = results
        .iter()
        .find(|l| l["id"] == "io.github.example/hosted@1.0.0")
        .expect("hosted");
    assert_eq!(hosted["status"], "not-asked");
    assert_eq!(
        hosted["reason"],
        "remote-only server (sse); mcpcheck sweeps servers it can start over stdio; add --remote to guard it over HTTP"
    );
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let manifest = write_manifest(
        dir.path(),
        &[
            json!({"id": "a", "command": ["x"]}),
            json!({"id": "a", "command": ["y"]}),
        ],
    );
    let out = dir.path().join("r.jsonl");
    let m = manifest.to_str().expect("utf-8");
    let o = out.to_str().expect("utf-8");
    assert_usage_error(
        &sweep(&[m, "--out", o]),
        "id \"a\" appears at entry 1 and again at entry 2",
    );
    let good = write_manifest(
        dir.path(),
        &[json!({"id": "a", "command": ["x"], "env": {"K": null}})],
    );
    let g = good.to_str().expect("utf-8");
    assert_usage_error(
        &sweep(&[g, "--out", o, "--shard", "4/3"]),
        "--shard \"4/3\": expected I/N",
    );
    assert_usage_error(
        &sweep(&[g, "--out", o, "--jobs", "0"]),
        "--jobs 0: give 1 to 256",
    );
    assert_usage_error(
        &sweep(&[g, "--out", o, "--profile", "fast"]),
        "unknown profile \"fast\"",
    );
    assert_usage_error(
        &sweep(&[g, "--out", o, "--timeout", "0"]),
        "--timeout must be at least 1 ms",
    );
    assert_usage_error(
        &sweep(&[g, "--out", "/nonexistent/dir/r.jsonl"]),
        "the directory does not exist",
    );
    assert_usage_error(
        &sweep(&[
            &dir.path().join("missing.json").display().to_string(),
            "--out",
            o,
        ]),
        "cannot read it",
    );
    assert_eq!(sweep(&[g, "--out", o]).status.code(), Some(0));
    assert_usage_error(
        &sweep(&[g, "--out", o]),
        "already has results; add --resume",
    );
    let report = |args: &[&str]| {
        mcpcheck()
            .arg("sweep-report")
            .args(args)
            .output()
            .expect("sweep-report")
    };
    // The merged results as SARIF: every server's findings, named after the server.
    let sarif = report(&[o, "--format", "sarif"]);
    assert_eq!(sarif.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&sarif.stdout).expect("SARIF JSON");
    assert_eq!(doc["version"], "2.1.0");
    assert!(doc["runs"][0]["results"].is_array());
    assert_usage_error(
        &report(&["/nonexistent.jsonl"]),
        "results /nonexistent.jsonl: cannot read it",
    );
}

/// Markdown with every code span removed: what a renderer would treat as live syntax.
fn outside_code_spans(markdown: &str) -> String {
    let mut out = String::new();
    let mut rest = markdown;
    while let Some(start) = rest.find('`') {
        out.push_str(&rest[..start]);
        let fence_len = rest[start..].chars().take_while(|&c| c == '`').count();
        let fence = "`".repeat(fence_len);
        let after = &rest[start + fence_len..];
        match after.find(&fence) {
            Some(end) => rest = &after[end + fence_len..],
            None => panic!("unclosed code span in: {after}"),
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn the_markdown_report_keeps_hostile_text_inert() {
    let dir = tempfile::tempdir().expect("tempdir");
    let results = dir.path().join("r.jsonl");
    let hostile = "<img src=x onerror=alert(1)> @octocat [c](https://evil.example) ![i](https://evil.example/i.png) | `t` **bold**";
    let line = json!({
        "id": hostile, "status": "fail", "startedAt": "2026-01-01T00:00:00.000Z", "wallMs": 1200,
        "summary": {"status": "fail", "primaryIssueCode": "stdout-non-json", "issueClass": "stdioTransport", "issueCounts": {"error": 1, "warning": 0}},
        "serverInfo": {"name": hostile},
        "command": ["node", hostile],
        "issues": [{"code": "stdout-non-json", "severity": "error", "class": "stdioTransport", "message": hostile}],
    });
    std::fs::write(&results, format!("{line}\n")).expect("results");
    let out = mcpcheck()
        .args([
            "sweep-report",
            results.to_str().expect("utf-8"),
            "--format",
            "markdown",
        ])
        .output()
        .expect("report");
    assert_eq!(out.status.code(), Some(0));
    let md = String::from_utf8(out.stdout).expect("utf-8");
    assert!(md.contains("| 1 | `fail` | ``<img src=x onerror=alert(1)> @octocat [c](https://evil.example) ![i](https://evil.example/i.png) \\| `t` **bold**`` | `stdout-non-json` | ``<img src=x onerror=alert(1)> @octocat [c](https://evil.example) ![i](https://evil.example/i.png) \\| `t` **bold**`` | - | 1.2 s | [details](#server-1) |"), "{md}");
    let live = outside_code_spans(&md);
    for needle in ["<img", "@octocat", "evil.example", "**bold**"] {
        assert!(!live.contains(needle), "{needle} is live in:\n{live}");
    }
    assert!(md.contains("\n#### server-1\n"));
    let human = mcpcheck()
        .args(["sweep-report", results.to_str().expect("utf-8")])
        .output()
        .expect("report");
    let text = String::from_utf8(human.stdout).expect("utf-8");
    assert!(
        text.starts_with("mcpcheck sweep-report: 1 server from 1 file\n  fail 1\n"),
        "{text}"
    );
    assert!(text.contains("stdout-non-json"), "{text}");
}

#[test]
fn the_sweep_flags_reach_every_guard_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("guard.json");
    std::fs::write(&config, r#"{"requests": ["ping"], "command": ["ignored"]}"#).expect("config");
    let pid_file = dir.path().join("pids");
    let servers = servers(&["clean", "clean"]);
    let manifest = write_manifest(
        dir.path(),
        &servers
            .iter()
            .map(|s| entry(s, &pid_file))
            .collect::<Vec<_>>(),
    );
    let out = dir.path().join("r.jsonl");
    let run = sweep(&[
        manifest.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
        "--profile",
        "smoke",
        "--timeout",
        "3000",
        "--config",
        config.to_str().expect("utf-8"),
    ]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    for line in lines(&out) {
        assert_eq!(line["profile"], "smoke");
        assert_eq!(line["fingerprint"]["timings"]["timeoutMs"], 3000);
        // Smoke skips the list probes; the config's request runs; the entry's command wins.
        let methods: Vec<&str> = line["exchanges"]
            .as_array()
            .expect("exchanges")
            .iter()
            .filter_map(|o| o["method"].as_str())
            .collect();
        assert_eq!(methods, ["initialize", "ping"], "{line}");
        assert_eq!(line["command"][1], json!(support::fixture("clean")));
    }
}

#[test]
fn the_human_report_s_columns_fit_the_longest_id() {
    let dir = tempfile::tempdir().expect("tempdir");
    let results = dir.path().join("r.jsonl");
    let entry = |id: &str, status: &str, code: Option<&str>| {
        json!({
            "id": id, "status": status, "startedAt": "2026-01-01T00:00:00.000Z", "wallMs": 900,
            "summary": {"status": status, "issueClass": "", "primaryIssueCode": code.unwrap_or(""),
                        "issueCounts": {"error": 0, "warning": 0}},
            "issues": [], "command": ["node", "s.js"], "serverInfo": null,
        })
    };
    let long = "io.github.modelcontextprotocol/server-brave-search@0.6.2";
    let lines = [
        entry("short", "pass", None),
        entry(long, "needs_inspection", Some("server-exited")),
    ];
    std::fs::write(&results, format!("{}\n{}\n", lines[0], lines[1])).expect("results");
    let out = mcpcheck()
        .args(["sweep-report", results.to_str().expect("utf-8")])
        .output()
        .expect("report");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let table: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "servers")
        .skip(1)
        .collect();
    assert_eq!(table.len(), 3, "{text}");
    // Every row's issue cell starts where the header's PRIMARY ISSUE does.
    let at = table[0].find("PRIMARY ISSUE").expect("header");
    assert!(table[0].find("ID").expect("id") + long.len() < at, "{text}");
    for (row, cell) in table[1..].iter().zip(["server-exited", "-"]) {
        assert_eq!(row.get(at..at + cell.len()), Some(cell), "{text}");
    }
}
