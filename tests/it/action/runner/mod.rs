//! `mcpcheck action` in an emulated runner: a temporary GITHUB_WORKSPACE holding a fixture
//! server, temp files for GITHUB_STEP_SUMMARY and GITHUB_OUTPUT, a pull_request event, and
//! a local HTTP server standing in for the GitHub REST API (issue comments).

mod checks;
mod comment;
mod paths;
mod setup;

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
