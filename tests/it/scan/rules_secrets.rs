//! Secret rules on configs (hardcoded-secret, high-entropy-secret, credential-in-url): each
//! planted secret found at its exact line, column and logical path, look-alikes not reported,
//! and no secret in any output.

use crate::support;
use support::scan::*;
use support::*;

#[test]
fn hardcoded_secret_in_env_args_headers_and_urls() {
    let r = expect(
        "hardcoded_secret.malicious.json",
        &[
            (
                "hardcoded-secret",
                "critical",
                5,
                29,
                "/mcpServers/github/args/1",
            ),
            (
                "hardcoded-secret",
                "critical",
                6,
                32,
                "/mcpServers/github/env/GITHUB_TOKEN",
            ),
            (
                "hardcoded-secret",
                "critical",
                11,
                37,
                "/mcpServers/remote/headers/Authorization",
            ),
            (
                "hardcoded-secret",
                "critical",
                15,
                28,
                "/mcpServers/tools/args/1",
            ),
            (
                "hardcoded-secret",
                "critical",
                17,
                30,
                "/mcpServers/tools/env/AWS_ACCESS_KEY_ID",
            ),
            (
                "hardcoded-secret",
                "critical",
                18,
                22,
                "/mcpServers/tools/env/NPM_TOKEN",
            ),
            (
                "hardcoded-secret",
                "critical",
                19,
                21,
                "/mcpServers/tools/env/HF_TOKEN",
            ),
            (
                "hardcoded-secret",
                "critical",
                20,
                23,
                "/mcpServers/tools/env/STRIPE_KEY",
            ),
            (
                "hardcoded-secret",
                "critical",
                21,
                25,
                "/mcpServers/tools/env/GITLAB_TOKEN",
            ),
            (
                "hardcoded-secret",
                "critical",
                22,
                27,
                "/mcpServers/tools/env/GOOGLE_API_KEY",
            ),
            (
                "hardcoded-secret",
                "critical",
                23,
                25,
                "/mcpServers/tools/env/FINE_GRAINED",
            ),
            (
                "hardcoded-secret",
                "critical",
                24,
                24,
                "/mcpServers/tools/env/SERVICE_JWT",
            ),
            (
                "hardcoded-secret",
                "critical",
                30,
                38,
                "/mcpServers/webhook/args/2",
            ),
            ("hardcoded-secret", "critical", 33, 67, "/inputs/0/default"),
            // A PEM header without its body has only the looser shape: high, not critical.
            (
                "hardcoded-secret",
                "high",
                25,
                23,
                "/mcpServers/tools/env/DEPLOY_KEY",
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
        "Slack webhook",
    ]
    .iter()
    .enumerate()
    {
        assert!(providers[i + 2].starts_with(p), "{}: {p}", providers[i + 2]);
    }
    assert!(
        providers[14].starts_with("private key"),
        "{}",
        providers[14]
    );
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
    let mut secrets = secrets.to_vec();
    // Random literals under credential names, and URL passwords.
    secrets.extend([
        "zLczbttOofL9H2WjQ5TY4MyWuUFjsUNPjc01T5GO",
        "7CgQ0PBQFI14zGtSnovm14TUOizwd1ia",
        "jG3uhkWKFLf6xuI5aHUQPFeNBTxaQWk8JzFalHls",
        "Q7mV2xL9pR4tK8wN3bZ6cJ1hF5dS0gYe",
        "Xk9#mP2$vL7qR4!tW8nZ",
        "hunter2pass",
        "S3cretPass",
        "live7Hq2",
    ]);
    for fixture in [
        "hardcoded_secret.malicious.json",
        "high_entropy_secret.malicious.json",
        "credential_in_url.malicious.json",
    ] {
        let fixture = config(fixture);
        let json = scan(&[&fixture]);
        let human = run(scan_command(&repo()).args(["scan", &fixture]));
        let inventory =
            run(scan_command(&repo()).args(["inventory", "--format", "json", &fixture]));
        let human_inventory = run(scan_command(&repo()).args(["inventory", &fixture]));
        let dir = tempfile::tempdir().expect("tempdir");
        let lock = dir.path().join("lock.json");
        let baseline = dir.path().join("baseline.json");
        run(scan_command(&repo())
            .args(["pin", "--output"])
            .arg(&lock)
            .arg(&fixture));
        run(scan_command(&repo())
            .args(["baseline", "--output"])
            .arg(&baseline)
            .arg(&fixture));
        let texts = [
            json.stdout.clone(),
            json.stderr.clone(),
            String::from_utf8_lossy(&human.stdout).into_owned(),
            String::from_utf8_lossy(&human.stderr).into_owned(),
            String::from_utf8_lossy(&inventory.stdout).into_owned(),
            String::from_utf8_lossy(&human_inventory.stdout).into_owned(),
            std::fs::read_to_string(&lock).expect("lock written"),
            std::fs::read_to_string(&baseline).expect("baseline written"),
        ];
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        assert_no_secret(&texts, &secrets);
    }
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
fn leaked_github_token_is_critical_and_fails_fail_on_critical() {
    let r = expect(
        "leaked_github_token.json",
        &[(
            "hardcoded-secret",
            "critical",
            6,
            48,
            "/mcpServers/github/env/GITHUB_PERSONAL_ACCESS_TOKEN",
        )],
    );
    assert_eq!(r.exit, 1);
    let strict = scan(&["--fail-on", "critical", &config("leaked_github_token.json")]);
    assert_eq!(
        strict.exit, 1,
        "a verified-shape token fails --fail-on critical"
    );
    assert_eq!(strict.json["summary"]["failing"], 1);
}

#[test]
fn anthropic_key_under_a_plain_name_is_a_hardcoded_secret() {
    // Neither "--model-endpoint" nor "UPSTREAM" names a credential: the prefix decides.
    // Shorter than a real key, so high rather than critical; a bare prefix is not a key.
    let r = expect(
        "anthropic_key_under_a_plain_name.json",
        &[
            (
                "hardcoded-secret",
                "high",
                6,
                52,
                "/mcpServers/assistant/args/2",
            ),
            (
                "hardcoded-secret",
                "high",
                7,
                28,
                "/mcpServers/assistant/env/UPSTREAM",
            ),
        ],
    );
    assert!(r.issue_at("/mcpServers/assistant/env/UPSTREAM")["evidence"]
        .as_str()
        .expect("evidence")
        .starts_with("Anthropic API key sk-a… (45 characters)"));
}

// Mode bits and their meaning are Unix's.
#[cfg(unix)]
mod exposure {
    use super::support::scan::*;
    use std::os::unix::fs::PermissionsExt;
    use std::path::Path;
    use std::process::Command;

    const TOKEN: &str = "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d";

    /// Two servers with a token each: the finding is once per file, at the first one (6:32).
    fn with_tokens() -> String {
        format!("{{\n  \"mcpServers\": {{\n    \"github\": {{\n      \"command\": \"node\",\n      \"args\": [\"s.js\"],\n      \"env\": {{ \"GITHUB_TOKEN\": \"{TOKEN}\" }}\n    }},\n    \"other\": {{ \"command\": \"node\", \"env\": {{ \"GH\": \"{TOKEN}\" }} }}\n  }}\n}}\n")
    }

    const REFERENCES_ONLY: &str = "{\"mcpServers\": {\"github\": {\"command\": \"node\", \"env\": {\"GITHUB_TOKEN\": \"${GITHUB_TOKEN}\"}}}}\n";

    fn chmod(path: &Path, mode: u32) {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
    }

    fn put(dir: &Path, rel: &str, text: &str, mode: u32) {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, text).expect("write");
        chmod(&path, mode);
    }

    fn exposures(r: &ScanResult) -> Vec<(String, u64, u64, String, String)> {
        r.json["issues"]
            .as_array()
            .expect("issues")
            .iter()
            .filter(|i| i["code"] == "config-file-exposure")
            .map(|i| {
                (
                    i["location"]["file"].as_str().expect("file").to_string(),
                    i["location"]["line"].as_u64().expect("line"),
                    i["location"]["column"].as_u64().expect("column"),
                    i["location"]["logical"]
                        .as_str()
                        .expect("logical")
                        .to_string(),
                    i["message"].as_str().expect("message").to_string(),
                )
            })
            .collect()
    }

    fn git(dir: &Path, args: &[&str]) {
        let out = Command::new("git")
            .args(["-c", "user.email=t@example.com", "-c", "user.name=t"])
            .args(args)
            .current_dir(dir)
            .env_remove("GIT_DIR")
            .env_remove("GIT_INDEX_FILE")
            .output()
            .expect("run git");
        assert!(out.status.success(), "git {args:?}: {out:?}");
    }

    #[test]
    fn a_config_with_credentials_readable_by_others_is_reported_once_at_its_first_credential() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        chmod(root, 0o755);
        put(root, "others/.mcp.json", &with_tokens(), 0o644);
        put(root, "group/.mcp.json", &with_tokens(), 0o640);
        put(root, "private/.mcp.json", &with_tokens(), 0o600);
        put(root, "no-secret/.mcp.json", REFERENCES_ONLY, 0o644);
        // A readable file behind a directory others cannot enter is private.
        put(root, "closed/inner/.mcp.json", &with_tokens(), 0o644);
        chmod(&root.join("closed"), 0o700);
        let r = scan_in(root, &[]);
        let found = exposures(&r);
        assert_eq!(
            found
                .iter()
                .map(|f| (f.0.as_str(), f.1, f.2, f.3.as_str()))
                .collect::<Vec<_>>(),
            [
                (
                    "group/.mcp.json",
                    6,
                    32,
                    "/mcpServers/github/env/GITHUB_TOKEN"
                ),
                (
                    "others/.mcp.json",
                    6,
                    32,
                    "/mcpServers/github/env/GITHUB_TOKEN"
                ),
            ]
        );
        assert_eq!(
            found[1].4,
            "others/.mcp.json is exposed: it is readable by other users (mode 0644). It holds 2 literal credentials."
        );
        assert!(
            found[0].4.contains("readable by its group (mode 0640)"),
            "{}",
            found[0].4
        );
        assert!(!r.stdout.contains(TOKEN) && !r.stderr.contains(TOKEN));
        let high: Vec<_> = r.json["issues"]
            .as_array()
            .expect("issues")
            .iter()
            .filter(|i| i["code"] == "config-file-exposure")
            .map(|i| (i["risk"].as_str(), i["owasp"].as_str()))
            .collect();
        assert_eq!(high, [(Some("high"), Some("MCP01")); 2]);
    }

    #[test]
    fn a_config_in_a_world_writable_directory_is_reported_without_a_sticky_bit() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        put(root, "open/.cursor/mcp.json", REFERENCES_ONLY, 0o600);
        chmod(&root.join("open"), 0o777);
        put(root, "sticky/.cursor/mcp.json", REFERENCES_ONLY, 0o600);
        chmod(&root.join("sticky"), 0o1777);
        let r = scan_in(root, &[]);
        assert_eq!(
            r.places(),
            places(&[("config-file-exposure", "high", 1, 1, "")])
        );
        let found = exposures(&r);
        assert_eq!(
            (
                found[0].0.as_str(),
                found[0].1,
                found[0].2,
                found[0].3.as_str()
            ),
            ("open/.cursor/mcp.json", 1, 1, "")
        );
        assert!(
            found[0].4.contains(
                "/open is writable by every user (no sticky bit), so anyone can replace the file"
            ),
            "{}",
            found[0].4
        );
        chmod(&root.join("open"), 0o755);
    }

    #[test]
    fn a_config_with_credentials_tracked_by_git_is_reported_in_every_index_version() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        git(root, &["init", "-q"]);
        // Other entries around it, so the index walk has to get the offsets right.
        put(root, "a/README", "x", 0o600);
        put(root, "a/b/.mcp.json", &with_tokens(), 0o600);
        put(root, "a/bb/.mcp.json", &with_tokens(), 0o600);
        put(root, "a/c/.vscode/mcp.json", REFERENCES_ONLY, 0o600);
        git(
            root,
            &["add", "a/README", "a/b/.mcp.json", "a/c/.vscode/mcp.json"],
        );
        for version in ["2", "3", "4"] {
            git(root, &["update-index", "--index-version", version]);
            let r = scan_in(root, &[]);
            let found = exposures(&r);
            assert_eq!(
                found
                    .iter()
                    .map(|f| (f.0.as_str(), f.1, f.2))
                    .collect::<Vec<_>>(),
                [("a/b/.mcp.json", 6, 32)],
                "index version {version}"
            );
            assert!(found[0].4.contains("git tracks it in "), "{}", found[0].4);
            assert_eq!(
                r.issue_at("/mcpServers/github/env/GITHUB_TOKEN")["code"],
                "hardcoded-secret"
            );
        }
        // Named as a file, not found by the walk: the same.
        let r = scan_in(root, &["a/b/.mcp.json"]);
        assert_eq!(exposures(&r).len(), 1);
        // An untracked file with a token, in the same repository, is not reported.
        let r = scan_in(root, &["a/bb/.mcp.json"]);
        assert!(exposures(&r).is_empty());
    }
}
