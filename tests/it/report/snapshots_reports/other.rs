//! `proxy --report/--sarif` from a short session, `explain`, `rules`, `init`, and one-line
//! usage errors.

use crate::support::mcpcheck;
use crate::support::sarif::validate_sarif;
use crate::support::schema::{every_schema_compiles, validate_text, ReportKind};
use crate::support::snapshot::{exact_settings, finish, run, settings};
use crate::support::workspace::{Workspace, PYPROJECT};
use std::io::Write;
use std::process::Stdio;

#[test]
fn proxy_report_and_sarif_of_a_short_session() {
    let server = "banner_before_initialize";
    let ws = Workspace::new(server, Some(("pyproject.toml", PYPROJECT)));
    let mut child = ws
        .mcpcheck()
        .args(["proxy", "--format", "json", "--report", "session.json"])
        .args(["--sarif", "session.sarif", "--", "python3"])
        .arg(format!("{server}.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("proxy");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(concat!(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
            "\n",
        ).as_bytes())
        .expect("write the session");
    drop(stdin);
    let out = finish(child.wait_with_output().expect("proxy output"));
    assert_eq!(out.exit, 0, "{}", out.stderr);
    let report = std::fs::read_to_string(ws.path().join("session.json")).expect("report");
    let sarif = std::fs::read_to_string(ws.path().join("session.sarif")).expect("sarif");
    validate_sarif(&sarif);
    validate_text(ReportKind::Proxy, &report);
    settings(&[ws.path()]).bind(|| {
        insta::assert_snapshot!("proxy_report_json", report);
        insta::assert_snapshot!("proxy_sarif", sarif);
    });
}

#[test]
fn every_published_schema_compiles() {
    every_schema_compiles();
}

#[test]
fn explain_and_rules() {
    exact_settings(&[]).bind(|| {
        for code in [
            "stdout-non-json",
            "ssrf-reachable-target",
            "static-stdout-write",
        ] {
            let r = run(mcpcheck().args(["explain", code]));
            assert_eq!((r.exit, r.stderr.as_str()), (0, ""), "{code}");
            insta::assert_snapshot!(format!("explain_{code}"), r.stdout);
        }
        let r = run(mcpcheck().arg("rules"));
        assert_eq!((r.exit, r.stderr.as_str()), (0, ""));
        insta::assert_snapshot!("rules", r.stdout);
    });
}

#[test]
fn init_workflow_and_message() {
    let dir = tempfile::tempdir().expect("tempdir");
    // A repository `npm ci` + `node dist/index.js` are right for: a lockfile, the entry built.
    for (name, content) in [
        (
            "package.json",
            r#"{"name": "s", "bin": {"s": "dist/index.js"}}"#,
        ),
        (
            "package-lock.json",
            r#"{"name": "s", "lockfileVersion": 3}"#,
        ),
        ("dist/index.js", ""),
    ] {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, content).expect("write");
    }
    let r = run(mcpcheck().current_dir(dir.path()).arg("init"));
    assert_eq!((r.exit, r.stderr.as_str()), (0, ""));
    let workflow = std::fs::read_to_string(dir.path().join(".github/workflows/mcpcheck.yml"))
        .expect("workflow written");
    exact_settings(&[dir.path()]).bind(|| {
        insta::assert_snapshot!("init_message", r.stdout);
        insta::assert_snapshot!("init_workflow", workflow);
    });
}

/// Bad input of each subcommand: exit code 2, nothing on stdout, one line on stderr.
#[test]
fn usage_errors_are_one_line() {
    let cases: &[&[&str]] = &[
        &["guard"],
        &["guard", "--timeout", "0", "--", "true"],
        &["guard", "--protocol", "1999-01-01", "--", "true"],
        &["guard", "--adversarial-probes", "bogus", "--", "true"],
        &["guard", "--params", "{}", "--", "true"],
        &["guard", "--anchor", "/etc/hostname", "--", "true"],
        &["explain", "no-such-code"],
        &["source", "no/such/path"],
        &["scan", "missing.json"],
        &["inventory", "--format", "sarif"],
        &["surface", "missing.json"],
        &["sweep", "missing.json", "--out", "results.jsonl"],
        &["sweep-report", "missing.jsonl"],
        &[
            "proxy", "--format", "human", "--report", "r.txt", "--", "true",
        ],
    ];
    let dir = tempfile::tempdir().expect("tempdir");
    let mut transcript = String::new();
    for args in cases {
        let r = run(mcpcheck().current_dir(dir.path()).args(*args));
        assert_eq!(r.exit, 2, "{args:?}: {}", r.stderr);
        assert_eq!(r.stdout, "", "{args:?}");
        assert_eq!(r.stderr.lines().count(), 1, "{args:?}: {}", r.stderr);
        transcript.push_str(&format!("$ mcpcheck {}\n{}", args.join(" "), r.stderr));
    }
    exact_settings(&[dir.path()]).bind(|| insta::assert_snapshot!("usage_errors", transcript));
}
