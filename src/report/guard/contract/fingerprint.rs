//! The contract's `fingerprint`: what was run, where and how, to explain why a result
//! reproduced on one runner and not another. Values of variables are never shown.

use super::process::operation_facts;
use crate::guard::GuardRun;
use crate::secrets::redact_argv;
use crate::session::transcript::Transcript;
use serde_json::{json, Map, Value};

/// The kernel release, where the platform exposes it.
fn os_release() -> String {
    std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().chars().take(64).collect())
        .unwrap_or_default()
}

pub fn fingerprint(run: &GuardRun, t: &Transcript) -> Value {
    let command = &run.command;
    let argv: Vec<String> = std::iter::once(command.program.clone())
        .chain(command.args.iter().cloned())
        .collect();
    let argv = redact_argv(&argv);
    let here = std::env::current_dir().ok();
    let requested = command.cwd.clone().or_else(|| here.clone());
    let resolved = requested.as_ref().and_then(|p| p.canonicalize().ok());
    let show = |p: &Option<std::path::PathBuf>| p.as_ref().map(|p| p.display().to_string());
    let names: Vec<&str> = command.env.iter().map(|(k, _)| k.as_str()).collect();
    let values: Map<String, Value> = names
        .iter()
        .map(|k| (k.to_string(), json!("<redacted>")))
        .collect();
    let operations = operation_facts(run);
    let settings = &run.settings;
    let limits = &run.plan.limits;
    json!({
        "guard": {"name": "mcpcheck", "version": env!("CARGO_PKG_VERSION")},
        "command": {"executable": argv.first(), "args": argv.get(1..).unwrap_or_default(), "argv": argv},
        "cwd": {
            "requested": show(&requested).unwrap_or_default(),
            "resolved": show(&resolved).unwrap_or_default(),
            "exists": resolved.as_ref().is_some_and(|p| p.is_dir()),
        },
        "protocol": run.plan.protocol,
        "config": super::config(run),
        "profile": settings.profile.as_str(),
        "timeoutMs": run.plan.timeout.as_millis() as u64,
        "outputLimits": {
            "maxStdoutBytes": limits.max_stdout_bytes,
            "maxStdoutLineBytes": limits.max_stdout_line_bytes,
            "maxStderrBytes": limits.max_stderr_bytes,
        },
        "repeat": settings.repeat,
        "capabilityProbes": run.plan.probe_lists,
        "adversarialProbes": settings.probes.iter().map(|p| p.name()).collect::<Vec<_>>(),
        "operation": operations.first().cloned().unwrap_or(Value::Null),
        "operations": operations,
        "system": {
            "platform": std::env::consts::OS,
            "arch": std::env::consts::ARCH,
            "osRelease": os_release(),
        },
        // mcpcheck does not probe the server's runtime or package; the contract allows none.
        "runtimes": {},
        "package": null,
        "env": {"inherited": !command.clear_env, "names": names, "values": values},
        "staticScan": super::static_scan(run),
        "timings": {
            "startupMs": t.handshake().and_then(|h| h.answered_ms),
            "totalMs": t.duration_ms,
            "timeoutMs": run.plan.timeout.as_millis() as u64,
            "settleMs": run.plan.settle.as_millis() as u64,
            "shutdownGraceMs": run.plan.shutdown_grace.as_millis() as u64,
        },
        // mcpcheck's own fields, from before the contract.
        "guardVersion": env!("CARGO_PKG_VERSION"),
        "argv": argv,
        "cwdPath": show(&command.cwd.clone().or(here)),
        "envAssignments": command.env.iter().map(|(k, _)| format!("{k}=[REDACTED]")).collect::<Vec<_>>(),
        "unsetEnv": command.unset_env,
        "platform": format!("{}-{}", std::env::consts::OS, std::env::consts::ARCH),
        "limits": {
            "maxStdoutLineBytes": limits.max_stdout_line_bytes,
            "softStdoutLineBytes": limits.soft_stdout_line_bytes,
            "stderrFloodBytes": limits.stderr_flood_bytes,
            "maxStdoutBytes": limits.max_stdout_bytes,
            "maxStderrBytes": limits.max_stderr_bytes,
        },
    })
}
