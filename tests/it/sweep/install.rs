//! A registry entry's package is installed before its server starts, with its own deadline
//! and outcome, from the real npm registry and PyPI: failures get their own codes with the
//! installer's decisive line, an install stopped half-way breaks nothing for the next entry,
//! and entries run as a client runs them (runtimeHint "python", a flag without a value).

use crate::support;

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};
use support::path_with;
use support::sweep::*;

/// `uv` and `uvx` in front of PATH.
fn uv_dir(dir: &Path) -> PathBuf {
    support::pinned_uv(dir, &["uv", "uvx"])
}

fn server(name: &str, package: Value) -> Value {
    let mut package = package;
    package["transport"] = json!({"type": "stdio"});
    json!({"name": name, "version": "1", "packages": [package]})
}

fn npm(identifier: &str, version: &str) -> Value {
    json!({"registryType": "npm", "identifier": identifier, "version": version})
}

fn pypi(identifier: &str, version: &str) -> Value {
    json!({"registryType": "pypi", "identifier": identifier, "version": version})
}

/// `mcpcheck sweep` with uv on PATH and the given npm cache.
fn run_sweep(dir: &Path, manifest: &Path, out: &Path, npm_cache: &Path) -> Output {
    sweep_command(dir, manifest, out, npm_cache)
        .output()
        .expect("sweep")
}

fn sweep_command(dir: &Path, manifest: &Path, out: &Path, npm_cache: &Path) -> Command {
    let mut cmd = support::mcpcheck();
    cmd.arg("sweep")
        .arg(manifest)
        .arg("--out")
        .arg(out)
        .args(["--jobs", "2"])
        .env("PATH", path_with(&uv_dir(dir)))
        .env("npm_config_cache", npm_cache)
        .env("TMPDIR", dir);
    cmd
}

/// `mcpcheck sweep` with exactly this PATH (no uv, no npm cache of the test's), which must
/// finish with exit code 0.
fn sweep_with_path(dir: &Path, manifest: &Path, out: &Path, path: &str) {
    let run = support::mcpcheck()
        .arg("sweep")
        .arg(manifest)
        .arg("--out")
        .arg(out)
        .env("PATH", path)
        .env("TMPDIR", dir)
        .output()
        .expect("sweep");
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

fn line<'a>(lines: &'a [Value], id: &str) -> &'a Value {
    lines
        .iter()
        .find(|l| l["id"] == id)
        .unwrap_or_else(|| panic!("no line {id}"))
}

#[test]
fn each_install_failure_has_its_own_code_and_the_installers_decisive_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let entries = [
        server(
            "no-package",
            npm("@mcpcheck-fixture-absent/never-published", "1.0.0"),
        ),
        server(
            "no-version",
            npm("@modelcontextprotocol/server-everything", "99.0.0"),
        ),
        server("no-executable", npm("is-number", "7.0.0")),
        server(
            "pypi-no-package",
            pypi("mcpcheck-fixture-absent-never-published", "1.0"),
        ),
        server("pypi-no-version", pypi("mcp-server-time", "99.0")),
        // Django 6.0 needs Python 3.12; the suite's Python is older.
        server("python-too-old", pypi("django", "6.0")),
    ];
    let manifest = write_manifest(dir.path(), &entries);
    let out = dir.path().join("r.jsonl");
    let cache = dir.path().join("npm-cache");
    let run = run_sweep(dir.path(), &manifest, &out, &cache);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let lines = lines(&out);
    #[rustfmt::skip]
    let expected = [
        ("install-package-missing", "package", "no-package@1", "404"),
        ("install-package-missing", "version", "no-version@1", "No matching version found"),
        ("install-no-executable", "no-executable", "no-executable@1", "no \"bin\""),
        ("install-package-missing", "package", "pypi-no-package@1", "was not found in the package registry"),
        ("install-package-missing", "version", "pypi-no-version@1", "there is no version of mcp-server-time==99.0"),
        ("install-runtime-too-old", "python", "python-too-old@1", "does not satisfy Python>=3.12"),
    ];
    for (code, detail, id, evidence) in expected {
        let l = line(&lines, id);
        assert_eq!(l["status"], "install-failed", "{id}: {l}");
        let issues = l["issues"].as_array().expect("issues");
        assert_eq!(issues.len(), 1, "{id}: {l}");
        assert_eq!(
            (
                &issues[0]["code"],
                &issues[0]["detailCode"],
                &issues[0]["class"]
            ),
            (&json!(code), &json!(detail), &json!("installRuntime")),
            "{id}"
        );
        let shown = issues[0]["evidence"].as_str().expect("evidence");
        assert!(shown.contains(evidence), "{id}: {shown}");
        assert!(!shown.contains("A complete log"), "{id}: {shown}");
        assert_eq!(l["summary"]["primaryIssueCode"], code, "{id}");
        // The package without an executable did install; the others did not.
        assert_eq!(l["install"]["ok"], code == "install-no-executable", "{id}");
    }
    // sweep-report reads each install failure, typed, with its install facts.
    support::sweep::assert_reads_back_typed(&out);
    // The report counts them by code.
    let report = support::mcpcheck()
        .args(["sweep-report", "--format", "json"])
        .arg(&out)
        .output()
        .expect("sweep-report");
    let report: Value = serde_json::from_slice(&report.stdout).expect("json");
    let top: Vec<(String, u64)> = report["topIssueCodes"]
        .as_array()
        .expect("top codes")
        .iter()
        .map(|c| {
            (
                c["code"].as_str().unwrap_or_default().to_string(),
                c["servers"].as_u64().or(c["count"].as_u64()).unwrap_or(0),
            )
        })
        .collect();
    assert!(
        top.contains(&("install-package-missing".to_string(), 4)),
        "{top:?}"
    );
}

#[test]
fn an_install_past_its_deadline_and_a_missing_installer_have_their_codes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let manifest = write_manifest(
        dir.path(),
        &[server(
            "slow",
            npm("@modelcontextprotocol/server-everything", "2026.8.31"),
        )],
    );
    let out = dir.path().join("slow.jsonl");
    let run = sweep_command(dir.path(), &manifest, &out, &dir.path().join("npm-cache"))
        .args(["--install-timeout", "1"])
        .output()
        .expect("sweep");
    assert_eq!(run.status.code(), Some(0));
    let slow = lines(&out);
    let l = line(&slow, "slow@1");
    assert_eq!(l["status"], "install-failed", "{l}");
    assert_eq!(
        support::issue_pairs(l),
        support::pairs(&[("install-timeout", "error")])
    );
    assert_eq!(l["install"]["timedOut"], true);

    // Without uv on PATH (only the system's directories), a PyPI package cannot be installed.
    let manifest = write_manifest(
        dir.path(),
        &[server("no-uv", pypi("mcp-server-time", "2026.10.19"))],
    );
    let out = dir.path().join("no-uv.jsonl");
    sweep_with_path(dir.path(), &manifest, &out, "/usr/bin:/bin");
    let no_uv = lines(&out);
    let l = line(&no_uv, "no-uv@1");
    assert_eq!(
        support::issue_pairs(l),
        support::pairs(&[("install-failed", "error")])
    );
    assert_eq!(l["issues"][0]["detailCode"], "installer-missing");
    assert!(
        l["issues"][0]["evidence"]
            .as_str()
            .is_some_and(|e| e.contains("uv")),
        "{l}"
    );
}

#[test]
fn a_python_hint_runs_with_uvx_and_a_flag_without_a_value_is_passed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut package = pypi("mcp-server-fetch", "2026.10.24");
    package["runtimeHint"] = json!("python");
    package["packageArguments"] = json!([{"type": "named", "name": "--ignore-robots-txt"}]);
    let manifest = write_manifest(dir.path(), &[server("fetch", package)]);
    let out = dir.path().join("r.jsonl");
    let run = run_sweep(dir.path(), &manifest, &out, &dir.path().join("npm-cache"));
    assert_eq!(run.status.code(), Some(0));
    let lines = lines(&out);
    let l = line(&lines, "fetch@1");
    assert_eq!(l["status"], "pass", "{l}");
    assert_eq!(
        l["runtimeNote"],
        "runtimeHint \"python\" run with uvx, the first of uvx, pipx on PATH"
    );
    // uvx installed it into its own cache, and the entry's own uvx command started it.
    assert_eq!(
        l["command"],
        json!(["uvx", "mcp-server-fetch==2026.10.24", "--ignore-robots-txt"])
    );
    assert_eq!(l["install"]["command"][0], "uvx");
    assert_eq!(
        l["reproduce"],
        "mcpcheck guard -- uvx 'mcp-server-fetch==2026.10.24' --ignore-robots-txt"
    );
    assert_eq!(l["install"]["ok"], true);
}

#[test]
fn a_python_hint_without_uvx_or_pipx_installs_with_pip_into_a_venv() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Only python3 (the suite's, which has venv and pip) and the system's directories.
    let bin = dir.path().join("python-only");
    std::fs::create_dir_all(&bin).expect("dir");
    let python = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3");
    let python = String::from_utf8_lossy(&python.stdout).trim().to_string();
    std::os::unix::fs::symlink(&python, bin.join("python3")).expect("symlink");
    let mut package = pypi("mcp-server-time", "2026.10.19");
    package["runtimeHint"] = json!("python");
    let manifest = write_manifest(
        dir.path(),
        &[
            server("time", package.clone()),
            server("time-missing", {
                let mut p = package;
                p["version"] = json!("99.0");
                p
            }),
        ],
    );
    let out = dir.path().join("r.jsonl");
    sweep_with_path(
        dir.path(),
        &manifest,
        &out,
        &format!("{}:/usr/bin:/bin", bin.display()),
    );
    let lines = lines(&out);
    let l = line(&lines, "time@1");
    assert_eq!(l["status"], "pass", "{l}");
    assert!(
        l["runtimeNote"]
            .as_str()
            .is_some_and(|n| n.contains("python3 -m venv and pip")),
        "{l}"
    );
    assert!(
        l["install"]["program"]
            .as_str()
            .is_some_and(|p| p.ends_with("/venv/bin/mcp-server-time")),
        "{l}"
    );
    assert_eq!(
        l["reproduce"],
        "mcpcheck guard -- uvx 'mcp-server-time==2026.10.19'"
    );
    let missing = line(&lines, "time-missing@1");
    assert_eq!(
        support::issue_pairs(missing),
        support::pairs(&[("install-package-missing", "error")])
    );
    assert!(
        missing["issues"][0]["evidence"]
            .as_str()
            .is_some_and(|e| e.contains("Could not find a version that satisfies")),
        "{missing}"
    );
}

#[test]
fn an_install_stopped_half_way_leaves_nothing_that_breaks_the_next_entry() {
    let dir = tempfile::tempdir().expect("tempdir");
    // A cold npm cache of the test's own: the first install has to download everything.
    let cache = dir.path().join("npm-cache");
    let package = npm("@modelcontextprotocol/server-everything", "2026.8.31");
    let first = write_manifest(dir.path(), &[server("first", package.clone())]);
    let out = dir.path().join("first.jsonl");
    let mut sweep = support::mcpcheck()
        .arg("sweep")
        .arg(&first)
        .arg("--out")
        .arg(&out)
        .env("PATH", path_with(&uv_dir(dir.path())))
        .env("npm_config_cache", &cache)
        .env("TMPDIR", dir.path())
        .spawn()
        .expect("sweep");
    // Stopped once npm has started filling the cache, well before it is done.
    let deadline = Instant::now() + Duration::from_secs(60);
    while !cache.join("_cacache").is_dir() {
        assert!(Instant::now() < deadline, "npm never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    Command::new("kill")
        .args(["-TERM", &sweep.id().to_string()])
        .status()
        .expect("kill");
    let status = sweep.wait().expect("wait");
    assert_eq!(status.code(), Some(143));
    assert!(
        std::fs::read_to_string(&out).unwrap_or_default().is_empty(),
        "the install was not stopped half-way"
    );

    let second = dir.path().join("second");
    std::fs::create_dir_all(&second).expect("dir");
    let manifest = write_manifest(&second, &[server("second", package)]);
    let out = second.join("r.jsonl");
    let run = run_sweep(dir.path(), &manifest, &out, &cache);
    assert_eq!(run.status.code(), Some(0));
    let lines = lines(&out);
    let l = line(&lines, "second@1");
    assert_eq!(l["status"], "pass", "{l}");
    assert_eq!(l["install"]["cached"], false);
}

#[test]
fn a_dependency_the_registry_lacks_is_named_and_is_the_environment_s() {
    // A local package location (no index): the package is there, the version of its pinned
    // dependency is not, as postgres-mcp 0.3.0's pglast==7.2.0 was missing.
    let dir = tempfile::tempdir().expect("tempdir");
    let wheels = dir.path().join("wheels");
    let made = Command::new("python3")
        .arg(support::repo().join("tests/fixtures/registry/pypi_wheels.py"))
        .arg(&wheels)
        .status()
        .expect("python3");
    assert!(made.success());
    let manifest = write_manifest(
        dir.path(),
        &[
            server("needs-absent", pypi("mcpcheck-fixture-needs-absent", "1.0")),
            server("absent", pypi("mcpcheck-fixture-needs-absent", "2.0")),
            server(
                "elsewhere",
                pypi("mcpcheck-fixture-script-elsewhere", "1.0"),
            ),
        ],
    );
    let out = dir.path().join("r.jsonl");
    let run = sweep_command(dir.path(), &manifest, &out, &dir.path().join("npm-cache"))
        .args(["--pass-env", "UV_FIND_LINKS", "--pass-env", "UV_NO_INDEX"])
        .env("UV_FIND_LINKS", &wheels)
        .env("UV_NO_INDEX", "1")
        .output()
        .expect("sweep");
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let lines = lines(&out);
    let l = line(&lines, "needs-absent@1");
    assert_eq!(l["status"], "install-failed", "{l}");
    let issue = &l["issues"][0];
    assert_eq!(
        (&issue["code"], &issue["detailCode"], &issue["class"]),
        (
            &json!("install-package-missing"),
            &json!("dependency"),
            &json!("environment")
        ),
        "{l}"
    );
    assert_eq!(
        issue["message"],
        "mcpcheck-fixture-needs-absent==1.0 is on its registry, but its requirement mcpcheck-fixture-absent-dep==7.2.0 is not, so it could not be installed here; the server was not started."
    );
    // The package's own version missing stays the package's fault.
    let own = line(&lines, "absent@1");
    assert_eq!(
        (&own["issues"][0]["detailCode"], &own["issues"][0]["class"]),
        (&json!("version"), &json!("installRuntime")),
        "{own}"
    );
    // A package whose one script is named otherwise: its own script, and uvx's words.
    let elsewhere = line(&lines, "elsewhere@1");
    assert_eq!(
        support::issue_pairs(elsewhere),
        support::pairs(&[("install-no-executable", "error")])
    );
    assert_eq!(
        elsewhere["issues"][0]["evidence"],
        "uvx: Use `uvx --from mcpcheck-fixture-script-elsewhere script-elsewhere` instead. No script named mcpcheck-fixture-script-elsewhere; its own scripts: script-elsewhere"
    );
    // The report counts the first as not judged here, the second as broken.
    let report = support::mcpcheck()
        .args(["sweep-report", "--format", "json"])
        .arg(&out)
        .output()
        .expect("sweep-report");
    let report: Value = serde_json::from_slice(&report.stdout).expect("json");
    let classes = report["issueClasses"].to_string();
    assert!(classes.contains("environment"), "{classes}");
}
