//! The install phase of a registry entry: its npm or PyPI package installed before the
//! server starts, with a deadline of its own (`--install-timeout`), so an install is never
//! mistaken for a server that does not answer.
//!
//! An npm package is installed by npx itself (`npm exec --yes --package=SPEC -- true`, a
//! no-op run that fills npx's own cache exactly as `npx -y SPEC` would: the same
//! directory, the same lifecycle scripts under an `_npx` path), and the server then starts
//! with the entry's own `npx` command, which finds it there and runs the executable npx
//! chooses; npx locks its cache directory, and a later sweep finds the install complete.
//! A PyPI package is installed once per sweep (per entry with `--isolated-caches`) into a
//! virtual environment marked complete only when the install succeeded: an install killed
//! half-way leaves nothing another entry reads.

use super::facts::InstallFacts;
use super::installed_program::{npm_bin, pypi_script};
use super::setup;
use crate::catalog::Code;
use crate::finding::{excerpt, Finding};
use crate::install_faults::{self, Installer};
use crate::launch::{self, Launcher, Package};
use crate::process::ServerCommand;
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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
        let hash = crate::sweep::shard::fnv1a64(spec.as_bytes());
        format!("{kind}-{readable}-{hash:016x}")
    }
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

    /// npx installs the package into its own cache with a no-op run, unless a complete
    /// install of it is there already (npx marks one with `_npx` in its package.json).
    async fn through_npx(
        &self,
        install: &Install,
        env: &[(String, String)],
        started: Instant,
    ) -> Installed {
        let dir = npx_dir(env, &install.package.spec);
        if npx_complete(&dir, install) {
            return resolve_npx(install, &dir, InstallFacts::none_ran(true, false));
        }
        // npx reads the project in its working directory first: an empty one of our own.
        if let Err(e) = std::fs::create_dir_all(&self.root) {
            let why = format!("cannot create the install directory: {e}");
            let facts = InstallFacts::directory_error(why.clone());
            return failed(Code::InstallFailed, "io", &why, facts);
        }
        let argv = [
            "npm".to_string(),
            "exec".into(),
            "--yes".into(),
            // npm names each lifecycle script it runs and shows its output, so a failed
            // one is named with its own words (npx alone says nothing of it).
            "--loglevel=info".into(),
            "--foreground-scripts".into(),
            format!("--package={}", install.package.spec),
            "--".into(),
            "true".into(),
        ];
        match self
            .run_all(install, &[argv.to_vec()], &self.root, env, started)
            .await
        {
            Ok((facts, _)) => resolve_npx(install, &dir, facts),
            Err(failure) => failure,
        }
    }

    /// uvx installs the package into its own cache with a run of the package's Python that
    /// prints the console scripts the package itself declares; the server then starts with
    /// the entry's own `uvx` command, offline (`UV_OFFLINE`), from that cache.
    async fn through_uvx(
        &self,
        install: &Install,
        env: &[(String, String)],
        started: Instant,
    ) -> Installed {
        if let Err(e) = std::fs::create_dir_all(&self.root) {
            let why = format!("cannot create the install directory: {e}");
            let facts = InstallFacts::directory_error(why.clone());
            return failed(Code::InstallFailed, "io", &why, facts);
        }
        let name = &install.package.name;
        let snippet = format!(
            "import json, importlib.metadata as m; print(json.dumps(sorted(e.name for e in m.distribution({}).entry_points if e.group == 'console_scripts')))",
            python_string(name)
        );
        let argv = [
            "uvx".to_string(),
            "--from".into(),
            install.package.spec.clone(),
            "python".into(),
            "-c".into(),
            snippet,
        ];
        let (mut facts, output) = match self
            .run_all(install, &[argv.to_vec()], &self.root, env, started)
            .await
        {
            Ok(done) => done,
            Err(failure) => return failure,
        };
        let own: Vec<String> = output
            .lines()
            .rev()
            .find_map(|l| serde_json::from_str(l.trim()).ok())
            .unwrap_or_default();
        if own.iter().any(|s| s == name) {
            facts.set_duration(started.elapsed());
            return Installed::Ready {
                program: PathBuf::from(name),
                facts,
                launcher_env: Some(vec![("UV_OFFLINE".into(), "1".into())]),
                runtime_unmet: None,
            };
        }
        // What uvx itself says of it: its list and its suggestion.
        let suggestion = self.uvx_words(install, env, started).await;
        // uvx's own suggestion first: it is what a reader acts on.
        let declared = if own.is_empty() {
            format!("{name} declares no console script")
        } else {
            format!(
                "its own scripts: {}",
                own.iter().take(10).cloned().collect::<Vec<_>>().join(", ")
            )
        };
        let evidence = match suggestion {
            Some(s) => format!("uvx: {s} No script named {name}; {declared}"),
            None => format!("no script named {name}; {declared}"),
        };
        let message = message(Code::InstallNoExecutable, install, Duration::ZERO);
        failed(Code::InstallNoExecutable, "no-executable", &evidence, facts).with_message(message)
    }

    /// uvx's suggestion for a package without the executable asked for (`Use `uvx --from X
    /// y` instead.`), from a run that finds the package in its cache and nothing to start.
    async fn uvx_words(
        &self,
        install: &Install,
        env: &[(String, String)],
        started: Instant,
    ) -> Option<String> {
        let mut env = env.to_vec();
        env.push(("UV_OFFLINE".into(), "1".into()));
        let argv = vec!["uvx".to_string(), install.package.spec.clone()];
        let out = match self
            .run_all(install, &[argv], &self.root, &env, started)
            .await
        {
            Ok((_, out)) => out,
            // A failing run is expected: its words are in its output's end.
            Err(Installed::Failed { facts, .. }) => facts.output_tail().unwrap_or_default(),
            Err(Installed::Ready { .. }) => String::new(),
        };
        out.lines()
            .map(str::trim)
            .find(|l| l.starts_with("Use `uvx --from"))
            .map(str::to_string)
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
            let outcome = setup::run(
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
                let message = match detail {
                    "dependency" => dependency_message(install, &outcome.output),
                    "native-library" | "upstream" | "script" => {
                        script_message(install, detail, &outcome.output)
                    }
                    _ => message(code, install, self.timeout),
                };
                return Err(failed(code, detail, &evidence, facts).with_message(message));
            }
        }
        facts.set_duration(started.elapsed());
        Ok((facts, output))
    }
}

/// `text` as a Python string literal.
fn python_string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "''".into())
}

/// npx's cache directory for `spec`: `_npx/` under npm's cache, named by the first 16 hex
/// digits of the SHA-512 of the package list (libnpmexec), here the one spec.
fn npx_dir(env: &[(String, String)], spec: &str) -> PathBuf {
    use sha2::Digest;
    let var = |name: &str| env.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
    let cache = var("npm_config_cache")
        .map(PathBuf::from)
        .or_else(|| var("HOME").map(|h| Path::new(&h).join(".npm")))
        .unwrap_or_else(|| PathBuf::from(".npm"));
    let digest = sha2::Sha512::digest(spec.as_bytes());
    let hash: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    cache.join("_npx").join(hash)
}

/// npx finished installing `install` into `dir`: it wrote its `_npx` mark after the install,
/// and the package there is the version asked for.
fn npx_complete(dir: &Path, install: &Install) -> bool {
    let read = |path: PathBuf| -> Option<Value> {
        serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
    };
    let marked = read(dir.join("package.json")).is_some_and(|p| p.get("_npx").is_some());
    let version = read(
        dir.join("node_modules")
            .join(&install.package.name)
            .join("package.json"),
    )
    .and_then(|p| p.get("version").and_then(Value::as_str).map(str::to_string));
    marked && version.as_deref() == Some(install.version())
}

/// The server starts with the entry's own `npx` command, preferring npm's cache to the
/// network, so the guard's deadline covers the start and not a second look-up.
fn resolve_npx(install: &Install, dir: &Path, facts: InstallFacts) -> Installed {
    match resolve(install, dir, facts) {
        Installed::Ready { program, facts, .. } => Installed::Ready {
            program,
            facts,
            launcher_env: Some(vec![("npm_config_prefer_offline".into(), "true".into())]),
            runtime_unmet: super::installed_program::node_engine_unmet(dir, &install.package.name),
        },
        failed => failed,
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
mod tests {
    use super::*;
    use serde_json::json;

    fn install(argv: &[&str], installer: Installer) -> Install {
        let argv: Vec<String> = argv.iter().map(|w| w.to_string()).collect();
        Install::of_command(&argv, installer).expect("installed first")
    }

    fn npm() -> Install {
        install(&["npx", "-y", "@s/x@1.0.0"], Installer::Npm)
    }

    fn pypi() -> Install {
        install(&["uvx", "x==1.0"], Installer::Uv)
    }

    fn failure() -> InstallFacts {
        ran(false)
    }

    fn ran(timed_out: bool) -> InstallFacts {
        InstallFacts::ran(crate::sweep::facts::SetupFacts::Ran(
            crate::sweep::facts::CommandRun {
                command: vec!["npm".into()],
                ok: false,
                timed_out,
                exit_code: None,
                signal: None,
                duration_ms: 0,
                output_tail: None,
            },
        ))
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
            failed(Code::InstallPackageMissing, "package", &line, failure())
        else {
            panic!("failed")
        };
        let shown = finding.evidence.unwrap_or_default();
        assert!(!shown.contains("npm_Zx8Qm2"), "{shown}");
        assert!(
            shown.contains("https://ci:[REDACTED]@registry.example/x"),
            "{shown}"
        );
        let timeout = ran(true);
        assert_eq!(classify(&npm(), &timeout, "", t).0, Code::InstallTimeout);
    }

    #[test]
    fn keys_are_file_names_and_never_shared() {
        let a = npm().key();
        assert!(a.starts_with("npm-_s_x_1.0.0-"), "{a}");
        let b = install(&["npx", "-y", "_s/x@1.0.0"], Installer::Npm).key();
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
        // Several names for one file (./ or not): the first, whatever its name.
        write(json!({"other": "./bin/a.js", "only": "bin/a.js"}));
        assert!(npm_bin(dir.path(), "@s/x")
            .expect("aliases")
            .ends_with(".bin/other"));
        write(json!({"other": "a.js", "more": "b.js"}));
        assert!(npm_bin(dir.path(), "@s/x")
            .expect_err("none")
            .0
            .contains("none named x: other (a.js), more (b.js)"));
        write(Value::Null);
        assert!(npm_bin(dir.path(), "@s/x")
            .expect_err("no bin")
            .0
            .contains("no \"bin\""));
    }
}
