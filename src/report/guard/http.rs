//! What the JSON report adds about the transport: `transport` ("stdio", "http", or "sse" for
//! the legacy HTTP+SSE transport) always, and over HTTP an `http` object (the URL with
//! credentials masked, never a header value; over the legacy transport its `legacy` part).

use crate::finding::excerpt;
use crate::session::transcript::Transcript;
use schemars::JsonSchema;
use serde::Serialize;

/// How the guard talked to the server: "stdio" (a command it ran), "http" (--url,
/// Streamable HTTP) or "sse" (--url, the legacy HTTP+SSE transport of 2024-11-05, which
/// the guard falls back to when the server speaks it). Added in v1 without breaking it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    Stdio,
    Http,
    Sse,
}

/// What the session saw of the HTTP transport.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Http {
    pub url: String,
    pub posts: u32,
    pub session_id_issued: bool,
    pub protocol_version_header: Option<String>,
    pub local: bool,
    pub probes: HttpProbes,
    pub get_stream: Option<GetStream>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub legacy: Option<Legacy>,
}

/// The HTTP status each transport probe got; null when it did not run.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HttpProbes {
    pub foreign_origin: Option<u16>,
    pub bogus_protocol_version: Option<u16>,
    pub missing_session_id: Option<u16>,
    pub get: Option<GetProbe>,
    pub delete: Option<u16>,
    pub after_delete: Option<u16>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GetProbe {
    pub status: u16,
    pub event_stream: bool,
    pub first_event: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GetStream {
    pub status: Option<u16>,
    pub event_stream: bool,
    pub events: usize,
    pub messages: usize,
    pub unread: usize,
    pub responses: usize,
    pub last_event_id: Option<String>,
    pub retry_ms: Option<u64>,
    pub ended_by_server: bool,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Legacy {
    pub endpoint: Option<String>,
    pub stream_status: Option<u16>,
    pub events: u32,
}

pub fn transport(t: &Transcript) -> Transport {
    match &t.http {
        None => Transport::Stdio,
        Some(http) if http.legacy.is_some() => Transport::Sse,
        Some(_) => Transport::Http,
    }
}

pub fn http(t: &Transcript) -> Option<Http> {
    let http = t.http.as_ref()?;
    let p = &http.probes;
    Some(Http {
        url: excerpt(&http.url, 200),
        posts: http.posts,
        session_id_issued: http.session_id_issued,
        protocol_version_header: http.version_header.clone(),
        local: http.local,
        probes: HttpProbes {
            foreign_origin: p.foreign_origin,
            bogus_protocol_version: p.bad_version_header,
            missing_session_id: p.missing_session,
            get: p.get.as_ref().map(|(status, sse, first)| GetProbe {
                status: *status,
                event_stream: *sse,
                first_event: first.as_deref().map(|e| excerpt(e, 40)),
            }),
            delete: p.delete,
            after_delete: p.after_delete,
        },
        get_stream: http.get_stream.as_ref().map(|g| GetStream {
            status: g.status,
            event_stream: g.event_stream,
            events: g.events,
            messages: g.messages,
            unread: g.unread,
            responses: g.responses.len(),
            last_event_id: g.last_event_id.as_deref().map(|e| excerpt(e, 200)),
            retry_ms: g.retry_ms,
            ended_by_server: g.ended_by_server,
        }),
        legacy: http.legacy.as_ref().map(|l| Legacy {
            endpoint: l.endpoint.as_deref().map(|e| excerpt(e, 200)),
            stream_status: l.stream_status,
            events: l.events,
        }),
    })
}

/// The human report's transport line, for an HTTP session.
pub fn human_line(t: &Transcript) -> Option<String> {
    let http = t.http.as_ref()?;
    if let Some(l) = &http.legacy {
        return Some(format!(
            "  http+sse (legacy 2024-11-05): {} POST{} to {} · {} · {} · {} ms",
            http.posts,
            if http.posts == 1 { "" } else { "s" },
            l.endpoint.as_deref().unwrap_or("no endpoint"),
            crate::finding::plural(l.events as usize, "event"),
            crate::finding::plural(t.frames.len(), "message"),
            t.duration_ms
        ));
    }
    let get = match http.get_stream.as_ref().map(|g| (g.status, g.messages)) {
        Some((Some(status), messages)) => format!(" ({messages} on the GET stream, HTTP {status})"),
        Some((None, _)) => " (the GET stream got no answer)".to_string(),
        None => String::new(),
    };
    Some(format!(
        "  http: {} POST{} · session id {} · {}{get} · {} ms",
        http.posts,
        if http.posts == 1 { "" } else { "s" },
        if http.session_id_issued {
            "issued"
        } else {
            "none"
        },
        crate::finding::plural(t.frames.len(), "message"),
        t.duration_ms
    ))
}
