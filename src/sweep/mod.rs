//! The sweep engine: guard every server of a manifest, several at once, each a full guard
//! run in its own sandbox, streaming one result line per server; and the merge of results
//! files that `sweep-report` summarises.

pub mod manifest;
pub mod merge;
mod progress;
pub mod remote;
pub mod results;
mod run;
pub mod sandbox;
pub mod server_json;
mod setup;
pub mod shard;
pub mod summary;

use crate::error::Error;
use crate::finding::excerpt;
use crate::guard::profile::Profile;
use manifest::Entry;
use progress::Progress;
use results::ResultsWriter;
pub use run::LineRenderer;
use run::SweepConfig;
pub use run::SweepEnd;
use sandbox::EnvPolicy;
use shard::Shard;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Most servers run at once: each is a process tree with its own pipes.
const MAX_JOBS: usize = 256;

/// What a sweep is asked to do.
#[derive(Debug, Clone)]
pub struct SweepRequest {
    /// JSON or JSON Lines; command entries or MCP registry server.json entries.
    pub manifest: PathBuf,
    /// The results file (JSON Lines); must not exist unless `resume`.
    pub out: PathBuf,
    /// Servers checked at once; `None`: the number of cores.
    pub jobs: Option<usize>,
    /// `I/N`: only this share of the manifest.
    pub shard: Option<String>,
    pub resume: bool,
    pub timeout: Option<u64>,
    pub profile: Option<String>,
    pub config: Option<PathBuf>,
    pub setup_timeout: Duration,
    pub pass_env: Vec<String>,
    pub isolated_caches: bool,
    /// Guard remote entries (manifest `url` entries, `server.json` `remotes`) over HTTP.
    pub remote: bool,
    /// Dial remote entries on private, link-local and metadata addresses too.
    pub remote_allow_unsafe: bool,
}

impl Default for SweepRequest {
    fn default() -> Self {
        Self {
            manifest: PathBuf::new(),
            out: PathBuf::new(),
            jobs: None,
            shard: None,
            resume: false,
            timeout: None,
            profile: None,
            config: None,
            setup_timeout: DEFAULT_SETUP_TIMEOUT,
            pass_env: Vec::new(),
            isolated_caches: false,
            remote: false,
            remote_allow_unsafe: false,
        }
    }
}

/// Longest an entry's `setup` command may run, by default.
pub const DEFAULT_SETUP_TIMEOUT: Duration = crate::process::setup::DEFAULT_DEADLINE;

/// How a sweep ended, for the closing summary and the exit code.
#[derive(Debug, Clone, Copy)]
pub struct SweepOutcome {
    pub end: SweepEnd,
    pub shard: Option<Shard>,
    pub elapsed: Duration,
}

pub fn sweep(request: &SweepRequest, render: LineRenderer) -> Result<SweepOutcome, Error> {
    let config = Arc::new(validate(request, render)?);
    let shard = request.shard.as_deref().map(Shard::parse).transpose()?;
    let entries = manifest::load(&request.manifest)?;
    let in_shard: Vec<Entry> = entries
        .into_iter()
        .filter(|e| shard.is_none_or(|s| s.contains(&e.id)))
        .collect();
    let (mut writer, done) = if request.resume {
        ResultsWriter::resume(&request.out)?
    } else {
        (ResultsWriter::create(&request.out)?, Default::default())
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
    let out_shown = request.out.display().to_string();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(config.jobs.min(cores()).max(1))
        .enable_all()
        .build()
        .map_err(|e| Error::System(format!("cannot start the async runtime: {e}")))?;
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
    Ok(SweepOutcome {
        end,
        shard,
        elapsed: clock.elapsed(),
    })
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// Every setting checked before the first server starts.
fn validate(args: &SweepRequest, render: LineRenderer) -> Result<SweepConfig, Error> {
    let jobs = args.jobs.unwrap_or_else(cores);
    if !(1..=MAX_JOBS).contains(&jobs) {
        return Err(Error::Usage(format!("--jobs {jobs}: give 1 to {MAX_JOBS}")));
    }
    if let Some(p) = &args.profile {
        Profile::parse(p)?;
    }
    if args.setup_timeout.is_zero() {
        return Err(Error::Usage("--setup-timeout must be at least 1 ms".into()));
    }
    for name in &args.pass_env {
        if name.is_empty() || name.contains('=') || name.contains('\0') {
            return Err(Error::Usage(format!(
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
        return Err(Error::Usage(format!(
            "--out {}: the directory does not exist; create it or choose another path",
            args.out.display()
        )));
    }
    let config = SweepConfig {
        jobs,
        timeout: args.timeout,
        profile: args.profile.clone(),
        config: args.config.clone(),
        setup_timeout: args.setup_timeout,
        env_policy: EnvPolicy {
            pass: args.pass_env.clone(),
            isolated_caches: args.isolated_caches,
        },
        render,
        remote: args.remote,
        remote_allow_unsafe: args.remote_allow_unsafe,
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
