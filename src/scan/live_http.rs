//! Listing a remote server over Streamable HTTP: initialize, the list methods of the
//! advertised capabilities (all pages), and nothing else. Blocking; run off the runtime.

use super::config_file::ServerEntry;
use super::live::{LiveListing, LiveState};
use super::{secrets, urls};
use crate::net::policy::ConnectPolicy;
use crate::secrets::{is_credential_param, names_credential};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read};
use std::time::{Duration, Instant};

/// Largest answer read from a remote server.
const MAX_ANSWER_BYTES: u64 = 4 * 1024 * 1024;
const MAX_PAGES: usize = 100;

#[derive(Debug, Clone)]
pub struct HttpTarget {
    pub url: String,
    /// Headers with literal values (references are withheld, never resolved).
    pub headers: Vec<(String, String)>,
    pub carries_credentials: bool,
    pub allow_unsafe: bool,
}

/// Why a remote server was not listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListError {
    /// Not dialled: its name resolves to an address that is refused.
    Refused(String),
    /// Dialled, but no listing came back.
    Failed(String),
}

/// `scan --live`'s connect policy; names are resolved on the listing thread, so a slow
/// resolver never holds up planning.
fn policy(allow_unsafe: bool, resolve_names: bool) -> ConnectPolicy {
    ConnectPolicy {
        allow_unsafe,
        resolve_names,
        hint: "pass --live-allow-unsafe to allow it",
    }
}

/// Decides whether to dial a remote entry; `Err` says why it is not asked.
pub fn plan(entry: &ServerEntry, allow_unsafe: bool) -> Result<(HttpTarget, Vec<String>), String> {
    let Some(url) = &entry.url else {
        return Err("no url".into());
    };
    let parsed = urls::parse(url.value.trim()).ok_or("the url has no host")?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(format!(
            "{}:// is not an HTTP URL",
            crate::finding::excerpt(parsed.scheme(), 20)
        ));
    }
    let mut headers = Vec::new();
    let mut withheld = Vec::new();
    for h in &entry.headers {
        if secrets::without_references(&h.value.value) != h.value.value {
            withheld.push(h.name.clone());
        } else {
            headers.push((h.name.clone(), h.value.value.clone()));
        }
    }
    let credentials = parsed.parsed.has_userinfo()
        || headers
            .iter()
            .any(|(n, _)| names_credential(n) || n.eq_ignore_ascii_case("cookie"))
        || parsed
            .query_pairs()
            .iter()
            .any(|(name, _)| is_credential_param(name));
    if let Some(why) = policy(allow_unsafe, false).refusal(&url.value, credentials) {
        return Err(why);
    }
    Ok((
        HttpTarget {
            url: url.value.trim().to_string(),
            headers,
            carries_credentials: credentials,
            allow_unsafe,
        },
        withheld,
    ))
}

/// What a remote server listed.
#[derive(Debug, Default)]
pub struct HttpLists {
    /// The initialize result object, whole.
    initialize: Option<Value>,
    lists: Vec<(&'static str, Vec<Value>)>,
    incomplete: Vec<String>,
}

impl HttpLists {
    pub fn into_listing(self, mut listing: LiveListing) -> LiveListing {
        listing.state = LiveState::Answered;
        listing.initialize = self.initialize;
        listing.incomplete = self.incomplete;
        for (key, items) in self.lists {
            match key {
                "tools" => listing.tools = items,
                "prompts" => listing.prompts = items,
                "resources" => listing.resources = items,
                _ => listing.resource_templates = items,
            }
        }
        listing
    }
}

struct Client<'a> {
    agent: ureq::Agent,
    target: &'a HttpTarget,
    session: Option<String>,
    protocol: Option<String>,
    next_id: i64,
    deadline: Instant,
}

/// Checks the resolved addresses, then runs initialize and the list methods.
pub fn list(target: &HttpTarget, timeout: Duration) -> Result<HttpLists, ListError> {
    if let Some(why) =
        policy(target.allow_unsafe, true).refusal(&target.url, target.carries_credentials)
    {
        return Err(ListError::Refused(why));
    }
    list_checked(target, timeout).map_err(ListError::Failed)
}

fn list_checked(target: &HttpTarget, timeout: Duration) -> Result<HttpLists, String> {
    let agent = super::http::agent(timeout, timeout);
    let mut c = Client {
        agent,
        target,
        session: None,
        protocol: None,
        next_id: 1,
        deadline: Instant::now() + timeout,
    };
    let init = c.request(
        "initialize",
        Some(json!({
            "protocolVersion": crate::protocol::versions::DEFAULT_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "mcpcheck", "version": env!("CARGO_PKG_VERSION")},
        })),
    )?;
    let Some(result) = init.get("result").filter(|r| r.is_object()) else {
        return Err(match init.get("error") {
            Some(e) => format!(
                "initialize failed: {}",
                crate::finding::excerpt(&e.to_string(), 160)
            ),
            None => "initialize returned no result object".into(),
        });
    };
    c.protocol = result
        .get("protocolVersion")
        .and_then(Value::as_str)
        .map(str::to_string);
    let capabilities = result.get("capabilities").cloned().unwrap_or(Value::Null);
    let mut out = HttpLists {
        initialize: Some(result.clone()),
        ..HttpLists::default()
    };
    c.notify("notifications/initialized")?;
    for (method, cap, key) in [
        ("tools/list", "tools", "tools"),
        ("prompts/list", "prompts", "prompts"),
        ("resources/list", "resources", "resources"),
        ("resources/templates/list", "resources", "resourceTemplates"),
    ] {
        if !crate::session::advertises(&capabilities, cap) {
            continue;
        }
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        let mut complete = false;
        for _ in 0..MAX_PAGES {
            let params = cursor.as_ref().map(|c| json!({ "cursor": c }));
            let Ok(answer) = c.request(method, params) else {
                break;
            };
            let Some(result) = answer.get("result") else {
                break;
            };
            items.extend(
                result
                    .get(key)
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default(),
            );
            match result
                .get("nextCursor")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
            {
                Some(next) if cursor.as_deref() != Some(next) => cursor = Some(next.to_string()),
                Some(_) => break,
                None => {
                    complete = true;
                    break;
                }
            }
        }
        if !complete {
            out.incomplete.push(method.to_string());
        }
        out.lists.push((key, items));
    }
    c.close();
    Ok(out)
}

impl Client<'_> {
    fn post(&self, body: &Value) -> Result<ureq::http::Response<ureq::Body>, String> {
        if Instant::now() >= self.deadline {
            return Err("no complete listing within --live-timeout".into());
        }
        let mut req = self
            .agent
            .post(&self.target.url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream");
        for (k, v) in &self.target.headers {
            req = req.header(k.as_str(), v.as_str());
        }
        if let Some(s) = &self.session {
            req = req.header("Mcp-Session-Id", s.as_str());
        }
        if let Some(p) = &self.protocol {
            req = req.header("MCP-Protocol-Version", p.as_str());
        }
        req.send(body.to_string().as_bytes())
            .map_err(|e| crate::finding::excerpt(&format!("HTTP request failed: {e}"), 200))
    }

    fn request(&mut self, method: &str, params: Option<Value>) -> Result<Value, String> {
        let id = self.next_id;
        self.next_id += 1;
        let mut msg = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if let Some(p) = params {
            msg["params"] = p;
        }
        let response = self.post(&msg)?;
        let status = response.status().as_u16();
        if !(200..300).contains(&status) {
            return Err(format!("{method}: HTTP status {status}"));
        }
        if let Some(s) = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
        {
            self.session = Some(s.to_string());
        }
        let is_sse = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|t| t.starts_with("text/event-stream"));
        let reader = response
            .into_body()
            .into_with_config()
            .limit(MAX_ANSWER_BYTES)
            .reader();
        if is_sse {
            answer_from_events(reader, id)
                .ok_or_else(|| format!("{method}: the event stream ended without the answer"))
        } else {
            let mut text = String::new();
            BufReader::new(reader)
                .read_to_string(&mut text)
                .map_err(|e| format!("{method}: cannot read the answer ({e})"))?;
            serde_json::from_str(&text).map_err(|_| format!("{method}: the answer is not JSON"))
        }
    }

    fn notify(&mut self, method: &str) -> Result<(), String> {
        let response = self.post(&json!({"jsonrpc": "2.0", "method": method}))?;
        let status = response.status().as_u16();
        if (200..300).contains(&status) {
            Ok(())
        } else {
            Err(format!("{method}: HTTP status {status}"))
        }
    }

    /// Ends the session politely (best effort).
    fn close(&self) {
        if let Some(s) = &self.session {
            let _ = self
                .agent
                .delete(&self.target.url)
                .header("Mcp-Session-Id", s.as_str())
                .call();
        }
    }
}

/// Reads server-sent events until the JSON-RPC answer with this id.
fn answer_from_events(reader: impl Read, id: i64) -> Option<Value> {
    let mut data = String::new();
    for line in BufReader::new(reader).lines() {
        let line = line.ok()?;
        if let Some(d) = line.strip_prefix("data:") {
            data.push_str(d.trim_start());
            data.push('\n');
        } else if line.is_empty() && !data.is_empty() {
            if let Ok(v) = serde_json::from_str::<Value>(&data) {
                if v.get("id").and_then(Value::as_i64) == Some(id) {
                    return Some(v);
                }
            }
            data.clear();
        }
    }
    None
}
