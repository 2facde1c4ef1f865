//! The fields of the mcp-stdio-guard v1 JSON contract, computed from mcpcheck's own facts.
//! Registries and badge services read these names; mcpcheck's finer fields sit beside them.

use crate::catalog::Code;
use crate::finding::{excerpt, Finding, IssueClass, Severity};
use crate::guard::{GuardRun, SessionResult};
use crate::report::named::NamedMap;
use crate::session::transcript::{ListKind, Outcome, Purpose, Transcript};
use crate::verdict::Status;
use schemars::JsonSchema;
use serde::Serialize;
use std::collections::BTreeSet;

mod capabilities;
mod fingerprint;
mod issues;
mod process;
mod runs;
pub use capabilities::{
    capabilities_check, capability_checks, declared_capabilities, CapabilitiesCheck,
    CapabilityChecks,
};
pub use fingerprint::{fingerprint, CommandFacts, Fingerprint, RunTimings};
pub use issues::{guard_issue, issue_classes, GuardIssue, IssueClasses};
pub use process::{
    config, operations, process, static_findings, static_scan, Config, Operation, Process,
    StaticFinding, StaticScan,
};
pub use runs::{adversarial, drift, tool_schema, Adversarial, Drift, ToolSchema};

/// The status of a check: `pass`, `fail`, `warning`, `skipped` (nothing to check) or
/// `not-checked` (this OS cannot check it: the portable process backend's leftovers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CheckStatus {
    Pass,
    Fail,
    Warning,
    Skipped,
    #[serde(rename = "not-checked")]
    NotChecked,
}

/// A check this run could not make, and why.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UncheckedCheck {
    pub status: CheckStatus,
    pub reason: &'static str,
}

/// One check: its status and the codes of the findings that decided it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Check {
    pub status: CheckStatus,
    pub issue_codes: Vec<&'static str>,
}

/// The contract's class of a finding; empty when there is none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ContractClass {
    #[serde(rename = "")]
    None,
    InstallRuntime,
    StdioTransport,
    McpProtocol,
    Security,
    Environment,
}

/// The contract's display guidance for a verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub enum Display {
    #[serde(rename = "verified")]
    Verified,
    #[serde(rename = "verified with warnings")]
    VerifiedWithWarnings,
    #[serde(rename = "runtime or install issue; inspect before presenting as protocol failure")]
    InspectRuntime,
    #[serde(rename = "stdio transport or MCP protocol failure")]
    TransportOrProtocolFailure,
}

/// A JSON-RPC error the server answered with (its message masked and bounded).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
}

impl RpcError {
    pub fn masked(e: &crate::protocol::jsonrpc::ErrorObject) -> Self {
        RpcError {
            code: e.code,
            message: excerpt(&crate::secrets::redact(&e.message), 200),
        }
    }
}

/// The contract knows three issue classes; a static-source finding is a stdio-transport
/// fault there ("source scan found risky stdout writes"). mcpcheck's `security` stays.
pub fn contract_class(f: &Finding) -> IssueClass {
    match f.class() {
        IssueClass::StaticSource => IssueClass::StdioTransport,
        other => other,
    }
}

/// The same, as the summary names it (empty when nothing was found).
pub fn summary_class(f: Option<&Finding>) -> ContractClass {
    match f.map(contract_class) {
        None => ContractClass::None,
        Some(IssueClass::InstallRuntime) => ContractClass::InstallRuntime,
        Some(IssueClass::StdioTransport | IssueClass::StaticSource) => {
            ContractClass::StdioTransport
        }
        Some(IssueClass::McpProtocol) => ContractClass::McpProtocol,
        Some(IssueClass::Security) => ContractClass::Security,
        Some(IssueClass::Environment) => ContractClass::Environment,
    }
}

/// The contract's display guidance for a verdict.
pub fn display(status: Status) -> Display {
    match status {
        Status::Pass => Display::Verified,
        Status::Warning => Display::VerifiedWithWarnings,
        Status::NeedsInspection => Display::InspectRuntime,
        Status::Fail => Display::TransportOrProtocolFailure,
    }
}

/// `pass`, `fail` or `warning` from the worst finding; notes do not change a status.
pub(super) fn status_of<'a>(findings: impl IntoIterator<Item = &'a Finding>) -> CheckStatus {
    match findings.into_iter().map(|f| f.severity).max() {
        Some(Severity::Error) => CheckStatus::Fail,
        Some(Severity::Warning) => CheckStatus::Warning,
        _ => CheckStatus::Pass,
    }
}

pub(super) fn codes_of<'a>(findings: impl IntoIterator<Item = &'a Finding>) -> Vec<&'static str> {
    let set: BTreeSet<&'static str> = findings.into_iter().map(|f| f.code.as_str()).collect();
    set.into_iter().collect()
}

fn entry(findings: &[&Finding], skipped: bool) -> Check {
    let status = if skipped && findings.is_empty() {
        CheckStatus::Skipped
    } else {
        status_of(findings.iter().copied())
    };
    Check {
        status,
        issue_codes: codes_of(findings.iter().copied()),
    }
}

/// The contract's `checks`, then mcpcheck's own checks by name.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Checks {
    pub initialize: Check,
    pub stdout: Check,
    pub json_rpc: Check,
    pub operation: Check,
    pub capabilities: CapabilitiesCheck,
    pub tool_schema: Check,
    pub adversarial: Check,
    pub process: Check,
    pub python_buffering: Check,
    pub static_scan: Check,
    pub repeat: RepeatCheck,
    /// Present only when the leftover processes (`process-escaped-group`, orphans of the
    /// server) could not all be looked for: the portable process backend (macOS).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leftover_processes: Option<UncheckedCheck>,
    /// mcpcheck's own checks, by name (where a name is not the contract's).
    #[serde(flatten)]
    pub own: NamedMap<Check>,
}

/// The contract's names of checks: mcpcheck's own checks of the same name are left out.
const CONTRACT_CHECKS: [&str; 11] = [
    "initialize",
    "stdout",
    "jsonRpc",
    "operation",
    "capabilities",
    "toolSchema",
    "adversarial",
    "process",
    "pythonBuffering",
    "staticScan",
    "repeat",
];

/// mcpcheck's own checks, by name; the contract's names take precedence where they meet.
fn own_checks(session: &SessionResult) -> NamedMap<Check> {
    let mut out = NamedMap::default();
    for check in &session.checks {
        if CONTRACT_CHECKS.contains(&check.name) || out.contains(check.name) {
            continue;
        }
        let status = match check.findings.iter().map(|f| f.severity).max() {
            None => CheckStatus::Pass,
            Some(Severity::Error) => CheckStatus::Fail,
            Some(_) => CheckStatus::Warning,
        };
        let mut codes: Vec<&'static str> = check.findings.iter().map(|f| f.code.as_str()).collect();
        codes.sort_unstable();
        codes.dedup();
        let check_entry = Check {
            status,
            issue_codes: codes,
        };
        out.push(check.name, check_entry);
    }
    out
}

/// The codes one of mcpcheck's checks may emit.
pub(super) fn check_codes(session: &SessionResult, name: &str) -> Vec<Code> {
    session
        .checks
        .iter()
        .filter(|c| c.name == name)
        .flat_map(|c| c.codes.iter().copied())
        .collect()
}

/// The contract's `checks`: `initialize, stdout, jsonRpc, operation, capabilities,
/// toolSchema, adversarial, process, pythonBuffering, staticScan, repeat`, then mcpcheck's.
pub fn checks(run: &GuardRun, session: &SessionResult, findings: &[Finding]) -> Checks {
    let t = &session.transcript;
    let member = |codes: &[Code], f: &&Finding| codes.contains(&f.code);
    let pick = |keep: &dyn Fn(&&Finding) -> bool| -> Vec<&Finding> {
        findings.iter().filter(|f| keep(f)).collect()
    };
    let handshake = t.handshake().map(|h| h.method.clone());
    let initialize_codes = check_codes(session, "initialize");
    let initialize = pick(&|f| {
        member(&initialize_codes, f)
            || matches!(f.code, Code::InitializeTimeout | Code::ServerExited)
            || (f.location.request.is_some() && f.location.request == handshake)
    });
    let stdout = pick(&|f| member(&check_codes(session, "stdioTransport"), f));
    let json_rpc = pick(&|f| member(&check_codes(session, "jsonRpc"), f));
    let tool_call_codes = check_codes(session, "toolCalls");
    let explicit = || {
        t.exchanges
            .iter()
            .filter(|e| e.purpose == Purpose::Explicit)
    };
    // An answer whose id has another JSON type answers nothing a strict client sent.
    let operation_id_mismatch = explicit().any(|e| e.id_type_mismatch);
    let in_place_of_answers = lines_in_place_of_answers(t, |e| e.purpose == Purpose::Explicit);
    let operation = pick(&|f| {
        matches!(
            f.code,
            Code::OperationTimeout | Code::OperationMissingResponse | Code::OperationError
        ) || member(&tool_call_codes, f)
            || (operation_id_mismatch && f.code == Code::ResponseIdTypeMismatch)
            || f.location
                .stdout_line
                .is_some_and(|line| in_place_of_answers.contains(&line))
    });
    let tool_schema = pick(&|f| member(&check_codes(session, "toolSchemas"), f));
    let adversarial = pick(&|f| f.code.as_str().starts_with("adversarial-"));
    let process_codes = check_codes(session, "process");
    let process = pick(&|f| {
        member(&process_codes, f)
            && !matches!(
                f.code,
                Code::InitializeTimeout
                    | Code::OperationTimeout
                    | Code::OperationMissingResponse
                    | Code::OperationError
            )
    });
    let python = pick(&|f| f.code == Code::PythonBufferedStdio);
    let static_scan = pick(&|f| member(&check_codes(session, "static"), f));
    let settings = &run.settings;
    Checks {
        initialize: initialize_check(t, &initialize, findings),
        stdout: entry(&stdout, false),
        json_rpc: entry(&json_rpc, false),
        // Skipped when no explicit request was sent (none planned, or the session ended first).
        operation: entry(&operation, explicit().next().is_none()),
        capabilities: capabilities_check(run, session, findings),
        tool_schema: entry(&tool_schema, t.list(ListKind::Tools).is_none()),
        adversarial: entry(&adversarial, !adversarial_enabled(run)),
        process: entry(&process, false),
        python_buffering: python_buffering_check(&python),
        static_scan: entry(&static_scan, settings.scan.is_empty()),
        repeat: repeat_check(run, findings),
        leftover_processes: session
            .transcript
            .process
            .shutdown
            .as_ref()
            .is_some_and(|s| !s.leftovers_checked)
            .then_some(UncheckedCheck {
                status: CheckStatus::NotChecked,
                reason: crate::process::backend::LEFTOVERS_NOT_CHECKED,
            }),
        own: own_checks(session),
    }
}

/// The stdout lines that stand where the answer of a request `of` picks should be: the line
/// that ended it (a request reusing its id), and, for one never answered, every line after it
/// was sent that is no valid message (Content-Length framing, text). A finding on such a line
/// is that request's failure too, as mcp-stdio-guard counts it for the operation.
pub(super) fn lines_in_place_of_answers(
    t: &Transcript,
    of: impl Fn(&crate::session::transcript::Exchange) -> bool,
) -> Vec<u64> {
    let mut lines = Vec::new();
    for e in t.exchanges.iter().filter(|e| of(e)) {
        let answered = matches!(e.outcome, Outcome::Result(_) | Outcome::Error(_));
        if !answered {
            lines.extend(e.answer_line);
            lines.extend(
                t.frames
                    .iter()
                    .filter(|f| f.at_ms >= e.sent_ms && !f.is_valid_message())
                    .map(|f| f.line),
            );
        }
    }
    lines
}

/// `initialize`: skipped when no handshake was sent (the server never started), failed when
/// one was sent but the session never opened, whatever else explains it.
fn initialize_check(t: &Transcript, own: &[&Finding], findings: &[Finding]) -> Check {
    let Some(handshake) = t.handshake() else {
        return entry(own, true);
    };
    let opened = matches!(
        handshake.outcome,
        Outcome::Result(serde_json::Value::Object(_))
    ) && !handshake.id_type_mismatch
        && (handshake.purpose == Purpose::Discover || t.initialized());
    if opened {
        return entry(own, false);
    }
    // Whatever initialize's own findings say, the errors that stopped the session count too.
    let errors = findings.iter().filter(|f| f.severity == Severity::Error);
    Check {
        status: CheckStatus::Fail,
        issue_codes: codes_of(own.iter().copied().chain(errors)),
    }
}

/// `pythonBuffering`: the heuristic's note (no `-u`, and a request went unanswered) is a
/// suspicion the check cannot pass, so it warns; the diagnosed hang fails it.
fn python_buffering_check(found: &[&Finding]) -> Check {
    let mut check = entry(found, false);
    if check.status == CheckStatus::Pass && !found.is_empty() {
        check.status = CheckStatus::Warning;
    }
    check
}

pub(super) fn adversarial_enabled(run: &GuardRun) -> bool {
    !run.settings.probes.is_empty() || !run.settings.adversarial_tool_calls.is_empty()
}

/// The contract's `repeat` check: with `--repeat`, how many runs passed and which failed.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RepeatCheck {
    pub status: CheckStatus,
    pub issue_codes: Vec<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runs: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub passed_runs: Option<usize>,
    /// The 1-based index of every run with an error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_runs: Option<Vec<usize>>,
}

/// 1-based index of every run with an error.
fn failed_runs(run: &GuardRun) -> Vec<usize> {
    run.runs
        .iter()
        .enumerate()
        .filter(|(_, s)| s.findings.iter().any(|f| f.severity == Severity::Error))
        .map(|(i, _)| i + 1)
        .collect()
}

fn repeat_check(run: &GuardRun, findings: &[Finding]) -> RepeatCheck {
    if run.runs.len() < 2 {
        return RepeatCheck {
            status: CheckStatus::Skipped,
            issue_codes: Vec::new(),
            runs: None,
            passed_runs: None,
            failed_runs: None,
        };
    }
    let failed = failed_runs(run);
    RepeatCheck {
        status: status_of(findings),
        issue_codes: codes_of(findings),
        runs: Some(run.runs.len()),
        passed_runs: Some(run.runs.len() - failed.len()),
        failed_runs: Some(failed),
    }
}
