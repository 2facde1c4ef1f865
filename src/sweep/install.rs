//! The install phase of a registry entry: its npm or PyPI package installed before the
//! server starts, with a deadline of its own (`--install-timeout`), so an install is never
//! mistaken for a server that does not answer. Each package is installed once per sweep
//! (per entry with `--isolated-caches`) into a fresh directory that is renamed into place
//! only when complete: an install killed half-way leaves nothing another entry reads, and
//! npm's and uv's own caches are safe for concurrent use (npx's `_npx` directory is not).

use super::install_bin::{npm_bin, pypi_script};
use super::setup;
use crate::catalog::Code;
use crate::finding::{excerpt, Finding};
use crate::install_faults;
use crate::process::ServerCommand;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Longest an install may run, by default: a cold cache builds native modules.
pub const DEFAULT_INSTALL_TIMEOUT: Duration = Duration::from_secs(600);
/// Marks a complete install directory.
const READY: &str = ".mcpcheck-installed";

/// A package as a client's runtime would fetch it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Package {
    /// `npx -y identifier@version`.
    Npm { identifier: String, version: String },
    /// `uvx identifier==version`.
    Pypi { identifier: String, version: String },
    /// The same package where neither uvx nor pipx is at hand: `python3 -m venv`, then pip.
    PypiPip { identifier: String, version: String },
}

impl Package {
    fn spec(&self) -> String {
        match self {
            Self::Npm {
                identifier,
                version,
            } if !version.is_empty() => format!("{identifier}@{version}"),
            Self::Pypi {
                identifier,
                version,
            }
            | Self::PypiPip {
                identifier,
                version,
            } if !version.is_empty() => format!("{identifier}=={version}"),
            Self::Npm { identifier, .. }
            | Self::Pypi { identifier, .. }
            | Self::PypiPip { identifier, .. } => identifier.clone(),
        }
    }

    /// A directory name for this package: its spec with anything but letters, digits, `.`
    /// and `-` replaced, and a hash so two specs never share one.
    fn key(&self) -> String {
        let (kind, spec) = match self {
            Self::Npm { .. } => ("npm", self.spec()),
            Self::Pypi { .. } => ("pypi", self.spec()),
            Self::PypiPip { .. } => ("pypi-pip", self.spec()),
        };
        let readable: String = spec
            .chars()
            .take(60)
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '.' | '-') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let hash = crate::sweep::shard::fnv1a64(spec.as_bytes());
        format!("{kind}-{readable}-{hash:016x}")
    }
}

/// The installed server's program, or why there is none.
pub enum Installed {
    Ready { program: PathBuf, facts: Value },
    Failed { facts: Value, finding: Box<Finding> },
}

/// Installs packages under one root, each once, one install of a package at a time.
pub struct Installer {
    root: PathBuf,
    timeout: Duration,
    locks: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

impl Installer {
    pub fn new(root: PathBuf, timeout: Duration) -> Self {
        Self {
            root,
            timeout,
            locks: Mutex::new(HashMap::new()),
        }
    }

    /// Installs `package` (or finds it installed) with `env`, the sandbox's environment:
    /// the entry's own variables, its secrets among them, are not an installer's business.
    pub async fn install(&self, package: &Package, env: &[(String, String)]) -> Installed {
        let key = package.key();
        let lock = {
            let mut locks = self.locks.lock().unwrap_or_else(|e| e.into_inner());
            Arc::clone(locks.entry(key.clone()).or_default())
        };
        let _held = lock.lock().await;
        let started = Instant::now();
        let dir = self.root.join(&key);
        if dir.join(READY).is_file() {
            return resolve(package, &dir, json!({"cached": true, "durationMs": 0}));
        }
        // Installed in place (a virtual environment cannot be moved): what an install that
        // failed or was stopped left is removed first, and only a complete one is marked.
        let _ = std::fs::remove_dir_all(&dir);
        if let Err(e) = std::fs::create_dir_all(&dir) {
            let why = format!("cannot create the install directory: {e}");
            return failed(Code::InstallFailed, "io", &why, json!({"error": why}));
        }
        let mut facts = json!({"cached": false});
        for argv in commands(package, &dir) {
            let left = self.timeout.saturating_sub(started.elapsed());
            let command = ServerCommand {
                program: argv[0].clone(),
                args: argv[1..].to_vec(),
                cwd: Some(dir.clone()),
                env: env.to_vec(),
                clear_env: true,
                unset_env: Vec::new(),
            };
            let outcome = setup::run(
                &command,
                left.max(Duration::from_millis(1)),
                &crate::secrets::KnownSecrets::new(),
            )
            .await;
            facts = outcome.facts;
            facts["cached"] = json!(false);
            if !outcome.ok {
                facts["durationMs"] = json!(started.elapsed().as_millis() as u64);
                let (code, detail, evidence) =
                    classify(package, &facts, &outcome.output, self.timeout);
                let message = message(code, package, self.timeout);
                return failed(code, detail, &evidence, facts).with_message(message);
            }
        }
        facts["durationMs"] = json!(started.elapsed().as_millis() as u64);
        let _ = std::fs::write(dir.join(READY), package.spec());
        resolve(package, &dir, facts)
    }
}

/// The package as npx finds it already installed in the project at `cwd` (its
/// `node_modules` holds that very version): npx runs it from there and installs nothing.
pub fn in_project(package: &Package, cwd: &Path) -> Option<Installed> {
    let Package::Npm {
        identifier,
        version,
    } = package
    else {
        return None;
    };
    let manifest = cwd
        .join("node_modules")
        .join(identifier)
        .join("package.json");
    let text = std::fs::read_to_string(manifest).ok()?;
    let found: Value = serde_json::from_str(&text).ok()?;
    if found.get("version").and_then(Value::as_str) != Some(version.as_str()) {
        return None;
    }
    Some(resolve(
        package,
        cwd,
        json!({"cached": true, "inProject": true, "durationMs": 0}),
    ))
}

/// The commands that install `package` into `dir`.
fn commands(package: &Package, dir: &Path) -> Vec<Vec<String>> {
    let dir = dir.display().to_string();
    match package {
        Package::Npm { .. } => vec![[
            "npm",
            "install",
            "--prefix",
            &dir,
            "--no-audit",
            "--no-fund",
            "--no-save",
            "--no-package-lock",
            "--loglevel=error",
            &package.spec(),
        ]
        .map(String::from)
        .to_vec()],
        Package::PypiPip { .. } => {
            let venv = format!("{dir}/venv");
            vec![
                ["python3", "-m", "venv", &venv].map(String::from).to_vec(),
                [
                    &format!("{venv}/bin/python"),
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                    &package.spec(),
                ]
                .map(String::from)
                .to_vec(),
            ]
        }
        Package::Pypi { .. } => {
            let venv = format!("{dir}/venv");
            vec![
                ["uv", "venv", "--quiet", &venv].map(String::from).to_vec(),
                [
                    "uv",
                    "pip",
                    "install",
                    "--quiet",
                    // Compiled now, as pip does, so the first start is not spent compiling.
                    "--compile-bytecode",
                    "--python",
                    &format!("{venv}/bin/python"),
                    &package.spec(),
                ]
                .map(String::from)
                .to_vec(),
            ]
        }
    }
}

/// The program to start from a complete install, found as the client's runtime finds it.
fn resolve(package: &Package, dir: &Path, facts: Value) -> Installed {
    let found = match package {
        Package::Npm { identifier, .. } => npm_bin(dir, identifier),
        Package::Pypi { identifier, .. } | Package::PypiPip { identifier, .. } => {
            pypi_script(dir, identifier)
        }
    };
    match found {
        Ok(program) => Installed::Ready { program, facts },
        Err(evidence) => {
            let message = message(Code::InstallNoExecutable, package, Duration::ZERO);
            failed(
                Code::InstallNoExecutable,
                "no-executable",
                &evidence.0,
                facts,
            )
            .with_message(message)
        }
    }
}

/// The code, detail code and decisive line of a failed install.
fn classify(
    package: &Package,
    facts: &Value,
    output: &str,
    timeout: Duration,
) -> (Code, &'static str, String) {
    if facts["timedOut"] == json!(true) {
        let why = format!(
            "no end within {} ms (--install-timeout)",
            timeout.as_millis()
        );
        return (Code::InstallTimeout, "timeout", why);
    }
    if let Some(spawn) = facts["spawnError"].as_str() {
        return (Code::InstallFailed, "installer-missing", spawn.to_string());
    }
    let installer = match package {
        Package::Npm { .. } => install_faults::Installer::Npm,
        Package::Pypi { .. } => install_faults::Installer::Uv,
        Package::PypiPip { .. } => install_faults::Installer::Pip,
    };
    // The install failed: a warning (npm's EBADENGINE) may be why.
    if let Some(fault) = install_faults::fault_in(installer, output, false) {
        return (fault.code, fault.detail, fault.line);
    }
    let lines: Vec<&str> = output
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    // Not the installer's pointers to its own log, nor npm's fields (code, syscall, path…):
    // the first line that says what failed.
    const FIELDS: &[&str] = &[
        "code ",
        "syscall ",
        "path ",
        "errno ",
        "dest ",
        "a complete log",
    ];
    let decisive = lines
        .iter()
        .find(|l| {
            let l = l.to_ascii_lowercase();
            let npm_field = l
                .strip_prefix("npm error ")
                .is_some_and(|rest| FIELDS.iter().any(|f| rest.starts_with(f)));
            (l.contains("error") || l.starts_with('×')) && !npm_field
        })
        .or(lines.last())
        .map_or_else(
            || "the installer failed without output".to_string(),
            |l| l.to_string(),
        );
    (Code::InstallFailed, "other", decisive)
}

fn message(code: Code, package: &Package, timeout: Duration) -> String {
    let spec = excerpt(&package.spec(), 120);
    match code {
        Code::InstallPackageMissing => format!("{spec} is not on its registry: no client can install it."),
        Code::InstallNoExecutable => {
            format!("{spec} installs, but provides no executable a client would start.")
        }
        Code::InstallRuntimeTooOld => format!(
            "{spec} needs a newer runtime than the one here: clients with this runtime cannot install it."
        ),
        Code::InstallTimeout => format!(
            "Installing {spec} took longer than {} ms (--install-timeout); the server was not started.",
            timeout.as_millis()
        ),
        _ => format!("{spec} could not be installed; the server was not started."),
    }
}

fn failed(code: Code, detail: &'static str, evidence: &str, facts: Value) -> Installed {
    let finding = Finding::new(code, code.meta().title)
        .detail(detail)
        .evidence(&crate::secrets::mask_tokens(&excerpt(evidence, 300)));
    Installed::Failed {
        facts,
        finding: Box::new(finding),
    }
}

impl Installed {
    fn with_message(mut self, text: String) -> Self {
        if let Self::Failed { finding, .. } = &mut self {
            finding.message = text;
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn npm() -> Package {
        Package::Npm {
            identifier: "@s/x".into(),
            version: "1.0.0".into(),
        }
    }

    fn pypi() -> Package {
        Package::Pypi {
            identifier: "x".into(),
            version: "1.0".into(),
        }
    }

    fn failure() -> Value {
        json!({"ok": false, "timedOut": false})
    }

    #[test]
    fn the_decisive_line_of_each_failure_is_found() {
        let t = Duration::from_secs(1);
        let npm404 = "npm error code E404\nnpm error 404 Not Found - GET https://r/@s%2fx - Not found\nnpm error 404  '@s/x@1.0.0' is not in this registry.\nnpm error A complete log of this run can be found in: /x.log\n";
        let (code, detail, line) = classify(&npm(), &failure(), npm404, t);
        assert_eq!((code, detail), (Code::InstallPackageMissing, "package"));
        assert!(line.contains("404"), "{line}");
        let notarget = "npm error code ETARGET\nnpm error notarget No matching version found for @s/x@9.9.9.\nnpm error A complete log of this run can be found in: /x.log";
        let (code, detail, line) = classify(&npm(), &failure(), notarget, t);
        assert_eq!((code, detail), (Code::InstallPackageMissing, "version"));
        assert!(line.contains("No matching version found"), "{line}");
        let old = "  × No solution found when resolving dependencies:\n  ╰─▶ Because the current Python version (3.11.7) does not satisfy Python>=3.12 and x==1.0 depends on Python>=3.12, we can conclude that x==1.0 cannot be used.";
        let (code, _, line) = classify(&pypi(), &failure(), old, t);
        assert_eq!(code, Code::InstallRuntimeTooOld);
        assert!(line.contains("3.12"), "{line}");
        let missing = "error: No solution found when resolving dependencies\n  cause: Because x was not found in the package registry and you require x==1.0, we can conclude that your requirements are unsatisfiable.";
        assert_eq!(
            classify(&pypi(), &failure(), missing, t).0,
            Code::InstallPackageMissing
        );
        let other = "npm error code EACCES\nnpm error syscall mkdir\nnpm error Error: EACCES: permission denied, mkdir '/x'\nnpm error A complete log of this run can be found in: /x.log";
        let (code, _, line) = classify(&npm(), &failure(), other, t);
        assert_eq!(code, Code::InstallFailed);
        assert_eq!(
            line,
            "npm error Error: EACCES: permission denied, mkdir '/x'"
        );
        // A credential in the installer's output never reaches the evidence.
        let leaky = "npm error 404 Not Found - GET https://ci:npm_Zx8Qm2Lr5Tn7Vb3Kc9Wd1Hy4Jf6Gs0Pa2Xe7@registry.example/x - Not found";
        let (_, _, line) = classify(&npm(), &failure(), leaky, t);
        let Installed::Failed { finding, .. } =
            failed(Code::InstallPackageMissing, "package", &line, json!({}))
        else {
            panic!("failed")
        };
        let shown = finding.evidence.unwrap_or_default();
        assert!(!shown.contains("npm_Zx8Qm2"), "{shown}");
        assert!(
            shown.contains("https://ci:[REDACTED]@registry.example/x"),
            "{shown}"
        );
        let timeout = json!({"ok": false, "timedOut": true});
        assert_eq!(classify(&npm(), &timeout, "", t).0, Code::InstallTimeout);
    }

    #[test]
    fn keys_are_file_names_and_never_shared() {
        let a = npm().key();
        assert!(a.starts_with("npm-_s_x_1.0.0-"), "{a}");
        let b = Package::Npm {
            identifier: "_s/x".into(),
            version: "1.0.0".into(),
        }
        .key();
        assert_ne!(a, b);
    }

    #[test]
    fn an_npm_bin_is_chosen_as_npx_chooses_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let write = |bin: Value| {
            let pkg = dir.path().join("node_modules/@s/x");
            std::fs::create_dir_all(&pkg).expect("dir");
            std::fs::write(pkg.join("package.json"), json!({"bin": bin}).to_string())
                .expect("write");
        };
        std::fs::create_dir_all(dir.path().join("node_modules/.bin")).expect("bin dir");
        for name in ["x", "other", "only"] {
            std::fs::write(dir.path().join("node_modules/.bin").join(name), "").expect("bin");
        }
        write(json!("cli.js"));
        assert!(npm_bin(dir.path(), "@s/x")
            .expect("string")
            .ends_with(".bin/x"));
        write(json!({"only": "a.js"}));
        assert!(npm_bin(dir.path(), "@s/x")
            .expect("one")
            .ends_with(".bin/only"));
        write(json!({"other": "a.js", "x": "b.js"}));
        assert!(npm_bin(dir.path(), "@s/x")
            .expect("named")
            .ends_with(".bin/x"));
        write(json!({"other": "a.js", "more": "b.js"}));
        assert!(npm_bin(dir.path(), "@s/x")
            .expect_err("none")
            .0
            .contains("several executables"));
        write(Value::Null);
        assert!(npm_bin(dir.path(), "@s/x")
            .expect_err("no bin")
            .0
            .contains("no \"bin\""));
    }
}
