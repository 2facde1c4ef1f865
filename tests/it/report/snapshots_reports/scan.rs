//! The reports that need no server: `source`, `surface`, `scan`, `inventory`, and the files
//! `baseline` and `pin` write.

use crate::support::sarif::validate_sarif;
use crate::support::schema::{validate_text, ReportKind};
use crate::support::snapshot::{run, settings};
use crate::support::{mcpcheck, repo};
use std::path::Path;

const FORMATS: [&str; 4] = ["human", "json", "sarif", "markdown"];

/// Runs `mcpcheck ARGS` in `dir`; the exit code must be `exit` and stderr empty.
fn report(dir: &Path, args: &[&str], exit: i32) -> String {
    let r = run(mcpcheck().current_dir(dir).args(args));
    assert_eq!(r.exit, exit, "{args:?}: {}", r.stderr);
    assert_eq!(r.stderr, "", "{args:?}");
    r.stdout
}

/// `mcpcheck COMMAND --format F FILES` for every format, run in `dir`.
fn every_format(name: &str, dir: &Path, command: &str, files: &[&str], exit: i32) {
    settings(&[]).bind(|| {
        for format in FORMATS {
            let mut args = vec![command, "--format", format];
            args.extend_from_slice(files);
            let text = report(dir, &args, exit);
            if format == "sarif" {
                validate_sarif(&text);
            }
            if format == "json" {
                let kind = match command {
                    "source" => ReportKind::Source,
                    "surface" => ReportKind::Surface,
                    _ => ReportKind::Scan,
                };
                validate_text(kind, &text);
            }
            insta::assert_snapshot!(format!("{name}_{format}"), text);
        }
    });
}

#[test]
fn source_reports() {
    let dir = repo().join("tests/fixtures/source/python");
    let both = ["print_writes_stdout.py", "print_lookalikes.py"];
    every_format("source_findings", &dir, "source", &both, 0);
    every_format("source_clean", &dir, "source", &["print_lookalikes.py"], 0);
}

#[test]
fn surface_reports() {
    let dir = repo().join("tests/fixtures/listings");
    let poisoned = ["tool_shadowing.json", "exfiltration_parameter.json"];
    every_format("surface_findings", &dir, "surface", &poisoned, 1);
    let benign = ["tool_shadowing_benign.json"];
    every_format("surface_clean", &dir, "surface", &benign, 0);
}

const CONFIGS: [&str; 2] = [
    "remote_script_execution.malicious.json",
    "unknown_server_entry.malicious.json",
];

#[test]
fn scan_reports() {
    let dir = repo().join("tests/fixtures/configs");
    every_format("scan_findings", &dir, "scan", &CONFIGS, 1);
    let clean = ["shell_command_wrapper.benign.json"];
    every_format("scan_clean", &dir, "scan", &clean, 0);
}

#[test]
fn inventory_reports() {
    let dir = repo().join("tests/fixtures/configs");
    settings(&[]).bind(|| {
        for format in ["human", "json"] {
            let mut args = vec!["inventory", "--format", format];
            args.extend_from_slice(&CONFIGS);
            let text = report(&dir, &args, 0);
            if format == "json" {
                validate_text(ReportKind::Inventory, &text);
            }
            insta::assert_snapshot!(format!("inventory_{format}"), text);
        }
    });
}

/// `baseline` or `pin` in a fresh directory holding the configs: its message and its file.
fn written_file(command: &str, file: &str, kind: ReportKind) {
    let dir = tempfile::tempdir().expect("tempdir");
    for config in CONFIGS {
        std::fs::copy(
            repo().join("tests/fixtures/configs").join(config),
            dir.path().join(config),
        )
        .expect("copy config");
    }
    let mut args = vec![command];
    args.extend_from_slice(&CONFIGS);
    let message = report(dir.path(), &args, 0);
    let written = std::fs::read_to_string(dir.path().join(file)).expect("file written");
    validate_text(kind, &written);
    settings(&[dir.path()]).bind(|| {
        insta::assert_snapshot!(format!("{command}_message"), message);
        insta::assert_snapshot!(format!("{command}_file"), written);
    });
}

#[test]
fn baseline_file_and_message() {
    written_file("baseline", ".mcpcheck-baseline.json", ReportKind::Baseline);
}

#[test]
fn pin_file_and_message() {
    written_file("pin", ".mcpcheck-lock.json", ReportKind::Lock);
}
