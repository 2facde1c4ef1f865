//! The JSON report: a stable machine contract (`schemaVersion: 1`), documented in
//! docs/json.md; its schema (schemas/reports/guard-report.v1.schema.json) is generated
//! from these types.

use super::contract::{self, GuardIssue};
use super::facts::{self, GuardSummary, ListChecks, ServerInfo, StderrFacts, StdoutFacts};
use super::http::{self, Http, Transport};
use crate::finding::{excerpt, Finding};
use crate::guard::{GuardRun, SessionResult};
use crate::report::issue::SchemaVersion;
use crate::secrets::redact_argv;
use crate::verdict::Verdict;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

/// The guard report contract (v1): fields are only ever added under this version.
pub const SCHEMA_VERSION: u32 = 1;

/// The guard's JSON report, schemaVersion 1: a strict superset of the mcp-stdio-guard v1
/// JSON contract (names, types and enums of that contract) plus mcpcheck's own fields.
/// Fields are only ever added under this version.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    title = "mcpcheck guard --json (v1)",
    extend("dependentRequired" = {"runs": ["drift", "repeat", "runDrift"]})
)]
pub struct GuardReport<'a> {
    pub schema_version: SchemaVersion,
    /// True when no finding has severity `error` (exit code 0).
    pub ok: bool,
    pub summary: GuardSummary,
    /// The server's command line, credentials masked.
    pub command: Vec<String>,
    pub config: contract::Config,
    /// The revision asked for.
    pub protocol: String,
    /// The revision the session ran under; empty when none was negotiated.
    pub negotiated_protocol: String,
    pub era: Option<Era>,
    /// Whether the handshake completed as a strict client sees it.
    pub initialized: bool,
    pub server_info: Option<ServerInfo>,
    /// The first explicit request, or null.
    pub operation: Option<contract::Operation>,
    pub operations: Vec<contract::Operation>,
    /// Every request the guard sent, and any it did not repeat after a timeout (`not-sent`).
    pub exchanges: Vec<facts::Exchange>,
    /// Whether the lists were probed.
    pub capability_probes: bool,
    /// The server's capability keys.
    pub capability_keys: Vec<String>,
    pub capability_checks: contract::CapabilityChecks,
    pub list_checks: ListChecks,
    pub adversarial: contract::Adversarial,
    pub tool_schema: contract::ToolSchema,
    pub checks: contract::Checks,
    pub issue_classes: contract::IssueClasses,
    pub stdout: StdoutFacts,
    /// The JSON-RPC messages the server wrote on stdout, in order, credentials masked; at
    /// most 200 of them and 256 KiB in all.
    pub frames: Vec<Value>,
    /// Messages left out of `frames` by its bounds.
    pub frames_omitted: u64,
    /// The masked tail of the server's stderr.
    pub stderr: String,
    pub stderr_facts: StderrFacts,
    pub process: contract::Process,
    pub static_scan: contract::StaticScan,
    pub static_findings: Vec<contract::StaticFinding>,
    pub fingerprint: contract::Fingerprint,
    /// Every distinct finding.
    pub issues: Vec<GuardIssue<'a>>,
    /// Wall time: of the whole run (every session, rerun and probe) at the top level; of the
    /// one session in an entry of `runs`.
    pub duration_ms: u64,
    /// How long each step took, in milliseconds: the phases of the session this document
    /// describes, and at the top level the other steps of the run.
    pub phases: Phases,
    /// How the guard talked to the server: "stdio" (a command it ran), "http" (--url,
    /// Streamable HTTP) or "sse" (--url, the legacy HTTP+SSE transport of 2024-11-05, which
    /// the guard falls back to when the server speaks it). Added in v1 without breaking it.
    #[serde(skip_serializing_if = "crate::report::issue::added_in_v1")]
    pub transport: Transport,
    /// Over HTTP only: the URL (credentials masked; header values never appear), how many
    /// POSTs the session sent, whether the server issued an Mcp-Session-Id, the
    /// MCP-Protocol-Version header sent, whether the host is loopback or private, and the
    /// status each transport probe got (null when it did not run), and `getStream` (null when
    /// the standalone GET stream was not opened: its status, whether it was an event stream,
    /// the events, the messages handed to the session, those that came after it stopped
    /// reading, responses on it, the last event id and retry, and whether the server ended
    /// it). Over the legacy transport also `legacy`: the endpoint (without its query, which
    /// holds the session id), the stream's status and the number of events read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http: Option<Http>,
    /// One run of `--repeat` (1-based), in `runs`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub run: Option<usize>,
    pub profile: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol_matrix: Option<Vec<facts::MatrixEntry>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adversarial_probes: Option<Vec<facts::ProbeOutcome>>,
    /// With `--repeat` above 1: the number of runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 2))]
    pub repeat: Option<usize>,
    /// With `--repeat` above 1: each run as a document of its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runs: Option<Vec<GuardReport<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drift: Option<contract::Drift>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_drift: Option<Vec<facts::RunDrift>>,
}

/// Where the time went. The six phases are those of the session the document describes
/// (after a rerun that found block-buffered Python stdio, the rerun) and add up to its
/// time. At the top level the run's steps follow, 0 when they did not run:
/// `sessionsMs + bufferingCheckMs + matrixMs + probesMs` (+ `installMs`) is `durationMs`, the run's wall
/// time, within the milliseconds the checks take.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Phases {
    pub spawn_ms: u64,
    pub initialize_ms: u64,
    /// tools/list, prompts/list, resources/list… with their pages.
    pub lists_ms: u64,
    /// The explicit requests (`--request`).
    pub requests_ms: u64,
    /// Listening for late output after the last answer.
    pub settling_ms: u64,
    pub shutdown_ms: u64,
    /// Top level only: every session of `--repeat` and a fallback to the legacy transport,
    /// this one's included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sessions_ms: Option<u64>,
    /// Top level only: the reruns that looked for block-buffered Python stdio.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buffering_check_ms: Option<u64>,
    /// Top level only: `--protocol-matrix`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matrix_ms: Option<u64>,
    /// Top level only: the adversarial probes and tool calls.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probes_ms: Option<u64>,
    /// Top level only, when one ran: installing the package the command's launcher fetches
    /// (`npx`, `uvx`) before the first session, whose clock starts after it; part of
    /// `durationMs`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub install_ms: Option<u64>,
}

impl Phases {
    fn of(t: &crate::session::transcript::Transcript) -> Self {
        let p = t.phases;
        Self {
            spawn_ms: p.spawn_ms,
            initialize_ms: p.initialize_ms,
            lists_ms: p.lists_ms,
            requests_ms: p.requests_ms,
            settling_ms: p.settle_ms,
            shutdown_ms: p.shutdown_ms,
            sessions_ms: None,
            buffering_check_ms: None,
            matrix_ms: None,
            probes_ms: None,
            install_ms: None,
        }
    }
}

/// The generation of MCP the session spoke.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Era {
    Legacy,
    Modern,
}

impl From<crate::session::transcript::Era> for Era {
    fn from(era: crate::session::transcript::Era) -> Self {
        match era {
            crate::session::transcript::Era::Legacy => Era::Legacy,
            crate::session::transcript::Era::Modern => Era::Modern,
        }
    }
}

/// The report: the primary session's facts, every distinct finding of every run, and
/// (with --repeat) each run in full plus the drift between them.
pub fn report(run: &GuardRun) -> GuardReport<'_> {
    let repeat = run.runs.len() > 1;
    let mut doc = session_document(run, run.primary(), &run.findings, repeat);
    let timings = run.timings;
    doc.duration_ms = timings.wall_ms;
    doc.phases.sessions_ms = Some(timings.sessions_ms);
    doc.phases.buffering_check_ms = Some(timings.buffering_check_ms);
    doc.phases.matrix_ms = Some(timings.matrix_ms);
    doc.phases.probes_ms = Some(timings.probes_ms);
    doc.phases.install_ms = timings.install_ms;
    if !run.matrix.is_empty() {
        doc.protocol_matrix = Some(facts::protocol_matrix(run));
    }
    if !run.probes.is_empty() {
        doc.adversarial_probes = Some(facts::adversarial_probes(run));
    }
    if repeat {
        doc.repeat = Some(run.runs.len());
        doc.tool_schema.runs = Some(run.runs.len());
        // The fingerprint of a repeat: each run's own timings, and the sum.
        let timings = run
            .runs
            .iter()
            .enumerate()
            .map(|(i, s)| contract::RunTimings {
                run: i + 1,
                ok: Verdict::of(&s.findings).ok(),
                startup_ms: s.transcript.handshake().and_then(|h| h.answered_ms),
                total_ms: s.transcript.duration_ms,
            })
            .collect();
        doc.fingerprint.timings.startup_ms = None;
        doc.fingerprint.timings.total_ms = run.runs.iter().map(|s| s.transcript.duration_ms).sum();
        doc.fingerprint.runs = Some(timings);
        let runs = run.runs.iter().enumerate().map(|(i, s)| {
            let mut one = session_document(run, s, &s.findings, false);
            one.run = Some(i + 1);
            one
        });
        doc.runs = Some(runs.collect());
        doc.drift = Some(contract::drift(run));
        doc.run_drift = Some(facts::run_drift(run));
    }
    doc
}

/// The report as JSON.
pub fn render(run: &GuardRun) -> Value {
    serde_json::to_value(report(run)).unwrap_or(Value::Null)
}

/// The report as JSON, with `shown` (when given) as the server's command line.
pub fn render_showing(run: &GuardRun, shown: Option<&[String]>) -> Value {
    let doc = report(run);
    let doc = match shown {
        Some(argv) => doc.showing_command(argv.to_vec()),
        None => doc,
    };
    serde_json::to_value(doc).unwrap_or(Value::Null)
}

impl GuardReport<'_> {
    /// This report with `argv` as the server's command line (`command`, and the
    /// fingerprint's `argv` and `command`): how a sweep shows it, each secret as `${NAME}`.
    pub fn showing_command(mut self, argv: Vec<String>) -> Self {
        self.fingerprint.command = contract::CommandFacts {
            executable: argv.first().cloned(),
            args: argv.get(1..).unwrap_or_default().to_vec(),
            argv: argv.clone(),
        };
        self.fingerprint.argv = argv.clone();
        self.command = argv;
        self
    }
}

fn session_document<'a>(
    run: &GuardRun,
    session: &'a SessionResult,
    findings: &'a [Finding],
    repeat: bool,
) -> GuardReport<'a> {
    let verdict = Verdict::of(findings);
    let t = &session.transcript;
    // The contract's string is empty when the server negotiated nothing.
    let negotiated = t
        .session_version()
        .map(|v| excerpt(&v, 40))
        .unwrap_or_default();
    let capabilities = contract::declared_capabilities(t);
    let capability_keys: Vec<String> = capabilities
        .as_object()
        .map(|o| o.keys().map(|k| excerpt(k, 64)).collect())
        .unwrap_or_default();
    let argv: Vec<String> = std::iter::once(run.command.program.clone())
        .chain(run.command.args.iter().cloned())
        .collect();
    // A strict client never matches an answer whose id has another JSON type.
    let initialized = t.initialized() && !t.handshake().is_some_and(|h| h.id_type_mismatch);
    let operations = contract::operations(run, t);
    let (frames, frames_omitted) = facts::frames(t);
    let issues = findings
        .iter()
        .map(|f| contract::guard_issue(f, repeat.then_some(run), t))
        .collect();
    GuardReport {
        schema_version: SchemaVersion,
        ok: verdict.ok(),
        summary: facts::summary(&verdict),
        command: redact_argv(&argv),
        config: contract::config(run),
        protocol: run.plan.protocol.clone(),
        negotiated_protocol: negotiated,
        era: t.era.map(Era::from),
        initialized,
        server_info: facts::server_info(run.server.as_ref()),
        operation: operations.first().cloned(),
        operations,
        exchanges: facts::exchanges(t),
        capability_probes: run.plan.probe_lists,
        capability_keys,
        capability_checks: contract::capability_checks(t),
        list_checks: facts::list_checks(t, findings, &capabilities),
        adversarial: contract::adversarial(run),
        tool_schema: contract::tool_schema(session, findings),
        checks: contract::checks(run, session, findings),
        issue_classes: contract::issue_classes(findings),
        stdout: facts::stdout_facts(t),
        frames,
        frames_omitted,
        stderr: facts::stderr_text(t),
        stderr_facts: facts::stderr_facts(t),
        process: contract::process(run, t),
        static_scan: contract::static_scan(run),
        static_findings: contract::static_findings(run),
        fingerprint: contract::fingerprint(run, t),
        issues,
        duration_ms: t.duration_ms,
        phases: Phases::of(t),
        transport: http::transport(t),
        http: http::http(t),
        run: None,
        profile: run.settings.profile.as_str(),
        protocol_matrix: None,
        adversarial_probes: None,
        repeat: None,
        runs: None,
        drift: None,
        run_drift: None,
    }
}
