//! The source scan on large real trees: the text prefilter changes no finding, the number of
//! threads changes no byte of any report, and a tree outside the repository keeps its SARIF
//! locations. The large tree is the SDK fixtures' real dependencies (scripts/install-fixtures).

use crate::support;

use mcpcheck::source::{scan, ScanOptions, SourceScan};
use std::path::{Path, PathBuf};
use support::source::source_fixtures as fixtures;

/// The packages the SDK fixtures install: node_modules of the TypeScript SDK fixture and
/// site-packages of the Python one.
fn installed_packages() -> Vec<PathBuf> {
    let sdk = support::repo().join("tests/fixtures/sdk");
    let node_modules = sdk.join("ts/node_modules");
    assert!(
        node_modules.join("@modelcontextprotocol/sdk").is_dir(),
        "TypeScript SDK fixtures are not installed: run scripts/install-fixtures (scripts/test does)"
    );
    let lib = sdk.join("python/.venv/lib");
    let site_packages = std::fs::read_dir(&lib)
        .ok()
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("site-packages"))
        .find(|p| p.join("mcp").is_dir());
    let site_packages = site_packages.unwrap_or_else(|| {
        panic!(
            "Python SDK fixtures are not installed in {}: run scripts/install-fixtures",
            lib.display()
        )
    });
    vec![node_modules, site_packages]
}

/// Everything walked, as a dependency tree is: tests and dependency directories included.
fn whole_tree(roots: Vec<PathBuf>) -> ScanOptions {
    let mut options = ScanOptions::new(roots);
    options.include_tests = true;
    options.default_excludes = false;
    options
}

fn scanned(options: &ScanOptions) -> SourceScan {
    scan(options).expect("scan")
}

/// Findings compared whole: code, message, every location field, evidence, fix and edit.
fn findings(scan: &SourceScan) -> Vec<String> {
    scan.findings.iter().map(|f| format!("{f:?}")).collect()
}

/// Scans with and without the prefilter and checks they find exactly the same things;
/// returns (files parsed with the prefilter, without it, findings).
fn same_findings_with_and_without_prefilter(mut options: ScanOptions) -> (usize, usize, usize) {
    options.prefilter = true;
    let filtered = scanned(&options);
    options.prefilter = false;
    let everything = scanned(&options);
    let (with, without) = (findings(&filtered), findings(&everything));
    let missed: Vec<&String> = without.iter().filter(|f| !with.contains(f)).collect();
    let extra: Vec<&String> = with.iter().filter(|f| !without.contains(f)).collect();
    assert!(
        missed.is_empty() && extra.is_empty() && with == without,
        "the prefilter changed the findings\nmissed by it: {missed:#?}\nonly with it: {extra:#?}"
    );
    assert_eq!(
        filtered.stats.files_scanned, everything.stats.files_scanned,
        "the same files are scanned either way"
    );
    assert_eq!(
        everything.stats.files_parsed, everything.stats.files_scanned,
        "without the prefilter every scanned file is parsed"
    );
    (
        filtered.stats.files_parsed,
        everything.stats.files_parsed,
        with.len(),
    )
}

#[test]
fn the_prefilter_changes_no_finding_over_the_fixture_corpus() {
    // Every fixture mentions what it is about (look-alikes included), so all are parsed.
    let (_, all, found) = same_findings_with_and_without_prefilter(whole_tree(vec![fixtures()]));
    assert!(all > 50, "the whole corpus: {all} files");
    assert!(found > 100, "the corpus has findings: {found}");
}

/// Copies `from` to `to`, each JavaScript and Python file with twelve quiet functions
/// appended (no line moves), counted in `padded`; with `broken`, the seventh holds a syntax
/// error, in a part the windows leave out.
fn copy_padded(from: &Path, to: &Path, padded: &mut usize, broken: bool) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let path = entry.expect("entry").path();
        let target = to.join(path.file_name().expect("name"));
        if path.is_dir() {
            copy_padded(&path, &target, padded, broken);
            continue;
        }
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        let body = |line: &str| line.repeat(30);
        let wrong = |i: usize, line: &'static str| if broken && i == 6 { line } else { "" };
        let quiet: String = match ext {
            "js" | "mjs" | "cjs" | "ts" | "mts" | "cts" | "jsx" | "tsx" => (0..12)
                .map(|i| {
                    format!(
                        "\nfunction quietPadding{i}(x) {{\n{}{}  return x;\n}}\n",
                        body("  x = x + 1;\n"),
                        wrong(i, "  x = = 1;\n")
                    )
                })
                .collect(),
            "py" => (0..12)
                .map(|i| {
                    format!(
                        "\n\ndef quiet_padding{i}(x):\n{}{}    return x\n",
                        body("    x = x + 1\n"),
                        wrong(i, "    x = = 1\n")
                    )
                })
                .collect(),
            _ => String::new(),
        };
        let mut bytes = std::fs::read(&path).expect("read");
        if !quiet.is_empty() {
            *padded += 1;
            if !bytes.ends_with(b"\n") {
                bytes.push(b'\n');
            }
            bytes.extend_from_slice(quiet.as_bytes());
        }
        std::fs::write(&target, bytes).expect("write");
    }
}

/// Each directory of `dir` a root of its own, so the packages' entries are followed.
fn roots_of(dir: &Path) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("read_dir")
        .map(|e| e.expect("entry").path())
        .collect();
    roots.sort();
    roots
}

/// The fixture corpus made large (see below), with a syntax error in a part the windows
/// leave out: where the facts' text test reads its words and what the windows leave out
/// change no finding even then (the whole parse meets the error, the windowed one may not).
#[test]
fn the_prefilter_changes_no_finding_where_a_part_left_out_has_a_syntax_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut padded = 0;
    copy_padded(&fixtures(), dir.path(), &mut padded, true);
    let (_, all, found) =
        same_findings_with_and_without_prefilter(whole_tree(roots_of(dir.path())));
    assert!(all > 50 && found > 100, "{all} files, {found} findings");
    // The whole parses meet the errors; the windows leave most of them out.
    let errors = |prefilter: bool| {
        let mut options = whole_tree(roots_of(dir.path()));
        options.prefilter = prefilter;
        scanned(&options).stats.files_with_syntax_errors
    };
    let (whole, windowed) = (errors(false), errors(true));
    assert!(
        whole > 40 && windowed * 2 < whole,
        "{whole} whole, {windowed} windowed"
    );
}

/// The fixture corpus with quiet functions added at the end of each JavaScript, TypeScript and
/// Python file (no line moves): every file is then large enough for the windows of the scan
/// and of its transport facts, which leave out the fixtures' own blocks and statements that
/// hold none of their words. The findings are still those of whole parses: a launcher whose
/// window left out what its imports bind once turned a write into a note
/// (`node-launcher-imports`).
#[test]
fn the_prefilter_changes_no_finding_over_the_fixture_corpus_made_large() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut padded = 0;
    copy_padded(&fixtures(), dir.path(), &mut padded, false);
    assert!(padded > 40, "{padded} files made large");
    let roots = roots_of(dir.path());
    let (parsed, all, found) = same_findings_with_and_without_prefilter(whole_tree(roots.clone()));
    assert!(all > 50 && found > 100, "{all} files, {found} findings");
    let launcher = scanned(&whole_tree(roots))
        .findings
        .into_iter()
        .find(|f| {
            f.location
                .file
                .as_deref()
                .is_some_and(|p| p.ends_with("node-launcher-imports/sse.js"))
        })
        .expect("the launcher's SSE module writes");
    assert_eq!(launcher.severity, mcpcheck::finding::Severity::Warning);
    // The windows engage: most JavaScript and Python files are parsed in part (those naming
    // a logger are parsed whole), where the corpus as it is has two.
    let in_part = |root: &Path| scanned(&whole_tree(vec![root.to_path_buf()])).stats;
    let (large, small) = (in_part(dir.path()), in_part(&fixtures()));
    assert!(
        large.files_parsed_in_part >= small.files_parsed_in_part + 30,
        "{} of {parsed} files parsed in part, {} before",
        large.files_parsed_in_part,
        small.files_parsed_in_part
    );
}

#[test]
fn the_prefilter_changes_no_finding_over_a_large_real_tree() {
    let (parsed, all, found) =
        same_findings_with_and_without_prefilter(whole_tree(installed_packages()));
    assert!(all > 2_000, "a large tree: {all} files");
    assert!(found > 0, "real packages write to stdout somewhere");
    assert!(
        parsed * 2 < all,
        "most real files hold none of the words: {parsed} of {all} parsed"
    );
}

fn mcpcheck(dir: &Path, args: &[&str]) -> Vec<u8> {
    let out = support::mcpcheck()
        .current_dir(dir)
        .env("GITHUB_WORKSPACE", dir)
        .args(args)
        .output()
        .expect("run mcpcheck");
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The report at `--threads 1` and at more threads than the machine has, byte for byte
/// (SARIF repeats the command line: that one argument is put back before comparing).
fn same_bytes_at_any_thread_count(dir: &Path, format: &str, roots: &[&str], counts: &[&str]) {
    let run = |threads: &str| {
        let mut args = vec![
            "source",
            "--format",
            format,
            "--include-tests",
            "--no-default-excludes",
            "--threads",
            threads,
        ];
        args.extend_from_slice(roots);
        mcpcheck(dir, &args)
    };
    let one = run("1");
    assert!(one.len() > 1_000, "a real report: {} bytes", one.len());
    for threads in counts {
        let echoed = format!("--threads {threads} ");
        let report = String::from_utf8(run(threads)).expect("utf-8").replacen(
            &echoed,
            "--threads 1 ",
            usize::from(format == "sarif"),
        );
        assert!(
            one == report.as_bytes(),
            "{format} report at --threads {threads} differs from --threads 1"
        );
    }
}

#[test]
fn reports_are_byte_identical_at_one_and_many_threads() {
    let repo = support::repo();
    let mut roots: Vec<String> = installed_packages()
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    roots.push(fixtures().display().to_string());
    let roots: Vec<&str> = roots.iter().map(String::as_str).collect();
    // 0 is one thread per CPU; 8 is more threads than this machine has.
    same_bytes_at_any_thread_count(&repo, "json", &roots, &["2", "8", "0"]);
    for format in ["sarif", "human"] {
        same_bytes_at_any_thread_count(&repo, format, &roots, &["8"]);
    }
}

#[test]
fn files_outside_the_repository_keep_physical_locations_with_file_uris() {
    let workspace = tempfile::tempdir().expect("tempdir");
    std::fs::write(workspace.path().join("package.json"), "{}").expect("write");
    let elsewhere = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        elsewhere.path().join("server.js"),
        "// a server\nconsole.log('ready');\n",
    )
    .expect("write");
    let tree = elsewhere.path().display().to_string();
    let sarif = mcpcheck(workspace.path(), &["source", "--format", "sarif", &tree]);
    let doc = support::sarif::validate_sarif(&String::from_utf8(sarif).expect("utf-8"));
    let result = &doc["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "static-stdout-write");
    let physical = &result["locations"][0]["physicalLocation"];
    let file = elsewhere
        .path()
        .join("server.js")
        .canonicalize()
        .expect("canonical");
    let uri = physical["artifactLocation"]["uri"].as_str().expect("uri");
    assert!(uri.starts_with("file:///"), "{uri}");
    assert_eq!(
        uri.trim_start_matches("file://"),
        file.display().to_string(),
        "the file's absolute path (nothing in it needs escaping)"
    );
    assert!(physical["artifactLocation"].get("uriBaseId").is_none());
    assert_eq!(physical["region"]["startLine"], 2);
    assert_eq!(physical["region"]["startColumn"], 1);
    assert!(result["locations"][0].get("logicalLocations").is_none());
}
