//! The initialize handshake: is the result one a client can use?

use super::{Check, CheckContext};
use crate::catalog::Code;
use crate::finding::{excerpt, Finding, Location};
use crate::protocol::versions;
use crate::session::transcript::{Outcome, Phase, Transcript};
use serde_json::Value;

pub struct Initialize;

/// Capabilities whose value the schema defines as an object, with their boolean flags.
const KNOWN_CAPABILITIES: &[(&str, &[&str])] = &[
    ("tools", &["listChanged"]),
    ("prompts", &["listChanged"]),
    ("resources", &["subscribe", "listChanged"]),
    ("logging", &[]),
    ("completions", &[]),
    ("experimental", &[]),
    ("tasks", &[]),
];

impl Check for Initialize {
    fn name(&self) -> &'static str {
        "initialize"
    }

    fn codes(&self) -> &'static [Code] {
        &[
            Code::InitializeError,
            Code::InitializeInvalidResult,
            Code::InitializeMissingProtocolVersion,
            Code::InitializeInvalidProtocolVersion,
            Code::InitializeMissingCapabilities,
            Code::InitializeInvalidCapabilities,
            Code::InitializeMissingServerInfo,
            Code::InitializeInvalidServerInfo,
            Code::DiscoverError,
            Code::DiscoverInvalidResult,
            Code::ServerRequestBeforeInitialized,
        ]
    }

    fn run(&self, cx: &CheckContext<'_>, out: &mut Vec<Finding>) {
        early_server_requests(cx.transcript, out);
        let Some(init) = cx.transcript.initialize() else {
            discover(cx.transcript, out);
            return;
        };
        let mut location = Location::request("initialize");
        location.stdout_line = init.answer_line;
        let at = |f: Finding| f.at(location.clone());
        let result = match &init.outcome {
            Outcome::Error(e) => {
                out.push(at(Finding::new(
                    Code::InitializeError,
                    format!(
                        "initialize was answered with error {}: {}",
                        e.code,
                        excerpt(&e.message, 200)
                    ),
                )));
                return;
            }
            Outcome::Result(Value::Object(r)) => r,
            Outcome::Result(other) => {
                out.push(at(Finding::new(
                    Code::InitializeInvalidResult,
                    format!(
                        "The initialize result is {}, not an object.",
                        json_kind(other)
                    ),
                )));
                return;
            }
            _ => return,
        };
        match result.get("protocolVersion") {
            None => out.push(at(Finding::new(
                Code::InitializeMissingProtocolVersion,
                "The initialize result has no protocolVersion.",
            ))),
            Some(Value::String(v)) if versions::is_known(v) => {}
            Some(Value::String(v)) => {
                let detail = if versions::looks_like_version(v) {
                    "unknown-version"
                } else {
                    "not-a-version"
                };
                out.push(at(Finding::new(
                    Code::InitializeInvalidProtocolVersion,
                    format!(
                        "The server negotiated protocolVersion {:?}, which is not a published MCP revision (known: {}).",
                        excerpt(v, 40),
                        versions::KNOWN_VERSIONS.join(", ")
                    ),
                ))
                .detail(detail));
            }
            Some(other) => out.push(
                at(Finding::new(
                    Code::InitializeInvalidProtocolVersion,
                    format!("protocolVersion is {}, not a string.", json_kind(other)),
                ))
                .detail("not-a-string"),
            ),
        }
        match result.get("capabilities") {
            None => out.push(at(Finding::new(
                Code::InitializeMissingCapabilities,
                "The initialize result has no capabilities.",
            ))),
            Some(Value::Object(caps)) => {
                for problem in capability_problems(caps) {
                    out.push(at(Finding::new(
                        Code::InitializeInvalidCapabilities,
                        problem,
                    )));
                }
            }
            Some(other) => out.push(at(Finding::new(
                Code::InitializeInvalidCapabilities,
                format!("capabilities is {}, not an object.", json_kind(other)),
            ))),
        }
        match result.get("serverInfo") {
            None => out.push(at(Finding::new(
                Code::InitializeMissingServerInfo,
                "The initialize result has no serverInfo.",
            ))),
            Some(Value::Object(info)) => {
                let name_ok = info.get("name").is_some_and(Value::is_string);
                let version_ok = info.get("version").is_some_and(Value::is_string);
                if !name_ok || !version_ok {
                    let missing: Vec<&str> = [("name", name_ok), ("version", version_ok)]
                        .iter()
                        .filter(|(_, ok)| !ok)
                        .map(|(k, _)| *k)
                        .collect();
                    out.push(at(Finding::new(
                        Code::InitializeInvalidServerInfo,
                        format!(
                            "serverInfo lacks a string {}.",
                            missing.join(" and a string ")
                        ),
                    )));
                }
            }
            Some(other) => out.push(at(Finding::new(
                Code::InitializeInvalidServerInfo,
                format!("serverInfo is {}, not an object.", json_kind(other)),
            ))),
        }
    }
}

/// A stateless (2026-07-28) session: `server/discover` is required and must say what the
/// server supports. (Under `auto`, a failed discover is the legacy signal, not a fault.)
fn discover(t: &crate::session::transcript::Transcript, out: &mut Vec<Finding>) {
    let Some(d) = t.discover() else { return };
    let mut location = Location::request("server/discover");
    location.stdout_line = d.answer_line;
    let requested = versions::MODERN_VERSION;
    match &d.outcome {
        Outcome::Error(e) if t.protocol_requested == requested => {
            let supported = e
                .data
                .as_ref()
                .and_then(|d| d.get("supported"))
                .map(|s| excerpt(&s.to_string(), 120));
            let (detail, what) = match (e.code, supported) {
                (crate::protocol::jsonrpc::UNSUPPORTED_PROTOCOL_VERSION, Some(list)) => (
                    "unsupported-version",
                    format!("the server does not support {requested} (it supports {list})"),
                ),
                (crate::protocol::jsonrpc::METHOD_NOT_FOUND, _) => (
                    "method-not-found",
                    "the server does not implement server/discover, which 2026-07-28 requires"
                        .to_string(),
                ),
                _ => (
                    "error",
                    format!("error {}: {}", e.code, excerpt(&e.message, 200)),
                ),
            };
            out.push(
                Finding::new(
                    Code::DiscoverError,
                    format!("server/discover failed: {what}."),
                )
                .detail(detail)
                .at(location),
            );
        }
        Outcome::Result(result) => {
            let versions_listed = result.get("supportedVersions").and_then(Value::as_array);
            let problem = if !result.is_object() {
                Some((
                    "not-an-object",
                    format!("the result is {}", json_kind(result)),
                ))
            } else if versions_listed.is_none() {
                Some((
                    "missing-supported-versions",
                    "supportedVersions is missing or not an array".into(),
                ))
            } else if !result.get("capabilities").is_some_and(Value::is_object) {
                Some((
                    "missing-capabilities",
                    "capabilities is missing or not an object".into(),
                ))
            } else if !versions_listed.is_some_and(|v| v.iter().any(|x| x == requested)) {
                Some((
                    "version-not-listed",
                    format!("it answered a {requested} request but supportedVersions does not list {requested}"),
                ))
            } else {
                None
            };
            if let Some((detail, what)) = problem {
                out.push(
                    Finding::new(
                        Code::DiscoverInvalidResult,
                        format!("The server/discover result is unusable: {what}."),
                    )
                    .detail(detail)
                    .at(location),
                );
            }
        }
        _ => {}
    }
}

fn capability_problems(caps: &serde_json::Map<String, Value>) -> Vec<String> {
    let mut problems = Vec::new();
    for (name, flags) in KNOWN_CAPABILITIES {
        let Some(value) = caps.get(*name) else {
            continue;
        };
        let Some(obj) = value.as_object() else {
            problems.push(format!(
                "capabilities.{name} is {}, not an object.",
                json_kind(value)
            ));
            continue;
        };
        for flag in *flags {
            if let Some(v) = obj.get(*flag) {
                if !v.is_boolean() {
                    problems.push(format!(
                        "capabilities.{name}.{flag} is {}, not a boolean.",
                        json_kind(v)
                    ));
                }
            }
        }
    }
    problems
}

pub(crate) fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Requests the server sent while initialize was still unanswered: only ping is allowed then.
/// One finding per early request listed in the report's sample; a method's further early
/// requests are counted in its last finding.
fn early_server_requests(t: &Transcript, out: &mut Vec<Finding>) {
    let requests = &t.server_requests;
    let early: Vec<_> = requests
        .sample
        .iter()
        .filter(|r| r.method != "ping" && r.phase <= Phase::Initialize)
        .collect();
    for (i, r) in early.iter().enumerate() {
        let listed = early.iter().filter(|e| e.method == r.method).count() as u64;
        let is_last_of_method = !early[i + 1..].iter().any(|e| e.method == r.method);
        let unlisted = requests
            .by_method
            .get(&r.method)
            .map_or(0, |m| m.before_initialized.saturating_sub(listed));
        let more = if is_last_of_method && unlisted > 0 {
            format!(
                " It sent {unlisted} more `{}` requests that early.",
                excerpt(&r.method, 80)
            )
        } else {
            String::new()
        };
        out.push(
            Finding::new(
                Code::ServerRequestBeforeInitialized,
                format!(
                    "The server sent the request `{}` (stdout line {}) before answering initialize; only ping is allowed before notifications/initialized.{more}",
                    excerpt(&r.method, 80),
                    r.line
                ),
            )
            .at(Location::stdout_line(r.line)),
        );
    }
}
