//! The packages users install: `scripts/package` (given the debug binary cargo already
//! built, so no release build) writes a wheel and npm tarballs; each installs into a fresh prefix, offline, and
//! the installed `mcpcheck` prints the version and passes the guard on the README's server.
//! Also: every manifest carries Cargo.toml's version, and the npm launcher says one clear
//! line on a platform it has no binary for.

use crate::support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use support::{python_executable, repo, scrub};
use tempfile::TempDir;

const VERSION: &str = env!("CARGO_PKG_VERSION");

fn run(cmd: &mut Command) -> Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `scripts/package` run once for the whole file, into a directory that lives as long as it.
fn packages() -> &'static Path {
    static OUT: OnceLock<TempDir> = OnceLock::new();
    OUT.get_or_init(|| {
        let out = TempDir::new().expect("temp dir");
        let mut cmd = Command::new(repo().join("scripts/package"));
        scrub(&mut cmd)
            .arg(out.path())
            .env("MCPCHECK_BINARY", env!("CARGO_BIN_EXE_mcpcheck"))
            .current_dir(repo());
        run(&mut cmd);
        out
    })
    .path()
}

/// The one file in the package directory whose name starts and ends so.
fn artifact(prefix: &str, suffix: &str) -> PathBuf {
    let found: Vec<PathBuf> = std::fs::read_dir(packages())
        .expect("package dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            name.starts_with(prefix) && name.ends_with(suffix)
        })
        .collect();
    assert_eq!(found.len(), 1, "one {prefix}*{suffix} expected: {found:?}");
    found.into_iter().next().expect("one artifact")
}

/// The installed command prints the version and passes the guard on examples/servers/hello.py.
fn assert_installed_command_works(mcpcheck: &Path) {
    let mut version = Command::new(mcpcheck);
    let out = run(scrub(&mut version).arg("--version"));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("mcpcheck {VERSION}")
    );

    let hello = repo().join("examples/servers/hello.py");
    let mut guard = Command::new(mcpcheck);
    scrub(&mut guard)
        .args(["guard", "--json", "--", python_executable()])
        .arg(&hello);
    let out = run(&mut guard);
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    assert_eq!(report["ok"], true, "{report:#}");
    assert_eq!(report["summary"]["status"], "pass", "{report:#}");
    assert_eq!(report["serverInfo"]["name"], "hello", "{report:#}");
}

#[test]
fn the_wheel_installs_mcpcheck_into_a_fresh_venv() {
    let wheel = artifact(&format!("mcpcheck-{VERSION}-py3-none-"), ".whl");
    let venv = TempDir::new().expect("temp dir");
    run(Command::new(python_executable())
        .args(["-m", "venv"])
        .arg(venv.path()));
    run(Command::new(venv.path().join("bin/pip"))
        .args(["install", "--no-index", "--disable-pip-version-check", "-q"])
        .arg(&wheel));
    assert_installed_command_works(&venv.path().join("bin/mcpcheck"));
}

/// `npm install --prefix DIR TARBALLS...`, offline, with a cache of its own.
fn npm_install(tarballs: &[PathBuf]) -> TempDir {
    let prefix = TempDir::new().expect("temp dir");
    let mut cmd = Command::new("npm");
    scrub(&mut cmd)
        .args([
            "install",
            "--offline",
            "--no-audit",
            "--no-fund",
            "--prefix",
        ])
        .arg(prefix.path())
        .arg("--cache")
        .arg(prefix.path().join(".npm-cache"))
        .args(tarballs);
    run(&mut cmd);
    prefix
}

/// This machine's platform package: @mcpcheck/linux-* or @mcpcheck/darwin-*.
fn platform_tarball() -> PathBuf {
    let os = if cfg!(target_os = "macos") {
        "darwin"
    } else {
        "linux"
    };
    artifact(&format!("mcpcheck-{os}-"), &format!("-{VERSION}.tgz"))
}

fn npm_main_tarball() -> PathBuf {
    artifact(&format!("mcpcheck-{VERSION}"), ".tgz")
}

#[test]
fn the_npm_tarballs_install_mcpcheck_into_a_fresh_prefix() {
    let platform = platform_tarball();
    let prefix = npm_install(&[npm_main_tarball(), platform]);
    assert_installed_command_works(&prefix.path().join("node_modules/.bin/mcpcheck"));
}

/// Runs the installed launcher with `process.platform`/`process.arch` replaced first.
fn launcher_as(prefix: &Path, platform: Option<&str>, arch: Option<&str>) -> Output {
    let preload = prefix.join("fake-platform.js");
    let mut js = String::new();
    if let Some(p) = platform {
        js += &format!("Object.defineProperty(process, 'platform', {{ value: '{p}' }});\n");
    }
    if let Some(a) = arch {
        js += &format!("Object.defineProperty(process, 'arch', {{ value: '{a}' }});\n");
    }
    std::fs::write(&preload, js).expect("write preload");
    let mut cmd = Command::new("node");
    scrub(&mut cmd)
        .arg("--require")
        .arg(&preload)
        .arg(prefix.join("node_modules/mcpcheck/bin/mcpcheck.js"))
        .arg("--version");
    cmd.output().expect("node")
}

fn assert_one_line_failure(out: &Output, expected: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert!(out.stdout.is_empty(), "stdout: {:?}", out.stdout);
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(stderr.starts_with("mcpcheck: error: "), "{stderr}");
    assert!(stderr.contains(expected), "{expected:?} in {stderr}");
}

#[test]
fn the_npm_launcher_refuses_other_systems_and_cpus_in_one_line() {
    let platform = platform_tarball();
    let prefix = npm_install(&[npm_main_tarball(), platform]);
    let windows = launcher_as(prefix.path(), Some("win32"), Some("x64"));
    assert_one_line_failure(&windows, "Windows is not supported (this is win32-x64)");
    let freebsd = launcher_as(prefix.path(), Some("freebsd"), Some("x64"));
    assert_one_line_failure(
        &freebsd,
        "runs on Linux and macOS only (this is freebsd-x64)",
    );
    let ia32 = launcher_as(prefix.path(), Some("linux"), Some("ia32"));
    assert_one_line_failure(&ia32, "no binary is built for Linux on ia32");
    let mac_ppc = launcher_as(prefix.path(), Some("darwin"), Some("ppc64"));
    assert_one_line_failure(&mac_ppc, "no binary is built for macOS on ppc64");
}

#[test]
fn the_npm_launcher_chooses_the_darwin_package_on_macos() {
    // Only this machine's platform package is installed: the launcher names the one it chose.
    let prefix = npm_install(&[npm_main_tarball()]);
    for arch in ["arm64", "x64"] {
        let out = launcher_as(prefix.path(), Some("darwin"), Some(arch));
        assert_one_line_failure(
            &out,
            &format!("the platform package @mcpcheck/darwin-{arch} "),
        );
    }
}

#[test]
fn the_npm_launcher_names_a_missing_platform_package() {
    // npm skips optional dependencies it cannot fetch: offline, the platform package is missing.
    let prefix = npm_install(&[npm_main_tarball()]);
    let out = launcher_as(prefix.path(), Some("linux"), None);
    assert_one_line_failure(&out, "the platform package @mcpcheck/linux-");
    assert_one_line_failure(&out, "without --omit=optional");
}

#[test]
fn the_binary_archive_matches_its_sha256_file() {
    let archive = artifact(&format!("mcpcheck-{VERSION}-"), ".tar.gz");
    // macOS has shasum, with the same check mode.
    let mut check = if cfg!(target_os = "macos") {
        let mut c = Command::new("shasum");
        c.args(["-a", "256", "--check", "--strict"]);
        c
    } else {
        let mut c = Command::new("sha256sum");
        c.args(["--check", "--strict"]);
        c
    };
    check
        .arg(format!("{}.sha256", archive.display()))
        .current_dir(packages());
    run(&mut check);

    let unpacked = TempDir::new().expect("temp dir");
    run(Command::new("tar")
        .arg("-xzf")
        .arg(&archive)
        .arg("-C")
        .arg(unpacked.path()));
    let dir = archive
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(".tar.gz"))
        .expect("archive name");
    assert_installed_command_works(&unpacked.path().join(dir).join("mcpcheck"));
}

// --- versions -------------------------------------------------------------------------

fn read(path: &str) -> String {
    std::fs::read_to_string(repo().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `version = "..."` of pyproject.toml's [project] table.
fn pyproject_version() -> String {
    let text = read("pyproject.toml");
    let mut table = "";
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            table = line;
        } else if table == "[project]" {
            if let Some(value) = line.strip_prefix("version") {
                let value = value.trim_start().strip_prefix('=').expect("version = ...");
                return value.trim().trim_matches('"').to_string();
            }
        }
    }
    panic!("pyproject.toml has no [project] version");
}

/// Every package.json under npm/, with its path.
fn npm_manifests() -> Vec<(String, Value)> {
    let mut found = Vec::new();
    let mut dirs = vec![repo().join("npm")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("npm dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.file_name().is_some_and(|n| n == "package.json") {
                let json = serde_json::from_str(&std::fs::read_to_string(&path).expect("read"))
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                found.push((path.display().to_string(), json));
            }
        }
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

#[test]
fn every_manifest_carries_the_cargo_version() {
    assert_eq!(pyproject_version(), VERSION, "pyproject.toml");

    let manifests = npm_manifests();
    assert_eq!(
        manifests.len(),
        7,
        "mcpcheck + 6 platform packages: {manifests:?}"
    );
    for (path, json) in &manifests {
        assert_eq!(json["version"], VERSION, "{path}");
    }
    let (_, main) = manifests
        .iter()
        .find(|(_, m)| m["name"] == "mcpcheck")
        .expect("npm package mcpcheck");
    let optional = main["optionalDependencies"]
        .as_object()
        .expect("optionalDependencies");
    let platforms: Vec<&str> = manifests
        .iter()
        .filter_map(|(_, m)| m["name"].as_str())
        .filter(|n| n.starts_with("@mcpcheck/"))
        .collect();
    assert_eq!(
        optional.keys().map(String::as_str).collect::<Vec<_>>(),
        {
            let mut p = platforms.clone();
            p.sort_unstable();
            p
        },
        "mcpcheck depends on exactly the platform packages"
    );
    for (name, version) in optional {
        assert_eq!(version, VERSION, "optionalDependencies.{name}");
    }

    // The Action builds its image from the Dockerfile today; once it names a published
    // image, that image's tag is this version.
    let action = read("action.yml");
    let image = action
        .lines()
        .find_map(|l| l.trim().strip_prefix("image:"))
        .map(|v| v.trim().trim_matches(['"', '\'']))
        .expect("action.yml runs.image");
    if let Some(reference) = image.strip_prefix("docker://") {
        let tag = reference.rsplit_once(':').map(|(_, t)| t).unwrap_or("");
        assert!(
            tag == VERSION || tag == format!("v{VERSION}"),
            "action.yml image {reference} is not tagged {VERSION}"
        );
    } else {
        assert_eq!(image, "Dockerfile", "action.yml runs.image");
    }
}

#[test]
fn each_platform_package_declares_the_system_it_is_named_for() {
    for (path, json) in npm_manifests() {
        let Some(platform) = json["name"]
            .as_str()
            .and_then(|n| n.strip_prefix("@mcpcheck/"))
        else {
            continue;
        };
        let (os, cpu, libc) = match platform {
            "linux-x64" => ("linux", "x64", Some("glibc")),
            "linux-arm64" => ("linux", "arm64", Some("glibc")),
            "linux-x64-musl" => ("linux", "x64", Some("musl")),
            "linux-arm64-musl" => ("linux", "arm64", Some("musl")),
            "darwin-arm64" => ("darwin", "arm64", None),
            "darwin-x64" => ("darwin", "x64", None),
            other => panic!("{path}: unexpected platform package {other}"),
        };
        assert_eq!(json["os"], serde_json::json!([os]), "{path}");
        assert_eq!(json["cpu"], serde_json::json!([cpu]), "{path}");
        match libc {
            Some(libc) => assert_eq!(json["libc"], serde_json::json!([libc]), "{path}"),
            None => assert_eq!(json.get("libc"), None, "{path}: macOS has no libc field"),
        }
        assert_eq!(json["files"], serde_json::json!(["bin/mcpcheck"]), "{path}");
        assert!(
            path.ends_with(&format!("npm/platforms/{platform}/package.json")),
            "{path}"
        );
    }
}
