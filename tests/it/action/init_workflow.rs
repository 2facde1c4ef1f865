//! The workflow `mcpcheck init` writes passes on its first run: for a repository of each
//! kind (tests/fixtures/init/), init writes the workflow, and its mcpcheck step's inputs
//! (with action.yml's defaults for the rest, as the runner fills them) run through
//! `mcpcheck action` in an emulated runner on a push, setup included, against a correct
//! server. Offline: the Node fixtures resolve the official SDK from the SDK fixtures'
//! node_modules (they are copied beside it), the pip fixture installs into the Python SDK
//! fixtures' venv (already satisfied), the uv fixture has no dependencies. pnpm, yarn, bun
//! and poetry are not needed here: their setup strings are unit-tested in src/app/init/.

use crate::support;

use serde_json::json;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

const PLACEHOLDER: &str = "REPLACE-ME-with-the-command-that-starts-your-server";

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read fixture") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// The fixture repository `name` copied into a fresh directory under `parent` (or the
/// system's temporary directory).
fn checkout(name: &str, parent: Option<&Path>) -> tempfile::TempDir {
    let dir = match parent {
        Some(p) => tempfile::Builder::new()
            .prefix(".init-")
            .tempdir_in(p)
            .expect("tempdir"),
        None => tempfile::tempdir().expect("tempdir"),
    };
    copy_dir(
        &support::repo().join("tests/fixtures/init").join(name),
        dir.path(),
    );
    dir
}

/// `mcpcheck init --dir` on the checkout; the written workflow's mcpcheck step inputs.
fn init(dir: &Path) -> HashMap<String, String> {
    let out = support::mcpcheck()
        .args(["init", "--dir"])
        .arg(dir)
        .output()
        .expect("run mcpcheck init");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text =
        std::fs::read_to_string(dir.join(".github/workflows/mcpcheck.yml")).expect("workflow");
    let workflow = support::yaml::parse(&text);
    let steps = workflow["jobs"]["mcpcheck"]["steps"]
        .as_array()
        .expect("steps");
    let step = steps
        .iter()
        .find(|s| s["id"] == "mcpcheck")
        .expect("the mcpcheck step");
    step["with"]
        .as_object()
        .expect("with")
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().expect("string input").to_string()))
        .collect()
}

/// What the runner sets for a container action's step: every input of action.yml (the
/// step's value, else the default) and the runner's GITHUB_* variables.
fn runner_env(
    workspace: &Path,
    files: &Path,
    with: &HashMap<String, String>,
) -> HashMap<String, String> {
    let action = std::fs::read_to_string(support::repo().join("action.yml")).expect("action.yml");
    let action = support::yaml::parse(&action);
    let mut env = HashMap::new();
    for (name, input) in action["inputs"].as_object().expect("inputs") {
        let default = input["default"].as_str().unwrap_or_default();
        let value = match with.get(name) {
            Some(v) => v.clone(),
            // The runner evaluates `${{ github.token }}`: a token of that shape.
            None if default.contains("${{") => "ghs_0000000000000000000000000000000000".into(),
            None => default.to_string(),
        };
        env.insert(format!("INPUT_{}", name.to_ascii_uppercase()), value);
    }
    let event = files.join("event.json");
    std::fs::write(&event, json!({"ref": "refs/heads/main"}).to_string()).expect("event");
    for (k, v) in [
        ("GITHUB_ACTIONS", "true".to_string()),
        ("GITHUB_WORKSPACE", workspace.display().to_string()),
        (
            "GITHUB_STEP_SUMMARY",
            files.join("summary.md").display().to_string(),
        ),
        ("GITHUB_OUTPUT", files.join("output").display().to_string()),
        ("GITHUB_EVENT_PATH", event.display().to_string()),
        ("GITHUB_EVENT_NAME", "push".into()),
        ("GITHUB_REPOSITORY", "o/r".into()),
        (
            "GITHUB_SHA",
            "0123456789abcdef0123456789abcdef01234567".into(),
        ),
        ("GITHUB_SERVER_URL", "https://github.com".into()),
    ] {
        env.insert(k.to_string(), v);
    }
    env
}

struct Step {
    exit: i32,
    text: String,
}

/// `mcpcheck action` in the checkout with the step's inputs, `path_first` in front of PATH
/// and the package managers kept off the network.
fn action(dir: &Path, with: &HashMap<String, String>, path_first: Option<&Path>) -> Step {
    let files = tempfile::tempdir().expect("runner files");
    let mut cmd = support::mcpcheck();
    cmd.current_dir(dir)
        .arg("action")
        .envs(runner_env(dir, files.path(), with))
        .env("npm_config_offline", "true")
        .env("npm_config_audit", "false")
        .env("npm_config_fund", "false")
        .env("npm_config_update_notifier", "false")
        .env("UV_OFFLINE", "1");
    if let Some(first) = path_first {
        let path = std::env::var("PATH").unwrap_or_default();
        cmd.env("PATH", format!("{}:{path}", first.display()));
    }
    let out = cmd.output().expect("run mcpcheck action");
    let summary = std::fs::read_to_string(files.path().join("summary.md")).unwrap_or_default();
    Step {
        exit: out.status.code().expect("exit code"),
        text: format!(
            "stdout:\n{}\nstderr:\n{}\nsummary:\n{summary}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

fn sdk(kind: &str) -> PathBuf {
    let dir = support::repo().join("tests/fixtures/sdk").join(kind);
    let installed = if kind == "ts" {
        dir.join("node_modules/@modelcontextprotocol/sdk")
    } else {
        dir.join(".venv/bin/python")
    };
    assert!(
        installed.exists(),
        "SDK fixtures are not installed: run scripts/install-fixtures (scripts/test does)"
    );
    dir
}

fn assert_inputs(with: &HashMap<String, String>, setup: Option<&str>, command: &str) {
    assert_eq!(with.get("setup").map(String::as_str), setup, "{with:?}");
    assert_eq!(with["command"], command, "{with:?}");
}

/// Exit 0 after running the step's setup and checking its command.
fn assert_passes(step: &Step, with: &HashMap<String, String>) {
    assert_eq!(step.exit, 0, "{}", step.text);
    if let Some(setup) = with.get("setup") {
        let group = format!("::group::mcpcheck setup: {setup}\n");
        assert!(step.text.contains(&group), "{}", step.text);
    }
    let verdict = format!("PASS  mcpcheck guard: {}\n", with["command"]);
    assert!(step.text.contains(&verdict), "{}", step.text);
}

#[test]
fn npm_with_a_lockfile_and_a_build_script_passes_on_the_first_run() {
    let dir = checkout("npm_lock_build", Some(&sdk("ts")));
    let with = init(dir.path());
    assert_inputs(&with, Some("npm ci && npm run build"), "node dist/index.js");
    assert!(
        !dir.path().join("dist").exists(),
        "built by setup, not here"
    );
    assert_passes(&action(dir.path(), &with, None), &with);
}

#[test]
fn npm_without_a_lockfile_runs_the_bin_and_passes() {
    let dir = checkout("npm_bin", Some(&sdk("ts")));
    let with = init(dir.path());
    assert_inputs(&with, Some("npm install"), "node bin/server.js");
    assert_passes(&action(dir.path(), &with, None), &with);
}

#[test]
fn a_uv_project_runs_its_console_script_and_passes() {
    let dir = checkout("uv_scripts", None);
    let module = dir.path().join("src/hello_server");
    std::fs::create_dir_all(&module).expect("mkdir");
    std::fs::copy(
        support::repo().join("examples/servers/hello.py"),
        module.join("__init__.py"),
    )
    .expect("copy hello.py");
    let with = init(dir.path());
    assert_inputs(&with, Some("uv sync --locked"), "uv run hello-server");
    let tools = tempfile::tempdir().expect("tools");
    assert_passes(
        &action(
            dir.path(),
            &with,
            Some(&support::pinned_uv(tools.path(), &["uv"])),
        ),
        &with,
    );
}

#[test]
fn a_pip_requirements_project_installs_them_and_passes() {
    let dir = checkout("pip_requirements", None);
    let with = init(dir.path());
    assert_inputs(
        &with,
        Some("python3 -m pip install -r requirements.txt"),
        "python3 server.py",
    );
    // The SDK fixtures' venv stands in for the image's Python: `python3` and its pip.
    let venv = sdk("python").join(".venv/bin");
    assert_passes(&action(dir.path(), &with, Some(&venv)), &with);
}

#[test]
fn a_repository_with_nothing_gets_the_placeholder_and_the_action_names_it() {
    let dir = checkout("nothing", None);
    let with = init(dir.path());
    assert_inputs(&with, None, PLACEHOLDER);
    let step = action(dir.path(), &with, None);
    // docs/action.md: the Action reports it as a command it cannot start, by name.
    assert_eq!(step.exit, 1, "{}", step.text);
    let annotation = format!(
        "::error file=mcpcheck.sarif,line=1,title=mcpcheck spawn-failed::could not start `{PLACEHOLDER}`"
    );
    assert!(step.text.contains(&annotation), "{}", step.text);
}

#[test]
fn the_docs_show_the_setup_and_command_init_writes_for_a_built_server() {
    // Issue 44 item 3: README's example ran `setup: npm ci`, then `node dist/index.js`,
    // which was never built (server-exited: Cannot find module …/dist/index.js).
    let dir = checkout("npm_lock_build", None);
    let written = init(dir.path());
    for page in ["README.md", "docs/action.md", "docs/install.md"] {
        let text = std::fs::read_to_string(support::repo().join(page)).expect("page");
        let yaml = text
            .split("<!-- generated:action-workflow -->\n```yaml\n")
            .nth(1)
            .and_then(|rest| rest.split("```\n").next())
            .unwrap_or_else(|| panic!("{page} shows the workflow init writes"));
        let workflow = support::yaml::parse(yaml);
        let step = workflow["jobs"]["mcpcheck"]["steps"]
            .as_array()
            .expect("steps")
            .iter()
            .find(|s| s["id"] == "mcpcheck")
            .expect("the mcpcheck step")
            .clone();
        for input in ["setup", "command"] {
            assert_eq!(
                step["with"][input].as_str(),
                written.get(input).map(String::as_str),
                "{page}: {input}"
            );
        }
    }
}
