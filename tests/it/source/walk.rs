//! Source scan, walking rules: ignore files, default skips, tests, globs, suppression,
//! symlinks (loops and links out of the tree), binaries, huge, minified and generated files.

use crate::support;
use std::path::Path;
use support::source::*;

const PRINT: &str = "print('hello')\n";

fn write(root: &Path, relative: &str, content: &[u8]) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, content).expect("write");
}

fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (path, content) in files {
        write(dir.path(), path, content.as_bytes());
    }
    dir
}

#[test]
fn gitignore_is_respected_outside_a_git_repository() {
    let dir = tree(&[
        (".gitignore", "generated_client.py\nscratch/\n"),
        ("server.py", PRINT),
        ("generated_client.py", PRINT),
        ("scratch/try.py", PRINT),
    ]);
    let scan = scan_in(dir.path(), &["."]);
    assert_eq!(scan.files(), vec!["server.py"]);
    assert_eq!(scan.stat("filesScanned"), 1);
}

#[test]
fn dependency_and_build_directories_are_skipped_unless_asked() {
    let skipped = [
        "node_modules/pkg",
        "dist",
        "build",
        "target",
        "venv",
        "vendor",
        "__pycache__",
    ];
    let dir = tree(&[("src/app.js", "console.log('app');\n")]);
    for d in skipped {
        write(
            dir.path(),
            &format!("{d}/index.js"),
            b"console.log('dependency');\n",
        );
    }
    let scan = scan_in(dir.path(), &["."]);
    assert_eq!(scan.files(), vec!["src/app.js"]);
    assert_eq!(scan.stat("skippedDirs.dependency"), skipped.len() as u64);

    let all = scan_in(dir.path(), &["--no-default-excludes", "."]);
    assert_eq!(all.found().len(), 1 + skipped.len());
    assert_eq!(all.stat("skippedDirs.dependency"), 0);
}

#[test]
fn hidden_directories_such_as_dot_venv_are_never_entered() {
    let dir = tree(&[(".venv/lib/site.py", PRINT), ("server.py", PRINT)]);
    let scan = scan_in(dir.path(), &["--no-default-excludes", "."]);
    assert_eq!(scan.files(), vec!["server.py"]);
}

#[test]
fn test_files_and_directories_are_skipped_unless_included() {
    let dir = tree(&[
        ("server.py", PRINT),
        ("tests/helpers.py", PRINT),
        ("test/setup.js", "console.log('x');\n"),
        ("src/__tests__/app.js", "console.log('x');\n"),
        ("src/app.test.ts", "console.log('x');\n"),
        ("src/app.spec.js", "console.log('x');\n"),
        (
            "pkg/server_test.go",
            "package pkg\nimport \"fmt\"\nfunc T() { fmt.Println(1) }\n",
        ),
        ("test_server.py", PRINT),
        ("conftest.py", PRINT),
    ]);
    let scan = scan_in(dir.path(), &["."]);
    assert_eq!(scan.files(), vec!["server.py"]);
    assert_eq!(scan.stat("skippedFiles.test"), 5);
    assert_eq!(scan.stat("skippedDirs.test"), 3);

    let included = scan_in(dir.path(), &["--include-tests", "."]);
    assert_eq!(included.found().len(), 9);
}

#[test]
fn include_and_exclude_globs_select_files() {
    let dir = tree(&[
        ("src/server.py", PRINT),
        ("src/legacy/old.py", PRINT),
        ("src/client.gen.py", PRINT),
        ("scripts/release.py", PRINT),
    ]);
    let excluded = scan_in(
        dir.path(),
        &["--exclude", "src/legacy/**", "--exclude", "*.gen.py", "."],
    );
    assert_eq!(
        excluded.files(),
        vec!["scripts/release.py", "src/server.py"]
    );
    assert_eq!(excluded.stat("skippedFiles.excluded"), 2);

    let included = scan_in(dir.path(), &["--include", "src/**", "."]);
    assert_eq!(
        included.files(),
        vec!["src/client.gen.py", "src/legacy/old.py", "src/server.py"]
    );

    let dir_excluded = scan_in(dir.path(), &["--exclude", "legacy", "."]);
    assert_eq!(dir_excluded.stat("skippedDirs.excluded"), 1);
    assert_eq!(dir_excluded.found().len(), 3);
}

#[test]
fn suppression_comments_on_the_line_or_the_line_above_are_counted() {
    let dir = tree(&[(
        "server.js",
        concat!(
            "console.log('same line'); // mcpcheck: ignore\n",
            "// mcpcheck: ignore[static-stdout-write]\n",
            "console.log('line above, by code');\n",
            "// mcpcheck: ignore[static-stdout-logger]\n",
            "console.log('another code is named: still reported');\n",
            "const s = 'mcpcheck: ignore'; console.log('a string is not a comment');\n",
            "// mcpcheck: ignore\n",
            "\n",
            "console.log('two lines below: still reported');\n",
        ),
    )]);
    let scan = scan_in(dir.path(), &["."]);
    let lines: Vec<u64> = scan.found().iter().map(|f| f.3).collect();
    assert_eq!(lines, vec![5, 6, 9]);
    assert_eq!(scan.stat("suppressed"), 2);
}

#[test]
fn python_suppression_comments_work_and_docstrings_do_not_suppress() {
    let dir = tree(&[(
        "server.py",
        concat!(
            "print('banner')  # mcpcheck: ignore -- printed before the transport starts\n",
            "\"\"\"mcpcheck: ignore\"\"\"\n",
            "print('not suppressed by a docstring')\n",
        ),
    )]);
    let scan = scan_in(dir.path(), &["."]);
    assert_eq!(
        scan.found().iter().map(|f| f.3).collect::<Vec<_>>(),
        vec![3]
    );
    assert_eq!(scan.stat("suppressed"), 1);
}

#[test]
fn a_trailing_suppression_covers_its_own_line_and_one_alone_the_next() {
    // Issue 44 item 7: a trailing `# mcpcheck: ignore` also silenced the line after it.
    let dir = tree(&[
        (
            "server.py",
            concat!(
                "print(\"banner\")  # mcpcheck: ignore\n",
                "print(\"real bug\")\n",
                "# mcpcheck: ignore\n",
                "print(\"covered by the comment above it\")\n",
            ),
        ),
        (
            "server.js",
            concat!(
                "console.log('banner'); // mcpcheck: ignore\n",
                "console.log('real bug');\n",
            ),
        ),
    ]);
    let scan = scan_in(dir.path(), &["."]);
    let found: Vec<(String, u64)> = scan.found().iter().map(|f| (f.2.clone(), f.3)).collect();
    assert_eq!(
        found,
        [("server.js".to_string(), 2), ("server.py".to_string(), 2)]
    );
    assert_eq!(scan.stat("suppressed"), 3);
}

#[cfg(unix)]
#[test]
fn symlinks_are_never_followed_so_loops_end_and_nothing_outside_is_read() {
    let outside = tree(&[("secret.py", PRINT)]);
    let dir = tree(&[("server.py", PRINT), ("pkg/module.py", PRINT)]);
    std::os::unix::fs::symlink(dir.path(), dir.path().join("pkg/loop")).expect("loop link");
    std::os::unix::fs::symlink(outside.path(), dir.path().join("outside")).expect("dir link");
    std::os::unix::fs::symlink(
        outside.path().join("secret.py"),
        dir.path().join("linked.py"),
    )
    .expect("file link");
    let scan = scan_in(dir.path(), &["."]);
    assert_eq!(scan.files(), vec!["pkg/module.py", "server.py"]);
    assert_eq!(scan.stat("skippedDirs.symlink"), 2);
    assert_eq!(scan.stat("skippedFiles.symlink"), 1);
}

#[test]
fn binary_files_are_skipped_and_counted() {
    let dir = tree(&[("server.py", PRINT)]);
    write(dir.path(), "blob.py", b"print('x')\n\x00\x01\x02binary");
    let scan = scan_in(dir.path(), &["."]);
    assert_eq!(scan.files(), vec!["server.py"]);
    assert_eq!(scan.stat("skippedFiles.binary"), 1);
}

#[test]
fn files_over_the_size_limit_are_skipped_and_counted() {
    let dir = tree(&[("small.py", PRINT)]);
    let mut huge = PRINT.repeat(80_000).into_bytes();
    huge.truncate(1_100_000);
    write(dir.path(), "huge.py", &huge);
    let scan = scan_in(dir.path(), &["."]);
    assert_eq!(scan.files(), vec!["small.py"]);
    assert_eq!(scan.stat("skippedFiles.tooLarge"), 1);

    let limited = scan_in(dir.path(), &["--max-file-bytes", "10", "."]);
    assert_eq!(limited.found().len(), 0);
    assert_eq!(limited.stat("skippedFiles.tooLarge"), 2);
}

#[test]
fn minified_and_generated_files_are_skipped_and_counted() {
    let long_line = format!("var a=1;{}console.log(a);\n", "a=a+1;".repeat(200));
    let dir = tree(&[
        ("app.js", "console.log('app');\n"),
        ("vendor.min.js", "console.log('min');\n"),
        ("bundle.js", &long_line),
        ("client_pb2.py", "# Generated by the protocol buffer compiler.  DO NOT EDIT!\nprint(1)\n"),
        ("api.go", "// Code generated by oapi-codegen. DO NOT EDIT.\npackage api\nimport \"fmt\"\nfunc F() { fmt.Println(1) }\n"),
    ]);
    let scan = scan_in(dir.path(), &["."]);
    assert_eq!(scan.files(), vec!["app.js"]);
    assert_eq!(scan.stat("skippedFiles.minified"), 2);
    assert_eq!(scan.stat("skippedFiles.generated"), 2);
}

#[test]
fn a_file_named_on_the_command_line_is_scanned_even_if_it_looks_like_a_test() {
    let dir = tree(&[("test_server.py", PRINT)]);
    let scan = scan_in(dir.path(), &["test_server.py"]);
    assert_eq!(scan.files(), vec!["test_server.py"]);
}

#[test]
fn several_roots_prefix_each_file_with_its_root() {
    let dir = tree(&[("a/server.py", PRINT), ("b/server.py", PRINT)]);
    let scan = scan_in(dir.path(), &["a", "b"]);
    assert_eq!(scan.files(), vec!["a/server.py", "b/server.py"]);
    let single = scan_in(dir.path(), &["a"]);
    assert_eq!(single.files(), vec!["server.py"]);
}

#[test]
fn files_in_no_supported_language_are_counted_not_read() {
    let dir = tree(&[
        ("server.py", PRINT),
        ("README.md", "print('x')"),
        ("data.json", "{}"),
    ]);
    let scan = scan_in(dir.path(), &["."]);
    assert_eq!(scan.stat("otherFiles"), 2);
    assert_eq!(scan.stat("filesScanned"), 1);
}

/// The findings of `file` in a scan, without the path (and the fingerprint, which hashes it):
/// every other field as reported.
fn findings_of(scan: &Scan, file: &str) -> Vec<String> {
    scan.issues()
        .iter()
        .filter(|i| i["location"]["file"] == file)
        .map(|i| {
            let mut i = i.clone();
            i["location"]["file"] = serde_json::Value::Null;
            i["fingerprint"] = serde_json::Value::Null;
            i.to_string()
        })
        .collect()
}

/// A module parsed once for byte-identical copies (`source::copies`) is reported at each
/// copy's path exactly as when each is scanned alone: a warning, a note its transport facts
/// make, and a suppressed write, counted once per copy.
#[test]
fn byte_identical_copies_are_each_reported_as_if_scanned_alone() {
    let module = "import os\nimport sys\n\nprint('starting')\nprint('quiet')  # mcpcheck: ignore\n\nif os.environ.get('TRANSPORT') == 'sse':\n    print('serving over sse')\n";
    let dir = tree(&[
        ("server.py", module),
        ("lib/copy/server.py", module),
        ("other.py", PRINT),
    ]);
    // One thread, so that one copy is scanned before the other is reached.
    let scan = scan_in(dir.path(), &["--threads", "1", "."]);
    let first = findings_of(&scan, "server.py");
    assert_eq!(first.len(), 2, "{first:#?}");
    assert!(
        first[1].contains("\"severity\":\"note\"") && first[1].contains("transport-branch"),
        "{first:#?}"
    );
    assert_eq!(findings_of(&scan, "lib/copy/server.py"), first);
    for file in ["server.py", "lib/copy/server.py"] {
        let alone = scan_in(dir.path(), &[file]);
        let shown = alone.issues()[0]["location"]["file"]
            .as_str()
            .expect("file")
            .to_string();
        assert_eq!(findings_of(&alone, &shown), first, "{file} alone");
    }
    assert_eq!(scan.stat("filesParsed"), 3);
    assert_eq!(scan.stat("suppressed"), 2);
}
