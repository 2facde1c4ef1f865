//! The `scan`, `baseline`, `pin` and `inventory` commands: arguments in, report out,
//! exit code back to main.

use super::baseline::Baseline;
use super::live::{LiveListing, LiveOptions};
use super::{lock, registry, InputError, Loaded, ScanReport, ScanSettings, Selection, Targets};
use crate::cli::{
    BaselineArgs, FailOn, Format, InventoryArgs, LiveArgs, PinArgs, RuleArgs, ScanArgs, TargetArgs,
    UsageError,
};
use crate::finding::Risk;
use crate::report::human::Style;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

impl From<InputError> for UsageError {
    fn from(e: InputError) -> Self {
        UsageError(e.0)
    }
}

fn cwd() -> Result<PathBuf, UsageError> {
    std::env::current_dir()
        .map_err(|e| UsageError(format!("cannot read the current directory: {e}")))
}

fn targets(t: &TargetArgs) -> Targets {
    Targets {
        paths: t.paths.clone(),
        global: t.global,
    }
}

fn live_options(a: &LiveArgs) -> Result<Option<LiveOptions>, UsageError> {
    if !a.live {
        return Ok(None);
    }
    if a.live_timeout == 0 {
        return Err(UsageError("--live-timeout must be at least 1 ms".into()));
    }
    if a.live_jobs == 0 {
        return Err(UsageError("--live-jobs must be at least 1".into()));
    }
    Ok(Some(LiveOptions {
        timeout: Duration::from_millis(a.live_timeout),
        allow_unsafe: a.live_allow_unsafe,
        jobs: a.live_jobs,
    }))
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

/// Fails before any work when the output cannot be written there.
fn check_output_dir(flag: &str, path: &Path) -> Result<(), UsageError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if dir.is_dir() {
        Ok(())
    } else {
        Err(UsageError(format!(
            "{flag} {}: the directory does not exist; create it or choose another path",
            path.display()
        )))
    }
}

fn emit(text: &str, output: Option<&Path>) -> Result<(), UsageError> {
    match output {
        Some(path) => std::fs::write(path, text).map_err(|e| {
            UsageError(format!(
                "--output {}: cannot write ({e}); check the directory exists and is writable",
                path.display()
            ))
        }),
        None => {
            let mut out = std::io::stdout().lock();
            match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                Err(e) => Err(UsageError(format!("cannot write to stdout: {e}"))),
            }
        }
    }
}

fn style(output: Option<&Path>) -> Style {
    let to_terminal = output.is_none() && std::io::stdout().is_terminal();
    Style {
        color: to_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    }
}

fn to_json(v: &serde_json::Value) -> Result<String, UsageError> {
    let mut s = serde_json::to_string_pretty(v)
        .map_err(|e| UsageError(format!("cannot serialise the report: {e}")))?;
    s.push('\n');
    Ok(s)
}

/// Registry facts for `--registry`, with their notices.
fn registry_facts(
    r: &RuleArgs,
    loaded: &Loaded,
    selection: &Selection,
) -> Option<registry::RegistryFacts> {
    if !r.registry || !selection.selects(crate::catalog::Code::DeprecatedPackage) {
        return None;
    }
    let packages = super::launched_packages(&loaded.configs);
    Some(registry::look_up(
        &packages,
        &registry::RegistryUrls::from_env(),
    ))
}

pub fn scan(args: ScanArgs) -> Result<ExitCode, UsageError> {
    let started = Instant::now();
    let cwd = cwd()?;
    if let Some(o) = &args.output {
        check_output_dir("--output", o)?;
    }
    let selection = Selection::parse(&args.rules.rules, &args.rules.ignore_rules)?;
    let live_opts = live_options(&args.live)?;
    let baseline = args.baseline.as_deref().map(Baseline::read).transpose()?;
    let lock_path = match &args.lock {
        Some(p) => Some(p.clone()),
        None => Some(cwd.join(lock::DEFAULT_FILE)).filter(|p| p.is_file()),
    };
    let lock_file = lock_path.as_deref().map(lock::read).transpose()?;
    let mut loaded = super::load(&targets(&args.target), &cwd, false)?;
    if loaded.configs.is_empty() {
        loaded.notices.push(format!(
            "no MCP client config found{}; name config files or directories, or add --global",
            if args.target.paths.is_empty() {
                " under the current directory"
            } else {
                ""
            }
        ));
    }
    let facts = registry_facts(&args.rules, &loaded, &selection);
    let live: Vec<LiveListing> = match live_opts {
        Some(o) => super::list_live(&loaded.configs, o)?,
        None => super::not_listed(&loaded.configs),
    };
    let settings = ScanSettings {
        selection: &selection,
        registry: facts.as_ref(),
        lock: lock_file.as_ref(),
        live: live_opts.map(|_| live.as_slice()),
    };
    let mut findings = super::findings(&loaded.configs, &settings);
    findings.extend(surface_findings(&live, &loaded.configs, &selection));
    // One order for the whole report, config and live findings alike: highest risk first.
    super::sort(&mut findings);
    if let Some(f) = &facts {
        loaded.notices.extend(f.notices.iter().cloned());
    }
    if let Some(l) = &lock_file {
        for gone in lock::removed(l, &loaded.configs) {
            loaded.notices.push(format!(
                "lock: server {gone} was pinned but is no longer configured"
            ));
        }
        if live_opts.is_none() && l.servers.iter().any(|s| s.surface.is_some()) {
            loaded.notices.push(
                "lock: tool surfaces were not compared; run with --live to compare them".into(),
            );
        }
    }
    let mut suppressed = 0;
    if let Some(b) = &baseline {
        (findings, suppressed) = super::baseline::filter(findings, b);
    }
    let rules_run = super::rules::registry()
        .iter()
        .filter(|r| selection.selects(r.code()))
        .count();
    let report = ScanReport {
        configs: loaded.configs,
        live,
        live_ran: live_opts.is_some(),
        findings,
        suppressed,
        fail_on: fail_on(args.fail_on),
        notices: loaded.notices,
        baseline: args.baseline.as_ref().map(|p| p.display().to_string()),
        lock: lock_path.map(|p| super::discover::display_path(&p, &cwd)),
        rules_run,
        duration_ms: started.elapsed().as_millis() as u64,
    };
    let format = args.format.chosen();
    let text = match format {
        Format::Json => to_json(&crate::report::scan_json::render(&report))?,
        Format::Human => crate::report::scan_human::render(&report, style(args.output.as_deref())),
        Format::Sarif | Format::Markdown => crate::report::output::render_findings(
            format,
            "scan",
            &report.findings,
            i32::from(!report.ok()),
        )?,
    };
    emit(&text, args.output.as_deref())?;
    Ok(if report.ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Refuses to replace a file without `--force`.
fn check_overwrite(path: &Path, force: bool, what: &str) -> Result<(), UsageError> {
    check_output_dir("--output", path)?;
    if path.exists() && !force {
        return Err(UsageError(format!(
            "{}: a {what} already exists; review it, or pass --force to overwrite it",
            path.display()
        )));
    }
    Ok(())
}

fn write_file(path: &Path, text: &str) -> Result<(), UsageError> {
    std::fs::write(path, text).map_err(|e| {
        UsageError(format!(
            "{}: cannot write ({e}); check the directory is writable",
            path.display()
        ))
    })
}

pub fn baseline(args: BaselineArgs) -> Result<ExitCode, UsageError> {
    check_overwrite(&args.output, args.force, "baseline")?;
    let cwd = cwd()?;
    let selection = Selection::parse(&args.rules.rules, &args.rules.ignore_rules)?;
    let loaded = super::load(&targets(&args.target), &cwd, false)?;
    let facts = registry_facts(&args.rules, &loaded, &selection);
    let settings = ScanSettings {
        selection: &selection,
        registry: facts.as_ref(),
        lock: None,
        live: None,
    };
    let findings = super::findings(&loaded.configs, &settings);
    let b = Baseline::of(&findings);
    let text = to_json(
        &serde_json::to_value(&b)
            .map_err(|e| UsageError(format!("cannot serialise the baseline: {e}")))?,
    )?;
    write_file(&args.output, &text)?;
    emit(
        &format!(
            "wrote {}: {} from {}\n",
            args.output.display(),
            crate::report::plural(b.findings.len(), "finding"),
            crate::report::plural(loaded.configs.len(), "config")
        ),
        None,
    )?;
    Ok(ExitCode::SUCCESS)
}

pub fn pin(args: PinArgs) -> Result<ExitCode, UsageError> {
    check_overwrite(&args.output, args.force, "lock file")?;
    let cwd = cwd()?;
    let live_opts = live_options(&args.live)?;
    let loaded = super::load(&targets(&args.target), &cwd, false)?;
    let live = match live_opts {
        Some(o) => Some(super::list_live(&loaded.configs, o)?),
        None => None,
    };
    let lock = lock::build(&loaded.configs, live.as_deref());
    let text = to_json(
        &serde_json::to_value(&lock)
            .map_err(|e| UsageError(format!("cannot serialise the lock: {e}")))?,
    )?;
    write_file(&args.output, &text)?;
    let mut summary = format!(
        "wrote {}: {}",
        args.output.display(),
        crate::report::plural(lock.servers.len(), "server")
    );
    if let Some(listings) = &live {
        let pinned = lock.servers.iter().filter(|s| s.surface.is_some()).count();
        summary.push_str(&format!(", {pinned} with their live surface"));
        for l in listings
            .iter()
            .filter(|l| l.state != super::live::LiveState::Answered)
        {
            summary.push_str(&format!(
                "\n  {}: surface not pinned, {}",
                crate::finding::excerpt(&l.server, 60),
                crate::finding::excerpt(&l.state.describe(), 200)
            ));
        }
    }
    summary.push('\n');
    emit(&summary, None)?;
    Ok(ExitCode::SUCCESS)
}

pub fn inventory(args: InventoryArgs) -> Result<ExitCode, UsageError> {
    let cwd = cwd()?;
    if let Some(o) = &args.output {
        check_output_dir("--output", o)?;
    }
    let live_opts = live_options(&args.live)?;
    let loaded = super::load(&targets(&args.target), &cwd, true)?;
    let live = match live_opts {
        Some(o) => super::list_live(&loaded.configs, o)?,
        None => super::not_listed(&loaded.configs),
    };
    let inv = crate::report::inventory::Inventory {
        configs: &loaded.configs,
        broken: &loaded.broken,
        live: &live,
        live_ran: live_opts.is_some(),
        notices: &loaded.notices,
    };
    let format = args.format.chosen();
    let text = match format {
        Format::Json => to_json(&crate::report::inventory::json(&inv))?,
        Format::Human => crate::report::inventory::human(&inv, style(args.output.as_deref())),
        Format::Sarif | Format::Markdown => {
            return Err(UsageError(
                "inventory is a listing, not findings: use --format human or json".into(),
            ))
        }
    };
    emit(&text, args.output.as_deref())?;
    Ok(ExitCode::SUCCESS)
}

/// The live surface rules (tool poisoning, hidden characters, shadowing, collisions…) over
/// every server that answered and its initialize result, all at once so cross-server rules
/// see them together. Each finding points at the config file that declares the server.
fn surface_findings(
    live: &[LiveListing],
    configs: &[super::config_file::ConfigFile],
    selection: &super::Selection,
) -> Vec<crate::finding::Finding> {
    use crate::surface::{ServerSurface, SurfaceOptions};
    let answered: Vec<&LiveListing> = live
        .iter()
        .filter(|l| matches!(l.state, super::live::LiveState::Answered))
        .collect();
    if answered.is_empty() {
        return Vec::new();
    }
    let surfaces: Vec<ServerSurface> = answered
        .iter()
        .map(|l| ServerSurface {
            server: l.server.clone(),
            tools: l.tools.clone(),
            prompts: l.prompts.clone(),
            resources: l.resources.clone(),
            resource_templates: l.resource_templates.clone(),
        })
        .collect();
    // With the initialize results, so `instructions` and the capabilities are judged too.
    let initialize: Vec<Option<serde_json::Value>> =
        answered.iter().map(|l| l.initialize.clone()).collect();
    let options = SurfaceOptions {
        only_guard_rules: false,
    };
    // Findings name their server by its escaped, bounded segment (`servers/a~1b/…`), not its
    // raw name. A name declared twice maps to its first entry.
    let mut by_segment = std::collections::HashMap::new();
    for l in &answered {
        by_segment
            .entry(crate::surface::item::segment(&l.server))
            .or_insert(*l);
    }
    crate::surface::check_with_initialize(&surfaces, &initialize, &options)
        .into_iter()
        .filter(|f| selection.selects(f.code))
        .map(|mut f| {
            let server = f
                .location
                .logical
                .as_deref()
                .and_then(|p| p.strip_prefix("servers/"))
                .map(|rest| rest.split('/').next().unwrap_or(rest))
                .and_then(|segment| by_segment.get(segment));
            if let Some(l) = server {
                f.location.file = Some(l.config.clone());
                // At the entry that declares the server, so every output has a line.
                let entry = configs
                    .iter()
                    .filter(|c| c.display == l.config)
                    .find_map(|c| {
                        c.servers
                            .iter()
                            .find(|e| e.pointer == l.pointer)
                            .map(|e| (c, e))
                    });
                if let Some((config, entry)) = entry {
                    let (line, column) = config.lines.position(&config.text, entry.span.start);
                    f.location.line = Some(line);
                    f.location.column = Some(column);
                }
            }
            f
        })
        .collect()
}
