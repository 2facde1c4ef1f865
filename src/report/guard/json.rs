//! The JSON report: a stable machine contract (`schemaVersion: 1`), documented in the README.

use super::contract;
use crate::finding::Finding;
use crate::finding::{excerpt, Severity};
use crate::guard::{GuardRun, SessionResult};
use crate::report::issue::{issue_json, summary_json};
use crate::secrets::redact_argv;
use crate::session::advertises;
use crate::session::transcript::Transcript;
use crate::session::transcript::{ListKind, Outcome, Purpose};
use crate::verdict::{Status, Verdict};
use serde_json::{json, Map, Value};

/// The guard report contract (v1): fields are only ever added under this version.
pub const SCHEMA_VERSION: u32 = 1;

/// The report: the primary session's facts, every distinct finding of every run, and
/// (with --repeat) each run in full plus the drift between them.
pub fn render(run: &GuardRun) -> Value {
    let repeat = run.runs.len() > 1;
    let mut doc = session_document(run, run.primary(), &run.findings, repeat);
    doc["profile"] = json!(run.settings.profile.as_str());
    if !run.matrix.is_empty() {
        doc["protocolMatrix"] = json!(run.matrix);
    }
    if !run.probes.is_empty() {
        doc["adversarialProbes"] = json!(run.probes);
    }
    if repeat {
        doc["repeat"] = json!(run.runs.len());
        doc["toolSchema"]["runs"] = json!(run.runs.len());
        // The fingerprint of a repeat: each run's own timings, and the sum.
        let timings: Vec<Value> = run
            .runs
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let t = &s.transcript;
                json!({
                    "run": i + 1,
                    "ok": Verdict::of(&s.findings).ok(),
                    "startupMs": t.handshake().and_then(|h| h.answered_ms),
                    "totalMs": t.duration_ms,
                })
            })
            .collect();
        let total: u64 = run.runs.iter().map(|s| s.transcript.duration_ms).sum();
        doc["fingerprint"]["timings"]["startupMs"] = Value::Null;
        doc["fingerprint"]["timings"]["totalMs"] = json!(total);
        doc["fingerprint"]["runs"] = Value::Array(timings);
        doc["runs"] = Value::Array(
            run.runs
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let mut one = session_document(run, s, &s.findings, false);
                    one["run"] = json!(i + 1);
                    one["profile"] = json!(run.settings.profile.as_str());
                    one
                })
                .collect(),
        );
        doc["drift"] = contract::drift(run);
        doc["runDrift"] = json!(run.drift);
    }
    doc
}

fn session_document(
    run: &GuardRun,
    session: &SessionResult,
    findings: &[Finding],
    repeat: bool,
) -> Value {
    let verdict = Verdict::of(findings);
    let t = &session.transcript;
    let init_result = t.initialize_result();
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
    let argv = redact_argv(&argv);
    // A strict client never matches an answer whose id has another JSON type.
    let initialized = t.initialized() && !t.handshake().is_some_and(|h| h.id_type_mismatch);
    let operations = contract::operations(run, t);
    let mut checks = contract::checks(run, session, findings);
    for (name, value) in mcpcheck_checks(session) {
        checks.entry(name).or_insert(value);
    }
    let issues: Vec<Value> = findings
        .iter()
        .map(|f| {
            let mut issue = issue_json(f);
            contract::annotate_issue(&mut issue, f, repeat.then_some(run), t);
            issue
        })
        .collect();
    let mut doc = json!({
        "schemaVersion": SCHEMA_VERSION,
        "ok": verdict.ok(),
        "summary": summary(&verdict),
        "command": argv,
        "config": contract::config(run),
        "protocol": run.plan.protocol,
        "negotiatedProtocol": negotiated,
        "era": t.era,
        "initialized": initialized,
        "serverInfo": server_info(init_result),
        "operation": operations.first().cloned().unwrap_or(Value::Null),
        "operations": operations,
        "exchanges": exchanges(t),
        "capabilityProbes": run.plan.probe_lists,
        "capabilityKeys": capability_keys,
        "capabilityChecks": contract::capability_checks(t),
        "listChecks": list_checks(t, findings, &capabilities),
        "adversarial": contract::adversarial(run),
        "toolSchema": contract::tool_schema(session, findings),
        "checks": checks,
        "issueClasses": contract::issue_classes(findings),
        "stdout": stdout_facts(t),
        "stderr": stderr_text(t),
        "stderrFacts": t.process.stderr,
        "process": contract::process(run, t),
        "staticScan": contract::static_scan(run),
        "staticFindings": contract::static_findings(run),
        "fingerprint": contract::fingerprint(run, t),
        "issues": issues,
        "durationMs": t.duration_ms,
    });
    super::http::annotate(&mut doc, t);
    doc
}

/// Most of the stderr tail the report repeats: the end, where a crash explains itself.
const STDERR_REPORT_CHARS: usize = 4096;

/// The contract's `stderr`: the text the server wrote there (its tail), secrets redacted.
fn stderr_text(t: &Transcript) -> String {
    let text = crate::secrets::redact(&t.process.stderr.tail_text());
    let skip = text.chars().count().saturating_sub(STDERR_REPORT_CHARS);
    text.chars().skip(skip).collect()
}

/// The summary: the contract's display line, with mcpcheck's own one-line text beside it.
fn summary(verdict: &Verdict<'_>) -> Value {
    let color = match verdict.status {
        Status::Pass => "brightgreen",
        Status::Warning => "yellow",
        Status::NeedsInspection => "orange",
        Status::Fail => "red",
    };
    let mut summary = summary_json(verdict);
    summary["text"] = summary["display"].take();
    summary["display"] = json!(contract::display(verdict.status));
    // The contract's strings are empty, not null, when nothing was found.
    let class = verdict.primary.map(contract::contract_class).unwrap_or("");
    summary["issueClass"] = json!(class);
    summary["primaryIssueClass"] = json!(class);
    summary["primaryIssueCode"] = json!(verdict.primary.map(|p| p.code.as_str()).unwrap_or(""));
    summary["badge"] = json!({"label": "mcp stdio", "message": verdict.status.as_str().replace('_', " "), "color": color});
    summary
}

fn server_info(init: Option<&Value>) -> Value {
    let Some(info) = init.and_then(|r| r.get("serverInfo")) else {
        return Value::Null;
    };
    // The server's own words: a credential in them must not reach the report.
    let field = |k: &str| {
        info.get(k)
            .and_then(Value::as_str)
            .map(|s| excerpt(&crate::secrets::redact(s), 128))
    };
    json!({"name": field("name"), "version": field("version")})
}

/// mcpcheck's record of every request it sent (handshake, list pages, explicit ones).
fn exchanges(t: &Transcript) -> Vec<Value> {
    t.exchanges
        .iter()
        .map(|e| {
            let (purpose, page) = match &e.purpose {
                Purpose::Initialize => ("initialize", None),
                Purpose::Discover => ("discover", None),
                Purpose::ListProbe { page, .. } => ("listProbe", Some(*page)),
                Purpose::Explicit => ("explicit", None),
            };
            let mut op = json!({
                "method": e.method,
                "id": e.id.to_json(),
                "purpose": purpose,
                "outcome": e.outcome.label(),
                "latencyMs": e.answered_ms.map(|a| a.saturating_sub(e.sent_ms)),
                "stdoutLine": e.answer_line,
            });
            if let Some(p) = page {
                op["page"] = json!(p);
            }
            match &e.outcome {
                Outcome::Error(err) => {
                    op["error"] = json!({"code": err.code, "message": excerpt(&err.message, 200)})
                }
                Outcome::Malformed(problem) => op["envelopeProblem"] = json!(problem.detail_code()),
                Outcome::SendFailed(reason) => op["sendError"] = json!(reason),
                _ => {}
            }
            op
        })
        .collect()
}

/// mcpcheck's per-list view (`tools/list`, ... `resources/templates/list`).
fn list_checks(t: &Transcript, findings: &[Finding], capabilities: &Value) -> Value {
    let mut out = Map::new();
    for list in ListKind::ALL {
        let advertised = advertises(capabilities, list.capability());
        let probe = t.list(list);
        let codes: Vec<&str> = findings
            .iter()
            .filter(|f| f.location.request.as_deref() == Some(list.method()))
            .filter(|f| f.code.as_str().starts_with("capability-"))
            .map(|f| f.code.as_str())
            .collect();
        let status = match (advertised, probe) {
            (false, _) | (true, None) => "skipped",
            (true, Some(_)) if !codes.is_empty() => "fail",
            // No finding, but an answer was cut off by a limit or a broken envelope.
            (true, Some(p))
                if p.exchanges.iter().any(|&i| {
                    !matches!(
                        t.exchanges[i].outcome,
                        Outcome::Result(_) | Outcome::Error(_)
                    )
                }) =>
            {
                "incomplete"
            }
            _ => "pass",
        };
        out.insert(
            list.method().to_string(),
            json!({
                "capability": list.capability(),
                "advertised": advertised,
                "status": status,
                "pages": probe.map(|p| p.exchanges.len()),
                "items": probe.map(|p| p.items.len()),
                "issueCodes": codes,
            }),
        );
    }
    Value::Object(out)
}

/// mcpcheck's own checks, by name; the contract's names take precedence where they meet.
fn mcpcheck_checks(session: &SessionResult) -> Map<String, Value> {
    let mut out = Map::new();
    for check in &session.checks {
        let worst = check.findings.iter().map(|f| f.severity).max();
        let status = match worst {
            None => "pass",
            Some(Severity::Error) => "fail",
            Some(_) => "warning",
        };
        let mut codes: Vec<&str> = check.findings.iter().map(|f| f.code.as_str()).collect();
        codes.sort_unstable();
        codes.dedup();
        out.insert(
            check.name.to_string(),
            json!({"status": status, "issueCodes": codes}),
        );
    }
    out
}

fn stdout_facts(t: &Transcript) -> Value {
    let invalid = t.frames.iter().filter(|f| !f.is_valid_message()).count();
    json!({
        "frames": t.frames.len(),
        "invalidFrames": invalid,
        "bytes": t.process.stdout_bytes,
        // A bounded sample (the first requests) with a count per method.
        "serverRequests": t.server_requests.sample,
        "serverRequestCount": t.server_requests.total,
        "serverRequestMethods": t.server_requests.by_method,
        "serverRequestsOtherMethods": t.server_requests.other_methods,
        "serverRequestsOmitted": t.server_requests.omitted(),
    })
}
