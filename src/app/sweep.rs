//! `mcpcheck sweep` and `mcpcheck sweep-report`: flags → `SweepRequest`, each server's
//! result line rendered as the guard's JSON contract, the closing summary; and the merged
//! report of results files in the chosen format.

use super::cli::{Format, SweepArgs, SweepReportArgs, SweepReportFormat};
use super::io::{json_text, Output};
use super::render::render_findings;
use super::sweep_progress::Progress;
use crate::error::Error;
use crate::report::sweep::{html, human, json, markdown};
use crate::sweep::changes::Changes;
use crate::sweep::merge::{findings_of, merge};
use crate::sweep::summary::Summary;
use crate::sweep::{SweepEnd, SweepRequest};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

pub fn sweep(args: SweepArgs) -> Result<ExitCode, Error> {
    let request = SweepRequest {
        manifest: args.manifest.clone(),
        out: args.out.clone(),
        jobs: args.jobs,
        shard: args.shard.clone(),
        resume: args.resume,
        tuning: args.tuning.tuning,
        profile: args.profile.clone(),
        config: args.config.clone(),
        setup_timeout: args.setup_timeout.as_duration(),
        pass_env: args.pass_env.clone(),
        isolated_caches: args.isolated_caches,
        remote: args.remote,
        remote_allow_unsafe: args.remote_allow_unsafe,
    };
    let renderers = crate::sweep::Renderers {
        guard: Arc::new(crate::report::guard::json::render_showing),
        findings: Arc::new(|findings| {
            serde_json::to_value(crate::report::issue::FindingsFields::of(findings))
                .unwrap_or_default()
        }),
    };
    let prepared = crate::sweep::prepare(&request, renderers)?;
    let runtime = super::io::runtime(Some(crate::sweep::worker_threads(prepared.jobs())))?;
    let mut progress = Progress::new(&args.out.display().to_string());
    let outcome = runtime.block_on(prepared.run(&mut progress));
    // Servers killed on the way out must not linger as the runtime's orphans.
    runtime.shutdown_timeout(Duration::from_secs(5));
    let outcome = outcome?;
    progress.finish(match outcome.end {
        SweepEnd::Finished => None,
        SweepEnd::Interrupted { signal } => Some(crate::process::signal_name(signal)),
    });
    let merged = merge(std::slice::from_ref(&args.out))?;
    let summary = Summary::of(&merged);
    let shard = outcome.shard.map(|s| s.label());
    Output::stdout().write(&human::closing(
        &merged,
        &summary,
        &args.out.display().to_string(),
        outcome.elapsed,
        shard.as_deref(),
    ))?;
    Ok(match outcome.end {
        SweepEnd::Finished => ExitCode::SUCCESS,
        SweepEnd::Interrupted { signal } => ExitCode::from(128 + signal as u8),
    })
}

pub fn report(args: &SweepReportArgs) -> Result<ExitCode, Error> {
    let output = Output::new(
        "--output",
        args.output.as_deref(),
        super::cli::ColorChoice::Never,
    )?;
    if args.format == SweepReportFormat::Sarif && !args.baseline.is_empty() {
        return Err(Error::Usage(
            "--baseline is not shown in SARIF (Code Scanning compares runs itself); use --format human, json, markdown or html".into(),
        ));
    }
    if let Some(missing) = args.baseline.iter().find(|p| !p.is_file()) {
        return Err(Error::Usage(format!(
            "--baseline {}: no such file; give the results files of an earlier sweep",
            missing.display()
        )));
    }
    let merged = merge(&args.results)?;
    if args.format == SweepReportFormat::Sarif {
        output.write_printed(&render_findings(
            Format::Sarif,
            "sweep",
            findings_of(&merged),
            0,
        )?)?;
        return Ok(ExitCode::SUCCESS);
    }
    let summary = Summary::of(&merged);
    let changes = if args.baseline.is_empty() {
        None
    } else {
        let baseline = Summary::of(&merge(&args.baseline)?);
        Some(Changes::between(&summary, &baseline))
    };
    let changes = changes.as_ref();
    let text = match args.format {
        SweepReportFormat::Human => human::render(&summary, changes),
        SweepReportFormat::Markdown => markdown::render(&summary, changes),
        SweepReportFormat::Json => json_text(&json::render(&summary, changes))?,
        // SARIF was written above.
        SweepReportFormat::Html | SweepReportFormat::Sarif => html::render(&html::Page {
            summary: &summary,
            changes,
        }),
    };
    output.write(&text)?;
    Ok(ExitCode::SUCCESS)
}
