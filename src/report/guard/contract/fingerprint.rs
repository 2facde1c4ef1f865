//! The contract's `fingerprint`: what was run, where and how, to explain why a result
//! reproduced on one runner and not another. Values of variables are never shown.

use super::process::{operation_facts, OperationFact};
use super::{Config, StaticScan};
use crate::guard::GuardRun;
use crate::report::named::NamedMap;
use crate::secrets::{redact_argv, redact_argv_as};
use crate::session::transcript::Transcript;
use schemars::JsonSchema;
use serde::{Serialize, Serializer};

/// What produced the report, redacted: enough to rerun it, never a secret.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Fingerprint {
    pub guard: GuardName,
    pub command: CommandFacts,
    pub cwd: CwdFacts,
    pub protocol: String,
    pub config: Config,
    pub profile: &'static str,
    pub timeout_ms: u64,
    pub output_limits: OutputLimits,
    pub repeat: u32,
    pub capability_probes: bool,
    pub adversarial_probes: Vec<&'static str>,
    pub operation: Option<OperationFact>,
    pub operations: Vec<OperationFact>,
    pub system: System,
    /// The runtime the command runs on (`node`, `python`; or its launcher: `npm` for npx,
    /// `uv` for uvx, `docker`), as its `--version` answered; empty for other programs and
    /// over HTTP.
    pub runtimes: std::collections::BTreeMap<String, RuntimeFacts>,
    /// The package the command runs, read from its words: what npx, `npm exec`, uvx or
    /// `docker run` fetches, or the package.json nearest a `node` script; null otherwise.
    pub package: Option<PackageFacts>,
    pub env: EnvFacts,
    pub static_scan: StaticScan,
    pub timings: Timings,
    /// mcpcheck's own fields, from before the contract.
    pub guard_version: &'static str,
    pub argv: Vec<String>,
    pub cwd_path: Option<String>,
    pub env_assignments: Vec<String>,
    /// The variables withheld from the server.
    pub unset_env: Vec<String>,
    pub platform: String,
    pub limits: Limits,
    /// With `--repeat`: each run's own timings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runs: Option<Vec<RunTimings>>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct GuardName {
    pub name: &'static str,
    pub version: &'static str,
}

/// The server's command line, credentials masked.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CommandFacts {
    pub executable: Option<String>,
    pub args: Vec<String>,
    pub argv: Vec<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CwdFacts {
    pub requested: String,
    pub resolved: String,
    pub exists: bool,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OutputLimits {
    pub max_stdout_bytes: u64,
    pub max_stdout_line_bytes: usize,
    pub max_stderr_bytes: u64,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct System {
    pub platform: &'static str,
    pub arch: &'static str,
    pub os_release: String,
}

/// The server's environment: whether it inherited the guard's, and the names set for it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EnvFacts {
    pub inherited: bool,
    pub names: Vec<String>,
    pub values: NamedMap<Redacted>,
}

/// How the contract marks what it never shows.
const REDACTED: &str = "<redacted>";

/// A value that is never shown: `<redacted>`.
#[derive(Debug, Clone, Copy)]
pub struct Redacted;

impl Serialize for Redacted {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(REDACTED)
    }
}

impl JsonSchema for Redacted {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Redacted".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"const": "<redacted>"})
    }
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Timings {
    /// When the handshake was answered; null with `--repeat` (each run has its own).
    pub startup_ms: Option<u64>,
    /// The session's wall time; with `--repeat` the sum of the runs'.
    pub total_ms: u64,
    pub timeout_ms: u64,
    pub settle_ms: u64,
    pub shutdown_grace_ms: u64,
}

/// The package the command runs.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PackageFacts {
    /// `npm`, `uv`, `docker` or `local`.
    pub manager: &'static str,
    /// The package (for uv and docker the whole spec or image), credentials masked.
    pub name: String,
    /// The version or tag asked for after `@` (a local package's `version`); else empty.
    pub version_spec: String,
}

/// One runtime: what `--version` printed and how it ended.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RuntimeFacts {
    /// The program asked, as the command names it (or, for npx and uvx, npm and uv beside it).
    pub command: String,
    /// The first line it printed (masked, at most 120 characters); empty when none.
    pub version: String,
    /// `target` (it runs the server) or `launcher` (it fetches and starts it).
    pub role: &'static str,
    /// It exited 0 within a second.
    pub available: bool,
    /// Its exit code; null when a signal ended it, it timed out or could not start.
    pub status: Option<i32>,
    /// The signal that ended it.
    pub signal: Option<&'static str>,
}

impl RuntimeFacts {
    fn of(r: &crate::guard::runtimes::Runtime) -> Self {
        Self {
            command: r.command.clone(),
            version: r.version.clone(),
            role: r.role,
            available: r.available,
            status: r.status,
            signal: r.signal,
        }
    }
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Limits {
    pub max_stdout_line_bytes: usize,
    pub soft_stdout_line_bytes: usize,
    pub stderr_flood_bytes: u64,
    pub max_stdout_bytes: u64,
    pub max_stderr_bytes: u64,
}

/// One run's timings (`--repeat`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunTimings {
    pub run: usize,
    pub ok: bool,
    pub startup_ms: Option<u64>,
    pub total_ms: u64,
}

/// The kernel release (`uname -r`: Linux's or Darwin's), where the platform exposes it.
fn os_release() -> String {
    sysinfo::System::kernel_version()
        .map(|s| s.trim().chars().take(64).collect())
        .unwrap_or_default()
}

pub fn fingerprint(run: &GuardRun, t: &Transcript) -> Fingerprint {
    let command = &run.command;
    let argv: Vec<String> = std::iter::once(command.program.clone())
        .chain(command.args.iter().cloned())
        .collect();
    // The contract's command, with the contract's marker; mcpcheck's own `argv` keeps its own.
    let contract_argv = redact_argv_as(&argv, REDACTED);
    let argv = redact_argv(&argv);
    let here = std::env::current_dir().ok();
    let requested = command.cwd.clone().or_else(|| here.clone());
    let resolved = requested.as_ref().and_then(|p| p.canonicalize().ok());
    let show = |p: &Option<std::path::PathBuf>| p.as_ref().map(|p| p.display().to_string());
    let names: Vec<String> = command.env.iter().map(|(k, _)| k.clone()).collect();
    let values = names.iter().map(|k| (k.clone(), Redacted)).collect();
    let operations = operation_facts(run);
    let settings = &run.settings;
    let limits = &run.plan.limits;
    let timeout_ms = run.plan.timeout.as_millis() as u64;
    Fingerprint {
        guard: GuardName {
            name: "mcpcheck",
            version: env!("CARGO_PKG_VERSION"),
        },
        command: CommandFacts {
            executable: contract_argv.first().cloned(),
            args: contract_argv.get(1..).unwrap_or_default().to_vec(),
            argv: contract_argv,
        },
        cwd: CwdFacts {
            requested: show(&requested).unwrap_or_default(),
            resolved: show(&resolved).unwrap_or_default(),
            exists: resolved.as_ref().is_some_and(|p| p.is_dir()),
        },
        protocol: run.plan.protocol.clone(),
        config: super::config(run),
        profile: settings.profile.as_str(),
        timeout_ms,
        output_limits: OutputLimits {
            max_stdout_bytes: limits.max_stdout_bytes,
            max_stdout_line_bytes: limits.max_stdout_line_bytes,
            max_stderr_bytes: limits.max_stderr_bytes,
        },
        repeat: settings.repeat,
        capability_probes: run.plan.probe_lists,
        adversarial_probes: settings.probes.iter().map(|p| p.name()).collect(),
        operation: operations.first().cloned(),
        operations,
        system: System {
            platform: std::env::consts::OS,
            arch: std::env::consts::ARCH,
            os_release: os_release(),
        },
        runtimes: run
            .runtimes
            .iter()
            .map(|r| (r.name.to_string(), RuntimeFacts::of(r)))
            .collect(),
        package: crate::guard::fingerprint_package::of_command(command).map(|p| PackageFacts {
            manager: p.manager,
            name: redact_argv_as(&[p.name], REDACTED).concat(),
            version_spec: p.version_spec,
        }),
        env: EnvFacts {
            inherited: !command.clear_env,
            names,
            values,
        },
        static_scan: super::static_scan(run),
        timings: Timings {
            startup_ms: t.handshake().and_then(|h| h.answered_ms),
            total_ms: t.duration_ms,
            timeout_ms,
            settle_ms: run.plan.settle.as_millis() as u64,
            shutdown_grace_ms: run.plan.shutdown_grace.as_millis() as u64,
        },
        guard_version: env!("CARGO_PKG_VERSION"),
        argv,
        cwd_path: show(&command.cwd.clone().or(here)),
        env_assignments: command
            .env
            .iter()
            .map(|(k, _)| format!("{k}=[REDACTED]"))
            .collect(),
        unset_env: command.unset_env.clone(),
        platform: format!("{}-{}", std::env::consts::OS, std::env::consts::ARCH),
        limits: Limits {
            max_stdout_line_bytes: limits.max_stdout_line_bytes,
            soft_stdout_line_bytes: limits.soft_stdout_line_bytes,
            stderr_flood_bytes: limits.stderr_flood_bytes,
            max_stdout_bytes: limits.max_stdout_bytes,
            max_stderr_bytes: limits.max_stderr_bytes,
        },
        runs: None,
    }
}
