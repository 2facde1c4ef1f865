//! What the JSON report adds about the transport: `transport` ("stdio", "http", or "sse" for
//! the legacy HTTP+SSE transport) always, and over HTTP an `http` object (the URL with
//! credentials masked, never a header value; over the legacy transport its `legacy` part).

use crate::session::transcript::Transcript;
use serde_json::{json, Value};

pub fn annotate(doc: &mut Value, t: &Transcript) {
    let Some(http) = &t.http else {
        doc["transport"] = json!("stdio");
        return;
    };
    doc["transport"] = json!(if http.legacy.is_some() { "sse" } else { "http" });
    let p = &http.probes;
    doc["http"] = json!({
        "url": crate::finding::excerpt(&http.url, 200),
        "posts": http.posts,
        "sessionIdIssued": http.session_id_issued,
        "protocolVersionHeader": http.version_header,
        "local": http.local,
        "probes": {
            "foreignOrigin": p.foreign_origin,
            "bogusProtocolVersion": p.bad_version_header,
            "missingSessionId": p.missing_session,
            "get": p.get.as_ref().map(|(status, sse, first)| json!({
                "status": status,
                "eventStream": sse,
                "firstEvent": first.as_deref().map(|e| crate::finding::excerpt(e, 40)),
            })),
            "delete": p.delete,
            "afterDelete": p.after_delete,
        },
        "getStream": http.get_stream.as_ref().map(|g| json!({
            "status": g.status,
            "eventStream": g.event_stream,
            "events": g.events,
            "messages": g.messages,
            "unread": g.unread,
            "responses": g.responses.len(),
            "lastEventId": g.last_event_id.as_deref().map(|e| crate::finding::excerpt(e, 200)),
            "retryMs": g.retry_ms,
            "endedByServer": g.ended_by_server,
        })),
    });
    if let Some(l) = &http.legacy {
        doc["http"]["legacy"] = json!({
            "endpoint": l.endpoint.as_deref().map(|e| crate::finding::excerpt(e, 200)),
            "streamStatus": l.stream_status,
            "events": l.events,
        });
    }
}

/// The human report's transport line, for an HTTP session.
pub fn human_line(t: &Transcript) -> Option<String> {
    let http = t.http.as_ref()?;
    if let Some(l) = &http.legacy {
        return Some(format!(
            "  http+sse (legacy 2024-11-05): {} POST{} to {} · {} events · {} messages · {} ms",
            http.posts,
            if http.posts == 1 { "" } else { "s" },
            l.endpoint.as_deref().unwrap_or("no endpoint"),
            l.events,
            t.frames.len(),
            t.duration_ms
        ));
    }
    let get = match http.get_stream.as_ref().map(|g| (g.status, g.messages)) {
        Some((Some(status), messages)) => format!(" ({messages} on the GET stream, HTTP {status})"),
        Some((None, _)) => " (the GET stream got no answer)".to_string(),
        None => String::new(),
    };
    Some(format!(
        "  http: {} POST{} · session id {} · {} messages{get} · {} ms",
        http.posts,
        if http.posts == 1 { "" } else { "s" },
        if http.session_id_issued {
            "issued"
        } else {
            "none"
        },
        t.frames.len(),
        t.duration_ms
    ))
}
