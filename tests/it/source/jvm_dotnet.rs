//! Source scan, Java, Kotlin and C#: System.out, println, Console and their loggers.

use crate::support;
use support::source::*;

#[test]
fn java_system_out_writes_are_found_with_a_system_err_edit() {
    let scan = expect_findings(
        "java",
        "SystemOutWrites.java",
        &[
            ("static-stdout-write", "warning", 5, 9),
            ("static-stdout-write", "warning", 6, 9),
            ("static-stdout-write", "warning", 7, 9),
            ("static-stdout-write", "warning", 9, 9),
            ("static-stdout-write", "warning", 11, 9),
            ("static-stdout-write", "warning", 12, 9),
        ],
    );
    expect_end(&scan, 7, (8, 15));
    expect_replacement(&scan, 5, "err", (5, 16), (5, 19));
    expect_replacement(&scan, 9, "err", (9, 26), (9, 29));
    no_replacement(&scan, 11);
    assert_eq!(scan.at(5)["language"], "java");
}

#[test]
fn java_static_imports_of_system_out_are_resolved() {
    expect_findings(
        "java",
        "StaticImportWrites.java",
        &[("static-stdout-write", "warning", 5, 9)],
    );
}

#[test]
fn java_system_out_spread_over_lines_is_found() {
    // Regression: the text prefilter once needed `System.out` written without a break.
    expect_findings(
        "java",
        "SystemOutOverLines.java",
        &[("static-stdout-write", "warning", 3, 9)],
    );
}

#[test]
fn java_lookalikes_and_json_rpc_lines_are_not_reported() {
    expect_findings("java", "SystemOutLookalikes.java", &[]);
}

#[test]
fn java_logging_on_system_out_is_found() {
    expect_findings(
        "java",
        "LoggingToStdout.java",
        &[
            ("static-stdout-logger", "warning", 7, 27),
            ("static-stdout-logger", "warning", 8, 9),
            ("static-stdout-logger", "warning", 9, 9),
            ("static-stdout-logger", "warning", 10, 9),
        ],
    );
}

#[test]
fn java_logging_on_system_err_is_not_reported() {
    expect_findings("java", "LoggingToStderr.java", &[]);
}

#[test]
fn kotlin_println_and_system_out_are_found() {
    let scan = expect_findings(
        "kotlin",
        "println_writes_stdout.kt",
        &[
            ("static-stdout-write", "warning", 4, 5),
            ("static-stdout-write", "warning", 5, 5),
            ("static-stdout-write", "warning", 6, 5),
            ("static-stdout-write", "warning", 9, 5),
            ("static-stdout-write", "warning", 10, 5),
        ],
    );
    expect_end(&scan, 6, (8, 6));
    assert_eq!(scan.at(4)["language"], "kotlin");
}

#[test]
fn kotlin_lookalikes_are_not_reported() {
    expect_findings("kotlin", "println_lookalikes.kt", &[]);
}

#[test]
fn kotlin_files_defining_their_own_println_are_not_reported() {
    expect_findings("kotlin", "own_println.kt", &[]);
}

#[test]
fn csharp_console_writes_are_found_with_a_console_error_edit() {
    let scan = expect_findings(
        "csharp",
        "ConsoleWrites.cs",
        &[
            ("static-stdout-write", "warning", 7, 9),
            ("static-stdout-write", "warning", 8, 9),
            ("static-stdout-write", "warning", 9, 9),
            ("static-stdout-write", "warning", 10, 9),
            ("static-stdout-write", "warning", 11, 9),
        ],
    );
    expect_end(&scan, 11, (13, 15));
    expect_replacement(&scan, 7, "Console.Error", (7, 9), (7, 16));
    expect_replacement(&scan, 10, "Error", (10, 17), (10, 20));
    assert_eq!(scan.at(7)["language"], "csharp");
}

#[test]
fn csharp_using_static_console_is_resolved() {
    expect_findings(
        "csharp",
        "StaticConsoleWrites.cs",
        &[("static-stdout-write", "warning", 7, 9)],
    );
}

#[test]
fn csharp_lookalikes_and_json_rpc_lines_are_not_reported() {
    expect_findings("csharp", "ConsoleLookalikes.cs", &[]);
}

#[test]
fn csharp_console_loggers_on_stdout_are_found() {
    expect_findings(
        "csharp",
        "LoggingToStdout.cs",
        &[
            ("static-stdout-logger", "warning", 5, 1),
            ("static-stdout-logger", "warning", 6, 1),
            ("static-stdout-logger", "warning", 7, 14),
        ],
    );
}

#[test]
fn csharp_console_loggers_on_stderr_are_not_reported() {
    expect_findings("csharp", "LoggingToStderr.cs", &[]);
}
