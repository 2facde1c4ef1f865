//! `mcpcheck sweep`: many real fixture servers at once, kill and resume, shards, sandboxing.

mod common;

use common::{fixture, mcpcheck, survivors};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The real interpreter behind `python3` (a version-manager shim costs a second per start).
fn python() -> &'static str {
    static PATH: OnceLock<String> = OnceLock::new();
    PATH.get_or_init(|| {
        let out = Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .expect("python3");
        String::from_utf8(out.stdout)
            .expect("utf-8")
            .trim()
            .to_string()
    })
}

/// The id of a fixture entry, and the fixture it runs.
struct Server {
    id: String,
    fixture: &'static str,
}

fn servers(names: &[&'static str]) -> Vec<Server> {
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    names
        .iter()
        .map(|&name| {
            let n = seen.entry(name).or_default();
            *n += 1;
            Server {
                id: if *n == 1 {
                    name.to_string()
                } else {
                    format!("{name}-{n}")
                },
                fixture: name,
            }
        })
        .collect()
}

fn entry(s: &Server, pid_file: &Path) -> Value {
    json!({
        "id": s.id,
        "command": [python(), fixture(s.fixture)],
        "env": {"FIXTURE_PID_FILE": pid_file.display().to_string()},
    })
}

fn write_manifest(dir: &Path, entries: &[Value]) -> PathBuf {
    let path = dir.join("manifest.json");
    std::fs::write(&path, serde_json::to_string_pretty(&entries).expect("json")).expect("manifest");
    path
}

fn sweep(args: &[&str]) -> Output {
    mcpcheck()
        .arg("sweep")
        .args(args)
        .output()
        .expect("run sweep")
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("results")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

fn ids(lines: &[Value]) -> Vec<String> {
    let mut ids: Vec<String> = lines
        .iter()
        .map(|l| l["id"].as_str().expect("id").to_string())
        .collect();
    ids.sort();
    ids
}

/// (status, sorted (code, severity) pairs): what must match between a sweep and single runs.
type Verdict = (String, Vec<(String, String)>);

fn verdict(doc: &Value) -> Verdict {
    let mut issues: Vec<(String, String)> = doc["issues"]
        .as_array()
        .expect("issues")
        .iter()
        .map(|i| {
            (
                i["code"].as_str().expect("code").into(),
                i["severity"].as_str().expect("severity").into(),
            )
        })
        .collect();
    issues.sort();
    (
        doc["summary"]["status"]
            .as_str()
            .expect("status")
            .to_string(),
        issues,
    )
}

/// Single `mcpcheck guard` runs of each fixture, a few at a time.
fn single_verdicts(fixtures: &[&'static str], timeout: &str) -> BTreeMap<&'static str, Verdict> {
    let mut unique = fixtures.to_vec();
    unique.sort();
    unique.dedup();
    let mut out = BTreeMap::new();
    for chunk in unique.chunks(4) {
        std::thread::scope(|scope| {
            let handles: Vec<_> = chunk
                .iter()
                .map(|&name| {
                    scope.spawn(move || {
                        let r = common::guard(&["--timeout", timeout], &[python(), &fixture(name)]);
                        (name, verdict(&r.json))
                    })
                })
                .collect();
            for h in handles {
                let (name, v) = h.join().expect("thread");
                out.insert(name, v);
            }
        });
    }
    out
}

fn assert_matches_single_runs(
    results: &[Value],
    servers: &[Server],
    singles: &BTreeMap<&str, Verdict>,
) {
    for s in servers {
        let line = results
            .iter()
            .find(|l| l["id"] == s.id.as_str())
            .expect("a line per server");
        assert_eq!(line["status"], line["summary"]["status"], "{}", s.id);
        assert_eq!(
            &verdict(line),
            &singles[s.fixture],
            "{}: sweep and single run disagree",
            s.id
        );
    }
}

fn assert_no_survivors(pid_file: &Path) {
    let left = survivors(pid_file, Duration::from_secs(5));
    assert!(left.is_empty(), "processes outlived the sweep: {left:?}");
}

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
    assert!(stdout.starts_with("sweep: 20 server(s) in "), "{stdout}");
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
        // The entry's variable is named in the fingerprint, its value never.
        assert_eq!(
            line["fingerprint"]["env"],
            json!(["FIXTURE_PID_FILE=[REDACTED]"])
        );
    }
    let singles = single_verdicts(&TWENTY, "5000");
    assert_matches_single_runs(&results, &servers, &singles);
}

/// Complete lines of a results file that is being written.
fn complete_lines(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    match text.rfind('\n') {
        Some(i) => text[..=i].to_string(),
        None => String::new(),
    }
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
    let mut child = mcpcheck()
        .arg("sweep")
        .args(args)
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
    child.kill().expect("SIGKILL");
    child.wait().expect("reap");
    let before = complete_lines(&out);
    let kept = before.lines().count();
    assert!(
        kept < entries.len(),
        "killed too late to test resuming: {kept} lines"
    );

    let resumed = sweep(&[&args[..], &["--resume"]].concat());
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

/// 64-bit FNV-1a, written out again here so a change to the sweep's hash fails this test.
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

#[test]
fn three_shards_cover_the_manifest_exactly_once_and_merge_into_one_report() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pid_file = dir.path().join("pids");
    let mut entries = Vec::new();
    let mut all_ids = Vec::new();
    for n in 0..6 {
        let s = Server {
            id: format!("clean-{n}"),
            fixture: "clean",
        };
        entries.push(entry(&s, &pid_file));
        all_ids.push(s.id);
    }
    for n in 0..24 {
        let id = format!("needs-config-{n}");
        entries.push(json!({"id": id, "command": ["x"], "env": {"SECRET": null}}));
        all_ids.push(id);
    }
    all_ids.sort();
    let manifest = write_manifest(dir.path(), &entries);
    let mut files = Vec::new();
    for i in 1..=3u64 {
        let out = dir.path().join(format!("shard-{i}.jsonl"));
        let run = sweep(&[
            manifest.to_str().expect("utf-8"),
            "--out",
            out.to_str().expect("utf-8"),
            "--shard",
            &format!("{i}/3"),
            "--jobs",
            "3",
        ]);
        assert_eq!(
            run.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        assert!(String::from_utf8_lossy(&run.stdout).contains(&format!("shard {i}/3")));
        let got = ids(&lines(&out));
        let mut want: Vec<String> = all_ids
            .iter()
            .filter(|id| fnv1a64(id.as_bytes()) % 3 == i - 1)
            .cloned()
            .collect();
        want.sort();
        assert_eq!(got, want, "shard {i}/3 holds exactly its hash share");
        files.push(out);
    }
    assert_no_survivors(&pid_file);
    let report = mcpcheck()
        .arg("sweep-report")
        .args(&files)
        .args(["--format", "json"])
        .output()
        .expect("sweep-report");
    assert_eq!(report.status.code(), Some(0));
    let doc: Value = serde_json::from_slice(&report.stdout).expect("JSON report");
    let mut merged: Vec<String> = doc["servers"]
        .as_array()
        .expect("servers")
        .iter()
        .map(|s| s["id"].as_str().expect("id").to_string())
        .collect();
    merged.sort();
    assert_eq!(merged, all_ids, "the merged report has every id once");
    assert_eq!(doc["totals"]["servers"], 30);
    assert_eq!(
        doc["totals"]["statuses"],
        json!({"pass": 6, "needs-configuration": 24})
    );
    assert_eq!(doc["totals"]["duplicatesReplaced"], 0);
    assert_eq!(doc["timing"]["count"], 6);
    assert_eq!(doc["files"].as_array().expect("files").len(), 3);
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
            "command": [python(), fixture("reports_environment")],
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
    let seen: Vec<Value> = lines(&env_file);
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
        "command": ["sh", "-c", format!("test -f marker && exec {} {}", python(), fixture("clean"))],
    });
    let failing = json!({
        "id": "broken-build",
        "setup": ["sh", "-c", "echo \"token is $API_TOKEN\" >&2; exit 3"],
        "command": [python(), fixture("clean")],
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
    assert_eq!(broken["setup"]["outputTail"], "token is [REDACTED]\\n");
    assert!(
        broken.get("summary").is_none(),
        "the server was not started"
    );
    assert!(!std::fs::read_to_string(&out)
        .expect("results")
        .contains("s3cr3t-token-value"));
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

#[test]
fn registry_entries_needing_values_or_remote_only_are_recorded_not_started() {
    let dir = tempfile::tempdir().expect("tempdir");
    let manifest = dir.path().join("servers.jsonl");
    std::fs::write(
        &manifest,
        concat!(
            r#"{"name":"io.github.example/weather","version":"0.5.0","packages":[{"registryType":"pypi","identifier":"weather-mcp","version":"0.5.0","runtimeHint":"uvx","transport":{"type":"stdio"},"environmentVariables":[{"name":"WEATHER_API_KEY","isRequired":true,"isSecret":true},{"name":"UNITS","default":"celsius"}]}]}"#,
            "\n",
            r#"{"name":"io.github.example/hosted","version":"1.0.0","remotes":[{"type":"sse","url":"https://example.com/sse"}]}"#,
            "\n",
        ),
    )
    .expect("manifest");
    let out = dir.path().join("r.jsonl");
    let run = sweep(&[
        manifest.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(run.status.code(), Some(0));
    let results = lines(&out);
    let weather = results
        .iter()
        .find(|l| l["id"] == "io.github.example/weather@0.5.0")
        .expect("weather");
    assert_eq!(weather["status"], "needs-configuration");
    assert_eq!(weather["missing"], json!(["WEATHER_API_KEY (secret)"]));
    let hosted = results
        .iter()
        .find(|l| l["id"] == "io.github.example/hosted@1.0.0")
        .expect("hosted");
    assert_eq!(hosted["status"], "not-asked");
    assert_eq!(
        hosted["reason"],
        "remote-only server (sse); mcpcheck sweeps servers it can start over stdio"
    );
}

/// Exit code 2 and exactly one line on stderr.
fn assert_usage_error(out: &Output, expected: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains(expected), "{stderr}");
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let manifest = write_manifest(
        dir.path(),
        &[
            json!({"id": "a", "command": ["x"]}),
            json!({"id": "a", "command": ["y"]}),
        ],
    );
    let out = dir.path().join("r.jsonl");
    let m = manifest.to_str().expect("utf-8");
    let o = out.to_str().expect("utf-8");
    assert_usage_error(
        &sweep(&[m, "--out", o]),
        "id \"a\" appears at entry 1 and again at entry 2",
    );
    let good = write_manifest(
        dir.path(),
        &[json!({"id": "a", "command": ["x"], "env": {"K": null}})],
    );
    let g = good.to_str().expect("utf-8");
    assert_usage_error(
        &sweep(&[g, "--out", o, "--shard", "4/3"]),
        "--shard \"4/3\": expected I/N",
    );
    assert_usage_error(
        &sweep(&[g, "--out", o, "--jobs", "0"]),
        "--jobs 0: give 1 to 256",
    );
    assert_usage_error(
        &sweep(&[g, "--out", o, "--profile", "fast"]),
        "unknown profile \"fast\"",
    );
    assert_usage_error(
        &sweep(&[g, "--out", o, "--timeout", "0"]),
        "--timeout must be at least 1 ms",
    );
    assert_usage_error(
        &sweep(&[g, "--out", "/nonexistent/dir/r.jsonl"]),
        "the directory does not exist",
    );
    assert_usage_error(
        &sweep(&[
            &dir.path().join("missing.json").display().to_string(),
            "--out",
            o,
        ]),
        "cannot read it",
    );
    assert_eq!(sweep(&[g, "--out", o]).status.code(), Some(0));
    assert_usage_error(
        &sweep(&[g, "--out", o]),
        "already has results; add --resume",
    );
    let report = |args: &[&str]| {
        mcpcheck()
            .arg("sweep-report")
            .args(args)
            .output()
            .expect("sweep-report")
    };
    assert_usage_error(
        &report(&[o, "--format", "sarif"]),
        "--format sarif is not available in this build",
    );
    assert_usage_error(
        &report(&["/nonexistent.jsonl"]),
        "results /nonexistent.jsonl: cannot read it",
    );
}

/// Markdown with every code span removed: what a renderer would treat as live syntax.
fn outside_code_spans(markdown: &str) -> String {
    let mut out = String::new();
    let mut rest = markdown;
    while let Some(start) = rest.find('`') {
        out.push_str(&rest[..start]);
        let fence_len = rest[start..].chars().take_while(|&c| c == '`').count();
        let fence = "`".repeat(fence_len);
        let after = &rest[start + fence_len..];
        match after.find(&fence) {
            Some(end) => rest = &after[end + fence_len..],
            None => panic!("unclosed code span in: {after}"),
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn the_markdown_report_keeps_hostile_text_inert() {
    let dir = tempfile::tempdir().expect("tempdir");
    let results = dir.path().join("r.jsonl");
    let hostile = "<img src=x onerror=alert(1)> @octocat [c](https://evil.example) ![i](https://evil.example/i.png) | `t` **bold**";
    let line = json!({
        "id": hostile, "status": "fail", "startedAt": "2026-01-01T00:00:00.000Z", "wallMs": 1200,
        "summary": {"status": "fail", "primaryIssueCode": "stdout-non-json", "issueClass": "stdioTransport", "issueCounts": {"error": 1, "warning": 0}},
        "serverInfo": {"name": hostile},
        "command": ["node", hostile],
        "issues": [{"code": "stdout-non-json", "severity": "error", "class": "stdioTransport", "message": hostile}],
    });
    std::fs::write(&results, format!("{line}\n")).expect("results");
    let out = mcpcheck()
        .args([
            "sweep-report",
            results.to_str().expect("utf-8"),
            "--format",
            "markdown",
        ])
        .output()
        .expect("report");
    assert_eq!(out.status.code(), Some(0));
    let md = String::from_utf8(out.stdout).expect("utf-8");
    assert!(md.contains("| 1 | `fail` | ``<img src=x onerror=alert(1)> @octocat [c](https://evil.example) ![i](https://evil.example/i.png) \\| `t` **bold**`` | `stdout-non-json` | 1.2 s | [details](#server-1) |"), "{md}");
    let live = outside_code_spans(&md);
    for needle in ["<img", "@octocat", "evil.example", "**bold**"] {
        assert!(!live.contains(needle), "{needle} is live in:\n{live}");
    }
    assert!(md.contains("\n#### server-1\n"));
    let human = mcpcheck()
        .args(["sweep-report", results.to_str().expect("utf-8")])
        .output()
        .expect("report");
    let text = String::from_utf8(human.stdout).expect("utf-8");
    assert!(
        text.starts_with("mcpcheck sweep-report: 1 server(s) from 1 file(s)\n  fail 1\n"),
        "{text}"
    );
    assert!(text.contains("stdout-non-json"), "{text}");
}
