//! Source scan, Go and Rust: fmt and os.Stdout, println! and std::io::stdout(), and loggers.

use crate::support;
use support::source::*;

#[test]
fn go_fmt_and_os_stdout_writes_are_found_with_a_stderr_edit() {
    let scan = expect_findings(
        "go",
        "fmt_writes_stdout.go",
        &[
            ("static-stdout-write", "warning", 11, 2),
            ("static-stdout-write", "warning", 12, 2),
            ("static-stdout-write", "warning", 14, 2),
            ("static-stdout-write", "warning", 15, 2),
            ("static-stdout-write", "warning", 16, 2),
            ("static-stdout-write", "warning", 18, 2),
            ("static-stdout-write", "warning", 19, 2),
            ("static-stdout-write", "warning", 20, 2),
            ("static-stdout-write", "warning", 21, 2),
            ("static-stdout-write", "warning", 23, 2),
        ],
    );
    expect_end(&scan, 12, (13, 11));
    // `fmt.Println(` → `fmt.Fprintln(os.Stderr, `.
    expect_replacement(&scan, 11, "fmt.Fprintln(os.Stderr, ", (11, 2), (11, 14));
    expect_replacement(&scan, 12, "fmt.Fprintf(os.Stderr, ", (12, 2), (12, 13));
    expect_replacement(&scan, 14, "fmt.Fprint(os.Stderr", (14, 2), (14, 12));
    expect_replacement(&scan, 15, "os.Stderr", (15, 15), (15, 24));
    // `os.Stdout.Write*` and `io.WriteString(os.Stdout, ...)`: the stream becomes os.Stderr.
    expect_replacement(&scan, 19, "os.Stderr", (19, 2), (19, 11));
    expect_replacement(&scan, 20, "os.Stderr", (20, 2), (20, 11));
    expect_replacement(&scan, 21, "os.Stderr", (21, 17), (21, 26));
    // A variable holding os.Stdout is reported, but only the literal is rewritten.
    no_replacement(&scan, 18);
    assert_eq!(scan.at(11)["language"], "go");
}

#[test]
fn go_lookalikes_builtin_println_and_json_rpc_lines_are_not_reported() {
    expect_findings("go", "fmt_lookalikes.go", &[]);
}

#[test]
fn go_import_aliases_and_dot_imports_are_resolved() {
    let scan = expect_findings(
        "go",
        "aliased_imports.go",
        &[
            ("static-stdout-write", "warning", 9, 2),
            ("static-stdout-write", "warning", 10, 2),
        ],
    );
    // `os` is dot-imported, so `os.Stderr` would not compile: no edit.
    no_replacement(&scan, 9);
}

#[test]
fn go_loggers_on_stdout_are_found() {
    expect_findings(
        "go",
        "loggers_to_stdout.go",
        &[
            ("static-stdout-logger", "warning", 13, 2),
            ("static-stdout-logger", "warning", 14, 12),
            ("static-stdout-logger", "warning", 15, 19),
            ("static-stdout-logger", "warning", 16, 25),
            ("static-stdout-logger", "warning", 17, 2),
            ("static-stdout-logger", "warning", 18, 8),
            ("static-stdout-logger", "warning", 19, 24),
        ],
    );
}

#[test]
fn go_loggers_on_stderr_are_not_reported() {
    expect_findings("go", "loggers_to_stderr.go", &[]);
}

#[test]
fn rust_println_and_stdout_writes_are_found_with_an_eprintln_edit() {
    let scan = expect_findings(
        "rust",
        "println_writes_stdout.rs",
        &[
            ("static-stdout-write", "warning", 4, 5),
            ("static-stdout-write", "warning", 5, 5),
            ("static-stdout-write", "warning", 6, 5),
            ("static-stdout-write", "warning", 10, 5),
            ("static-stdout-write", "warning", 12, 5),
            ("static-stdout-write", "warning", 13, 5),
            ("static-stdout-write", "warning", 14, 5),
            ("static-stdout-write", "warning", 16, 5),
            ("static-stdout-write", "warning", 17, 5),
            ("static-stdout-write", "warning", 18, 5),
        ],
    );
    expect_end(&scan, 6, (9, 6));
    // `println!` → `eprintln!`, `print!` → `eprint!`.
    expect_replacement(&scan, 4, "eprintln", (4, 5), (4, 12));
    expect_replacement(&scan, 5, "eprint", (5, 5), (5, 10));
    expect_replacement(&scan, 10, "eprintln", (10, 10), (10, 17));
    // `io::stdout()` → `io::stderr()`, at the write, `.lock()`ed or in `write!` (issue 28
    // item 13; these had no edit before).
    expect_replacement(&scan, 13, "stderr", (13, 9), (13, 15));
    expect_replacement(&scan, 14, "stderr", (14, 14), (14, 20));
    expect_replacement(&scan, 18, "stderr", (18, 16), (18, 22));
    // A stream bound to a variable is reported, but only a call at the write is rewritten.
    no_replacement(&scan, 16);
    no_replacement(&scan, 17);
    assert_eq!(scan.at(4)["language"], "rust");
}

#[test]
fn rust_lookalikes_local_macros_and_json_rpc_lines_are_not_reported() {
    expect_findings("rust", "println_lookalikes.rs", &[]);
}

#[test]
fn rust_loggers_on_stdout_are_found() {
    expect_findings(
        "rust",
        "loggers_to_stdout.rs",
        &[
            ("static-stdout-logger", "warning", 7, 5),
            ("static-stdout-logger", "warning", 8, 5),
            ("static-stdout-logger", "warning", 9, 5),
            ("static-stdout-logger", "warning", 10, 41),
            ("static-stdout-logger", "warning", 11, 5),
            ("static-stdout-logger", "warning", 12, 52),
            ("static-stdout-logger", "warning", 13, 34),
            ("static-stdout-logger", "warning", 14, 60),
            ("static-stdout-logger", "warning", 15, 5),
        ],
    );
}

#[test]
fn rust_loggers_on_stderr_are_not_reported() {
    expect_findings("rust", "loggers_to_stderr.rs", &[]);
}

#[test]
fn rust_fmt_subscriber_is_found_in_a_file_that_names_nothing_else() {
    // Regression: the text prefilter once needed `fmt`, which `FmtSubscriber` does not spell.
    expect_findings(
        "rust",
        "fmt_subscriber_alone.rs",
        &[
            ("static-stdout-logger", "warning", 5, 5),
            ("static-stdout-logger", "warning", 6, 5),
        ],
    );
}
