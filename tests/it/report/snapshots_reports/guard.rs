//! `mcpcheck guard` in every format, on a passing and a failing fixture server, to stdout
//! and to `--output FILE`, and `--repeat 2`.

use crate::support::sarif::validate_sarif;
use crate::support::schema::{validate_text, ReportKind};
use crate::support::snapshot::{run, settings, Run};
use crate::support::workspace::{Workspace, PYPROJECT};

const FORMATS: [&str; 4] = ["human", "json", "sarif", "markdown"];

/// Nothing on stderr: a server that answered everything flushed, so `python3` without `-u`
/// gets no buffering note (issue 27 item 5; it used to be a note here, before the report).
const NO_STDERR: &str = "";

fn guard(ws: &Workspace, options: &[&str], server: &str) -> Run {
    run(ws
        .mcpcheck()
        .arg("guard")
        .args(options)
        .args(["--", "python3", &format!("{server}.py")]))
}

/// Every format of one server, to stdout and to a file: both give the same snapshot.
fn every_format(server: &str, exit: i32) {
    let ws = Workspace::new(server, Some(("pyproject.toml", PYPROJECT)));
    settings(&[ws.path()]).bind(|| {
        for format in FORMATS {
            let name = format!("guard_{server}_{format}");
            let printed = guard(&ws, &["--format", format], server);
            assert_eq!(printed.exit, exit, "{name}: {}", printed.stderr);
            assert_eq!(printed.stderr, NO_STDERR, "{name}");
            if format == "sarif" {
                validate_sarif(&printed.stdout);
            }
            if format == "json" {
                validate_text(ReportKind::Guard, &printed.stdout);
            }
            insta::assert_snapshot!(name.clone(), printed.stdout);

            let file = ws.path().join(format!("report.{format}"));
            let file_arg = file.display().to_string();
            let written = guard(&ws, &["--format", format, "--output", &file_arg], server);
            assert_eq!(written.exit, exit, "{name} --output: {}", written.stderr);
            assert_eq!(written.stdout, "", "{name}: --output leaves stdout empty");
            assert_eq!(written.stderr, NO_STDERR, "{name} --output");
            let text = std::fs::read_to_string(&file).expect("report written");
            insta::assert_snapshot!(name, text);
        }
    });
}

#[test]
fn guard_reports_of_a_passing_server() {
    every_format("clean", 0);
}

#[test]
fn guard_reports_of_a_failing_server() {
    every_format("banner_before_initialize", 1);
}

#[test]
fn guard_repeat_json() {
    let server = "banner_before_initialize";
    let ws = Workspace::new(server, Some(("pyproject.toml", PYPROJECT)));
    let r = guard(&ws, &["--repeat", "2", "--json"], server);
    assert_eq!(r.exit, 1, "{}", r.stderr);
    validate_text(ReportKind::Guard, &r.stdout);
    assert_eq!(r.stderr, NO_STDERR);
    settings(&[ws.path()]).bind(|| insta::assert_snapshot!("guard_repeat_2_json", r.stdout));
}
