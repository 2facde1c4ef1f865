//! A registry entry's npm package is installed as `npx -y NAME@VERSION` installs it, by npx
//! itself, from a local registry of fixture packages (tests/fixtures/npm, served by
//! tests/fixtures/registry/npm_packages.py): the executable npx chooses (one file under
//! several names; the one named as the unscoped package; none when several files and none
//! so named), an install script that runs only from npx's cache (`_npx` in its path), and a
//! second sweep that finds every install in npx's cache and installs nothing.

use crate::support;

use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;
use support::npm_registry::Registry;
use support::sweep::*;

/// A registry entry for `identifier@1.0.0`, whose server (when its bin starts one) is the
/// correct fixture server.
fn entry(id: &str, identifier: &str) -> Value {
    json!({
        "id": id,
        "server": {
            "name": format!("io.example/{id}"),
            "version": "1.0.0",
            "packages": [{"registryType": "npm", "identifier": identifier, "version": "1.0.0",
                          "transport": {"type": "stdio"}}],
        },
        "env": {"FIXTURE_SERVER": support::fixture("clean")},
    })
}

fn sweep_once(dir: &Path, registry: &Registry, manifest: &Path, out: &Path) {
    let run = support::mcpcheck()
        .arg("sweep")
        .arg(manifest)
        .arg("--out")
        .arg(out)
        .args(["--jobs", "2", "--pass-env", "npm_config_registry"])
        .env("npm_config_registry", &registry.url)
        .env("npm_config_cache", dir.join("npm-cache"))
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
fn npx_installs_and_chooses_the_executable_and_a_second_sweep_installs_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let registry = Registry::serving(&[
        "two-bins-one-file",
        "several-bins-one-named",
        "several-bins-none-named",
        "install-script-needs-npx",
    ]);
    let manifest = write_manifest(
        dir.path(),
        &[
            entry("two-bins", "@mcpcheck-fixture/two-bins-one-file"),
            entry("one-named", "@mcpcheck-fixture/several-bins-one-named"),
            entry("none-named", "@mcpcheck-fixture/several-bins-none-named"),
            entry("needs-npx", "mcpcheck-fixture-install-script-needs-npx"),
        ],
    );
    let cold = dir.path().join("cold.jsonl");
    sweep_once(dir.path(), &registry, &manifest, &cold);
    let lines = lines(&cold);
    for (id, identifier) in [
        ("two-bins", "@mcpcheck-fixture/two-bins-one-file"),
        ("one-named", "@mcpcheck-fixture/several-bins-one-named"),
        ("needs-npx", "mcpcheck-fixture-install-script-needs-npx"),
    ] {
        let l = line(&lines, id);
        assert_eq!(l["status"], "pass", "{id}: {l}");
        assert_eq!(l["install"]["ok"], true, "{id}: {l}");
        assert_eq!(l["install"]["cached"], false, "{id}: {l}");
        // The server starts with the entry's own command: npx runs it from its cache.
        assert_eq!(
            l["command"],
            json!(["npx", "-y", format!("{identifier}@1.0.0")]),
            "{id}"
        );
        let program = l["install"]["program"].as_str().expect("program");
        assert!(program.contains("/_npx/"), "{id}: {program}");
    }
    // Of two files, npx runs the one named as the package, not the other tool.
    let program = line(&lines, "one-named")["install"]["program"]
        .as_str()
        .expect("program")
        .to_string();
    assert!(
        program.ends_with("/.bin/several-bins-one-named"),
        "{program}"
    );
    let none = line(&lines, "none-named");
    assert_eq!(none["status"], "install-failed", "{none}");
    assert_eq!(
        support::issue_pairs(none),
        support::pairs(&[("install-no-executable", "error")])
    );
    let evidence = none["issues"][0]["evidence"].as_str().expect("evidence");
    assert!(
        evidence
            .contains("none named several-bins-none-named: first-tool (bin/first.sh), second-tool")
            && evidence.contains("could not determine executable to run"),
        "{evidence}"
    );

    // The same manifest again, same caches: every install is found complete in npx's cache.
    let warm = dir.path().join("warm.jsonl");
    sweep_once(dir.path(), &registry, &manifest, &warm);
    let lines = support::sweep::lines(&warm);
    for id in ["two-bins", "one-named", "needs-npx"] {
        let l = line(&lines, id);
        assert_eq!(l["status"], "pass", "{id}: {l}");
        assert_eq!(l["install"]["cached"], true, "{id}: {l}");
        assert_eq!(l["install"]["durationMs"], 0, "{id}: {l}");
    }
}

#[test]
fn the_fixture_s_install_script_fails_outside_npx_s_cache() {
    // What the sweep did before it let npx install: `npm install --prefix DIR` runs the
    // script outside an `_npx` path, and it refuses.
    let dir = tempfile::tempdir().expect("tempdir");
    let registry = Registry::serving(&["install-script-needs-npx"]);
    let out = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--prefix"])
        .arg(dir.path().join("prefix"))
        .arg("mcpcheck-fixture-install-script-needs-npx@1.0.0")
        .env("npm_config_registry", &registry.url)
        .env("npm_config_cache", dir.path().join("npm-cache"))
        .output()
        .expect("npm");
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not installed by npx, refusing"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_package_for_a_newer_node_that_exits_at_start_needs_a_newer_runtime() {
    // npm only warns of engines.node (EBADENGINE): npx installs it and starts it, and it
    // exits as a server using newer Node APIs does on an older Node.
    let dir = tempfile::tempdir().expect("tempdir");
    let registry = Registry::serving(&["engines-node-newer"]);
    let manifest = write_manifest(
        dir.path(),
        &[entry("newer-node", "mcpcheck-fixture-engines-node-newer")],
    );
    let out = dir.path().join("r.jsonl");
    sweep_once(dir.path(), &registry, &manifest, &out);
    let lines = lines(&out);
    let l = line(&lines, "newer-node");
    assert_eq!(l["status"], "install-failed", "{l}");
    assert_eq!(
        support::issue_pairs(l),
        support::pairs(&[("install-runtime-too-old", "error")])
    );
    assert_eq!(l["issues"][0]["detailCode"], "engine");
    let evidence = l["issues"][0]["evidence"].as_str().expect("evidence");
    assert!(
        evidence.starts_with("engines.node \">=999\"; node v")
            && evidence.ends_with("TypeError: process.getBuiltinModule999 is not a function"),
        "{evidence}"
    );
    // The report counts it as could not be judged here, saying why.
    let report = support::mcpcheck()
        .args(["sweep-report", "--format", "json"])
        .arg(&out)
        .output()
        .expect("sweep-report");
    let report: Value = serde_json::from_slice(&report.stdout).expect("json");
    assert_eq!(
        report["judged"]["notJudgedServers"],
        json!([{"id": "newer-node", "reason": "runtime too old for this host"}])
    );
}

#[test]
fn a_native_build_that_fails_for_a_missing_library_is_the_host_s() {
    let dir = tempfile::tempdir().expect("tempdir");
    let registry = Registry::serving(&["native-build-fails"]);
    let manifest = write_manifest(
        dir.path(),
        &[entry("native", "mcpcheck-fixture-native-build-fails")],
    );
    let out = dir.path().join("r.jsonl");
    sweep_once(dir.path(), &registry, &manifest, &out);
    let lines = lines(&out);
    let l = line(&lines, "native");
    assert_eq!(l["status"], "install-failed", "{l}");
    let issue = &l["issues"][0];
    assert_eq!(
        (&issue["code"], &issue["detailCode"], &issue["class"]),
        (
            &json!("install-failed"),
            &json!("native-library"),
            &json!("environment")
        ),
        "{l}"
    );
    // npm's line naming the script, and the script's own words, not "command failed".
    assert_eq!(
        issue["evidence"],
        "mcpcheck-fixture-native-build-fails@1.0.0 install: Package libmcpcheckfixture-1 was not found in the pkg-config search path."
    );
    // The output's end keeps its line breaks (JSON escapes them once).
    let tail = l["install"]["outputTail"].as_str().expect("outputTail");
    assert!(
        tail.contains("gyp ERR! configure error\ngyp ERR! not ok\n"),
        "{tail}"
    );
    assert!(!tail.contains("\\n"), "{tail}");
}
