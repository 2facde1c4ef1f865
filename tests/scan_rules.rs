//! Every static config rule: a malicious fixture (each planted problem found at its exact
//! line, column and logical path), and a benign look-alike fixture (nothing reported).

mod scan_support;
use scan_support::*;

/// Scans one fixture; the findings must be exactly these, in report order.
fn expect(fixture: &str, expected: &[(&str, &str, u64, u64, &str)]) -> ScanResult {
    let r = scan(&[&config(fixture)]);
    assert_eq!(
        r.places(),
        places(expected),
        "{fixture}: {:#}",
        r.json["issues"]
    );
    r
}

/// The report holds a finding of this code with this severity.
fn has(r: &ScanResult, (code, severity): (&str, &str)) {
    assert!(
        r.issues()
            .contains(&(code.to_string(), severity.to_string())),
        "no ({code}, {severity}) in {:?}",
        r.issues()
    );
}

fn expect_clean(fixture: &str) {
    let r = scan(&[&config(fixture)]);
    assert_eq!(r.places(), places(&[]), "{fixture}: {:#}", r.json["issues"]);
    assert_eq!(r.exit, 0, "{fixture}");
    assert_eq!(r.json["summary"]["status"], "pass", "{fixture}");
}

#[test]
fn hardcoded_secret_in_env_args_headers_and_urls() {
    let r = expect(
        "hardcoded_secret.malicious.json",
        &[
            (
                "hardcoded-secret",
                "high",
                5,
                29,
                "/mcpServers/github/args/1",
            ),
            (
                "hardcoded-secret",
                "high",
                6,
                32,
                "/mcpServers/github/env/GITHUB_TOKEN",
            ),
            (
                "hardcoded-secret",
                "high",
                11,
                37,
                "/mcpServers/remote/headers/Authorization",
            ),
            (
                "hardcoded-secret",
                "high",
                15,
                28,
                "/mcpServers/tools/args/1",
            ),
            (
                "hardcoded-secret",
                "high",
                17,
                30,
                "/mcpServers/tools/env/AWS_ACCESS_KEY_ID",
            ),
            (
                "hardcoded-secret",
                "high",
                18,
                22,
                "/mcpServers/tools/env/NPM_TOKEN",
            ),
            (
                "hardcoded-secret",
                "high",
                19,
                21,
                "/mcpServers/tools/env/HF_TOKEN",
            ),
            (
                "hardcoded-secret",
                "high",
                20,
                23,
                "/mcpServers/tools/env/STRIPE_KEY",
            ),
            (
                "hardcoded-secret",
                "high",
                21,
                25,
                "/mcpServers/tools/env/GITLAB_TOKEN",
            ),
            (
                "hardcoded-secret",
                "high",
                22,
                27,
                "/mcpServers/tools/env/GOOGLE_API_KEY",
            ),
            (
                "hardcoded-secret",
                "high",
                23,
                25,
                "/mcpServers/tools/env/FINE_GRAINED",
            ),
            (
                "hardcoded-secret",
                "high",
                24,
                24,
                "/mcpServers/tools/env/SERVICE_JWT",
            ),
            (
                "hardcoded-secret",
                "high",
                25,
                23,
                "/mcpServers/tools/env/DEPLOY_KEY",
            ),
            (
                "hardcoded-secret",
                "high",
                30,
                38,
                "/mcpServers/webhook/args/2",
            ),
        ],
    );
    has(&r, ("hardcoded-secret", "error"));
    assert_eq!(r.exit, 1);
    let providers: Vec<&str> = r.json["issues"]
        .as_array()
        .expect("issues")
        .iter()
        .map(|i| i["evidence"].as_str().expect("evidence"))
        .collect();
    assert_eq!(providers[0], "OpenAI API key sk-p… (88 characters)");
    assert_eq!(providers[1], "GitHub token ghp_… (40 characters)");
    for (i, p) in [
        "Anthropic API key",
        "Slack token",
        "AWS access key ID",
        "npm token",
        "Hugging Face token",
        "Stripe live key",
        "GitLab token",
        "Google API key",
        "GitHub fine-grained token",
        "JSON Web Token",
        "private key",
        "Slack webhook",
    ]
    .iter()
    .enumerate()
    {
        assert!(providers[i + 2].starts_with(p), "{}: {p}", providers[i + 2]);
    }
    // The exact region of the value, end included.
    let gh = r.issue_at("/mcpServers/github/env/GITHUB_TOKEN");
    assert_eq!(gh["location"]["endLine"], 6);
    assert_eq!(gh["location"]["endColumn"], 74);
    assert_eq!(gh["class"], "security");
    assert_eq!(gh["owasp"], "MCP01");
}

#[test]
fn hardcoded_secret_look_alikes_are_not_reported() {
    expect_clean("hardcoded_secret.benign.json");
}

#[test]
fn no_secret_reaches_any_output() {
    let secrets = [
        "sk-proj-Y40uvSwMFLZDe1f8rESQedUStPKR0CsTy4Qwb8DwkNhFdnXsT3BlbkFJiVpzz63FfkCzJr4i0B3JrTAw",
        "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d",
        "sk-ant-api03-WDtkwtDDb-xHKas1VOqg6YYZYn9ZhyiA4uoRgnatmUdjAWtGSU8po-799NksnRH9ucAUsdMlHUvTCQCyEZDz_TAA",
        "xoxb-537990751163-7265167612220-jL5DZPjN0MEQ7wjJJibaZUPg",
        "AKIABBR4QMW2WXFOGO4M",
        "npm_jq4i9DoV8gz4FkQ1okTBGzvAmwufUxbvJDCT",
        "glpat-9FHz5r1pY4OjE2jBMptU",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ",
        "T0ABCDEFG/B0HIJKLMN/q8Zr2LmX9vT4nB7kW1sD5fG3",
    ];
    let fixture = config("hardcoded_secret.malicious.json");
    let json = scan(&[&fixture]);
    let human = run(mcpcheck_in(&repo()).args(["scan", &fixture]));
    let inventory = run(mcpcheck_in(&repo()).args(["inventory", "--format", "json", &fixture]));
    let human_inventory = run(mcpcheck_in(&repo()).args(["inventory", &fixture]));
    let texts = [
        json.stdout.as_str(),
        json.stderr.as_str(),
        &String::from_utf8_lossy(&human.stdout),
        &String::from_utf8_lossy(&human.stderr),
        &String::from_utf8_lossy(&inventory.stdout),
        &String::from_utf8_lossy(&human_inventory.stdout),
    ];
    assert_no_secret(&texts, &secrets);
}

#[test]
fn high_entropy_secret_under_credential_names() {
    let r = expect(
        "high_entropy_secret.malicious.json",
        &[
            (
                "high-entropy-secret",
                "high",
                5,
                42,
                "/mcpServers/search/args/2",
            ),
            (
                "high-entropy-secret",
                "high",
                7,
                27,
                "/mcpServers/search/env/SEARCH_API_KEY",
            ),
            (
                "high-entropy-secret",
                "high",
                8,
                34,
                "/mcpServers/search/env/AWS_SECRET_ACCESS_KEY",
            ),
            (
                "high-entropy-secret",
                "high",
                14,
                33,
                "/mcpServers/remote/headers/X-Api-Key",
            ),
            (
                "high-entropy-secret",
                "high",
                18,
                25,
                "/mcpServers/db/args/1",
            ),
        ],
    );
    has(&r, ("high-entropy-secret", "error"));
    assert_eq!(
        r.issue_at("/mcpServers/search/env/SEARCH_API_KEY")["evidence"],
        "SEARCH_API_KEY = 7CgQ… (32 characters)"
    );
}

#[test]
fn high_entropy_look_alikes_are_not_reported() {
    expect_clean("high_entropy_secret.benign.json");
}

#[test]
fn credential_in_url_userinfo_and_query() {
    let r = expect(
        "credential_in_url.malicious.json",
        &[
            ("credential-in-url", "high", 5, 14, "/mcpServers/remote/url"),
            ("credential-in-url", "high", 9, 14, "/mcpServers/keyed/url"),
            (
                "credential-in-url",
                "high",
                13,
                25,
                "/mcpServers/postgres/args/1",
            ),
            (
                "credential-in-url",
                "high",
                14,
                32,
                "/mcpServers/postgres/env/DATABASE_URL",
            ),
        ],
    );
    has(&r, ("credential-in-url", "error"));
    assert_eq!(
        r.issue_at("/mcpServers/remote/url")["evidence"],
        "https://admin:[REDACTED]@mcp.example.com/mcp"
    );
    assert_eq!(
        r.issue_at("/mcpServers/keyed/url")["evidence"],
        "https://mcp.example.com/mcp?team=core&api_key=[REDACTED]"
    );
    assert!(
        !r.stdout.contains("hunter2pass")
            && !r.stdout.contains("S3cretPass")
            && !r.stdout.contains("live7Hq2")
    );
}

#[test]
fn credential_in_url_look_alikes_are_not_reported() {
    expect_clean("credential_in_url.benign.json");
}

#[test]
fn shell_command_wrapper_in_every_shell() {
    let r = expect(
        "shell_command_wrapper.malicious.json",
        &[
            (
                "shell-command-wrapper",
                "medium",
                3,
                26,
                "/mcpServers/bash/command",
            ),
            (
                "shell-command-wrapper",
                "medium",
                4,
                33,
                "/mcpServers/login-shell/command",
            ),
            (
                "shell-command-wrapper",
                "medium",
                5,
                29,
                "/mcpServers/windows/command",
            ),
            (
                "shell-command-wrapper",
                "medium",
                6,
                26,
                "/mcpServers/pwsh/command",
            ),
        ],
    );
    has(&r, ("shell-command-wrapper", "warning"));
    // Medium is below the default --fail-on high.
    assert_eq!(r.exit, 0);
    assert_eq!(r.json["summary"]["status"], "warning");
}

#[test]
fn shell_wrapper_look_alikes_are_not_reported() {
    expect_clean("shell_command_wrapper.benign.json");
}

#[test]
fn remote_script_execution_is_critical() {
    let r = expect(
        "remote_script_execution.malicious.json",
        &[
            (
                "remote-script-execution",
                "critical",
                3,
                52,
                "/mcpServers/installer/args/1",
            ),
            (
                "remote-script-execution",
                "critical",
                4,
                57,
                "/mcpServers/substitution/args/1",
            ),
            (
                "remote-script-execution",
                "critical",
                5,
                64,
                "/mcpServers/windows/args/1",
            ),
            (
                "shell-command-wrapper",
                "medium",
                3,
                31,
                "/mcpServers/installer/command",
            ),
            (
                "shell-command-wrapper",
                "medium",
                4,
                34,
                "/mcpServers/substitution/command",
            ),
            (
                "shell-command-wrapper",
                "medium",
                5,
                29,
                "/mcpServers/windows/command",
            ),
        ],
    );
    has(&r, ("remote-script-execution", "error"));
    assert_eq!(
        r.json["summary"]["primaryIssueCode"],
        "remote-script-execution"
    );
}

#[test]
fn downloads_that_are_not_executed_are_not_remote_script_execution() {
    // Still shell wrappers, which is all they are.
    expect(
        "remote_script_execution.benign.json",
        &[
            (
                "shell-command-wrapper",
                "medium",
                3,
                28,
                "/mcpServers/health/command",
            ),
            (
                "shell-command-wrapper",
                "medium",
                4,
                30,
                "/mcpServers/download/command",
            ),
        ],
    );
}

#[test]
fn unpinned_packages_in_every_launcher() {
    let r = expect(
        "unpinned_package.malicious.json",
        &[
            (
                "unpinned-package",
                "medium",
                3,
                52,
                "/mcpServers/npx-bare/args/1",
            ),
            (
                "unpinned-package",
                "medium",
                4,
                72,
                "/mcpServers/npx-latest/args/1",
            ),
            (
                "unpinned-package",
                "medium",
                5,
                84,
                "/mcpServers/npx-range/args/1",
            ),
            (
                "unpinned-package",
                "medium",
                6,
                55,
                "/mcpServers/npx-package/args/1",
            ),
            (
                "unpinned-package",
                "medium",
                7,
                48,
                "/mcpServers/bunx-next/args/0",
            ),
            (
                "unpinned-package",
                "medium",
                8,
                50,
                "/mcpServers/pnpm/args/1",
            ),
            (
                "unpinned-package",
                "medium",
                9,
                50,
                "/mcpServers/yarn/args/1",
            ),
            (
                "unpinned-package",
                "medium",
                10,
                69,
                "/mcpServers/npm-exec/args/3",
            ),
            (
                "unpinned-package",
                "medium",
                11,
                46,
                "/mcpServers/uvx-bare/args/0",
            ),
            (
                "unpinned-package",
                "medium",
                12,
                52,
                "/mcpServers/uvx-latest/args/0",
            ),
            (
                "unpinned-package",
                "medium",
                13,
                62,
                "/mcpServers/uvx-from-range/args/1",
            ),
            (
                "unpinned-package",
                "medium",
                14,
                63,
                "/mcpServers/uv-tool-run/args/2",
            ),
            (
                "unpinned-package",
                "medium",
                15,
                50,
                "/mcpServers/pipx/args/1",
            ),
            (
                "unpinned-package",
                "medium",
                16,
                97,
                "/mcpServers/docker-latest/args/5",
            ),
            (
                "unpinned-package",
                "medium",
                17,
                77,
                "/mcpServers/docker-untagged/args/3",
            ),
            (
                "unpinned-package",
                "low",
                18,
                90,
                "/mcpServers/docker-tag/args/5",
            ),
        ],
    );
    has(&r, ("unpinned-package", "warning"));
    // The suggested fix is valid for the launcher at hand.
    let fix = |p: &str| r.issue_at(p)["fix"].as_str().expect("fix").to_string();
    assert!(fix("/mcpServers/npx-bare/args/1")
        .contains("`npx -y @modelcontextprotocol/server-github@1.2.3`"));
    assert!(fix("/mcpServers/npx-package/args/1")
        .contains("`npx -y --package=@acme/tools@1.2.3 acme-mcp`"));
    assert!(fix("/mcpServers/bunx-next/args/0").contains("`bunx acme-mcp@1.2.3`"));
    assert!(fix("/mcpServers/pnpm/args/1").contains("`pnpm dlx acme-mcp@1.2.3`"));
    assert!(fix("/mcpServers/yarn/args/1").contains("`yarn dlx acme-mcp@1.2.3`"));
    assert!(fix("/mcpServers/uvx-bare/args/0").contains("`uvx mcp-server-fetch@1.2.3`"));
    assert!(fix("/mcpServers/uvx-from-range/args/1")
        .contains("`uvx --from 'mcp-server-git==1.2.3' mcp-server-git`"));
    assert!(fix("/mcpServers/pipx/args/1")
        .contains("`pipx run --spec 'mcp-server-fetch==1.2.3' mcp-server-fetch`"));
    assert!(fix("/mcpServers/docker-latest/args/5")
        .contains("ghcr.io/github/github-mcp-server@sha256:<digest>"));
}

#[test]
fn pinned_packages_are_not_reported() {
    expect_clean("unpinned_package.benign.json");
}

#[test]
fn filesystem_root_and_home_access() {
    let r = expect(
        "filesystem_root_access.malicious.json",
        &[
            (
                "filesystem-root-access",
                "high",
                3,
                59,
                "/mcpServers/root/args/1",
            ),
            (
                "filesystem-root-access",
                "high",
                5,
                62,
                "/mcpServers/windows/args/1",
            ),
            (
                "filesystem-root-access",
                "high",
                6,
                74,
                "/mcpServers/docker/args/4",
            ),
            (
                "filesystem-root-access",
                "medium",
                4,
                59,
                "/mcpServers/home/args/1",
            ),
            (
                "filesystem-root-access",
                "medium",
                7,
                91,
                "/mcpServers/env/env/ALLOWED_DIRECTORIES",
            ),
        ],
    );
    has(&r, ("filesystem-root-access", "error"));
    has(&r, ("filesystem-root-access", "warning"));
}

#[test]
fn project_directories_are_not_root_access() {
    expect_clean("filesystem_root_access.benign.json");
}

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
                "high",
                3,
                98,
                "/mcpServers/node/env/NODE_TLS_REJECT_UNAUTHORIZED",
            ),
            (
                "tls-verification-disabled",
                "high",
                4,
                92,
                "/mcpServers/python/env/PYTHONHTTPSVERIFY",
            ),
            (
                "tls-verification-disabled",
                "high",
                4,
                119,
                "/mcpServers/python/env/REQUESTS_CA_BUNDLE",
            ),
            (
                "tls-verification-disabled",
                "high",
                5,
                56,
                "/mcpServers/flags/args/1",
            ),
            (
                "tls-verification-disabled",
                "high",
                5,
                70,
                "/mcpServers/flags/args/2",
            ),
            (
                "tls-verification-disabled",
                "high",
                6,
                90,
                "/mcpServers/git/env/GIT_SSL_NO_VERIFY",
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
                38,
                "/servers/open/url",
            ),
            (
                "unauthenticated-remote-endpoint",
                "low",
                4,
                39,
                "/servers/events/url",
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
fn loopback_binds_are_not_reported() {
    expect_clean("listens_on_all_interfaces.benign.json");
}

#[test]
fn unknown_entries_are_reported_and_the_rest_is_still_scanned() {
    let r = expect(
        "unknown_server_entry.malicious.json",
        &[
            (
                "hardcoded-secret",
                "high",
                8,
                91,
                "/mcpServers/still-scanned/env/GITHUB_TOKEN",
            ),
            ("unknown-server-entry", "info", 3, 15, "/mcpServers/number"),
            ("unknown-server-entry", "info", 4, 14, "/mcpServers/empty"),
            (
                "unknown-server-entry",
                "info",
                5,
                28,
                "/mcpServers/websocket/type",
            ),
            (
                "unknown-server-entry",
                "info",
                6,
                46,
                "/mcpServers/bad-args/args",
            ),
            (
                "unknown-server-entry",
                "info",
                7,
                80,
                "/mcpServers/bad-env/env/OPTIONS",
            ),
            ("unknown-server-entry", "info", 10, 14, "/servers"),
        ],
    );
    has(&r, ("unknown-server-entry", "note"));
    let servers = r.json["servers"].as_array().expect("servers");
    assert_eq!(servers.len(), 6);
    assert_eq!(servers[0]["understood"], false);
    assert_eq!(servers[5]["understood"], true);
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
