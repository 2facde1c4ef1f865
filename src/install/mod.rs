//! The install phase: the npm or PyPI package a server's launcher fetches, installed
//! before the server starts, with a deadline of its own (`--install-timeout`), so an
//! install is never mistaken for a server that does not answer. Shared by the sweep (a
//! registry entry's package) and the guard (a command that starts with `npx` or `uvx`).
//!
//! An npm package is installed by npx itself (`npm exec --yes --package=SPEC -- true`, a
//! no-op run that fills npx's own cache exactly as `npx -y SPEC` would: the same
//! directory, the same lifecycle scripts under an `_npx` path), and the server then starts
//! with the entry's own `npx` command, which finds it there and runs the executable npx
//! chooses; npx locks its cache directory, and a later sweep finds the install complete.
//! A PyPI package is installed once per sweep (per entry with `--isolated-caches`) into a
//! virtual environment marked complete only when the install succeeded: an install killed
//! half-way leaves nothing another entry reads.

use crate::catalog::Code;
use crate::finding::{excerpt, Finding};
use crate::install_faults::{self, Installer};
use crate::launch::{self, Launcher, Package};
use crate::process::ServerCommand;
use facts::InstallFacts;
use program::{npm_bin, pypi_script};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub mod command;
pub mod facts;
mod launchers;
mod program;

/// Longest an install may run, by default: a cold cache builds native modules.
pub const DEFAULT_INSTALL_TIMEOUT: Duration = Duration::from_secs(600);
/// Marks a complete install directory.
const READY: &str = ".mcpcheck-installed";

/// A registry package a sweep installs before its server starts, and where the server's
/// own arguments begin in its command.
#[derive(Debug, Clone, PartialEq)]
pub struct Install {
    /// The package, as the command's launcher reads it.
    pub package: Package,
    /// npm for `npx`; uv for `uvx`; pip into a virtual environment where neither uvx nor
    /// pipx is at hand.
    pub installer: Installer,
    pub args_from: usize,
}

impl Install {
    /// The package `argv` fetches, read as its launcher reads it, when a sweep installs it
    /// first: the launcher is the one `installer` stands in for (npx for npm, uvx for uv and
    /// pip), it is given no options of its own (npx's `-y` aside), and the package comes
    /// from the registry.
    pub fn of_command(argv: &[String], installer: Installer) -> Option<Self> {
        let launch = launch::parse(argv)?;
        let arg = launch.fetches?;
        let options = &argv[launch.options_from..arg.word];
        let plain = match (installer, launch.launcher) {
            (Installer::Npm, Launcher::Npx) => options.iter().all(|o| o == "-y" || o == "--yes"),
            (Installer::Uv | Installer::Pip, Launcher::Uvx) => options.is_empty(),
            _ => false,
        };
        (plain && !arg.via_option && arg.package.from_registry).then_some(Self {
            package: arg.package,
            installer,
            args_from: launch.args_from,
        })
    }

    /// The package the command's own launcher fetches, installed as that launcher installs
    /// it: `npx` (its `-y` aside, with no options) by npm, `uvx` (with none) by uv; `None` for
    /// any other command, which starts as given.
    pub fn of_launcher_command(argv: &[String]) -> Option<Self> {
        let installer = match launch::parse(argv)?.launcher {
            Launcher::Npx => Installer::Npm,
            Launcher::Uvx => Installer::Uv,
            _ => return None,
        };
        Self::of_command(argv, installer)
    }

    /// The version asked for, empty when none is.
    fn version(&self) -> &str {
        self.package.version.as_deref().unwrap_or("")
    }

    /// A directory name for this package: its spec with anything but letters, digits, `.`
    /// and `-` replaced, and a hash so two specs never share one.
    fn key(&self) -> String {
        let kind = match self.installer {
            Installer::Npm => "npm",
            Installer::Uv => "pypi",
            Installer::Pip => "pypi-pip",
        };
        let spec = &self.package.spec;
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
        use sha2::Digest;
        let digest = sha2::Sha256::digest(spec.as_bytes());
        let hash: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
        format!("{kind}-{readable}-{hash}")
    }
}

/// What a guard run installs before its first session, and how long that may take.
#[derive(Debug, Clone, PartialEq)]
pub struct InstallPlan {
    pub install: Install,
    pub timeout: Duration,
}

/// The installed server's program, or why there is none.
pub enum Installed {
    Ready {
        /// The executable the server runs as.
        program: PathBuf,
        facts: InstallFacts,
        /// `Some`: start the entry's own launcher command with these variables added (it
        /// finds the package in its cache); `None`: start `program` itself.
        launcher_env: Option<Vec<(String, String)>>,
        /// The runtime here is older than the package declares (npm `engines.node`): what
        /// it declares and what is here. The package installs (npm only warns), and is
        /// started as a client would; if it then exits, this is why.
        runtime_unmet: Option<String>,
    },
    Failed {
        facts: InstallFacts,
        finding: Box<Finding>,
    },
}

/// Installs packages under one root, each once, one install of a package at a time.
pub struct InstallCache {
    root: PathBuf,
    timeout: Duration,
    locks: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

impl InstallCache {
    pub fn new(root: PathBuf, timeout: Duration) -> Self {
        Self {
            root,
            timeout,
            locks: Mutex::new(HashMap::new()),
        }
    }

    /// Installs the package (or finds it installed) with `env`, the sandbox's environment:
    /// the entry's own variables, its secrets among them, are not an installer's business.
    pub async fn install(&self, install: &Install, env: &[(String, String)]) -> Installed {
        let key = install.key();
        let lock = {
            let mut locks = self.locks.lock().unwrap_or_else(|e| e.into_inner());
            Arc::clone(locks.entry(key.clone()).or_default())
        };
        let _held = lock.lock().await;
        let started = Instant::now();
        match install.installer {
            Installer::Npm => return self.through_npx(install, env, started).await,
            Installer::Uv => return self.through_uvx(install, env, started).await,
            Installer::Pip => {}
        }
        let dir = self.root.join(&key);
        if dir.join(READY).is_file() {
            return resolve(install, &dir, InstallFacts::none_ran(true, false));
        }
        // Installed in place (a virtual environment cannot be moved): what an install that
        // failed or was stopped left is removed first, and only a complete one is marked.
        let _ = std::fs::remove_dir_all(&dir);
        if let Err(e) = std::fs::create_dir_all(&dir) {
            let why = format!("cannot create the install directory: {e}");
            let facts = InstallFacts::directory_error(why.clone());
            return failed(Code::InstallFailed, "io", &why, facts);
        }
        let facts = match self
            .run_all(install, &commands(install, &dir), &dir, env, started)
            .await
        {
            Ok((facts, _)) => facts,
            Err(failure) => return failure,
        };
        let _ = std::fs::write(dir.join(READY), &install.package.spec);
        resolve(install, &dir, facts)
    }

    /// Runs the install's commands in `cwd`, in order, within what is left of the deadline.
    async fn run_all(
        &self,
        install: &Install,
        commands: &[Vec<String>],
        cwd: &Path,
        env: &[(String, String)],
        started: Instant,
    ) -> Result<(InstallFacts, String), Installed> {
        let mut facts = InstallFacts::none_ran(false, false);
        let mut output = String::new();
        for argv in commands {
            let left = self.timeout.saturating_sub(started.elapsed());
            let command = ServerCommand {
                program: argv[0].clone(),
                args: argv[1..].to_vec(),
                cwd: Some(cwd.to_path_buf()),
                env: env.to_vec(),
                clear_env: true,
                unset_env: Vec::new(),
            };
            let outcome = command::run(
                &command,
                left.max(Duration::from_millis(1)),
                &crate::secrets::KnownSecrets::new(),
            )
            .await;
            output.clone_from(&outcome.output);
            facts = InstallFacts::ran(outcome.facts);
            if !outcome.ok {
                facts.set_duration(started.elapsed());
                let (code, detail, evidence) =
                    classify(install, &facts, &outcome.output, self.timeout);
                let package = Some(install.package.name.as_str());
                let named =
                    install_faults::fault_in(install.installer, &outcome.output, false, package)
                        .filter(|f| !f.is_dependency());
                let message = match (detail, named) {
                    ("dependency", _) => dependency_message(install, &outcome.output),
                    ("native-library" | "upstream" | "script", _) => {
                        script_message(install, detail, &outcome.output)
                    }
                    // The launcher's own words: what a client starting the server meets too.
                    (_, Some(fault)) => never_started_message(install.installer, &fault),
                    _ => message(code, install, self.timeout),
                };
                return Err(failed(code, detail, &evidence, facts).with_message(message));
            }
        }
        facts.set_duration(started.elapsed());
        Ok((facts, output))
    }
}

/// The package as npx finds it already installed in the project at `cwd` (its
/// `node_modules` holds that very version): npx runs it from there and installs nothing.
pub fn in_project(install: &Install, cwd: &Path) -> Option<Installed> {
    if install.installer != Installer::Npm {
        return None;
    }
    let manifest = cwd
        .join("node_modules")
        .join(&install.package.name)
        .join("package.json");
    let text = std::fs::read_to_string(manifest).ok()?;
    let found: Value = serde_json::from_str(&text).ok()?;
    if found.get("version").and_then(Value::as_str) != Some(install.version()) {
        return None;
    }
    Some(resolve(install, cwd, InstallFacts::none_ran(true, true)))
}

/// The commands that install a PyPI package into `dir` (npx installs npm packages).
fn commands(install: &Install, dir: &Path) -> Vec<Vec<String>> {
    let dir = dir.display().to_string();
    let spec = install.package.spec.as_str();
    match install.installer {
        Installer::Npm => Vec::new(),
        Installer::Pip => {
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
                    spec,
                ]
                .map(String::from)
                .to_vec(),
            ]
        }
        Installer::Uv => {
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
                    spec,
                ]
                .map(String::from)
                .to_vec(),
            ]
        }
    }
}

/// The program to start from a complete install, found as the client's runtime finds it.
fn resolve(install: &Install, dir: &Path, facts: InstallFacts) -> Installed {
    let identifier = &install.package.name;
    let found = match install.installer {
        Installer::Npm => npm_bin(dir, identifier),
        Installer::Uv | Installer::Pip => pypi_script(dir, identifier),
    };
    match found {
        Ok(program) => Installed::Ready {
            program,
            facts,
            launcher_env: None,
            runtime_unmet: None,
        },
        Err(evidence) => {
            let message = message(Code::InstallNoExecutable, install, Duration::ZERO);
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
    install: &Install,
    facts: &InstallFacts,
    output: &str,
    timeout: Duration,
) -> (Code, &'static str, String) {
    if facts.timed_out() {
        let why = format!(
            "no end within {} ms (--install-timeout)",
            timeout.as_millis()
        );
        return (Code::InstallTimeout, "timeout", why);
    }
    if let Some(spawn) = facts.spawn_error() {
        return (Code::InstallFailed, "installer-missing", spawn.to_string());
    }
    // The install failed: a warning (npm's EBADENGINE) may be why.
    let package = Some(install.package.name.as_str());
    if let Some(fault) = install_faults::fault_in(install.installer, output, false, package) {
        return (fault.code, fault.detail, fault.line);
    }
    if let Some(script) = install_faults::script_failure(install.installer, output) {
        let evidence = format!("{}: {}", script.script, script.line);
        return (Code::InstallFailed, script.detail(), evidence);
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

/// A server that exited before answering initialize on a runtime older than its package
/// declares (`unmet`, npm's `engines.node` against the host's Node): the runtime is why, as
/// a client with this runtime would meet it, unless its own words already put the failure
/// on the environment (a credential it lacks). `spec` is the package as the command names it.
pub fn runtime_too_old(findings: &[Finding], unmet: &str, spec: &str) -> Option<Finding> {
    use crate::finding::IssueClass;
    let exited = findings.iter().find(|f| {
        f.code == Code::ServerExited
            && f.detail_code
                .is_some_and(|d| d.ends_with("before-initialize"))
    })?;
    if exited.class() == IssueClass::Environment {
        return None;
    }
    let spec = excerpt(spec, 120);
    let last = exited
        .evidence
        .as_deref()
        .and_then(|e| e.lines().map(str::trim).rfind(|l| !l.is_empty()))
        .unwrap_or("");
    Some(
        Finding::new(
            Code::InstallRuntimeTooOld,
            format!("{spec} needs a newer runtime than the one here ({unmet}), and exited before answering initialize: clients with this runtime cannot start it."),
        )
        .detail("engine")
        .evidence(&excerpt(&format!("{unmet}; {last}"), 300)),
    )
}

/// What a client meets when its launcher could not install the server, as a finding says
/// it: the same words whether the launcher failed during the session (its words on
/// stderr) or the install before it did.
pub fn never_started_message(installer: Installer, fault: &install_faults::InstallFault) -> String {
    let name = installer.name();
    match fault.code {
        Code::InstallPackageMissing if fault.is_dependency() => format!(
            "The server never started: {name} could not install it, because its requirement {} is not on the registry here (the package itself is).",
            crate::finding::excerpt(fault.missing.as_deref().unwrap_or_default(), 120)
        ),
        Code::InstallPackageMissing => format!(
            "The server never started: {name} could not install it, because {} is not on its registry. No client can start it from this command either.",
            if fault.detail == "version" { "the version it names" } else { "the package" }
        ),
        Code::InstallRuntimeTooOld => format!(
            "The server never started: {name} could not install it, because the package needs a newer runtime than the one here. A client with this runtime cannot start it either."
        ),
        _ => format!(
            "The server never started: {name} found no executable to run in its package. No client can start it from this command either."
        ),
    }
}

fn message(code: Code, install: &Install, timeout: Duration) -> String {
    let spec = excerpt(&install.package.spec, 120);
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

/// A dependency the registry lacks: the package is there, so the fault is not its own as
/// far as can be told here (a registry or mirror without that version, a yanked release).
fn dependency_message(install: &Install, output: &str) -> String {
    let spec = excerpt(&install.package.spec, 120);
    let package = Some(install.package.name.as_str());
    let missing = install_faults::fault_in(install.installer, output, false, package)
        .and_then(|f| f.missing)
        .unwrap_or_default();
    format!(
        "{spec} is on its registry, but its requirement {} is not, so it could not be installed here; the server was not started.",
        excerpt(&missing, 120)
    )
}

/// A build or lifecycle script failed the install: which one, and whether the host is why.
fn script_message(install: &Install, detail: &str, output: &str) -> String {
    let spec = excerpt(&install.package.spec, 120);
    let script = install_faults::script_failure(install.installer, output)
        .map(|s| excerpt(&s.script, 120))
        .unwrap_or_default();
    match detail {
        "native-library" => format!(
            "{spec} could not be installed here: the build of {script} needs a native library (or its headers) this host lacks; the server was not started."
        ),
        "upstream" => format!(
            "{spec} could not be installed here: {script} could not reach what it downloads; the server was not started."
        ),
        _ => format!("{spec} could not be installed: {script} failed; the server was not started."),
    }
}

fn failed(code: Code, detail: &'static str, evidence: &str, facts: InstallFacts) -> Installed {
    let mut finding = Finding::new(code, code.meta().title)
        .detail(detail)
        .evidence(&crate::secrets::mask_tokens(&excerpt(evidence, 300)));
    // The host's or its registry's shortcoming, not the package's.
    if matches!(detail, "dependency" | "native-library" | "upstream") {
        finding.class_override = Some(crate::finding::IssueClass::Environment);
    }
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
mod tests;
