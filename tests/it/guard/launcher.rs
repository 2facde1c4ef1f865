//! A server fetched by `npx` or `uvx` that never started because the launcher could not
//! install it: the launcher's own words name the fault (the package or version is not on
//! its registry), from the real npm registry and PyPI, instead of "the server exited".

use crate::support;

use std::process::Command;
use support::guard::*;
use support::{mcpcheck, pairs};

fn launched(mut cmd: Command, server: &[&str]) -> GuardResult {
    let cache = tempfile::tempdir().expect("npm cache");
    cmd.env("npm_config_cache", cache.path());
    guard_with(cmd, &["--timeout", "60000"], server)
}

fn assert_not_installed(r: &GuardResult, detail: &str, said: &str) {
    assert_eq!(
        r.issues(),
        pairs(&[("install-package-missing", "error")]),
        "{:#}",
        r.json["issues"]
    );
    let issue = r.issue("install-package-missing");
    assert_eq!(issue["detailCode"], detail);
    assert_eq!(issue["class"], "installRuntime");
    assert!(
        issue["evidence"].as_str().unwrap_or("").contains(said),
        "{issue:#}"
    );
    assert_eq!(r.status(), "needs_inspection");
    assert_eq!(r.exit, 1);
}

#[test]
fn npx_of_a_package_npm_does_not_have_names_it_missing() {
    let r = launched(
        mcpcheck(),
        &["npx", "-y", "@mcpcheck-test-nonexistent/no-such-server-404"],
    );
    assert_not_installed(&r, "package", "404 Not Found");
    let message = r.issue("install-package-missing")["message"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(
        message.starts_with("The server never started: npm could not install it, because the package is not on its registry."),
        "{message}"
    );
    // With --no-install npx fails during the session, and its words on stderr give the same
    // finding as the install before the session did.
    let cache = tempfile::tempdir().expect("npm cache");
    let mut cmd = mcpcheck();
    cmd.env("npm_config_cache", cache.path());
    let during = guard_with(
        cmd,
        &["--timeout", "60000", "--no-install"],
        &["npx", "-y", "@mcpcheck-test-nonexistent/no-such-server-404"],
    );
    assert_not_installed(&during, "package", "404 Not Found");
    assert_eq!(
        during.issue("install-package-missing")["message"],
        message.as_str()
    );
    assert_eq!(during.json["process"]["started"], true);
}

#[test]
fn npx_of_a_version_npm_does_not_have_names_the_version() {
    let r = launched(
        mcpcheck(),
        &["npx", "-y", "@modelcontextprotocol/server-memory@99.0.0"],
    );
    assert_not_installed(&r, "version", "No matching version found");
}

#[test]
fn uvx_of_a_version_pypi_does_not_have_names_the_version() {
    let tools = tempfile::tempdir().expect("tools");
    let mut cmd = mcpcheck();
    cmd.env(
        "PATH",
        support::path_with(&support::pinned_uv(tools.path(), &["uv", "uvx"])),
    );
    let r = launched(cmd, &["uvx", "mcp-server-time==99.0"]);
    assert_not_installed(
        &r,
        "version",
        "there is no version of mcp-server-time==99.0",
    );
}

/// A package directory holding `files` (name, content).
fn package(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, content) in files {
        std::fs::write(dir.path().join(name), content).expect("write");
    }
    dir
}

#[test]
fn an_unbuilt_typescript_server_is_told_to_build_it() {
    // Issue 44 item 6: `Cannot find module …/dist/index.js` beside a build script and a
    // tsconfig.json got "a missing dependency, environment variable or configuration file
    // is the usual cause".
    let dir = package(&[
        (
            "package.json",
            r#"{"name": "weather", "version": "1.0.0", "scripts": {"build": "tsc"}}"#,
        ),
        (
            "tsconfig.json",
            r#"{"compilerOptions": {"outDir": "dist"}}"#,
        ),
    ]);
    let cwd = dir.path().to_str().expect("utf-8");
    let r = guard(&["--cwd", cwd], &["node", "dist/index.js"]);
    assert_eq!(r.issues(), pairs(&[("server-exited", "error")]));
    let fix = r.issue("server-exited")["fix"].as_str().expect("fix");
    assert!(
        fix.starts_with("`dist/index.js` does not exist: the TypeScript server has not been built"),
        "{fix}"
    );
    assert!(fix.contains("`npm run build`"), "{fix}");
}

#[test]
fn npm_s_own_banner_is_named_with_the_way_around_it() {
    // Issue 44 item 6: `guard -- npm start` caught npm's banner, and the fix did not say to
    // start node directly or use `npm --silent`.
    let server = support::repo().join("tests/fixtures/servers/reference/cases.mjs");
    let manifest = format!(
        r#"{{"name": "weather", "version": "1.0.0", "scripts": {{"start": "node {} clean"}}}}"#,
        server.display()
    );
    let dir = package(&[("package.json", &manifest)]);
    let cwd = dir.path().to_str().expect("utf-8");
    let r = guard(&["--cwd", cwd], &["npm", "start"]);
    let issue = r.issue("stdout-non-json");
    assert_eq!(issue["evidence"], "> weather@1.0.0 start");
    let fix = issue["fix"].as_str().expect("fix");
    assert!(fix.contains("npm's own"), "{fix}");
    assert!(fix.contains("`npm --silent start`"), "{fix}");
    // No write in the server's source printed it: no advice to scan for one.
    assert!(!fix.contains("--scan"), "{fix}");
    // And the way around it works.
    let quiet = guard(&["--cwd", cwd], &["npm", "--silent", "start"]);
    assert_eq!(quiet.issues(), pairs(&[]), "{:#}", quiet.json["issues"]);
}
