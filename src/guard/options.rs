//! What a guard run is asked (`GuardRequest`) and what it runs with (`GuardSettings`),
//! resolved through the layers of `layers`: request over config file over profile over defaults.

use super::config::{self, ProbeSelection, RequestSpec, ToolCallSpec};
use super::layers::{Layer, Origin, Setting};
use super::profile::Profile;
use crate::error::Error;
use crate::process::ServerCommand;
use crate::session::{PlannedRequest, SessionPlan};
use serde_json::{json, Value};
use std::path::PathBuf;

/// The adversarial probes, by the names users give them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Probe {
    InvalidMethod,
    InvalidParams,
    Notification,
    MalformedJson,
    UnknownCancel,
    PingBeforeInitialize,
    BogusVersion,
    DuplicateId,
}

impl Probe {
    pub const ALL: [Probe; 8] = [
        Probe::InvalidMethod,
        Probe::InvalidParams,
        Probe::Notification,
        Probe::MalformedJson,
        Probe::UnknownCancel,
        Probe::PingBeforeInitialize,
        Probe::BogusVersion,
        Probe::DuplicateId,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Probe::InvalidMethod => "invalid-method",
            Probe::InvalidParams => "invalid-params",
            Probe::Notification => "notification",
            Probe::MalformedJson => "malformed-json",
            Probe::UnknownCancel => "unknown-cancel",
            Probe::PingBeforeInitialize => "ping-before-initialize",
            Probe::BogusVersion => "bogus-version",
            Probe::DuplicateId => "duplicate-id",
        }
    }
}

/// A `tools/call` recipe from the config file.
#[derive(Debug, Clone)]
pub struct ToolCall {
    pub name: String,
    pub arguments: Value,
}

/// Where an explicit request of the plan came from, for the report's `operations`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestSource {
    Cli,
    Config,
    SafeToolCall,
}

impl RequestSource {
    pub fn as_str(self) -> &'static str {
        match self {
            RequestSource::Cli => "cli-request",
            RequestSource::Config => "config-request",
            RequestSource::SafeToolCall => "safe-tool-call",
        }
    }
}

/// What the config file contributed (names only, never values), for the report's `config`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigContribution {
    pub command: bool,
    pub cwd: bool,
    pub env_names: Vec<String>,
    pub requests: Vec<String>,
    pub safe_tool_calls: Vec<String>,
    pub adversarial_probes: Vec<String>,
    pub adversarial_tool_calls: Vec<String>,
}

impl ConfigContribution {
    fn of(file: &config::GuardConfig, args: &GuardRequest) -> Self {
        let names = |calls: &Option<Vec<ToolCallSpec>>| -> Vec<String> {
            calls.iter().flatten().map(|c| c.name.clone()).collect()
        };
        Self {
            command: args.command.is_empty() && file.command.is_some(),
            cwd: args.cwd.is_none() && file.cwd.is_some(),
            env_names: file.env.iter().flatten().map(|(k, _)| k.clone()).collect(),
            requests: file
                .request
                .iter()
                .chain(file.requests.iter().flatten())
                .map(|r| match r {
                    RequestSpec::Method(m) => m.clone(),
                    RequestSpec::Full(f) => f.method.clone(),
                })
                .collect(),
            safe_tool_calls: names(&file.safe_tool_calls),
            adversarial_probes: match &file.adversarial_probes {
                Some(ProbeSelection::Keyword(k)) => vec![k.clone()],
                Some(ProbeSelection::List(l)) => l.clone(),
                None => Vec::new(),
            },
            adversarial_tool_calls: names(&file.adversarial_tool_calls),
        }
    }
}

/// Everything a guard run needs, resolved and validated before anything is spawned.
#[derive(Debug, Clone)]
pub struct GuardSettings {
    pub command: ServerCommand,
    pub plan: SessionPlan,
    pub profile: Profile,
    pub repeat: u32,
    pub protocol_matrix: bool,
    pub probes: Vec<Probe>,
    pub safe_tool_calls: Vec<ToolCall>,
    pub adversarial_tool_calls: Vec<ToolCall>,
    pub wire_schema_errors: bool,
    pub fail_on_static: bool,
    pub scan: Vec<PathBuf>,
    /// The config file or the profile asks for the JSON report unless a format is named.
    pub prefers_json: bool,
    pub config_file: Option<PathBuf>,
    pub config_contribution: ConfigContribution,
    /// Where each of `plan.requests` came from, in the same order.
    pub request_sources: Vec<RequestSource>,
    /// Told of every finished session; the command layer draws it on a terminal.
    pub progress: super::progress::ProgressSink,
    /// The values given to the server (its variables, the headers, a URL's password): no
    /// output of the run shows them.
    pub secrets: std::sync::Arc<crate::secrets::KnownSecrets>,
    /// The package the command's launcher fetches (`npx -y x@1`, `uvx x==1`), installed
    /// before the first session; none over HTTP, with `no_install`, or for another command.
    pub install: Option<crate::install::InstallPlan>,
}

const PYTHONUNBUFFERED: &str = "PYTHONUNBUFFERED";

pub use super::layers::Front;

/// What a caller asks of one guard run: the command line's flags, the Action's inputs or a
/// sweep's entry. `None` and empty mean "from the config file, else the profile, else the
/// default" (see `layers`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GuardRequest {
    /// Who asks: how an error names a setting (`--repeat`, input `repeat`).
    pub front: Front,
    pub config: Option<PathBuf>,
    pub profile: Option<String>,
    pub cwd: Option<PathBuf>,
    /// `KEY=VALUE` pairs, as given.
    pub env: Vec<String>,
    pub protocol: Option<String>,
    pub protocol_matrix: bool,
    pub requests: Vec<String>,
    pub params: Vec<String>,
    pub list_probes: bool,
    pub no_list_probes: bool,
    pub repeat: Option<u32>,
    pub adversarial_probes: Option<String>,
    /// The times and limits asked for (see `tuning`).
    pub tuning: crate::session::tuning::Tuning,
    /// `--json`: the JSON report was asked for by name.
    pub json: bool,
    pub scan: Vec<PathBuf>,
    pub fail_on_static: bool,
    pub command: Vec<String>,
    /// `--url`: run the session over Streamable HTTP against this server.
    pub url: Option<String>,
    /// `--header NAME=VALUE` pairs for the remote server, as given (never printed).
    pub headers: Vec<String>,
    /// Which addresses `url` may dial.
    pub url_policy: UrlPolicy,
    /// Start the command as given: its launcher installs the server during the session.
    pub no_install: bool,
}

impl GuardRequest {
    /// The flags of what this request asks of every run, as `mcpcheck guard` spells them
    /// (reading them back gives the same settings): config, profile, protocol, times and
    /// limits, repeat, cwd, requests, scan paths, probes and switches. Not the server — its
    /// URL, headers, variables and command — which each front shows its own way (redacted,
    /// or as `${NAME}`).
    pub fn setting_words(&self) -> Vec<String> {
        let mut words = Vec::new();
        let mut flag = |name: &str, value: Option<String>| {
            if let Some(value) = value {
                words.push(format!("--{name}"));
                words.push(value);
            }
        };
        let path = |p: &Option<PathBuf>| p.as_ref().map(|p| p.display().to_string());
        flag("config", path(&self.config));
        flag("profile", self.profile.clone());
        flag("protocol", self.protocol.clone());
        for pair in self.tuning.argv().chunks(2) {
            flag(pair[0].trim_start_matches("--"), pair.get(1).cloned());
        }
        flag("repeat", self.repeat.map(|n| n.to_string()));
        flag("cwd", path(&self.cwd));
        for (i, method) in self.requests.iter().enumerate() {
            flag("request", Some(method.clone()));
            flag("params", self.params.get(i).cloned());
        }
        for p in &self.scan {
            flag("scan", Some(p.display().to_string()));
        }
        flag("adversarial-probes", self.adversarial_probes.clone());
        for (on, name) in [
            (self.protocol_matrix, "--protocol-matrix"),
            (self.list_probes, "--list-probes"),
            (self.no_list_probes, "--no-list-probes"),
            (self.json, "--json"),
            (self.fail_on_static, "--fail-on-static"),
            (self.url_policy.allow_unsafe, "--url-allow-unsafe"),
            (self.no_install, "--no-install"),
        ] {
            if on {
                words.push(name.to_string());
            }
        }
        words
    }
}

/// Which addresses a guard over HTTP may dial: loopback and public ones, unless the caller
/// allows more; a refusal ends with how to allow it, as the front spells that.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UrlPolicy {
    pub allow_unsafe: bool,
    /// How to allow a refused address, or why it cannot be.
    pub hint: &'static str,
}

impl Default for UrlPolicy {
    fn default() -> Self {
        Self {
            allow_unsafe: false,
            hint: "pass --url-allow-unsafe to allow it",
        }
    }
}

impl UrlPolicy {
    /// Judges the target's addresses (resolving its name: blocking) and sets the policy its
    /// later dials (authorization metadata on another origin) follow; the refusal, if any.
    fn apply(&self, target: &mut crate::session::http::HttpTarget) -> Option<String> {
        let policy = crate::net::policy::ConnectPolicy {
            allow_unsafe: self.allow_unsafe,
            resolve_names: true,
            hint: self.hint,
        };
        let refusal = policy.target_refusal(target);
        target.dial_policy = Some(policy.dial_policy());
        refusal
    }
}

/// A request's layers stacked, every value checked, the config file read.
struct Layered {
    all: Layer,
    loaded: Option<config::LoadedConfig>,
    profile: Profile,
}

fn layered(args: &GuardRequest) -> Result<Layered, Error> {
    let mine = Layer::of_request(args)?;
    let loaded = args.config.as_deref().map(config::load).transpose()?;
    let file = loaded
        .as_ref()
        .map(|l| Layer::of_file(&l.config, &l.dir))
        .transpose()?
        .unwrap_or_default();
    let profile = mine.profile.or(file.profile).unwrap_or(Profile::Custom);
    let fail_on_static_asked = mine.fail_on_static == Some(true);
    let all = mine
        .over(file)
        .over(profile.layer())
        .over(Layer::defaults());
    if fail_on_static_asked && all.scan.as_ref().is_none_or(Vec::is_empty) {
        return Err(Error::Usage(format!(
            "{} applies to the source scan: add {} PATH (or `scan` in the config)",
            Origin::Front(args.front).name(Setting::FailOnStatic),
            Origin::Front(args.front).name(Setting::Scan),
        )));
    }
    Ok(Layered {
        all,
        loaded,
        profile,
    })
}

/// Checks every setting a request gives, with its config file, without a server to run:
/// the settings a sweep applies to every entry, before any entry runs.
pub fn check_shared(args: &GuardRequest) -> Result<(), Error> {
    layered(args).map(|_| ())
}

/// The one builder of guard settings: the request over the config file over the profile over
/// the defaults, every value checked where it was written, before anything is spawned.
pub fn resolve(args: &GuardRequest) -> Result<GuardSettings, Error> {
    let Layered {
        all,
        loaded,
        profile,
    } = layered(args)?;
    let tuned = all.tuning.tuned();
    let scan = all.scan.clone().unwrap_or_default();
    let mut http = super::remote::target(args)?;
    if let Some(why) = http.as_mut().and_then(|t| args.url_policy.apply(t)) {
        return Err(Error::Refused {
            message: format!("{}: {why}", Origin::Front(args.front).name(Setting::Url)),
            why,
        });
    }
    let command = match &http {
        Some(target) => super::remote::placeholder(target),
        None => server_command(all.command, all.cwd, all.env)?,
    };
    let safe_tool_calls = all.safe_tool_calls.unwrap_or_default();
    let (mut requests, mut request_sources): (Vec<PlannedRequest>, Vec<RequestSource>) =
        all.requests.into_iter().unzip();
    for call in &safe_tool_calls {
        requests.push(PlannedRequest {
            method: "tools/call".into(),
            params: Some(json!({"name": call.name, "arguments": call.arguments})),
        });
        request_sources.push(RequestSource::SafeToolCall);
    }
    let secrets = std::sync::Arc::new(given_secrets(&command, args));
    let install = match &http {
        Some(_) => None,
        None if args.no_install => None,
        None => {
            let argv: Vec<String> = std::iter::once(command.program.clone())
                .chain(command.args.iter().cloned())
                .collect();
            crate::install::Install::of_launcher_command(&argv).map(|install| {
                crate::install::InstallPlan {
                    install,
                    timeout: std::time::Duration::from_millis(tuned.install_timeout),
                }
            })
        }
    };
    Ok(GuardSettings {
        install,
        secrets,
        progress: Default::default(),
        command,
        plan: tuned.plan(
            all.protocol.unwrap_or_default(),
            all.probe_lists.unwrap_or(true),
            requests,
            http,
        ),
        profile,
        repeat: all.repeat.unwrap_or(1),
        protocol_matrix: all.protocol_matrix.unwrap_or(false),
        probes: all.probes.unwrap_or_default(),
        safe_tool_calls,
        adversarial_tool_calls: all.adversarial_tool_calls.unwrap_or_default(),
        wire_schema_errors: all.wire_schema_errors.unwrap_or(false),
        fail_on_static: all.fail_on_static.unwrap_or(false),
        scan,
        prefers_json: all.json.unwrap_or(false),
        config_contribution: loaded
            .as_ref()
            .map(|l| ConfigContribution::of(&l.config, args))
            .unwrap_or_default(),
        config_file: loaded.map(|l| l.path),
        request_sources,
    })
}

/// Every value the run gives the server by name: its variables (`--env`, the config's
/// `env`, the Action's), the `--header` values and the `--url`'s password.
fn given_secrets(command: &ServerCommand, args: &GuardRequest) -> crate::secrets::KnownSecrets {
    let mut known = crate::secrets::KnownSecrets::new();
    let mask = crate::secrets::known::MASK;
    command.env.iter().for_each(|(_, v)| known.add(v, mask));
    for h in &args.headers {
        if let Some((_, v)) = h.split_once('=') {
            known.add(v.trim(), mask);
        }
    }
    if let Some(url) = &args.url {
        for span in crate::secrets::url_passwords(url) {
            known.add(&url[span], mask);
        }
    }
    known
}

/// The server's command from the merged layers, with its variables.
fn server_command(
    argv: Option<Vec<String>>,
    cwd: Option<PathBuf>,
    env: Vec<(String, String)>,
) -> Result<ServerCommand, Error> {
    let argv = argv.unwrap_or_default();
    let Some((program, rest)) = argv.split_first() else {
        return Err(Error::Usage(
            "no server command: give it after `--` (for example `mcpcheck guard -- python3 server.py`) or as `command` in --config".into(),
        ));
    };
    if program.is_empty() {
        return Err(Error::Usage("the server command is empty".into()));
    }
    Ok(ServerCommand {
        program: program.clone(),
        args: rest.to_vec(),
        cwd,
        // Clients do not set it, and inherited from a shell it hides block-buffered stdout.
        unset_env: if env.iter().any(|(k, _)| k == PYTHONUNBUFFERED) {
            Vec::new()
        } else {
            vec![PYTHONUNBUFFERED.to_string()]
        },
        env,
        clear_env: false,
    })
}
