//! The sweep engine: guard every server of a manifest, several at once, each a full guard
//! run in its own sandbox, streaming one result line per server; and the merge of results
//! files that `sweep-report` summarises.

pub mod changes;
pub mod judgement;
pub mod line;
pub mod line_verdict;
pub mod manifest;
mod manifest_fields;
pub mod merge;
pub mod remote;
mod reproduce_package;
pub mod results;
mod run;
pub mod sandbox;
pub mod server_json;
pub mod shard;
pub mod shown;
pub mod summary;

use crate::error::Error;
use crate::finding::excerpt;
use crate::guard::profile::Profile;
use manifest::Entry;
use results::ResultsWriter;
pub use run::SweepEnd;
pub use run::{guard_settings, FindingsRenderer, LineRenderer, Renderers, SweepConfig};
use sandbox::EnvPolicy;
use shard::Shard;
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
    /// The guard's times and limits for every entry.
    pub tuning: crate::session::tuning::Tuning,
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
            tuning: Default::default(),
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

/// What the sweep reports while it runs; the command layer draws it (a bar, plain lines).
/// Every hook has a no-op default.
pub trait SweepProgress: Send {
    /// Before the first entry: how many will run, how many the results file already has.
    fn begin(&mut self, _to_run: u64, _already: u64, _jobs: usize) {}
    /// A line that is not a result (temporary directories cleaned up, and the like).
    fn note(&mut self, _text: &str) {}
    /// A server's check started.
    fn started(&mut self) {}
    /// An entry's line was written, with its status.
    fn finished(&mut self, _status: line::LineStatus) {}
    /// Once a second while servers run.
    fn tick(&mut self) {}
}

/// A sweep checked and loaded, ready to run: every setting, the manifest and the results
/// file were checked before any server starts.
pub struct PreparedSweep {
    config: Arc<SweepConfig>,
    shard: Option<Shard>,
    to_run: Vec<Entry>,
    skipped: usize,
    writer: ResultsWriter,
}

pub fn prepare(request: &SweepRequest, render: Renderers) -> Result<PreparedSweep, Error> {
    let config = Arc::new(validate(request, render)?);
    let shard = request.shard.as_deref().map(Shard::parse).transpose()?;
    let entries = manifest::load(&request.manifest)?;
    let in_shard: Vec<Entry> = entries
        .into_iter()
        .filter(|e| shard.is_none_or(|s| s.contains(&e.id)))
        .collect();
    let (writer, done) = if request.resume {
        ResultsWriter::resume(&request.out)?
    } else {
        (ResultsWriter::create(&request.out)?, Default::default())
    };
    let to_run: Vec<Entry> = in_shard
        .into_iter()
        .filter(|e| !done.contains(&e.id))
        .collect();
    Ok(PreparedSweep {
        config,
        shard,
        to_run,
        skipped: done.len(),
        writer,
    })
}

impl PreparedSweep {
    /// Servers checked at once.
    pub fn jobs(&self) -> usize {
        self.config.jobs
    }

    /// Runs every entry; on SIGINT or SIGTERM stops the running servers and returns. The
    /// caller's runtime must be shut down with a grace period afterwards, so servers killed
    /// on the way out do not linger as its orphans.
    pub async fn run(mut self, progress: &mut dyn SweepProgress) -> Result<SweepOutcome, Error> {
        let stale = sandbox::remove_stale(&std::env::temp_dir());
        if stale > 0 {
            progress.note(&format!(
                "mcpcheck sweep: removed {stale} temporary directories left by a sweep that was killed"
            ));
        }
        let clock = Instant::now();
        // One place for the whole sweep's installs, removed with it (or by the next sweep
        // if this one is killed); with --isolated-caches each entry installs in its own.
        let shared = if self.config.env_policy.isolated_caches {
            None
        } else {
            let dir = sandbox::Sandbox::create().map_err(|e| {
                Error::System(format!("cannot create the sweep's install directory: {e}"))
            })?;
            let root = dir.root().join("installs");
            std::fs::create_dir(&root).map_err(|e| {
                Error::System(format!("cannot create the sweep's install directory: {e}"))
            })?;
            let installs = crate::install::InstallCache::new(root, self.config.install_timeout);
            Some((dir, Arc::new(installs)))
        };
        let installs = shared.as_ref().map(|(_, i)| Arc::clone(i));
        progress.begin(
            self.to_run.len() as u64,
            self.skipped as u64,
            self.config.jobs,
        );
        let end = run::run(
            self.to_run,
            self.config,
            installs,
            &mut self.writer,
            progress,
        )
        .await;
        drop(shared);
        let end = end?;
        Ok(SweepOutcome {
            end,
            shard: self.shard,
            elapsed: clock.elapsed(),
        })
    }
}

/// Worker threads for a sweep of `jobs` servers: servers mostly wait, so no more than cores.
pub fn worker_threads(jobs: usize) -> usize {
    jobs.min(cores()).max(1)
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// Every setting checked before the first server starts.
fn validate(args: &SweepRequest, render: Renderers) -> Result<SweepConfig, Error> {
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
        tuning: args.tuning,
        profile: args.profile.clone(),
        config: args.config.clone(),
        setup_timeout: args.setup_timeout,
        install_timeout: Duration::from_millis(args.tuning.tuned().install_timeout),
        env_policy: EnvPolicy {
            pass: args.pass_env.clone(),
            isolated_caches: args.isolated_caches,
        },
        render,
        remote: args.remote,
        remote_allow_unsafe: args.remote_allow_unsafe,
    };
    // The guard's own checks of its settings, --profile and --config, once, before anything runs.
    crate::guard::options::check_shared(&config.guard_request())?;
    Ok(config)
}
