//! A credential that a server prints never reaches a report, in any format.

mod support;
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
