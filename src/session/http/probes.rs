//! The transport probes, after the session's own traffic: a foreign Origin, a bogus
//! `MCP-Protocol-Version`, a request without the session id, GET, DELETE and a request on
//! the ended session; after a 401, the RFC 9728 resource metadata (never an auth flow).

use super::post::{media_type, Outgoing};
use super::{HttpFact, HttpTransport, MetadataCheck};
use serde_json::Value;
use std::time::Duration;

/// The Origin a DNS-rebinding page would send.
pub const FOREIGN_ORIGIN: &str = "http://mcpcheck-rebinding.invalid";
/// A version no revision has, for the header probe.
pub const BOGUS_VERSION: &str = "1999-01-01";
/// The GET probe only needs the headers and the first event.
const GET_WINDOW: Duration = Duration::from_millis(1500);

fn ping(tag: &str) -> Vec<u8> {
    format!(r#"{{"jsonrpc":"2.0","id":"mcpcheck-{tag}","method":"ping"}}"#).into_bytes()
}

impl HttpTransport {
    /// Sends `out` and gives only its status (`None` when there was no HTTP answer).
    async fn status_of(&self, out: Outgoing) -> Option<u16> {
        self.run(out).await.ok().map(|r| r.status)
    }

    fn probe_post(&self, tag: &str) -> Outgoing {
        let body = ping(tag);
        let id = Value::String(format!("mcpcheck-{tag}"));
        self.outgoing(Some(body), Some(id), self.timeout)
    }

    pub(super) fn handshake_answered(&self) -> bool {
        self.record.version_header.is_some() || self.initialized
    }
}

pub(super) async fn run(t: &mut HttpTransport) {
    if let Some(HttpFact::Unauthorized { www_authenticate }) = t
        .record
        .facts
        .iter()
        .find(|f| matches!(f, HttpFact::Unauthorized { .. }))
        .cloned()
    {
        t.record.probes.resource_metadata = resource_metadata(t, www_authenticate.as_deref()).await;
        return;
    }
    let open = t.handshake_answered();
    if open {
        let mut out = t.probe_post("origin-probe");
        out.headers.push(("Origin".into(), FOREIGN_ORIGIN.into()));
        t.record.probes.foreign_origin = t.status_of(out).await;
        if t.record.version_header.is_some() {
            let mut out = t.probe_post("version-probe");
            for (name, value) in &mut out.headers {
                if name == "MCP-Protocol-Version" {
                    *value = BOGUS_VERSION.into();
                }
            }
            t.record.probes.bad_version_header = t.status_of(out).await;
        }
        if t.session_id.is_some() {
            let mut out = t.probe_post("session-probe");
            out.headers.retain(|(n, _)| n != "Mcp-Session-Id");
            t.record.probes.missing_session = t.status_of(out).await;
        }
    }
    let mut get = t.outgoing(None, None, GET_WINDOW.min(t.timeout));
    get.method = "GET";
    get.headers.retain(|(n, _)| n != "Content-Type");
    for (name, value) in &mut get.headers {
        if name == "Accept" {
            *value = "text/event-stream".into();
        }
    }
    if let Ok(r) = t.run(get).await {
        let sse = media_type(r.content_type.as_deref()).as_deref() == Some("text/event-stream");
        t.record.probes.get = Some((r.status, sse, r.first_event));
    }
    if open && t.session_id.is_some() {
        let mut delete = t.outgoing(None, None, t.timeout);
        delete.method = "DELETE";
        delete.headers.retain(|(n, _)| n != "Content-Type");
        let status = t.status_of(delete).await;
        t.record.probes.delete = status;
        if status.is_some_and(|s| (200..300).contains(&s)) {
            t.record.probes.after_delete = t.status_of(t.probe_post("ended-session-probe")).await;
        }
    }
}

/// `resource_metadata="URL"` from a `WWW-Authenticate: Bearer ...` value.
pub fn resource_metadata_url(www_authenticate: &str) -> Option<String> {
    let at = www_authenticate.find("resource_metadata=")?;
    let rest = &www_authenticate[at + "resource_metadata=".len()..];
    let value = match rest.strip_prefix('"') {
        Some(quoted) => quoted.split('"').next()?,
        None => rest.split([',', ' ']).next()?,
    };
    (!value.is_empty()).then(|| value.to_string())
}

/// The origin (scheme, host, port) of a URL, lower case.
fn origin(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority.rsplit('@').next()?;
    Some(format!(
        "{}://{}",
        scheme.to_ascii_lowercase(),
        host.to_ascii_lowercase()
    ))
}

async fn resource_metadata(t: &HttpTransport, www: Option<&str>) -> Option<MetadataCheck> {
    let Some(url) = www.and_then(resource_metadata_url) else {
        return Some(MetadataCheck {
            url: String::new(),
            problems: vec!["the 401 has no WWW-Authenticate resource_metadata parameter".into()],
        });
    };
    let shown = crate::finding::excerpt(&crate::secrets::redact(&url), 120);
    // The document may sit anywhere; only the server's own origin is dialled unasked.
    if origin(&url) != origin(&t.target.url) {
        return Some(MetadataCheck {
            url: shown,
            problems: vec!["it is on another origin than the server, so it was not fetched".into()],
        });
    }
    let out = Outgoing {
        method: "GET",
        url: url.clone(),
        headers: vec![("Accept".into(), "application/json".into())],
        body: None,
        timeout: t.timeout,
        awaited: None,
        max_body_bytes: 1024 * 1024,
        max_event_bytes: 1024 * 1024,
        max_events: 1,
    };
    let mut problems = Vec::new();
    match t.run(out).await {
        Err(e) => problems.push(format!("it could not be fetched: {}", e.message)),
        Ok(r) if r.status != 200 => problems.push(format!("it answered HTTP {}", r.status)),
        Ok(r) => match r
            .messages
            .first()
            .and_then(|m| serde_json::from_slice::<Value>(m).ok())
        {
            None => problems.push("it is not a JSON object".into()),
            Some(doc) => {
                if doc.get("resource").and_then(Value::as_str).is_none() {
                    problems.push("it has no `resource`".into());
                }
                let servers = doc.get("authorization_servers").and_then(Value::as_array);
                if servers.is_none_or(|s| s.is_empty()) {
                    problems.push("it names no `authorization_servers`".into());
                }
            }
        },
    }
    Some(MetadataCheck {
        url: shown,
        problems,
    })
}
