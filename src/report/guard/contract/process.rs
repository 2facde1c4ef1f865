//! The contract's process, operations, config and static-scan facts.

use crate::catalog::Code;
use crate::finding::excerpt;
use crate::guard::GuardRun;
use crate::process::{ExitKind, ShutdownPath};
use crate::session::transcript::{Outcome, Phase, Purpose, StreamEnd, Transcript};
use serde_json::{json, Value};

fn timeout_code(t: &Transcript) -> &'static str {
    if t.handshake().is_some_and(|h| h.outcome == Outcome::Timeout) {
        "initialize-timeout"
    } else if t.exchanges.iter().any(|e| e.outcome == Outcome::Timeout) {
        "operation-timeout"
    } else {
        ""
    }
}

/// The contract's `process.outcome`.
fn outcome(t: &Transcript) -> &'static str {
    let p = &t.process;
    if p.spawn_error.is_some() {
        return "spawn-failed";
    }
    if p.killed_for_limit {
        return "guard-terminated";
    }
    if p.exited_in.is_some() {
        return "exited";
    }
    if !timeout_code(t).is_empty() {
        return "timeout";
    }
    match p.shutdown.as_ref().map(|s| s.path) {
        // Closing stdin is how the guard ends a session: the process lived until then.
        Some(ShutdownPath::Terminated | ShutdownPath::Killed | ShutdownPath::StdinClosed) => {
            "guard-terminated"
        }
        Some(ShutdownPath::AlreadyExited) | None => "exited",
    }
}

/// The contract's `process.phase`: where the session was when the process stopped.
fn phase(t: &Transcript) -> &'static str {
    let p = &t.process;
    let explicit = t.exchanges.iter().any(|e| e.purpose == Purpose::Explicit);
    if p.spawn_error.is_some() {
        return "startup";
    }
    match p.exited_in {
        Some(Phase::Spawn) => return "startup",
        Some(Phase::Initialize) => return "initialize",
        Some(Phase::Operations) if explicit => return "operation",
        Some(_) => return "post-initialize",
        None => {}
    }
    match timeout_code(t) {
        "initialize-timeout" => "initialize",
        "operation-timeout" => "operation",
        _ if t.handshake().and_then(|h| h.outcome_result()).is_none() => "initialize",
        _ => "post-initialize",
    }
}

/// mcpcheck's own, finer outcome and phase.
fn detail(t: &Transcript) -> Value {
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
    json!({"outcome": outcome, "phase": p.exited_in.unwrap_or(Phase::Shutdown)})
}

pub fn process(run: &GuardRun, t: &Transcript) -> Value {
    let p = &t.process;
    let path = p.shutdown.as_ref().map(|s| s.path);
    let signalled = matches!(path, Some(ShutdownPath::Terminated | ShutdownPath::Killed));
    let kill_signal = match path {
        _ if p.killed_for_limit => "SIGKILL",
        Some(ShutdownPath::Terminated) => "SIGTERM",
        Some(ShutdownPath::Killed) => "SIGKILL",
        _ => "",
    };
    let timeout = timeout_code(t);
    let kill_reason = if p.killed_for_limit {
        "output-limit"
    } else if signalled && !timeout.is_empty() {
        "timeout"
    } else if signalled {
        "guard-finished"
    } else {
        ""
    };
    let exceeded = match t.stream_end {
        Some(StreamEnd::LineTooLarge { .. }) => Code::StdoutLineTooLarge.as_str(),
        Some(StreamEnd::OutputLimit { .. }) => Code::StdoutOutputLimitExceeded.as_str(),
        _ => "",
    };
    let limits = &run.plan.limits;
    json!({
        "started": p.spawn_error.is_none(),
        "outcome": outcome(t),
        "phase": phase(t),
        "exitCode": match p.exit { Some(ExitKind::Code(c)) => Some(c), _ => None },
        // The contract's signal is a name, as Node reports it; mcpcheck's number is beside it.
        "signal": match p.exit { Some(ExitKind::Signal(s)) => Some(crate::process::signal_name(s)), _ => None },
        "signalNumber": match p.exit { Some(ExitKind::Signal(s)) => Some(s), _ => None },
        "timedOut": !timeout.is_empty(),
        "timeoutCode": timeout,
        "timeoutMs": t.timeout_ms,
        "killedByGuard": p.killed_for_limit || signalled,
        "killSignal": kill_signal,
        "killReason": kill_reason,
        "spawnError": p.spawn_error.as_ref().map(|e| json!({"code": e.code, "message": e.to_string()})),
        "output": {
            "stdoutBytes": p.stdout_bytes,
            "stderrBytes": p.stderr.total_bytes,
            "maxStdoutBytes": limits.max_stdout_bytes,
            "maxStdoutLineBytes": limits.max_stdout_line_bytes,
            "maxStderrBytes": limits.max_stderr_bytes,
            "stderrTruncated": p.stderr.limit_exceeded,
            "limitExceeded": !exceeded.is_empty() || p.killed_for_limit,
            "exceededCode": exceeded,
        },
        "detail": detail(t),
    })
}

/// Where each planned request came from, and the tool a safe tool call names.
fn origins(run: &GuardRun) -> Vec<(&'static str, String)> {
    run.plan
        .requests
        .iter()
        .enumerate()
        .map(|(index, planned)| {
            let source = run
                .settings
                .request_sources
                .get(index)
                .map_or("cli-request", |s| s.as_str());
            let tool = if source == "safe-tool-call" {
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

/// The fingerprint's view of the planned requests: what was asked, not what came back.
pub fn operation_facts(run: &GuardRun) -> Vec<Value> {
    run.plan
        .requests
        .iter()
        .zip(origins(run))
        .map(|(planned, (source, tool))| {
            json!({
                "method": excerpt(&planned.method, 128),
                "hasParams": planned.params.is_some(),
                "source": source,
                "safeToolCallName": tool,
            })
        })
        .collect()
}

/// The contract's `operations`: every explicit request of the plan, answered or not.
pub fn operations(run: &GuardRun, t: &Transcript) -> Vec<Value> {
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
                Some(Outcome::Error(e)) => {
                    json!({"code": e.code, "message": excerpt(&crate::secrets::redact(&e.message), 200)})
                }
                _ => Value::Null,
            };
            json!({
                "index": index,
                "source": source,
                "method": excerpt(&planned.method, 128),
                "safeToolCallName": tool,
                "responded": matches!(outcome, Some(Outcome::Result(_) | Outcome::Error(_))),
                "error": error,
                "outcome": outcome.map_or("not-sent", Outcome::label),
            })
        })
        .collect()
}

pub fn config(run: &GuardRun) -> Value {
    let s = &run.settings;
    let c = &s.config_contribution;
    let path = s.config_file.as_ref();
    json!({
        "enabled": path.is_some(),
        "path": path.map(|p| p.display().to_string()).unwrap_or_default(),
        "resolvedPath": path
            .and_then(|p| p.canonicalize().ok())
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        "checks": {
            "command": c.command,
            "cwd": c.cwd,
            "envNames": c.env_names,
            "requests": c.requests,
            "safeToolCalls": c.safe_tool_calls,
            "adversarialProbes": c.adversarial_probes,
            "adversarialToolCalls": c.adversarial_tool_calls,
        },
    })
}

pub fn static_scan(run: &GuardRun) -> Value {
    let s = &run.settings;
    json!({
        "enabled": !s.scan.is_empty(),
        "path": s.scan.first().map(|p| p.display().to_string()).unwrap_or_default(),
        "paths": s.scan.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        "failOnFindings": s.fail_on_static,
    })
}

/// The source scan's findings as the contract lists them: file, line, message.
pub fn static_findings(run: &GuardRun) -> Vec<Value> {
    run.primary()
        .checks
        .iter()
        .filter(|c| c.name == "static")
        .flat_map(|c| c.findings.iter())
        .map(|f| {
            json!({
                "file": f.location.file.clone().unwrap_or_default(),
                "line": f.location.line.unwrap_or(0),
                "message": f.message,
                "code": f.code.as_str(),
                "severity": f.severity,
                "reason": f.detail_code.unwrap_or(f.code.as_str()),
                "language": f.language,
            })
        })
        .collect()
}
