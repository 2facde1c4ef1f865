//! Network and entry rules on configs (insecure-transport, ssrf-reachable-target,
//! tls-verification-disabled, unauthenticated-remote-endpoint, listens-on-all-interfaces,
//! invalid-server-entry, unknown-server-entry): malicious fixtures at exact locations, benign look-alikes clean.

use crate::support;
use support::scan::*;

#[test]
fn insecure_transport_off_this_machine() {
    let r = expect(
        "insecure_transport.malicious.json",
        &[
            (
                "insecure-transport",
                "high",
                5,
                14,
                "/mcpServers/remote/url",
            ),
            (
                "insecure-transport",
                "medium",
                8,
                71,
                "/mcpServers/bridge/args/2",
            ),
            (
                "insecure-transport",
                "medium",
                9,
                70,
                "/mcpServers/socket/args/2",
            ),
        ],
    );
    has(&r, ("insecure-transport", "error"));
    has(&r, ("insecure-transport", "warning"));
    assert!(r.issue_at("/mcpServers/remote/url")["message"]
        .as_str()
        .expect("message")
        .contains("with credentials"));
}

#[test]
fn loopback_and_tls_are_not_insecure_transport() {
    expect_clean("insecure_transport.benign.json");
}

#[test]
fn ssrf_targets_including_encoded_addresses() {
    let r = expect(
        "ssrf_reachable_target.malicious.json",
        &[
            (
                "ssrf-reachable-target",
                "high",
                7,
                25,
                "/mcpServers/fetcher/env/AWS_METADATA",
            ),
            (
                "ssrf-reachable-target",
                "high",
                8,
                25,
                "/mcpServers/fetcher/env/GCP_METADATA",
            ),
            (
                "ssrf-reachable-target",
                "high",
                18,
                20,
                "/mcpServers/fetcher/env/DECIMAL",
            ),
            (
                "ssrf-reachable-target",
                "high",
                19,
                18,
                "/mcpServers/fetcher/env/OCTAL",
            ),
            (
                "ssrf-reachable-target",
                "high",
                20,
                16,
                "/mcpServers/fetcher/env/HEX",
            ),
            (
                "ssrf-reachable-target",
                "high",
                21,
                24,
                "/mcpServers/fetcher/env/HEX_PRIVATE",
            ),
            (
                "ssrf-reachable-target",
                "high",
                22,
                19,
                "/mcpServers/fetcher/env/MAPPED",
            ),
            (
                "ssrf-reachable-target",
                "medium",
                9,
                23,
                "/mcpServers/fetcher/env/PRIVATE_10",
            ),
            (
                "ssrf-reachable-target",
                "medium",
                10,
                24,
                "/mcpServers/fetcher/env/PRIVATE_172",
            ),
            (
                "ssrf-reachable-target",
                "medium",
                11,
                24,
                "/mcpServers/fetcher/env/PRIVATE_192",
            ),
            (
                "ssrf-reachable-target",
                "medium",
                12,
                18,
                "/mcpServers/fetcher/env/CGNAT",
            ),
            (
                "ssrf-reachable-target",
                "medium",
                13,
                16,
                "/mcpServers/fetcher/env/ULA",
            ),
            (
                "ssrf-reachable-target",
                "medium",
                14,
                25,
                "/mcpServers/fetcher/env/LINK_LOCAL_6",
            ),
            (
                "ssrf-reachable-target",
                "medium",
                15,
                23,
                "/mcpServers/fetcher/env/LINK_LOCAL",
            ),
            (
                "ssrf-reachable-target",
                "medium",
                16,
                16,
                "/mcpServers/fetcher/env/ANY",
            ),
            (
                "ssrf-reachable-target",
                "medium",
                17,
                26,
                "/mcpServers/fetcher/env/INTERNAL_NAME",
            ),
        ],
    );
    has(&r, ("ssrf-reachable-target", "error"));
    has(&r, ("ssrf-reachable-target", "warning"));
    let decimal = r.issue_at("/mcpServers/fetcher/env/DECIMAL");
    assert!(decimal["message"]
        .as_str()
        .expect("message")
        .contains("an encoded form of 169.254.169.254"));
    assert_eq!(decimal["detailCode"], "encoded-address");
    assert!(r.issue_at("/mcpServers/fetcher/env/HEX_PRIVATE")["message"]
        .as_str()
        .expect("message")
        .contains("10.0.0.1"));
}

#[test]
fn public_and_loopback_targets_are_not_ssrf() {
    expect_clean("ssrf_reachable_target.benign.json");
}

#[test]
fn tls_verification_disabled_by_env_and_flags() {
    let r = expect(
        "tls_verification_disabled.malicious.json",
        &[
            (
                "tls-verification-disabled",
                "critical",
                3,
                98,
                "/mcpServers/node/env/NODE_TLS_REJECT_UNAUTHORIZED",
            ),
            (
                "tls-verification-disabled",
                "critical",
                4,
                92,
                "/mcpServers/python/env/PYTHONHTTPSVERIFY",
            ),
            (
                "tls-verification-disabled",
                "critical",
                4,
                119,
                "/mcpServers/python/env/REQUESTS_CA_BUNDLE",
            ),
            (
                "tls-verification-disabled",
                "critical",
                5,
                56,
                "/mcpServers/flags/args/1",
            ),
            (
                "tls-verification-disabled",
                "critical",
                5,
                70,
                "/mcpServers/flags/args/2",
            ),
            (
                "tls-verification-disabled",
                "critical",
                6,
                90,
                "/mcpServers/git/env/GIT_SSL_NO_VERIFY",
            ),
            (
                "tls-verification-disabled",
                "critical",
                7,
                91,
                "/mcpServers/setting/tls/rejectUnauthorized",
            ),
        ],
    );
    has(&r, ("tls-verification-disabled", "error"));
}

#[test]
fn tls_settings_that_keep_verification_are_not_reported() {
    expect_clean("tls_verification_disabled.benign.json");
}

#[test]
fn unauthenticated_remote_endpoints_are_low() {
    let r = expect(
        "unauthenticated_remote_endpoint.malicious.json",
        &[
            (
                "unauthenticated-remote-endpoint",
                "low",
                3,
                13,
                "/servers/open",
            ),
            (
                "unauthenticated-remote-endpoint",
                "low",
                4,
                15,
                "/servers/events",
            ),
        ],
    );
    has(&r, ("unauthenticated-remote-endpoint", "warning"));
    assert_eq!(r.exit, 0);
    // --fail-on low makes them fail the run.
    let strict = scan(&[
        "--fail-on",
        "low",
        &config("unauthenticated_remote_endpoint.malicious.json"),
    ]);
    assert_eq!(strict.exit, 1);
    assert_eq!(strict.json["ok"], false);
}

#[test]
fn remotes_with_credentials_oauth_or_loopback_are_not_reported() {
    expect_clean("unauthenticated_remote_endpoint.benign.json");
}

#[test]
fn listening_on_all_interfaces() {
    let r = expect(
        "listens_on_all_interfaces.malicious.json",
        &[
            (
                "listens-on-all-interfaces",
                "medium",
                3,
                66,
                "/mcpServers/flag/args/2",
            ),
            (
                "listens-on-all-interfaces",
                "medium",
                4,
                70,
                "/mcpServers/inline/args/2",
            ),
            (
                "listens-on-all-interfaces",
                "medium",
                5,
                84,
                "/mcpServers/env/env/FASTMCP_HOST",
            ),
            (
                "listens-on-all-interfaces",
                "medium",
                6,
                74,
                "/mcpServers/docker/args/4",
            ),
        ],
    );
    has(&r, ("listens-on-all-interfaces", "warning"));
}

#[test]
fn ssrf_encoded_loopback_is_reported_whatever_it_encodes() {
    let r = expect(
        "ssrf_encoded_loopback.malicious.json",
        &[
            (
                "ssrf-reachable-target",
                "high",
                3,
                41,
                "/mcpServers/decimal/url",
            ),
            (
                "ssrf-reachable-target",
                "high",
                4,
                37,
                "/mcpServers/hex/url",
            ),
            (
                "ssrf-reachable-target",
                "high",
                5,
                39,
                "/mcpServers/octal/url",
            ),
            (
                "ssrf-reachable-target",
                "high",
                6,
                39,
                "/mcpServers/mixed/url",
            ),
            (
                "ssrf-reachable-target",
                "high",
                7,
                48,
                "/mcpServers/encoded-public/url",
            ),
        ],
    );
    let decimal = r.issue_at("/mcpServers/decimal/url");
    assert_eq!(decimal["detailCode"], "encoded-address");
    let m = decimal["message"].as_str().expect("message");
    assert!(m.contains("an encoded form of 127.0.0.1"), "{m}");
    assert_eq!(r.exit, 1);
}

#[test]
fn loopback_binds_are_not_reported() {
    expect_clean("listens_on_all_interfaces.benign.json");
}

#[test]
fn unknown_entries_are_reported_and_the_rest_is_still_scanned() {
    // Entries no client loads and objects of a shape the scanner does not know are findings;
    // a value that is not an object where a server belongs breaks the schema (see
    // scan_configs' schema tests).
    let r = expect(
        "unknown_server_entry.malicious.json",
        &[
            (
                "hardcoded-secret",
                "critical",
                7,
                91,
                "/mcpServers/still-scanned/env/GITHUB_TOKEN",
            ),
            ("invalid-server-entry", "high", 3, 14, "/mcpServers/empty"),
            (
                "invalid-server-entry",
                "high",
                5,
                46,
                "/mcpServers/bad-args/args",
            ),
            (
                "invalid-server-entry",
                "high",
                6,
                80,
                "/mcpServers/bad-env/env/OPTIONS",
            ),
            (
                "unknown-server-entry",
                "info",
                4,
                28,
                "/mcpServers/websocket/type",
            ),
        ],
    );
    has(&r, ("unknown-server-entry", "note"));
    let servers = r.json["servers"].as_array().expect("servers");
    assert_eq!(servers.len(), 5);
    assert_eq!(servers[0]["understood"], false);
    assert_eq!(servers[4]["understood"], true);
}

#[test]
fn entries_no_client_can_load_are_errors_at_the_value_once_each() {
    // A known field of the wrong type: one high finding at the value, failing the default gate.
    let r = expect(
        "invalid_server_entry.malicious.json",
        &[
            (
                "invalid-server-entry",
                "high",
                4,
                49,
                "/mcpServers/args-string/args",
            ),
            (
                "invalid-server-entry",
                "high",
                5,
                36,
                "/mcpServers/command-number/command",
            ),
            (
                "invalid-server-entry",
                "high",
                6,
                28,
                "/mcpServers/url-number/url",
            ),
            (
                "invalid-server-entry",
                "high",
                7,
                69,
                "/mcpServers/env-array/env",
            ),
            (
                "invalid-server-entry",
                "high",
                8,
                66,
                "/mcpServers/env-object-value/env/OPTIONS",
            ),
            (
                "invalid-server-entry",
                "high",
                9,
                62,
                "/mcpServers/arg-number/args/1",
            ),
        ],
    );
    has(&r, ("invalid-server-entry", "error"));
    assert_eq!(r.exit, 1);
    assert_eq!(r.json["summary"]["status"], "fail");
    let display = r.json["summary"]["display"].as_str().expect("display");
    assert!(
        display.starts_with("FAIL: invalid-server-entry"),
        "{display}"
    );
    let m = r.issue_at("/mcpServers/command-number/command")["message"]
        .as_str()
        .expect("message");
    assert!(m.contains("command is a number, expected a string"), "{m}");
    assert!(m.contains("no client can load"), "{m}");
}

#[test]
fn an_entry_with_neither_command_nor_url_fails_and_status_and_display_agree() {
    let r = expect(
        "entry_with_neither_command_nor_url.json",
        &[("invalid-server-entry", "high", 3, 15, "/mcpServers/broken")],
    );
    assert_eq!(r.exit, 1);
    assert_eq!(r.json["summary"]["status"], "fail");
    let display = r.json["summary"]["display"].as_str().expect("display");
    assert!(display.starts_with("FAIL: "), "{display}");
    // Below the gate, the line says what the status says.
    let r = scan(&[
        "--fail-on",
        "critical",
        &config("entry_with_neither_command_nor_url.json"),
    ]);
    assert_eq!(r.exit, 0);
    assert_eq!(r.json["summary"]["status"], "warning");
    let display = r.json["summary"]["display"].as_str().expect("display");
    assert!(display.starts_with("WARN: "), "{display}");
    let r = scan(&[
        "--fail-on",
        "critical",
        &config("unknown_server_entry.malicious.json"),
        "--rules",
        "unknown-server-entry",
    ]);
    assert_eq!(r.json["summary"]["status"], "pass");
    let display = r.json["summary"]["display"].as_str().expect("display");
    assert!(display.starts_with("PASS: "), "{display}");
}

#[test]
fn every_understood_entry_shape_is_clean() {
    expect_clean("unknown_server_entry.benign.json");
    let r = scan(&[&config("unknown_server_entry.benign.json")]);
    let transports: Vec<&str> = r.json["servers"]
        .as_array()
        .expect("servers")
        .iter()
        .map(|s| s["transport"].as_str().expect("transport"))
        .collect();
    assert_eq!(
        transports,
        ["stdio", "stdio", "http", "http", "http", "stdio"]
    );
}

#[test]
fn unauthenticated_remote_entry_is_reported_at_the_entry_and_low() {
    // What is missing (headers, OAuth) belongs in the entry; the URL is named in the message.
    let r = expect(
        "unauthenticated_remote_entry.json",
        &[(
            "unauthenticated-remote-endpoint",
            "low",
            3,
            13,
            "/mcpServers/open",
        )],
    );
    let issue = &r.json["issues"][0];
    assert_eq!(issue["location"]["endLine"], 6);
    assert_eq!(issue["location"]["endColumn"], 6);
    assert!(issue["message"]
        .as_str()
        .expect("message")
        .contains("at mcp.example.com"));
    assert_eq!(r.exit, 0);
}
