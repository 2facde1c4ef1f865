//! Finding and reading configs: project discovery (hidden directories included), user configs
//! with --global, every client's format, positions in CRLF/BOM files, input errors, options.

use crate::support;
use std::path::Path;
use support::scan::*;
use support::*;

const TOKEN: &str = "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d";

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

fn secret_config(name: &str) -> String {
    format!("{{\"mcpServers\": {{\"{name}\": {{\"command\": \"node\", \"args\": [\"s.js\"], \"env\": {{\"GITHUB_TOKEN\": \"{TOKEN}\"}}}}}}}}\n")
}

fn config_paths(r: &ScanResult) -> Vec<String> {
    r.json["configs"]
        .as_array()
        .expect("configs")
        .iter()
        .map(|c| c["path"].as_str().expect("path").to_string())
        .collect()
}

#[test]
fn project_discovery_walks_hidden_directories_and_skips_node_modules() {
    let dir = private_tempdir();
    let root = dir.path();
    write(root, ".mcp.json", &secret_config("root"));
    write(root, ".vscode/mcp.json", "{\"servers\": {}}");
    write(root, ".cursor/mcp.json", "{\"mcpServers\": {}}");
    write(
        root,
        ".config/deep/.cursor/mcp.json",
        &secret_config("hidden"),
    );
    write(root, "packages/app/.mcp.json", "{\"mcpServers\": {}}");
    write(
        root,
        "node_modules/pkg/.mcp.json",
        &secret_config("vendored"),
    );
    write(root, "mcp.json", &secret_config("not-a-client-config"));
    let r = scan_in(root, &[]);
    assert_eq!(
        config_paths(&r),
        [
            ".config/deep/.cursor/mcp.json",
            ".cursor/mcp.json",
            ".mcp.json",
            ".vscode/mcp.json",
            "packages/app/.mcp.json"
        ]
    );
    let clients: Vec<&str> = r.json["configs"]
        .as_array()
        .expect("configs")
        .iter()
        .map(|c| c["client"].as_str().expect("client"))
        .collect();
    assert_eq!(
        clients,
        ["cursor", "cursor", "claude-code", "vscode", "claude-code"]
    );
    assert_eq!(
        r.places(),
        places(&[
            (
                "hardcoded-secret",
                "critical",
                1,
                89,
                "/mcpServers/hidden/env/GITHUB_TOKEN"
            ),
            (
                "hardcoded-secret",
                "critical",
                1,
                87,
                "/mcpServers/root/env/GITHUB_TOKEN"
            ),
        ])
    );
    assert_eq!(
        r.json["issues"][0]["location"]["file"],
        ".config/deep/.cursor/mcp.json"
    );
    assert_eq!(r.exit, 1);
    // A directory given on the command line is walked the same way.
    let r = scan(&[&root.join(".config").display().to_string()]);
    assert_eq!(r.json["configs"].as_array().expect("configs").len(), 1);
}

#[test]
fn global_configs_come_from_home_on_every_client() {
    let home = private_tempdir();
    let project = private_tempdir();
    let h = home.path();
    write(
        h,
        ".claude.json",
        &format!(
            "{{\n  \"numStartups\": 3,\n  \"mcpServers\": {{ \"user\": {{ \"command\": \"node\", \"args\": [\"u.js\"] }} }},\n  \"projects\": {{\n    \"/home/ada/proj\": {{\n      \"mcpServers\": {{\n        \"local\": {{ \"command\": \"node\", \"args\": [\"l.js\"], \"env\": {{ \"GITHUB_TOKEN\": \"{TOKEN}\" }} }}\n      }}\n    }}\n  }}\n}}\n"
        ),
    );
    write(
        h,
        ".config/Claude/claude_desktop_config.json",
        "{\"mcpServers\": {\"desktop\": {\"command\": \"uvx\", \"args\": [\"mcp-server-time\"]}}}",
    );
    write(h, ".cursor/mcp.json", "{\"mcpServers\": {\"cursor\": {\"url\": \"https://c.example.com/mcp\", \"headers\": {\"Authorization\": \"Bearer ${env:T}\"}}}}");
    write(h, ".codeium/windsurf/mcp_config.json", "{\"mcpServers\": {\"windsurf\": {\"serverUrl\": \"http://w.example.com/sse\", \"headers\": {\"Authorization\": \"Bearer ${T}\"}}}}");
    write(h, ".config/Code/User/settings.json", "{\n  // user settings\n  \"editor.tabSize\": 2,\n  \"mcp\": { \"servers\": { \"vscode\": { \"type\": \"stdio\", \"command\": \"node\", \"args\": [\"v.js\"], \"env\": { \"NODE_TLS_REJECT_UNAUTHORIZED\": \"0\" } } } }\n}\n");
    let out = run(scan_command(project.path())
        .env("HOME", h)
        .env_remove("XDG_CONFIG_HOME")
        .args(["scan", "--global", "--format", "json"]));
    let r = parse(out);
    let h = h.display().to_string();
    let mut paths = config_paths(&r);
    paths.sort();
    let mut expected: Vec<String> = [
        ".claude.json",
        ".codeium/windsurf/mcp_config.json",
        ".config/Claude/claude_desktop_config.json",
        ".config/Code/User/settings.json",
        ".cursor/mcp.json",
    ]
    .iter()
    .map(|p| format!("{h}/{p}"))
    .collect();
    expected.sort();
    assert_eq!(paths, expected);
    for c in r.json["configs"].as_array().expect("configs") {
        assert_eq!(c["scope"], "global");
    }
    assert_eq!(
        r.places(),
        places(&[
            (
                "hardcoded-secret",
                "critical",
                7,
                82,
                "/projects/~1home~1ada~1proj/mcpServers/local/env/GITHUB_TOKEN"
            ),
            (
                "tls-verification-disabled",
                "critical",
                4,
                132,
                "/mcp/servers/vscode/env/NODE_TLS_REJECT_UNAUTHORIZED"
            ),
            (
                "insecure-transport",
                "high",
                1,
                43,
                "/mcpServers/windsurf/serverUrl"
            ),
            (
                "unpinned-package",
                "medium",
                1,
                56,
                "/mcpServers/desktop/args/0"
            ),
        ])
    );
    let names: Vec<&str> = r.json["servers"]
        .as_array()
        .expect("servers")
        .iter()
        .map(|s| s["name"].as_str().expect("name"))
        .collect();
    assert!(
        names.contains(&"user") && names.contains(&"local") && names.contains(&"cursor"),
        "{names:?}"
    );
    // With --project-only only the (empty) project is scanned. (Without paths and without
    // a flag the user's configs are read too: see the next test.)
    let none = parse(run(scan_command(project.path())
        .env("HOME", home.path())
        .env_remove("XDG_CONFIG_HOME")
        .args(["scan", "--project-only", "--format", "json"])));
    assert!(config_paths(&none).is_empty());
    assert_eq!(none.exit, 0);
}

#[test]
fn no_paths_discovers_project_and_global_configs_and_lists_them() {
    let home = private_tempdir();
    let project = private_tempdir();
    write(
        home.path(),
        ".cursor/mcp.json",
        &format!("{{\"mcpServers\": {{\"user-gh\": {{\"command\": \"node\", \"env\": {{\"GITHUB_TOKEN\": \"{TOKEN}\"}}}}}}}}"),
    );
    write(
        project.path(),
        ".mcp.json",
        "{\"mcpServers\": {\"notes\": {\"command\": \"node\", \"args\": [\"notes.js\"]}}}",
    );
    let scan_here = |extra: &[&str]| {
        let mut cmd = scan_command(project.path());
        cmd.env("HOME", home.path())
            .env("XDG_CONFIG_HOME", home.path().join(".config"))
            .arg("scan")
            .args(extra);
        run(&mut cmd)
    };
    let r = parse(scan_here(&["--format", "json"]));
    let user = format!("{}/.cursor/mcp.json", home.path().display());
    assert_eq!(config_paths(&r), [".mcp.json".to_string(), user.clone()]);
    let scopes: Vec<&str> = r.json["configs"]
        .as_array()
        .expect("configs")
        .iter()
        .map(|c| c["scope"].as_str().expect("scope"))
        .collect();
    assert_eq!(scopes, ["project", "global"]);
    assert_eq!(r.issues(), pairs(&[("hardcoded-secret", "error")]));
    assert_eq!(r.exit, 1);
    // The human report says which files were read, and from where.
    let human = String::from_utf8(scan_here(&[]).stdout).expect("utf-8");
    let listed: Vec<&str> = human
        .lines()
        .skip_while(|l| l.trim() != "configs:")
        .skip(1)
        .take(2)
        .collect();
    assert!(
        listed[0].contains(".mcp.json") && listed[0].contains("project"),
        "{human}"
    );
    assert!(
        listed[1].contains(&user) && listed[1].contains("global"),
        "{human}"
    );
    // --project-only keeps to the project.
    let project_only = parse(scan_here(&["--project-only", "--format", "json"]));
    assert_eq!(config_paths(&project_only), [".mcp.json".to_string()]);
    assert_eq!(project_only.exit, 0);
    // pin writes a file for the repository: the project's servers only, unless --global;
    // and the user's servers are not "added since pin" to the project's lock.
    let mut pin = scan_command(project.path());
    pin.env("HOME", home.path()).arg("pin");
    assert_eq!(run(&mut pin).status.code(), Some(0));
    let lock = std::fs::read_to_string(project.path().join(".mcpcheck-lock.json")).expect("lock");
    assert!(
        lock.contains("notes") && !lock.contains("user-gh"),
        "{lock}"
    );
    let locked = parse(scan_here(&["--format", "json"]));
    assert_eq!(locked.issues(), pairs(&[("hardcoded-secret", "error")]));
}

fn input_error(dir: &Path, args: &[&str]) -> String {
    let out = run(scan_command(dir).args(args));
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).expect("utf-8");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("mcpcheck: error: "), "{stderr}");
    assert!(!stderr.contains("panicked"));
    stderr
}

#[test]
fn schema_breaks_are_input_errors_naming_file_line_column_and_what_was_expected() {
    let repo = repo();
    let cases = [
        (
            "schema_servers_not_an_object.json",
            ":1:16: /mcpServers is a number, expected an object of servers by name",
        ),
        (
            "schema_server_is_a_string.json",
            ":3:15: server /mcpServers/github is a string, expected an object with a command (stdio) or a url (remote)",
        ),
        (
            "schema_root_not_an_object.json",
            ":1:1: the file is an array, expected an object with mcpServers or servers",
        ),
    ];
    for (fixture, expected) in cases {
        let path = format!("tests/fixtures/configs/{fixture}");
        let stderr = input_error(&repo, &["scan", &path]);
        assert!(
            stderr.contains(&format!("{path}{expected}")),
            "{fixture}: {stderr}"
        );
    }
    // The inventory lists such a file as broken instead of failing.
    let out = run(scan_command(&repo).args([
        "inventory",
        "--format",
        "json",
        "tests/fixtures/configs/schema_servers_not_an_object.json",
    ]));
    assert_eq!(out.status.code(), Some(0));
    let inv = inventory_json(&out.stdout);
    assert!(inv["configs"][0]["error"].is_string(), "{inv:#}");
}

#[test]
fn invalid_jsonc_is_an_input_error_naming_file_line_and_column() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        ".mcp.json",
        "{\n  \"mcpServers\": {\n    \"a\": { \"command\": \"node\" }\n    \"b\": {}\n  }\n}\n",
    );
    let err = input_error(dir.path(), &["scan"]);
    assert!(err.contains(".mcp.json:3:"), "{err}");
    assert!(err.contains("not valid JSON"), "{err}");
    write(
        dir.path(),
        "other.json",
        "{\"mcpServers\": {\"a\": 'single'}}",
    );
    let err = input_error(dir.path(), &["scan", "other.json"]);
    assert!(err.contains("other.json:1:"), "{err}");
    let err = input_error(dir.path(), &["scan", "missing.json"]);
    assert!(
        err.contains("missing.json: no such file or directory"),
        "{err}"
    );
    std::fs::write(dir.path().join("binary.json"), [0x7b, 0xff, 0xfe, 0x7d]).expect("write");
    let err = input_error(dir.path(), &["scan", "binary.json"]);
    assert!(err.contains("not UTF-8"), "{err}");
    assert!(input_error(
        dir.path(),
        &["scan", "--rules", "no-such-rule", "other.json"]
    )
    .contains("no-such-rule"));
    assert!(input_error(dir.path(), &["scan", "--fail-on", "severe"]).contains("severe"));
    assert!(
        input_error(dir.path(), &["scan", "--live", "--live-timeout", "0"])
            .contains("--live-timeout")
    );
    assert!(
        input_error(dir.path(), &["scan", "--output", "/nonexistent/dir/r.json"])
            .contains("/nonexistent/dir/r.json")
    );
}

#[test]
fn positions_survive_crlf_bom_comments_and_wide_characters() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = format!(
        "\u{feff}{{\r\n  /* servers: é */\r\n  \"mcpServers\": {{\r\n    \"ünïcödé\": {{ \"command\": \"node\", \"env\": {{ \"GITHUB_TOKEN\": \"{TOKEN}\" }}, }},\r\n  }},\r\n}}\r\n"
    );
    write(dir.path(), "crlf.json", &text);
    let r = scan_in(dir.path(), &["crlf.json"]);
    assert_eq!(
        r.places(),
        places(&[(
            "hardcoded-secret",
            "critical",
            4,
            62,
            "/mcpServers/ünïcödé/env/GITHUB_TOKEN"
        )])
    );
    assert_eq!(r.json["issues"][0]["location"]["endLine"], 4);
    assert_eq!(r.json["issues"][0]["location"]["endColumn"], 104);
}

#[test]
fn rule_selection_fail_on_and_output() {
    let fixture = config("remote_script_execution.malicious.json");
    let only = scan(&["--rules", "shell-command-wrapper", &fixture]);
    assert!(only
        .issues()
        .iter()
        .all(|(c, _)| c == "shell-command-wrapper"));
    assert_eq!(only.issues().len(), 3);
    assert_eq!(only.exit, 0);
    let ignored = scan(&[
        "--ignore-rule",
        "shell-command-wrapper,remote-script-execution",
        &fixture,
    ]);
    assert!(ignored.issues().is_empty());
    assert_eq!(ignored.json["stats"]["rulesRun"], 15);
    let critical = scan(&["--fail-on", "critical", &fixture]);
    assert_eq!(critical.exit, 1);
    assert_eq!(critical.json["summary"]["failing"], 3);
    let lenient = scan(&[
        "--fail-on",
        "critical",
        &config("filesystem_root_access.malicious.json"),
    ]);
    assert_eq!(
        lenient.exit, 0,
        "high findings pass with --fail-on critical"
    );
    assert_eq!(lenient.json["summary"]["status"], "warning");
    let medium = scan(&[
        "--fail-on",
        "medium",
        &config("shell_command_wrapper.malicious.json"),
    ]);
    assert_eq!(medium.exit, 1);
    let info = scan(&[
        "--fail-on",
        "info",
        &config("unknown_server_entry.benign.json"),
    ]);
    assert_eq!(info.exit, 0);

    let dir = tempfile::tempdir().expect("tempdir");
    let out_file = dir.path().join("report.json");
    let out = run(scan_command(&repo())
        .args(["scan", "--json", "--output"])
        .arg(&out_file)
        .arg(&fixture));
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&out_file).expect("written")).expect("json");
    assert_eq!(report["schemaVersion"], 1);
    assert_eq!(report["ok"], false);
    for key in [
        "summary", "configs", "servers", "issues", "stats", "notices",
    ] {
        assert!(report.get(key).is_some(), "{key}");
    }
    assert_eq!(
        report["issues"][0]["fingerprint"]
            .as_str()
            .expect("fingerprint")
            .len(),
        32
    );
}

#[test]
fn human_output_names_each_finding_with_its_place_and_fix() {
    let out = run(
        scan_command(&repo()).args(["scan", &config("remote_script_execution.malicious.json")])
    );
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(
        text.starts_with("FAIL  mcpcheck scan: 1 config · 3 servers · fail on high\n"),
        "{text}"
    );
    assert!(
        text.contains("critical[remote-script-execution] "),
        "{text}"
    );
    assert!(
        text.contains("remote_script_execution.malicious.json:3:52, /mcpServers/installer/args/1"),
        "{text}"
    );
    assert!(text.contains("\n  fix: "), "{text}");
    assert!(text.contains("live: not asked: --live not given"), "{text}");
    assert!(
        text.ends_with(
            "3 findings at or above high · 3 critical, 0 high, 3 medium, 0 low, 0 info\n"
        ),
        "{text}"
    );
    assert!(!text.contains('\u{1b}'), "no colour into a pipe");
    let clean = run(scan_command(&repo()).args(["scan", &config("unpinned_package.benign.json")]));
    assert_eq!(clean.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&clean.stdout).starts_with("PASS  mcpcheck scan: "));
}

#[test]
fn every_rule_carries_its_owasp_category_and_class() {
    for (fixture, code, owasp) in [
        (
            "hardcoded_secret.malicious.json",
            "hardcoded-secret",
            "MCP01",
        ),
        (
            "high_entropy_secret.malicious.json",
            "high-entropy-secret",
            "MCP01",
        ),
        (
            "credential_in_url.malicious.json",
            "credential-in-url",
            "MCP01",
        ),
        (
            "shell_command_wrapper.malicious.json",
            "shell-command-wrapper",
            "MCP05",
        ),
        (
            "remote_script_execution.malicious.json",
            "remote-script-execution",
            "MCP04",
        ),
        (
            "unpinned_package.malicious.json",
            "unpinned-package",
            "MCP04",
        ),
        (
            "filesystem_root_access.malicious.json",
            "filesystem-root-access",
            "MCP02",
        ),
        (
            "insecure_transport.malicious.json",
            "insecure-transport",
            "MCP07",
        ),
        (
            "ssrf_reachable_target.malicious.json",
            "ssrf-reachable-target",
            "MCP07",
        ),
        (
            "tls_verification_disabled.malicious.json",
            "tls-verification-disabled",
            "MCP07",
        ),
        (
            "unauthenticated_remote_endpoint.malicious.json",
            "unauthenticated-remote-endpoint",
            "MCP07",
        ),
        (
            "listens_on_all_interfaces.malicious.json",
            "listens-on-all-interfaces",
            "MCP07",
        ),
        (
            "unknown_server_entry.malicious.json",
            "unknown-server-entry",
            "MCP09",
        ),
    ] {
        let r = scan(&[&config(fixture)]);
        let issue = r.json["issues"]
            .as_array()
            .expect("issues")
            .iter()
            .find(|i| i["code"] == code)
            .unwrap_or_else(|| panic!("{fixture}: no {code}"));
        assert_eq!(issue["owasp"], owasp, "{code}");
        assert_eq!(issue["class"], "security", "{code}");
    }
    let out = run(scan_command(&repo()).args(["explain", "unpinned-package"]));
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(text.starts_with("unpinned-package ("), "{text}");
    let rules = String::from_utf8(run(scan_command(&repo()).arg("rules")).stdout).expect("utf-8");
    for code in [
        "hardcoded-secret",
        "tool-surface-drift",
        "server-added-since-pin",
    ] {
        assert!(rules.contains(code), "{code} missing from `mcpcheck rules`");
    }
}

#[test]
fn rules_naming_a_code_no_scan_can_produce_are_refused_or_noted() {
    let repo = repo();
    let fixture = config("leaked_github_token.json");
    // A guard-only and a source-only code: no scan rule reports them.
    let guard = input_error(&repo, &["scan", "--rules", "server-crashed", &fixture]);
    assert!(
        guard.contains("--rules server-crashed: no scan rule reports this code"),
        "{guard}"
    );
    let source = input_error(&repo, &["scan", "--rules", "static-stdout-write", &fixture]);
    assert!(source.contains("only `mcpcheck source`"), "{source}");
    // A live-only code without --live runs nothing, and the report says so.
    let live_only = scan(&["--rules", "tool-poisoning-instructions", &fixture]);
    assert_eq!(live_only.exit, 0);
    let notices = live_only.json["notices"].to_string();
    assert!(
        notices.contains(
            "--rules tool-poisoning-instructions: reported only from live surfaces; add --live"
        ),
        "{notices}"
    );
    assert!(notices.contains("nothing was checked"), "{notices}");
    // A scan code next to it: it runs, and only the live one is noted.
    let mixed = scan(&[
        "--rules",
        "hardcoded-secret,tool-poisoning-instructions",
        &fixture,
    ]);
    assert_eq!(mixed.issues(), pairs(&[("hardcoded-secret", "error")]));
    assert!(!mixed.json["notices"]
        .to_string()
        .contains("nothing was checked"));
}

#[test]
fn live_allow_unsafe_without_live_is_noted() {
    let fixture = config("leaked_github_token.json");
    let r = scan(&["--live-allow-unsafe", &fixture]);
    assert!(
        r.json["notices"]
            .to_string()
            .contains("--live-allow-unsafe does nothing without --live"),
        "{}",
        r.json["notices"]
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let lock = dir.path().join("lock.json");
    let out = run(scan_command(&repo()).args([
        "pin",
        "--live-allow-unsafe",
        "--output",
        lock.to_str().expect("utf-8"),
        &fixture,
    ]));
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    assert!(
        stdout.contains("note: --live-allow-unsafe does nothing without --live"),
        "{stdout}"
    );
}

#[test]
fn primary_issue_same_in_every_format() {
    let fixture = config("primary_issue_same_in_every_format.json");
    let json = scan(&[&fixture]);
    assert_eq!(
        json.json["summary"]["primaryIssueCode"],
        "remote-script-execution"
    );
    let human = run(scan_command(&repo()).args(["scan", &fixture]));
    let human = String::from_utf8(human.stdout).expect("utf-8");
    let first = human
        .lines()
        .find(|l| l.starts_with("critical["))
        .unwrap_or_else(|| panic!("no finding in:\n{human}"));
    assert!(
        first.starts_with("critical[remote-script-execution]"),
        "{first}"
    );
    let markdown = run(scan_command(&repo()).args(["scan", "--format", "markdown", &fixture]));
    let markdown = String::from_utf8(markdown.stdout).expect("utf-8");
    assert!(
        markdown.contains("**FAIL\\: remote\\-script\\-execution \\("),
        "{markdown}"
    );
}

/// Every issue as (file, line, column, code, logical path, fingerprint), sorted.
fn issue_keys(r: &ScanResult) -> Vec<(String, u64, u64, String, String, String)> {
    let mut keys: Vec<_> = r.json["issues"]
        .as_array()
        .expect("issues")
        .iter()
        .map(|i| {
            let text = |v: &serde_json::Value| v.as_str().unwrap_or("").to_string();
            (
                text(&i["location"]["file"]),
                i["location"]["line"].as_u64().expect("line"),
                i["location"]["column"].as_u64().expect("column"),
                text(&i["code"]),
                text(&i["location"]["logical"]),
                text(&i["fingerprint"]),
            )
        })
        .collect();
    keys.sort();
    keys
}

#[test]
fn scanning_a_directory_finds_what_scanning_each_file_finds() {
    // Every config shape discovery knows by name, filled with the malicious fixtures in turn,
    // plus VS Code settings with an `mcp` section: user, workspace, and anywhere else (a copied
    // profile, a backup), since a settings.json that holds `mcp` is read wherever it is.
    const SHAPES: &[&str] = &[
        ".mcp.json",
        ".claude.json",
        "claude_desktop_config.json",
        ".cursor/mcp.json",
        ".vscode/mcp.json",
        ".codeium/windsurf/mcp_config.json",
        ".config/Code/User/mcp.json",
    ];
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let mut fixtures: Vec<_> = std::fs::read_dir(repo().join("tests/fixtures/configs"))
        .expect("fixtures")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.to_string_lossy().ends_with(".malicious.json"))
        .collect();
    fixtures.sort();
    let mut expected_files = Vec::new();
    for (i, fixture) in fixtures.iter().enumerate() {
        let rel = format!("c{i:02}/{}", SHAPES[i % SHAPES.len()]);
        write(root, &rel, &std::fs::read_to_string(fixture).expect("read"));
        expected_files.push(rel);
    }
    for rel in [
        "u/.config/Code/User/settings.json",
        "w/.vscode/settings.json",
        "p/profiles/work/settings.json",
        "settings.json",
    ] {
        write(root, rel, &format!("{{\n  \"editor.tabSize\": 2,\n  \"mcp\": {{ \"servers\": {{ \"s\": {{ \"command\": \"node\", \"args\": [\"s.js\"], \"env\": {{ \"GITHUB_TOKEN\": \"{TOKEN}\" }} }} }} }}\n}}\n"));
        expected_files.push(rel.to_string());
    }
    // Settings without an `mcp` section, or not JSONC at all, are not configs.
    write(root, "x/.vscode/settings.json", "{\"editor.tabSize\": 2}");
    write(root, "y/.config/Code/User/settings.json", "{\"mcp\": ");
    write(root, "z/settings.json", "{\"editor.mcpish\": \"mcp\"}");
    expected_files.sort();
    let whole = scan_in(root, &[]);
    assert_eq!(config_paths(&whole), expected_files);
    let clients: Vec<&str> = whole.json["configs"]
        .as_array()
        .expect("configs")
        .iter()
        .map(|c| c["client"].as_str().expect("client"))
        .collect();
    assert!(!clients.contains(&"unknown"), "{clients:?}");
    let mut each = Vec::new();
    for rel in &expected_files {
        let r = scan_in(root, &[rel.as_str()]);
        assert_eq!(config_paths(&r), std::slice::from_ref(rel));
        each.extend(issue_keys(&r));
    }
    each.sort();
    assert!(each.len() > fixtures.len(), "{}", each.len());
    assert_eq!(issue_keys(&whole), each);
    // The same when the directory is named instead of being the working directory.
    let named = scan_in(root, &["."]);
    assert_eq!(issue_keys(&named), each);
}
