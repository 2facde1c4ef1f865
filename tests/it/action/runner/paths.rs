//! Paths and where results point: anchors, the SARIF file kept inside the workspace, usage errors before anything starts.

use super::*;

#[test]
fn nothing_to_check_is_a_usage_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = support::mcpcheck()
        .current_dir(dir.path())
        .env("GITHUB_WORKSPACE", dir.path())
        .arg("action")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("`command`"), "{stderr}");
    assert!(
        stderr.contains("`scan`") && stderr.contains("`paths`"),
        "{stderr}"
    );
    assert!(!Path::new(&dir.path().join("mcpcheck.sarif")).exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_an_anchor_file_results_point_at_the_workflow_or_the_sarif_file() {
    // The server lives outside the repository (as with `npx -y some-server`), and the
    // repository has no manifest or config: nothing of its own to anchor to.
    let outside = tempfile::tempdir().expect("outside");
    let servers = support::repo().join("tests/fixtures/servers");
    for name in ["mcpfixture.py", "banner_before_initialize.py"] {
        std::fs::copy(servers.join(name), outside.path().join(name)).expect("copy");
    }
    let mut runner = Runner::new("clean", None);
    std::fs::remove_file(runner.ws.path().join("pyproject.toml")).expect("no manifest");
    let command = format!(
        "python3 {}",
        outside.path().join("banner_before_initialize.py").display()
    );
    runner.input("command", &command).input("comment", "false");

    let results_uris = |runner: &Runner| -> Vec<String> {
        let text = std::fs::read_to_string(runner.sarif()).expect("SARIF");
        let doc = validate_sarif(&text);
        doc["runs"][0]["results"]
            .as_array()
            .expect("results")
            .iter()
            .map(|r| {
                let physical = &r["locations"][0]["physicalLocation"];
                assert_eq!(
                    physical["artifactLocation"]["uriBaseId"], "%SRCROOT%",
                    "{r}"
                );
                physical["artifactLocation"]["uri"]
                    .as_str()
                    .expect("every result has a physical location")
                    .to_string()
            })
            .collect()
    };

    let step = runner.run().await;
    assert_eq!(step.exit, 1, "{}{}", step.log, step.stderr);
    assert_eq!(results_uris(&runner), ["mcpcheck.sarif"]);
    assert!(
        step.summary
            .replace('\\', "")
            .contains("Code Scanning shows runtime findings on mcpcheck.sarif"),
        "{}",
        step.summary
    );
    assert!(
        !step.log.contains("Code Scanning would reject"),
        "{}",
        step.log
    );

    runner.env.insert(
        "GITHUB_WORKFLOW_REF".into(),
        "o/r/.github/workflows/mcp.yml@refs/pull/7/merge".into(),
    );
    let step = runner.run().await;
    assert_eq!(step.exit, 1, "{}{}", step.log, step.stderr);
    assert_eq!(results_uris(&runner), [".github/workflows/mcp.yml"]);
    assert!(
        step.log
            .contains("::error file=.github/workflows/mcp.yml,line=1,"),
        "{}",
        step.log
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scanned_config_outside_the_repository_is_anchored_inside_it() {
    let outside = tempfile::tempdir().expect("outside");
    let config = outside.path().join("mcp.json");
    std::fs::write(
        &config,
        "{\"mcpServers\": {\"gh\": {\"command\": \"gh-mcp\", \"env\": {\"GITHUB_TOKEN\": \"ghp_abcdefghijklmnopqrstuvwxyz0123456789\"}}}}\n",
    )
    .expect("config");
    let mut runner = Runner::new("clean", None);
    runner.env.remove("INPUT_COMMAND");
    runner
        .input("paths", &config.display().to_string())
        .input("comment", "false");
    let step = runner.run().await;
    assert_eq!(step.exit, 1, "{}{}", step.log, step.stderr);
    let doc = validate_sarif(&std::fs::read_to_string(runner.sarif()).expect("SARIF"));
    let result = &doc["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "hardcoded-secret");
    let location = &result["locations"][0];
    assert_eq!(
        location["physicalLocation"]["artifactLocation"]["uri"],
        "mcpcheck.sarif"
    );
    let named: Vec<&Value> = location["logicalLocations"]
        .as_array()
        .expect("logical locations")
        .iter()
        .filter(|l| l["kind"] == "resource")
        .map(|l| &l["fullyQualifiedName"])
        .collect();
    assert_eq!(
        named,
        [&json!(config
            .canonicalize()
            .expect("canonical")
            .display()
            .to_string())]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sarif_file_outside_the_workspace_is_a_usage_error() {
    for outside in ["../x.sarif", "/tmp/mcpcheck-action-test.sarif"] {
        let mut runner = Runner::new("clean", None);
        runner
            .input("sarif_file", outside)
            .input("comment", "false");
        let step = runner.run().await;
        assert_eq!(step.exit, 2, "{outside}: {}", step.log);
        let errors: Vec<&str> = step
            .log
            .lines()
            .filter(|l| l.starts_with("::error"))
            .collect();
        assert_eq!(errors.len(), 1, "{}", step.log);
        assert!(errors[0].contains("input `sarif_file`"), "{}", errors[0]);
        assert_eq!(step.stderr.lines().count(), 1, "{}", step.stderr);
        assert!(!runner.ws.path().join("../x.sarif").exists());
        assert!(!step.outputs.contains_key("sarif-file"));
    }
    let mut runner = Runner::new("clean", None);
    runner
        .input("sarif_file", "reports/./out.sarif")
        .input("comment", "false");
    let step = runner.run().await;
    assert_eq!(step.exit, 0, "{}", step.log);
    assert_eq!(step.outputs["sarif-file"], "reports/out.sarif");
    validate_sarif(
        &std::fs::read_to_string(runner.ws.path().join("reports/out.sarif")).expect("SARIF"),
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dangling_sarif_file_symlink_out_of_the_workspace_is_refused() {
    // A pull request can add `mcpcheck.sarif -> /anywhere`: nothing may be written there.
    let outside = tempfile::tempdir().expect("outside");
    let target = outside.path().join("planted.sarif");
    let mut runner = Runner::new("clean", None);
    std::os::unix::fs::symlink(&target, runner.sarif()).expect("symlink");
    let step = refused_before_anything_starts(&mut runner, "sarif_file").await;
    assert!(step.stderr.contains("symlink"), "{}", step.stderr);
    assert!(
        !target.exists(),
        "the SARIF was written through the symlink"
    );
    assert!(
        runner.sarif().is_symlink(),
        "the symlink itself was replaced"
    );

    // The same through a dangling symlinked directory.
    let mut runner = Runner::new("clean", None);
    std::os::unix::fs::symlink(outside.path().join("missing"), runner.ws.path().join("out"))
        .expect("symlink");
    runner.input("sarif_file", "out/x.sarif");
    refused_before_anything_starts(&mut runner, "sarif_file").await;
    assert!(!outside.path().join("missing").exists());

    // One planted after the check, by the setup (or the server), is refused at the write.
    let mut runner = Runner::new("clean", None);
    runner
        .input(
            "setup",
            &format!("ln -s {} mcpcheck.sarif", target.display()),
        )
        .input("comment", "false");
    let step = runner.run().await;
    assert_eq!(step.exit, 2, "{}{}", step.log, step.stderr);
    assert!(
        step.stderr.contains("input `sarif_file`") && step.stderr.contains("symlink"),
        "{}",
        step.stderr
    );
    assert!(
        !target.exists(),
        "the SARIF was written through the symlink"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sarif_file_symlink_to_an_existing_file_is_refused() {
    // Inside the workspace: a later step may run the file it points to.
    let mut runner = Runner::new("clean", None);
    let victim = runner.ws.path().join("pyproject.toml");
    std::os::unix::fs::symlink("pyproject.toml", runner.sarif()).expect("symlink");
    let step = refused_before_anything_starts(&mut runner, "sarif_file").await;
    assert!(step.stderr.contains("symlink"), "{}", step.stderr);
    assert_eq!(
        std::fs::read_to_string(&victim).expect("manifest"),
        PYPROJECT
    );
    // Outside it.
    let outside = tempfile::tempdir().expect("outside");
    let target = outside.path().join("existing.txt");
    std::fs::write(&target, "keep\n").expect("target");
    let mut runner = Runner::new("clean", None);
    std::os::unix::fs::symlink(&target, runner.sarif()).expect("symlink");
    refused_before_anything_starts(&mut runner, "sarif_file").await;
    assert_eq!(std::fs::read_to_string(&target).expect("target"), "keep\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sarif_file_escaping_the_workspace_with_dot_dot_is_refused() {
    let mut runner = Runner::new("clean", None);
    let escaped = runner
        .ws
        .path()
        .parent()
        .expect("parent")
        .join("escaped.sarif");
    let absolute = format!("{}/../escaped.sarif", runner.ws.path().display());
    for input in ["reports/../../escaped.sarif", absolute.as_str()] {
        runner.input("sarif_file", input);
        let step = refused_before_anything_starts(&mut runner, "sarif_file").await;
        assert!(
            step.stderr.contains("outside the workspace"),
            "{}",
            step.stderr
        );
        assert!(!escaped.exists(), "{input} was written");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_break_in_a_path_input_is_an_input_error_not_a_workflow_command() {
    for input in [
        "sarif_file",
        "config",
        "working_directory",
        "anchor",
        "scan",
        "paths",
    ] {
        let mut runner = Runner::new("clean", None);
        runner.input(input, "out.sarif\n::error::pwned\r::warning::pwned too");
        if input == "scan" || input == "paths" {
            // One item per line there: a carriage return inside an item.
            runner.input(input, "server.py\n.mcp.json\r::error::pwned");
        }
        let step = refused_before_anything_starts(&mut runner, input).await;
        // The runner ends a line at a carriage return too.
        for line in step
            .log
            .split(['\n', '\r'])
            .chain(step.stderr.split(['\n', '\r']))
        {
            assert!(
                !line.trim_start().starts_with("::error::pwned")
                    && !line.trim_start().starts_with("::warning::pwned"),
                "{input}: a live workflow command: {line}"
            );
        }
        assert!(step.stderr.contains("control character"), "{}", step.stderr);
        assert_eq!(
            stray_commands(&step.log),
            Vec::<String>::new(),
            "{}",
            step.log
        );
    }
}
