//! `--live`: list each server through the session layer (a stdio server started in a
//! scrubbed environment, a remote one dialled as the connect policy allows) — its tools,
//! prompts, resources and templates, listing only — and keep the three states apart:
//! answered, could not connect (why), not asked (why).

use super::config_file::{ConfigFile, ServerEntry, Transport};
use super::live_remote::{self, RemoteTarget};
use super::secrets;
use crate::process::ServerCommand;
use crate::session::transcript::{ListKind, Outcome, Transcript};
use crate::session::tuning::Tuning;
use crate::session::{self, SessionPlan};
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// The only variables of the scanner's own environment a server gets.
pub const SAFE_ENV: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TZ",
    "TMPDIR",
    "TMP",
    "TEMP",
    "SYSTEMROOT",
    "SystemRoot",
    "WINDIR",
    "COMSPEC",
    "PATHEXT",
    "APPDATA",
    "LOCALAPPDATA",
    "USERPROFILE",
    "XDG_RUNTIME_DIR",
    "XDG_CACHE_HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
];

#[derive(Debug, Clone, Copy)]
pub struct LiveOptions {
    /// Hard limit for one server, from spawn to the end of shutdown.
    pub timeout: Duration,
    /// Dial private, link-local and metadata addresses, and cleartext with credentials.
    pub allow_unsafe: bool,
    /// Servers listed at the same time.
    pub jobs: usize,
}

/// The three states a server's live listing can be in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum LiveState {
    Answered,
    CouldNotConnect { reason: String },
    NotAsked { why: String },
}

impl LiveState {
    pub fn label(&self) -> &'static str {
        match self {
            LiveState::Answered => "answered",
            LiveState::CouldNotConnect { .. } => "could-not-connect",
            LiveState::NotAsked { .. } => "not-asked",
        }
    }

    /// `answered`, `could not connect: why`, `not asked: why`.
    pub fn describe(&self) -> String {
        match self {
            LiveState::Answered => "answered".into(),
            LiveState::CouldNotConnect { reason } => format!("could not connect: {reason}"),
            LiveState::NotAsked { why } => format!("not asked: {why}"),
        }
    }
}

/// What one server advertised (or why it was not listed). Surface rules read this.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveListing {
    pub server: String,
    /// The config file (as shown) and the entry's logical path, to find it again.
    pub config: String,
    pub pointer: String,
    pub state: LiveState,
    /// The server's `initialize` result object (its capabilities, `instructions`,
    /// `serverInfo`…), kept whole like the listed items and bounded as they are, by the
    /// transport's answer limit here and by the surface rules' own bounds when judged.
    pub initialize: Option<Value>,
    pub tools: Vec<Value>,
    pub prompts: Vec<Value>,
    pub resources: Vec<Value>,
    pub resource_templates: Vec<Value>,
    /// Lists that were not complete (an error, a timeout, a paging problem).
    pub incomplete: Vec<String>,
    /// Config env variables not passed because they only reference a value we do not have.
    pub withheld_env: Vec<String>,
}

impl LiveListing {
    pub fn new(file: &ConfigFile, entry: &ServerEntry, state: LiveState) -> Self {
        Self {
            server: entry.name.clone(),
            config: file.display.clone(),
            pointer: entry.pointer.clone(),
            state,
            initialize: None,
            tools: Vec::new(),
            prompts: Vec::new(),
            resources: Vec::new(),
            resource_templates: Vec::new(),
            incomplete: Vec::new(),
            withheld_env: Vec::new(),
        }
    }

    /// Every string the server sent, without `known`, once the rules have judged it.
    pub fn clean(&mut self, known: &crate::secrets::KnownSecrets) {
        if known.is_empty() {
            return;
        }
        for v in self
            .initialize
            .iter_mut()
            .chain(&mut self.tools)
            .chain(&mut self.prompts)
            .chain(&mut self.resources)
            .chain(&mut self.resource_templates)
        {
            known.clean_json(v);
        }
        if let LiveState::CouldNotConnect { reason } = &mut self.state {
            *reason = known.clean(reason);
        }
    }

    /// `serverInfo` from the initialize result.
    pub fn server_info(&self) -> Option<&Value> {
        self.initialize.as_ref()?.get("serverInfo")
    }

    pub fn items(&self, kind: ListKind) -> &[Value] {
        match kind {
            ListKind::Tools => &self.tools,
            ListKind::Prompts => &self.prompts,
            ListKind::Resources => &self.resources,
            ListKind::ResourceTemplates => &self.resource_templates,
        }
    }

    fn items_mut(&mut self, kind: ListKind) -> &mut Vec<Value> {
        match kind {
            ListKind::Tools => &mut self.tools,
            ListKind::Prompts => &mut self.prompts,
            ListKind::Resources => &mut self.resources,
            ListKind::ResourceTemplates => &mut self.resource_templates,
        }
    }
}

/// Finds a server's listing in constant time (configs can hold thousands of servers).
pub struct LiveIndex<'a> {
    map: std::collections::HashMap<(&'a str, &'a str), &'a LiveListing>,
}

impl<'a> LiveIndex<'a> {
    pub fn new(listings: &'a [LiveListing]) -> Self {
        Self {
            map: listings
                .iter()
                .map(|l| ((l.config.as_str(), l.pointer.as_str()), l))
                .collect(),
        }
    }

    pub fn get(&self, config: &str, pointer: &str) -> Option<&'a LiveListing> {
        self.map.get(&(config, pointer)).copied()
    }
}

/// The scrubbed environment: the safelist from ours, then the config's literal values.
/// Values that only reference something (`${TOKEN}`, `${input:x}`) are withheld, never
/// resolved from the scanner's environment.
pub fn server_env(
    entry: &ServerEntry,
    ours: &dyn Fn(&str) -> Option<String>,
) -> (Vec<(String, String)>, Vec<String>) {
    let mut env: Vec<(String, String)> = SAFE_ENV
        .iter()
        .filter_map(|k| ours(k).map(|v| (k.to_string(), v)))
        .collect();
    let mut withheld = Vec::new();
    for e in &entry.env {
        if secrets::without_references(&e.value.value) != e.value.value {
            withheld.push(e.name.clone());
            continue;
        }
        env.retain(|(k, _)| k != &e.name);
        env.push((e.name.clone(), e.value.value.clone()));
    }
    (env, withheld)
}

/// What to do for one server.
pub enum LiveTarget {
    Stdio(Box<ServerCommand>),
    Http(Box<RemoteTarget>),
    Skip(LiveState),
}

/// Decides how (and whether) to list one server.
pub fn plan(entry: &ServerEntry, opts: &LiveOptions) -> (LiveTarget, Vec<String>) {
    let skip = |why: &str| {
        (
            LiveTarget::Skip(LiveState::NotAsked { why: why.into() }),
            Vec::new(),
        )
    };
    if entry.disabled {
        return skip("disabled in the config");
    }
    match entry.transport {
        None => {
            skip("the entry is not understood (see invalid-server-entry and unknown-server-entry)")
        }
        Some(Transport::Stdio) => {
            let Some((program, args)) = super::entry_command::command_line(entry) else {
                return skip("no command");
            };
            let ours = |k: &str| std::env::var(k).ok();
            let (env, withheld) = server_env(entry, &ours);
            let cwd = entry.project_dir.clone().filter(|d| d.is_dir());
            let cmd = ServerCommand {
                program,
                args,
                cwd,
                env,
                clear_env: true,
                unset_env: Vec::new(),
            };
            (LiveTarget::Stdio(Box::new(cmd)), withheld)
        }
        // Streamable HTTP, or the legacy HTTP+SSE transport the entry names.
        Some(Transport::Http | Transport::Sse) => match live_remote::plan(entry, opts.allow_unsafe)
        {
            Ok((target, withheld)) => (LiveTarget::Http(Box::new(target)), withheld),
            Err(why) => skip(&why.0),
        },
    }
}

/// Lists every planned server, `opts.jobs` at a time, each within `opts.timeout`.
pub async fn list_all(
    planned: Vec<(LiveListing, LiveTarget)>,
    opts: LiveOptions,
) -> Vec<LiveListing> {
    crate::process::become_subreaper();
    let limit = Arc::new(tokio::sync::Semaphore::new(opts.jobs.max(1)));
    let mut set = tokio::task::JoinSet::new();
    let mut done = Vec::new();
    for (i, (listing, target)) in planned.into_iter().enumerate() {
        let limit = Arc::clone(&limit);
        match target {
            LiveTarget::Skip(state) => done.push((i, LiveListing { state, ..listing })),
            LiveTarget::Stdio(cmd) => {
                set.spawn(async move {
                    let _permit = limit.acquire_owned().await;
                    (i, list_stdio(listing, *cmd, opts).await)
                });
            }
            LiveTarget::Http(target) => {
                set.spawn(async move {
                    let _permit = limit.acquire_owned().await;
                    (i, list_remote(listing, *target, opts).await)
                });
            }
        }
    }
    while let Some(joined) = set.join_next().await {
        if let Ok(pair) = joined {
            done.push(pair);
        }
    }
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, l)| l).collect()
}

/// Listing only (never tools/call, prompts/get or resources/read), under the scan's
/// timeout, with no wait for late output and a short grace to exit.
fn session_plan(opts: &LiveOptions) -> SessionPlan {
    let tuning = Tuning {
        timeout: Some(u64::try_from(opts.timeout.as_millis()).unwrap_or(u64::MAX)),
        settle: Some(0),
        shutdown_grace: Some(500),
        ..Tuning::default()
    };
    tuning.tuned().plan(
        crate::protocol::versions::DEFAULT_VERSION.into(),
        true,
        Vec::new(),
        None,
    )
}

async fn list_stdio(listing: LiveListing, cmd: ServerCommand, opts: LiveOptions) -> LiveListing {
    let plan = session_plan(&opts);
    // Dropping the session on timeout kills the server's process group.
    match tokio::time::timeout(opts.timeout, session::run(&cmd, &plan)).await {
        Ok(t) => from_transcript(listing, &t),
        Err(_) => timed_out(listing, opts),
    }
}

/// Judges the addresses the name resolves to, then lists over the session's HTTP transport.
async fn list_remote(listing: LiveListing, target: RemoteTarget, opts: LiveOptions) -> LiveListing {
    let plan = SessionPlan {
        http: Some(target.session.clone()),
        ..session_plan(&opts)
    };
    // The deadline also bounds name resolution.
    let listed = tokio::time::timeout(opts.timeout, async move {
        let checked = tokio::task::spawn_blocking(move || (target.refusal(), target)).await;
        match checked {
            Ok((None, target)) => Ok(session::run(&target.placeholder(), &plan).await),
            Ok((Some(why), _)) => Err(LiveState::NotAsked { why }),
            Err(_) => Err(LiveState::CouldNotConnect {
                reason: "the address check stopped unexpectedly".into(),
            }),
        }
    })
    .await;
    match listed {
        Ok(Ok(t)) => from_transcript(listing, &t),
        Ok(Err(state)) => LiveListing { state, ..listing },
        Err(_) => timed_out(listing, opts),
    }
}

fn timed_out(listing: LiveListing, opts: LiveOptions) -> LiveListing {
    LiveListing {
        state: LiveState::CouldNotConnect {
            reason: format!(
                "no complete listing within {} ms (--live-timeout)",
                opts.timeout.as_millis()
            ),
        },
        ..listing
    }
}

fn from_transcript(mut listing: LiveListing, t: &Transcript) -> LiveListing {
    if let Some(e) = &t.process.spawn_error {
        listing.state = LiveState::CouldNotConnect {
            reason: crate::finding::excerpt(&format!("{e}"), 200),
        };
        return listing;
    }
    let Some(init) = t.initialize() else {
        listing.state = LiveState::CouldNotConnect {
            reason: "no initialize was sent".into(),
        };
        return listing;
    };
    let exit = t
        .process
        .exit
        .map(|e| e.describe())
        .unwrap_or_else(|| "no exit status".into());
    let reason = match &init.outcome {
        Outcome::Result(r @ Value::Object(_)) => {
            listing.initialize = Some(r.clone());
            None
        }
        Outcome::Result(_) => {
            Some("initialize returned a result that is not an object".to_string())
        }
        Outcome::Error(e) => Some(format!(
            "initialize failed with error {}: {}",
            e.code,
            crate::finding::excerpt(&e.message, 120)
        )),
        // A remote server has no process: what HTTP did says why.
        other if t.http.is_some() => Some(live_remote::initialize_unanswered(t, other)),
        Outcome::Timeout => Some("no answer to initialize in time".into()),
        Outcome::NoResponse => Some(format!(
            "the server stopped before answering initialize ({exit})"
        )),
        Outcome::SendFailed(_) => Some(format!("the server stopped reading its input ({exit})")),
        Outcome::Malformed(_) | Outcome::Pending => {
            Some("the answer to initialize was not valid JSON-RPC".into())
        }
        Outcome::NotSent { .. } => Some("initialize was not sent".into()),
        Outcome::RequestInstead { method } => Some(format!(
            "the server sent its own `{method}` request with initialize's id instead of answering"
        )),
    };
    if let Some(reason) = reason {
        listing.state = LiveState::CouldNotConnect { reason };
        return listing;
    }
    listing.state = LiveState::Answered;
    for probe in &t.lists {
        *listing.items_mut(probe.list) = probe.items.clone();
        let complete = probe
            .exchanges
            .iter()
            .all(|&i| matches!(t.exchanges[i].outcome, Outcome::Result(_)))
            && probe.paging_problem.is_none();
        if !complete {
            listing.incomplete.push(probe.list.method().to_string());
        }
    }
    listing
}
