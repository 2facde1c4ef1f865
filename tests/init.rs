//! `mcpcheck init` writes the workflow once, refuses to overwrite it, and says what it wrote.

mod support;

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
    std::fs::write(
        dir.path().join("package.json"),
        r#"{"name": "s", "bin": {"s": "dist/index.js"}}"#,
    )
    .expect("write package.json");
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
