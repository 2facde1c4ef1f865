//! `mcpcheck init` writes the workflow once, refuses to overwrite it, and says what it wrote.

use crate::support;

fn init(dir: &std::path::Path, extra: &[&str]) -> std::process::Output {
    support::mcpcheck()
        .current_dir(dir)
        .arg("init")
        .args(extra)
        .output()
        .expect("run mcpcheck init")
}

#[test]
fn init_writes_the_workflow_and_never_overwrites_unasked() {
    let dir = tempfile::tempdir().expect("tempdir");
    // A repository where `npm ci` and `node dist/index.js` work: a lockfile, and the entry
    // committed (no build script).
    for (name, content) in [
        (
            "package.json",
            r#"{"name": "s", "bin": {"s": "dist/index.js"}}"#,
        ),
        (
            "package-lock.json",
            r#"{"name": "s", "lockfileVersion": 3}"#,
        ),
        ("dist/index.js", ""),
    ] {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, content).expect("write");
    }
    let out = init(dir.path(), &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let path = dir.path().join(".github/workflows/mcpcheck.yml");
    let written = std::fs::read_to_string(&path).expect("workflow written");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("wrote .github/workflows/mcpcheck.yml"),
        "{stdout}"
    );
    assert!(stdout.contains(&written), "prints what it wrote");
    for needle in [
        "security-events: write",
        "pull-requests: write",
        "contents: read",
        "command: 'node dist/index.js'",
        "setup: 'npm ci'",
        "github/codeql-action/upload-sarif@",
        "sarif_file: ${{ steps.mcpcheck.outputs.sarif-file }}",
        "category: mcpcheck",
    ] {
        assert!(written.contains(needle), "missing {needle} in\n{written}");
    }

    std::fs::write(&path, "mine").expect("edit");
    let again = init(dir.path(), &["--command", "python3 server.py"]);
    assert_eq!(again.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("--force"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&path).expect("read"), "mine");

    let forced = init(
        dir.path(),
        &["--force", "--command", "uvx my-server --flag 'a b'"],
    );
    assert_eq!(forced.status.code(), Some(0));
    let text = std::fs::read_to_string(&path).expect("read");
    assert!(
        text.contains("command: 'uvx my-server --flag ''a b'''"),
        "{text}"
    );
    assert!(!text.contains("setup:"), "{text}");
}

#[test]
fn init_in_an_empty_directory_writes_a_marked_placeholder_not_a_guess() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = init(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(0));
    let written = std::fs::read_to_string(dir.path().join(".github/workflows/mcpcheck.yml"))
        .expect("workflow written");
    assert!(!written.contains("python3 server.py"), "{written}");
    assert!(
        written.contains("command: 'REPLACE-ME-with-the-command-that-starts-your-server'"),
        "{written}"
    );
    assert!(
        written.contains("# TODO: mcpcheck init found no server here."),
        "{written}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("wrote .github/workflows/mcpcheck.yml with a placeholder command"),
        "{stdout}"
    );
}

#[test]
fn init_refuses_a_command_the_action_could_not_split() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (command, expected) in [
        ("node 'server.js", "cannot be split into words"),
        ("   ", "--command is empty"),
    ] {
        let out = init(dir.path(), &["--command", command]);
        assert_eq!(out.status.code(), Some(2), "{command:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(expected), "{stderr}");
        assert!(!dir.path().join(".github").exists(), "nothing written");
    }
}

/// The repository (name, content pairs) in a fresh temporary directory.
fn repository(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, content) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, content).expect("write");
    }
    dir
}

fn written(dir: &std::path::Path) -> String {
    std::fs::read_to_string(dir.join(".github/workflows/mcpcheck.yml")).expect("workflow written")
}

#[test]
fn init_reads_setup_and_command_from_the_project_instead_of_guessing() {
    // The cases of issue 28 item 11, each once through the binary (the rules are unit-tested
    // in src/app/init/).
    for (files, setup, command) in [
        (
            vec![(
                "pyproject.toml",
                "[project]\nname = \"my-server\"\n\n[project.scripts]\nmy-server = \"my_server:main\"\n",
            )],
            Some("python3 -m pip install ."),
            "my-server",
        ),
        (
            vec![
                (
                    "package.json",
                    r#"{"name": "s", "main": "dist/index.js", "scripts": {"build": "tsc"}}"#,
                ),
                ("package-lock.json", "{}"),
            ],
            Some("npm ci && npm run build"),
            "node dist/index.js",
        ),
        (
            vec![("package.json", r#"{"name": "s", "bin": "cli.js"}"#), ("cli.js", "")],
            Some("npm install"),
            "node cli.js",
        ),
    ] {
        let dir = repository(&files);
        let out = init(dir.path(), &[]);
        assert_eq!(out.status.code(), Some(0), "{files:?}");
        let text = written(dir.path());
        assert!(text.contains(&format!("command: '{command}'")), "{text}");
        match setup {
            Some(s) => assert!(text.contains(&format!("setup: '{s}'")), "{text}"),
            None => assert!(!text.contains("setup:"), "{text}"),
        }
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.starts_with("wrote .github/workflows/mcpcheck.yml (setup and command read from"),
            "{stdout}"
        );
    }
}

#[test]
fn init_writes_the_placeholder_when_the_entry_is_unknown_and_says_what_to_replace() {
    // A package.json without bin, main or exports: no `node index.js` guess, but the
    // install step is still known.
    let dir = repository(&[("package.json", r#"{"name": "s"}"#)]);
    let out = init(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(0));
    let text = written(dir.path());
    assert!(!text.contains("command: 'node"), "{text}");
    assert!(
        text.contains("command: 'REPLACE-ME-with-the-command-that-starts-your-server'"),
        "{text}"
    );
    assert!(text.contains("setup: 'npm install'"), "{text}");
    assert!(
        text.contains("Why: package.json names no bin, main or exports"),
        "{text}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let first = stdout.lines().next().expect("a line");
    assert_eq!(
        first,
        "wrote .github/workflows/mcpcheck.yml with a placeholder command (package.json names no bin, main or exports, and there is no index.js): replace REPLACE-ME-with-the-command-that-starts-your-server with the command that starts your server over stdio, or run again with --command:"
    );
}
