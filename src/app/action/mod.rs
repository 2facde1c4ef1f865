//! `mcpcheck action`: the container entrypoint of the GitHub Action. It runs the setup
//! command and the checks the inputs ask for, then writes the SARIF file, the job summary,
//! the step outputs, annotations and the sticky pull-request comment.

pub mod child_env;
pub mod inputs;
mod setup;

use crate::app::guard::GuardJob;
use crate::error::Error;
use crate::finding::Finding;
use crate::guard::GuardRun;
use crate::report::document::{Report, ReportContext, NO_ANCHOR_NOTICE};
use crate::report::github::comment::{self, CommentOutcome, Target};
use crate::report::github::upload::{self, Destination};
use crate::report::github::workflow_commands::{escape_data, write_outputs, write_untrusted};
use crate::report::guard::human;
use crate::report::human::{closing_counts, finding_body, finding_head, Style};
use crate::report::markdown::{self, MarkdownOptions};
use crate::report::repo::RepoContext;
use crate::report::sarif;
use crate::scan::run::ScanRequest;
use crate::verdict::Verdict;
use child_env::{child_env, ChildEnv};
use inputs::Inputs;
use setup::SetupResult;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Largest event payload read (GitHub caps webhook payloads at 25 MB).
const MAX_EVENT_BYTES: u64 = 25 * 1024 * 1024;

/// Runs the action and maps its outcome to the step's exit code.
pub fn main() -> ExitCode {
    let mut log = std::io::stdout();
    match run(&mut log) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            let _ = writeln!(log, "::error title=mcpcheck::{}", escape_data(e.message()));
            let _ = log.flush();
            // The runner reads workflow commands on stderr too.
            let _ = writeln!(
                std::io::stderr(),
                "mcpcheck: error: {}",
                escape_data(e.message())
            );
            ExitCode::from(2)
        }
    }
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// The step, in the order it happens: read the inputs, run the setup command, run the
/// checks (the scans and the guard job), build one report, deliver it.
fn run(log: &mut impl Write) -> Result<u8, Error> {
    let mut step = read(log)?;
    let notices = setup_step(log, &step)?;
    let checked = checks(log, &mut step, notices)?;
    let (report, findings, exit_code) = report(log, &step, checked);
    let verdict = Verdict::of(&findings);
    deliver(log, &step, report, &verdict)?;
    log_line(
        log,
        &format!(
            "mcpcheck: {} (fail_on: {}) → exit code {exit_code}",
            verdict.display(),
            step.inputs.fail_on.as_str()
        ),
    );
    Ok(exit_code)
}

/// What the inputs and the runner's environment ask for, every value checked before
/// anything starts.
struct Step {
    inputs: Inputs,
    repo: RepoContext,
    sarif_file: Destination,
    child: ChildEnv,
    anchor: Option<String>,
    guard_argv: Vec<String>,
    /// The one guard job `mcpcheck guard` runs: the same request, URL policy and source
    /// scan. `None` when no server is checked.
    job: Option<GuardJob>,
}

fn read(log: &mut impl Write) -> Result<Step, Error> {
    let inputs = Inputs::read(env)?;
    if !inputs.runs_guard() && inputs.scan.is_empty() && inputs.paths.is_empty() {
        return Err(Error::Usage(
            "nothing to check: set the `command` input (how the server starts, e.g. `node dist/index.js`), `url` (a remote server), `config`, `scan` (source paths) or `paths` (MCP client configs)".into(),
        ));
    }
    for warning in &inputs.duration_warnings {
        log_line(
            log,
            &format!("::warning title=mcpcheck input::{}", escape_data(warning)),
        );
    }
    let repo = RepoContext::detect()?;
    let sarif_file = upload::destination(&repo.root, &inputs.sarif_file)?;
    let child = child_env(runner_env(), &inputs.env)?;
    let anchor = inputs
        .anchor
        .as_deref()
        .map(|a| repo.explicit_anchor(Path::new(a)))
        .transpose()?;
    // One request: the job runs it and the reports show its command line.
    let request = inputs.guard_request()?;
    let guard_argv = crate::app::guard::argv(&request);
    let job = if inputs.runs_guard() {
        let mut job = GuardJob::prepare(&request)?;
        scrub(&mut job.settings.command, &child);
        let mut secrets = (*job.settings.secrets).clone();
        secrets.extend(&child.given_secrets());
        job.settings.secrets = std::sync::Arc::new(secrets);
        Some(job)
    } else {
        None
    };
    Ok(Step {
        inputs,
        repo,
        sarif_file,
        child,
        anchor,
        guard_argv,
        job,
    })
}

/// Runs the `setup` input, if any; returns the notices for the report (the environment's,
/// and processes setup left running).
fn setup_step(log: &mut impl Write, step: &Step) -> Result<Vec<String>, Error> {
    let mut notices: Vec<String> = step.child.notice().into_iter().collect();
    if let Some(setup) = &step.inputs.setup {
        match setup::run(log, setup, &step.inputs, &step.child) {
            Ok(SetupResult::Done) => {}
            Ok(SetupResult::LeftProcesses(note)) => {
                log_line(
                    log,
                    &format!("::warning title=mcpcheck setup::{}", escape_data(&note)),
                );
                notices.push(note);
            }
            Err(failure) => {
                setup::report_failure(log, &step.inputs, failure.message());
                return Err(failure);
            }
        }
    }
    Ok(notices)
}

/// What the checks found: the guard's run, the scans' findings, and every notice.
struct Checked {
    run: Option<GuardRun>,
    scan_findings: Vec<Finding>,
    notices: Vec<String>,
}

fn checks(
    log: &mut impl Write,
    step: &mut Step,
    mut notices: Vec<String>,
) -> Result<Checked, Error> {
    let scans_from = notices.len();
    let (mut scan_findings, scan_notices) = run_security_scan(&step.inputs.paths)?;
    // Without a server, the `scan` input is a source scan of its own.
    if step.job.is_none() {
        scan_findings.extend(run_source_scan(&step.inputs.scan)?);
    }
    notices.extend(scan_notices);
    for notice in &notices[scans_from..] {
        log_line(
            log,
            &format!("::notice title=mcpcheck::{}", escape_data(notice)),
        );
    }
    let run = step.job.take().map(GuardJob::run).transpose()?;
    Ok(Checked {
        run,
        scan_findings,
        notices,
    })
}

/// One report of everything the checks found (the guard's report, the scans' findings
/// joined to it), the findings the verdict counts and the step's exit code.
fn report(log: &mut impl Write, step: &Step, checked: Checked) -> (Report, Vec<Finding>, u8) {
    let Checked {
        run,
        scan_findings,
        notices,
    } = checked;
    let mut findings = run.as_ref().map(|r| r.findings.clone()).unwrap_or_default();
    findings.extend(scan_findings.iter().cloned());
    let exit_code = step.inputs.fail_on.gate().exit_code(&findings);
    let cx = ReportContext {
        repo: step.repo.clone(),
        anchor: step.anchor.clone(),
        category: Some(step.inputs.category.clone()),
        invocation: if run.is_some() {
            step.guard_argv.clone()
        } else {
            Vec::new()
        },
        exit_code: i32::from(exit_code),
    };
    let mut report = match &run {
        Some(run) => Report::from_guard(run, cx),
        None => Report::without_engine(cx),
    };
    if !scan_findings.is_empty() {
        report.findings.extend(scan_findings);
        crate::finding::sort(&mut report.findings);
    }
    report.reproduce = reproduce_lines(&step.inputs, &report.reproduce);
    report.notices.extend(notices);
    anchor_for_upload(&mut report, &step.sarif_file);
    log_report(log, run.as_ref(), &report.findings);
    (report, findings, exit_code)
}

/// Delivers the report: the SARIF file, the sticky comment, the job summary, the step's
/// outputs and the annotations.
fn deliver(
    log: &mut impl Write,
    step: &Step,
    mut report: Report,
    verdict: &Verdict<'_>,
) -> Result<(), Error> {
    let (inputs, sarif_file) = (&step.inputs, &step.sarif_file);
    let sarif_text = sarif::render(&report);
    for problem in upload::ingestion_problems(&sarif_text) {
        let note = format!(
            "Code Scanning would reject {}: {problem}",
            sarif_file.relative
        );
        log_line(
            log,
            &format!("::error title=mcpcheck SARIF::{}", escape_data(&note)),
        );
        report.notices.push(note);
    }
    sarif_file.write(&sarif_text)?;
    log_line(
        log,
        &format!("mcpcheck: wrote {}", escape_data(&sarif_file.relative)),
    );
    let mut delivery_notes = Vec::new();
    if inputs.comment {
        if let Some(note) = post_comment(log, inputs, &report) {
            delivery_notes.push(note);
        }
    }
    if inputs.summary {
        let mut options = MarkdownOptions::summary();
        options.extra_notes = delivery_notes;
        match env("GITHUB_STEP_SUMMARY") {
            Some(path) => {
                append(Path::new(&path), &markdown::render(&report, &options)).map_err(|e| {
                    Error::Output(format!("cannot append to GITHUB_STEP_SUMMARY {path}: {e}"))
                })?
            }
            None => log_line(
                log,
                "mcpcheck: GITHUB_STEP_SUMMARY is not set; no job summary written",
            ),
        }
    }
    if let Some(path) = env("GITHUB_OUTPUT") {
        write_outputs(
            Path::new(&path),
            &[
                ("status", verdict.status.as_str().to_string()),
                ("ok", verdict.ok().to_string()),
                ("errors", verdict.errors.to_string()),
                ("warnings", verdict.warnings.to_string()),
                ("sarif-file", sarif_file.relative.clone()),
            ],
        )
        .map_err(|e| Error::Output(format!("cannot write GITHUB_OUTPUT {path}: {e}")))?;
    }
    for line in crate::report::github::annotations::lines(&report) {
        log_line(log, &line);
    }
    Ok(())
}

/// The source scan on the `scan` input when no server runs: stdout writes in the code.
/// (With a server, the guard job scans and files the findings as its `static` check.)
pub fn run_source_scan(paths: &[String]) -> Result<Vec<crate::finding::Finding>, Error> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    // What `mcpcheck source PATHS` scans, with its defaults.
    let options =
        crate::source::ScanOptions::new(paths.iter().map(PathBuf::from).collect::<Vec<_>>());
    crate::source::validate(&options).map_err(|e| Error::Usage(format!("input `scan`: {e}")))?;
    crate::source::scan(&options)
        .map(|scan| crate::source::rooted(scan.findings, &options.roots))
        .map_err(|e| Error::Input(format!("scan: {e}")))
}

/// The security scan of MCP client configs on the `paths` input: its findings join the
/// guard's in every output.
pub fn run_security_scan(
    paths: &[String],
) -> Result<(Vec<crate::finding::Finding>, Vec<String>), Error> {
    if paths.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    // The request `mcpcheck scan PATHS` builds: the same rules, lock file and notices.
    let request = ScanRequest {
        targets: crate::scan::Targets {
            paths: paths.iter().map(PathBuf::from).collect(),
            global: false,
        },
        cwd: crate::scan::run::current_dir()?,
        ..ScanRequest::default()
    };
    let report = crate::app::io::runtime(None)?
        .block_on(crate::scan::run::scan(&request))
        .map_err(|e| Error::Input(format!("paths: {}", e.message())))?;
    Ok((report.findings, report.notices))
}

/// The Action's own environment, as UTF-8 pairs (anything else is not passed on).
fn runner_env() -> Vec<(String, String)> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect()
}

/// The server starts from the scrubbed environment; the config's `env` still applies on top.
fn scrub(command: &mut crate::process::ServerCommand, child: &ChildEnv) {
    let mut env = child.vars.clone();
    for (name, value) in std::mem::take(&mut command.env) {
        env.retain(|(n, _)| *n != name);
        env.push((name, value));
    }
    command.env = env;
    command.clear_env = true;
}

/// Every result of an uploaded SARIF needs a file of the repository: without a config,
/// manifest, script or workflow file to anchor to, the SARIF file itself is that file.
fn anchor_for_upload(report: &mut Report, sarif_file: &Destination) {
    report.for_upload = true;
    if report.anchor.is_none() {
        report.anchor = report.repo.workflow_file();
    }
    if report.anchor.is_none() {
        report.anchor = Some(sarif_file.relative.clone());
    }
    if report.notices.iter().any(|n| n == NO_ANCHOR_NOTICE) {
        report.notices.retain(|n| n != NO_ANCHOR_NOTICE);
        report.notices.push(format!(
            "No config file, project manifest or server script in the repository: Code Scanning shows runtime findings on {} (set the `anchor` input to choose a file).",
            report.anchor.as_deref().unwrap_or_default()
        ));
    }
}

/// The human report in the log, inside a stop-commands block (it quotes server output):
/// the guard's session with every finding of the step, so its headline is the step's verdict.
fn log_report(log: &mut impl Write, run: Option<&GuardRun>, findings: &[Finding]) {
    let style = Style { color: false };
    let text = match run {
        Some(run) => {
            let mut all = run.clone();
            all.findings = findings.to_vec();
            human::render(&all, style)
        }
        None => scans_text(findings, style),
    };
    log_line(log, "::group::mcpcheck report");
    let _ = write_untrusted(log, &text);
    log_line(log, "::endgroup::");
}

/// The log's report when only the source and config scans ran.
fn scans_text(findings: &[Finding], style: Style) -> String {
    let verdict = Verdict::of(findings);
    let mut out = format!("{}  mcpcheck: source and config scans\n", verdict.display());
    for f in findings {
        out.push('\n');
        finding_head(&mut out, style, &style.severity(f.severity), f);
        finding_body(&mut out, f, "evidence");
    }
    closing_counts(&mut out, &verdict);
    out
}

/// Posts or updates the sticky comment; returns a note for the summary when it could not.
fn post_comment(log: &mut impl Write, inputs: &Inputs, report: &Report) -> Option<String> {
    let Some(number) = pull_request_number() else {
        log_line(log, "mcpcheck: not a pull-request event; no comment");
        return None;
    };
    let warn = |log: &mut dyn Write, note: &str| {
        let _ = writeln!(log, "::warning title=mcpcheck::{}", escape_data(note));
        let _ = log.flush();
    };
    let Some(token) = inputs.github_token.clone() else {
        let note = "the pull-request comment was not posted: no github_token input (set `github_token: ${{ github.token }}`, or `comment: false`).".to_string();
        warn(log, &note);
        return Some(note);
    };
    let Some((owner, repo)) = env("GITHUB_REPOSITORY").and_then(|r| {
        r.split_once('/')
            .map(|(o, n)| (o.to_string(), n.to_string()))
    }) else {
        let note =
            "the pull-request comment was not posted: GITHUB_REPOSITORY is not set.".to_string();
        warn(log, &note);
        return Some(note);
    };
    let target = Target {
        api_url: env("GITHUB_API_URL").unwrap_or_else(|| "https://api.github.com".into()),
        token,
        owner,
        repo,
        pull_request: number,
    };
    let body = markdown::render(report, &MarkdownOptions::comment());
    let outcome = crate::app::io::runtime(None)
        .map(|rt| rt.block_on(comment::upsert(&target, &body)))
        .unwrap_or_else(|e| CommentOutcome::Failed(e.message().to_string()));
    match outcome {
        CommentOutcome::Created(id) => {
            log_line(log, &format!("mcpcheck: created pull-request comment {id}"));
            None
        }
        CommentOutcome::Updated(id) => {
            log_line(log, &format!("mcpcheck: updated pull-request comment {id}"));
            None
        }
        CommentOutcome::Failed(note) => {
            warn(log, &note);
            Some(note)
        }
    }
}

/// The pull-request number from the event payload, when the event is about one.
fn pull_request_number() -> Option<u64> {
    let path = env("GITHUB_EVENT_PATH")?;
    let file = std::fs::File::open(path).ok()?;
    let mut text = String::new();
    std::io::Read::read_to_string(&mut std::io::Read::take(file, MAX_EVENT_BYTES), &mut text)
        .ok()?;
    let event: serde_json::Value = serde_json::from_str(&text).ok()?;
    event["pull_request"]["number"].as_u64()
}

/// How to reproduce: the setup (in its directory), the guard command, then the scans.
fn reproduce_lines(inputs: &Inputs, guard: &[String]) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(setup) = &inputs.setup {
        lines.push(match &inputs.working_directory {
            Some(d) => format!("(cd {} && {setup})", crate::shell::quote(d)),
            None => setup.clone(),
        });
    }
    lines.extend(guard.iter().cloned());
    // With a server, the guard line scans the `scan` paths itself (`--scan`).
    let source = if guard.is_empty() {
        &inputs.scan[..]
    } else {
        &[]
    };
    for (command, paths) in [("source", source), ("scan", &inputs.paths[..])] {
        if !paths.is_empty() {
            let argv: Vec<&str> = ["mcpcheck", command]
                .into_iter()
                .chain(paths.iter().map(String::as_str))
                .collect();
            lines.push(crate::shell::join(argv));
        }
    }
    lines
}

pub(super) fn append(path: &Path, text: &str) -> std::io::Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    f.write_all(text.as_bytes())?;
    f.write_all(b"\n")
}

fn log_line(log: &mut impl Write, line: &str) {
    let _ = writeln!(log, "{line}");
    let _ = log.flush();
}
