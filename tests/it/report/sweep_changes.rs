//! `sweep-report --baseline OLD`: what changed since an earlier sweep, the same in the
//! human, JSON, Markdown and HTML reports.

use crate::support::mcpcheck;
use crate::support::schema::{validate_text, ReportKind};
use serde_json::{json, Value};
use std::path::Path;

/// A results line as the sweep writes it, with one finding when `code` is given.
fn line(id: &str, status: &str, code: Option<&str>) -> String {
    let issues: Vec<Value> = code
        .map(|c| json!({"code": c, "severity": "error", "class": "stdioTransport", "message": "m"}))
        .into_iter()
        .collect();
    let v = json!({
        "id": id, "status": status, "startedAt": "2026-01-01T00:00:00.000Z", "wallMs": 10,
        "reproduce": format!("mcpcheck guard -- npx -y {}", id.replace("io.x/", "")),
        "summary": {"issueClass": code.map_or("", |_| "stdioTransport"),
            "primaryIssueCode": code.unwrap_or(""), "issueCounts": {"error": issues.len(), "warning": 0}},
        "issues": issues, "command": ["npx"], "serverInfo": {"name": "s"},
    });
    format!("{v}\n")
}

fn write(dir: &Path) {
    let before = [
        line("io.x/a@1.0.0", "pass", None),
        line("io.x/b@2.0.0", "fail", Some("stdout-non-json")),
        line("io.x/gone@1.0.0", "pass", None),
    ];
    let now = [
        line("io.x/a@1.1.0", "fail", Some("stdout-empty-line")),
        line("io.x/b@2.0.0", "pass", None),
        line("io.x/new@0.1.0", "pass", None),
    ];
    std::fs::write(dir.join("old.jsonl"), before.concat()).expect("old");
    std::fs::write(dir.join("new.jsonl"), now.concat()).expect("new");
}

fn report(dir: &Path, format: &str) -> String {
    let out = mcpcheck()
        .current_dir(dir)
        .args([
            "sweep-report",
            "new.jsonl",
            "--baseline",
            "old.jsonl",
            "--format",
            format,
        ])
        .output()
        .expect("sweep-report");
    assert!(out.status.success(), "{format}: {out:?}");
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn every_format_tells_what_changed_since_the_baseline() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path());

    let human = report(dir.path(), "human");
    let lines: Vec<&str> = human.lines().skip(1).take(6).collect();
    assert_eq!(
        lines,
        [
            "  since the baseline (3 servers): 1 newly broken · 1 fixed · 1 new code · 1 added · 1 gone",
            "    newly broken  io.x/a@1.1.0 (was io.x/a@1.0.0): working (pass) → broken (fail stdout-empty-line)",
            "    fixed         io.x/b@2.0.0: broken (fail stdout-non-json) → working (pass)",
            "    new code      stdout-empty-line (1 server)",
            "    added         io.x/new@0.1.0",
            "    gone          io.x/gone@1.0.0",
        ]
    );

    let json_text = report(dir.path(), "json");
    validate_text(ReportKind::SweepReport, &json_text);
    let v: Value = serde_json::from_str(&json_text).expect("json");
    assert_eq!(
        v["changes"],
        json!({
            "baselineServers": 3,
            "newlyBroken": [{"id": "io.x/a@1.1.0", "wasId": "io.x/a@1.0.0",
                "before": "working (pass)", "now": "broken (fail stdout-empty-line)"}],
            "fixed": [{"id": "io.x/b@2.0.0", "before": "broken (fail stdout-non-json)",
                "now": "working (pass)"}],
            "newCodes": [{"code": "stdout-empty-line", "servers": 1}],
            "added": ["io.x/new@0.1.0"],
            "gone": ["io.x/gone@1.0.0"],
        })
    );
    // The headline counts every format prints, and what the reproduce command says.
    assert_eq!(
        (&v["judged"]["working"], &v["judged"]["broken"]),
        (&json!(2), &json!(1))
    );
    assert_eq!(v["servers"][0]["registryType"], "npm");
    assert_eq!(v["servers"][0]["version"], "1.1.0");

    let markdown = report(dir.path(), "markdown");
    assert!(markdown.contains("## Since the baseline\n\n3 servers in the baseline: **1 newly broken · 1 fixed · 1 new code · 1 added · 1 gone**"), "{markdown}");
    assert!(markdown.contains("Newly broken:\n\n- `io.x/a@1.1.0` (was `io.x/a@1.0.0`): `working (pass)` → `broken (fail stdout-empty-line)`"), "{markdown}");
    assert!(
        markdown.contains("Gone:\n\n- `io.x/gone@1.0.0`"),
        "{markdown}"
    );

    let html = report(dir.path(), "html");
    let changes = html
        .split(r#"<section class="changes""#)
        .nth(1)
        .and_then(|s| s.split("</section>").next())
        .expect("a changes section");
    assert!(changes.contains("<h3>Newly broken (1)</h3><ul><li><code>io.x/a@1.1.0</code> (was <code>io.x/a@1.0.0</code>): working (pass) → broken (fail stdout-empty-line)</li></ul>"), "{changes}");
    assert!(changes.contains("<h3>Gone (1)</h3><ul><li><code>io.x/gone@1.0.0</code></li></ul>"));
    // It comes first, before the headline.
    assert!(html.find("h-changes") < html.find("h-headline"));
}

#[test]
fn a_baseline_that_cannot_be_shown_or_read_is_a_usage_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path());
    for (args, says) in [
        (
            &["--format", "sarif", "--baseline", "old.jsonl"][..],
            "mcpcheck: error: --baseline is not shown in SARIF",
        ),
        (
            &["--baseline", "missing.jsonl"][..],
            "mcpcheck: error: --baseline missing.jsonl: no such file; give the results files of an earlier sweep",
        ),
    ] {
        let out = mcpcheck()
            .current_dir(dir.path())
            .args(["sweep-report", "new.jsonl"])
            .args(args)
            .output()
            .expect("sweep-report");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.starts_with(says), "{stderr}");
        assert!(out.stdout.is_empty());
    }
}
