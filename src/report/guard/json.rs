//! The JSON report: a stable machine contract (`schemaVersion: 1`), documented in the README.

use crate::finding::Finding;
use crate::finding::{excerpt, IssueClass, Severity};
use crate::guard::{GuardRun, SessionResult};
use crate::process::{ExitKind, ShutdownPath};
use crate::report::issue::{issues_json, summary_json};
use crate::secrets::redact_argv;
use crate::session::advertises;
use crate::session::transcript::Transcript;
use crate::session::transcript::{ListKind, Outcome, Phase, Purpose};
use crate::verdict::{Status, Verdict};
use serde_json::{json, Map, Value};

/// The guard report contract (v1): fields are only ever added under this version.
pub const SCHEMA_VERSION: u32 = 1;

/// The report: the primary session's facts, every distinct finding of every run, and
/// (with --repeat) each run in full plus the drift between them.
pub fn render(run: &GuardRun) -> Value {
    let mut doc = session_document(run, run.primary(), &run.findings);
    doc["profile"] = json!(run.settings.profile.as_str());
    if !run.matrix.is_empty() {
        doc["protocolMatrix"] = json!(run.matrix);
    }
    if !run.probes.is_empty() {
        doc["adversarialProbes"] = json!(run.probes);
    }
    if run.runs.len() > 1 {
        doc["runs"] = Value::Array(
            run.runs
                .iter()
                .map(|s| session_document(run, s, &s.findings))
                .collect(),
        );
        doc["drift"] = json!(run.drift);
    }
    doc
}

fn session_document(run: &GuardRun, session: &SessionResult, findings: &[Finding]) -> Value {
    let verdict = Verdict::of(findings);
    let t = &session.transcript;
    let init_result = t.initialize_result();
    let negotiated = t.session_version().map(|v| excerpt(&v, 40));
    let capabilities = init_result
        .or_else(|| t.discover().and_then(|d| d.outcome_result()))
        .and_then(|r| r.get("capabilities"))
        .cloned()
        .unwrap_or(Value::Null);
    let capability_keys: Vec<String> = capabilities
        .as_object()
        .map(|o| o.keys().map(|k| excerpt(k, 64)).collect())
        .unwrap_or_default();
    let argv: Vec<String> = std::iter::once(run.command.program.clone())
        .chain(run.command.args.iter().cloned())
        .collect();
    let argv = redact_argv(&argv);
    let cwd = run
        .command
        .cwd
        .as_ref()
        .map(|p| p.display().to_string())
        .or_else(|| {
            std::env::current_dir()
                .ok()
                .map(|p| p.display().to_string())
        });
    json!({
        "schemaVersion": SCHEMA_VERSION,
        "ok": verdict.ok(),
        "summary": summary(&verdict),
        "command": argv,
        "protocol": run.plan.protocol,
        "negotiatedProtocol": negotiated,
        "era": t.era,
        "initialized": t.initialized(),
        "serverInfo": server_info(init_result),
        "operations": operations(t),
        "capabilityKeys": capability_keys,
        "capabilityChecks": capability_checks(t, findings, &capabilities),
        "toolSchema": session.tool_schema,
        "checks": checks(session),
        "issueClasses": issue_classes(findings),
        "stdout": stdout_facts(t),
        "stderr": t.process.stderr,
        "process": process(t),
        "fingerprint": {
            "guardVersion": env!("CARGO_PKG_VERSION"),
            "argv": argv,
            "cwd": cwd,
            "env": run.command.env.iter().map(|(k, _)| format!("{k}=[REDACTED]")).collect::<Vec<_>>(),
            "unsetEnv": run.command.unset_env,
            "platform": format!("{}-{}", std::env::consts::OS, std::env::consts::ARCH),
            "timings": {
                "timeoutMs": run.plan.timeout.as_millis() as u64,
                "settleMs": run.plan.settle.as_millis() as u64,
                "shutdownGraceMs": run.plan.shutdown_grace.as_millis() as u64,
            },
            "limits": {
                "maxStdoutLineBytes": run.plan.limits.max_stdout_line_bytes,
                "softStdoutLineBytes": run.plan.limits.soft_stdout_line_bytes,
                "stderrFloodBytes": run.plan.limits.stderr_flood_bytes,
                "maxStdoutBytes": run.plan.limits.max_stdout_bytes,
                "maxStderrBytes": run.plan.limits.max_stderr_bytes,
            },
        },
        "issues": issues_json(findings),
        "durationMs": t.duration_ms,
    })
}

fn summary(verdict: &Verdict<'_>) -> Value {
    let color = match verdict.status {
        Status::Pass => "brightgreen",
        Status::Warning => "yellow",
        Status::NeedsInspection => "orange",
        Status::Fail => "red",
    };
    let mut summary = summary_json(verdict);
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

fn operations(t: &Transcript) -> Vec<Value> {
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

fn capability_checks(t: &Transcript, findings: &[Finding], capabilities: &Value) -> Value {
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

fn checks(session: &SessionResult) -> Value {
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
    Value::Object(out)
}

fn issue_classes(findings: &[Finding]) -> Value {
    let mut out = Map::new();
    for class in IssueClass::ALL {
        let count = |s: Severity| {
            findings
                .iter()
                .filter(|f| f.class() == class && f.severity == s)
                .count()
        };
        out.insert(
            class.as_str().to_string(),
            json!({"errors": count(Severity::Error), "warnings": count(Severity::Warning)}),
        );
    }
    Value::Object(out)
}

fn stdout_facts(t: &Transcript) -> Value {
    let invalid = t.frames.iter().filter(|f| !f.is_valid_message()).count();
    json!({
        "frames": t.frames.len(),
        "invalidFrames": invalid,
        "bytes": t.process.stdout_bytes,
        "serverRequests": t.server_requests,
    })
}

fn process(t: &Transcript) -> Value {
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
    let timed_out = t.exchanges.iter().any(|e| e.outcome == Outcome::Timeout);
    json!({
        "outcome": outcome,
        "phase": p.exited_in.unwrap_or(Phase::Shutdown),
        "exitCode": match p.exit { Some(ExitKind::Code(c)) => Some(c), _ => None },
        "signal": match p.exit { Some(ExitKind::Signal(s)) => Some(s), _ => None },
        "timedOut": timed_out,
        "killedByGuard": p.killed_for_limit || matches!(path, Some(ShutdownPath::Terminated | ShutdownPath::Killed)),
        "spawnError": p.spawn_error.as_ref().map(|e| e.to_string()),
    })
}
