//! The setup command and the environment: run first, stopped at its timeout, daemons reported; no job token reaches the server or setup.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn setup_runs_first_in_the_working_directory() {
    let mut runner = Runner::new("clean", None);
    let sub = runner.ws.path().join("server");
    std::fs::create_dir(&sub).expect("mkdir");
    for f in ["clean.py", "mcpfixture.py"] {
        std::fs::rename(runner.ws.path().join(f), sub.join(f)).expect("move");
    }
    runner
        .input("working_directory", "server")
        .input("setup", "echo '::error::from setup' && touch setup-ran")
        .input("comment", "false");
    let step = runner.run().await;
    assert_eq!(step.exit, 0, "{}{}", step.log, step.stderr);
    assert!(
        sub.join("setup-ran").is_file(),
        "setup ran in working_directory"
    );
    assert_eq!(
        stray_commands(&step.log),
        Vec::<String>::new(),
        "{}",
        step.log
    );
    assert!(
        step.summary.contains("(cd server && echo"),
        "{}",
        step.summary
    );

    runner.input("setup", "exit 3");
    let step = runner.run().await;
    assert_eq!(step.exit, 2);
    assert!(
        step.stderr.contains("setup command failed"),
        "{}",
        step.stderr
    );
    assert_eq!(step.outputs["status"], "error");
}

/// The pid a setup wrote to `file` in the workspace.
fn pid_in(runner: &Runner, file: &str) -> String {
    std::fs::read_to_string(runner.ws.path().join(file))
        .unwrap_or_else(|e| panic!("{file}: {e}"))
        .trim()
        .to_string()
}

/// Whether process `pid` still runs, given a moment to be reaped.
fn still_running(pid: &str) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
    loop {
        let alive = std::process::Command::new("kill")
            .args(["-0", pid])
            .stderr(std::process::Stdio::null())
            .status()
            .expect("run kill")
            .success();
        if !alive || std::time::Instant::now() > deadline {
            return alive;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_setup_is_stopped_at_setup_timeout_and_fails_the_step() {
    let mut runner = Runner::new("clean", None);
    runner
        // The child, not the shell, writes the pid: the whole group must go.
        .input("setup", "sleep 60 & echo $! > setup.pid; wait")
        .input("setup_timeout", "1000")
        .input("comment", "false");
    let started = std::time::Instant::now();
    let step = runner.run().await;
    let took = started.elapsed();
    assert_eq!(step.exit, 2, "{}{}", step.log, step.stderr);
    assert!(
        took < std::time::Duration::from_secs(20),
        "the step took {took:?}"
    );
    assert_eq!(step.stderr.lines().count(), 1, "{}", step.stderr);
    assert!(
        step.stderr
            .contains("after 1000 ms (input `setup_timeout`)"),
        "{}",
        step.stderr
    );
    assert!(
        step.log.contains("::error title=mcpcheck::") && step.log.contains("setup_timeout"),
        "{}",
        step.log
    );
    assert_eq!(step.outputs["status"], "error");
    let pid = pid_in(&runner, "setup.pid");
    assert!(
        !still_running(&pid),
        "setup's sleep {pid} outlived the step"
    );

    runner.input("setup_timeout", "soon");
    let step = runner.run().await;
    assert_eq!(step.exit, 2);
    assert!(
        step.stderr.contains("input `setup_timeout`"),
        "{}",
        step.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_daemon_left_by_setup_is_killed_and_reported() {
    let mut runner = Runner::new("clean", None);
    runner
        .input("setup", "sleep 60 & echo $! > daemon.pid")
        .input("comment", "false");
    let started = std::time::Instant::now();
    let step = runner.run().await;
    assert!(
        started.elapsed() < std::time::Duration::from_secs(30),
        "the daemon held the step"
    );
    assert_eq!(step.exit, 0, "{}{}", step.log, step.stderr);
    let pid = pid_in(&runner, "daemon.pid");
    assert!(!still_running(&pid), "the daemon {pid} outlived the step");
    let named = format!("pid {pid} (sleep 60)");
    let warning = step
        .log
        .lines()
        .find(|l| l.starts_with("::warning title=mcpcheck setup::"))
        .unwrap_or_else(|| panic!("no setup warning in the log:\n{}", step.log));
    assert!(
        warning.contains("left 1 process running") && warning.contains(&named),
        "{warning}"
    );
    // Markdown-escaped in the summary's notes.
    let escaped = format!("pid {pid} \\(sleep 60\\)");
    assert!(step.summary.contains(&escaped), "{}", step.summary);
    assert_eq!(
        stray_commands(&step.log),
        Vec::<String>::new(),
        "{}",
        step.log
    );
}

/// Tokens the runner gives a container action, with made-up values.
const JOB_TOKENS: &[(&str, &str)] = &[
    ("ACTIONS_RUNTIME_TOKEN", "runtime-token-value-4f1c"),
    ("ACTIONS_ID_TOKEN_REQUEST_TOKEN", "oidc-request-token-9a2e"),
    ("ACTIONS_ID_TOKEN_REQUEST_URL", "https://oidc.example/req"),
    ("ACTIONS_CACHE_URL", "https://cache.example/"),
    ("ACTIONS_RESULTS_URL", "https://results.example/"),
    ("GITHUB_TOKEN", "ghs_1111111111111111111111111111111111"),
    ("NPM_TOKEN", "npm_2222222222222222222222222222222222"),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_and_setup_get_no_job_token_and_env_passes_names_on() {
    let mut runner = Runner::new("reports_environment", None);
    for (name, value) in JOB_TOKENS {
        runner.env.insert(name.to_string(), value.to_string());
    }
    let seen = runner.files.path().join("server-env.jsonl");
    runner
        .env
        .insert("FIXTURE_ENV_FILE".into(), seen.display().to_string());
    runner
        .env
        .insert("API_KEY".into(), "api-key-the-server-needs".into());
    runner
        .input("env", "FIXTURE_ENV_FILE\nAPI_KEY\nENTRY_VALUE=given-inline")
        .input("setup", "env > setup-env.txt")
        .input("comment", "false");
    let step = runner.run().await;
    assert_eq!(step.exit, 0, "{}{}", step.log, step.stderr);

    let server: Value = serde_json::from_str(
        std::fs::read_to_string(&seen)
            .expect("the server wrote its environment")
            .lines()
            .next()
            .expect("one line"),
    )
    .expect("JSON");
    let names: Vec<&str> = server["names"]
        .as_array()
        .expect("names")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for withheld in JOB_TOKENS.iter().map(|(n, _)| *n).chain([
        "INPUT_GITHUB_TOKEN",
        "INPUT_COMMAND",
        "GITHUB_OUTPUT",
    ]) {
        assert!(
            !names.contains(&withheld),
            "{withheld} reached the server: {names:?}"
        );
    }
    for kept in [
        "PATH",
        "HOME",
        "GITHUB_WORKSPACE",
        "API_KEY",
        "FIXTURE_ENV_FILE",
    ] {
        assert!(names.contains(&kept), "{kept} missing: {names:?}");
    }
    assert_eq!(server["entryValue"], "given-inline");

    let setup = std::fs::read_to_string(runner.ws.path().join("setup-env.txt")).expect("setup env");
    let input_token = &runner.env["INPUT_GITHUB_TOKEN"];
    for value in JOB_TOKENS
        .iter()
        .map(|(_, v)| *v)
        .chain([input_token.as_str()])
    {
        assert!(!setup.contains(value), "setup saw {value}:\n{setup}");
    }
    assert!(
        setup.contains("API_KEY=api-key-the-server-needs"),
        "{setup}"
    );

    // The summary names what was passed on and withheld, never a value.
    let summary = step.summary.replace('\\', "");
    assert!(
        summary.contains("passed on by the `env` input: FIXTURE_ENV_FILE, API_KEY, ENTRY_VALUE."),
        "{summary}"
    );
    assert!(
        summary.contains("withheld job tokens and credentials (INPUT_* (the Action's inputs, github_token among them), ACTIONS_CACHE_URL, ACTIONS_ID_TOKEN_REQUEST_TOKEN,"),
        "{summary}"
    );
    for value in JOB_TOKENS.iter().map(|(_, v)| *v).chain([
        "api-key-the-server-needs",
        "given-inline",
        input_token.as_str(),
    ]) {
        assert!(!step.summary.contains(value), "{value} in the summary");
        assert!(!step.log.contains(value), "{value} in the log");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn setup_stderr_is_fenced_like_its_stdout() {
    let mut runner = Runner::new("clean", None);
    runner
        .input(
            "setup",
            "echo '::error::from setup stdout'; echo '::error::from setup stderr' >&2",
        )
        .input("comment", "false");
    let step = runner.run().await;
    assert_eq!(step.exit, 0, "{}{}", step.log, step.stderr);
    assert!(
        step.log.contains("::error::from setup stderr"),
        "{}",
        step.log
    );
    assert!(!step.stderr.contains("from setup"), "{}", step.stderr);
    assert_eq!(
        stray_commands(&step.log),
        Vec::<String>::new(),
        "{}",
        step.log
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_env_input_never_passes_the_job_credentials() {
    for (entry, name) in [
        ("INPUT_GITHUB_TOKEN", "INPUT_GITHUB_TOKEN"),
        ("ACTIONS_RUNTIME_TOKEN", "ACTIONS_RUNTIME_TOKEN"),
        ("GITHUB_TOKEN", "GITHUB_TOKEN"),
        ("API_KEY\nGITHUB_TOKEN=ghs_given_inline", "GITHUB_TOKEN"),
        (
            "actions_id_token_request_token",
            "actions_id_token_request_token",
        ),
    ] {
        let mut runner = Runner::new("clean", None);
        for (var, value) in JOB_TOKENS {
            runner.env.insert(var.to_string(), value.to_string());
        }
        runner.env.insert("API_KEY".into(), "api-key".into());
        runner.input("env", entry);
        let step = refused_before_anything_starts(&mut runner, "env").await;
        assert!(step.stderr.contains(name), "{entry}: {}", step.stderr);
        for (_, value) in JOB_TOKENS {
            assert!(!step.stderr.contains(value) && !step.log.contains(value));
        }
        assert!(!step.stderr.contains("ghs_given_inline"), "{}", step.stderr);
    }
}

/// The hostile corpus (issue 40): a value given in the `env` input, which the server repeats
/// in its name, a tool description, an error answer, stderr and a stray stdout line (and
/// the setup prints), is in none of the Action's outputs: log, annotations, job summary, step outputs, SARIF.
#[tokio::test]
async fn a_value_given_in_the_env_input_is_in_no_output_of_the_action() {
    let secret = "EnvInput-S3cret-v4lue";
    let mut runner = Runner::new("echoes_what_it_was_given", None);
    runner
        .input("env", &format!("GIVEN={secret}"))
        .input(
            "setup",
            "echo \"setup sees $GIVEN\"; printf 'split %s' \"$GIVEN\" >&2",
        )
        .input("comment", "false");
    let step = runner.run().await;
    assert_eq!(step.exit, 1, "{}{}", step.log, step.stderr);
    assert!(step.log.contains("setup sees [REDACTED]"), "{}", step.log);
    assert!(step.summary.contains("stdout-non-json"), "{}", step.summary);
    let sarif = std::fs::read_to_string(runner.sarif()).expect("the SARIF file");
    let outputs = format!("{:?}", step.outputs);
    let pieces: Vec<String> = secret
        .chars()
        .collect::<Vec<_>>()
        .windows(8)
        .map(|w| w.iter().collect())
        .collect();
    for (what, text) in [
        ("log", &step.log),
        ("stderr", &step.stderr),
        ("summary", &step.summary),
        ("outputs", &outputs),
        ("sarif", &sarif),
    ] {
        for piece in &pieces {
            assert!(
                !text.contains(piece.as_str()),
                "{what} shows {piece:?}:\n{text}"
            );
        }
    }
}
