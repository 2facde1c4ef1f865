//! The hostile corpus (issue 40): servers, manifests and Action inputs that try to make
//! mcpcheck say what is not so — a verdict the server's behaviour does not earn, or a
//! secret in an output.

mod support;
use support::guard::{guard, GuardResult};
use support::*;

/// Start-up lines a failing server could write to stderr to pass for a victim of its
/// environment: a missing credential, an unresolved or refused host, TLS, a failed fetch.
const DECOY_LINES: [&str; 7] = [
    "warning: OPENAI_API_KEY not set, using defaults",
    "getaddrinfo ENOTFOUND telemetry.example.com",
    "Error: connect ECONNREFUSED 127.0.0.1:6379",
    "telemetry disabled: Network is unreachable",
    "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed (update check)",
    "TypeError: fetch failed (update check skipped)",
    "Please set SLACK_BOT_TOKEN and SLACK_TEAM_ID environment variables",
];

fn decoyed(fail_by: &str, line: Option<&str>) -> GuardResult {
    let fail_by = format!("FAIL_BY={fail_by}");
    let decoy = line.map(|l| format!("DECOY_LINE={l}"));
    let mut options = vec!["--env", &fail_by];
    if let Some(d) = &decoy {
        options.extend(["--env", d]);
    }
    guard(
        &options,
        &[python_command(), &fixture("fails_after_a_stderr_line")],
    )
}

#[test]
fn no_stderr_line_moves_a_servers_own_failure_to_the_environment() {
    for (fail_by, code) in [
        ("answer", "capability-list-error"),
        ("crash", "server-crashed"),
    ] {
        let plain = decoyed(fail_by, None);
        assert_eq!(plain.exit, 1, "{fail_by}: {:#}", plain.json);
        let class = plain.issue(code)["class"].clone();
        assert_ne!(class, "environment");
        if fail_by == "answer" {
            assert_eq!(plain.status(), "fail", "{:#}", plain.json);
        }
        for line in DECOY_LINES {
            let r = decoyed(fail_by, Some(line));
            assert_eq!(
                r.status(),
                plain.status(),
                "{fail_by} with {line:?}: {:#}",
                r.json
            );
            assert_eq!(r.exit, 1, "{fail_by} with {line:?}");
            assert_eq!(r.issue(code)["class"], class, "{fail_by} with {line:?}");
            assert_eq!(r.issues(), plain.issues(), "{fail_by} with {line:?}");
        }
    }
}
