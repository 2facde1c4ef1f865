//! A server fetched by `npx` or `uvx` that never started because the launcher could not
//! install it: the launcher's own words name the fault (the package or version is not on
//! its registry), from the real npm registry and PyPI, instead of "the server exited".

mod support;

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
