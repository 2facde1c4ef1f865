//! `mcpcheck sweep`: many real fixture servers at once, kill and resume, sandboxing, setup.

use crate::support;

use serde_json::{json, Value};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::process::survivors;
use support::python_executable;
use support::sweep::*;
use support::{fixture, mcpcheck};

const TWENTY: [&str; 20] = [
    "clean",
    "never_answers_initialize",
    "crash_on_tools_list",
    "flood_stdout",
    "ignores_sigterm",
    "forks_child",
    "daemonizes",
    "banner_before_initialize",
    "stderr_flood",
    "huge_line",
    "crash_after_initialized",
    "segfault_before_initialize",
    "exit_before_initialize_error",
    "tools_list_never_answers",
    "ignores_stdin_close",
    "late_stdout_write",
    "invalid_utf8",
    "duplicate_tool_names",
    "log_after_initialize",
    "clean",
];

#[test]
fn twenty_servers_at_jobs_8_each_once_with_single_run_verdicts_and_nothing_left_running() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pid_file = dir.path().join("pids");
    let servers = servers(&TWENTY);
    let manifest = write_manifest(
        dir.path(),
        &servers
            .iter()
            .map(|s| entry(s, &pid_file))
            .collect::<Vec<_>>(),
    );
    let out = dir.path().join("results.jsonl");
    let run = sweep(&[
        manifest.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
        "--jobs",
        "8",
        "--timeout",
        "5000",
    ]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.starts_with("sweep: 20 servers in "), "{stdout}");
    assert!(
        stderr.contains("mcpcheck sweep: 20 to check, 0 already in"),
        "{stderr}"
    );
    assert!(stderr.contains("mcpcheck sweep: 20/20 done"), "{stderr}");
    assert_no_survivors(&pid_file);

    let results = lines(&out);
    let mut expected: Vec<String> = servers.iter().map(|s| s.id.clone()).collect();
    expected.sort();
    assert_eq!(ids(&results), expected, "every server exactly once");
    for line in &results {
        let started = line["startedAt"].as_str().expect("startedAt");
        assert_eq!(
            (started.len(), &started[10..11], &started[23..]),
            (24, "T", "Z"),
            "{started}"
        );
        assert!(
            line["wallMs"].as_u64().expect("wallMs")
                >= line["durationMs"].as_u64().expect("durationMs")
        );
        assert_eq!(line["schemaVersion"], 1);
        // The server's variables (sandbox, then the entry's) are named, their values never.
        let env: Vec<&str> = line["fingerprint"]["envAssignments"]
            .as_array()
            .expect("env")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(env.last(), Some(&"FIXTURE_PID_FILE=[REDACTED]"), "{env:?}");
        assert!(
            env.contains(&"HOME=[REDACTED]") && env.contains(&"PATH=[REDACTED]"),
            "{env:?}"
        );
        assert!(env.iter().all(|e| e.ends_with("=[REDACTED]")), "{env:?}");
        // The contract's shape of the same facts: names, and every value redacted.
        let contract_env = &line["fingerprint"]["env"];
        let names: Vec<&str> = contract_env["names"]
            .as_array()
            .expect("env.names")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(names.len(), env.len(), "{contract_env}");
        assert_eq!(names.last(), Some(&"FIXTURE_PID_FILE"), "{contract_env}");
        let values = contract_env["values"].as_object().expect("env.values");
        assert!(values.values().all(|v| v == "<redacted>"), "{contract_env}");
    }
    let singles = single_verdicts(&TWENTY, "5000");
    assert_matches_single_runs(&results, &servers, &singles);
    // sweep-report reads each of these lines, typed, with every column it shows.
    assert_reads_back_typed(&out);
}

#[test]
fn a_sweep_killed_mid_way_resumes_without_losing_or_repeating_a_server() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pid_file = dir.path().join("pids");
    let names = [
        "clean",
        "tools_list_never_answers",
        "crash_on_tools_list",
        "banner_before_initialize",
        "ignores_stdin_close",
        "huge_line",
        "clean",
        "duplicate_tool_names",
        "never_answers_initialize",
        "invalid_utf8",
        "clean",
        "stderr_flood",
    ];
    let servers = servers(&names);
    let mut entries: Vec<Value> = servers.iter().map(|s| entry(s, &pid_file)).collect();
    entries.push(json!({"id": "needs-token", "command": ["x"], "env": {"API_TOKEN": null}}));
    entries.push(json!({"server": {"name": "io.example/remote", "version": "2.0.0", "remotes": [{"type": "streamable-http", "url": "https://example.com/mcp"}]}}));
    let manifest = write_manifest(dir.path(), &entries);
    let out = dir.path().join("results.jsonl");
    let args = [
        manifest.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
        "--jobs",
        "2",
        "--timeout",
        "5000",
    ];
    // A temporary directory of its own: another sweep starting on this machine between the
    // kill and the resume would otherwise clean up the killed sweep's sandboxes first.
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).expect("tmp");
    let mut child = mcpcheck()
        .arg("sweep")
        .args(args)
        .env("TMPDIR", &tmp)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start sweep");
    let deadline = Instant::now() + Duration::from_secs(120);
    while complete_lines(&out).lines().count() < 6 {
        assert!(Instant::now() < deadline, "the sweep wrote too few lines");
        assert!(
            child.try_wait().expect("poll").is_none(),
            "the sweep ended before the kill"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let killed = child.id();
    child.kill().expect("SIGKILL");
    child.wait().expect("reap");
    // A SIGKILLed sweep cannot remove the sandboxes of the servers it was running.
    let left = sandboxes_of(&tmp, killed).len();
    assert!(left > 0, "no sandbox was in use at the kill");
    let before = complete_lines(&out);
    let kept = before.lines().count();
    assert!(
        kept < entries.len(),
        "killed too late to test resuming: {kept} lines"
    );

    let resumed = mcpcheck()
        .arg("sweep")
        .args([&args[..], &["--resume"]].concat())
        .env("TMPDIR", &tmp)
        .output()
        .expect("resume the sweep");
    let stdout = String::from_utf8_lossy(&resumed.stdout);
    let stderr = String::from_utf8_lossy(&resumed.stderr);
    assert_eq!(resumed.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stderr.contains(&format!(
            "{} to check, {kept} already in",
            entries.len() - kept
        )),
        "{stderr}"
    );
    // Exactly the killed sweep's: nothing else uses this temporary directory.
    let removed: usize = stderr
        .split("mcpcheck sweep: removed ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no clean-up line in: {stderr}"));
    assert_eq!(removed, left, "{stderr}");
    assert_eq!(sandboxes_of(&tmp, killed), Vec::<std::path::PathBuf>::new());

    let after = std::fs::read_to_string(&out).expect("results");
    assert!(
        after.starts_with(&before),
        "lines written before the kill were changed"
    );
    let results = lines(&out);
    let mut expected: Vec<String> = servers.iter().map(|s| s.id.clone()).collect();
    expected.extend([
        "needs-token".to_string(),
        "io.example/remote@2.0.0".to_string(),
    ]);
    expected.sort();
    assert_eq!(
        ids(&results),
        expected,
        "every entry exactly once after the resume"
    );
    let singles = single_verdicts(&names, "5000");
    assert_matches_single_runs(&results, &servers, &singles);
    let status = |id: &str| {
        results
            .iter()
            .find(|l| l["id"] == id)
            .map(|l| l["status"].clone())
    };
    assert_eq!(status("needs-token"), Some(json!("needs-configuration")));
    assert_eq!(status("io.example/remote@2.0.0"), Some(json!("not-asked")));

    // Clean-up, not an assertion: a SIGKILLed sweep cannot stop a server that ignores EOF.
    for pid in survivors(&pid_file, Duration::ZERO) {
        let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
    }
}

#[test]
fn each_server_gets_a_private_home_and_cwd_and_none_of_mcpchecks_secrets() {
    let dir = tempfile::tempdir().expect("tempdir");
    let env_file = dir.path().join("env.jsonl");
    let own_cwd = dir.path().join("own-cwd");
    std::fs::create_dir(&own_cwd).expect("cwd");
    let probe = |id: &str, cwd: Option<&Path>| {
        let mut e = json!({
            "id": id,
            "command": [python_executable(), fixture("reports_environment")],
            "env": {"FIXTURE_ENV_FILE": env_file.display().to_string(), "ENTRY_VALUE": "from-the-entry-0123"},
        });
        if let Some(c) = cwd {
            e["cwd"] = json!(c.display().to_string());
        }
        e
    };
    let manifest = write_manifest(
        dir.path(),
        &[
            probe("a", None),
            probe("b", None),
            probe("own", Some(&own_cwd)),
        ],
    );
    let out = dir.path().join("r.jsonl");
    let run = mcpcheck()
        .env("SWEEP_TEST_SECRET", "do-not-leak-4567")
        .args([
            "sweep",
            manifest.to_str().expect("utf-8"),
            "--out",
            out.to_str().expect("utf-8"),
            "--jobs",
            "3",
        ])
        .output()
        .expect("sweep");
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let seen: Vec<Value> = json_lines(&env_file);
    assert_eq!(seen.len(), 3);
    let real_home = std::env::var("HOME").unwrap_or_default();
    let mut homes = Vec::new();
    for s in &seen {
        let home = s["home"].as_str().expect("HOME");
        assert_ne!(home, real_home);
        assert!(
            home.contains("mcpcheck-sweep-") && home.ends_with("/home"),
            "{home}"
        );
        assert!(
            !Path::new(home).exists(),
            "the temporary HOME is removed afterwards"
        );
        let sandbox = Path::new(home).parent().expect("sandbox");
        assert_eq!(s["tmpdir"].as_str(), sandbox.join("tmp").to_str());
        let names: Vec<&str> = s["names"]
            .as_array()
            .expect("names")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert!(!names.contains(&"SWEEP_TEST_SECRET"), "{names:?}");
        assert!(names.contains(&"PATH"));
        assert_eq!(s["entryValue"], "from-the-entry-0123");
        homes.push(home.to_string());
    }
    homes.sort();
    homes.dedup();
    assert_eq!(homes.len(), 3, "one HOME per server");
    let cwds: Vec<&str> = seen.iter().filter_map(|s| s["cwd"].as_str()).collect();
    assert!(
        cwds.contains(
            &own_cwd
                .canonicalize()
                .expect("cwd")
                .to_str()
                .expect("utf-8")
        ),
        "{cwds:?}"
    );
    assert_eq!(
        cwds.iter()
            .filter(|c| c.contains("mcpcheck-sweep-") && c.ends_with("/work"))
            .count(),
        2,
        "{cwds:?}"
    );
    let text = std::fs::read_to_string(&out).expect("results");
    assert!(!text.contains("from-the-entry-0123") && !text.contains("do-not-leak-4567"));
    for line in lines(&out) {
        assert_eq!(line["status"], "pass", "{line}");
    }
}

#[test]
fn setup_runs_first_in_the_same_sandbox_and_a_failed_one_is_reported_without_secrets() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ok = json!({
        "id": "built",
        "setup": ["sh", "-c", "echo ready > marker"],
        "command": ["sh", "-c", format!("test -f marker && exec {} {}", python_executable(), fixture("clean"))],
    });
    let failing = json!({
        "id": "broken-build",
        "setup": ["sh", "-c", "echo \"token is $API_TOKEN\" >&2; exit 3"],
        "command": [python_executable(), fixture("clean")],
        "env": {"API_TOKEN": "s3cr3t-token-value"},
    });
    let manifest = write_manifest(dir.path(), &[ok, failing]);
    let out = dir.path().join("r.jsonl");
    let run = sweep(&[
        manifest.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let results = lines(&out);
    let built = results.iter().find(|l| l["id"] == "built").expect("built");
    assert_eq!(built["status"], "pass", "{built}");
    assert_eq!(built["setup"]["ok"], true);
    assert_eq!(built["setup"]["exitCode"], 0);
    let broken = results
        .iter()
        .find(|l| l["id"] == "broken-build")
        .expect("broken");
    assert_eq!(broken["status"], "setup-failed");
    assert_eq!(broken["setup"]["exitCode"], 3);
    assert_eq!(broken["setup"]["timedOut"], false);
    // The line break as it was (JSON escapes it once), not an escaped `\\n`.
    assert_eq!(broken["setup"]["outputTail"], "token is ${API_TOKEN}\n");
    assert!(
        broken.get("summary").is_none(),
        "the server was not started"
    );
    assert!(!std::fs::read_to_string(&out)
        .expect("results")
        .contains("s3cr3t-token-value"));
    assert_reads_back_typed(&out);
}

#[test]
fn sigterm_stops_the_sweep_kills_its_servers_and_a_resume_finishes_the_rest() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pid_file = dir.path().join("pids");
    let names = [
        "clean",
        "never_answers_initialize",
        "tools_list_never_answers",
        "forks_child",
        "clean",
    ];
    let servers = servers(&names);
    let manifest = write_manifest(
        dir.path(),
        &servers
            .iter()
            .map(|s| entry(s, &pid_file))
            .collect::<Vec<_>>(),
    );
    let out = dir.path().join("r.jsonl");
    let args = [
        manifest.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
        "--jobs",
        "5",
    ];
    let child = mcpcheck()
        .arg("sweep")
        .args(args)
        .args(["--timeout", "20000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start sweep");
    // The quick servers finish long before the 20 s timeouts of the hanging ones.
    let quick = ["clean", "clean-2", "forks_child"];
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let done: Vec<String> = complete_lines(&out)
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter_map(|v| v["id"].as_str().map(str::to_string))
            .collect();
        if quick.iter().all(|q| done.iter().any(|d| d == q)) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the quick servers never finished: {done:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = child.id().to_string();
    Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill");
    let output = child.wait_with_output().expect("wait");
    assert_eq!(output.status.code(), Some(143));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("stopped by SIGTERM; rerun with --resume to finish"),
        "{stderr}"
    );
    assert_eq!(
        ids(&lines(&out)),
        ["clean", "clean-2", "forks_child"],
        "the hanging servers had no result yet"
    );
    assert_no_survivors(&pid_file);

    let resumed = sweep(&[&args[..], &["--resume", "--timeout", "1000"]].concat()[..]);
    assert_eq!(
        resumed.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    let mut all: Vec<String> = servers.iter().map(|s| s.id.clone()).collect();
    all.sort();
    assert_eq!(ids(&lines(&out)), all);
    assert_no_survivors(&pid_file);
}
