//! What a person at a terminal sees while the guard waits, and after it writes a report to a
//! file (issue 28 item 4). A pseudo-terminal comes from Python's standard `pty` module.

use crate::support;
use std::process::Command;
use support::*;

/// Runs mcpcheck with its stdout and stderr on a pseudo-terminal; returns what was drawn.
fn on_a_terminal(args: &[&str]) -> String {
    let script = r#"
import os, pty, sys
out = []
def read(fd):
    data = os.read(fd, 4096)
    out.append(data)
    return data
pty.spawn(sys.argv[1:], read)
sys.stdout.buffer.write(b"".join(out))
"#;
    let mut cmd = Command::new(python_executable());
    cmd.arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_mcpcheck"))
        .args(args);
    scrub(&mut cmd);
    cmd.env_remove("CI");
    let out = cmd.output().expect("python3 runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_long_wait_shows_progress_on_a_terminal_and_nowhere_else() {
    let server = fixture("never_answers_initialize");
    let drawn = on_a_terminal(&[
        "guard",
        "--timeout",
        "2500",
        "--",
        python_command(),
        &server,
    ]);
    assert!(drawn.contains("waiting for the server"), "{drawn}");
    assert!(drawn.contains("FAIL"), "{drawn}");
    // Through a pipe, or under CI, nothing but the report.
    let piped = mcpcheck()
        .args([
            "guard",
            "--timeout",
            "2500",
            "--",
            python_command(),
            &server,
        ])
        .output()
        .expect("runs");
    assert!(!String::from_utf8_lossy(&piped.stderr).contains("waiting for the server"));
}

#[test]
fn a_report_written_to_a_file_leaves_its_headline_on_the_terminal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let report = dir.path().join("report.json");
    let drawn = on_a_terminal(&[
        "guard",
        "--json",
        "--output",
        report.to_str().expect("utf-8"),
        "--",
        python_command(),
        &fixture("clean"),
    ]);
    // Issue 44 item 11: the headline once, not `PASS  mcpcheck guard: PASS: no issues`.
    assert!(
        drawn.contains("PASS  mcpcheck guard: no issues (report written to"),
        "{drawn}"
    );
    assert!(!drawn.contains("PASS: no issues"), "{drawn}");
    assert!(
        !drawn.contains("\"schemaVersion\""),
        "the report went to the file: {drawn}"
    );
    assert!(std::fs::read_to_string(&report)
        .expect("report")
        .contains("\"schemaVersion\""));
}
