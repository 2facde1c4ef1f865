//! A sweep never writes a secret: values an entry marks `isSecret` (an argument, a variable,
//! a `{variable}` inside a value), URL passwords and the manifest's variables stay out of
//! every output of `sweep` and `sweep-report`, while each line's `reproduce` command, with
//! the named values exported, reruns the server with exactly what the sweep gave it.

mod support;

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

fn names_in(reproduce: &str) -> BTreeSet<String> {
    reproduce
        .split("${")
        .skip(1)
        .filter_map(|s| s.split_once('}').map(|(n, _)| n.to_string()))
        .collect()
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

    // Every report format.
    for format in ["human", "json", "markdown", "sarif"] {
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
