//! The guard engine: run live sessions against a stdio server and judge their transcripts.

pub mod checks;
pub mod clean;
pub mod config;
mod drift;
mod environment_cause;
pub mod fingerprint_package;
pub mod install_first;
mod launch_hints;
pub mod layers;
pub mod matrix;
pub mod options;
pub mod probes;
pub mod profile;
pub mod progress;
mod python;
pub mod remote;
pub mod runtimes;
mod trace;

use crate::catalog::Code;
use crate::finding::{self, Finding, Severity};
use crate::install_faults::Installer;
use crate::process::{self, ServerCommand};
use crate::session::{self, transcript::Transcript, SessionPlan};
use checks::{CheckContext, ToolSchemaSummary};
pub use drift::RunDrift;
pub use options::{GuardRequest, GuardSettings};
use std::collections::HashMap;
use std::time::Instant;

/// The outcome of one check, for the report's `checks` object.
#[derive(Debug, Clone)]
pub struct CheckResult {
    pub name: &'static str,
    pub codes: Vec<Code>,
    pub findings: Vec<Finding>,
}

/// One session and what the checks made of it.
#[derive(Debug, Clone)]
pub struct SessionResult {
    pub transcript: Transcript,
    pub checks: Vec<CheckResult>,
    pub findings: Vec<Finding>,
    pub tool_schema: ToolSchemaSummary,
}

/// Everything the guard learned about one server.
#[derive(Debug, Clone)]
pub struct GuardRun {
    pub command: ServerCommand,
    pub plan: SessionPlan,
    pub settings: GuardSettings,
    /// Every session, in order; the first is the primary one the report describes.
    pub runs: Vec<SessionResult>,
    /// What changed in later runs compared with the first.
    pub drift: Vec<RunDrift>,
    /// `--protocol-matrix`: what the server negotiated for each version.
    pub matrix: Vec<matrix::MatrixEntry>,
    /// The adversarial probes that ran, in order.
    pub probes: Vec<probes::ProbeOutcome>,
    /// Every distinct finding of every run, plus drift.
    pub findings: Vec<Finding>,
    /// How long the whole run and each of its steps took.
    pub timings: RunTimings,
    /// The runtime the command runs on and its version (none over HTTP).
    pub runtimes: Vec<runtimes::Runtime>,
    /// The server as it named itself, cleaned and bounded: what every report shows.
    pub server: Option<clean::ServerIdentity>,
    /// The secrets the run was given, removed from everything it kept.
    pub secrets: std::sync::Arc<crate::secrets::KnownSecrets>,
    /// The install before the first session, when one ran.
    pub install: Option<install_first::InstallStep>,
}

/// Wall time of a whole guard run, and of each step besides the session the report
/// describes (whose own phases are in its transcript).
#[derive(Debug, Clone, Copy, Default)]
pub struct RunTimings {
    /// From the start of the run to its report: every session, rerun and probe.
    pub wall_ms: u64,
    /// The sessions of `--repeat` (all of them) and a fallback to the legacy transport.
    pub sessions_ms: u64,
    /// Reruns that looked for block-buffered Python stdio (`python-buffered-stdio`).
    pub buffering_check_ms: u64,
    /// `--protocol-matrix`.
    pub matrix_ms: u64,
    /// `--adversarial-probes` and `--adversarial-tool-call`.
    pub probes_ms: u64,
    /// The install before the first session, when one ran (in `wall_ms`, before every
    /// session's clock).
    pub install_ms: Option<u64>,
}

impl GuardRun {
    pub fn primary(&self) -> &SessionResult {
        &self.runs[0]
    }

    pub fn transcript(&self) -> &Transcript {
        &self.primary().transcript
    }

    /// Whether a session's leftover processes could not all be looked for (the portable
    /// process backend): the leftover checks are then "not checked", never "pass".
    pub fn leftovers_not_checked(&self) -> bool {
        self.runs.iter().any(|r| {
            r.transcript
                .process
                .shutdown
                .as_ref()
                .is_some_and(|s| !s.leftovers_checked)
        })
    }
}

/// Runs every session the settings ask for, and every check, with the run's secrets in
/// force (each excerpt is cleaned before it is cut); then cleans what the run kept.
pub async fn run(settings: GuardSettings) -> GuardRun {
    let known = settings.secrets.clone();
    let mut run = crate::secrets::known::in_force(known.clone(), judged_run(settings)).await;
    clean::clean(&mut run, &known);
    run.server = clean::ServerIdentity::of(run.transcript());
    run
}

async fn judged_run(mut settings: GuardSettings) -> GuardRun {
    let started = Instant::now();
    let mut timings = RunTimings::default();
    process::become_subreaper();
    let (install, runtime_unmet) = match install_first::install(&mut settings).await {
        install_first::BeforeSession::Nothing => (None, None),
        install_first::BeforeSession::Installed {
            step,
            runtime_unmet,
        } => (Some(step), runtime_unmet),
        install_first::BeforeSession::Failed { step, finding } => {
            return install_first::never_started(settings, *finding, step);
        }
    };
    timings.install_ms = install.map(|s| s.ms);
    // Asked while the sessions run, so it adds no wait.
    let runtimes = (settings.plan.http.is_none()).then(|| {
        let command = settings.command.clone();
        tokio::spawn(async move { runtimes::probe(&command).await })
    });
    let matrix_sessions = if settings.protocol_matrix {
        matrix::SESSIONS
    } else {
        0
    };
    settings.progress.begin(
        settings.repeat as usize
            + matrix_sessions
            + settings.probes.len()
            + settings.adversarial_tool_calls.len(),
    );
    let mut runs = Vec::new();
    let mut extra = Vec::new();
    for _ in 0..settings.repeat {
        let step = Instant::now();
        let mut result = session_with_checks(&settings.command, &settings).await;
        if remote::falls_back_to_legacy(&result.transcript) {
            // Every later session (repeat, matrix, probes) speaks the legacy transport too.
            if let Some(target) = settings.plan.http.as_mut() {
                target.legacy_sse = true;
            }
            result = session_with_checks(&settings.command, &settings).await;
        }
        settings.progress.step("run");
        timings.sessions_ms += ms_since(step);
        let step = Instant::now();
        let diagnosis = python::diagnose_buffering(&settings, &result).await;
        timings.buffering_check_ms += ms_since(step);
        if let Some(cause) = diagnosis {
            // A rerun answered: judge that run, and name the cause if it was buffering.
            result = cause.rerun;
            extra.extend(cause.finding);
        }
        // Without the hang at initialize, a later request left unanswered is only a suspicion.
        let named = |f: &Finding| f.code == Code::PythonBufferedStdio;
        if !extra.iter().any(named) {
            extra.extend(python::suspected_buffering(
                &settings.command,
                &result.transcript,
            ));
        }
        runs.push(result);
    }
    let drift = drift::compare(&runs);
    extra.extend(drift.iter().flat_map(|d| d.findings.iter().cloned()));
    let mut matrix_entries = Vec::new();
    if settings.protocol_matrix {
        let step = Instant::now();
        let m = matrix::run(&settings).await;
        timings.matrix_ms = ms_since(step);
        matrix_entries = m.entries;
        extra.extend(m.findings);
    }
    let noise = runs
        .first()
        .map_or(0, |r| probes::startup_noise(&r.transcript.frames));
    let step = Instant::now();
    let probes = probes::run_all(&settings, noise).await;
    timings.probes_ms = ms_since(step);
    extra.extend(probes.iter().flat_map(|p| p.findings.iter().cloned()));
    let mut findings = distinct(runs.iter().flat_map(|r| r.findings.iter().cloned()));
    findings.extend(extra);
    finding::sort(&mut findings);
    let mut run = GuardRun {
        command: settings.command.clone(),
        plan: settings.plan.clone(),
        settings,
        runs,
        drift,
        matrix: matrix_entries,
        probes,
        findings,
        timings: RunTimings::default(),
        runtimes: match runtimes {
            Some(task) => task.await.unwrap_or_default(),
            None => Vec::new(),
        },
        server: None,
        secrets: Default::default(),
        install,
    };
    run.timings = RunTimings {
        wall_ms: ms_since(started),
        ..timings
    };
    run.secrets = run.settings.secrets.clone();
    if let Some(unmet) = runtime_unmet {
        install_first::runtime_too_old(&mut run, &unmet);
    }
    run
}

fn ms_since(since: Instant) -> u64 {
    since.elapsed().as_millis() as u64
}

/// One session with the settings' plan, judged by every check.
pub(crate) async fn session_with_checks(
    command: &ServerCommand,
    settings: &GuardSettings,
) -> SessionResult {
    let transcript = session::run(command, &settings.plan).await;
    judge(transcript, settings)
}

/// The installer whose words on stderr may say why the server never started: the one its
/// launcher fetches it with (npm's for npx, uv's for uvx), read as every client reads it.
pub fn fetching_installer(command: &ServerCommand) -> Option<Installer> {
    let launch = crate::launch::parse_command(&command.program, &command.args)?;
    Installer::of_launcher(launch.launcher)
}

/// The name of the package the server's launcher fetches (`@s/x` of `npx -y @s/x@1`).
fn fetched_package(command: &ServerCommand) -> Option<String> {
    let launch = crate::launch::parse_command(&command.program, &command.args)?;
    Some(launch.fetches?.package.name)
}

pub(crate) fn judge(transcript: Transcript, settings: &GuardSettings) -> SessionResult {
    let mut findings = Vec::new();
    let mut results = Vec::new();
    let (launcher, package) = match settings.plan.http {
        None => (
            fetching_installer(&settings.command),
            fetched_package(&settings.command),
        ),
        Some(_) => (None, None),
    };
    let python_buffered = settings.plan.http.is_none() && python::block_buffered(&settings.command);
    for check in checks::registry() {
        if !check.applies(&transcript) {
            continue;
        }
        let cx = CheckContext {
            transcript: &transcript,
            prior: &findings,
            planned: &settings.plan.requests,
            launcher,
            package: package.clone(),
            python_buffered,
            command: &settings.command,
        };
        let mut found = Vec::new();
        check.run(&cx, &mut found);
        environment_cause::refile(&mut found, &transcript);
        if settings.plan.http.is_none() {
            launch_hints::file(&mut found, &transcript, &settings.command);
        }
        // `codes()` is what the report files a check's findings under: every guard run of
        // the test suite proves a check emits only what it lists.
        debug_assert!(
            found.iter().all(|f| check.codes().contains(&f.code)),
            "check {} emitted {:?}, which its codes() does not list",
            check.name(),
            found
                .iter()
                .map(|f| f.code)
                .filter(|c| !check.codes().contains(c))
                .collect::<Vec<_>>()
        );
        // The spec's MUST against DNS rebinding: an error under strict, as the docs say.
        if settings.profile == profile::Profile::Strict {
            for f in found
                .iter_mut()
                .filter(|f| f.code == Code::HttpOriginNotValidated)
            {
                f.severity = Severity::Error;
            }
        }
        if settings.wire_schema_errors {
            for f in found
                .iter_mut()
                .filter(|f| f.code == Code::WireSchemaInvalid)
            {
                f.severity = Severity::Error;
            }
        }
        finding::sort(&mut found);
        at_most_per_code(&mut found);
        findings.extend(found.iter().cloned());
        results.push(CheckResult {
            name: check.name(),
            codes: check.codes().to_vec(),
            findings: found,
        });
    }
    finding::sort(&mut findings);
    let tool_schema = ToolSchemaSummary::of(&transcript);
    SessionResult {
        transcript,
        checks: results,
        findings,
        tool_schema,
    }
}

/// Most findings of one code a check reports; the rest are counted in one more finding. With
/// repeated faults grouped into one finding (each stdout fault, each request's), this bounds
/// a report whatever a server writes: docs/json.md gives the bound.
pub const MAX_FINDINGS_PER_CODE: usize = 50;

/// Keeps the first [`MAX_FINDINGS_PER_CODE`] findings of each code (in report order) and
/// replaces the others of that code with one finding counting them, at their worst severity.
fn at_most_per_code(found: &mut Vec<Finding>) {
    let mut kept: HashMap<Code, usize> = HashMap::new();
    let mut folded: Vec<(Code, usize, Finding)> = Vec::new();
    found.retain(|f| {
        let n = kept.entry(f.code).or_default();
        *n += 1;
        if *n <= MAX_FINDINGS_PER_CODE {
            return true;
        }
        match folded.iter_mut().find(|(code, _, _)| *code == f.code) {
            Some((_, count, worst)) => {
                *count += 1;
                worst.severity = worst.severity.max(f.severity);
            }
            None => folded.push((f.code, 1, f.clone())),
        }
        false
    });
    for (code, count, first) in folded {
        found.push(Finding {
            message: format!(
                "{} of `{code}` not listed: a report lists at most {MAX_FINDINGS_PER_CODE} findings of one code.",
                finding::plural(count, "more finding")
            ),
            severity: first.severity,
            class_override: first.class_override,
            ..Finding::new(code, String::new())
        });
    }
}

/// Findings without repeats: the same fault seen in several runs is reported once.
fn distinct(all: impl Iterator<Item = Finding>) -> Vec<Finding> {
    let mut seen = std::collections::HashSet::new();
    all.filter(|f| seen.insert((f.code, f.detail_code, f.location.clone())))
        .collect()
}

impl GuardRun {
    /// Adds the findings of a check made outside the session (the source scan of `--scan`),
    /// so they count in the verdict and appear under `name` in the report's checks.
    pub fn add_check(&mut self, name: &'static str, codes: &[Code], mut found: Vec<Finding>) {
        let known = self.secrets.clone();
        found
            .iter_mut()
            .for_each(|f| clean::clean_finding(f, &known));
        self.findings.extend(found.iter().cloned());
        finding::sort(&mut self.findings);
        self.runs[0].checks.push(CheckResult {
            name,
            codes: codes.to_vec(),
            findings: found,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// However many findings of one code a check makes, a report lists 50 and counts the
    /// rest in one more, at the worst severity among them; other codes are untouched.
    #[test]
    fn a_check_reports_at_most_fifty_findings_of_one_code() {
        let mut found: Vec<Finding> = (0..120)
            .map(|i| Finding::new(Code::WireSchemaInvalid, format!("fault {i}")))
            .collect();
        found[100].severity = Severity::Error;
        found.push(Finding::new(Code::ResponseIdMismatch, "other"));
        at_most_per_code(&mut found);
        assert_eq!(found.len(), MAX_FINDINGS_PER_CODE + 2);
        assert_eq!(found[49].message, "fault 49");
        assert_eq!(found[50].code, Code::ResponseIdMismatch);
        let last = found.last().expect("the count");
        assert_eq!(last.code, Code::WireSchemaInvalid);
        assert_eq!(last.severity, Severity::Error);
        assert_eq!(
            last.message,
            "70 more findings of `wire-schema-invalid` not listed: a report lists at most 50 findings of one code."
        );
    }
}
