//! The guard's settings as layers: defaults < profile < config file < the caller's request
//! (the command line's flags, the Action's inputs, a sweep's entry). Each layer holds only
//! what it sets, checked where it was written and named as its writer names it; `over`
//! stacks a nearer layer on a farther one. `options::resolve` is the only builder.

use super::config::{self, CommandSpec, GuardConfig, PathList, ProbeSelection, RequestSpec};
use super::options::{GuardRequest, Probe, RequestSource, ToolCall};
use super::profile::Profile;
use crate::error::Error;
use crate::finding::excerpt;
use crate::protocol::versions;
use crate::session::tuning::{Tuning, Writer};
use crate::session::PlannedRequest;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// Which front end wrote a request: how its errors name a setting.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Front {
    /// `mcpcheck guard` (and `mcpcheck sweep`, whose guard settings are the same flags).
    #[default]
    Flags,
    /// The GitHub Action's inputs.
    ActionInputs,
}

/// One guard setting, as the flags, the Action's inputs and the config file spell it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting {
    Profile,
    Cwd,
    Env,
    Protocol,
    Request,
    Params,
    Repeat,
    AdversarialProbes,
    Scan,
    FailOnStatic,
    Url,
    Header,
}

impl Setting {
    /// (flag, Action input, config file key); `-` where a front end has no such setting.
    fn spellings(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Setting::Profile => ("--profile", "profile", "profile"),
            Setting::Cwd => ("--cwd", "working_directory", "cwd"),
            Setting::Env => ("--env", "env", "env"),
            Setting::Protocol => ("--protocol", "protocol", "protocol"),
            Setting::Request => ("--request", "requests", "requests"),
            Setting::Params => ("--params", "-", "params"),
            Setting::Repeat => ("--repeat", "repeat", "repeat"),
            Setting::AdversarialProbes => ("--adversarial-probes", "-", "adversarialProbes"),
            Setting::Scan => ("--scan", "scan", "scan"),
            Setting::FailOnStatic => ("--fail-on-static", "-", "failOnStatic"),
            Setting::Url => ("--url", "url", "-"),
            Setting::Header => ("--header", "headers", "-"),
        }
    }
}

/// Who wrote a layer: a front end or the config file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Front(Front),
    ConfigFile,
}

impl Origin {
    /// The setting as this writer names it: `--repeat`, input `repeat`, config `repeat`.
    pub fn name(self, setting: Setting) -> String {
        let (flag, input, key) = setting.spellings();
        match self {
            Origin::Front(Front::ActionInputs) if input != "-" => format!("input `{input}`"),
            Origin::ConfigFile if key != "-" => format!("config `{key}`"),
            _ => flag.to_string(),
        }
    }

    /// The setting with the value given: `--repeat 25`, input `repeat` is 25.
    pub fn given(self, setting: Setting, value: impl std::fmt::Display) -> String {
        match self {
            Origin::Front(Front::Flags) => format!("{} {value}", self.name(setting)),
            _ => format!("{} is {value}", self.name(setting)),
        }
    }
}

impl From<Origin> for Writer {
    fn from(origin: Origin) -> Writer {
        match origin {
            Origin::Front(Front::Flags) => Writer::Flags,
            Origin::Front(Front::ActionInputs) => Writer::ActionInputs,
            Origin::ConfigFile => Writer::ConfigFile,
        }
    }
}

/// One layer of settings: `None` and empty mean "not set here".
#[derive(Debug, Clone, Default)]
pub struct Layer {
    pub profile: Option<Profile>,
    pub command: Option<Vec<String>>,
    pub cwd: Option<PathBuf>,
    pub env: Vec<(String, String)>,
    pub protocol: Option<String>,
    pub protocol_matrix: Option<bool>,
    pub requests: Vec<(PlannedRequest, RequestSource)>,
    pub safe_tool_calls: Option<Vec<ToolCall>>,
    pub adversarial_tool_calls: Option<Vec<ToolCall>>,
    pub probe_lists: Option<bool>,
    pub repeat: Option<u32>,
    pub probes: Option<Vec<Probe>>,
    pub tuning: Tuning,
    pub json: Option<bool>,
    pub scan: Option<Vec<PathBuf>>,
    pub fail_on_static: Option<bool>,
    pub wire_schema_errors: Option<bool>,
}

/// Most runs `--repeat` accepts: each is a full session.
const MAX_REPEAT: u32 = 20;

impl Layer {
    /// This layer over `below`: a value set here wins. Requests add up (below's first) and
    /// a variable set here replaces below's of the same name.
    pub fn over(self, below: Layer) -> Layer {
        let mut env: Vec<(String, String)> = below
            .env
            .into_iter()
            .filter(|(k, _)| !self.env.iter().any(|(mine, _)| mine == k))
            .collect();
        env.extend(self.env);
        let mut requests = below.requests;
        requests.extend(self.requests);
        Layer {
            profile: self.profile.or(below.profile),
            command: self.command.or(below.command),
            cwd: self.cwd.or(below.cwd),
            env,
            protocol: self.protocol.or(below.protocol),
            protocol_matrix: self.protocol_matrix.or(below.protocol_matrix),
            requests,
            safe_tool_calls: self.safe_tool_calls.or(below.safe_tool_calls),
            adversarial_tool_calls: self.adversarial_tool_calls.or(below.adversarial_tool_calls),
            probe_lists: self.probe_lists.or(below.probe_lists),
            repeat: self.repeat.or(below.repeat),
            probes: self.probes.or(below.probes),
            tuning: self.tuning.over(below.tuning),
            json: self.json.or(below.json),
            scan: self.scan.or(below.scan),
            fail_on_static: self.fail_on_static.or(below.fail_on_static),
            wire_schema_errors: self.wire_schema_errors.or(below.wire_schema_errors),
        }
    }

    /// The bottom layer: a value for every setting.
    pub fn defaults() -> Layer {
        Layer {
            profile: Some(Profile::Custom),
            protocol: Some(versions::DEFAULT_VERSION.to_string()),
            protocol_matrix: Some(false),
            safe_tool_calls: Some(Vec::new()),
            adversarial_tool_calls: Some(Vec::new()),
            tuning: Tuning::defaults(),
            scan: Some(Vec::new()),
            ..Profile::Custom.layer()
        }
    }

    /// What a caller asks for, checked and named as its front end names it.
    pub fn of_request(request: &GuardRequest) -> Result<Layer, Error> {
        let origin = Origin::Front(request.front);
        let layer = Layer {
            profile: request.profile.as_deref().map(Profile::parse).transpose()?,
            command: (!request.command.is_empty()).then(|| request.command.clone()),
            cwd: request.cwd.clone(),
            env: request
                .env
                .iter()
                .map(|kv| match kv.split_once('=') {
                    Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
                    _ => Err(Error::Usage(format!(
                        "{} {:?}: expected KEY=VALUE",
                        origin.name(Setting::Env),
                        excerpt(kv.split('=').next().unwrap_or(""), 40)
                    ))),
                })
                .collect::<Result<_, _>>()?,
            protocol: request.protocol.clone(),
            protocol_matrix: request.protocol_matrix.then_some(true),
            requests: requests_of(request, origin)?
                .into_iter()
                .map(|r| (r, RequestSource::Cli))
                .collect(),
            probe_lists: match (request.list_probes, request.no_list_probes) {
                (true, _) => Some(true),
                (_, true) => Some(false),
                _ => None,
            },
            repeat: request.repeat,
            probes: request
                .adversarial_probes
                .clone()
                .map(|k| probe_selection(&ProbeSelection::Keyword(k), origin))
                .transpose()?,
            tuning: request.tuning,
            json: request.json.then_some(true),
            scan: (!request.scan.is_empty()).then(|| request.scan.clone()),
            fail_on_static: request.fail_on_static.then_some(true),
            ..Layer::default()
        };
        layer.check(origin)?;
        Ok(layer)
    }

    /// What the config file at `dir` sets; its relative paths are relative to `dir`.
    pub fn of_file(file: &GuardConfig, dir: &Path) -> Result<Layer, Error> {
        let origin = Origin::ConfigFile;
        let mut env = Vec::new();
        for (key, value) in file.env.iter().flatten() {
            let value = config::expand_env(key, value, |name| std::env::var(name).ok())?;
            env.push((key.clone(), value));
        }
        let requests = file
            .request
            .iter()
            .chain(file.requests.iter().flatten())
            .map(|spec| planned(spec).map(|r| (r, RequestSource::Config)))
            .collect::<Result<_, _>>()?;
        let layer = Layer {
            profile: file.profile.as_deref().map(Profile::parse).transpose()?,
            command: file.command.as_ref().map(|spec| match spec {
                CommandSpec::Argv(v) => v.clone(),
                CommandSpec::Program(p) => std::iter::once(p.clone())
                    .chain(file.args.clone().unwrap_or_default())
                    .collect(),
            }),
            cwd: file.cwd.as_ref().map(|c| dir.join(c)),
            env,
            protocol: file.protocol.clone(),
            requests,
            safe_tool_calls: file.safe_tool_calls.as_ref().map(|s| tool_calls(s)),
            adversarial_tool_calls: file.adversarial_tool_calls.as_ref().map(|s| tool_calls(s)),
            repeat: file.repeat,
            probes: file
                .adversarial_probes
                .as_ref()
                .map(|s| probe_selection(s, origin))
                .transpose()?,
            tuning: file.tuning,
            json: file.json,
            scan: file.scan.as_ref().map(|list| match list {
                PathList::One(p) => vec![dir.join(p)],
                PathList::Many(ps) => ps.iter().map(|p| dir.join(p)).collect(),
            }),
            fail_on_static: file.fail_on_static,
            ..Layer::default()
        };
        layer.check(origin)?;
        Ok(layer)
    }

    /// Every value this layer sets is one the guard can run with.
    fn check(&self, origin: Origin) -> Result<(), Error> {
        if let Some(protocol) = &self.protocol {
            if protocol != "auto" && !versions::is_known(protocol) {
                return Err(Error::Usage(format!(
                    "{}: not a supported version; use one of {} or auto",
                    origin.given(Setting::Protocol, format!("{:?}", excerpt(protocol, 40))),
                    versions::KNOWN_VERSIONS.join(", ")
                )));
            }
        }
        if let Some(repeat) = self.repeat.filter(|r| !(1..=MAX_REPEAT).contains(r)) {
            return Err(Error::Usage(format!(
                "{}: give 1 to {MAX_REPEAT} runs",
                origin.given(Setting::Repeat, repeat)
            )));
        }
        self.tuning.check(origin.into())?;
        if let Some(dir) = self.cwd.as_ref().filter(|d| !d.is_dir()) {
            return Err(Error::Usage(format!(
                "{}: not a directory; give an existing directory",
                origin.given(Setting::Cwd, dir.display())
            )));
        }
        Ok(())
    }
}

impl Profile {
    /// What this profile sets when nothing nearer does.
    pub fn layer(self) -> Layer {
        let d = self.defaults();
        Layer {
            probe_lists: Some(d.probe_lists),
            repeat: Some(d.repeat),
            json: Some(d.json),
            fail_on_static: Some(d.fail_on_static),
            probes: Some(if d.all_probes {
                Probe::ALL.to_vec()
            } else {
                Vec::new()
            }),
            wire_schema_errors: Some(d.wire_schema_errors),
            ..Layer::default()
        }
    }
}

/// The `--request`s of a front end, each with the `--params` at the same position.
fn requests_of(request: &GuardRequest, origin: Origin) -> Result<Vec<PlannedRequest>, Error> {
    let (flag, params_flag) = (origin.name(Setting::Request), origin.name(Setting::Params));
    if request.params.len() > request.requests.len() {
        return Err(Error::Usage(format!(
            "{} {params_flag} given for {} {flag}; each {params_flag} belongs to the {flag} at the same position",
            request.params.len(),
            request.requests.len()
        )));
    }
    request
        .requests
        .iter()
        .enumerate()
        .map(|(i, method)| {
            if method.trim().is_empty() {
                return Err(Error::Usage(format!(
                    "{flag} needs a method name, such as tools/list"
                )));
            }
            let params = match request.params.get(i) {
                None => None,
                Some(raw) => match serde_json::from_str::<Value>(raw) {
                    Ok(v @ (Value::Object(_) | Value::Array(_))) => Some(v),
                    Ok(_) => {
                        return Err(Error::Usage(format!(
                            "{params_flag} for {method}: must be a JSON object or array"
                        )))
                    }
                    Err(e) => {
                        return Err(Error::Usage(format!(
                            "{params_flag} for {method}: invalid JSON ({e}); quote it, for example {params_flag} '{{\"name\":\"echo\"}}'"
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

fn tool_calls(specs: &[config::ToolCallSpec]) -> Vec<ToolCall> {
    specs
        .iter()
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

fn probe_selection(selection: &ProbeSelection, origin: Origin) -> Result<Vec<Probe>, Error> {
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
                    "{}: no such adversarial probe; use all, none or some of {}",
                    origin.given(
                        Setting::AdversarialProbes,
                        format!("{:?}", excerpt(name, 40))
                    ),
                    Probe::ALL.map(Probe::name).join(", ")
                ))
            })?;
        probes.push(*probe);
    }
    probes.sort_unstable();
    probes.dedup();
    Ok(probes)
}
