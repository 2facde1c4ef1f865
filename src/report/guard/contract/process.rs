//! The contract's process, operations, config and static-scan facts.

use super::RpcError;
use crate::finding::{excerpt, Severity};
use crate::guard::options::RequestSource;
use crate::guard::GuardRun;
use crate::process::{ExitKind, ShutdownPath};
use crate::session::transcript::{Outcome, Phase, Purpose, StreamEnd, Transcript};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

/// Which answer the guard stopped waiting for; empty when none timed out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum TimeoutCode {
    #[serde(rename = "")]
    None,
    InitializeTimeout,
    OperationTimeout,
}

/// How the process ended, as the contract names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ProcessOutcome {
    Starting,
    Running,
    Exited,
    Timeout,
    SpawnFailed,
    GuardTerminated,
    /// The install before the session failed: the server was never started.
    InstallFailed,
}

/// Where the session was when the process stopped, as the contract names it.
pub use crate::finding::ProcessPhase;

/// The signal the guard sent; empty when it sent none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub enum KillSignal {
    #[serde(rename = "")]
    None,
    #[serde(rename = "SIGTERM")]
    Term,
    #[serde(rename = "SIGKILL")]
    Kill,
}

/// Why the guard ended the process; empty when it did not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum KillReason {
    #[serde(rename = "")]
    None,
    GuardFinished,
    Timeout,
    OutputLimit,
}

/// The output limit that stopped the run; empty when none did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ExceededCode {
    #[serde(rename = "")]
    None,
    StdoutLineTooLarge,
    StdoutOutputLimitExceeded,
}

/// The contract's `process`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Process {
    pub started: bool,
    /// The server's pid; null when it was not spawned (or is remote).
    pub pid: Option<u32>,
    pub outcome: ProcessOutcome,
    pub phase: ProcessPhase,
    pub exit_code: Option<i32>,
    /// The signal's name, as Node reports it; mcpcheck's number is beside it.
    pub signal: Option<&'static str>,
    pub signal_number: Option<i32>,
    pub timed_out: bool,
    pub timeout_code: TimeoutCode,
    pub timeout_ms: u64,
    pub killed_by_guard: bool,
    pub kill_signal: KillSignal,
    pub kill_reason: KillReason,
    pub spawn_error: Option<SpawnErrorFacts>,
    pub output: OutputFacts,
    pub detail: ProcessDetail,
}

/// Why the process could not be started.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SpawnErrorFacts {
    /// The platform's short name for the error (`ENOENT`), or empty.
    pub code: String,
    pub message: String,
}

/// The process's output: byte counts, the limits, and what exceeded them.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OutputFacts {
    pub stdout_bytes: u64,
    pub stderr_bytes: u64,
    pub max_stdout_bytes: u64,
    pub max_stdout_line_bytes: usize,
    pub max_stderr_bytes: u64,
    pub stderr_truncated: bool,
    pub limit_exceeded: bool,
    pub exceeded_code: ExceededCode,
}

/// mcpcheck's own, finer outcome and phase.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ProcessDetail {
    pub outcome: &'static str,
    #[schemars(with = "String")]
    pub phase: Phase,
}

fn timeout_code(t: &Transcript) -> TimeoutCode {
    if t.handshake().is_some_and(|h| h.outcome == Outcome::Timeout) {
        TimeoutCode::InitializeTimeout
    } else if t.exchanges.iter().any(|e| e.outcome == Outcome::Timeout) {
        TimeoutCode::OperationTimeout
    } else {
        TimeoutCode::None
    }
}

/// The contract's `process.outcome`.
fn outcome(t: &Transcript) -> ProcessOutcome {
    let p = &t.process;
    if p.spawn_error.is_some() {
        return ProcessOutcome::SpawnFailed;
    }
    if p.killed_for_limit {
        return ProcessOutcome::GuardTerminated;
    }
    if p.exited_in.is_some() {
        return ProcessOutcome::Exited;
    }
    if timeout_code(t) != TimeoutCode::None {
        return ProcessOutcome::Timeout;
    }
    match p.shutdown.as_ref().map(|s| s.path) {
        // Closing stdin is how the guard ends a session: the process lived until then.
        Some(ShutdownPath::Terminated | ShutdownPath::Killed | ShutdownPath::StdinClosed) => {
            ProcessOutcome::GuardTerminated
        }
        Some(ShutdownPath::AlreadyExited) | None => ProcessOutcome::Exited,
    }
}

/// The contract's `process.phase`: where the session was when the process stopped.
fn phase(t: &Transcript) -> ProcessPhase {
    if t.process.spawn_error.is_some() {
        return ProcessPhase::Startup;
    }
    if let Some(phase) = t.exit_phase() {
        return phase;
    }
    match timeout_code(t) {
        TimeoutCode::InitializeTimeout => ProcessPhase::Initialize,
        TimeoutCode::OperationTimeout => ProcessPhase::Operation,
        _ if t.handshake().and_then(|h| h.outcome_result()).is_none() => ProcessPhase::Initialize,
        _ => ProcessPhase::PostInitialize,
    }
}

/// mcpcheck's own, finer outcome and phase.
fn detail(t: &Transcript) -> ProcessDetail {
    let p = &t.process;
    let path = p.shutdown.as_ref().map(|s| s.path);
    let outcome = if p.spawn_error.is_some() {
        "spawn-failed"
    } else if p.killed_for_limit {
        "killed-for-limit"
    } else {
        match (p.exited_in, path) {
            (Some(phase), _) if phase < Phase::Operations => "exited-early",
            (Some(_), _) if p.exit == Some(ExitKind::Code(0)) => "ended-by-server",
            (Some(_), _) => "crashed",
            (None, Some(ShutdownPath::Terminated)) => "terminated",
            (None, Some(ShutdownPath::Killed)) => "killed",
            _ => "exited-on-stdin-close",
        }
    };
    ProcessDetail {
        outcome,
        phase: p.exited_in.unwrap_or(Phase::Shutdown),
    }
}

pub fn process(run: &GuardRun, t: &Transcript) -> Process {
    let p = &t.process;
    let path = p.shutdown.as_ref().map(|s| s.path);
    let signalled = matches!(path, Some(ShutdownPath::Terminated | ShutdownPath::Killed));
    let kill_signal = match path {
        _ if p.killed_for_limit => KillSignal::Kill,
        Some(ShutdownPath::Terminated) => KillSignal::Term,
        Some(ShutdownPath::Killed) => KillSignal::Kill,
        _ => KillSignal::None,
    };
    let timeout = timeout_code(t);
    let kill_reason = if p.killed_for_limit {
        KillReason::OutputLimit
    } else if signalled && timeout != TimeoutCode::None {
        KillReason::Timeout
    } else if signalled {
        KillReason::GuardFinished
    } else {
        KillReason::None
    };
    let exceeded = match t.stream_end {
        Some(StreamEnd::LineTooLarge { .. }) => ExceededCode::StdoutLineTooLarge,
        Some(StreamEnd::OutputLimit { .. }) => ExceededCode::StdoutOutputLimitExceeded,
        _ => ExceededCode::None,
    };
    let limits = &run.plan.limits;
    let signal = match p.exit {
        Some(ExitKind::Signal(s)) => Some(s),
        _ => None,
    };
    let install_failed = run.install.is_some_and(|s| !s.server_started);
    Process {
        started: p.spawn_error.is_none() && !install_failed,
        pid: p.pid,
        outcome: if install_failed {
            ProcessOutcome::InstallFailed
        } else {
            outcome(t)
        },
        phase: if install_failed {
            ProcessPhase::Startup
        } else {
            phase(t)
        },
        exit_code: match p.exit {
            Some(ExitKind::Code(c)) => Some(c),
            _ => None,
        },
        signal: signal.map(crate::process::signal_name),
        signal_number: signal,
        timed_out: timeout != TimeoutCode::None,
        timeout_code: timeout,
        timeout_ms: t.timeout_ms,
        killed_by_guard: p.killed_for_limit || signalled,
        kill_signal,
        kill_reason,
        spawn_error: p.spawn_error.as_ref().map(|e| SpawnErrorFacts {
            code: e.code.clone(),
            message: e.to_string(),
        }),
        output: OutputFacts {
            stdout_bytes: p.stdout_bytes,
            stderr_bytes: p.stderr.total_bytes,
            max_stdout_bytes: limits.max_stdout_bytes,
            max_stdout_line_bytes: limits.max_stdout_line_bytes,
            max_stderr_bytes: limits.max_stderr_bytes,
            stderr_truncated: p.stderr.limit_exceeded,
            limit_exceeded: exceeded != ExceededCode::None || p.killed_for_limit,
            exceeded_code: exceeded,
        },
        detail: if install_failed {
            ProcessDetail {
                outcome: "install-failed",
                phase: Phase::Spawn,
            }
        } else {
            detail(t)
        },
    }
}

/// Where an explicit request came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum OperationSource {
    CliRequest,
    ConfigRequest,
    SafeToolCall,
}

impl From<RequestSource> for OperationSource {
    fn from(source: RequestSource) -> Self {
        match source {
            RequestSource::Cli => OperationSource::CliRequest,
            RequestSource::Config => OperationSource::ConfigRequest,
            RequestSource::SafeToolCall => OperationSource::SafeToolCall,
        }
    }
}

/// Where each planned request came from, and the tool a safe tool call names.
fn origins(run: &GuardRun) -> Vec<(OperationSource, String)> {
    run.plan
        .requests
        .iter()
        .enumerate()
        .map(|(index, planned)| {
            let source = run
                .settings
                .request_sources
                .get(index)
                .map_or(OperationSource::CliRequest, |s| (*s).into());
            let tool = if source == OperationSource::SafeToolCall {
                planned
                    .params
                    .as_ref()
                    .and_then(|p| p.get("name"))
                    .and_then(Value::as_str)
                    .map(|n| excerpt(n, 128))
                    .unwrap_or_default()
            } else {
                String::new()
            };
            (source, tool)
        })
        .collect()
}

/// The fingerprint's view of a planned request: what was asked, not what came back.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OperationFact {
    pub method: String,
    pub has_params: bool,
    pub source: OperationSource,
    pub safe_tool_call_name: String,
}

/// The fingerprint's view of the planned requests.
pub fn operation_facts(run: &GuardRun) -> Vec<OperationFact> {
    run.plan
        .requests
        .iter()
        .zip(origins(run))
        .map(|(planned, (source, tool))| OperationFact {
            method: excerpt(&planned.method, 128),
            has_params: planned.params.is_some(),
            source,
            safe_tool_call_name: tool,
        })
        .collect()
}

/// One explicit request of the plan (`--request`, config `requests`, safe tool calls).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Operation {
    pub index: usize,
    pub source: OperationSource,
    pub method: String,
    /// The tool a safe tool call names; empty otherwise.
    pub safe_tool_call_name: String,
    pub responded: bool,
    pub error: Option<RpcError>,
    /// How it ended (`result`, `error`, `timeout`, ... or `not-sent`).
    pub outcome: &'static str,
}

/// The contract's `operations`: every explicit request of the plan, answered or not.
pub fn operations(run: &GuardRun, t: &Transcript) -> Vec<Operation> {
    let explicit: Vec<_> = t
        .exchanges
        .iter()
        .filter(|e| e.purpose == Purpose::Explicit)
        .collect();
    run.plan
        .requests
        .iter()
        .zip(origins(run))
        .enumerate()
        .map(|(index, (planned, (source, tool)))| {
            let outcome = explicit.get(index).map(|e| &e.outcome);
            let error = match outcome {
                Some(Outcome::Error(e)) => Some(RpcError::masked(e)),
                _ => None,
            };
            Operation {
                index,
                source,
                method: excerpt(&planned.method, 128),
                safe_tool_call_name: tool,
                responded: matches!(outcome, Some(Outcome::Result(_) | Outcome::Error(_))),
                error,
                outcome: outcome.map_or("not-sent", Outcome::label),
            }
        })
        .collect()
}

/// The config file the guard read, and what it contributed (names, never values).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Config {
    pub enabled: bool,
    pub path: String,
    pub resolved_path: String,
    pub checks: ConfigChecks,
}

/// What the config file contributed.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConfigChecks {
    pub command: bool,
    pub cwd: bool,
    pub env_names: Vec<String>,
    pub requests: Vec<String>,
    pub safe_tool_calls: Vec<String>,
    pub adversarial_probes: Vec<String>,
    pub adversarial_tool_calls: Vec<String>,
}

pub fn config(run: &GuardRun) -> Config {
    let s = &run.settings;
    let c = &s.config_contribution;
    let path = s.config_file.as_ref();
    Config {
        enabled: path.is_some(),
        path: path.map(|p| p.display().to_string()).unwrap_or_default(),
        resolved_path: path
            .and_then(|p| p.canonicalize().ok())
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        checks: ConfigChecks {
            command: c.command,
            cwd: c.cwd,
            env_names: c.env_names.clone(),
            requests: c.requests.clone(),
            safe_tool_calls: c.safe_tool_calls.clone(),
            adversarial_probes: c.adversarial_probes.clone(),
            adversarial_tool_calls: c.adversarial_tool_calls.clone(),
        },
    }
}

/// Whether `--scan` ran, where, and whether its findings fail the run.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StaticScan {
    pub enabled: bool,
    pub path: String,
    pub paths: Vec<String>,
    pub fail_on_findings: bool,
}

pub fn static_scan(run: &GuardRun) -> StaticScan {
    let s = &run.settings;
    StaticScan {
        enabled: !s.scan.is_empty(),
        path: s
            .scan
            .first()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        paths: s.scan.iter().map(|p| p.display().to_string()).collect(),
        fail_on_findings: s.fail_on_static,
    }
}

/// A finding of the source scan as the contract lists it: file, line, message.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StaticFinding {
    pub file: String,
    pub line: u64,
    pub message: String,
    pub code: &'static str,
    pub severity: Severity,
    pub reason: &'static str,
    pub language: Option<&'static str>,
}

/// The source scan's findings as the contract lists them.
pub fn static_findings(run: &GuardRun) -> Vec<StaticFinding> {
    run.primary()
        .checks
        .iter()
        .filter(|c| c.name == "static")
        .flat_map(|c| c.findings.iter())
        .map(|f| StaticFinding {
            file: f.location.file.clone().unwrap_or_default(),
            line: f.location.line.unwrap_or(0),
            message: f.message.clone(),
            code: f.code.as_str(),
            severity: f.severity,
            reason: f.detail_code.unwrap_or(f.code.as_str()),
            language: f.language,
        })
        .collect()
}
