//! Source scan, Python: print, sys.stdout, logging, rich, click/typer, loguru, structlog.

mod source_common;
use source_common::*;

const W: &str = "static-stdout-write";
const L: &str = "static-stdout-logger";

#[test]
fn print_calls_that_reach_stdout_are_found_with_a_file_edit() {
    let scan = expect_findings(
        "python",
        "print_writes_stdout.py",
        &[
            (W, "warning", 6, 1),
            (W, "warning", 7, 1),
            (W, "warning", 11, 1),
            (W, "warning", 12, 1),
            (W, "warning", 13, 1),
            (W, "warning", 14, 1),
            (W, "warning", 16, 1),
            (W, "warning", 17, 1),
            (W, "warning", 21, 5),
            (W, "warning", 27, 9),
        ],
    );
    expect_end(&scan, 7, (10, 2));
    // `print(x)` → `print(x, file=sys.stderr)`: the closing parenthesis is rewritten.
    expect_replacement(&scan, 6, ", file=sys.stderr)", (6, 24), (6, 25));
    expect_replacement(&scan, 7, " file=sys.stderr)", (10, 1), (10, 2));
    expect_replacement(&scan, 13, "file=sys.stderr)", (13, 7), (13, 8));
    // `file=sys.stdout` → `file=sys.stderr`.
    expect_replacement(&scan, 11, "stderr", (11, 35), (11, 41));
    assert_eq!(scan.at(6)["language"], "python");
}

#[test]
fn print_lookalikes_are_not_reported() {
    expect_findings("python", "print_lookalikes.py", &[]);
}

#[test]
fn sys_stdout_writes_are_found_through_imports_and_aliases() {
    let scan = expect_findings(
        "python",
        "sys_stdout_writes.py",
        &[
            (W, "warning", 7, 1),
            (W, "warning", 8, 1),
            (W, "warning", 9, 1),
            (W, "warning", 10, 1),
            (W, "warning", 11, 1),
            (W, "warning", 12, 1),
            (W, "warning", 13, 1),
            (W, "warning", 15, 1),
            (W, "warning", 16, 1),
            (W, "warning", 17, 1),
        ],
    );
    no_replacement(&scan, 7);
}

#[test]
fn sys_stdout_lookalikes_and_json_rpc_lines_are_not_reported() {
    expect_findings("python", "sys_stdout_lookalikes.py", &[]);
}

#[test]
fn loggers_on_stdout_are_found() {
    expect_findings(
        "python",
        "loggers_to_stdout.py",
        &[
            (L, "warning", 8, 1),
            (L, "warning", 9, 11),
            (L, "warning", 10, 9),
            (L, "warning", 17, 17),
            (L, "warning", 22, 1),
            (L, "warning", 23, 36),
        ],
    );
}

#[test]
fn loggers_on_stderr_are_not_reported() {
    expect_findings("python", "loggers_to_stderr.py", &[]);
}

#[test]
fn rich_and_click_output_on_stdout_is_found() {
    expect_findings(
        "python",
        "rich_click_to_stdout.py",
        &[
            (W, "warning", 8, 1),
            (W, "warning", 9, 1),
            (L, "warning", 10, 11),
            (L, "warning", 11, 11),
            (W, "warning", 12, 1),
            (W, "warning", 13, 1),
            (W, "warning", 14, 1),
        ],
    );
}

#[test]
fn rich_and_click_output_on_stderr_is_not_reported() {
    expect_findings("python", "rich_click_to_stderr.py", &[]);
}
