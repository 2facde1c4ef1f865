//! `mcpcheck source` and `guard --scan` on the command line: reports, exit codes, usage errors.

use crate::support;
use std::path::Path;
use support::source::{scan_in, source_fixtures};

fn source_dir(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (path, content) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, content).expect("write");
    }
    dir
}

fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    support::mcpcheck()
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run mcpcheck")
}

fn one_line_usage_error(dir: &Path, args: &[&str]) -> String {
    let out = run(dir, args);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).expect("utf-8");
    assert_eq!(stderr.lines().count(), 1, "{stderr:?}");
    assert!(!stderr.contains("panicked"));
    stderr
}

#[test]
fn human_report_has_a_headline_counts_and_each_finding_with_its_fix() {
    let dir = source_dir(&[
        ("server.py", "import sys\n\nprint('ready')\n"),
        ("tests/test_server.py", "print('x')\n"),
        ("notes.txt", "print('x')\n"),
    ]);
    let out = run(dir.path(), &["source", "."]);
    assert_eq!(out.status.code(), Some(0), "warnings do not fail");
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(text.starts_with("WARN  mcpcheck source: ."), "{text}");
    assert!(text.contains("scanned: 1 file (python 1)"), "{text}");
    assert!(text.contains("1 directory (test 1)"), "{text}");
    assert!(text.contains("1 other file ·"), "{text}");
    assert!(
        text.contains("warning[static-stdout-write] server.py:3:1"),
        "{text}"
    );
    assert!(text.contains("  code: print('ready')"), "{text}");
    assert!(
        text.contains("  fix: Print to stderr: print(..., file=sys.stderr)."),
        "{text}"
    );
    assert!(
        // The closing counts, then how to fix what can be (issue 44 item 8).
        text.trim_end().ends_with(
            "0 errors, 1 warning, 0 notes\n[*] 1 fixable with `mcpcheck source --fix .` (`--diff` instead of `--fix` shows the rewrites first)"
        ),
        "{text}"
    );
}

#[test]
fn json_report_follows_the_contract() {
    let dir = source_dir(&[(
        "server.js",
        "console.log('ready');\nconsole.error('fine');\n",
    )]);
    let scan = scan_in(dir.path(), &["."]);
    let json = &scan.json;
    assert_eq!(json["schemaVersion"], 1);
    assert_eq!(json["ok"], true);
    assert_eq!(json["summary"]["status"], "warning");
    assert_eq!(json["summary"]["primaryIssueCode"], "static-stdout-write");
    assert_eq!(json["summary"]["issueCounts"]["warning"], 1);
    assert_eq!(json["roots"], serde_json::json!(["."]));
    assert_eq!(json["stats"]["filesScanned"], 1);
    assert_eq!(json["stats"]["languages"]["javascript"], 1);
    assert_eq!(json["stats"]["suppressed"], 0);
    let issue = &json["issues"][0];
    assert_eq!(issue["class"], "staticSource");
    assert_eq!(issue["language"], "javascript");
    assert_eq!(issue["location"]["file"], "server.js");
    assert_eq!(issue["location"]["line"], 1);
    assert_eq!(issue["location"]["column"], 1);
    assert_eq!(issue["location"]["endLine"], 1);
    assert_eq!(issue["location"]["endColumn"], 21);
    assert_eq!(issue["replacement"]["text"], "error");
}

#[test]
fn a_clean_tree_passes() {
    let dir = source_dir(&[("server.py", "import sys\nprint('x', file=sys.stderr)\n")]);
    let out = run(dir.path(), &["source", "."]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(text.starts_with("PASS  mcpcheck source: ."), "{text}");
    let scan = scan_in(dir.path(), &["."]);
    assert_eq!(scan.json["summary"]["status"], "pass");
    assert_eq!(scan.json["ok"], true);
}

#[test]
fn a_tree_without_source_files_says_so_on_stderr() {
    let dir = source_dir(&[("README.md", "# nothing to scan\n")]);
    let out = run(dir.path(), &["source", "."]);
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("mcpcheck: note: no source file found under .")
            && stderr.contains("check the path"),
        "{stderr}"
    );
    // A tree with one says nothing of the kind.
    let dir = source_dir(&[("server.py", "import sys\n")]);
    let out = run(dir.path(), &["source", "."]);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn fail_on_static_makes_findings_errors_and_the_exit_code_1() {
    let dir = source_dir(&[("server.py", "print('ready')\n")]);
    let scan = scan_in(dir.path(), &["--fail-on-static", "."]);
    assert_eq!(scan.exit, 1);
    assert_eq!(scan.json["ok"], false);
    assert_eq!(scan.json["summary"]["status"], "fail");
    assert_eq!(
        scan.found()
            .iter()
            .map(|f| (f.0.as_str(), f.1.as_str()))
            .collect::<Vec<_>>(),
        vec![("static-stdout-write", "error")]
    );
}

#[test]
fn untrusted_source_text_is_escaped_in_the_evidence() {
    let dir = source_dir(&[("server.js", "console.log(\"\u{1b}[31mred\u{202e}\");\n")]);
    let scan = scan_in(dir.path(), &["."]);
    let evidence = scan.json["issues"][0]["evidence"]
        .as_str()
        .expect("evidence");
    assert_eq!(evidence, "console.log(\"\\u{1b}[31mred\\u{202e}\")");
    let out = run(dir.path(), &["source", "."]);
    assert!(
        !out.stdout.contains(&0x1b),
        "no raw escape reaches the terminal"
    );
}

#[test]
fn bad_paths_and_globs_are_one_line_usage_errors() {
    let dir = source_dir(&[("server.py", "print('x')\n")]);
    let missing = one_line_usage_error(dir.path(), &["source", "no/such/dir"]);
    assert!(
        missing.contains("no/such/dir: no such file or directory"),
        "{missing}"
    );
    let glob = one_line_usage_error(dir.path(), &["source", "--include", "src/[", "."]);
    assert!(glob.contains("--include \"src/[\""), "{glob}");
    // `source` without a path scans `.` (issue 44 item 11; tests/cli.rs tests it).
    one_line_usage_error(dir.path(), &["source", "--max-file-bytes", "lots", "."]);
    let output = one_line_usage_error(dir.path(), &["source", "--output", "no/dir/r.json", "."]);
    assert!(output.contains("--output"), "{output}");
}

#[test]
fn output_file_receives_the_report() {
    let dir = source_dir(&[("server.py", "print('x')\n")]);
    let out = run(
        dir.path(),
        &["source", "--json", "--output", "report.json", "."],
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("report.json")).expect("report"))
            .expect("json");
    assert_eq!(report["issues"][0]["code"], "static-stdout-write");
}

#[test]
fn guard_scan_adds_static_findings_to_the_guard_report() {
    let server = support::fixture("clean");
    let src = source_fixtures().join("python").display().to_string();
    let result = support::guard::guard(&["--scan", &src], &[support::python_command(), &server]);
    assert_eq!(
        result.exit, 0,
        "static findings are warnings: {}",
        result.stderr
    );
    assert_eq!(result.status(), "warning");
    let statics: Vec<(String, String)> = result
        .issues()
        .into_iter()
        .filter(|(code, _)| code.starts_with("static-"))
        .collect();
    // Exactly the findings `mcpcheck source` reports for the same tree.
    let alone = scan_in(&source_fixtures(), &["python"]);
    assert!(alone.found().len() > 30);
    assert_eq!(statics.len(), alone.found().len(), "{statics:?}");
    assert!(statics.contains(&("static-stdout-logger".to_string(), "warning".to_string())));
    assert_eq!(result.json["checks"]["static"]["status"], "warning");
    assert_eq!(
        result.json["checks"]["static"]["issueCodes"],
        serde_json::json!(["static-stdout-logger", "static-stdout-write"])
    );
    let print = result.issue("static-stdout-write");
    // The guard report speaks the v1 contract's classes; mcpcheck's own class is kept beside.
    assert_eq!(print["class"], "stdioTransport");
    assert_eq!(print["mcpcheckClass"], "staticSource");
    assert!(print["location"]["file"]
        .as_str()
        .expect("file")
        .ends_with(".py"));
}

#[test]
fn guard_fail_on_static_fails_the_run() {
    let dir = source_dir(&[("server.py", "print('ready')\n")]);
    let src = dir.path().display().to_string();
    let result = support::guard::guard(
        &["--scan", &src, "--fail-on-static"],
        &[support::python_command(), &support::fixture("clean")],
    );
    assert_eq!(result.exit, 1);
    assert_eq!(result.status(), "fail");
    assert_eq!(
        support::pairs(&[("static-stdout-write", "error")]),
        result.issues()
    );
    assert_eq!(result.json["checks"]["static"]["status"], "fail");
    // The path as given to --scan, joined: one spelling in every output (issue 28 item 3).
    assert_eq!(
        result.issue("static-stdout-write")["location"]["file"],
        format!("{src}/server.py")
    );
}

#[test]
fn guard_scan_of_a_missing_path_fails_before_the_server_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let marker = dir.path().join("started");
    let out = support::mcpcheck()
        .args(["guard", "--scan", "no/such/src", "--", "touch"])
        .arg(&marker)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--scan no/such/src: no such file or directory"),
        "{stderr}"
    );
    assert!(!marker.exists(), "the server was not started");
    let no_scan = one_line_usage_error(dir.path(), &["guard", "--fail-on-static", "--", "true"]);
    assert!(no_scan.contains("--scan"), "{no_scan}");
}

#[test]
fn deeply_nested_hostile_input_is_scanned_without_crashing() {
    let n = 20_000;
    let python = format!("print(1)\n{}a{} = x\n", "(".repeat(n), ",)".repeat(n));
    let javascript = format!(
        "const {}b{} = console;\nconsole.log(1);\n",
        "{a:".repeat(n),
        "}".repeat(n)
    );
    let rust = format!(
        "use a::{}c{};\nfn main() {{ println!(\"x\"); }}\n",
        "{b::".repeat(n),
        "}".repeat(n)
    );
    let dir = source_dir(&[
        ("deep.py", &python),
        ("deep.js", &javascript),
        ("deep.rs", &rust),
    ]);
    // Named explicitly: in a directory walk these one-line files would count as minified.
    let files = [
        "--max-file-bytes",
        "1000000",
        "deep.js",
        "deep.py",
        "deep.rs",
    ];
    let scan = scan_in(dir.path(), &files);
    assert_eq!(scan.exit, 0, "{}", scan.stderr);
    let lines: Vec<(String, u64)> = scan.found().into_iter().map(|f| (f.2, f.3)).collect();
    assert_eq!(
        lines,
        vec![
            ("deep.js".to_string(), 2),
            ("deep.py".to_string(), 1),
            ("deep.rs".to_string(), 2)
        ]
    );
}

#[test]
fn guard_reports_source_findings_in_line_order() {
    let src = source_fixtures()
        .join("go/aliased_imports.go")
        .display()
        .to_string();
    let result = support::guard::guard(
        &["--scan", &src],
        &[support::python_command(), &support::fixture("clean")],
    );
    let lines: Vec<u64> = result.json["issues"]
        .as_array()
        .expect("issues")
        .iter()
        .filter_map(|i| i["location"]["line"].as_u64())
        .collect();
    assert_eq!(lines, vec![9, 10], "line 9 before line 10, not as text");
}

/// Human paths open from where the command ran: the scanned root joined, never `./` (issue
/// 28 item 3), in `source` and in `guard --scan` alike, each as `file:line:col`.
#[test]
fn human_paths_are_relative_to_the_working_directory() {
    let out = support::mcpcheck()
        .args(["source", "tests/fixtures/source/python"])
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "warning[static-stdout-write] tests/fixtures/source/python/print_writes_stdout.py:6:"
        ),
        "{text}"
    );
    let dir = support::repo().join("tests/fixtures/trace");
    let out = support::mcpcheck_in(&dir)
        .args(["guard", "--scan", ".", "--"])
        .args(["node", "node/index.js"])
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("printed by node/index.js:16:1 ("), "{text}");
    assert!(text.contains("] node/index.js:16:1"), "{text}");
    assert!(!text.contains("./node/"), "{text}");
}
