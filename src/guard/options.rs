//! Resolves what a guard run does: flags override the config file, which overrides the profile.

use super::config::{self, CommandSpec, PathList, ProbeSelection, RequestSpec, ToolCallSpec};
use super::profile::Profile;
use crate::error::Error;
use crate::finding::excerpt;
use crate::process::{ServerCommand, StdioLimits};
use crate::protocol::versions;
use crate::session::{PlannedRequest, SessionPlan};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::Duration;

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
}

const PYTHONUNBUFFERED: &str = "PYTHONUNBUFFERED";

/// How long the guard listens for late stdout after the last answer, by default.
pub const DEFAULT_SETTLE_MS: u64 = 300;
/// How long a server has to exit after stdin closes (and again after SIGTERM), by default.
pub const DEFAULT_SHUTDOWN_GRACE_MS: u64 = 2000;
/// Most pages followed per list method, by default.
pub const DEFAULT_MAX_LIST_PAGES: usize = 100;

/// What a caller asks of one guard run: the command line's flags, the sweep's per-server
/// settings or the Action's inputs. `None` and empty mean "from the config file, else the
/// profile, else the default".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuardRequest {
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
    pub timeout: Option<u64>,
    pub settle: u64,
    pub shutdown_grace: u64,
    pub max_stdout_line_bytes: Option<usize>,
    pub max_stdout_bytes: Option<u64>,
    pub max_stderr_bytes: Option<u64>,
    pub stderr_flood_bytes: Option<u64>,
    pub max_list_pages: usize,
    /// `--json`: the JSON report was asked for by name.
    pub json: bool,
    pub scan: Vec<PathBuf>,
    pub fail_on_static: bool,
    pub command: Vec<String>,
    /// `--url`: run the session over Streamable HTTP against this server.
    pub url: Option<String>,
    /// `--header NAME=VALUE` pairs for the remote server, as given (never printed).
    pub headers: Vec<String>,
}

impl Default for GuardRequest {
    fn default() -> Self {
        Self {
            config: None,
            profile: None,
            cwd: None,
            env: Vec::new(),
            protocol: None,
            protocol_matrix: false,
            requests: Vec::new(),
            params: Vec::new(),
            list_probes: false,
            no_list_probes: false,
            repeat: None,
            adversarial_probes: None,
            timeout: None,
            settle: DEFAULT_SETTLE_MS,
            shutdown_grace: DEFAULT_SHUTDOWN_GRACE_MS,
            max_stdout_line_bytes: None,
            max_stdout_bytes: None,
            max_stderr_bytes: None,
            stderr_flood_bytes: None,
            max_list_pages: DEFAULT_MAX_LIST_PAGES,
            json: false,
            scan: Vec::new(),
            fail_on_static: false,
            command: Vec::new(),
            url: None,
            headers: Vec::new(),
        }
    }
}

/// Most runs `--repeat` accepts: each is a full session.
const MAX_REPEAT: u32 = 20;

pub fn resolve(args: &GuardRequest) -> Result<GuardSettings, Error> {
    let loaded = args.config.as_deref().map(config::load).transpose()?;
    let (file, dir) = match &loaded {
        Some(l) => (Some(&l.config), Some(l.dir.clone())),
        None => (None, None),
    };
    let profile_name = args
        .profile
        .clone()
        .or_else(|| file.and_then(|f| f.profile.clone()));
    let profile = profile_name
        .as_deref()
        .map(Profile::parse)
        .transpose()?
        .unwrap_or(Profile::Custom);
    let defaults = profile.defaults();

    let http = super::remote::target(args)?;
    let command = match &http {
        Some(target) => super::remote::placeholder(target),
        None => server_command(args, file, dir.as_ref())?,
    };
    let protocol = args
        .protocol
        .clone()
        .or_else(|| file.and_then(|f| f.protocol.clone()))
        .unwrap_or_else(|| versions::DEFAULT_VERSION.to_string());
    if protocol != "auto" && !versions::is_known(&protocol) {
        return Err(Error::Usage(format!(
            "--protocol {:?} is not supported; use one of {} or auto",
            excerpt(&protocol, 40),
            versions::KNOWN_VERSIONS.join(", ")
        )));
    }
    let mut requests = cli_requests(args)?;
    let mut request_sources = vec![RequestSource::Cli; requests.len()];
    if let Some(f) = file {
        let from_file = f.request.iter().chain(f.requests.iter().flatten());
        // Flags come after the file's requests: they add, they do not replace.
        let mut merged: Vec<PlannedRequest> = from_file.map(planned).collect::<Result<_, _>>()?;
        let mut sources = vec![RequestSource::Config; merged.len()];
        sources.append(&mut request_sources);
        request_sources = sources;
        merged.append(&mut requests);
        requests = merged;
    }
    let safe_tool_calls = tool_calls(file.and_then(|f| f.safe_tool_calls.as_ref()));
    let adversarial_tool_calls = tool_calls(file.and_then(|f| f.adversarial_tool_calls.as_ref()));
    for call in &safe_tool_calls {
        requests.push(PlannedRequest {
            method: "tools/call".into(),
            params: Some(json!({"name": call.name, "arguments": call.arguments})),
        });
        request_sources.push(RequestSource::SafeToolCall);
    }
    let probes = match args
        .adversarial_probes
        .clone()
        .map(ProbeSelection::Keyword)
        .or_else(|| file.and_then(|f| f.adversarial_probes.clone()))
    {
        Some(selection) => probe_selection(&selection)?,
        None if defaults.all_probes => Probe::ALL.to_vec(),
        None => Vec::new(),
    };
    let repeat = args
        .repeat
        .or_else(|| file.and_then(|f| f.repeat))
        .unwrap_or(defaults.repeat);
    if !(1..=MAX_REPEAT).contains(&repeat) {
        return Err(Error::Usage(format!(
            "--repeat {repeat}: give 1 to {MAX_REPEAT} runs"
        )));
    }
    let probe_lists = if args.list_probes {
        true
    } else if args.no_list_probes {
        false
    } else {
        defaults.probe_lists
    };
    let timeout = args
        .timeout
        .or_else(|| file.and_then(|f| f.timeout_ms))
        .unwrap_or(5000);
    let default_limits = StdioLimits::default();
    let max_stdout_line_bytes = args
        .max_stdout_line_bytes
        .or_else(|| file.and_then(|f| f.max_stdout_line_bytes))
        .unwrap_or(default_limits.max_stdout_line_bytes);
    let limits = StdioLimits {
        max_stdout_line_bytes,
        soft_stdout_line_bytes: default_limits
            .soft_stdout_line_bytes
            .min(max_stdout_line_bytes),
        max_stdout_bytes: args
            .max_stdout_bytes
            .or_else(|| file.and_then(|f| f.max_stdout_bytes))
            .unwrap_or(default_limits.max_stdout_bytes),
        max_stderr_bytes: args
            .max_stderr_bytes
            .or_else(|| file.and_then(|f| f.max_stderr_bytes))
            .unwrap_or(default_limits.max_stderr_bytes),
        stderr_flood_bytes: args
            .stderr_flood_bytes
            .unwrap_or(default_limits.stderr_flood_bytes),
    };
    if timeout == 0 {
        return Err(Error::Usage("--timeout must be at least 1 ms".into()));
    }
    if limits.max_stdout_line_bytes == 0 || limits.max_stdout_bytes == 0 {
        return Err(Error::Usage("stdout limits must be at least 1 byte".into()));
    }
    if args.max_list_pages == 0 {
        return Err(Error::Usage("--max-list-pages must be at least 1".into()));
    }
    let prefers_json = args.json || file.and_then(|f| f.json).unwrap_or(defaults.json);
    let scan = match file.and_then(|f| f.scan.as_ref()) {
        _ if !args.scan.is_empty() => args.scan.clone(),
        Some(PathList::One(p)) => vec![relative_to(dir.as_ref(), p)],
        Some(PathList::Many(ps)) => ps.iter().map(|p| relative_to(dir.as_ref(), p)).collect(),
        None => Vec::new(),
    };
    if args.fail_on_static && scan.is_empty() {
        return Err(Error::Usage(
            "--fail-on-static applies to the source scan: add --scan PATH (or `scan` in the config)"
                .into(),
        ));
    }
    Ok(GuardSettings {
        progress: Default::default(),
        command,
        plan: SessionPlan {
            protocol,
            client_name: "mcpcheck".into(),
            client_version: env!("CARGO_PKG_VERSION").into(),
            probe_lists,
            requests,
            timeout: Duration::from_millis(timeout),
            settle: Duration::from_millis(args.settle),
            shutdown_grace: Duration::from_millis(args.shutdown_grace),
            max_list_pages: args.max_list_pages,
            limits,
            http,
        },
        profile,
        repeat,
        protocol_matrix: args.protocol_matrix,
        probes,
        safe_tool_calls,
        adversarial_tool_calls,
        wire_schema_errors: defaults.wire_schema_errors,
        fail_on_static: args.fail_on_static
            || file
                .and_then(|f| f.fail_on_static)
                .unwrap_or(defaults.fail_on_static),
        scan,
        prefers_json,
        config_contribution: file
            .map(|f| ConfigContribution::of(f, args))
            .unwrap_or_default(),
        config_file: loaded.map(|l| l.path),
        request_sources,
    })
}

fn relative_to(dir: Option<&PathBuf>, path: &std::path::Path) -> PathBuf {
    match dir {
        Some(d) if path.is_relative() => d.join(path),
        _ => path.to_path_buf(),
    }
}

fn server_command(
    args: &GuardRequest,
    file: Option<&config::GuardConfig>,
    dir: Option<&PathBuf>,
) -> Result<ServerCommand, Error> {
    let argv: Vec<String> = if !args.command.is_empty() {
        args.command.clone()
    } else {
        match file.and_then(|f| f.command.as_ref()) {
            Some(CommandSpec::Argv(v)) => v.clone(),
            Some(CommandSpec::Program(p)) => std::iter::once(p.clone())
                .chain(file.and_then(|f| f.args.clone()).unwrap_or_default())
                .collect(),
            None => Vec::new(),
        }
    };
    let Some((program, rest)) = argv.split_first() else {
        return Err(Error::Usage(
            "no server command: give it after `--` (for example `mcpcheck guard -- python3 server.py`) or as `command` in --config".into(),
        ));
    };
    if program.is_empty() {
        return Err(Error::Usage("the server command is empty".into()));
    }
    let cwd = args.cwd.clone().or_else(|| {
        file.and_then(|f| f.cwd.as_ref())
            .map(|c| relative_to(dir, c))
    });
    if let Some(d) = &cwd {
        if !d.is_dir() {
            return Err(Error::Usage(format!(
                "--cwd {}: not a directory; give an existing directory",
                d.display()
            )));
        }
    }
    let mut env: Vec<(String, String)> = Vec::new();
    for (key, value) in file.and_then(|f| f.env.clone()).unwrap_or_default() {
        let value = config::expand_env(&key, &value, |name| std::env::var(name).ok())?;
        env.push((key, value));
    }
    for kv in &args.env {
        match kv.split_once('=') {
            Some((k, v)) if !k.is_empty() => {
                env.retain(|(existing, _)| existing != k);
                env.push((k.to_string(), v.to_string()));
            }
            _ => {
                return Err(Error::Usage(format!(
                    "--env {:?}: expected KEY=VALUE",
                    excerpt(kv.split('=').next().unwrap_or(""), 40)
                )))
            }
        }
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

fn cli_requests(args: &GuardRequest) -> Result<Vec<PlannedRequest>, Error> {
    if args.params.len() > args.requests.len() {
        return Err(Error::Usage(format!(
            "{} --params given for {} --request; each --params belongs to the --request at the same position",
            args.params.len(),
            args.requests.len()
        )));
    }
    args.requests
        .iter()
        .enumerate()
        .map(|(i, method)| {
            if method.trim().is_empty() {
                return Err(Error::Usage(
                    "--request needs a method name, such as tools/list".into(),
                ));
            }
            let params = match args.params.get(i) {
                None => None,
                Some(raw) => match serde_json::from_str::<Value>(raw) {
                    Ok(v @ (Value::Object(_) | Value::Array(_))) => Some(v),
                    Ok(_) => {
                        return Err(Error::Usage(format!(
                            "--params for {method}: must be a JSON object or array"
                        )))
                    }
                    Err(e) => {
                        return Err(Error::Usage(format!(
                            "--params for {method}: invalid JSON ({e}); quote it, for example --params '{{\"name\":\"echo\"}}'"
                        )))
                    }
                },
            };
            Ok(PlannedRequest {
                method: method.clone(),
                params,
            })
        })
        .collect()
}

fn planned(spec: &RequestSpec) -> Result<PlannedRequest, Error> {
    let (method, params) = match spec {
        RequestSpec::Method(m) => (m.clone(), None),
        RequestSpec::Full(f) => (f.method.clone(), f.params.clone()),
    };
    if method.trim().is_empty() {
        return Err(Error::Usage(
            "config: a request needs a method name, such as tools/list".into(),
        ));
    }
    if matches!(&params, Some(p) if !p.is_object() && !p.is_array()) {
        return Err(Error::Usage(format!(
            "config: params of {method} must be a JSON object or array"
        )));
    }
    Ok(PlannedRequest { method, params })
}

fn tool_calls(specs: Option<&Vec<ToolCallSpec>>) -> Vec<ToolCall> {
    specs
        .into_iter()
        .flatten()
        .map(|s| ToolCall {
            name: s.name.clone(),
            arguments: if s.arguments.is_null() {
                json!({})
            } else {
                s.arguments.clone()
            },
        })
        .collect()
}

fn probe_selection(selection: &ProbeSelection) -> Result<Vec<Probe>, Error> {
    let names: Vec<String> = match selection {
        ProbeSelection::Keyword(k) if k == "all" => return Ok(Probe::ALL.to_vec()),
        ProbeSelection::Keyword(k) if k == "none" => return Ok(Vec::new()),
        ProbeSelection::Keyword(k) => k.split(',').map(|s| s.trim().to_string()).collect(),
        ProbeSelection::List(l) => l.clone(),
    };
    let mut probes = Vec::new();
    for name in names.iter().filter(|n| !n.is_empty()) {
        let probe = Probe::ALL
            .iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| {
                Error::Usage(format!(
                    "unknown adversarial probe {:?}; use all, none or some of {}",
                    excerpt(name, 40),
                    Probe::ALL.map(Probe::name).join(", ")
                ))
            })?;
        probes.push(*probe);
    }
    probes.sort_unstable();
    probes.dedup();
    Ok(probes)
}
