//! A sweep never writes a secret: values an entry marks `isSecret` (an argument, a variable,
//! a `{variable}` inside a value), URL passwords and the manifest's variables stay out of
//! every output of `sweep` and `sweep-report`, while each line's `reproduce` command, with
//! the named values exported, reruns the server with exactly what the sweep gave it.

use crate::support;

use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::repo;
use support::sweep::*;

/// Each secret of the manifest, by the name its `reproduce` command reads it from.
const SECRETS: &[(&str, &str)] = &[
    ("conn", "mongodb://u:Pw4Conn9x@db.example/x"),
    ("API_KEY", "hunter2"),
    ("ARG6_PASSWORD", "UpTok7z"),
    ("DB_PASSWORD", "EnvSecret5q"),
    ("EXTRA_TOKEN", "Extra8wTok"),
    ("ARG3_PASSWORD", "CmdPw3k"),
];
/// The parts of those values that must never be printed (a URL's password, not its host).
const NEVER_SHOWN: &[&str] = &[
    "Pw4Conn9x",
    "hunter2",
    "UpTok7z",
    "EnvSecret5q",
    "Extra8wTok",
    "CmdPw3k",
];

/// A project with the fixture package installed from this repository, so `npx -y
/// mcpcheck-fixture-echo-secrets@1.0.0` runs it without a registry.
fn project(dir: &Path) -> PathBuf {
    let project = dir.join("project");
    std::fs::create_dir_all(&project).expect("project dir");
    std::fs::write(
        project.join("package.json"),
        r#"{"name": "sweep-secrets", "version": "1.0.0", "private": true}"#,
    )
    .expect("package.json");
    let package = repo().join("tests/fixtures/npm/echo-secrets");
    let out = Command::new("npm")
        .args(["install", "--install-links", "--no-audit", "--no-fund"])
        .arg(&package)
        .current_dir(&project)
        .output()
        .expect("npm");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    project
}

fn manifest(dir: &Path, project: &Path) -> PathBuf {
    let registry = json!({
        "id": "registry-secrets",
        "cwd": project,
        "inputs": {"conn": SECRETS[0].1, "--api-key": SECRETS[1].1, "upstream": "https://user:UpTok7z@example.com/x"},
        "env": {"DB_PASSWORD": SECRETS[3].1, "EXTRA_TOKEN": SECRETS[4].1, "FIXTURE_RECORD": dir.join("registry.jsonl")},
        "server": {
            "name": "io.example/echo-secrets",
            "version": "1.0.0",
            "packages": [{
                "registryType": "npm",
                "identifier": "mcpcheck-fixture-echo-secrets",
                "version": "1.0.0",
                "transport": {"type": "stdio"},
                "packageArguments": [
                    {"type": "positional", "value": "{conn}", "variables": {"conn": {"isSecret": true}}},
                    {"type": "named", "name": "--api-key", "isSecret": true, "isRequired": true},
                    {"type": "positional", "valueHint": "upstream"},
                    {"type": "named", "name": "--mode", "value": "ro"}
                ],
                "environmentVariables": [
                    {"name": "DB_PASSWORD", "isSecret": true, "isRequired": true},
                    {"name": "LOG_LEVEL", "default": "info"}
                ]
            }]
        }
    });
    let command = json!({
        "id": "command-secrets",
        "cwd": project,
        "command": ["npx", "-y", "mcpcheck-fixture-echo-secrets@1.0.0", "postgres://admin:CmdPw3k@h/db"],
        "env": {"DB_PASSWORD": SECRETS[3].1, "FIXTURE_RECORD": dir.join("command.jsonl")},
    });
    write_manifest(dir, &[registry, command])
}

fn assert_no_secret(what: &str, text: &str) {
    for secret in NEVER_SHOWN {
        assert!(!text.contains(secret), "{what} shows {secret:?}:\n{text}");
    }
}

fn bin_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_mcpcheck"))
        .parent()
        .expect("bin dir")
        .to_path_buf()
}

/// `reproduce` run by a shell with the values it names exported and mcpcheck on PATH.
fn rerun(reproduce: &str, record: &Path) -> std::process::Output {
    let names = names_in(reproduce);
    let path = format!(
        "{}:{}",
        bin_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(reproduce).env("PATH", path);
    for (name, value) in SECRETS.iter().filter(|(n, _)| names.contains(*n)) {
        cmd.env(name, value);
    }
    cmd.env("FIXTURE_RECORD", record);
    cmd.output().expect("sh")
}

/// The `${NAME}`s a shell expands in `reproduce`: outside single quotes, not escaped.
fn names_in(reproduce: &str) -> BTreeSet<String> {
    let (mut single, mut double) = (false, false);
    let mut names = BTreeSet::new();
    let mut chars = reproduce.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '\\' if !single => {
                chars.next();
            }
            '$' if !single && reproduce[i + 1..].starts_with('{') => {
                if let Some((name, _)) = reproduce[i + 2..].split_once('}') {
                    names.insert(name.to_string());
                }
            }
            _ => {}
        }
    }
    names
}

#[test]
fn no_secret_reaches_any_output_and_each_reproduce_command_reruns_the_server() {
    let dir = tempfile::tempdir().expect("tempdir");
    let project = project(dir.path());
    let manifest = manifest(dir.path(), &project);
    let out = dir.path().join("results.jsonl");
    let run = sweep(&[
        manifest.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
        "--jobs",
        "2",
    ]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    assert_no_secret("sweep's stdout", &String::from_utf8_lossy(&run.stdout));
    assert_no_secret("sweep's stderr", &stderr);
    let results = std::fs::read_to_string(&out).expect("results");
    assert_no_secret("the results file", &results);

    // The servers got every secret, and printed them where the guard reads.
    let given = |file: &str| json_lines(&dir.path().join(file));
    let registry_given = given("registry.jsonl");
    assert_eq!(
        registry_given[0],
        json!({"argv": [SECRETS[0].1, "--api-key", "hunter2", "https://user:UpTok7z@example.com/x", "--mode", "ro"],
               "env": {"DB_PASSWORD": "EnvSecret5q", "EXTRA_TOKEN": "Extra8wTok", "LOG_LEVEL": "info"}})
    );
    let lines = lines(&out);
    for l in &lines {
        assert_eq!(l["status"], "fail", "{l}");
        let codes: Vec<&str> = l["issues"]
            .as_array()
            .expect("issues")
            .iter()
            .filter_map(|i| i["code"].as_str())
            .collect();
        assert!(codes.contains(&"stdout-non-json"), "{codes:?}");
    }

    // Shown by name, never as a runnable-looking [REDACTED].
    let registry = line(&lines, "registry-secrets");
    // npx finds the package installed in the entry's project and runs it from there.
    let command = registry["command"].as_array().expect("command");
    assert!(
        command[0]
            .as_str()
            .is_some_and(|p| p.ends_with("/node_modules/.bin/mcpcheck-fixture-echo-secrets")),
        "{command:?}"
    );
    assert_eq!(
        command[1..],
        [
            json!("${conn}"),
            json!("--api-key"),
            json!("${API_KEY}"),
            json!("https://user:${ARG6_PASSWORD}@example.com/x"),
            json!("--mode"),
            json!("ro")
        ]
    );
    assert_eq!(registry["install"]["inProject"], true);
    assert_eq!(registry["fingerprint"]["argv"], registry["command"]);
    assert_eq!(
        registry["fingerprint"]["command"]["argv"],
        registry["command"]
    );
    assert_eq!(registry["fingerprint"]["command"]["executable"], command[0]);
    assert_eq!(
        registry["fingerprint"]["command"]["args"].as_array(),
        Some(&command[1..].to_vec())
    );
    for l in &lines {
        let reproduce = l["reproduce"].as_str().expect("reproduce");
        assert!(!reproduce.contains("REDACTED"), "{reproduce}");
    }
    assert_eq!(
        names_in(registry["reproduce"].as_str().expect("reproduce")),
        [
            "conn",
            "API_KEY",
            "ARG6_PASSWORD",
            "DB_PASSWORD",
            "EXTRA_TOKEN",
            "FIXTURE_RECORD"
        ]
        .map(String::from)
        .into()
    );
    let command = line(&lines, "command-secrets");
    assert_eq!(
        names_in(command["reproduce"].as_str().expect("reproduce")),
        ["ARG3_PASSWORD", "DB_PASSWORD", "FIXTURE_RECORD"]
            .map(String::from)
            .into()
    );

    // Every report format (the secrets are plain letters and digits: no escaping could hide one).
    for format in ["human", "json", "markdown", "sarif", "html"] {
        let report = support::mcpcheck()
            .args(["sweep-report", "--format", format])
            .arg(&out)
            .output()
            .expect("sweep-report");
        assert_eq!(report.status.code(), Some(0), "{format}");
        assert_no_secret(format, &String::from_utf8_lossy(&report.stdout));
        assert_no_secret(format, &String::from_utf8_lossy(&report.stderr));
        assert!(
            String::from_utf8_lossy(&report.stdout).contains("registry-secrets"),
            "{format}"
        );
    }

    // Each reproduce command reruns its server with exactly what the sweep gave it.
    for (id, record) in [
        ("registry-secrets", "registry.jsonl"),
        ("command-secrets", "command.jsonl"),
    ] {
        let again = dir.path().join(format!("again-{record}"));
        let l = line(&lines, id);
        let rerun = rerun(l["reproduce"].as_str().expect("reproduce"), &again);
        let stderr = String::from_utf8_lossy(&rerun.stderr);
        assert_eq!(rerun.status.code(), Some(1), "{id}: {stderr}");
        assert!(
            String::from_utf8_lossy(&rerun.stdout).contains("stdout-non-json"),
            "{id}"
        );
        let swept = given(record);
        let replayed = json_lines(&again);
        assert_eq!(replayed.first(), swept.first(), "{id}");
    }
}

fn line<'a>(lines: &'a [Value], id: &str) -> &'a Value {
    lines
        .iter()
        .find(|l| l["id"] == id)
        .unwrap_or_else(|| panic!("no line {id}"))
}

/// Arguments a shell would read as something else: history, substitutions, quotes, blanks;
/// a secret's value inside a longer argument (`dummy` below), and a credential by its flag.
const HOSTILE_ARGS: &[&str] = &[
    "!!",
    "a!b",
    "$(id)",
    "`id`",
    "'",
    "\"",
    "a\nb",
    "\t",
    "\\",
    "ünï ✓",
    "",
    "${X}",
    "--description",
    "dummy index",
    "--token",
    "hunter2!!",
];
/// The entry's variables: the shell's own names, a hostile value, two variables with one
/// value. The replay exports them under the names [`REPLAY_NAMES`] says.
const HOSTILE_ENV: &[(&str, &str)] = &[
    ("PATH", "/nonexistent!!:$(id)"),
    ("HOME", "/home/!!/`id`"),
    ("RANDOM", "4"),
    ("PPID", "1"),
    ("IFS", "!x"),
    ("BASH_ENV", "/nonexistent/!!"),
    ("HOSTILE", "!!a!b$(id)`id`'\"\n\t\\ünï ✓${X}"),
    ("LLAMA_CLOUD_PROJECT_NAME", "dummy"),
    ("RAMP_ENV", "same-value-7"),
    ("RAMP_CLIENT_ID", "same-value-7"),
];
/// Given to the sweep with `--pass-env UV_PYTHON`.
const PASSED: (&str, &str) = ("UV_PYTHON", "3.12 !!");
/// Each name the replay reads, and the variable whose value it holds.
const REPLAY_NAMES: &[(&str, &str)] = &[
    ("MCPCHECK_PATH", "PATH"),
    ("MCPCHECK_HOME", "HOME"),
    ("MCPCHECK_RANDOM", "RANDOM"),
    ("MCPCHECK_PPID", "PPID"),
    ("MCPCHECK_IFS", "IFS"),
    ("MCPCHECK_BASH_ENV", "BASH_ENV"),
    ("HOSTILE", "HOSTILE"),
    ("LLAMA_CLOUD_PROJECT_NAME", "LLAMA_CLOUD_PROJECT_NAME"),
    ("RAMP_ENV", "RAMP_ENV"),
    ("RAMP_CLIENT_ID", "RAMP_CLIENT_ID"),
    ("UV_PYTHON", "UV_PYTHON"),
    ("TOKEN", "--token"),
    ("FIXTURE_RECORD", "FIXTURE_RECORD"),
];

/// How a replay is typed: `sh -c`, `bash -c`, or lines read by an interactive bash, where
/// `!` outside single quotes recalls history (`bash -i -c` never expands history).
#[derive(Debug, Clone, Copy)]
enum Replay {
    Sh,
    Bash,
    InteractiveBash,
}

/// `reproduce` run as `how` types it, in an environment of the names it reads and nothing
/// else but a PATH with mcpcheck on it.
fn replay(how: Replay, reproduce: &str, values: &[(&str, String)], dir: &Path) -> Vec<u8> {
    use std::io::Write;
    let path = format!(
        "{}:{}",
        bin_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new(match how {
        Replay::Sh => "sh",
        Replay::Bash | Replay::InteractiveBash => "bash",
    });
    cmd.env_clear()
        .env("PATH", path)
        .env("HOME", dir)
        .current_dir(dir)
        .envs(values.iter().map(|(k, v)| (k, v)))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    if support::portable_backend() {
        cmd.env("MCPCHECK_PROCESS_BACKEND", "portable");
    }
    let typed = match how {
        Replay::Sh | Replay::Bash => {
            cmd.arg("-c").arg(reproduce);
            String::new()
        }
        // No line editing: without a terminal's bracketed paste a tab would complete.
        Replay::InteractiveBash => {
            cmd.args(["--norc", "--noprofile", "--noediting", "-i"]);
            format!("unset HISTFILE\n: probe\nprintf 'history:%s\\n' \"!!\"\n{reproduce}\n")
        }
    };
    let mut child = cmd.spawn().expect("shell");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(typed.as_bytes())
        .expect("type");
    let out = child.wait_with_output().expect("shell");
    if let Replay::InteractiveBash = how {
        assert!(
            out.stdout.starts_with(b"history:: probe\n"),
            "history expansion is off: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    out.stderr
}

#[test]
fn reproduce_replays_hostile_arguments_and_variables_in_sh_bash_and_interactive_bash() {
    let dir = tempfile::tempdir().expect("tempdir");
    let record = dir.path().join("swept.jsonl");
    let mut env: serde_json::Map<String, Value> = HOSTILE_ENV
        .iter()
        .map(|(k, v)| (k.to_string(), json!(v)))
        .collect();
    env.insert("FIXTURE_RECORD".into(), json!(record));
    let fixture = support::fixture("records_argv_and_env");
    let command: Vec<&str> = [support::python_executable(), fixture.as_str()]
        .into_iter()
        .chain(HOSTILE_ARGS.iter().copied())
        .collect();
    let manifest = write_manifest(
        dir.path(),
        &[json!({"id": "hostile", "command": command, "env": env})],
    );
    let out = dir.path().join("results.jsonl");
    let run = support::mcpcheck()
        .arg("sweep")
        .arg(&manifest)
        .arg("--out")
        .arg(&out)
        .args(["--pass-env", PASSED.0])
        .env(PASSED.0, PASSED.1)
        .output()
        .expect("sweep");
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let swept = json_lines(&record);
    assert_eq!(swept.len(), 1, "{swept:?}");
    assert_eq!(swept[0]["argv"], json!(HOSTILE_ARGS));
    assert_eq!(swept[0]["env"]["UV_PYTHON"], PASSED.1);
    assert_eq!(swept[0]["env"]["RAMP_ENV"], "same-value-7");

    let lines = lines(&out);
    let reproduce = line(&lines, "hostile")["reproduce"]
        .as_str()
        .expect("reproduce")
        .to_string();
    // Each variable by a name of its own, none the shell's, the passed one by its name.
    assert_eq!(
        names_in(&reproduce),
        REPLAY_NAMES.iter().map(|(n, _)| n.to_string()).collect(),
        "{reproduce}"
    );
    for how in [Replay::Sh, Replay::Bash, Replay::InteractiveBash] {
        let again = dir.path().join(format!("{how:?}.jsonl"));
        let values: Vec<(&str, String)> = REPLAY_NAMES
            .iter()
            .map(|&(name, variable)| {
                let value = match variable {
                    "FIXTURE_RECORD" => again.display().to_string(),
                    "--token" => "hunter2!!".to_string(),
                    _ if variable == PASSED.0 => PASSED.1.to_string(),
                    _ => HOSTILE_ENV
                        .iter()
                        .find(|(k, _)| *k == variable)
                        .map(|(_, v)| v.to_string())
                        .expect("a variable of the entry"),
                };
                (name, value)
            })
            .collect();
        let stderr = replay(how, &reproduce, &values, dir.path());
        assert!(
            again.exists(),
            "{how:?} did not start the server: {reproduce}\n{}",
            String::from_utf8_lossy(&stderr)
        );
        assert_eq!(json_lines(&again), swept, "{how:?} ran: {reproduce}");
    }
}
