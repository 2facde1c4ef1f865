//! Runs the entries, up to `--jobs` guard runs at once, each in its own sandbox, and streams
//! each result to the results file as it finishes.

use super::line::{Line, LineOut, LineStatus, NotJudged};
use super::manifest::{Entry, EntryPlan, Launch};
use super::remote::{HeaderValue, Remote};
use super::results::ResultsWriter;
use super::sandbox::{EnvPolicy, Sandbox};
use super::shown::{self, Secrets, Shown};
use super::SweepProgress;
use crate::error::Error;
use crate::finding::{excerpt, Finding};
use crate::guard::{self, GuardRequest, GuardRun, GuardSettings};
use crate::install::command as setup;
use crate::install::{in_project, InstallCache, Installed};
use crate::process::ServerCommand;
use crate::verdict::{Status, Verdict};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};
use tokio::signal::unix::{signal, SignalKind};
use tokio::task::JoinSet;

/// Turns a finished guard run into the fields of its result line (the guard's JSON
/// contract), showing the server's command as given (each secret as `${NAME}`, as
/// `reproduce` names it, not the guard's `[REDACTED]`) when there is one; the command layer
/// supplies it, so the engine knows no renderer.
pub type LineRenderer = Arc<dyn Fn(&GuardRun, Option<&[String]>) -> Value + Send + Sync>;
/// Turns the findings of an entry that got no guard run (a failed install) into the
/// `summary` and `issues` fields of its line.
pub type FindingsRenderer = Arc<dyn Fn(&[Finding]) -> Value + Send + Sync>;

/// What the command layer renders with.
#[derive(Clone)]
pub struct Renderers {
    pub guard: LineRenderer,
    pub findings: FindingsRenderer,
}

/// What every entry shares.
#[derive(Clone)]
pub struct SweepConfig {
    pub jobs: usize,
    /// The guard's times and limits for every entry.
    pub tuning: crate::session::tuning::Tuning,
    pub profile: Option<String>,
    pub config: Option<PathBuf>,
    pub setup_timeout: Duration,
    pub install_timeout: Duration,
    pub env_policy: EnvPolicy,
    pub render: Renderers,
    /// `--remote`: guard remote entries over HTTP.
    pub remote: bool,
    /// `--remote-allow-unsafe`: dial private and metadata addresses too.
    pub remote_allow_unsafe: bool,
}

/// How the sweep ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SweepEnd {
    Finished,
    /// Stopped by SIGINT or SIGTERM; what finished is in the results file.
    Interrupted {
        signal: i32,
    },
}

pub async fn run(
    entries: Vec<Entry>,
    config: Arc<SweepConfig>,
    installs: Option<Arc<InstallCache>>,
    writer: &mut ResultsWriter,
    progress: &mut dyn SweepProgress,
) -> Result<SweepEnd, Error> {
    let signal_error = |e: std::io::Error| Error::System(format!("cannot watch for signals: {e}"));
    let mut sigint = signal(SignalKind::interrupt()).map_err(signal_error)?;
    let mut sigterm = signal(SignalKind::terminate()).map_err(signal_error)?;
    let mut ticker = tokio::time::interval(Duration::from_secs(1));
    let mut queue = entries.into_iter();
    let mut running: JoinSet<LineOut> = JoinSet::new();
    let mut ids: HashMap<tokio::task::Id, String> = HashMap::new();
    loop {
        while running.len() < config.jobs {
            let Some(entry) = queue.next() else { break };
            match entry.plan {
                EntryPlan::Launch(launch) => {
                    progress.started();
                    let installs = installs.clone();
                    let task = run_entry(entry.id.clone(), launch, Arc::clone(&config), installs);
                    ids.insert(running.spawn(task).id(), entry.id);
                }
                EntryPlan::Remote(remote) if config.remote => {
                    progress.started();
                    let task = run_remote(entry.id.clone(), remote, Arc::clone(&config));
                    ids.insert(running.spawn(task).id(), entry.id);
                }
                plan => {
                    let line = not_started(&entry.id, &plan);
                    writer.append(&line.json)?;
                    progress.finished(line.status);
                }
            }
        }
        if running.is_empty() {
            return Ok(SweepEnd::Finished);
        }
        tokio::select! {
            joined = running.join_next_with_id() => {
                let line = match joined {
                    Some(Ok((task, line))) => { ids.remove(&task); line }
                    Some(Err(e)) => {
                        let id = ids.remove(&e.id()).unwrap_or_default();
                        error_line(&id, SystemTime::now(), Instant::now(), "internal error: the check of this server stopped unexpectedly; please report it")
                    }
                    None => continue,
                };
                writer.append(&line.json)?;
                progress.finished(line.status);
            }
            _ = sigint.recv() => return Ok(interrupt(&mut running, 2).await),
            _ = sigterm.recv() => return Ok(interrupt(&mut running, 15).await),
            _ = ticker.tick() => progress.tick(),
        }
    }
}

/// Stops every running check: dropping a session kills its server's process group.
async fn interrupt(running: &mut JoinSet<LineOut>, signal: i32) -> SweepEnd {
    running.shutdown().await;
    SweepEnd::Interrupted { signal }
}

/// One server: sandbox, optional setup, its package's install, the guard run, the line,
/// with the entry's secrets in force from the start: what a setup, an installer or the
/// server repeats of them is shown as `${NAME}` before it is cut or kept.
async fn run_entry(
    id: String,
    launch: Launch,
    config: Arc<SweepConfig>,
    installs: Option<Arc<InstallCache>>,
) -> LineOut {
    let known = Arc::new(launch.secrets.known());
    crate::secrets::known::in_force(
        Arc::clone(&known),
        entry_line(id, launch, config, installs, known),
    )
    .await
}

async fn entry_line(
    id: String,
    launch: Launch,
    config: Arc<SweepConfig>,
    installs: Option<Arc<InstallCache>>,
    known: Arc<crate::secrets::KnownSecrets>,
) -> LineOut {
    let started_at = SystemTime::now();
    let clock = Instant::now();
    let sandbox = match Sandbox::create() {
        Ok(s) => s,
        Err(e) => {
            let why =
                format!("cannot create the server's temporary HOME and working directory: {e}");
            return error_line(&id, started_at, clock, &why);
        }
    };
    let base_env = sandbox.base_env(&config.env_policy);
    let entry_env = launch.env_values();
    let cwd = launch.cwd.clone().unwrap_or_else(|| sandbox.work());
    // What every line of this entry says beside its status.
    let mut fields = Line::new(&id, LineStatus::Judged(Status::Pass), started_at, clock);
    let passed = config.env_policy.passed(|k| std::env::var_os(k));
    fields.reproduce = Some(reproduce(&launch, &config, &passed));
    fields.runtime_note.clone_from(&launch.runtime_note);
    if let Some(argv) = &launch.setup {
        let command = ServerCommand {
            program: argv[0].clone(),
            args: argv[1..].to_vec(),
            cwd: Some(cwd.clone()),
            env: with_entry_env(&base_env, &entry_env),
            clear_env: true,
            unset_env: Vec::new(),
        };
        let outcome = setup::run(&command, config.setup_timeout, &known).await;
        fields.setup = Some(outcome.facts);
        if !outcome.ok {
            let line = Line {
                status: LineStatus::NotJudged(NotJudged::SetupFailed),
                reason: Some("the entry's setup command failed; the server was not started".into()),
                ..fields.timed(clock)
            };
            return line.with(Value::Null);
        }
    }
    let mut shown = launch.command.clone();
    let mut start_env: Vec<(String, String)> = Vec::new();
    let mut runtime_unmet: Option<String> = None;
    if let Some(install) = &launch.install {
        let own;
        let installs = match &installs {
            Some(shared) => shared.as_ref(),
            None => {
                let root = sandbox.root().join("installs");
                let _ = std::fs::create_dir(&root);
                own = InstallCache::new(root, config.install_timeout);
                &own
            }
        };
        let installed = match launch.cwd.as_deref().and_then(|d| in_project(install, d)) {
            Some(found) => found,
            None => installs.install(install, &base_env).await,
        };
        match installed {
            Installed::Ready {
                program,
                mut facts,
                launcher_env,
                runtime_unmet: unmet,
            } => {
                runtime_unmet = unmet;
                facts.set_program(&program);
                fields.install = Some(facts);
                match launcher_env {
                    // The entry's own command: its launcher finds the package installed.
                    Some(env) => start_env = env,
                    None => {
                        shown = std::iter::once(Shown::text(program.display().to_string()))
                            .chain(
                                launch.command[install.args_from.min(launch.command.len())..]
                                    .iter()
                                    .cloned(),
                            )
                            .collect();
                    }
                }
            }
            Installed::Failed { facts, finding } => {
                let line = Line {
                    status: LineStatus::NotJudged(NotJudged::InstallFailed),
                    reason: Some(finding.message.clone()),
                    install: Some(facts),
                    ..fields.timed(clock)
                };
                let issues = (config.render.findings)(std::slice::from_ref(&*finding));
                return line.with(issues);
            }
        }
    }
    let env = with_entry_env(&with_entry_env(&base_env, &start_env), &entry_env);
    let argv: Vec<String> = shown.iter().map(Shown::value).collect();
    let mut settings = match guard_settings(argv, &env, &cwd, &config) {
        Ok(s) => s,
        Err(e) => {
            let line = error_fields(&id, started_at, clock, e.message());
            return line.with(Value::Null);
        }
    };
    // Only the sandbox's environment reaches the server, never mcpcheck's own.
    settings.command.clear_env = true;
    // The entry's secrets, by their names (the sandbox's HOME and PATH are not secrets).
    settings.secrets = known;
    let run = guard::run(settings).await;
    let spec = launch
        .install
        .as_ref()
        .map_or("", |i| i.package.spec.as_str());
    let too_old = runtime_unmet
        .and_then(|unmet| crate::install::runtime_too_old(&run.findings, &unmet, spec));
    if let Some(finding) = too_old {
        drop(sandbox);
        let line = Line {
            status: LineStatus::NotJudged(NotJudged::InstallFailed),
            reason: Some(finding.message.clone()),
            ..fields.timed(clock)
        };
        return line.with((config.render.findings)(std::slice::from_ref(&finding)));
    }
    let shown: Vec<String> = shown.iter().map(Shown::display).collect();
    let doc = (config.render.guard)(&run, Some(&shown));
    drop(sandbox);
    let line = Line {
        status: LineStatus::Judged(Verdict::of(&run.findings).status),
        ..fields.timed(clock)
    };
    line.with(doc)
}

/// The command that reruns this one server alone: `mcpcheck guard` with the sweep's
/// settings and the entry's, each secret as `${NAME}` (export the named values first), and
/// each variable `--pass-env` gave it read by name from the replaying shell, as the sweep
/// read it from its own environment.
fn reproduce(launch: &Launch, config: &SweepConfig, passed: &[&str]) -> String {
    let secrets = &launch.secrets;
    let mut words = settings_words(config, secrets);
    if let Some(cwd) = &launch.cwd {
        words.push("--cwd".into());
        words.push(shown_word(secrets, cwd.display().to_string()));
    }
    let mut env: Vec<(&str, Shown)> = launch
        .env
        .iter()
        .map(|(name, value)| (name.as_str(), value.clone()))
        .collect();
    for name in passed
        .iter()
        .filter(|p| !launch.env.iter().any(|(n, _)| n == *p))
    {
        env.push((name, Shown::secret(&secrets.free_name(name), "")));
    }
    for (name, value) in env {
        let mut assignment = Shown::text(format!("{name}="));
        assignment.push(value);
        secrets.mark(&mut assignment);
        words.push("--env".into());
        words.push(assignment.shell_word());
    }
    words.push("--".into());
    words.extend(launch.command.iter().map(Shown::shell_word));
    words.join(" ")
}

/// `text` as one shell word, each secret in it read from its variable.
fn shown_word(secrets: &Secrets, text: String) -> String {
    let mut shown = Shown::text(text);
    secrets.mark(&mut shown);
    shown.shell_word()
}

/// `mcpcheck guard` and the sweep's own settings that every entry shares.
fn settings_words(config: &SweepConfig, secrets: &Secrets) -> Vec<String> {
    let shared = config.guard_request().setting_words();
    ["mcpcheck".to_string(), "guard".to_string()]
        .into_iter()
        .chain(shared.into_iter().map(|word| shown_word(secrets, word)))
        .collect()
}

/// One remote server's line, with the server.json name of the transport it was guarded as
/// beside the guard's own `transport` (what the session spoke: `http`, or `sse` after a
/// fallback).
async fn run_remote(id: String, remote: Remote, config: Arc<SweepConfig>) -> LineOut {
    let known = Arc::new(remote.secrets.known());
    crate::secrets::known::in_force(Arc::clone(&known), guard_remote(id, remote, config, known))
        .await
}

/// One remote server: its headers resolved, the connect policy of `guard --url`, the guard
/// run over HTTP, the result line with every header value masked.
async fn guard_remote(
    id: String,
    remote: Remote,
    config: Arc<SweepConfig>,
    known: Arc<crate::secrets::KnownSecrets>,
) -> LineOut {
    let started_at = SystemTime::now();
    let clock = Instant::now();
    let headers = match super::remote::resolve_headers(&remote.headers, &config.env_policy.pass) {
        Ok(h) => h,
        Err(missing) => {
            let line = Line {
                missing: Some(missing.clone()),
                remote_type: Some(remote.transport),
                ..Line::not_judged(&id, NotJudged::NeedsConfiguration, started_at, clock)
                    .reason(format!("required values not given: {}", missing.join(", ")))
            };
            return line.with(Value::Null);
        }
    };
    let request = GuardRequest {
        url: Some(remote.url.value()),
        headers: headers.iter().map(|(n, v)| format!("{n}={v}")).collect(),
        url_policy: guard::options::UrlPolicy {
            allow_unsafe: config.remote_allow_unsafe,
            hint: "add --remote-allow-unsafe to allow it",
        },
        ..config.guard_request()
    };
    // Name resolution (the policy's and the target's) blocks: off the runtime's workers.
    let prepared = tokio::task::spawn_blocking(move || guard::options::resolve(&request)).await;
    let settings = match prepared {
        Ok(Err(Error::Refused { why, .. })) => {
            let line = Line {
                remote_type: Some(remote.transport),
                ..Line::not_judged(&id, NotJudged::NotAsked, started_at, clock)
                    .reason(excerpt(&why, 500))
            };
            return line.with(Value::Null);
        }
        Ok(Ok(settings)) => settings,
        Ok(Err(e)) => return error_line(&id, started_at, clock, e.message()),
        Err(_) => {
            let why =
                "internal error: the remote's settings could not be prepared; please report it";
            return error_line(&id, started_at, clock, why);
        }
    };
    // The URL's secrets by their names, and every header value the run resolved.
    let mut secrets = (*known).clone();
    secrets.extend(&settings.secrets);
    let mut settings = settings;
    settings.secrets = Arc::new(secrets);
    let run = guard::run(settings).await;
    let doc = (config.render.guard)(&run, None);
    let line = Line {
        remote_type: Some(remote.transport),
        reproduce: Some(reproduce_remote(&remote, &config)),
        ..Line::new(
            &id,
            LineStatus::Judged(Verdict::of(&run.findings).status),
            started_at,
            clock,
        )
    };
    line.with(doc)
}

/// `mcpcheck guard --url` for one remote entry: each header's value as `${VAR}` (the
/// variable it comes from, or one named after the header).
fn reproduce_remote(remote: &Remote, config: &SweepConfig) -> String {
    let mut words = settings_words(config, &remote.secrets);
    words.extend(["--url".into(), remote.url.shell_word()]);
    for (name, value) in &remote.headers {
        let var = match value {
            HeaderValue::Env(var) => var.clone(),
            HeaderValue::Given(_) => shown::shell_name(name),
        };
        let mut header = Shown::text(format!("{name}="));
        header.push(Shown::secret(&var, ""));
        words.extend(["--header".into(), header.shell_word()]);
    }
    words.join(" ")
}

/// The sandbox's environment with the entry's on top (the entry wins on a shared name).
fn with_entry_env(base: &[(String, String)], entry: &[(String, String)]) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = base
        .iter()
        .filter(|(k, _)| !entry.iter().any(|(e, _)| e == k))
        .cloned()
        .collect();
    env.extend(entry.iter().cloned());
    env
}

/// The guard settings for one entry: exactly what `mcpcheck guard` would resolve from the
/// same flags, so a swept verdict equals a single run's.
pub fn guard_settings(
    command: Vec<String>,
    env: &[(String, String)],
    cwd: &Path,
    config: &SweepConfig,
) -> Result<GuardSettings, Error> {
    guard::options::resolve(&GuardRequest {
        cwd: Some(cwd.to_path_buf()),
        env: env.iter().map(|(k, v)| format!("{k}={v}")).collect(),
        command,
        // The sweep installs each entry's package itself, before its guard run (its
        // `reproduce` leaves that to the guard, as a user's run does).
        no_install: true,
        ..config.guard_request()
    })
}

impl SweepConfig {
    /// The guard settings every entry shares (the sweep's `--config`, `--profile` and the
    /// times and limits, named as those flags); an entry adds its command, variables and directory.
    pub fn guard_request(&self) -> GuardRequest {
        GuardRequest {
            front: guard::layers::Front::Flags,
            config: self.config.clone(),
            profile: self.profile.clone(),
            tuning: self.tuning,
            ..GuardRequest::default()
        }
    }
}

fn error_fields(id: &str, started_at: SystemTime, clock: Instant, why: &str) -> Line {
    Line::not_judged(id, NotJudged::SweepError, started_at, clock).reason(excerpt(why, 500))
}

fn error_line(id: &str, started_at: SystemTime, clock: Instant, why: &str) -> LineOut {
    error_fields(id, started_at, clock, why).with(Value::Null)
}

/// The line of an entry that is not started.
pub fn not_started(id: &str, plan: &EntryPlan) -> LineOut {
    let (now, clock) = (SystemTime::now(), Instant::now());
    let line = match plan {
        EntryPlan::NeedsConfiguration { reason, missing } => Line {
            missing: Some(missing.clone()),
            ..Line::not_judged(id, NotJudged::NeedsConfiguration, now, clock).reason(reason)
        },
        EntryPlan::NotAsked { reason } => {
            Line::not_judged(id, NotJudged::NotAsked, now, clock).reason(reason)
        }
        EntryPlan::Remote(remote) => Line {
            remote_type: Some(remote.transport),
            ..Line::not_judged(id, NotJudged::NotAsked, now, clock)
                .reason(super::remote::not_asked_reason(remote))
        },
        EntryPlan::Launch(_) => Line::not_judged(id, NotJudged::SweepError, now, clock)
            .reason("internal error: a launch was taken for an entry not started"),
    };
    line.with(Value::Null)
}
