//! Whether a failure was the environment's: a server's own error text or stderr saying
//! that an upstream it needs could not be reached (a name that does not resolve, a refused
//! or unreachable connection, TLS to an outside host, `fetch failed`), that a credential
//! it names is missing, or that it was started without an argument, variable or file it
//! must be given. A sweep runs where upstreams and credentials usually are not, so
//! such a server could not be judged there; it is not shown to be broken.

use crate::finding::excerpt;
use crate::secrets::names_credential;

/// What an upstream failure looked like, and the line that says so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpstreamFailure {
    /// `dns`, `refused`, `unreachable`, `tls`, `fetch-failed`, `native-library`,
    /// `configuration-missing` or `credential-missing`.
    pub kind: &'static str,
    /// The line that shows it, bounded and escaped.
    pub line: String,
}

/// Markers of an upstream that could not be reached, by kind; matched case-sensitively, as
/// runtimes print them (`getaddrinfo ENOTFOUND`, Python's `Name or service not known`).
const MARKERS: &[(&str, &[&str])] = &[
    (
        "dns",
        &[
            "ENOTFOUND",
            "EAI_AGAIN",
            "getaddrinfo",
            "Name or service not known",
            "Temporary failure in name resolution",
            "nodename nor servname",
            "Could not resolve host",
            "No address associated with hostname",
            "failed to lookup address",
            "dns error",
        ],
    ),
    (
        "refused",
        &["ECONNREFUSED", "Connection refused", "connection refused"],
    ),
    (
        "unreachable",
        &[
            "ENETUNREACH",
            "EHOSTUNREACH",
            "Network is unreachable",
            "No route to host",
            "connect ETIMEDOUT",
        ],
    ),
    (
        "tls",
        &[
            "CERTIFICATE_VERIFY_FAILED",
            "certificate verify failed",
            "unable to get local issuer certificate",
            "self signed certificate",
            "self-signed certificate",
        ],
    ),
    ("fetch-failed", &["fetch failed", "Failed to fetch"]),
    // Not an upstream, but as much the host's: a library the server loads is not here.
    ("native-library", &["cannot open shared object file"]),
    // Nor this: the server's own parser says an argument or a file it must be given is not
    // there (argparse, commander.js), so it was started without its configuration.
    (
        "configuration-missing",
        &[
            "error: the following arguments are required:",
            "error: required option",
            "error: missing required argument",
            "Cannot find config file",
        ],
    ),
];

/// Words that, beside a credential's name, say it is missing.
const MISSING: &[&str] = &[
    "provide",
    "missing",
    "required",
    "not set",
    "is not defined",
    "must be set",
    "needs to be set",
    "please set",
    "not found",
    "undefined",
];

/// The first line of `text` that shows an upstream failure, if any. Terminal colours
/// (`\x1b[36m`) are read past, as a terminal shows the line.
pub fn failure_in(text: &str) -> Option<UpstreamFailure> {
    let plain = without_colours(text);
    for line in plain.lines().map(str::trim).filter(|l| !l.is_empty()) {
        for (kind, markers) in MARKERS {
            if markers.iter().any(|m| line.contains(m)) {
                return Some(UpstreamFailure {
                    kind,
                    line: excerpt(line, 200),
                });
            }
        }
        if credential_missing(line) {
            return Some(UpstreamFailure {
                kind: "credential-missing",
                line: excerpt(line, 200),
            });
        }
        if setting_required(line) {
            return Some(UpstreamFailure {
                kind: "configuration-missing",
                line: excerpt(line, 200),
            });
        }
    }
    None
}

/// `ValueError: Valid ALLOWED_DIR is required`, `DB_PATH must be set`: a variable named and
/// said to be required (not merely unset: `LOG_LEVEL is not set, using info` goes on).
fn setting_required(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    (lower.contains(" is required") || lower.contains(" must be set"))
        && line
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|word| {
                word.len() >= 3
                    && word.contains('_')
                    && word.chars().any(|c| c.is_ascii_uppercase())
                    && word
                        .chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            })
}

/// `Please provide MAKE_API_KEY environment variable.`, `GITHUB_TOKEN is required`,
/// `Missing API key`: a credential named and said to be missing.
fn credential_missing(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    if !MISSING.iter().any(|w| lower.contains(w)) {
        return false;
    }
    ["api key", "access token", "auth token", "api token"]
        .iter()
        .any(|phrase| lower.contains(phrase))
        || line
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|word| {
                word.len() >= 3
                    && word.contains('_')
                    && word
                        .chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
                    && names_credential(word)
            })
}

/// `text` without ANSI CSI sequences (`ESC [ parameters letter`), the colours loggers add.
fn without_colours(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(text: &str) -> Option<&'static str> {
        failure_in(text).map(|f| f.kind)
    }

    #[test]
    fn unreachable_upstreams_are_recognised_by_what_runtimes_print() {
        assert_eq!(
            kind("Error: getaddrinfo ENOTFOUND api.airtable.com"),
            Some("dns")
        );
        assert_eq!(kind("TypeError: fetch failed"), Some("fetch-failed"));
        assert_eq!(
            kind("httpx.ConnectError: [Errno 111] Connection refused"),
            Some("refused")
        );
        assert_eq!(
            kind("[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed"),
            Some("tls")
        );
        assert_eq!(
            kind("Please provide MAKE_API_KEY environment variable."),
            Some("credential-missing")
        );
        assert_eq!(
            kind("Error: GITHUB_PERSONAL_ACCESS_TOKEN is required"),
            Some("credential-missing")
        );
        // @modelcontextprotocol/server-slack 2025.4.25, run without its credentials.
        assert_eq!(
            kind("Please set SLACK_BOT_TOKEN and SLACK_TEAM_ID environment variables"),
            Some("credential-missing")
        );
        // @zereight/mcp-gitlab 2.1.64 and @sentry/mcp-server 0.39.0, run without theirs.
        assert_eq!(
            kind("\u{1b}[31mERROR\u{1b}[39m [10:40:04.304] (10422): \u{1b}[36mGITLAB_PERSONAL_ACCESS_TOKEN environment variable is not set\u{1b}[39m"),
            Some("credential-missing")
        );
        assert_eq!(
            kind("Error: No access token was provided."),
            Some("credential-missing")
        );
        // Started without the argument, variable or file it must be given (the real sweep:
        // excel-mcp-server 2.2.2, mcp-server-duckdb 1.1.0, cli-mcp-server 0.2.5,
        // @pandacss/mcp 1.12.1).
        for text in [
            "excel-mcp-server: error: the following arguments are required: transport",
            "mcp-server-duckdb: error: the following arguments are required: --db-path",
            "error: required option '--db <path>' not specified",
            "ValueError: Valid ALLOWED_DIR is required",
            "Cannot find config file `panda.config.{ts,js,mjs,mts}`. Did you forget to run `panda init`?",
        ] {
            assert_eq!(kind(text), Some("configuration-missing"), "{text}");
        }
        let f = failure_in("starting\n  Error: getaddrinfo ENOTFOUND x.example  \nmore")
            .expect("found");
        assert_eq!(f.line, "Error: getaddrinfo ENOTFOUND x.example");
    }

    #[test]
    fn server_bugs_are_not_the_environment() {
        for text in [
            "TypeError: Cannot read properties of undefined (reading 'map')",
            "AttributeError: 'Server' object has no attribute 'list_resources'",
            "KeyError: 'name'",
            "the tool name is required",
            "LOG_LEVEL is not set, using info",
            "Please set LOG_LEVEL to debug for more output",
            "ReferenceError: MAX_SIZE is not defined",
            "AssertionError: expected value is required",
        ] {
            assert_eq!(kind(text), None, "{text}");
        }
    }
}
