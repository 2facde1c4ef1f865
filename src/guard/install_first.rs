//! Before the first session: the package the command's launcher fetches (`npx -y x@1`,
//! `uvx x==1`) installed by that launcher into its own cache, with the install layer's
//! machinery (the sweep's) and under its own deadline (`--install-timeout`), so a cold cache
//! is never judged as a server that does not answer: the session's `--timeout` starts when
//! the server does, and the launcher starts it from its cache.

use super::checks::ToolSchemaSummary;
use super::{CheckResult, GuardRun, GuardSettings, RunTimings, SessionResult};
use crate::catalog::Code;
use crate::finding::{Finding, ProcessFacts, ProcessPhase};
use crate::install::{in_project, InstallCache, Installed};
use crate::process::ServerCommand;
use crate::session::transcript::Transcript;
use std::time::Instant;

/// The codes of an install before the session.
pub const CODES: &[Code] = &[
    Code::InstallFailed,
    Code::InstallTimeout,
    Code::InstallPackageMissing,
    Code::InstallRuntimeTooOld,
    Code::InstallNoExecutable,
];

/// What the install before the session did, for the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InstallStep {
    pub ms: u64,
    /// False: the install failed and no session ran.
    pub server_started: bool,
}

/// How the install before the session ended.
pub(super) enum BeforeSession {
    /// Nothing to install; or its installer is not here, and the session says what a client
    /// meets (the launcher cannot be started either).
    Nothing,
    Installed {
        step: InstallStep,
        /// The runtime here is older than the package declares (npm `engines.node`).
        runtime_unmet: Option<String>,
    },
    Failed {
        step: InstallStep,
        finding: Box<Finding>,
    },
}

/// Installs the package `settings.install` names, as its launcher would with the server's own
/// environment and directory (a registry, cache or token given to the server is the
/// launcher's too); on success the launcher is told to start it from its cache.
pub(super) async fn install(settings: &mut GuardSettings) -> BeforeSession {
    let Some(plan) = settings.install.clone() else {
        return BeforeSession::Nothing;
    };
    let started = Instant::now();
    let cwd = settings
        .command
        .cwd
        .clone()
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default();
    // A directory that is not there is the session's to report (spawn-failed), not the
    // installer's to create.
    if !cwd.is_dir() {
        return BeforeSession::Nothing;
    }
    let installed = match in_project(&plan.install, &cwd) {
        Some(found) => found,
        None => {
            let env = effective_env(&settings.command);
            let cache = InstallCache::new(cwd, plan.timeout);
            cache.install(&plan.install, &env).await
        }
    };
    let ms = started.elapsed().as_millis() as u64;
    match installed {
        Installed::Ready {
            launcher_env,
            runtime_unmet,
            ..
        } => {
            let command = &mut settings.command;
            for (name, value) in launcher_env.unwrap_or_default() {
                if !command.env.iter().any(|(n, _)| *n == name) {
                    command.env.push((name, value));
                }
            }
            BeforeSession::Installed {
                step: InstallStep {
                    ms,
                    server_started: true,
                },
                runtime_unmet,
            }
        }
        Installed::Failed { facts, .. } if facts.spawn_error().is_some() => BeforeSession::Nothing,
        Installed::Failed { finding, .. } => BeforeSession::Failed {
            step: InstallStep {
                ms,
                server_started: false,
            },
            finding: Box::new(finding.process(ProcessFacts::phase(ProcessPhase::Startup))),
        },
    }
}

/// The environment the server's command would run with, as pairs: mcpcheck's own (unless
/// the command clears it) without what it unsets, under its own variables.
fn effective_env(command: &ServerCommand) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = if command.clear_env {
        Vec::new()
    } else {
        std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect()
    };
    env.retain(|(k, _)| !command.unset_env.contains(k) && !command.env.iter().any(|(n, _)| n == k));
    env.extend(command.env.iter().cloned());
    env
}

/// The run of a server whose install failed: no session ran, and the install's finding is
/// its one finding, under the check `install`.
pub(super) fn never_started(
    settings: GuardSettings,
    finding: Finding,
    step: InstallStep,
) -> GuardRun {
    let plan = &settings.plan;
    let transcript = Transcript {
        protocol_requested: plan.protocol.clone(),
        timeout_ms: plan.timeout.as_millis() as u64,
        limits: plan.limits,
        ..Transcript::default()
    };
    let findings = vec![finding];
    let tool_schema = ToolSchemaSummary::of(&transcript);
    GuardRun {
        command: settings.command.clone(),
        plan: settings.plan.clone(),
        runs: vec![SessionResult {
            transcript,
            checks: vec![CheckResult {
                name: "install",
                codes: CODES.to_vec(),
                findings: findings.clone(),
            }],
            findings: findings.clone(),
            tool_schema,
        }],
        drift: Vec::new(),
        matrix: Vec::new(),
        probes: Vec::new(),
        findings,
        timings: RunTimings {
            wall_ms: step.ms,
            install_ms: Some(step.ms),
            ..RunTimings::default()
        },
        runtimes: Vec::new(),
        server: None,
        secrets: settings.secrets.clone(),
        install: Some(step),
        settings,
    }
}

/// A server that exited before answering initialize on a runtime older than its package
/// declares: the exit's finding, in every session, is the runtime's.
pub(super) fn runtime_too_old(run: &mut GuardRun, unmet: &str) {
    let spec = run
        .settings
        .install
        .as_ref()
        .map(|p| p.install.package.spec.clone())
        .unwrap_or_default();
    let Some(found) = crate::install::runtime_too_old(&run.findings, unmet, &spec) else {
        return;
    };
    let found = found.process(ProcessFacts::phase(ProcessPhase::Startup));
    let exited = |f: &Finding| {
        f.code == Code::ServerExited
            && f.detail_code
                .is_some_and(|d| d.ends_with("before-initialize"))
    };
    let replace = |findings: &mut Vec<Finding>| {
        if let Some(f) = findings.iter_mut().find(|f| exited(f)) {
            *f = found.clone();
        }
    };
    replace(&mut run.findings);
    for session in &mut run.runs {
        replace(&mut session.findings);
        session
            .checks
            .iter_mut()
            .for_each(|c| replace(&mut c.findings));
    }
}
