//! The transport probes, after the session's own traffic: a foreign Origin, a bogus
//! `MCP-Protocol-Version`, a request without the session id, GET, DELETE and a request on
//! the ended session; after a 401, the authorization metadata (auth.rs; never an auth flow).

use super::post::{media_type, Outgoing};
use super::{HttpFact, HttpTransport};
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
        t.record.probes.resource_metadata =
            Some(t.authorization_metadata(www_authenticate.as_deref()).await);
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
    // The stream held open during the session already showed how GET is answered.
    if t.record.get_stream.is_none() {
        let get = t.get_request(GET_WINDOW.min(t.timeout));
        if let Ok(r) = t.run(get).await {
            let sse = media_type(r.content_type.as_deref()).as_deref() == Some("text/event-stream");
            t.record.probes.get = Some((r.status, sse, r.first_event));
        }
    }
    if let Some(status) = end_session(t).await {
        if (200..300).contains(&status) {
            t.record.probes.after_delete = t.status_of(t.probe_post("ended-session-probe")).await;
        }
    }
}

/// Ends an open session as a client does (DELETE with its id); the status, if it was sent.
pub(super) async fn end_session(t: &mut HttpTransport) -> Option<u16> {
    if !(t.handshake_answered() && t.session_id.is_some()) {
        return None;
    }
    let mut delete = t.outgoing(None, None, t.timeout);
    delete.method = "DELETE";
    delete.headers.retain(|(n, _)| n != "Content-Type");
    let status = t.status_of(delete).await;
    t.record.probes.delete = status;
    status
}
