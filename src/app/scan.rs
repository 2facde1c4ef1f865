//! `mcpcheck scan`, `baseline`, `pin` and `inventory`: flags → scan requests, the engine,
//! the report or file, and the exit code.

use super::cli::{
    BaselineArgs, ColorChoice, FailOn, Format, InventoryArgs, ListingFormat, LiveArgs, PinArgs,
    RuleArgs, ScanArgs, TargetArgs,
};
use super::io::{check_destination, json_text, runtime, write_file, Output};
use super::render::render_findings;
use crate::error::Error;
use crate::finding::{excerpt, plural, Risk};
use crate::report::human::Style;
use crate::report::printed::Printed;
use crate::scan::live::{LiveOptions, LiveState};
use crate::scan::run::{current_dir, BaselineRequest, ListRequest, RuleRequest, ScanRequest};
use crate::scan::Targets;
use std::path::Path;
use std::process::ExitCode;

/// Targets for a command that writes a file meant to be committed (baseline, pin): the
/// user's own configs only with --global, so they never land in a repository by default.
fn targets(t: &TargetArgs) -> Targets {
    Targets {
        paths: t.paths.clone(),
        global: t.global,
    }
}

/// Targets for a report (scan, inventory): without paths, the project's configs and the
/// user's, as the clients themselves would load them, unless --project-only.
fn report_targets(t: &TargetArgs) -> Targets {
    Targets {
        paths: t.paths.clone(),
        global: t.global || (t.paths.is_empty() && !t.project_only),
    }
}

fn rules(r: &RuleArgs) -> RuleRequest {
    RuleRequest {
        rules: r.rules.clone(),
        ignore_rules: r.ignore_rules.clone(),
        registry: r.registry,
        advisories: r.advisories,
    }
}

fn live_options(a: &LiveArgs) -> Result<Option<LiveOptions>, Error> {
    if !a.live {
        return Ok(None);
    }
    if a.live_timeout.ms == 0 {
        return Err(Error::Usage("--live-timeout must be at least 1 ms".into()));
    }
    if a.live_jobs == 0 {
        return Err(Error::Usage("--live-jobs must be at least 1".into()));
    }
    Ok(Some(LiveOptions {
        timeout: a.live_timeout.as_duration(),
        allow_unsafe: a.live_allow_unsafe,
        jobs: a.live_jobs,
    }))
}

/// A live flag that does nothing without `--live`, said rather than ignored.
fn unused_live_flags(a: &LiveArgs) -> Option<String> {
    (a.live_allow_unsafe && !a.live).then(|| {
        "--live-allow-unsafe does nothing without --live: no server was started".to_string()
    })
}

fn fail_on(f: FailOn) -> Risk {
    match f {
        FailOn::Info => Risk::Info,
        FailOn::Low => Risk::Low,
        FailOn::Medium => Risk::Medium,
        FailOn::High => Risk::High,
        FailOn::Critical => Risk::Critical,
    }
}

pub fn scan(args: ScanArgs, color: ColorChoice) -> Result<ExitCode, Error> {
    let format = args.format.chosen()?;
    let output = Output::new("--output", args.output.as_deref(), color)?;
    let request = ScanRequest {
        targets: report_targets(&args.target),
        live: live_options(&args.live)?,
        rules: rules(&args.rules),
        fail_on: fail_on(args.fail_on),
        baseline: args.baseline.clone(),
        lock: args.lock.clone(),
        cwd: current_dir()?,
    };
    let mut report = runtime(None)?.block_on(crate::scan::run::scan(&request))?;
    report.notices.extend(unused_live_flags(&args.live));
    let text: Printed = match format {
        Format::Json => json_text(&crate::report::scan::json::render(&report))?.into(),
        Format::Human => crate::report::scan::human::render(
            &report,
            Style {
                color: output.color(),
            },
        )
        .into(),
        Format::Sarif | Format::Markdown => render_findings(
            format,
            "scan",
            report.findings.clone(),
            i32::from(!report.ok()),
        )?,
    };
    output.write_printed(&text)?;
    Ok(super::verdict_exit(report.ok()))
}

/// Refuses to replace a file without `--force`.
fn check_overwrite(path: &Path, force: bool, what: &str) -> Result<(), Error> {
    check_destination("--output", path)?;
    if path.exists() && !force {
        return Err(Error::Usage(format!(
            "{}: a {what} already exists; review it, or pass --force to overwrite it",
            path.display()
        )));
    }
    Ok(())
}

pub fn baseline(args: BaselineArgs) -> Result<ExitCode, Error> {
    check_overwrite(&args.output, args.force, "baseline")?;
    let (b, configs) = runtime(None)?.block_on(crate::scan::run::baseline(&BaselineRequest {
        targets: targets(&args.target),
        live: live_options(&args.live)?,
        rules: rules(&args.rules),
        cwd: current_dir()?,
    }))?;
    write_file("--output", &args.output, &json_text(&b)?)?;
    Output::stdout().write(&format!(
        "wrote {}: {} from {}\n",
        args.output.display(),
        plural(b.findings.len(), "finding"),
        plural(configs, "config")
    ))?;
    Ok(ExitCode::SUCCESS)
}

pub fn pin(args: PinArgs) -> Result<ExitCode, Error> {
    check_overwrite(&args.output, args.force, "lock file")?;
    let (lock, live) = runtime(None)?.block_on(crate::scan::run::pin(&ListRequest {
        targets: targets(&args.target),
        live: live_options(&args.live)?,
        cwd: current_dir()?,
    }))?;
    write_file("--output", &args.output, &json_text(&lock)?)?;
    let mut summary = format!(
        "wrote {}: {}",
        args.output.display(),
        plural(lock.servers.len(), "server")
    );
    if let Some(listings) = &live {
        let pinned = lock.servers.iter().filter(|s| s.surface.is_some()).count();
        summary.push_str(&format!(", {pinned} with their live surface"));
        for l in listings.iter().filter(|l| l.state != LiveState::Answered) {
            summary.push_str(&format!(
                "\n  {}: surface not pinned, {}",
                excerpt(&l.server, 60),
                excerpt(&l.state.describe(), 200)
            ));
        }
    }
    if let Some(n) = unused_live_flags(&args.live) {
        summary.push_str(&format!("\n  note: {n}"));
    }
    summary.push('\n');
    Output::stdout().write(&summary)?;
    Ok(ExitCode::SUCCESS)
}

pub fn inventory(args: InventoryArgs, color: ColorChoice) -> Result<ExitCode, Error> {
    let format = super::cli::one_format(args.format, args.json, ListingFormat::Json)?
        .unwrap_or(ListingFormat::Human);
    let output = Output::new("--output", args.output.as_deref(), color)?;
    let mut data = runtime(None)?.block_on(crate::scan::run::inventory(&ListRequest {
        targets: report_targets(&args.target),
        live: live_options(&args.live)?,
        cwd: current_dir()?,
    }))?;
    data.loaded.notices.extend(unused_live_flags(&args.live));
    let inv = crate::report::inventory::Inventory {
        configs: &data.loaded.configs,
        broken: &data.loaded.broken,
        live: &data.live,
        live_ran: data.live_ran,
        notices: &data.loaded.notices,
    };
    let text = match format {
        ListingFormat::Json => json_text(&crate::report::inventory::report(&inv))?,
        ListingFormat::Human => crate::report::inventory::human(
            &inv,
            Style {
                color: output.color(),
            },
        ),
    };
    output.write(&text)?;
    Ok(ExitCode::SUCCESS)
}
