//! A credential that a server prints never reaches a report, in any format.

use crate::support;
use support::*;

const TOKEN: &str = "ghp_R7mKq2XvB9tLw4ZpN8cYd3HsJ6fGa1QeU5oT";

#[test]
fn a_token_the_server_prints_on_stdout_is_masked_in_every_format() {
    let server = fixture("prints_a_token_on_stdout");
    for format in ["human", "json", "sarif", "markdown"] {
        let out = mcpcheck()
            .args(["guard", "--format", format, "--", python_command(), &server])
            .output()
            .expect("run mcpcheck");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{format}: {stderr}");
        assert!(stdout.contains("stdout-non-json"), "{format}: {stdout}");
        // The finding still says what was printed, with the token masked.
        assert!(stdout.contains("debug: using token"), "{format}: {stdout}");
        assert!(
            !stdout.contains(TOKEN),
            "{format} repeats the token: {stdout}"
        );
        assert!(
            !stdout.contains(&TOKEN[4..20]),
            "{format} repeats part of it"
        );
        assert!(
            !stderr.contains(TOKEN),
            "{format}: stderr repeats the token"
        );
    }
}

#[test]
fn the_proxy_forwards_a_printed_token_untouched_and_masks_it_in_every_report() {
    use std::io::{Read, Write};
    use std::process::Stdio;
    let dir = tempfile::tempdir().expect("tempdir");
    let report = dir.path().join("session.json");
    let sarif = dir.path().join("session.sarif");
    let mut child = mcpcheck()
        .arg("proxy")
        .arg("--report")
        .arg(&report)
        .arg("--sarif")
        .arg(&sarif)
        .args(["--", python_command(), &fixture("prints_a_token_on_stdout")])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("proxy");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n")
        .expect("write");
    drop(stdin);
    let mut forwarded = String::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut forwarded)
        .expect("read stdout");
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .expect("read stderr");
    child.wait().expect("wait");
    // The client gets exactly what the server wrote.
    assert!(
        forwarded.starts_with(&format!("debug: using token {TOKEN}\n")),
        "{forwarded}"
    );
    let report = std::fs::read_to_string(&report).expect("report");
    let sarif = std::fs::read_to_string(&sarif).expect("sarif");
    assert!(stderr.contains("error[stdout-non-json]"), "{stderr}");
    for (name, text) in [
        ("stderr", &stderr),
        ("--report", &report),
        ("--sarif", &sarif),
    ] {
        assert!(text.contains("stdout-non-json"), "{name}: {text}");
        // The reports keep the evidence, masked; the live line on stderr has none.
        if name != "stderr" {
            assert!(text.contains("debug: using token"), "{name}: {text}");
        }
        assert!(!text.contains(TOKEN), "{name} repeats the token: {text}");
        assert!(!text.contains(&TOKEN[4..20]), "{name} repeats part of it");
    }
}
