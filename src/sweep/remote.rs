//! Remote entries: a manifest's `{"id", "url", "headers"}` and a `server.json`'s `remotes`,
//! guarded over HTTP through the same engine call as `guard --url` when the sweep is run
//! with `--remote`; header values come from the manifest or, by name, from a variable
//! passed with `--pass-env`, and never appear in a result line.

use super::line::RemoteType;
use super::manifest::{needs_configuration, EntryError, EntryPlan, Supplied};
use super::shown::{fill, mark_value_credentials, Secrets, Shown};
use crate::finding::excerpt;
use serde_json::{Map, Value};

/// Keys a remote entry may have; anything else is most likely a typo.
pub const REMOTE_KEYS: &[&str] = &["id", "url", "headers", "name", "description"];
/// `server.json` remote types the guard speaks, preferred first.
const TRANSPORTS: &[RemoteType] = &[RemoteType::StreamableHttp, RemoteType::Sse];

/// A remote server to guard.
#[derive(Debug, Clone, PartialEq)]
pub struct Remote {
    /// `isSecret` variables and a userinfo password in it are shown as `${NAME}`.
    pub url: Shown,
    /// `streamable-http`, or `sse` (the legacy transport, which the guard falls back to).
    pub transport: RemoteType,
    pub headers: Vec<(String, HeaderValue)>,
    /// The secrets of `url`.
    pub secrets: Secrets,
}

impl Remote {
    fn new(mut url: Shown, transport: RemoteType, headers: Vec<(String, HeaderValue)>) -> Self {
        mark_value_credentials(&mut url, "URL");
        let secrets = Secrets::collect(std::iter::once(&mut url));
        Self {
            url,
            transport,
            headers,
            secrets,
        }
    }
}

/// Where a header's value comes from.
#[derive(Clone, PartialEq)]
pub enum HeaderValue {
    Given(String),
    /// A variable of mcpcheck's environment, used only when named by `--pass-env`.
    Env(String),
}

impl std::fmt::Debug for HeaderValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Given(_) => f.write_str("Given([REDACTED])"),
            Self::Env(name) => write!(f, "Env({name})"),
        }
    }
}

/// How a not-asked remote entry's reason ends; the closing summary counts them by it.
pub const ENABLE_HINT: &str = "add --remote to guard it over HTTP";

/// Why a remote entry is listed and not guarded, without `--remote`.
pub fn not_asked_reason(remote: &Remote) -> String {
    format!(
        "remote-only server ({}); mcpcheck sweeps servers it can start over stdio; {ENABLE_HINT}",
        remote.transport.as_str()
    )
}

/// `{"id": ..., "url": ..., "headers": {NAME: "value" | {"env": "VAR"} | null}}`.
pub fn manifest_plan(obj: &Map<String, Value>) -> Result<EntryPlan, EntryError> {
    if let Some(key) = obj.keys().find(|k| !REMOTE_KEYS.contains(&k.as_str())) {
        return Err(EntryError(format!(
            "unknown key {:?}; a remote entry has {}",
            excerpt(key, 40),
            REMOTE_KEYS.join(", ")
        )));
    }
    let url = obj.get("url").and_then(Value::as_str).ok_or(EntryError(
        "`url` must be a string such as \"https://example.com/mcp\"".into(),
    ))?;
    valid_url(url, url)?;
    let mut headers = Vec::new();
    let mut missing = Vec::new();
    for (name, value) in header_map(obj.get("headers"))? {
        match value {
            Some(v) => headers.push((name, v)),
            None => missing.push(format!("header {name}")),
        }
    }
    if !missing.is_empty() {
        return Ok(needs_configuration(missing));
    }
    Ok(EntryPlan::Remote(Remote::new(
        Shown::text(url.trim()),
        RemoteType::StreamableHttp,
        headers,
    )))
}

/// The headers a manifest gives (`null`: declared, no value); names checked, values kept.
pub fn header_map(v: Option<&Value>) -> Result<Vec<(String, Option<HeaderValue>)>, EntryError> {
    let Some(v) = v else { return Ok(Vec::new()) };
    let obj = v.as_object().ok_or(EntryError(
        "`headers` must be an object of NAME: \"value\" or NAME: {\"env\": \"VAR\"}".into(),
    ))?;
    let mut out = Vec::new();
    for (name, value) in obj {
        valid_header_name(name)?;
        let value = match value {
            Value::String(s) if s.bytes().any(|b| b == b'\r' || b == b'\n') => {
                return Err(EntryError(format!(
                    "header {name}: the value holds a line break; give it on one line"
                )))
            }
            Value::String(s) => Some(HeaderValue::Given(s.clone())),
            Value::Null => None,
            Value::Object(o) if o.len() == 1 && o.get("env").is_some_and(Value::is_string) => {
                let var = o.get("env").and_then(Value::as_str).unwrap_or_default();
                if var.is_empty() || var.contains('=') || var.contains('\0') {
                    return Err(EntryError(format!(
                        "header {name}: `env` must name a variable"
                    )));
                }
                Some(HeaderValue::Env(var.to_string()))
            }
            _ => {
                return Err(EntryError(format!(
                    "header {name}: give a string, {{\"env\": \"VAR\"}} or null when not given"
                )))
            }
        };
        out.push((name.clone(), value));
    }
    Ok(out)
}

/// The first remote of a `server.json` the guard speaks, with its headers and `{variables}`
/// resolved as packages' inputs are; `None` when it has none.
pub fn registry_plan(server: &Map<String, Value>, supplied: &Supplied) -> Option<EntryPlan> {
    let remotes = server.get("remotes").and_then(Value::as_array)?;
    let (remote, transport) = TRANSPORTS.iter().find_map(|t| {
        remotes
            .iter()
            .find(|r| r.get("type").and_then(Value::as_str) == Some(t.as_str()))
            .map(|r| (r, *t))
    })?;
    let mut missing = Vec::new();
    let url = fill_variables(
        remote.get("url").and_then(Value::as_str).unwrap_or(""),
        remote.get("variables"),
        supplied,
        &mut missing,
    );
    let mut headers = Vec::new();
    for header in remote
        .get("headers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(name) = header
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| valid_header_name(n).is_ok())
        else {
            continue;
        };
        let own = |k: &str| header.get(k).and_then(Value::as_str).map(str::to_string);
        let value = match supplied.headers.get(name) {
            Some(v) => Some(v.clone()),
            None => own("value").or_else(|| own("default")).and_then(|raw| {
                let before = missing.len();
                let filled = fill_variables(&raw, header.get("variables"), supplied, &mut missing);
                (missing.len() == before).then_some(HeaderValue::Given(filled.value()))
            }),
        };
        match value {
            Some(v) => headers.push((name.to_string(), v)),
            None if header.get("isRequired").and_then(Value::as_bool) == Some(true) => {
                let secret = header.get("isSecret").and_then(Value::as_bool) == Some(true);
                missing.push(if secret {
                    format!("header {name} (secret)")
                } else {
                    format!("header {name}")
                });
            }
            None => {}
        }
    }
    if !missing.is_empty() {
        return Some(needs_configuration(missing));
    }
    Some(match valid_url(&url.value(), &url.display()) {
        Ok(_) => EntryPlan::Remote(Remote::new(url, transport, headers)),
        Err(why) => EntryPlan::NotAsked {
            reason: format!("{} remote: {why}", transport.as_str()),
        },
    })
}

/// [`fill`] with each placeholder that has no value recorded as missing.
fn fill_variables(
    raw: &str,
    vars: Option<&Value>,
    supplied: &Supplied,
    missing: &mut Vec<String>,
) -> Shown {
    let (shown, unfilled) = fill(raw, vars, &supplied.inputs);
    missing.extend(unfilled);
    shown
}

/// `url` checked; an error quotes `shown`, the URL with each secret as `${NAME}`.
fn valid_url(url: &str, shown: &str) -> Result<String, EntryError> {
    let url = url.trim();
    if crate::net::ParsedUrl::http(url).is_none() || url.bytes().any(|b| b.is_ascii_control()) {
        return Err(EntryError(format!(
            "url {:?} is not an http:// or https:// URL with a host",
            excerpt(&crate::secrets::redact(shown.trim()), 80)
        )));
    }
    Ok(url.to_string())
}

fn valid_header_name(name: &str) -> Result<(), EntryError> {
    let ok = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_!#$%&'*+.^`|~".contains(&b));
    if ok {
        Ok(())
    } else {
        Err(EntryError(format!(
            "header name {:?} is not valid; use letters, digits and dashes",
            excerpt(name, 40)
        )))
    }
}

/// The headers as `guard --header` takes them, or the variables that are not passed or set.
pub fn resolve_headers(
    headers: &[(String, HeaderValue)],
    pass_env: &[String],
) -> Result<Vec<(String, String)>, Vec<String>> {
    let mut out = Vec::new();
    let mut missing = Vec::new();
    for (name, value) in headers {
        match value {
            HeaderValue::Given(v) => out.push((name.clone(), v.clone())),
            HeaderValue::Env(var) if !pass_env.iter().any(|p| p == var) => {
                missing.push(format!("header {name} (from {var}: add --pass-env {var})"));
            }
            HeaderValue::Env(var) => match std::env::var(var) {
                Ok(v) if !v.is_empty() && !v.bytes().any(|b| b == b'\r' || b == b'\n') => {
                    out.push((name.clone(), v));
                }
                _ => missing.push(format!(
                    "header {name} (from {var}, which is not set, empty or holds a line break)"
                )),
            },
        }
    }
    if missing.is_empty() {
        Ok(out)
    } else {
        Err(missing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().expect("object").clone()
    }

    #[test]
    fn a_manifest_remote_entry_keeps_header_sources() {
        let plan = manifest_plan(&obj(json!({"id": "r", "url": "https://x.example/mcp",
            "headers": {"Authorization": {"env": "API_TOKEN"}, "X-Team": "core"}})))
        .expect("plan");
        let EntryPlan::Remote(r) = plan else {
            panic!("remote: {plan:?}")
        };
        assert_eq!(r.url.value(), "https://x.example/mcp");
        assert_eq!(
            r.headers,
            [
                ("Authorization".into(), HeaderValue::Env("API_TOKEN".into())),
                ("X-Team".into(), HeaderValue::Given("core".into()))
            ]
        );
        assert!(!format!("{:?}", r.headers).contains("core"));
        let missing = manifest_plan(&obj(
            json!({"id": "r", "url": "https://x.example/mcp", "headers": {"Authorization": null}}),
        ))
        .expect("plan");
        assert_eq!(
            missing,
            needs_configuration(vec!["header Authorization".into()])
        );
        for bad in [
            json!({"id": "r", "url": "ftp://x"}),
            json!({"id": "r", "url": "https://x", "headers": {"A B": "v"}}),
            json!({"id": "r", "url": "https://x", "headers": {"A": 3}}),
            json!({"id": "r", "url": "https://x", "header": {}}),
        ] {
            assert!(manifest_plan(&obj(bad.clone())).is_err(), "{bad}");
        }
    }

    #[test]
    fn registry_remotes_prefer_streamable_http_and_need_their_secret_headers() {
        let server = obj(json!({"remotes": [
            {"type": "sse", "url": "https://x.example/sse"},
            {"type": "streamable-http", "url": "https://{host}/mcp", "variables": {"host": {"default": "x.example"}},
             "headers": [{"name": "Authorization", "isRequired": true, "isSecret": true}, {"name": "X-Opt"}]}]}));
        assert_eq!(
            registry_plan(&server, &Supplied::default()),
            Some(needs_configuration(vec![
                "header Authorization (secret)".into()
            ]))
        );
        let mut given = Supplied::default();
        given.headers.insert(
            "Authorization".into(),
            HeaderValue::Given("Bearer k".into()),
        );
        let Some(EntryPlan::Remote(r)) = registry_plan(&server, &given) else {
            panic!("remote")
        };
        assert_eq!(
            (r.url.value().as_str(), r.transport.as_str()),
            ("https://x.example/mcp", "streamable-http")
        );
        assert_eq!(
            r.headers,
            [(
                "Authorization".into(),
                HeaderValue::Given("Bearer k".into())
            )]
        );
        let unfilled = obj(
            json!({"remotes": [{"type": "sse", "url": "https://{host}/sse", "variables": {"host": {}}}]}),
        );
        assert_eq!(
            registry_plan(&unfilled, &Supplied::default()),
            Some(needs_configuration(vec!["host".into()]))
        );
        let other = obj(json!({"remotes": [{"type": "websocket", "url": "wss://x"}]}));
        assert_eq!(registry_plan(&other, &Supplied::default()), None);
    }

    #[test]
    fn env_headers_need_pass_env_and_a_value() {
        let headers = vec![("Authorization".to_string(), HeaderValue::Env("PATH".into()))];
        assert_eq!(
            resolve_headers(&headers, &[]),
            Err(vec![
                "header Authorization (from PATH: add --pass-env PATH)".to_string()
            ])
        );
        let unset = vec![(
            "X-Key".to_string(),
            HeaderValue::Env("MCPCHECK_TEST_UNSET_H18".into()),
        )];
        assert_eq!(
            resolve_headers(&unset, &["MCPCHECK_TEST_UNSET_H18".into()]),
            Err(vec!["header X-Key (from MCPCHECK_TEST_UNSET_H18, which is not set, empty or holds a line break)".to_string()])
        );
        let path = std::env::var("PATH").expect("PATH");
        assert_eq!(
            resolve_headers(&headers, &["PATH".into()]),
            Ok(vec![("Authorization".to_string(), path)])
        );
    }
}
