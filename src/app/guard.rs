//! `mcpcheck guard`: flags → `GuardRequest`, the session (and the source scan beside it),
//! the report in the chosen format, and the exit code.

use super::cli::{ColorChoice, Format, GuardArgs};
use super::io::{runtime, Output};
use super::render::OutputPlan;
use crate::error::Error;
use crate::gate::Gate;
use crate::guard::layers::{Front, Origin, Setting};
use crate::guard::progress::ProgressSink;
use crate::guard::GuardRequest;
use crate::guard::GuardSettings;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

/// How long a run may be silent on a terminal before its progress is drawn.
const QUIET_FOR: std::time::Duration = std::time::Duration::from_secs(1);

/// Progress on a terminal, never under CI (logs, pipes): drawn once the run has waited more
/// than a second (a server that never answers holds the run for the whole timeout).
fn progress_bar(settings: &GuardSettings) -> Option<ProgressBar> {
    let ci = std::env::var_os("CI").is_some_and(|v| !v.is_empty());
    if ci || !std::io::stderr().is_terminal() {
        return None;
    }
    let sessions = settings.repeat > 1 || settings.protocol_matrix || !settings.probes.is_empty();
    let template = if sessions {
        "mcpcheck guard {spinner} [{elapsed_precise}] {bar:30} {pos}/{len} sessions · {msg}"
    } else {
        "mcpcheck guard {spinner} [{elapsed_precise}] waiting for the server · {msg}"
    };
    let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::hidden());
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar.set_message(format!(
        "each request may take up to {} ms",
        settings.plan.timeout.as_millis()
    ));
    let shown = bar.clone();
    std::thread::spawn(move || {
        std::thread::sleep(QUIET_FOR);
        if !shown.is_finished() {
            shown.set_draw_target(ProgressDrawTarget::stderr());
            shown.enable_steady_tick(std::time::Duration::from_millis(200));
        }
    });
    Some(bar)
}

/// How the command line finds the write behind a stray stdout line.
const TRACE_WITH_SCAN: &str = "To find the write that printed it, rerun with `--scan DIR` (the server's source), or run `mcpcheck source DIR`, whose `--fix` rewrites such writes to stderr.";

impl GuardArgs {
    /// The engine's view of these flags: everything but where and how the report is written.
    pub fn request(&self) -> GuardRequest {
        GuardRequest {
            front: crate::guard::layers::Front::Flags,
            config: self.config.clone(),
            profile: self.profile.clone(),
            cwd: self.cwd.clone(),
            env: self.env.clone(),
            protocol: self.protocol.clone(),
            protocol_matrix: self.protocol_matrix,
            requests: self.requests.clone(),
            params: self.params.clone(),
            list_probes: self.list_probes,
            no_list_probes: self.no_list_probes,
            repeat: self.repeat,
            adversarial_probes: self.adversarial_probes.clone(),
            tuning: self.tuning.tuning,
            json: self.json,
            scan: self.scan.clone(),
            fail_on_static: self.fail_on_static,
            command: self.command.clone(),
            url: self.url.clone(),
            headers: self.headers.clone(),
            url_policy: crate::guard::options::UrlPolicy {
                allow_unsafe: self.url_allow_unsafe,
                ..Default::default()
            },
            no_install: self.no_install,
        }
    }
}

/// The `mcpcheck guard` command line that asks for `request`: the inverse of
/// [`GuardArgs::request`] (reading it back gives the same request, secrets aside). Header
/// values and a URL's password are shown as `<redacted>` and `--env` values as their names
/// only, since the line is printed in reports; everything else is exact.
pub fn argv(request: &GuardRequest) -> Vec<String> {
    let mut argv = vec!["mcpcheck".to_string(), "guard".to_string()];
    argv.extend(request.setting_words());
    let mut flag = |name: &str, value: String| {
        argv.push(format!("--{name}"));
        argv.push(value);
    };
    if let Some(url) = &request.url {
        flag("url", crate::secrets::redact(url));
    }
    for header in &request.headers {
        let name = header.split('=').next().unwrap_or("").trim();
        flag("header", format!("{name}=<redacted>"));
    }
    for kv in &request.env {
        let name = kv.split('=').next().unwrap_or("");
        flag("env", format!("{name}=<redacted>"));
    }
    if !request.command.is_empty() {
        argv.push("--".into());
        argv.extend(request.command.iter().cloned());
    }
    argv
}

/// The one guard job every front runs (`mcpcheck guard`, the Action): the request resolved
/// (its URL under its policy), the sessions, then the source scan of `scan` beside them —
/// stray stdout traced to the write that printed it, and the scan's findings as the
/// `static` check. The sweep runs the same engine with no source.
pub(crate) struct GuardJob {
    pub settings: GuardSettings,
    source: Option<crate::source::ScanOptions>,
    /// How the front names the scan's paths in an error (`--scan`, input `scan`).
    scan_named: String,
    /// How to ask for the tracing of stray stdout when no source is scanned.
    trace_hint: &'static str,
}

/// How each front asks for the write that printed stray stdout, when no source was scanned.
fn trace_hint(front: Front) -> &'static str {
    match front {
        Front::Flags => TRACE_WITH_SCAN,
        Front::ActionInputs => "To find the write that printed it, add `scan: src` (the server's source directory) to the Action's inputs.",
    }
}

impl GuardJob {
    /// Everything checked before anything starts.
    pub fn prepare(request: &GuardRequest) -> Result<Self, Error> {
        let settings = crate::guard::options::resolve(request)?;
        // The source scan (--scan, input `scan`, or `scan` in the config) runs beside the session.
        let source = (!settings.scan.is_empty()).then(|| {
            let mut options = crate::source::ScanOptions::new(settings.scan.clone());
            options.fail_on_static = settings.fail_on_static;
            options
        });
        let scan_named = Origin::Front(request.front).name(Setting::Scan);
        if let Some(options) = &source {
            crate::source::validate(options)
                .map_err(|e| Error::Usage(format!("{scan_named} {e}")))?;
        }
        Ok(Self {
            settings,
            source,
            scan_named,
            trace_hint: trace_hint(request.front),
        })
    }

    /// The sessions on the command layer's runtime, then the source scan.
    pub fn run(self) -> Result<crate::guard::GuardRun, Error> {
        let named = self.scan_named;
        let mut run = runtime(None)?.block_on(crate::guard::run(self.settings));
        if let Some(options) = &self.source {
            let scan =
                crate::source::scan(options).map_err(|e| Error::Input(format!("{named} {e}")))?;
            run.trace_stdout(&crate::source::rooted_writes(scan.writes, &options.roots));
            let findings = crate::source::rooted(scan.findings, &options.roots);
            run.add_check("static", crate::source::CODES, findings);
        } else {
            // Nothing is said of a scan that did not run, only how to ask for one.
            run.suggest_tracing(self.trace_hint);
        }
        Ok(run)
    }
}

pub fn run(args: GuardArgs, color: ColorChoice) -> Result<ExitCode, Error> {
    let mut job = GuardJob::prepare(&args.request())?;
    // Fail before the server runs, not after.
    let output = Output::new("--output", args.output.as_deref(), color)?;
    // `--json` with another `--format` is a usage error, as in every other subcommand.
    let format = match crate::app::cli::one_format(args.format, args.json, Format::Json)? {
        Some(format) => format,
        None if job.settings.prefers_json => Format::Json,
        None => Format::Human,
    };
    let plan = OutputPlan::new(
        format,
        args.anchor.as_deref(),
        args.category.clone(),
        output.color(),
    )?;
    let bar = progress_bar(&job.settings);
    if let Some(bar) = &bar {
        let bar = bar.clone();
        job.settings.progress = ProgressSink::new(move |step| {
            bar.set_length(step.total as u64);
            bar.set_position(step.done as u64);
            bar.set_message(step.stage);
        });
    }
    let run = job.run();
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let run = run?;
    let exit_code = Gate::default().exit_code(&run.findings);
    output.write(&plan.render_guard(&run, i32::from(exit_code))?)?;
    // A report written to a file still leaves its verdict on the terminal.
    if let Some(file) = args
        .output
        .as_deref()
        .filter(|_| std::io::stderr().is_terminal())
    {
        let verdict = crate::verdict::Verdict::of(&run.findings);
        let _ = writeln!(
            std::io::stderr(),
            "{}  mcpcheck guard: {} (report written to {})",
            verdict.status.headline(),
            verdict.counts(),
            file.display()
        );
    }
    Ok(ExitCode::from(exit_code))
}
