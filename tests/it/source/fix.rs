//! `mcpcheck source --fix` and `--diff` on fixtures of our own (tests/fixtures/fix/before,
//! rewritten as tests/fixtures/fix/after): every language's rewrite, byte for byte (CRLF,
//! indentation, UTF-8 kept), look-alikes left alone, a second run a no-op, the results still
//! parse and compile, and SARIF carrying the same edits as fixes.

use crate::support;
use std::path::{Path, PathBuf};
use std::process::Output;
use support::repo;

fn before() -> PathBuf {
    repo().join("tests/fixtures/fix/before")
}

fn after() -> PathBuf {
    repo().join("tests/fixtures/fix/after")
}

/// Every file under `dir`, as (relative path, bytes), sorted.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for entry in std::fs::read_dir(dir).expect("read_dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let rel = path.strip_prefix(root).expect("under root");
                let rel = rel.to_string_lossy().replace('\\', "/");
                out.push((rel, std::fs::read(&path).expect("read")));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// A copy of the `before` fixtures in a fresh directory.
fn workspace() -> tempfile::TempDir {
    copy_of(&before())
}

/// A copy of `fixtures` in a fresh directory.
fn copy_of(fixtures: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (rel, bytes) in files(fixtures) {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, bytes).expect("write");
    }
    dir
}

fn source(dir: &Path, args: &[&str]) -> Output {
    support::mcpcheck()
        .current_dir(dir)
        .arg("source")
        .args(args)
        .output()
        .expect("run mcpcheck")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("utf-8")
}

fn assert_same_files(actual: &Path, expected: &Path) {
    let (a, e) = (files(actual), files(expected));
    let names = |v: &[(String, Vec<u8>)]| v.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&a), names(&e));
    for ((name, got), (_, want)) in a.iter().zip(&e) {
        assert!(
            got == want,
            "{name} differs:\n--- got\n{}\n--- want\n{}",
            String::from_utf8_lossy(got),
            String::from_utf8_lossy(want)
        );
    }
}

#[test]
fn fix_rewrites_every_language_byte_exact_and_a_second_fix_changes_nothing() {
    let dir = workspace();
    let out = source(dir.path(), &["--fix", "."]);
    let summary = text(&out.stdout);
    // One write is left for a person (an alias of process.stdout), so the exit code is 1.
    assert_eq!(
        out.status.code(),
        Some(1),
        "{summary}\n{}",
        text(&out.stderr)
    );
    assert_same_files(dir.path(), &after());
    assert!(
        summary.starts_with("fixed 19 writes in 7 files\n"),
        "{summary}"
    );
    for line in [
        "  js/server.js: 5 writes",
        "  python/server.py: 3 writes",
        "  python/handlers.py: 4 writes",
        "  go/main.go: 3 writes",
        "  rust/main.rs: 2 writes",
        "  java/Server.java: 1 write",
        "  csharp/Server.cs: 1 write",
        "not fixable: 1 write",
        "  js/server.js:23:1 static-stdout-write: Write logs to process.stderr instead (process.stderr.write or console.error).",
    ] {
        assert!(summary.lines().any(|l| l == line), "{line:?} in\n{summary}");
    }
    // The CRLF file keeps CRLF, the added import too.
    let server_py = text(&std::fs::read(dir.path().join("python/server.py")).expect("read"));
    assert!(server_py.contains("annotations\r\n\r\nimport sys\r\nimport logging\r\n"));
    assert_eq!(
        server_py.matches('\n').count(),
        server_py.matches("\r\n").count()
    );

    let again = source(dir.path(), &["--fix", "."]);
    let summary = text(&again.stdout);
    assert!(
        summary.starts_with("fixed 0 writes in 0 files\n"),
        "{summary}"
    );
    assert_same_files(dir.path(), &after());
}

#[test]
fn diff_prints_the_rewrites_and_changes_nothing() {
    let dir = workspace();
    let out = source(dir.path(), &["--diff", "."]);
    assert_eq!(out.status.code(), Some(1));
    assert_same_files(dir.path(), &before());
    let diff = text(&out.stdout);
    for expected in [
        "--- a/js/server.js\n+++ b/js/server.js\n",
        "\n-console.log(`Server started on port ${port}`);\n",
        "\n+console.error(`Server started on port ${port}`);\n",
        "\n-    console.debug(\"indented\", { port });\n",
        "\n+    console.error(\"indented\", { port });\n",
        "\n-const logger = pino(pino.destination(1));\n+const logger = pino(pino.destination(2));\n",
        " )\n+import \"os\"\n \n",
        "-\tfmt.Printf(\"port %d\\n\", 8080)\n",
        "+\tfmt.Fprintf(os.Stderr, \"port %d\\n\", 8080)\n",
    ] {
        assert!(diff.contains(expected), "{expected:?} in\n{diff}");
    }
    // Look-alikes: comments, strings, stderr writes and a custom `console` are not in it.
    let changed: Vec<&str> = diff
        .lines()
        .filter(|l| {
            (l.starts_with('-') || l.starts_with('+'))
                && !l.starts_with("---")
                && !l.starts_with("+++")
        })
        .collect();
    assert_eq!(changed.len(), 2 * 19 + 2, "{diff}");
    for untouched in [
        "a comment",
        "a string",
        "already on stderr",
        "a custom object",
    ] {
        assert!(
            !changed.iter().any(|l| l.contains(untouched)),
            "{untouched:?} in\n{diff}"
        );
    }
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with(
            "mcpcheck: note: would fix 19 writes in 7 files (--diff: nothing changed)\n"
        ),
        "{stderr}"
    );
    // Once fixed, there is nothing left to rewrite: an empty diff.
    source(dir.path(), &["--fix", "."]);
    let clean = source(dir.path(), &["--diff", "js", "python", "go"]);
    assert!(clean.stdout.is_empty(), "{}", text(&clean.stdout));
}

#[test]
fn fixed_files_still_parse_and_compile() {
    let dir = workspace();
    source(dir.path(), &["--fix", "."]);
    let node = std::process::Command::new("node")
        .arg("--check")
        .arg(dir.path().join("js/server.js"))
        .output()
        .expect("node is installed");
    assert!(node.status.success(), "{}", text(&node.stderr));
    for file in ["python/server.py", "python/handlers.py"] {
        let py = std::process::Command::new(support::python_executable())
            .args(["-m", "py_compile"])
            .arg(dir.path().join(file))
            .output()
            .expect("python is installed");
        assert!(py.status.success(), "{file}: {}", text(&py.stderr));
    }
    // And the rewritten print really goes to stderr.
    let run = std::process::Command::new(support::python_executable())
        .args(["-c", "import server; server.main(8080)"])
        .current_dir(dir.path().join("python"))
        .output()
        .expect("python runs");
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(run.stdout.is_empty(), "{}", text(&run.stdout));
    assert_eq!(text(&run.stderr), "listening on 8080\ncafé:8080\n\n");
}

#[test]
fn fix_honours_suppressions_and_include_tests() {
    let dir = workspace();
    source(dir.path(), &["--fix", "."]);
    let js = text(&std::fs::read(dir.path().join("js/server.js")).expect("read"));
    assert!(js.contains("console.log(\"kept on purpose\"); // mcpcheck: ignore"));
    let test_file = dir.path().join("tests/check.py");
    let untouched = std::fs::read(&test_file).expect("read");
    assert_eq!(
        untouched,
        std::fs::read(before().join("tests/check.py")).expect("read")
    );
    let out = source(dir.path(), &["--fix", "--include-tests", "tests"]);
    assert!(text(&out.stdout).starts_with("fixed 1 write in 1 file\n"));
    assert_eq!(
        text(&std::fs::read(&test_file).expect("read")),
        "import sys\nprint(\"a test file, rewritten only with --include-tests\", file=sys.stderr)\n"
    );
}

#[test]
fn fix_with_a_report_format_is_a_usage_error() {
    let dir = workspace();
    let out = source(dir.path(), &["--fix", "--format", "sarif", "."]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("--fix and --diff"), "{stderr}");
    assert_same_files(dir.path(), &before());
}

#[test]
fn sarif_carries_the_rewrites_with_the_imports_they_need() {
    let dir = workspace();
    let out = source(dir.path(), &["--format", "sarif", "."]);
    let doc = support::sarif::validate_sarif(&text(&out.stdout));
    let results = doc["runs"][0]["results"].as_array().expect("results");
    let fix_at = |uri: &str, line: u64| {
        results
            .iter()
            .find(|r| {
                let p = &r["locations"][0]["physicalLocation"];
                p["artifactLocation"]["uri"]
                    .as_str()
                    .is_some_and(|u| u.ends_with(uri))
                    && p["region"]["startLine"] == line
            })
            .unwrap_or_else(|| panic!("no result at {uri}:{line}"))["fixes"][0]["artifactChanges"]
            [0]["replacements"]
            .clone()
    };
    // print(...) in a file without `import sys`: the import and the keyword, in file order.
    let print = fix_at("python/server.py", 11);
    assert_eq!(print[0]["deletedRegion"]["startLine"], 5);
    assert_eq!(print[0]["deletedRegion"]["startColumn"], 1);
    assert_eq!(print[0]["insertedContent"]["text"], "import sys\r\n");
    assert_eq!(print[1]["deletedRegion"]["startLine"], 11);
    assert_eq!(print[1]["insertedContent"]["text"], ", file=sys.stderr)");
    let go = fix_at("go/main.go", 8);
    assert_eq!(go[0]["insertedContent"]["text"], "\nimport \"os\"");
    assert_eq!(go[1]["insertedContent"]["text"], "fmt.Fprintln(os.Stderr, ");
    let js = fix_at("js/server.js", 8);
    assert_eq!(js.as_array().map(Vec::len), Some(1));
    assert_eq!(js[0]["insertedContent"]["text"], "error");
}

/// Writes through a stream (Go's os.Stdout, Rust's stdout()), click.echo, and prints whose
/// closing parenthesis has a line of its own (issue 28 item 13).
#[test]
fn fix_rewrites_stream_writes_echo_and_multi_line_prints() {
    let streams = repo().join("tests/fixtures/fix/streams");
    let dir = copy_of(&streams.join("before"));
    let out = source(dir.path(), &["--fix", "."]);
    let summary = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{summary}{}", text(&out.stderr));
    assert_eq!(
        summary,
        "fixed 17 writes in 3 files\n  go/main.go: 5 writes\n  python/cli.py: 7 writes\n  rust/main.rs: 5 writes\n"
    );
    assert_same_files(dir.path(), &streams.join("after"));
    // Nothing is left to report, so a second run passes and changes nothing.
    let again = source(dir.path(), &["."]);
    let report = text(&again.stdout);
    assert_eq!(again.status.code(), Some(0), "{report}");
    assert!(report.contains("0 errors, 0 warnings, 0 notes"), "{report}");
    assert_same_files(dir.path(), &streams.join("after"));
    // The results still compile: rustc builds the Rust file, Python compiles its file.
    let rustc = std::process::Command::new("rustc")
        .args(["--edition", "2021", "--crate-type", "bin", "-o"])
        .arg(dir.path().join("main-bin"))
        .arg(dir.path().join("rust/main.rs"))
        .output()
        .expect("rustc is installed");
    assert!(rustc.status.success(), "{}", text(&rustc.stderr));
    let run = std::process::Command::new(dir.path().join("main-bin"))
        .output()
        .expect("run");
    assert!(run.stdout.is_empty(), "{}", text(&run.stdout));
    assert_eq!(
        text(&run.stderr),
        "full path\nmodule path\nlocked\nthrough a macro\nbare\nalready on stderr\n"
    );
    let py = std::process::Command::new(support::python_executable())
        .args(["-m", "py_compile"])
        .arg(dir.path().join("python/cli.py"))
        .output()
        .expect("python is installed");
    assert!(py.status.success(), "{}", text(&py.stderr));
}

#[test]
fn diff_shows_the_stream_rewrites_as_fix_makes_them() {
    let streams = repo().join("tests/fixtures/fix/streams");
    let dir = copy_of(&streams.join("before"));
    let out = source(dir.path(), &["--diff", "."]);
    assert_eq!(out.status.code(), Some(1));
    assert_same_files(dir.path(), &streams.join("before"));
    let diff = text(&out.stdout);
    for expected in [
        "\n-\tos.Stdout.WriteString(\"a string\\n\")\n",
        "\n+\tos.Stderr.WriteString(\"a string\\n\")\n",
        "\n-\tio.WriteString(os.Stdout, \"through io\\n\")\n",
        "\n+\tio.WriteString(os.Stderr, \"through io\\n\")\n",
        "\n+    std::io::stderr().lock().write_all(b\"locked\\n\").unwrap();\n",
        "\n+    writeln!(io::stderr(), \"through a macro\").unwrap();\n",
        "\n+    write!(std::io::stderr(), \"bare\\n\").unwrap();\n",
        "\n+    click.echo(f\"{count} items\", nl=False, err=True)\n",
        "\n         name,\n-        count\n+        count,\n+        file=sys.stderr,\n     )\n",
        "\n         name,  # the name\n+        file=sys.stderr,\n     )\n",
        "\n-          name)\n+          name, file=sys.stderr)\n",
    ] {
        assert!(diff.contains(expected), "{expected:?} in\n{diff}");
    }
    // Applying the diff gives what --fix writes.
    let patch = dir.path().join("fix.patch");
    std::fs::write(&patch, &out.stdout).expect("write patch");
    let applied = std::process::Command::new("git")
        .args(["apply", "--unsafe-paths", "-p1"])
        .arg(&patch)
        .current_dir(dir.path())
        .output()
        .expect("git is installed");
    assert!(applied.status.success(), "{}", text(&applied.stderr));
    std::fs::remove_file(&patch).expect("remove patch");
    assert_same_files(dir.path(), &streams.join("after"));
}
