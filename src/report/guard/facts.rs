//! mcpcheck's own facts of one session in the guard report: the summary, the server's
//! name, every exchange, the list probes, stdout and stderr, and the extras of a run.

use super::contract::{self, ContractClass, Display};
use crate::finding::{excerpt, Finding};
use crate::guard::GuardRun;
use crate::protocol::jsonrpc::LineContent;
use crate::report::issue::{IssueCounts, Summary};
use crate::session::advertises;
use crate::session::transcript::{ListKind, Outcome, Purpose, Transcript};
use crate::verdict::{Status, Verdict};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// The summary: the contract's display line, with mcpcheck's own one-line text beside it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GuardSummary {
    pub status: Status,
    /// The contract's class of the primary finding; empty when nothing was found.
    pub issue_class: ContractClass,
    /// The primary finding's code; empty when nothing was found.
    pub primary_issue_code: &'static str,
    pub issue_counts: IssueCounts,
    pub display: Display,
    /// mcpcheck's one line, e.g. `FAIL: stdout-non-json (1 error, 0 warnings)`.
    pub text: String,
    pub primary_issue_class: ContractClass,
    pub badge: Badge,
}

/// A badge service's label, message and colour.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Badge {
    pub label: BadgeLabel,
    pub message: BadgeMessage,
    pub color: BadgeColor,
}

#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
pub enum BadgeLabel {
    #[serde(rename = "mcp stdio")]
    McpStdio,
}

#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum BadgeMessage {
    Pass,
    Warning,
    #[serde(rename = "needs inspection")]
    NeedsInspection,
    Fail,
}

#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum BadgeColor {
    Brightgreen,
    Yellow,
    Orange,
    Red,
}

pub fn summary(verdict: &Verdict<'_>) -> GuardSummary {
    let (message, color) = match verdict.status {
        Status::Pass => (BadgeMessage::Pass, BadgeColor::Brightgreen),
        Status::Warning => (BadgeMessage::Warning, BadgeColor::Yellow),
        Status::NeedsInspection => (BadgeMessage::NeedsInspection, BadgeColor::Orange),
        Status::Fail => (BadgeMessage::Fail, BadgeColor::Red),
    };
    let common = Summary::of(verdict);
    // The contract's strings are empty, not null, when nothing was found.
    let class = contract::summary_class(verdict.primary);
    GuardSummary {
        status: common.status,
        issue_class: class,
        primary_issue_code: common.primary_issue_code.unwrap_or(""),
        issue_counts: common.issue_counts,
        display: contract::display(verdict.status),
        text: common.display,
        primary_issue_class: class,
        badge: Badge {
            label: BadgeLabel::McpStdio,
            message,
            color,
        },
    }
}

/// `name` and `version` from the initialize result, masked and bounded.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ServerInfo {
    pub name: Option<String>,
    pub version: Option<String>,
}

/// The server's identity as the run read it once (cleaned and bounded there).
pub fn server_info(server: Option<&crate::guard::clean::ServerIdentity>) -> Option<ServerInfo> {
    server.map(|s| ServerInfo {
        name: s.name.clone(),
        version: s.version.clone(),
    })
}

/// Why a request was sent.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ExchangePurpose {
    Initialize,
    Discover,
    ListProbe,
    Explicit,
}

/// A request the guard sent: its purpose, outcome, latency and the stdout line answering it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Exchange {
    pub method: String,
    /// The request's id, as sent.
    pub id: Value,
    pub purpose: ExchangePurpose,
    pub outcome: &'static str,
    pub latency_ms: Option<u64>,
    pub stdout_line: Option<u64>,
    /// List probes: the page (0-based).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ExchangeError>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub envelope_problem: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub send_error: Option<String>,
}

/// The JSON-RPC error an exchange was answered with (its message bounded).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ExchangeError {
    pub code: i64,
    pub message: String,
}

/// mcpcheck's record of every request it sent (handshake, list pages, explicit ones).
pub fn exchanges(t: &Transcript) -> Vec<Exchange> {
    t.exchanges
        .iter()
        .map(|e| {
            let (purpose, page) = match &e.purpose {
                Purpose::Initialize => (ExchangePurpose::Initialize, None),
                Purpose::Discover => (ExchangePurpose::Discover, None),
                Purpose::ListProbe { page, .. } => (ExchangePurpose::ListProbe, Some(*page)),
                Purpose::Explicit => (ExchangePurpose::Explicit, None),
            };
            let mut op = Exchange {
                method: e.method.clone(),
                id: e.id.to_json(),
                purpose,
                outcome: e.outcome.label(),
                latency_ms: e.answered_ms.map(|a| a.saturating_sub(e.sent_ms)),
                stdout_line: e.answer_line,
                page,
                error: None,
                envelope_problem: None,
                send_error: None,
            };
            match &e.outcome {
                Outcome::Error(err) => {
                    op.error = Some(ExchangeError {
                        code: err.code,
                        message: excerpt(&err.message, 200),
                    })
                }
                Outcome::Malformed(problem) => op.envelope_problem = Some(problem.detail_code()),
                Outcome::SendFailed(reason) => op.send_error = Some(reason.clone()),
                _ => {}
            }
            op
        })
        .collect()
}

/// How a list probe went: `skipped` (not advertised or not probed), `fail`, `incomplete`
/// (an answer cut off by a limit or a broken envelope) or `pass`.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ListStatus {
    Skipped,
    Fail,
    Incomplete,
    Pass,
}

/// mcpcheck's per-list view.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ListChecks {
    #[serde(rename = "tools/list")]
    pub tools: ListCheck,
    #[serde(rename = "prompts/list")]
    pub prompts: ListCheck,
    #[serde(rename = "resources/list")]
    pub resources: ListCheck,
    #[serde(rename = "resources/templates/list")]
    pub resource_templates: ListCheck,
}

/// One list method: whether it was advertised, how the probe went, its pages and items.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListCheck {
    pub capability: &'static str,
    pub advertised: bool,
    pub status: ListStatus,
    pub pages: Option<usize>,
    pub items: Option<usize>,
    pub issue_codes: Vec<&'static str>,
}

/// mcpcheck's per-list view (`tools/list`, ... `resources/templates/list`).
pub fn list_checks(t: &Transcript, findings: &[Finding], capabilities: &Value) -> ListChecks {
    let check = |list: ListKind| {
        let advertised = advertises(capabilities, list.capability());
        let probe = t.list(list);
        let codes: Vec<&'static str> = findings
            .iter()
            .filter(|f| f.location.request.as_deref() == Some(list.method()))
            .filter(|f| f.code.as_str().starts_with("capability-"))
            .map(|f| f.code.as_str())
            .collect();
        let status = match (advertised, probe) {
            (false, _) | (true, None) => ListStatus::Skipped,
            (true, Some(_)) if !codes.is_empty() => ListStatus::Fail,
            // No finding, but an answer was cut off by a limit or a broken envelope.
            (true, Some(p))
                if p.exchanges.iter().any(|&i| {
                    !matches!(
                        t.exchanges[i].outcome,
                        Outcome::Result(_) | Outcome::Error(_)
                    )
                }) =>
            {
                ListStatus::Incomplete
            }
            _ => ListStatus::Pass,
        };
        ListCheck {
            capability: list.capability(),
            advertised,
            status,
            pages: probe.map(|p| p.exchanges.len()),
            items: probe.map(|p| p.items.len()),
            issue_codes: codes,
        }
    };
    ListChecks {
        tools: check(ListKind::Tools),
        prompts: check(ListKind::Prompts),
        resources: check(ListKind::Resources),
        resource_templates: check(ListKind::ResourceTemplates),
    }
}

/// Frame counts and the server's requests, bounded whatever their number.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StdoutFacts {
    pub frames: usize,
    pub invalid_frames: usize,
    pub bytes: u64,
    /// The first requests the server sent (a bounded sample).
    #[schemars(length(max = 100))]
    pub server_requests: Vec<ServerRequest>,
    pub server_request_count: u64,
    /// Each method's requests (for so many methods).
    pub server_request_methods: BTreeMap<String, MethodCount>,
    /// Requests of methods past those counted one by one.
    pub server_requests_other_methods: u64,
    /// Requests counted but left out of `serverRequests`.
    pub server_requests_omitted: u64,
}

/// A request the server sent to the client, and whether the guard answered it with an error.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServerRequest {
    pub line: u64,
    pub method: String,
    pub answered_with_error: bool,
}

/// The requests of one method the server sent.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MethodCount {
    pub count: u64,
    pub first_line: u64,
    pub answered_with_error: bool,
}

pub fn stdout_facts(t: &Transcript) -> StdoutFacts {
    let requests = &t.server_requests;
    StdoutFacts {
        frames: t.frames.len(),
        invalid_frames: t.frames.iter().filter(|f| !f.is_valid_message()).count(),
        bytes: t.process.stdout_bytes,
        server_requests: requests
            .sample
            .iter()
            .map(|r| ServerRequest {
                line: r.line,
                method: r.method.clone(),
                answered_with_error: r.answered_with_error,
            })
            .collect(),
        server_request_count: requests.total,
        server_request_methods: requests
            .by_method
            .iter()
            .map(|(method, m)| {
                let count = MethodCount {
                    count: m.count,
                    first_line: m.first_line,
                    answered_with_error: m.answered_with_error,
                };
                (method.clone(), count)
            })
            .collect(),
        server_requests_other_methods: requests.other_methods,
        server_requests_omitted: requests.omitted(),
    }
}

/// Stderr's byte and line counts, and whether it passed the limit (only its tail kept).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StderrFacts {
    pub total_bytes: u64,
    pub lines: u64,
    pub limit_exceeded: bool,
}

pub fn stderr_facts(t: &Transcript) -> StderrFacts {
    let s = &t.process.stderr;
    StderrFacts {
        total_bytes: s.total_bytes,
        lines: s.lines,
        limit_exceeded: s.limit_exceeded,
    }
}

/// Most of the stderr tail the report repeats: the end, where a crash explains itself.
const STDERR_REPORT_CHARS: usize = 4096;

/// The contract's `stderr`: the text the server wrote there (its tail), secrets redacted.
pub fn stderr_text(t: &Transcript) -> String {
    let text = crate::secrets::redact(&t.process.stderr.tail_text());
    let skip = text.chars().count().saturating_sub(STDERR_REPORT_CHARS);
    text.chars().skip(skip).collect()
}

/// Frames kept in the report, and their serialised bytes at most: a list result can be large.
const MAX_REPORT_FRAMES: usize = 200;
const MAX_REPORT_FRAME_BYTES: usize = 256 * 1024;

/// The contract's `frames`: every JSON-RPC message the server wrote on stdout, in order (a
/// batch's elements one by one), credentials masked, bounded; and how many were left out.
pub fn frames(t: &Transcript) -> (Vec<serde_json::Value>, u64) {
    let messages = t.frames.iter().flat_map(|f| match &f.content {
        LineContent::Single { value, .. } => vec![value],
        LineContent::Batch { messages } => messages.iter().map(|(_, v)| v).collect(),
        _ => Vec::new(),
    });
    let (mut kept, mut omitted, mut bytes) = (Vec::new(), 0u64, 0usize);
    for value in messages {
        let text = crate::secrets::redact(&value.to_string());
        if kept.len() < MAX_REPORT_FRAMES && bytes + text.len() <= MAX_REPORT_FRAME_BYTES {
            if let Ok(masked) = serde_json::from_str(&text) {
                bytes += text.len();
                kept.push(masked);
                continue;
            }
        }
        omitted += 1;
    }
    (kept, omitted)
}

/// One revision of `--protocol-matrix`: what was asked, how the server answered.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MatrixEntry {
    pub requested: String,
    pub method: String,
    /// `result`, `error`, `timeout`, `no-response`...
    pub outcome: &'static str,
    pub negotiated: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_code: Option<i64>,
}

pub fn protocol_matrix(run: &GuardRun) -> Vec<MatrixEntry> {
    run.matrix
        .iter()
        .map(|m| MatrixEntry {
            requested: m.requested.clone(),
            method: m.method.clone(),
            outcome: m.outcome,
            negotiated: m.negotiated.clone(),
            error_code: m.error_code,
        })
        .collect()
}

/// What one adversarial probe found.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ProbeOutcome {
    pub probe: String,
    /// `pass`, `finding`, `report` (observed only) or `not-applicable`.
    pub status: &'static str,
    pub observed: String,
}

pub fn adversarial_probes(run: &GuardRun) -> Vec<ProbeOutcome> {
    run.probes
        .iter()
        .map(|p| ProbeOutcome {
            probe: p.probe.clone(),
            status: p.status,
            observed: p.observed.clone(),
        })
        .collect()
}

/// How run `run` (1-based) differs from run 1.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunDrift {
    pub run: usize,
    /// The negotiated version of run 1 and of this run, where they differ.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<[Option<String>; 2]>,
    pub capabilities_changed: bool,
    pub tools_added: Vec<String>,
    pub tools_removed: Vec<String>,
    pub tools_changed: Vec<String>,
    /// List name -> [count in run 1, count in this run], where they differ.
    pub list_counts: BTreeMap<&'static str, [usize; 2]>,
}

pub fn run_drift(run: &GuardRun) -> Vec<RunDrift> {
    run.drift
        .iter()
        .map(|d| RunDrift {
            run: d.run,
            protocol: d.protocol.clone(),
            capabilities_changed: d.capabilities_changed,
            tools_added: d.tools_added.clone(),
            tools_removed: d.tools_removed.clone(),
            tools_changed: d.tools_changed.clone(),
            list_counts: d.list_counts.clone(),
        })
        .collect()
}
