//! The fields of the mcp-stdio-guard v1 JSON contract, computed from mcpcheck's own facts.
//! Registries and badge services read these names; mcpcheck's finer fields sit beside them.

use crate::catalog::Code;
use crate::finding::{excerpt, Finding, IssueClass, Severity};
use crate::guard::{GuardRun, SessionResult};
use crate::session::advertises;
use crate::session::transcript::{ListKind, Outcome, Purpose, Transcript};
use crate::verdict::Status;
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;

mod fingerprint;
mod process;
mod runs;
pub use fingerprint::fingerprint;
pub use process::{config, operations, process, static_findings, static_scan};
pub use runs::{adversarial, drift, tool_schema};

/// The contract knows three issue classes; a static-source finding is a stdio-transport
/// fault there ("source scan found risky stdout writes"). mcpcheck's `security` stays.
pub fn contract_class(f: &Finding) -> &'static str {
    match f.class() {
        IssueClass::StaticSource => IssueClass::StdioTransport.as_str(),
        other => other.as_str(),
    }
}

/// The contract's display guidance for a verdict.
pub fn display(status: Status) -> &'static str {
    match status {
        Status::Pass => "verified",
        Status::Warning => "verified with warnings",
        Status::NeedsInspection => {
            "runtime or install issue; inspect before presenting as protocol failure"
        }
        Status::Fail => "stdio transport or MCP protocol failure",
    }
}

/// `pass`, `fail` or `warning` from the worst finding; notes do not change a status.
pub(super) fn status_of<'a>(findings: impl IntoIterator<Item = &'a Finding>) -> &'static str {
    match findings.into_iter().map(|f| f.severity).max() {
        Some(Severity::Error) => "fail",
        Some(Severity::Warning) => "warning",
        _ => "pass",
    }
}

pub(super) fn codes_of<'a>(findings: impl IntoIterator<Item = &'a Finding>) -> Vec<&'static str> {
    let set: BTreeSet<&'static str> = findings.into_iter().map(|f| f.code.as_str()).collect();
    set.into_iter().collect()
}

fn entry(findings: &[&Finding], skipped: bool) -> Value {
    let status = if skipped && findings.is_empty() {
        "skipped"
    } else {
        status_of(findings.iter().copied())
    };
    json!({"status": status, "issueCodes": codes_of(findings.iter().copied())})
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
/// toolSchema, adversarial, process, pythonBuffering, staticScan, repeat`.
pub fn checks(run: &GuardRun, session: &SessionResult, findings: &[Finding]) -> Map<String, Value> {
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
    let operation = pick(&|f| {
        matches!(
            f.code,
            Code::OperationTimeout | Code::OperationMissingResponse | Code::OperationError
        ) || member(&tool_call_codes, f)
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
    let mut out = Map::new();
    out.insert("initialize".into(), entry(&initialize, false));
    out.insert("stdout".into(), entry(&stdout, false));
    out.insert("jsonRpc".into(), entry(&json_rpc, false));
    out.insert(
        "operation".into(),
        entry(&operation, settings.plan.requests.is_empty()),
    );
    out.insert(
        "capabilities".into(),
        capabilities_check(run, session, findings),
    );
    out.insert(
        "toolSchema".into(),
        entry(&tool_schema, t.list(ListKind::Tools).is_none()),
    );
    out.insert(
        "adversarial".into(),
        entry(&adversarial, !adversarial_enabled(run)),
    );
    out.insert("process".into(), entry(&process, false));
    out.insert("pythonBuffering".into(), entry(&python, false));
    out.insert(
        "staticScan".into(),
        entry(&static_scan, settings.scan.is_empty()),
    );
    out.insert("repeat".into(), repeat_check(run, findings));
    out
}

pub(super) fn adversarial_enabled(run: &GuardRun) -> bool {
    !run.settings.probes.is_empty() || !run.settings.adversarial_tool_calls.is_empty()
}

/// Contract capabilities: `tools`, `resources`, `prompts`.
const CAPABILITY_LISTS: [ListKind; 3] = [ListKind::Tools, ListKind::Resources, ListKind::Prompts];

/// What the session learned of one capability's list: (responded, itemCount, error).
fn list_answer(t: &Transcript, list: ListKind) -> (bool, Option<usize>, Value) {
    if let Some(probe) = t.list(list) {
        let first = probe.exchanges.first().map(|&i| &t.exchanges[i].outcome);
        let error = match first {
            Some(Outcome::Error(e)) => {
                json!({"code": e.code, "message": excerpt(&crate::secrets::redact(&e.message), 200)})
            }
            _ => Value::Null,
        };
        let responded = matches!(first, Some(Outcome::Result(_) | Outcome::Error(_)));
        let count = matches!(first, Some(Outcome::Result(_))).then_some(probe.items.len());
        return (responded, count, error);
    }
    // An explicit request for the list counts as its probe.
    let explicit = t
        .exchanges
        .iter()
        .find(|e| e.purpose == Purpose::Explicit && e.method == list.method());
    match explicit.map(|e| &e.outcome) {
        Some(Outcome::Result(r)) => (
            true,
            r.get(list.items_key())
                .and_then(Value::as_array)
                .map(Vec::len),
            Value::Null,
        ),
        Some(Outcome::Error(e)) => (
            true,
            None,
            json!({"code": e.code, "message": excerpt(&crate::secrets::redact(&e.message), 200)}),
        ),
        _ => (false, None, Value::Null),
    }
}

/// The capabilities the server declared (initialize, or server/discover).
pub fn declared_capabilities(t: &Transcript) -> Value {
    t.initialize_result()
        .or_else(|| t.discover().and_then(|d| d.outcome_result()))
        .and_then(|r| r.get("capabilities"))
        .cloned()
        .unwrap_or(Value::Null)
}

fn capabilities_check(run: &GuardRun, session: &SessionResult, findings: &[Finding]) -> Value {
    let t = &session.transcript;
    let capabilities = declared_capabilities(t);
    let own = check_codes(session, "capabilities");
    let mut out = Map::new();
    let mut statuses = Vec::new();
    for list in CAPABILITY_LISTS {
        let advertised = advertises(&capabilities, list.capability());
        let (responded, count, _) = list_answer(t, list);
        let found: Vec<&Finding> = findings
            .iter()
            .filter(|f| own.contains(&f.code))
            .filter(|f| f.location.request.as_deref() == Some(list.method()))
            .collect();
        let probed = run.plan.probe_lists && t.list(list).is_some();
        let status = if !found.is_empty() {
            status_of(found.iter().copied())
        } else if advertised && probed {
            "pass"
        } else {
            "skipped"
        };
        statuses.push(status);
        out.insert(
            list.capability().into(),
            json!({
                "status": status,
                "issueCodes": codes_of(found.iter().copied()),
                "advertised": advertised,
                "method": list.method(),
                "responded": responded,
                "itemCount": count,
            }),
        );
    }
    let all: Vec<&Finding> = findings.iter().filter(|f| own.contains(&f.code)).collect();
    let status = if !all.is_empty() {
        status_of(all.iter().copied())
    } else if statuses.contains(&"pass") {
        "pass"
    } else {
        "skipped"
    };
    out.insert("status".into(), json!(status));
    out.insert("issueCodes".into(), json!(codes_of(all.iter().copied())));
    Value::Object(out)
}

/// The contract's top-level `capabilityChecks`, one entry per capability.
pub fn capability_checks(t: &Transcript) -> Value {
    let capabilities = declared_capabilities(t);
    let mut out = Map::new();
    for list in CAPABILITY_LISTS {
        let (responded, count, error) = list_answer(t, list);
        out.insert(
            list.capability().into(),
            json!({
                "advertised": advertises(&capabilities, list.capability()),
                "method": list.method(),
                "responded": responded,
                "itemCount": count,
                "error": error,
            }),
        );
    }
    Value::Object(out)
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

fn repeat_check(run: &GuardRun, findings: &[Finding]) -> Value {
    if run.runs.len() < 2 {
        return json!({"status": "skipped", "issueCodes": []});
    }
    let failed = failed_runs(run);
    json!({
        "status": status_of(findings),
        "issueCodes": codes_of(findings),
        "runs": run.runs.len(),
        "passedRuns": run.runs.len() - failed.len(),
        "failedRuns": failed,
    })
}

/// The contract's `issueClasses`: status and codes per class, beside mcpcheck's counts.
pub fn issue_classes(findings: &[Finding]) -> Value {
    let mut out = Map::new();
    for class in IssueClass::ALL {
        let name = class.as_str();
        let of_class: Vec<&Finding> = findings
            .iter()
            .filter(|f| match class {
                IssueClass::StaticSource | IssueClass::Security => f.class() == class,
                _ => contract_class(f) == name,
            })
            .collect();
        let count = |s: Severity| of_class.iter().filter(|f| f.severity == s).count();
        out.insert(
            name.to_string(),
            json!({
                "status": status_of(of_class.iter().copied()),
                "issueCodes": codes_of(of_class.iter().copied()),
                "errors": count(Severity::Error),
                "warnings": count(Severity::Warning),
            }),
        );
    }
    Value::Object(out)
}

/// The contract's fields of one issue: the contract class (mcpcheck's own kept when it
/// differs), the spawn error code, and in repeat mode the first run that saw it.
pub fn annotate_issue(issue: &mut Value, f: &Finding, run: Option<&GuardRun>, t: &Transcript) {
    let class = contract_class(f);
    if class != f.class().as_str() {
        issue["mcpcheckClass"] = json!(f.class().as_str());
        issue["class"] = json!(class);
    }
    if f.code == Code::SpawnFailed {
        let code = t.process.spawn_error.as_ref().map(|e| e.code.clone());
        issue["spawnErrorCode"] = json!(code.unwrap_or_default());
    }
    if let Some(run) = run {
        let index = run.runs.iter().position(|s| {
            s.findings.iter().any(|o| {
                o.code == f.code && o.detail_code == f.detail_code && o.location == f.location
            })
        });
        if let Some(i) = index {
            issue["run"] = json!(i + 1);
        }
    }
}
