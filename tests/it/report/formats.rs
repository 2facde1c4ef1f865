//! `mcpcheck guard --format sarif|markdown` against real fixture servers in a temporary
//! workspace. Every SARIF document is validated against the official 2.1.0 schema.

use crate::support;

use serde_json::Value;
use support::markdown::active_forms;
use support::sarif::{assert_uris_are_workspace_files, validate_sarif};
use support::workspace::{Workspace, PYPROJECT};

/// Runs the guard in the workspace and returns (exit code, report text, stderr).
fn guard(ws: &Workspace, format: &str, extra: &[&str], server: &str) -> (i32, String, String) {
    let out_file = ws.path().join(format!("report.{format}"));
    let out = ws
        .mcpcheck()
        .args(["guard", "--format", format, "--output"])
        .arg(&out_file)
        .args(extra)
        .args(["--", "python3", &format!("{server}.py")])
        .output()
        .expect("run mcpcheck");
    let text = std::fs::read_to_string(&out_file).unwrap_or_default();
    (
        out.status.code().expect("exit code"),
        text,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn results(doc: &Value) -> &Vec<Value> {
    doc["runs"][0]["results"].as_array().expect("results")
}

#[test]
fn failing_server_sarif_is_valid_and_anchored_to_the_manifest() {
    let ws = Workspace::new(
        "banner_before_initialize",
        Some(("pyproject.toml", PYPROJECT)),
    );
    let (exit, text, stderr) = guard(
        &ws,
        "sarif",
        &["--category", "mcpcheck"],
        "banner_before_initialize",
    );
    assert_eq!(exit, 1, "{stderr}");
    let doc = validate_sarif(&text);
    assert_uris_are_workspace_files(&doc, ws.path());
    let run = &doc["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().expect("rules");
    assert_eq!(rules.len(), mcpcheck::catalog::ALL.len());
    assert_eq!(run["tool"]["driver"]["name"], "mcpcheck");
    assert_eq!(
        run["tool"]["driver"]["semanticVersion"],
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(run["automationDetails"]["id"], "mcpcheck/");
    assert_eq!(run["invocations"][0]["exitCode"], 1);
    assert_eq!(run["invocations"][0]["executionSuccessful"], true);
    assert_eq!(run["columnKind"], "unicodeCodePoints");

    let found: Vec<(&str, &str)> = results(&doc)
        .iter()
        .map(|r| {
            (
                r["ruleId"].as_str().expect("id"),
                r["level"].as_str().expect("level"),
            )
        })
        .collect();
    assert_eq!(found, [("stdout-non-json", "error")]);
    let r = &results(&doc)[0];
    let index = r["ruleIndex"].as_u64().expect("ruleIndex") as usize;
    assert_eq!(rules[index]["id"], "stdout-non-json");
    // The docs of the build that wrote the report, at a ref that exists: its release tag,
    // else the commit it was built from (issue 44 item 12: blob/v0.1.0, a tag that does not
    // exist, pointed at nothing).
    let source_ref = env!("MCPCHECK_SOURCE_REF");
    assert_eq!(
        rules[index]["helpUri"],
        format!(
            "https://github.com/mcpcheck/mcpcheck/blob/{source_ref}/docs/rules/stdout-non-json.md"
        )
    );
    let exists = std::process::Command::new("git")
        .arg("-C")
        .arg(support::repo())
        .args(["cat-file", "-e", &format!("{source_ref}^{{commit}}")])
        .status()
        .expect("git");
    assert!(
        exists.success(),
        "{source_ref} names no commit of this repository"
    );
    assert_eq!(rules[index]["defaultConfiguration"]["level"], "error");
    assert_eq!(rules[index]["properties"]["precision"], "very-high");
    assert!(rules[index]["properties"]
        .get("security-severity")
        .is_none());
    let loc = &r["locations"][0];
    assert_eq!(
        loc["physicalLocation"]["artifactLocation"]["uri"],
        "pyproject.toml"
    );
    assert_eq!(loc["physicalLocation"]["region"]["startLine"], 1);
    assert_eq!(loc["physicalLocation"]["region"]["startColumn"], 1);
    assert_eq!(loc["logicalLocations"][0]["fullyQualifiedName"], "stdout:1");
    let message = r["message"]["text"].as_str().expect("message");
    assert!(message.contains("(at stdout line 1)"), "{message}");
    assert!(message.contains("Starting fixture server v1"), "{message}");
    let fp = r["partialFingerprints"]["mcpcheck/v1"]
        .as_str()
        .expect("fingerprint");
    assert_eq!(fp.len(), 32);

    // The same server again: the same fingerprint, so the alert is the same alert.
    let (_, again, _) = guard(&ws, "sarif", &[], "banner_before_initialize");
    let again = validate_sarif(&again);
    assert_eq!(results(&again)[0]["partialFingerprints"]["mcpcheck/v1"], fp);
    assert!(again["runs"][0].get("automationDetails").is_none());
}

#[test]
fn passing_server_sarif_has_no_results() {
    let ws = Workspace::new("clean", Some(("package.json", "{\"name\": \"fixture\"}")));
    let (exit, text, stderr) = guard(&ws, "sarif", &[], "clean");
    assert_eq!(exit, 0, "{stderr}");
    let doc = validate_sarif(&text);
    assert!(results(&doc).is_empty());
    assert_eq!(doc["runs"][0]["invocations"][0]["exitCode"], 0);
    assert_eq!(doc["runs"][0]["properties"]["status"], "pass");
}

#[test]
fn an_explicit_anchor_wins_and_a_foreign_one_is_refused() {
    let ws = Workspace::new(
        "banner_before_initialize",
        Some(("pyproject.toml", PYPROJECT)),
    );
    let (exit, text, _) = guard(
        &ws,
        "sarif",
        &["--anchor", "mcpfixture.py"],
        "banner_before_initialize",
    );
    assert_eq!(exit, 1);
    let doc = validate_sarif(&text);
    assert_eq!(
        results(&doc)[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "mcpfixture.py"
    );
    std::fs::remove_file(ws.path().join("report.sarif")).expect("remove the first report");
    let (exit, text, stderr) = guard(
        &ws,
        "sarif",
        &["--anchor", "/etc/hostname"],
        "banner_before_initialize",
    );
    assert_eq!(exit, 2);
    assert!(text.is_empty(), "no report after a usage error");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("--anchor") && stderr.contains("not a file inside the repository"),
        "{stderr}"
    );
}

#[test]
fn without_any_repository_file_results_keep_only_their_protocol_location() {
    // The server lives outside the workspace, which holds no manifest.
    let ws = tempfile::tempdir().expect("tempdir");
    let out_file = ws.path().join("out.sarif");
    let server = support::repo().join("tests/fixtures/servers/banner_before_initialize.py");
    let out = support::mcpcheck()
        .current_dir(ws.path())
        .env("GITHUB_WORKSPACE", ws.path())
        .args(["guard", "--format", "sarif", "--output"])
        .arg(&out_file)
        .arg("--")
        .arg("python3")
        .arg(&server)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let doc = validate_sarif(&std::fs::read_to_string(&out_file).expect("sarif"));
    let loc = &results(&doc)[0]["locations"][0];
    assert!(loc.get("physicalLocation").is_none(), "{loc:#}");
    assert_eq!(loc["logicalLocations"][0]["fullyQualifiedName"], "stdout:1");
    let note = &doc["runs"][0]["invocations"][0]["toolExecutionNotifications"][0];
    assert!(note["message"]["text"]
        .as_str()
        .expect("text")
        .contains("--anchor"));
}

/// Paths and timings vary between runs; everything else is pinned.
fn insta_settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    // The ref rule links name: the release tag, or the commit this build was made from.
    s.add_filter(
        &regex::escape(concat!(
            "/blob/",
            env!("MCPCHECK_SOURCE_REF"),
            "/docs/rules/"
        )),
        "/blob/[ref]/docs/rules/",
    );
    s.add_filter(r"\b\d+ ms\b", "[ms]");
    s.add_filter(r"mcpcheck \d+\.\d+\.\d+", "mcpcheck [version]");
    s
}

/// The SARIF run with the (catalog-generated, separately tested) rules summarised.
fn sarif_snapshot(text: &str) -> Value {
    let mut doc = validate_sarif(text);
    let run = &mut doc["runs"][0];
    let rules = run["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules")
        .clone();
    let used: Vec<Value> = rules
        .iter()
        .filter(|r| {
            run["results"]
                .as_array()
                .expect("results")
                .iter()
                .any(|res| res["ruleId"] == r["id"])
        })
        .cloned()
        .collect();
    run["tool"]["driver"]["rules"] = serde_json::json!({"used": used});
    run["tool"]["driver"]["version"] = "[version]".into();
    run["tool"]["driver"]["semanticVersion"] = "[version]".into();
    doc
}

#[test]
fn snapshots_of_a_failing_server() {
    let ws = Workspace::new(
        "banner_before_initialize",
        Some(("pyproject.toml", PYPROJECT)),
    );
    let (_, sarif, _) = guard(
        &ws,
        "sarif",
        &["--category", "mcpcheck"],
        "banner_before_initialize",
    );
    let (exit, markdown, _) = guard(&ws, "markdown", &[], "banner_before_initialize");
    assert_eq!(exit, 1);
    assert!(
        active_forms(&markdown).is_empty(),
        "{:?}",
        active_forms(&markdown)
    );
    insta_settings().bind(|| {
        insta::assert_json_snapshot!("failing_server_sarif", sarif_snapshot(&sarif));
        insta::assert_snapshot!("failing_server_markdown", markdown);
    });
}

#[test]
fn snapshots_of_a_passing_server() {
    let ws = Workspace::new("clean", Some(("pyproject.toml", PYPROJECT)));
    let (_, sarif, _) = guard(&ws, "sarif", &[], "clean");
    let (exit, markdown, _) = guard(&ws, "markdown", &[], "clean");
    assert_eq!(exit, 0);
    assert!(
        active_forms(&markdown).is_empty(),
        "{:?}",
        active_forms(&markdown)
    );
    insta_settings().bind(|| {
        insta::assert_json_snapshot!("passing_server_sarif", sarif_snapshot(&sarif));
        insta::assert_snapshot!("passing_server_markdown", markdown);
    });
}

#[test]
fn hostile_server_text_stays_inert_in_markdown_and_sarif() {
    let ws = Workspace::new("hostile_output", Some(("pyproject.toml", PYPROJECT)));
    let (exit, markdown, stderr) = guard(&ws, "markdown", &[], "hostile_output");
    assert_eq!(exit, 1, "{stderr}");
    // The hostile text did reach the report (escaped), so the check below means something.
    assert!(
        markdown.contains("octocat") && markdown.contains("evil"),
        "{markdown}"
    );
    assert_eq!(active_forms(&markdown), Vec::<String>::new());
    for row in markdown
        .lines()
        .filter(|l| l.starts_with("| ❌") || l.starts_with("| ⚠️"))
    {
        assert_eq!(
            support::markdown::cell_separators(row),
            5,
            "a cell broke out of the table: {row}"
        );
    }
    let (_, sarif, _) = guard(&ws, "sarif", &[], "hostile_output");
    let doc = validate_sarif(&sarif);
    let found: Vec<(&str, &str)> = results(&doc)
        .iter()
        .map(|r| {
            (
                r["ruleId"].as_str().expect("id"),
                r["level"].as_str().expect("level"),
            )
        })
        .collect();
    // The surface rules see the HTML comment hidden in the tool's name and description.
    assert_eq!(
        found,
        [
            ("invisible-characters", "error"),
            ("invisible-characters", "error"),
            ("stdout-non-json", "error"),
            ("tool-name-invalid", "warning")
        ]
    );
    assert_uris_are_workspace_files(&doc, ws.path());
}

/// The summary as GitHub shows it: rendered by a CommonMark renderer (with tables).
fn rendered(markdown: &str) -> String {
    let parser = pulldown_cmark::Parser::new_ext(markdown, pulldown_cmark::Options::ENABLE_TABLES);
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, parser);
    html
}

#[test]
fn rendered_our_code_spans_are_code_and_server_text_stays_text() {
    // Our own code span (`print`) renders as code, not as literal backticks.
    let out = support::mcpcheck()
        .args([
            "source",
            "--format",
            "markdown",
            "tests/fixtures/source/python/print_writes_stdout.py",
        ])
        .output()
        .expect("runs");
    let html = rendered(&String::from_utf8_lossy(&out.stdout));
    assert!(
        html.contains("<code>print</code> writes to stdout"),
        "{html}"
    );
    assert!(!html.contains("`print`"), "{html}");
    assert!(
        html.contains("<strong>fix:</strong> Print to stderr: print(..., file=sys.stderr)."),
        "{html}"
    );
    // A hostile server's text, rendered: no element of its own, no link of its own.
    let ws = Workspace::new("hostile_output", Some(("pyproject.toml", PYPROJECT)));
    let (_, markdown, _) = guard(&ws, "markdown", &[], "hostile_output");
    let html = rendered(&markdown);
    assert!(
        html.contains("onerror=alert(1)"),
        "the hostile text is shown: {html}"
    );
    for active in ["<img", "<script", "href=\"https://evil", "src=\"http"] {
        assert!(!html.contains(active), "{active} in {html}");
    }
    let links: Vec<&str> = html
        .match_indices("href=\"")
        .map(|(i, _)| &html[i..])
        .collect();
    assert!(
        links.iter().all(|l| l.starts_with(concat!(
            "href=\"https://github.com/mcpcheck/mcpcheck/blob/",
            env!("MCPCHECK_SOURCE_REF"),
            "/"
        ))),
        "{links:?}"
    );
}
