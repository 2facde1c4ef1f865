//! `mcpcheck action` in an emulated runner: a temporary GITHUB_WORKSPACE holding a fixture
//! server, temp files for GITHUB_STEP_SUMMARY and GITHUB_OUTPUT, a pull_request event, and
//! a local HTTP server standing in for the GitHub REST API (issue comments).

use crate::support;

use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use support::github::stray_commands;
use support::markdown::active_forms;
use support::sarif::validate_sarif;
use support::workspace::{Workspace, PYPROJECT};
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

const PR: u64 = 7;
const SHA: &str = "0123456789abcdef0123456789abcdef01234567";
const MARKER: &str = "<!-- mcpcheck:sticky-comment -->";

/// A stored comment: id, body, author login, author type.
type StoredComment = (u64, String, &'static str, &'static str);

/// The issue-comments API of one pull request, in memory. `read_only` answers writes with
/// 403 as GitHub does for GITHUB_TOKEN on a fork's pull request.
#[derive(Clone, Default)]
struct FakeGitHub {
    comments: Arc<Mutex<Vec<StoredComment>>>,
    read_only: bool,
}

fn user(login: &str, kind: &str) -> Value {
    let u = format!("https://api.github.com/users/{login}");
    json!({
        "login": login, "id": 41898282, "node_id": "MDM6Qm90NDE4OTgyODI=",
        "avatar_url": "https://avatars.githubusercontent.com/in/15368?v=4", "gravatar_id": "",
        "url": u, "html_url": format!("https://github.com/{login}"),
        "followers_url": format!("{u}/followers"), "following_url": format!("{u}/following"),
        "gists_url": format!("{u}/gists"), "starred_url": format!("{u}/starred"),
        "subscriptions_url": format!("{u}/subscriptions"), "organizations_url": format!("{u}/orgs"),
        "repos_url": format!("{u}/repos"), "events_url": format!("{u}/events"),
        "received_events_url": format!("{u}/received_events"), "type": kind, "site_admin": false
    })
}

fn comment(id: u64, body: &str, login: &str, kind: &str) -> Value {
    json!({
        "id": id, "node_id": format!("IC_{id}"),
        "url": format!("https://api.github.com/repos/o/r/issues/comments/{id}"),
        "html_url": format!("https://github.com/o/r/pull/{PR}#issuecomment-{id}"),
        "issue_url": format!("https://api.github.com/repos/o/r/issues/{PR}"),
        "body": body, "user": user(login, kind), "author_association": "NONE",
        "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"
    })
}

impl Respond for FakeGitHub {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let forbidden = ResponseTemplate::new(403).set_body_json(json!({
            "message": "Resource not accessible by integration",
            "documentation_url": "https://docs.github.com/rest"
        }));
        let path = req.url.path().to_string();
        let method = req.method.as_str().to_string();
        let body = || {
            serde_json::from_slice::<Value>(&req.body).expect("JSON body")["body"]
                .as_str()
                .expect("body")
                .to_string()
        };
        let mut comments = self.comments.lock().expect("lock");
        match (method.as_str(), path.as_str()) {
            // GITHUB_TOKEN is an installation token: it has no user.
            ("GET", "/user") => forbidden,
            ("GET", p) if p == format!("/repos/o/r/issues/{PR}/comments") => {
                let list: Vec<Value> = comments
                    .iter()
                    .map(|(id, b, l, k)| comment(*id, b, l, k))
                    .collect();
                ResponseTemplate::new(200).set_body_json(list)
            }
            _ if self.read_only => forbidden,
            ("POST", p) if p == format!("/repos/o/r/issues/{PR}/comments") => {
                let id = 1000 + comments.len() as u64;
                comments.push((id, body(), "github-actions[bot]", "Bot"));
                ResponseTemplate::new(201).set_body_json(comment(
                    id,
                    &body(),
                    "github-actions[bot]",
                    "Bot",
                ))
            }
            ("POST" | "PATCH", p) if p.starts_with("/repos/o/r/issues/comments/") => {
                let id: u64 = p
                    .rsplit('/')
                    .next()
                    .and_then(|s| s.parse().ok())
                    .expect("id");
                match comments.iter_mut().find(|c| c.0 == id) {
                    Some(c) => {
                        c.1 = body();
                        ResponseTemplate::new(200).set_body_json(comment(id, &c.1, c.2, c.3))
                    }
                    None => {
                        ResponseTemplate::new(404).set_body_json(json!({"message": "Not Found"}))
                    }
                }
            }
            _ => ResponseTemplate::new(404).set_body_json(json!({"message": "Not Found"})),
        }
    }
}

async fn github(fake: FakeGitHub) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(any()).respond_with(fake).mount(&server).await;
    server
}

/// One emulated runner: a workspace, the runner's files, and the inputs.
struct Runner {
    ws: Workspace,
    files: tempfile::TempDir,
    env: HashMap<String, String>,
}

struct Step {
    exit: i32,
    log: String,
    stderr: String,
    summary: String,
    outputs: HashMap<String, String>,
}

impl Runner {
    fn new(server: &str, api: Option<&MockServer>) -> Self {
        let ws = Workspace::new(server, Some(("pyproject.toml", PYPROJECT)));
        let files = tempfile::tempdir().expect("runner files");
        let event = files.path().join("event.json");
        std::fs::write(
            &event,
            json!({"action": "synchronize", "number": PR, "pull_request": {"number": PR}})
                .to_string(),
        )
        .expect("event");
        let mut env = HashMap::new();
        let mut set = |k: &str, v: String| {
            env.insert(k.to_string(), v);
        };
        set("GITHUB_ACTIONS", "true".into());
        set("GITHUB_WORKSPACE", ws.path().display().to_string());
        set(
            "GITHUB_STEP_SUMMARY",
            files.path().join("summary.md").display().to_string(),
        );
        set(
            "GITHUB_OUTPUT",
            files.path().join("output").display().to_string(),
        );
        set("GITHUB_EVENT_PATH", event.display().to_string());
        set("GITHUB_EVENT_NAME", "pull_request".into());
        set("GITHUB_REPOSITORY", "o/r".into());
        set("GITHUB_SHA", SHA.into());
        set("GITHUB_SERVER_URL", "https://github.com".into());
        if let Some(api) = api {
            set("GITHUB_API_URL", api.uri());
        }
        set("INPUT_COMMAND", format!("python3 {server}.py"));
        set(
            "INPUT_GITHUB_TOKEN",
            "ghs_0000000000000000000000000000000000".into(),
        );
        // Inputs left empty are unset, as the runner passes them.
        set("INPUT_CONFIG", String::new());
        set("INPUT_FAIL_ON", String::new());
        Self { ws, files, env }
    }

    fn input(&mut self, name: &str, value: &str) -> &mut Self {
        self.env.insert(
            format!("INPUT_{}", name.to_ascii_uppercase()),
            value.to_string(),
        );
        self
    }

    async fn run(&self) -> Step {
        let mut cmd = support::mcpcheck();
        cmd.current_dir(self.ws.path())
            .arg("action")
            .envs(&self.env);
        let out = tokio::task::spawn_blocking(move || cmd.output().expect("run mcpcheck action"))
            .await
            .expect("join");
        let read =
            |name: &str| std::fs::read_to_string(self.files.path().join(name)).unwrap_or_default();
        let outputs = read("output")
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Step {
            exit: out.status.code().expect("exit code"),
            log: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            summary: read("summary.md"),
            outputs,
        }
    }

    fn sarif(&self) -> PathBuf {
        self.ws.path().join("mcpcheck.sarif")
    }
}

fn requests_to(received: &[Request], method: &str, path: &str) -> usize {
    received
        .iter()
        .filter(|r| r.method.as_str() == method && r.url.path() == path)
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn first_run_creates_the_comment_and_the_second_updates_it() {
    let fake = FakeGitHub::default();
    // A person quoting the marker: their comment is never taken for ours.
    fake.comments
        .lock()
        .expect("lock")
        .push((1, format!("{MARKER} quoted"), "octocat", "User"));
    let api = github(fake.clone()).await;
    let runner = Runner::new("banner_before_initialize", Some(&api));

    let first = runner.run().await;
    assert_eq!(
        first.exit, 1,
        "findings fail the step:\n{}{}",
        first.log, first.stderr
    );
    let doc = validate_sarif(&std::fs::read_to_string(runner.sarif()).expect("SARIF file"));
    support::sarif::assert_uris_are_workspace_files(&doc, runner.ws.path());
    assert_eq!(doc["runs"][0]["automationDetails"]["id"], "mcpcheck/");
    assert_eq!(
        doc["runs"][0]["versionControlProvenance"][0]["revisionId"],
        SHA
    );
    let found: Vec<(&str, &str)> = doc["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            (
                r["ruleId"].as_str().expect("id"),
                r["level"].as_str().expect("level"),
            )
        })
        .collect();
    assert_eq!(found, [("stdout-non-json", "error")]);

    assert_eq!(first.outputs["status"], "fail");
    assert_eq!(first.outputs["ok"], "false");
    assert_eq!(first.outputs["errors"], "1");
    assert_eq!(first.outputs["warnings"], "0");
    assert_eq!(first.outputs["sarif-file"], "mcpcheck.sarif");

    assert!(
        first.summary.starts_with("## ❌ mcpcheck guard: FAIL"),
        "{}",
        first.summary
    );
    assert!(first.summary.contains("stdout-non-json"));
    assert!(
        first.summary.contains(&format!(
            "(https://github.com/o/r/blob/{SHA}/pyproject.toml)"
        )),
        "anchor linked at the commit:\n{}",
        first.summary
    );
    assert!(first
        .summary
        .contains("mcpcheck guard -- python3 banner_before_initialize.py"));
    assert!(first.log.contains(
        "::error file=pyproject.toml,line=1,title=mcpcheck stdout-non-json::1 line on stdout is not JSON"
    ), "{}", first.log);
    assert_eq!(stray_commands(&first.log), Vec::<String>::new());

    let received = api.received_requests().await.expect("recorded");
    assert_eq!(
        requests_to(
            &received,
            "POST",
            &format!("/repos/o/r/issues/{PR}/comments")
        ),
        1
    );
    let auth = received[0]
        .headers
        .get("authorization")
        .expect("authorization header");
    assert!(auth
        .to_str()
        .expect("ascii")
        .ends_with("ghs_0000000000000000000000000000000000"));
    let (ours, body) = {
        let comments = fake.comments.lock().expect("lock");
        assert_eq!(comments.len(), 2);
        (comments[1].0, comments[1].1.clone())
    };
    assert!(body.starts_with(MARKER), "{body}");
    assert!(body.chars().count() < 65_536);
    assert!(
        first
            .log
            .contains(&format!("created pull-request comment {ours}")),
        "{}",
        first.log
    );

    let second = runner.run().await;
    assert_eq!(second.exit, 1);
    let received = api.received_requests().await.expect("recorded");
    assert_eq!(
        requests_to(
            &received,
            "POST",
            &format!("/repos/o/r/issues/{PR}/comments")
        ),
        1,
        "the second run must not add a comment"
    );
    assert_eq!(
        requests_to(
            &received,
            "POST",
            &format!("/repos/o/r/issues/comments/{ours}")
        ),
        1
    );
    assert_eq!(
        requests_to(&received, "POST", "/repos/o/r/issues/comments/1"),
        0
    );
    let comments = fake.comments.lock().expect("lock");
    assert_eq!(comments.len(), 2);
    assert_eq!(
        comments[0].1,
        format!("{MARKER} quoted"),
        "the person's comment is untouched"
    );
    assert!(second
        .log
        .contains(&format!("updated pull-request comment {ours}")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_token_degrades_to_a_warning() {
    let api = github(FakeGitHub {
        read_only: true,
        ..FakeGitHub::default()
    })
    .await;
    let runner = Runner::new("clean", Some(&api));
    let step = runner.run().await;
    assert_eq!(
        step.exit, 0,
        "a comment that cannot be posted is not a failure:\n{}{}",
        step.log, step.stderr
    );
    assert!(
        step.log.contains("::warning title=mcpcheck::the pull-request comment was not posted: the token may not write comments (HTTP 403"),
        "{}",
        step.log
    );
    assert!(step.summary.contains("HTTP 403"), "{}", step.summary);
    assert!(step.summary.starts_with("## ✅ mcpcheck guard: PASS"));
    assert_eq!(step.outputs["status"], "pass");
    assert_eq!(step.outputs["ok"], "true");
    validate_sarif(&std::fs::read_to_string(runner.sarif()).expect("SARIF"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_token_is_a_warning_and_comment_false_calls_no_api() {
    let api = github(FakeGitHub::default()).await;
    let mut runner = Runner::new("clean", Some(&api));
    runner.input("github_token", "");
    let step = runner.run().await;
    assert_eq!(step.exit, 0, "{}", step.log);
    assert!(step.log.contains(
        "::warning title=mcpcheck::the pull-request comment was not posted: no github_token input"
    ));
    assert!(
        step.summary.contains("no github\\_token input"),
        "{}",
        step.summary
    );

    runner
        .input("github_token", "ghs_x")
        .input("comment", "false")
        .input("summary", "false");
    std::fs::remove_file(runner.files.path().join("summary.md")).expect("reset summary");
    let step = runner.run().await;
    assert_eq!(step.exit, 0);
    assert!(api.received_requests().await.expect("recorded").is_empty());
    assert!(step.summary.is_empty(), "summary: false writes nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_server_output_stays_inert_in_comment_summary_and_log() {
    let fake = FakeGitHub::default();
    let api = github(fake.clone()).await;
    let runner = Runner::new("hostile_output", Some(&api));
    let step = runner.run().await;
    assert_eq!(step.exit, 1, "{}{}", step.log, step.stderr);
    let comment = fake.comments.lock().expect("lock")[0].1.clone();
    for (name, text) in [("comment", &comment), ("summary", &step.summary)] {
        assert!(
            text.contains("octocat") && text.contains("pwned"),
            "{name} lacks the hostile text"
        );
        assert_eq!(active_forms(text), Vec::<String>::new(), "{name}:\n{text}");
    }
    // The server's lines appear in the log only inside a stop-commands block or escaped.
    assert!(step.log.contains("pwned"), "{}", step.log);
    assert_eq!(
        stray_commands(&step.log),
        Vec::<String>::new(),
        "{}",
        step.log
    );
    assert!(!step
        .log
        .lines()
        .any(|l| l.trim_start().starts_with("::error::pwned")));
    validate_sarif(&std::fs::read_to_string(runner.sarif()).expect("SARIF"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_scan_input_names_the_line_that_printed_stray_stdout() {
    // The fixture prints "late log line"; the source under `scan` has the write that would.
    let mut runner = Runner::new("late_stdout_write", None);
    let src = runner.ws.path().join("src");
    std::fs::create_dir_all(&src).expect("src");
    std::fs::write(
        src.join("logger.py"),
        "def usage():\n    print(\"usage: logger\")\n\n\ndef log(what):\n    print(f\"late {what} line\")\n",
    )
    .expect("source");
    runner.input("scan", "src").input("comment", "false");
    let step = runner.run().await;
    assert_eq!(step.exit, 1, "{}", step.log);
    let doc = validate_sarif(&std::fs::read_to_string(runner.sarif()).expect("SARIF"));
    let result = doc["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|r| r["ruleId"] == "stdout-non-json")
        .expect("a stdout-non-json result")
        .clone();
    let related = result["relatedLocations"].as_array().expect("related");
    assert_eq!(related.len(), 1, "{result:#}");
    let at = &related[0]["physicalLocation"];
    assert_eq!(at["artifactLocation"]["uri"], "src/logger.py");
    assert_eq!(at["region"]["startLine"], 6);
    assert_eq!(result["locations"][0]["physicalLocation"], *at);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_scan_input_nothing_is_said_of_a_scan_only_how_to_ask_for_one() {
    // Issue 44 item 2: without `scan`, the log and the summary said "printed by: no stdout
    // write in the scanned source prints this line" of a scan that never ran.
    let mut runner = Runner::new("late_stdout_write", None);
    runner.input("comment", "false");
    let step = runner.run().await;
    assert_eq!(step.exit, 1, "{}", step.log);
    for (name, text) in [("log", &step.log), ("summary", &step.summary)] {
        assert!(text.contains("stdout-non-json"), "{name}: {text}");
        assert!(!text.contains("scanned source"), "{name}: {text}");
        assert!(!text.contains("printed by"), "{name}: {text}");
        assert!(text.contains("add `scan: src`"), "{name}: {text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_banner_held_in_python_s_buffer_fails_the_step() {
    // Issue 44 item 1: the banner came at exit, after the session, and the step passed.
    let mut runner = Runner::new("banner_held_in_buffer", None);
    runner.input("comment", "false");
    let step = runner.run().await;
    assert_eq!(step.exit, 1, "{}", step.log);
    let doc = validate_sarif(&std::fs::read_to_string(runner.sarif()).expect("SARIF"));
    assert!(
        doc["runs"][0]["results"]
            .as_array()
            .expect("results")
            .iter()
            .any(|r| r["ruleId"] == "stdout-non-json"),
        "{doc:#}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_security_and_source_scans_run_on_their_inputs() {
    let mut runner = Runner::new("clean", None);
    let cursor = runner.ws.path().join(".cursor");
    std::fs::create_dir_all(&cursor).expect("dir");
    // A hard-coded token in a committed config: the scan's findings join the guard's.
    std::fs::write(
        cursor.join("mcp.json"),
        "{\n  \"mcpServers\": {\n    \"gh\": {\"command\": \"gh-mcp\", \"env\": {\"GITHUB_TOKEN\": \"ghp_abcdefghijklmnopqrstuvwxyz0123456789\"}}\n  }\n}\n",
    )
    .expect("config");
    // And a stdout write in the server's source: the source scan's finding joins them.
    let src = runner.ws.path().join("src");
    std::fs::create_dir_all(&src).expect("src");
    std::fs::write(src.join("server.js"), "// start\nconsole.log(\"ready\");\n").expect("source");
    runner
        .input("scan", "src")
        .input("paths", ".cursor/mcp.json")
        .input("comment", "false");
    let step = runner.run().await;
    assert_eq!(step.exit, 1, "{}", step.log);
    assert!(!step
        .log
        .contains("ghp_abcdefghijklmnopqrstuvwxyz0123456789"));
    assert!(!step
        .summary
        .contains("ghp_abcdefghijklmnopqrstuvwxyz0123456789"));
    let sarif = std::fs::read_to_string(runner.sarif()).expect("SARIF");
    assert!(!sarif.contains("ghp_abcdefghijklmnopqrstuvwxyz0123456789"));
    let doc = validate_sarif(&sarif);
    let secret = doc["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|r| r["ruleId"] == "hardcoded-secret")
        .expect("a hardcoded-secret result")
        .clone();
    let location = &secret["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], ".cursor/mcp.json");
    assert_eq!(location["region"]["startLine"], 3);
    let write = doc["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|r| r["ruleId"] == "static-stdout-write")
        .expect("a static-stdout-write result")
        .clone();
    let location = &write["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], "src/server.js");
    assert_eq!(location["region"]["startLine"], 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fail_on_decides_the_exit_code() {
    // A warning and nothing worse (tool-description-missing, used before, became a note).
    let mut runner = Runner::new("empty_line", None);
    runner.input("comment", "false");
    let step = runner.run().await;
    assert_eq!(
        (step.exit, step.outputs["status"].as_str()),
        (0, "warning"),
        "{}",
        step.log
    );
    assert!(
        step.log
            .contains("::warning file=pyproject.toml,line=1,title=mcpcheck stdout-empty-line::"),
        "{}",
        step.log
    );
    runner.input("fail_on", "warning");
    assert_eq!(runner.run().await.exit, 1);
    let mut failing = Runner::new("banner_before_initialize", None);
    failing.input("comment", "false").input("fail_on", "never");
    let step = failing.run().await;
    assert_eq!((step.exit, step.outputs["ok"].as_str()), (0, "false"));
    failing.input("fail_on", "sometimes");
    let step = failing.run().await;
    assert_eq!(step.exit, 2);
    assert_eq!(step.stderr.lines().count(), 1, "{}", step.stderr);
    assert!(step.stderr.contains("fail_on"), "{}", step.stderr);
}

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
async fn the_summary_headline_names_the_primary_issue_json_names() {
    // Two critical findings: the headline must name the one the scan's JSON and human
    // reports put first (risk first, then place), not the first code by name.
    let fixture = "tests/fixtures/configs/primary_issue_same_in_every_format.json";
    let mut runner = Runner::new("clean", None);
    std::fs::copy(
        support::repo().join(fixture),
        runner.ws.path().join(".mcp.json"),
    )
    .expect("config");
    runner.input("paths", ".mcp.json").input("comment", "false");
    let step = runner.run().await;
    assert_eq!(step.exit, 1, "{}", step.log);
    let headline = step
        .summary
        .lines()
        .find(|l| l.starts_with("**FAIL"))
        .unwrap_or_else(|| panic!("no headline in:\n{}", step.summary));
    assert!(
        headline.starts_with("**FAIL\\: remote\\-script\\-execution \\("),
        "{headline}"
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
async fn the_log_report_tells_the_verdict_the_scans_decide() {
    let mut runner = Runner::new("clean", None);
    let cursor = runner.ws.path().join(".cursor");
    std::fs::create_dir_all(&cursor).expect("dir");
    std::fs::write(
        cursor.join("mcp.json"),
        "{\"mcpServers\": {\"gh\": {\"command\": \"gh-mcp\", \"env\": {\"GITHUB_TOKEN\": \"ghp_abcdefghijklmnopqrstuvwxyz0123456789\"}}}}\n",
    )
    .expect("config");
    // Only its owner may read it: the verdict here is about hardcoded-secret alone.
    std::fs::set_permissions(
        cursor.join("mcp.json"),
        std::os::unix::fs::PermissionsExt::from_mode(0o600),
    )
    .expect("chmod");
    // Only its owner may read it: the verdict here is about hardcoded-secret alone.
    std::fs::set_permissions(
        cursor.join("mcp.json"),
        std::os::unix::fs::PermissionsExt::from_mode(0o600),
    )
    .expect("chmod");
    std::fs::write(
        runner.ws.path().join("server.js"),
        "console.log(\"ready\");\n",
    )
    .expect("src");
    runner
        .input("paths", ".cursor/mcp.json")
        .input("scan", "server.js")
        .input("comment", "false");
    let step = runner.run().await;
    assert_eq!(
        (step.exit, step.outputs["status"].as_str()),
        (1, "fail"),
        "{}",
        step.log
    );
    let report = step
        .log
        .split("::group::mcpcheck report")
        .nth(1)
        .expect("the report group");
    assert!(!report.contains("PASS"), "{report}");
    assert!(report.contains("FAIL  mcpcheck guard"), "{report}");
    assert!(report.contains("error[hardcoded-secret]"), "{report}");
    assert!(report.contains("1 error"), "{report}");
    assert!(
        step.summary.contains("mcpcheck guard: FAIL"),
        "{}",
        step.summary
    );
    assert!(
        step.summary.contains("mcpcheck scan .cursor/mcp.json"),
        "{}",
        step.summary
    );
    // The guard job scans the `scan` paths itself: its line reproduces both.
    assert!(
        step.summary
            .contains("mcpcheck guard --scan server.js -- python3 clean.py"),
        "{}",
        step.summary
    );

    // The scans alone: the same verdict, headline first.
    runner.env.remove("INPUT_COMMAND");
    let step = runner.run().await;
    assert_eq!(
        (step.exit, step.outputs["status"].as_str()),
        (1, "fail"),
        "{}",
        step.log
    );
    let report = step
        .log
        .split("::group::mcpcheck report")
        .nth(1)
        .expect("the report group");
    assert!(
        report.contains("FAIL: hardcoded-secret (1 error, 1 warning)"),
        "{report}"
    );
    assert!(!report.contains("PASS"), "{report}");
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
async fn the_url_input_guards_a_remote_server_and_never_shows_its_headers() {
    let server = support::http::HttpServer::fixture("http_no_origin_check");
    let secret = "mcp-token-5f1e2d3c4b5a69788796a5b4c3d2e1f0";
    let mut runner = Runner::new("clean", None);
    runner
        .input("command", "")
        .input("url", &server.url("/mcp"))
        .input(
            "headers",
            &format!("Authorization=Bearer {secret}\nX-Team=core"),
        )
        .input("comment", "false");
    let step = runner.run().await;
    assert_eq!(
        (step.exit, step.outputs["status"].as_str()),
        (0, "warning"),
        "{}{}",
        step.log,
        step.stderr
    );
    assert!(
        step.log
            .contains("title=mcpcheck http-origin-not-validated::"),
        "{}",
        step.log
    );
    let sarif = std::fs::read_to_string(runner.ws.path().join("mcpcheck.sarif")).expect("sarif");
    for (what, text) in [
        ("log", &step.log),
        ("stderr", &step.stderr),
        ("summary", &step.summary),
        ("sarif", &sarif),
    ] {
        assert!(!text.contains(secret), "{what} shows the header value");
    }
    // The invocation names the headers, never their values.
    assert!(sarif.contains("--header 'X-Team=<redacted>'"), "{sarif}");
    assert!(sarif.contains("--header 'Authorization="), "{sarif}");

    runner.input("url", "http://10.9.8.7/mcp");
    let step = runner.run().await;
    assert_eq!(step.exit, 2, "{}", step.stderr);
    assert_eq!(step.stderr.trim().lines().count(), 1, "{}", step.stderr);
    assert!(step.stderr.contains("input `url`"), "{}", step.stderr);
}

/// Runs a step that must stop on an input error before starting anything: exit 2, one
/// line on stderr naming `input`, one `::error` line, and the setup never run.
async fn refused_before_anything_starts(runner: &mut Runner, input: &str) -> Step {
    runner
        .input("setup", "touch setup-ran")
        .input("comment", "false");
    let step = runner.run().await;
    assert_eq!(step.exit, 2, "{}{}", step.log, step.stderr);
    assert_eq!(step.stderr.lines().count(), 1, "{}", step.stderr);
    assert!(
        step.stderr.contains(&format!("input `{input}`")),
        "{}",
        step.stderr
    );
    let errors: Vec<&str> = step
        .log
        .lines()
        .filter(|l| l.starts_with("::error"))
        .collect();
    assert_eq!(errors.len(), 1, "{}", step.log);
    assert!(
        !runner.ws.path().join("setup-ran").exists(),
        "setup ran before the input error"
    );
    assert!(
        !step.outputs.contains_key("sarif-file"),
        "{:?}",
        step.outputs
    );
    step
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

/// What differs between two runs of one server: the durations.
fn without_durations(markdown: &str) -> String {
    let mut out = String::new();
    for word in markdown.split_inclusive(' ') {
        let digits = word.trim_end().trim_end_matches(" ms");
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            out.push_str("N ");
        } else {
            out.push_str(word);
        }
    }
    out.trim_end().to_string()
}

/// The Action runs the guard job `mcpcheck guard` runs: for the same server and `scan`, its
/// job summary is the CLI's Markdown report (the source scan a `static` check in both), but
/// for the note on the step's environment, which only the Action has.
#[tokio::test]
async fn the_job_summary_is_the_guards_markdown_for_the_same_inputs() {
    let mut runner = Runner::new("clean", None);
    let src = runner.ws.path().join("src");
    std::fs::create_dir(&src).expect("src");
    std::fs::write(src.join("app.py"), "import sys\nprint(\"hello banner\")\n").expect("app.py");
    runner.input("scan", "src").input("comment", "false");
    let step = runner.run().await;
    assert_eq!(step.exit, 0, "{}{}", step.log, step.stderr);
    // In the same job: the runner's GITHUB_* variables (which make paths links), no inputs.
    let cli = support::mcpcheck()
        .current_dir(runner.ws.path())
        .envs(runner.env.iter().filter(|(k, _)| k.starts_with("GITHUB_")))
        .args(["guard", "--format", "markdown", "--scan", "src", "--"])
        .args(["python3", "clean.py"])
        .output()
        .expect("run mcpcheck guard");
    let cli = String::from_utf8_lossy(&cli.stdout).into_owned();
    assert!(cli.contains("| static | ⚠️ warning |"), "{cli}");
    let environment_note = step
        .summary
        .lines()
        .find(|l| l.starts_with("- Setup and server environment"))
        .expect("the Action's note on the environment")
        .to_string();
    // Only that note goes: others (the portable backend's on leftover processes) are in both.
    let summary = step
        .summary
        .replace(&format!("{environment_note}\n"), "")
        .replace("### Notes\n\n\n", "");
    assert_eq!(without_durations(&summary), without_durations(&cli));
}
