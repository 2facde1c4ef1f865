//! Source scan, Java, Kotlin and C#: System.out, println, Console and their loggers.

mod source_common;
use source_common::*;

const W: &str = "static-stdout-write";
const L: &str = "static-stdout-logger";

#[test]
fn java_system_out_writes_are_found_with_a_system_err_edit() {
    let scan = expect_findings(
        "java",
        "SystemOutWrites.java",
        &[
            (W, "warning", 5, 9),
            (W, "warning", 6, 9),
            (W, "warning", 7, 9),
            (W, "warning", 9, 9),
            (W, "warning", 11, 9),
            (W, "warning", 12, 9),
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
    expect_findings("java", "StaticImportWrites.java", &[(W, "warning", 5, 9)]);
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
            (L, "warning", 7, 27),
            (L, "warning", 8, 9),
            (L, "warning", 9, 9),
            (L, "warning", 10, 9),
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
            (W, "warning", 4, 5),
            (W, "warning", 5, 5),
            (W, "warning", 6, 5),
            (W, "warning", 9, 5),
            (W, "warning", 10, 5),
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
            (W, "warning", 7, 9),
            (W, "warning", 8, 9),
            (W, "warning", 9, 9),
            (W, "warning", 10, 9),
            (W, "warning", 11, 9),
        ],
    );
    expect_end(&scan, 11, (13, 15));
    expect_replacement(&scan, 7, "Console.Error", (7, 9), (7, 16));
    expect_replacement(&scan, 10, "Error", (10, 17), (10, 20));
    assert_eq!(scan.at(7)["language"], "csharp");
}

#[test]
fn csharp_using_static_console_is_resolved() {
    expect_findings("csharp", "StaticConsoleWrites.cs", &[(W, "warning", 7, 9)]);
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
            (L, "warning", 5, 1),
            (L, "warning", 6, 1),
            (L, "warning", 7, 14),
        ],
    );
}

#[test]
fn csharp_console_loggers_on_stderr_are_not_reported() {
    expect_findings("csharp", "LoggingToStderr.cs", &[]);
}
