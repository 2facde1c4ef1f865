//! A command whose launcher fetches the server (`npx -y NAME@VERSION`) is installed by that
//! launcher before the session, under its own deadline, from a local registry of fixture
//! packages (tests/fixtures/npm): a slow install does not eat the session's `--timeout`,
//! and an install that fails is the run's one finding, with the install codes, and the
//! server never started.

use crate::support;

use std::path::Path;
use std::process::Command;
use support::guard::*;
use support::npm_registry::Registry;

/// `mcpcheck` with npx pointed at `registry` and a fresh cache in `dir`, and the correct
/// fixture server behind every fixture package's executable.
fn with_registry(registry: &Registry, dir: &Path) -> Command {
    let mut cmd = support::mcpcheck();
    cmd.env("npm_config_registry", &registry.url)
        .env("npm_config_cache", dir.join("npm-cache"))
        .env("FIXTURE_SERVER", support::fixture("clean"));
    cmd
}

#[test]
fn a_slow_install_comes_before_the_session_and_its_timeout() {
    let dir = tempfile::tempdir().expect("tempdir");
    let registry = Registry::serving(&["slow-install"]);
    // The install script alone takes 8 s: a session that started the clock with npx would
    // time out at initialize.
    let r = guard_with(
        with_registry(&registry, dir.path()),
        &["--timeout", "5s"],
        &["npx", "-y", "mcpcheck-fixture-slow-install@1.0.0"],
    );
    assert_eq!(r.status(), "pass", "{:#}", r.json["issues"]);
    assert_eq!(r.exit, 0);
    let install_ms = r.json["phases"]["installMs"].as_u64().expect("installMs");
    assert!(install_ms >= 8000, "install took {install_ms} ms");
    // The install is part of the run's wall time, before every session's clock.
    let duration = r.json["durationMs"].as_u64().expect("durationMs");
    assert!(duration >= install_ms, "{duration} < {install_ms}");
    assert_eq!(r.json["process"]["started"], true);
    // npx found it in its own cache and ran it from there.
    let npx = dir.path().join("npm-cache/_npx");
    assert!(std::fs::read_dir(&npx).expect("npx's cache").count() == 1);
    // A second run finds the install complete and installs nothing.
    let again = guard_with(
        with_registry(&registry, dir.path()),
        &["--timeout", "5s"],
        &["npx", "-y", "mcpcheck-fixture-slow-install@1.0.0"],
    );
    assert_eq!(again.status(), "pass", "{:#}", again.json["issues"]);
    let warm_ms = again.json["phases"]["installMs"]
        .as_u64()
        .expect("installMs");
    assert!(
        warm_ms < 2000,
        "a complete install took {warm_ms} ms to find"
    );
    // The human report says the install came first, and how long it took.
    let human = with_registry(&registry, dir.path())
        .args(["guard", "--timeout", "5s", "--"])
        .args(["npx", "-y", "mcpcheck-fixture-slow-install@1.0.0"])
        .output()
        .expect("mcpcheck runs");
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.lines().any(|l| l
            .starts_with("  install: the launcher's package installed first, in ")
            && l.ends_with(" s (before the session; --timeout started with the server)")),
        "{text}"
    );
}

#[test]
fn an_install_that_fails_is_the_one_finding_of_a_server_never_started() {
    let dir = tempfile::tempdir().expect("tempdir");
    let registry = Registry::serving(&["several-bins-none-named"]);
    let r = guard_with(
        with_registry(&registry, dir.path()),
        &[],
        &[
            "npx",
            "-y",
            "@mcpcheck-fixture/several-bins-none-named@1.0.0",
        ],
    );
    assert_eq!(
        r.issues(),
        support::pairs(&[("install-no-executable", "error")]),
        "{:#}",
        r.json["issues"]
    );
    let issue = r.issue("install-no-executable");
    assert_eq!(issue["class"], "installRuntime");
    let evidence = issue["evidence"].as_str().unwrap_or_default();
    assert!(
        evidence.contains("could not determine executable to run")
            && evidence.contains("none named several-bins-none-named"),
        "{evidence}"
    );
    assert_eq!(r.status(), "needs_inspection");
    assert_eq!(r.exit, 1);
    // No session ran: no process, no frame, no request.
    let process = &r.json["process"];
    assert_eq!(
        (&process["started"], &process["outcome"], &process["pid"]),
        (
            &serde_json::json!(false),
            &serde_json::json!("install-failed"),
            &serde_json::Value::Null
        ),
        "{process:#}"
    );
    assert_eq!(r.json["exchanges"], serde_json::json!([]));
    assert_eq!(r.json["checks"]["install"]["status"], "fail");

    // A package the registry does not have: npm's own words, the run never started it.
    let missing = guard_with(
        with_registry(&registry, dir.path()),
        &[],
        &["npx", "-y", "mcpcheck-fixture-not-served@1.0.0"],
    );
    assert_eq!(
        missing.issues(),
        support::pairs(&[("install-package-missing", "error")]),
        "{:#}",
        missing.json["issues"]
    );
    assert_eq!(missing.json["process"]["started"], false);
}

#[test]
fn a_package_for_a_newer_node_that_exits_at_start_needs_a_newer_runtime() {
    // npm only warns of engines.node at install: the server starts, exits as a package using
    // newer Node APIs does, and the runtime is why.
    let dir = tempfile::tempdir().expect("tempdir");
    let registry = Registry::serving(&["engines-node-newer"]);
    let r = guard_with(
        with_registry(&registry, dir.path()),
        &[],
        &["npx", "-y", "mcpcheck-fixture-engines-node-newer@1.0.0"],
    );
    assert_eq!(
        r.issues(),
        support::pairs(&[("install-runtime-too-old", "error")]),
        "{:#}",
        r.json["issues"]
    );
    let issue = r.issue("install-runtime-too-old");
    assert_eq!(issue["detailCode"], "engine");
    let evidence = issue["evidence"].as_str().unwrap_or_default();
    assert!(
        evidence.starts_with("engines.node \">=999\"; node v"),
        "{evidence}"
    );
    // This server did start (and exit): the run says so.
    assert_eq!(r.json["process"]["started"], true);
}

#[test]
fn no_install_leaves_the_install_to_the_launcher_inside_the_timeout() {
    // Today's behaviour on request: npx installs during the session, and the 8 s install
    // script outlasts a 5 s timeout at initialize.
    let dir = tempfile::tempdir().expect("tempdir");
    let registry = Registry::serving(&["slow-install"]);
    let r = guard_with(
        with_registry(&registry, dir.path()),
        &["--timeout", "5s", "--no-install"],
        &["npx", "-y", "mcpcheck-fixture-slow-install@1.0.0"],
    );
    assert!(
        r.issues()
            .iter()
            .any(|(code, _)| code == "initialize-timeout"),
        "{:#}",
        r.json["issues"]
    );
    assert_eq!(r.json["phases"].get("installMs"), None);
    assert_eq!(r.json["process"]["started"], true);
}

#[test]
fn an_install_past_install_timeout_is_install_timeout() {
    let dir = tempfile::tempdir().expect("tempdir");
    let registry = Registry::serving(&["slow-install"]);
    let r = guard_with(
        with_registry(&registry, dir.path()),
        &["--install-timeout", "1s"],
        &["npx", "-y", "mcpcheck-fixture-slow-install@1.0.0"],
    );
    assert_eq!(
        r.issues(),
        support::pairs(&[("install-timeout", "error")]),
        "{:#}",
        r.json["issues"]
    );
    assert_eq!(r.json["process"]["started"], false);
    assert_eq!(r.exit, 1);
    // A zero bound is refused before anything starts, in one line.
    let out = support::mcpcheck()
        .args([
            "guard",
            "--install-timeout",
            "0",
            "--",
            "npx",
            "-y",
            "x@1.0.0",
        ])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("--install-timeout must be at least 1 ms"),
        "{stderr}"
    );
}

#[test]
fn the_installer_sees_the_server_s_variables_and_its_words_never_show_them() {
    // The launcher installs with the server's environment (a registry token given to the
    // server is the launcher's too); what it repeats of a given value is masked.
    let dir = tempfile::tempdir().expect("tempdir");
    let registry = Registry::serving(&["install-script-leaks"]);
    let secret = "pw-9f8e7d6c5b4a-never-shown";
    let out = with_registry(&registry, dir.path())
        .args(["guard", "--json", "--env"])
        .arg(format!("DB_PASSWORD={secret}"))
        .args([
            "--",
            "npx",
            "-y",
            "mcpcheck-fixture-install-script-leaks@1.0.0",
        ])
        .output()
        .expect("run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stdout.contains(secret) && !stderr.contains(secret),
        "{stdout}{stderr}"
    );
    let r = parse(out);
    assert_eq!(
        r.json["process"]["started"], false,
        "{:#}",
        r.json["issues"]
    );
    let issue = r.issue("install-failed");
    let evidence = issue["evidence"].as_str().unwrap_or_default();
    assert!(
        evidence.contains("cannot log in to the registry with [REDACTED]"),
        "{evidence}"
    );
}

#[test]
fn a_working_directory_that_is_not_there_is_refused_not_made_by_the_install() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("not-there");
    let out = support::mcpcheck()
        .args(["guard", "--cwd", missing.to_str().expect("utf-8")])
        .args(["--", "npx", "-y", "mcpcheck-fixture-not-served@1.0.0"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not a directory"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!missing.exists());
}
