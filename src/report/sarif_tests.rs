//! SARIF renderer tests on synthetic reports: limits, fixes, taxonomy and fingerprints.
//! Every document built here is validated against the vendored SARIF 2.1.0 schema.

use super::document::{Report, ReportContext};
use super::repo::RepoContext;
use super::sarif::{self, render, render_limited, render_with_rules, MAX_RESULTS};
use super::sarif_pretty::set_in;
use super::sarif_rules::catalog_metas;
use crate::catalog::{Code, CodeMeta, Precision};
use crate::finding::{Finding, IssueClass, Location, Replacement, Risk, Severity};
use serde_json::Value;
use std::path::Path;
use std::sync::OnceLock;

fn validate(text: &str) -> Value {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    let validator = VALIDATOR.get_or_init(|| {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/sarif/sarif-schema-2.1.0.json");
        let schema: Value =
            serde_json::from_str(&std::fs::read_to_string(path).expect("schema")).expect("json");
        jsonschema::options()
            .should_validate_formats(true)
            .build(&schema)
            .expect("schema compiles")
    });
    let doc: Value = serde_json::from_str(text).expect("SARIF is JSON");
    let errors: Vec<String> = validator
        .iter_errors(&doc)
        .take(5)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    doc
}

fn report(root: &Path, findings: Vec<Finding>, anchor: Option<&str>) -> Report {
    let repo = RepoContext {
        root: root.canonicalize().expect("root"),
        link: None,
    };
    let mut r = Report::without_engine(ReportContext {
        repo,
        anchor: anchor.map(String::from),
        category: Some("mcpcheck".into()),
        invocation: vec!["mcpcheck".into(), "source".into(), ".".into()],
        exit_code: 1,
    });
    r.engine = "test";
    r.findings = findings;
    r
}

#[test]
fn results_beyond_the_cap_are_summarised_not_dropped_silently() {
    let dir = tempfile::tempdir().expect("tempdir");
    let findings: Vec<Finding> = (0..MAX_RESULTS as u64 + 10)
        .map(|i| Finding::new(Code::StdoutNonJson, "line").at(Location::stdout_line(i + 1)))
        .collect();
    let doc = validate(&render(&report(dir.path(), findings, None)));
    let run = &doc["runs"][0];
    assert_eq!(run["results"].as_array().map(Vec::len), Some(MAX_RESULTS));
    assert_eq!(run["properties"]["omittedResults"], 10);
    let note = run["invocations"][0]["toolExecutionNotifications"]
        .as_array()
        .expect("notifications")
        .iter()
        .find(|n| {
            n["message"]["text"]
                .as_str()
                .is_some_and(|t| t.starts_with("10 of 25010"))
        });
    assert!(note.is_some(), "{:#}", run["invocations"]);
}

#[test]
fn results_are_cut_until_the_gzipped_document_fits() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Incompressible messages: a counter-seeded xorshift, printed as hex.
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let findings: Vec<Finding> = (0..400u64)
        .map(|i| {
            let noise: String = (0..60)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    format!("{seed:016x}")
                })
                .collect();
            Finding::new(Code::StdoutNonJson, noise).at(Location::stdout_line(i + 1))
        })
        .collect();
    let text = render_limited(
        &report(dir.path(), findings, None),
        &catalog_metas(),
        200_000,
    )
    .into_string();
    let doc = validate(&text);
    let kept = doc["runs"][0]["results"].as_array().map_or(0, Vec::len);
    assert!(kept > 0 && kept < 400, "kept {kept}");
    assert_eq!(doc["runs"][0]["properties"]["omittedResults"], 400 - kept);
}

#[test]
fn file_findings_keep_their_region_snippet_and_fix() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("src")).expect("mkdir");
    std::fs::write(dir.path().join("src/server.py"), "print('hi')\n").expect("write");
    let file = dir.path().join("src/server.py").display().to_string();
    let f = Finding::new(Code::StdoutNonJson, "print() writes to stdout.")
        .at(Location {
            file: Some(file),
            line: Some(1),
            column: Some(1),
            end_line: Some(1),
            end_column: Some(12),
            ..Location::default()
        })
        .evidence(&format!("print('{}')", "x".repeat(2_000)))
        .replacement(Replacement {
            description: "Write to stderr".into(),
            start_line: 1,
            start_column: 1,
            end_line: 1,
            end_column: 12,
            text: "print('hi', file=sys.stderr)".into(),
        });
    let doc = validate(&render(&report(dir.path(), vec![f], None)));
    let result = &doc["runs"][0]["results"][0];
    let physical = &result["locations"][0]["physicalLocation"];
    assert_eq!(physical["artifactLocation"]["uri"], "src/server.py");
    assert_eq!(physical["artifactLocation"]["uriBaseId"], "%SRCROOT%");
    assert_eq!(physical["region"]["startLine"], 1);
    assert_eq!(physical["region"]["startColumn"], 1);
    assert_eq!(physical["region"]["endColumn"], 12);
    let snippet = physical["region"]["snippet"]["text"]
        .as_str()
        .expect("snippet");
    assert!(snippet.chars().count() <= 501, "snippet not truncated");
    let change = &result["fixes"][0]["artifactChanges"][0];
    assert_eq!(change["artifactLocation"]["uri"], "src/server.py");
    assert_eq!(change["replacements"][0]["deletedRegion"]["endColumn"], 12);
    assert_eq!(
        change["replacements"][0]["insertedContent"]["text"],
        "print('hi', file=sys.stderr)"
    );
}

#[test]
fn files_outside_the_repository_keep_their_region_with_an_absolute_file_uri() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("package.json"), "{}").expect("write");
    let elsewhere = tempfile::tempdir().expect("tempdir");
    let file = elsewhere.path().join("server.js");
    std::fs::write(&file, "\n\nconsole.log(1)\n").expect("write");
    let f = Finding::new(Code::StaticStdoutWrite, "x")
        .at(Location {
            file: Some(file.display().to_string()),
            line: Some(3),
            column: Some(1),
            ..Location::default()
        })
        .replacement(Replacement {
            description: "Use console.error".into(),
            start_line: 3,
            start_column: 9,
            end_line: 3,
            end_column: 12,
            text: "error".into(),
        });
    let doc = validate(&render(&report(dir.path(), vec![f], Some("package.json"))));
    let result = &doc["runs"][0]["results"][0];
    let loc = &result["locations"][0];
    let uri = super::repo::file_uri(&file).expect("uri");
    assert!(
        uri.starts_with("file:///") && uri.ends_with("/server.js"),
        "{uri}"
    );
    assert_eq!(
        loc["physicalLocation"]["artifactLocation"]["uri"],
        uri.as_str()
    );
    assert!(loc["physicalLocation"]["artifactLocation"]
        .get("uriBaseId")
        .is_none());
    assert_eq!(loc["physicalLocation"]["region"]["startLine"], 3);
    assert!(loc.get("logicalLocations").is_none(), "{loc:#}");
    assert_eq!(
        result["fixes"][0]["artifactChanges"][0]["artifactLocation"]["uri"],
        uri.as_str()
    );
}

#[test]
fn files_that_cannot_be_found_are_named_never_linked() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("package.json"), "{}").expect("write");
    let f = Finding::new(Code::StdoutNonJson, "x").at(Location {
        file: Some("/nonexistent/mcpcheck/config.json".into()),
        line: Some(3),
        ..Location::default()
    });
    let doc = validate(&render(&report(dir.path(), vec![f], Some("package.json"))));
    let loc = &doc["runs"][0]["results"][0]["locations"][0];
    assert_eq!(
        loc["physicalLocation"]["artifactLocation"]["uri"],
        "package.json"
    );
    assert_eq!(loc["physicalLocation"]["region"]["startLine"], 1);
    assert_eq!(
        loc["logicalLocations"][0]["fullyQualifiedName"],
        "/nonexistent/mcpcheck/config.json"
    );
    assert_eq!(loc["logicalLocations"][0]["kind"], "resource");
}

static POISONED_TOOL: CodeMeta = CodeMeta {
    code: "tool-description-injection",
    title: "A tool description addresses the model",
    class: IssueClass::Security,
    declared_severity: Severity::Error,
    help: "Remove instructions aimed at the model from the description.",
    precision: Precision::Medium,
    risk: Some(Risk::Critical),
    owasp: Some("MCP03"),
    rationale: None,
};

#[test]
fn security_rules_bring_the_owasp_taxonomy_into_a_valid_document() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut metas = catalog_metas();
    metas.push((&POISONED_TOOL, "https://example.invalid/rule.md".into()));
    let f = Finding::new(Code::ToolDescriptionMissing, "x").at(Location::logical("tools/echo"));
    let doc = validate(&render_with_rules(
        &report(dir.path(), vec![f], None),
        &metas,
    ));
    let run = &doc["runs"][0];
    assert_eq!(run["taxonomies"][0]["name"], "OWASP MCP Top 10");
    assert_eq!(run["taxonomies"][0]["taxa"][0]["id"], "MCP01");
    assert_eq!(
        run["tool"]["driver"]["supportedTaxonomies"][0]["name"],
        "OWASP MCP Top 10"
    );
    let rule = run["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules")
        .last()
        .expect("rule");
    assert_eq!(rule["properties"]["security-severity"], "9.5");
    assert_eq!(rule["relationships"][0]["target"]["id"], "MCP03");
    // The catalog of this build has security rules: the plain document carries the taxonomy,
    // and every security rule points at its category.
    let plain = validate(&render(&report(dir.path(), Vec::new(), None)));
    assert_eq!(
        plain["runs"][0]["taxonomies"][0]["name"],
        "OWASP MCP Top 10"
    );
    let rules = plain["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules");
    let hardcoded = rules
        .iter()
        .find(|r| r["id"] == "hardcoded-secret")
        .expect("hardcoded-secret rule");
    assert_eq!(hardcoded["relationships"][0]["target"]["id"], "MCP01");
}

#[test]
fn partial_fingerprints_ignore_line_numbers_but_not_what_was_found() {
    let base = Finding::new(Code::StdoutNonJson, "a")
        .at(Location::stdout_line(3))
        .evidence("Starting server");
    let mut moved = base.clone();
    moved.location.stdout_line = Some(40);
    moved.location.line = Some(12);
    moved.message = "b".into();
    assert_eq!(base.fingerprint(), moved.fingerprint());
    let other = base.clone().evidence("Another banner");
    assert_ne!(base.fingerprint(), other.fingerprint());
    let dir = tempfile::tempdir().expect("tempdir");
    let doc = validate(&render(&report(dir.path(), vec![base.clone()], None)));
    assert_eq!(
        doc["runs"][0]["results"][0]["partialFingerprints"][sarif::FINGERPRINT_KEY],
        base.fingerprint()
    );
}

#[test]
fn without_an_anchor_a_file_outside_the_repository_gets_its_file_uri_outside_the_action() {
    let dir = tempfile::tempdir().expect("tempdir");
    let outside = tempfile::tempdir().expect("outside");
    let config = outside.path().join("a b.json");
    std::fs::write(&config, "{}\n").expect("write");
    let f = Finding::new(Code::StdoutNonJson, "x").at(Location {
        file: Some(config.display().to_string()),
        line: Some(3),
        ..Location::default()
    });
    let mut r = report(dir.path(), vec![f], None);
    let doc = validate(&render(&r));
    let physical = &doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"];
    let canonical = config.canonicalize().expect("canonical");
    assert_eq!(
        physical["artifactLocation"]["uri"],
        format!(
            "file://{}",
            crate::report::repo::uri_path(canonical.to_str().expect("utf-8"))
        )
    );
    assert!(physical["artifactLocation"]["uriBaseId"].is_null());
    assert_eq!(physical["region"]["startLine"], 3);
    // A SARIF the Action uploads never carries one (it anchors the result instead).
    r.for_upload = true;
    let doc = validate(&render(&r));
    let location = &doc["runs"][0]["results"][0]["locations"][0];
    assert!(location["physicalLocation"].is_null(), "{location}");
}

/// Findings of every shape a result takes: a file in the repository with a fix, a file
/// outside it, a file that does not exist, no file (a stdout line, a request), risk and
/// evidence with characters that are escaped.
fn every_shape(root: &Path, outside: &Path, n: u64) -> Vec<Finding> {
    (0..n)
        .map(|i| {
            let line = i % 90 + 1;
            let in_file = |file: String| Location {
                file: Some(file),
                line: Some(line),
                column: Some(3),
                end_line: Some(line),
                end_column: Some(14),
                ..Location::default()
            };
            match i % 5 {
                0 => Finding::new(Code::StaticStdoutWrite, format!("write {i}"))
                    .at(in_file(root.join("src/a.js").display().to_string()))
                    .replacement(Replacement {
                        description: "Use console.error".into(),
                        start_line: line,
                        start_column: 11,
                        end_line: line,
                        end_column: 14,
                        text: "error".into(),
                    }),
                1 => Finding::new(Code::StaticStdoutWrite, "outside \u{202e}")
                    .at(in_file(outside.display().to_string()))
                    .evidence("print(\"tab\there\")\n"),
                2 => Finding::new(Code::StdoutNonJson, "stray \"line\"")
                    .at(Location::stdout_line(i))
                    .evidence("\u{1b}[31mred"),
                3 => Finding::new(Code::StdoutNonJson, "gone")
                    .at(in_file("/nonexistent/mcpcheck/x.py".into())),
                _ => Finding::new(Code::StdoutNonJson, "request")
                    .at(Location::request("tools/list"))
                    .risk(Risk::High),
            }
        })
        .collect()
}

#[test]
fn results_set_into_the_document_print_as_the_whole_document_does() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("src")).expect("src");
    std::fs::write(dir.path().join("src/a.js"), "console.log(1)\n").expect("file");
    let elsewhere = tempfile::tempdir().expect("tempdir");
    let outside = elsewhere.path().join("b.py");
    std::fs::write(&outside, "print(1)\n").expect("file");
    let metas = catalog_metas();
    // The results are where they are set in (else the whole document is printed).
    let empty = report(dir.path(), Vec::new(), None);
    let skeleton = serde_json::to_string_pretty(&sarif::document(&empty, &metas, 0)).expect("doc");
    let none: &[u8] = &[];
    assert!(set_in(|| skeleton.clone(), &sarif::RESULTS, none, || |_: &u8| 0).is_some());
    // One thread (below 256 results) and several; none, one, some and all results.
    for (n, anchor) in [(0, None), (7, Some("package.json")), (700, None)] {
        let root = dir.path().canonicalize().expect("root");
        let r = report(dir.path(), every_shape(&root, &outside, n), anchor);
        for limit in [0, 1, n as usize / 2, n as usize] {
            let whole =
                serde_json::to_string_pretty(&sarif::document(&r, &metas, limit)).expect("printed");
            let set_in = sarif::pretty_document(&r, &metas, limit).into_string();
            assert_eq!(set_in, whole, "{n} findings, {limit} results");
        }
    }
}
