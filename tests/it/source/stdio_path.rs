//! Issue 45: the source scan follows what serving over stdio runs. Writes in a branch for
//! another transport, behind an environment variable that picks HTTP, on a path that exits
//! before serving, or in another entry point of the package are notes with a detail code;
//! a write every stdio start runs stays a warning. And installed packages are scanned: a
//! path given is scanned even where an ignore file above it leaves it out, and the package's
//! entry points even under `dist/`.

use crate::support;
use support::source::*;

fn detail(scan: &Scan, file: &str, line: u64) -> String {
    let f = scan.in_file(file, line);
    format!(
        "{} {}",
        f["severity"].as_str().expect("severity"),
        f["detailCode"].as_str().unwrap_or("-")
    )
}

#[test]
fn an_npm_package_s_writes_off_the_stdio_path_are_notes_and_the_stdio_start_s_is_a_warning() {
    let dir = source_fixtures().join("node-stdio-reach");
    let scan = expect_project(
        &dir,
        &[],
        &[
            // The second bin, a terminal CLI whose stdout is its output.
            ("static-stdout-write", "note", "dist/cli.js", 5, 3),
            ("static-stdout-write", "note", "dist/cli.js", 7, 1),
            // --help prints and exits.
            ("static-stdout-write", "note", "dist/options.js", 6, 7),
            // The logger gated on the variables that pick HTTP.
            ("static-stdout-write", "note", "dist/server.js", 11, 7),
            // Behind a test of HTTP request headers.
            ("static-stdout-write", "note", "dist/server.js", 22, 3),
            // Printed on every start, before the stdio transport connects: true.
            ("static-stdout-write", "warning", "dist/server.js", 29, 3),
            // Inside `else if (transport === 'http')`.
            ("static-stdout-write", "note", "dist/server.js", 35, 5),
            // The setup wizard, loaded only by --setup, which exits.
            ("static-stdout-write", "note", "dist/setup.js", 3, 3),
            ("static-stdout-write", "note", "dist/setup.js", 4, 3),
        ],
    );
    assert_eq!(detail(&scan, "dist/cli.js", 5), "note other-entry");
    let message = scan.in_file("dist/cli.js", 5)["message"]
        .as_str()
        .expect("message")
        .to_string();
    assert!(
        message.contains("only dist/cli.js (package.json bin stdio-reach) loads it")
            && message
                .contains("the stdio server is dist/server.js (package.json bin stdio-reach-mcp)"),
        "{message}"
    );
    assert_eq!(
        detail(&scan, "dist/options.js", 6),
        "note exits-before-serving"
    );
    assert_eq!(
        detail(&scan, "dist/setup.js", 3),
        "note exits-before-serving"
    );
    for line in [11, 22, 35] {
        assert_eq!(
            detail(&scan, "dist/server.js", line),
            "note transport-branch"
        );
    }
    assert_eq!(detail(&scan, "dist/server.js", 29), "warning -");
    // The package's code is all under dist/, its entries' directory: scanned by default.
    assert_eq!(scan.stat("filesScanned"), 4);
    // --all-transports: every one a warning.
    let all = scan_in(&dir, &["--all-transports", "."]);
    assert_eq!(all.issues().len(), 9);
    assert!(all.issues().iter().all(|i| i["severity"] == "warning"));
}

#[test]
fn a_python_package_s_writes_off_the_stdio_path_are_notes_and_the_stdio_start_s_is_a_warning() {
    let dir = source_fixtures().join("python-stdio-reach");
    let scan = expect_project(
        &dir,
        &[],
        &[
            // Logged only when REACH_HTTP, which picks Streamable HTTP below, is set.
            (
                "static-stdout-write",
                "note",
                "reach_server/__init__.py",
                14,
                9,
            ),
            // --version prints and exits.
            (
                "static-stdout-write",
                "note",
                "reach_server/__init__.py",
                24,
                9,
            ),
            // Printed on every start, before mcp.run: true.
            (
                "static-stdout-write",
                "warning",
                "reach_server/__init__.py",
                34,
                5,
            ),
            // Inside `elif args.transport in ("sse", "streamable-http")`.
            (
                "static-stdout-write",
                "note",
                "reach_server/__init__.py",
                38,
                9,
            ),
            // The second script.
            ("static-stdout-write", "note", "reach_server/cli.py", 6, 5),
            // The --setup wizard, imported only in the branch that sys.exit()s.
            (
                "static-stdout-write",
                "note",
                "reach_server/setup_wizard.py",
                5,
                5,
            ),
            (
                "static-stdout-write",
                "note",
                "reach_server/setup_wizard.py",
                6,
                5,
            ),
        ],
    );
    assert_eq!(
        detail(&scan, "reach_server/__init__.py", 14),
        "note transport-branch"
    );
    assert_eq!(
        detail(&scan, "reach_server/__init__.py", 24),
        "note exits-before-serving"
    );
    assert_eq!(
        detail(&scan, "reach_server/__init__.py", 38),
        "note transport-branch"
    );
    assert_eq!(detail(&scan, "reach_server/cli.py", 6), "note other-entry");
    assert_eq!(
        detail(&scan, "reach_server/setup_wizard.py", 5),
        "note exits-before-serving"
    );
}

#[test]
fn the_human_report_counts_the_notes_off_the_stdio_path_and_says_how_to_see_them() {
    let out = support::mcpcheck()
        .current_dir(source_fixtures())
        .args(["source", "node-stdio-reach"])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("8 writes off the stdio path reported as notes (exits-before-serving 3, other-entry 2, transport-branch 3): `mcpcheck source --all-transports node-stdio-reach` reports them as warnings"),
        "{text}"
    );
}

/// Copies a fixture package into `under` (created), returning the package's path.
fn install(fixture: &str, under: &std::path::Path) -> std::path::PathBuf {
    let from = copy_project(fixture);
    std::fs::create_dir_all(under).expect("mkdir");
    let to = under.join(fixture);
    std::fs::rename(from.path(), &to)
        .or_else(|_| {
            // Across file systems: copy file by file.
            let status = std::process::Command::new("cp")
                .arg("-r")
                .arg(from.path())
                .arg(&to)
                .status()?;
            if status.success() {
                Ok(())
            } else {
                Err(std::io::Error::other("cp failed"))
            }
        })
        .expect("move");
    to
}

#[test]
fn a_path_given_is_scanned_where_an_ignore_file_above_it_leaves_it_out() {
    // As uv's cache: a `.gitignore` of `*` at its top, the package deep below.
    let cache = tempfile::tempdir().expect("tempdir");
    std::fs::write(cache.path().join(".gitignore"), "*\n").expect("write");
    let site = cache
        .path()
        .join("archive-v0/x1/lib/python3.12/site-packages");
    let package = install("python-stdio-reach", &site);
    let scan = scan_in(&package, &["."]);
    assert_eq!(scan.stat("filesScanned"), 4, "{:#}", scan.json["stats"]);
    assert_eq!(scan.issues().len(), 7);
    // An ignore file below the path given still applies.
    std::fs::write(package.join("reach_server/.gitignore"), "cli.py\n").expect("write");
    let scan = scan_in(&package, &["."]);
    assert_eq!(scan.stat("filesScanned"), 3, "{:#}", scan.json["stats"]);
}

#[test]
fn dist_is_skipped_unless_it_holds_an_entry_point_and_an_empty_scan_says_which_excludes() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("dist")).expect("mkdir");
    std::fs::write(dir.path().join("dist/tool.js"), "console.log('hi');\n").expect("write");
    std::fs::write(dir.path().join("package.json"), "{\"name\": \"x\"}\n").expect("write");
    let scan = scan_in(dir.path(), &["."]);
    assert_eq!(scan.stat("filesScanned"), 0);
    assert!(
        scan.stderr.contains("no source file scanned under .: the excludes left out 1 directory of dependencies or build output (node_modules, dist, build, .venv...; --no-default-excludes scans them)"),
        "{}",
        scan.stderr
    );
    assert!(!scan.stderr.contains("check the path"), "{}", scan.stderr);
    // Named as the package's bin, dist/ is the package's code.
    std::fs::write(
        dir.path().join("package.json"),
        "{\"name\": \"x\", \"bin\": \"./dist/tool.js\"}\n",
    )
    .expect("write");
    let scan = scan_in(dir.path(), &["."]);
    assert_eq!(scan.stat("filesScanned"), 1);
    assert_eq!(scan.issues().len(), 1);
    // An empty directory is still a likely wrong path.
    let empty = tempfile::tempdir().expect("tempdir");
    let scan = scan_in(empty.path(), &["."]);
    assert!(scan.stderr.contains("check the path"), "{}", scan.stderr);
}

/// A launcher's `index.js`: it imports `./sse.js` for the names in `names`, calls `call` in
/// its branch for SSE and `helper` on the stdio path; `quiet` bytes of functions that write
/// nothing come before, so that above 4 KiB its facts come from a window.
fn launcher(names: &str, helper_calls: &str, call: &str, quiet: usize) -> String {
    let quiet: String = (0..quiet / 400)
        .map(|i| {
            format!(
                "function quiet{i}(x) {{\n{}  return x;\n}}\n",
                "  x = x + 1;\n".repeat(30)
            )
        })
        .collect();
    format!(
        "#!/usr/bin/env node\n\
         import {{ StdioServerTransport }} from '@modelcontextprotocol/sdk/server/stdio.js';\n\
         import {{ {names} }} from './sse.js';\n{quiet}\
         function helper(a, b) {{\n  const x = a + b;\n{helper_calls}  return x;\n}}\n\
         if (process.env.TRANSPORT === 'sse') {{\n  {call};\n}} else {{\n  \
         const t = new StdioServerTransport();\n  helper(1, 2);\n}}\n"
    )
}

/// A module that serves SSE only, whose write is a note unless the stdio path loads it; it
/// does when the launcher uses what it imports from it on the stdio path too.
#[test]
fn what_a_launcher_imports_is_on_the_stdio_path_as_its_uses_say_however_large_the_launcher() {
    let sse = "import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';\n\
               export function startSSEServer(x) {\n  console.log('starting', x);\n  \
               return new SSEServerTransport('/messages', x);\n}\n";
    let cases = [
        // Used only in the branch for SSE: off the stdio path.
        ("startSSEServer", "", "startSSEServer(1, 2, 3)", "note"),
        // Also used by the helper the stdio branch calls.
        (
            "startSSEServer",
            "  startSSEServer(x);\n",
            "startSSEServer(1)",
            "warning",
        ),
    ];
    for (names, helper_calls, call, severity) in cases {
        for quiet in [0, 6_000] {
            let dir = tempfile::tempdir().expect("tempdir");
            let index = launcher(names, helper_calls, call, quiet);
            std::fs::write(
                dir.path().join("package.json"),
                r#"{"name":"launcher","version":"1.0.0","type":"module","bin":{"launcher":"index.js"}}"#,
            )
            .expect("write");
            std::fs::write(dir.path().join("index.js"), &index).expect("write");
            std::fs::write(dir.path().join("sse.js"), sse).expect("write");
            let scan = scan_in(dir.path(), &["."]);
            let found = scan.in_file("sse.js", 3);
            assert_eq!(
                found["severity"],
                severity,
                "{} bytes of index.js:\n{index}",
                index.len()
            );
            if severity == "note" {
                assert_eq!(found["detailCode"], "http-only-module");
            }
        }
    }
}
