//! Source scan, JavaScript and TypeScript: every stdout write found at its exact place,
//! and no look-alike (strings, comments, stderr methods, shadowed names) reported.

use crate::support;
use support::source::*;

#[test]
fn console_methods_that_node_sends_to_stdout_are_found_however_they_are_reached() {
    let scan = expect_findings(
        "javascript",
        "console_writes_stdout.js",
        &[
            ("static-stdout-write", "warning", 2, 1),
            ("static-stdout-write", "warning", 3, 1),
            ("static-stdout-write", "warning", 4, 1),
            ("static-stdout-write", "warning", 8, 1),
            ("static-stdout-write", "warning", 9, 1),
            ("static-stdout-write", "warning", 10, 1),
            ("static-stdout-write", "warning", 11, 1),
            ("static-stdout-write", "warning", 12, 1),
            ("static-stdout-write", "warning", 13, 1),
            ("static-stdout-write", "warning", 14, 1),
            ("static-stdout-write", "warning", 15, 1),
            ("static-stdout-write", "warning", 17, 1),
            ("static-stdout-write", "warning", 18, 1),
            ("static-stdout-write", "warning", 20, 1),
            ("static-stdout-write", "warning", 22, 1),
            ("static-stdout-write", "warning", 23, 1),
            ("static-stdout-write", "warning", 25, 1),
            ("static-stdout-write", "warning", 29, 1),
        ],
    );
    // A call over several lines is one finding spanning them all.
    expect_end(&scan, 4, (7, 2));
    expect_end(&scan, 2, (2, 30));
    // `console.log(` → `console.error(` is carried as a machine-applicable edit.
    expect_replacement(&scan, 2, "error", (2, 9), (2, 12));
    expect_replacement(&scan, 3, "error", (3, 9), (3, 13));
    expect_replacement(&scan, 15, "error", (15, 10), (15, 13));
    // console.table has no stderr twin with the same output: no edit, only advice.
    no_replacement(&scan, 9);
    no_replacement(&scan, 17);
    let first = scan.at(2);
    assert_eq!(first["language"], "javascript");
    assert_eq!(first["class"], "staticSource");
    assert_eq!(first["evidence"], "console.log(\"server started\")");
    assert!(first["message"]
        .as_str()
        .expect("message")
        .contains("stdout"));
    assert!(first["fix"]
        .as_str()
        .expect("fix")
        .contains("console.error"));
}

#[test]
fn console_lookalikes_are_not_reported() {
    expect_findings("javascript", "console_lookalikes.js", &[]);
}

#[test]
fn process_stdout_writes_are_found_through_aliases_imports_and_pipes() {
    let scan = expect_findings(
        "javascript",
        "process_stdout_writes.js",
        &[
            ("static-stdout-write", "warning", 4, 1),
            ("static-stdout-write", "warning", 6, 1),
            ("static-stdout-write", "warning", 8, 1),
            ("static-stdout-write", "warning", 9, 1),
            ("static-stdout-write", "warning", 10, 1),
            ("static-stdout-write", "warning", 11, 1),
            ("static-stdout-write", "warning", 12, 1),
            ("static-stdout-write", "warning", 13, 1),
        ],
    );
    // Indented JSON spans lines: it is not a protocol message, it is a finding.
    assert!(scan.at(12)["evidence"]
        .as_str()
        .expect("evidence")
        .contains("null, 2"));
}

#[test]
fn process_stdout_lookalikes_and_json_rpc_lines_are_not_reported() {
    expect_findings("javascript", "process_stdout_lookalikes.js", &[]);
}

#[test]
fn loggers_and_consoles_on_stdout_are_found() {
    let scan = expect_findings(
        "javascript",
        "loggers_to_stdout.js",
        &[
            ("static-stdout-logger", "warning", 7, 15),
            ("static-stdout-logger", "warning", 8, 17),
            ("static-stdout-logger", "warning", 9, 18),
            ("static-stdout-logger", "warning", 10, 16),
            ("static-stdout-logger", "warning", 11, 16),
            ("static-stdout-logger", "warning", 15, 16),
            ("static-stdout-logger", "warning", 17, 17),
            ("static-stdout-logger", "warning", 19, 17),
            ("static-stdout-logger", "warning", 20, 15),
            ("static-stdout-logger", "warning", 22, 13),
            ("static-stdout-logger", "warning", 23, 20),
        ],
    );
    // The winston message names the levels that still reach stdout.
    let partial = scan.at(17)["message"].as_str().expect("message");
    assert!(
        partial.contains("info, http, verbose, debug, silly"),
        "{partial}"
    );
    assert!(!partial.contains("warn,"), "{partial}");
    let thresholded = scan.at(15)["message"].as_str().expect("message");
    assert!(thresholded.contains("(error, warn, info)"), "{thresholded}");
}

#[test]
fn loggers_on_stderr_or_configured_out_of_sight_are_not_reported() {
    expect_findings("javascript", "loggers_to_stderr.js", &[]);
}

#[test]
fn typescript_casts_assertions_and_ambient_declarations_do_not_hide_the_console() {
    let scan = expect_findings(
        "typescript",
        "console_writes_stdout.ts",
        &[
            ("static-stdout-write", "warning", 6, 3),
            ("static-stdout-write", "warning", 7, 3),
            ("static-stdout-write", "warning", 8, 3),
            ("static-stdout-write", "warning", 9, 3),
        ],
    );
    assert_eq!(scan.at(6)["language"], "typescript");
    expect_replacement(&scan, 6, "error", (6, 11), (6, 14));
}

#[test]
fn typescript_parameters_and_fields_named_console_are_not_reported() {
    expect_findings("typescript", "console_lookalikes.ts", &[]);
}

#[test]
fn tsx_handlers_are_code_and_jsx_text_is_not() {
    expect_findings(
        "typescript",
        "component_writes_stdout.tsx",
        &[("static-stdout-write", "warning", 4, 28)],
    );
}

/// A large file is parsed in part (blocks that mention nothing relevant are left out): the
/// findings must be exactly those of a whole parse, aliases used far away included.
#[test]
fn large_files_parsed_in_part_give_the_same_findings() {
    let filler = |name: &str| {
        let body: String = (0..40)
            .map(|i| format!("  total = total + {i} * rate;\n"))
            .collect();
        format!("function {name}(rate) {{\n  let total = 0;\n{body}  return total;\n}}\n")
    };
    let mut lines: Vec<String> = vec!["const print = console.log;".into()];
    let mut expected = Vec::new();
    for i in 0..20 {
        lines.extend(filler(&format!("fill{i}")).lines().map(String::from));
    }
    lines.push("function report(rate) {".into());
    lines.extend(filler("inner").lines().map(String::from));
    lines.push("  print(\"an alias used far from its binding\");".into());
    expected.push(("static-stdout-write", "warning", lines.len() as u64, 3));
    lines.push("}".into());
    lines.push("function banner() {".into());
    lines.push("  console.log(\"direct\");".into());
    expected.push(("static-stdout-write", "warning", lines.len() as u64, 3));
    lines.push("  // mcpcheck: ignore".into());
    lines.push("  console.log(\"suppressed\");".into());
    lines.push("}".into());
    lines.push("function reply(message) {".into());
    lines.push("  const line = JSON.stringify(message);".into());
    lines.extend(filler("between").lines().map(String::from));
    lines.push("  process.stdout.write(line + \"\\n\");".into());
    lines.push("}".into());
    lines.push("function shadowed(console) {".into());
    lines.extend(filler("deep").lines().map(String::from));
    lines.push("  console.log(\"a parameter called console\");".into());
    lines.push("}".into());
    for i in 20..40 {
        lines.extend(filler(&format!("fill{i}")).lines().map(String::from));
    }
    let source = lines.join("\n") + "\n";
    assert!(
        source.len() > 32 * 1024,
        "large enough to be parsed in part"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("bundle.js"), &source).expect("write");

    let scan = scan_in(dir.path(), &["bundle.js"]);
    let found: Vec<(String, String, u64, u64)> = scan
        .found()
        .into_iter()
        .map(|f| (f.0, f.1, f.3, f.4))
        .collect();
    let expected: Vec<(String, String, u64, u64)> = expected
        .into_iter()
        .map(|(c, s, l, col)| (c.to_string(), s.to_string(), l, col))
        .collect();
    assert_eq!(found, expected);
    assert_eq!(scan.stat("filesParsedInPart"), 1);
    assert_eq!(scan.stat("suppressed"), 1);
    assert!(
        scan.stat("bytesParsed") < source.len() as u64 / 2,
        "most of the file was left out"
    );
}

#[test]
fn writers_reassigned_to_stderr_are_not_reported_until_restored() {
    expect_findings(
        "javascript",
        "stdout_redirected.js",
        &[
            ("static-stdout-write", "warning", 2, 1),
            ("static-stdout-write", "warning", 5, 1),
            ("static-stdout-write", "warning", 11, 1),
            ("static-stdout-write", "warning", 13, 1),
        ],
    );
}

#[test]
fn writers_kept_on_this_or_in_class_fields_are_followed_within_the_class() {
    expect_findings(
        "javascript",
        "instance_member_writes.js",
        &[
            ("static-stdout-write", "warning", 11, 5),
            ("static-stdout-write", "warning", 12, 5),
            ("static-stdout-write", "warning", 17, 5),
        ],
    );
}

#[test]
fn fs_writes_to_descriptor_1_are_found_in_a_file_that_names_nothing_else() {
    // Regression: the text prefilter once needed `writeSync`, `console` or `stdout`.
    expect_findings(
        "javascript",
        "fs_write_alone.js",
        &[
            ("static-stdout-write", "warning", 4, 1),
            ("static-stdout-write", "warning", 5, 1),
        ],
    );
}

/// A launcher that loads each transport's module only when chosen, as
/// @modelcontextprotocol/server-everything's index.js (issue 28 item 12): the HTTP module's
/// writes and the usage text printed before a failing exit are notes; the stdio path's
/// writes, including those of an HTTP module the stdio module loads, stay warnings.
#[test]
fn writes_off_the_stdio_path_are_notes_with_a_detail_code() {
    let dir = source_fixtures().join("node-transports");
    let scan = expect_project(
        &dir,
        &[],
        &[
            ("static-stdout-write", "note", "index.js", 13, 5),
            ("static-stdout-write", "note", "index.js", 14, 5),
            // `--version` prints and exits before any server starts (issue 45).
            ("static-stdout-write", "note", "index.js", 18, 3),
            ("static-stdout-write", "warning", "server.js", 4, 3),
            (
                "static-stdout-write",
                "warning",
                "transports/health.js",
                6,
                3,
            ),
            ("static-stdout-write", "note", "transports/http.js", 7, 3),
            ("static-stdout-write", "note", "transports/http.js", 12, 24),
            // The stdio module loads it in a branch: under stdio when taken.
            (
                "static-stdout-write",
                "warning",
                "transports/metrics.js",
                4,
                24,
            ),
            (
                "static-stdout-write",
                "warning",
                "transports/stdio.js",
                5,
                1,
            ),
            (
                "static-stdout-write",
                "warning",
                "transports/stdio.js",
                11,
                3,
            ),
        ],
    );
    assert_eq!(scan.exit, 0);
    let usage = scan.in_file("index.js", 13);
    assert_eq!(usage["detailCode"], "exits-before-session");
    let message = usage["message"].as_str().expect("message");
    assert!(
        message.contains("Reported as a note (exits-before-session)"),
        "{message}"
    );
    assert!(
        message.contains("--all-transports reports it as a warning"),
        "{message}"
    );
    let http = scan.in_file("transports/http.js", 7);
    assert_eq!(http["detailCode"], "http-only-module");
    let message = http["message"].as_str().expect("message");
    assert!(
        message.contains(
            "index.js (package.json bin transports-fixture) does not load it on the stdio path"
        ),
        "{message}"
    );
    // The warnings carry no detail code.
    assert!(scan
        .in_file("transports/health.js", 6)
        .get("detailCode")
        .is_none());
    assert_eq!(scan.json["summary"]["issueCounts"]["note"], 5);

    // --all-transports: every write a warning, as before.
    let all = scan_in(&dir, &["--all-transports", "."]);
    assert!(all.issues().iter().all(|i| i["severity"] == "warning"));
    assert_eq!(all.issues().len(), 10);
}

#[test]
fn an_http_module_the_entry_loads_unconditionally_stays_a_warning() {
    let dir = copy_project("node-transports");
    let index = dir.path().join("index.js");
    let text = std::fs::read_to_string(&index).expect("read");
    std::fs::write(&index, format!("import \"./transports/http.js\";\n{text}")).expect("write");
    let scan = scan_in(dir.path(), &["."]);
    for line in [7, 12] {
        let f = scan.in_file("transports/http.js", line);
        assert_eq!(f["severity"], "warning", "{f:#}");
    }
}

#[test]
fn without_an_entry_every_http_only_module_is_off_the_stdio_path() {
    let dir = copy_project("node-transports");
    std::fs::remove_file(dir.path().join("package.json")).expect("remove");
    let scan = scan_in(dir.path(), &["."]);
    // health.js serves HTTP only; with no entry, nothing says the stdio module loads it.
    let health = scan.in_file("transports/health.js", 6);
    assert_eq!(health["severity"], "note");
    assert_eq!(health["detailCode"], "http-only-module");
    assert!(health["message"]
        .as_str()
        .expect("message")
        .contains("no stdio entry is known"));
    assert_eq!(
        scan.in_file("transports/stdio.js", 5)["severity"],
        "warning"
    );
}

#[test]
fn notes_are_left_alone_by_fix_and_carried_as_notes_in_sarif() {
    let dir = copy_project("node-transports");
    let sarif = support::mcpcheck()
        .current_dir(dir.path())
        .args(["source", "--format", "sarif", "."])
        .output()
        .expect("run");
    let doc = support::sarif::validate_sarif(&String::from_utf8_lossy(&sarif.stdout));
    let results = doc["runs"][0]["results"].as_array().expect("results");
    let at = |uri: &str, line: u64| {
        results
            .iter()
            .find(|r| {
                let p = &r["locations"][0]["physicalLocation"];
                p["artifactLocation"]["uri"].as_str() == Some(uri)
                    && p["region"]["startLine"] == line
            })
            .unwrap_or_else(|| panic!("no result at {uri}:{line}"))
    };
    assert_eq!(at("transports/http.js", 7)["level"], "note");
    assert_eq!(at("transports/stdio.js", 5)["level"], "warning");
    let before = std::fs::read(dir.path().join("transports/http.js")).expect("read");
    support::mcpcheck()
        .current_dir(dir.path())
        .args(["source", "--fix", "."])
        .output()
        .expect("run");
    assert_eq!(
        std::fs::read(dir.path().join("transports/http.js")).expect("read"),
        before
    );
    let stdio = std::fs::read_to_string(dir.path().join("transports/stdio.js")).expect("read");
    assert!(
        stdio.contains("console.error(\"starting the stdio server\")"),
        "{stdio}"
    );
}

#[test]
fn several_roots_are_classified_each_from_its_own_manifest() {
    let scan = scan_in(
        &source_fixtures(),
        &["node-transports", "python-transports"],
    );
    let notes: Vec<(String, u64)> = scan
        .found()
        .into_iter()
        .filter(|f| f.1 == "note")
        .map(|f| (f.2, f.3))
        .collect();
    assert_eq!(
        notes,
        [
            ("node-transports/index.js", 13),
            ("node-transports/index.js", 14),
            ("node-transports/index.js", 18),
            ("node-transports/transports/http.js", 7),
            ("node-transports/transports/http.js", 12),
            ("python-transports/fixture_server/http_app.py", 8),
            ("python-transports/fixture_server/main.py", 6),
            ("python-transports/fixture_server/sse_app.py", 6),
        ]
        .map(|(f, l)| (f.to_string(), l))
    );
}
