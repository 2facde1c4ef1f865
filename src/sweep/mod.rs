//! The sweep engine: guard every server of a manifest, several at once, each a full guard
//! run in its own sandbox, streaming one result line per server; and `sweep-report`.

pub mod manifest;
mod progress;
pub mod report;
pub mod results;
mod run;
pub mod sandbox;
pub mod server_json;
mod setup;
pub mod shard;

use crate::cli::{SweepArgs, UsageError};
use crate::finding::excerpt;
use crate::guard::profile::Profile;
use manifest::Entry;
use progress::Progress;
use results::ResultsWriter;
use run::{SweepConfig, SweepEnd};
use sandbox::EnvPolicy;
use shard::Shard;
use std::fmt::Write as _;
use std::io::Write as _;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Most servers run at once: each is a process tree with its own pipes.
const MAX_JOBS: usize = 256;

pub fn command(args: SweepArgs) -> Result<ExitCode, UsageError> {
    let config = Arc::new(validate(&args)?);
    let shard = args.shard.as_deref().map(Shard::parse).transpose()?;
    let entries = manifest::load(&args.manifest)?;
    let in_shard: Vec<Entry> = entries
        .into_iter()
        .filter(|e| shard.is_none_or(|s| s.contains(&e.id)))
        .collect();
    let (mut writer, done) = if args.resume {
        ResultsWriter::resume(&args.out)?
    } else {
        (ResultsWriter::create(&args.out)?, Default::default())
    };
    let to_run: Vec<Entry> = in_shard
        .into_iter()
        .filter(|e| !done.contains(&e.id))
        .collect();
    let skipped = done.len();
    let stale = sandbox::remove_stale(&std::env::temp_dir());
    if stale > 0 {
        let _ = writeln!(
            std::io::stderr(),
            "mcpcheck sweep: removed {stale} temporary directories left by a sweep that was killed"
        );
    }
    let out_shown = args.out.display().to_string();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(config.jobs.min(cores()).max(1))
        .enable_all()
        .build()
        .map_err(|e| UsageError(format!("cannot start the async runtime: {e}")))?;
    let clock = Instant::now();
    let mut progress = Progress::new(to_run.len() as u64, skipped as u64, config.jobs, &out_shown);
    let end = runtime.block_on(run::run(
        to_run,
        Arc::clone(&config),
        &mut writer,
        &mut progress,
    ));
    // Servers killed on the way out must not linger as the runtime's orphans.
    runtime.shutdown_timeout(Duration::from_secs(5));
    let end = end?;
    let interrupted = match end {
        SweepEnd::Finished => None,
        SweepEnd::Interrupted { signal } => Some(crate::process::signal_name(signal)),
    };
    progress.finish(interrupted);
    let summary = closing_summary(&args, shard, clock.elapsed())?;
    write_stdout(&summary)?;
    Ok(match end {
        SweepEnd::Finished => ExitCode::SUCCESS,
        SweepEnd::Interrupted { signal } => ExitCode::from(128 + signal as u8),
    })
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// Every flag checked before the first server starts.
fn validate(args: &SweepArgs) -> Result<SweepConfig, UsageError> {
    let jobs = args.jobs.unwrap_or_else(cores);
    if !(1..=MAX_JOBS).contains(&jobs) {
        return Err(UsageError(format!("--jobs {jobs}: give 1 to {MAX_JOBS}")));
    }
    if let Some(p) = &args.profile {
        Profile::parse(p)?;
    }
    if args.setup_timeout == 0 {
        return Err(UsageError("--setup-timeout must be at least 1 ms".into()));
    }
    for name in &args.pass_env {
        if name.is_empty() || name.contains('=') || name.contains('\0') {
            return Err(UsageError(format!(
                "--pass-env {:?}: give a variable name, without '='",
                excerpt(name, 40)
            )));
        }
    }
    let dir = match args.out.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    if !dir.is_dir() {
        return Err(UsageError(format!(
            "--out {}: the directory does not exist; create it or choose another path",
            args.out.display()
        )));
    }
    let config = SweepConfig {
        jobs,
        timeout: args.timeout,
        profile: args.profile.clone(),
        config: args.config.clone(),
        setup_timeout: Duration::from_millis(args.setup_timeout),
        env_policy: EnvPolicy {
            pass: args.pass_env.clone(),
            isolated_caches: args.isolated_caches,
        },
    };
    // The guard's own checks of --timeout, --profile and --config, once, before anything runs.
    let probe = manifest::Launch {
        command: vec!["true".into()],
        cwd: None,
        env: Vec::new(),
        setup: None,
    };
    run::guard_settings(&probe, &std::env::temp_dir(), &config)?;
    Ok(config)
}

/// Counts per status, the most common issue codes and the slowest servers, over the whole
/// results file (earlier runs of a resumed sweep included).
fn closing_summary(
    args: &SweepArgs,
    shard: Option<Shard>,
    elapsed: Duration,
) -> Result<String, UsageError> {
    let merged = report::merge(std::slice::from_ref(&args.out))?;
    let summary = report::Summary::of(&merged);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "sweep: {} server(s) in {} ({:.1} s this run{}) · {} line(s) unreadable",
        summary.servers.len(),
        args.out.display(),
        elapsed.as_secs_f64(),
        shard
            .map(|s| format!(", shard {}", s.label()))
            .unwrap_or_default(),
        merged.inputs.iter().map(|i| i.unreadable).sum::<usize>()
    );
    let statuses: Vec<String> = summary
        .statuses
        .iter()
        .map(|(s, n)| format!("{s} {n}"))
        .collect();
    let _ = writeln!(out, "  {}", statuses.join(" · "));
    if !summary.top_codes.is_empty() {
        let codes: Vec<String> = summary
            .top_codes
            .iter()
            .take(5)
            .map(|(c, n)| format!("{c} ({n})"))
            .collect();
        let _ = writeln!(out, "  most common issues: {}", codes.join(", "));
    }
    if !summary.slowest.is_empty() {
        let slow: Vec<String> = summary
            .slowest
            .iter()
            .take(5)
            .map(|(id, ms)| format!("{} {:.1} s", excerpt(id, 60), *ms as f64 / 1000.0))
            .collect();
        let _ = writeln!(out, "  slowest: {}", slow.join(", "));
    }
    Ok(out)
}

fn write_stdout(text: &str) -> Result<(), UsageError> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(UsageError(format!("cannot write to stdout: {e}"))),
    }
}
