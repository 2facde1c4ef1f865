//! One HTTP exchange, blocking (run off the runtime): send, then read the answer within the
//! bounds — a JSON body, or an event stream until the awaited response.

use super::sse::{SseProblem, SseReader};
use serde_json::Value;
use std::io::{BufReader, Read};
use std::time::Duration;

/// What to send.
#[derive(Clone)]
pub struct Outgoing {
    pub method: &'static str,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<Vec<u8>>,
    pub timeout: Duration,
    /// The id of the response that ends the exchange (a request); `None` for anything else.
    pub awaited: Option<Value>,
    pub max_body_bytes: u64,
    pub max_event_bytes: usize,
    pub max_events: usize,
}

/// The request never got an HTTP answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreachable {
    pub tls: bool,
    pub message: String,
    /// The server was reached (connected, TLS done, the request sent) and the time ran out
    /// waiting for its answer: a server that does not answer, not one that cannot be reached.
    pub reached: bool,
}

/// How much longer than a request's timeout the whole exchange may take, so that a server
/// that was reached and did not answer runs out the answer's own deadline (which names
/// that phase) before the exchange's.
const GLOBAL_MARGIN: Duration = Duration::from_millis(200);

/// What was wrong with an answer's body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyProblem {
    /// Neither `application/json` nor `text/event-stream` (the value, if any).
    ContentType(Option<String>),
    NotJson(String),
    /// A JSON body that is not exactly one JSON-RPC response.
    NotOneResponse(String),
    SseMalformedLine(String),
    SseDataNotJson(String),
    TooLarge(usize),
    TooManyEvents(usize),
    ReadFailed(String),
}

/// The HTTP answer, read within the bounds.
#[derive(Debug, Clone, Default)]
pub struct Reply {
    pub status: u16,
    pub content_type: Option<String>,
    pub session_id: Option<String>,
    pub www_authenticate: Option<String>,
    /// JSON-RPC messages in the order they came, as sent.
    pub messages: Vec<Vec<u8>>,
    pub body_bytes: usize,
    pub problems: Vec<BodyProblem>,
    /// The awaited response came.
    pub answered: bool,
    /// `event:` of the first event of a stream (a legacy server's `endpoint`).
    pub first_event: Option<String>,
    pub sse: bool,
    /// Ids of responses in a 2xx answer that are not the awaited one (JSON text, cut);
    /// they are judged here and not handed to the session.
    pub wrong_ids: Vec<String>,
}

fn header(r: &ureq::http::Response<ureq::Body>, name: &str) -> Option<String> {
    r.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// The media type without parameters, lower case.
pub fn media_type(content_type: Option<&str>) -> Option<String> {
    content_type.map(|t| {
        t.split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase()
    })
}

pub fn send(agent: &ureq::Agent, out: &Outgoing) -> Result<Reply, Unreachable> {
    let mut req = ureq::http::Request::builder()
        .method(out.method)
        .uri(&out.url);
    for (k, v) in &out.headers {
        req = req.header(k.as_str(), v.as_str());
    }
    let result = match &out.body {
        Some(b) => req
            .body(b.clone())
            .map_err(|e| unreachable(e.to_string(), false))
            .and_then(|r| {
                agent
                    .run(configure(agent, r, out.timeout))
                    .map_err(|e| failed(&e))
            }),
        None => req
            .body(())
            .map_err(|e| unreachable(e.to_string(), false))
            .and_then(|r| {
                agent
                    .run(configure(agent, r, out.timeout))
                    .map_err(|e| failed(&e))
            }),
    };
    let response = result?;
    let mut reply = Reply {
        status: response.status().as_u16(),
        content_type: header(&response, "content-type"),
        session_id: header(&response, "mcp-session-id"),
        www_authenticate: header(&response, "www-authenticate"),
        ..Reply::default()
    };
    let media = media_type(reply.content_type.as_deref());
    let reader = response
        .into_body()
        .into_with_config()
        .limit(out.max_body_bytes)
        .reader();
    match media.as_deref() {
        Some("text/event-stream") => {
            reply.sse = true;
            read_events(BufReader::new(reader), out, &mut reply);
        }
        _ => read_json(reader, out, &mut reply, media),
    }
    Ok(reply)
}

/// The exchange's deadlines: the answer's own, and the whole exchange's a little later.
fn configure<B: ureq::AsSendBody>(
    agent: &ureq::Agent,
    r: ureq::http::Request<B>,
    timeout: Duration,
) -> ureq::http::Request<B> {
    agent
        .configure_request(r)
        .timeout_global(Some(timeout + GLOBAL_MARGIN))
        .timeout_recv_response(Some(timeout))
        .build()
}

fn unreachable(message: String, reached: bool) -> Unreachable {
    Unreachable {
        tls: message.starts_with("TLS"),
        message,
        reached,
    }
}

/// Why an exchange got no answer: a timeout once the request was on its way means the
/// server was reached.
fn failed(e: &ureq::Error) -> Unreachable {
    use ureq::Timeout;
    let reached = matches!(
        e,
        ureq::Error::Timeout(Timeout::SendBody | Timeout::RecvResponse | Timeout::RecvBody)
    );
    unreachable(describe(e), reached)
}

/// How rustls words a handshake that failed (a certificate, an alert, a broken peer).
const TLS_FAILURES: &[&str] = &[
    "peer certificate",
    "fatal alert",
    "peer misbehaved",
    "peer is incompatible",
    "corrupt message",
];

pub(super) fn describe(e: &ureq::Error) -> String {
    let text = match e {
        ureq::Error::Rustls(_) | ureq::Error::Tls(_) => format!("TLS: {e}"),
        // rustls reports a failed handshake through the I/O error it wraps.
        ureq::Error::Io(io) if TLS_FAILURES.iter().any(|t| io.to_string().contains(t)) => {
            format!("TLS: {io}")
        }
        ureq::Error::Timeout(_) => "no answer within the timeout".to_string(),
        _ => e.to_string(),
    };
    crate::finding::excerpt(&text, 200)
}

fn read_json(reader: impl Read, out: &Outgoing, reply: &mut Reply, media: Option<String>) {
    let mut body = Vec::new();
    if let Err(e) = reader.take(out.max_body_bytes + 1).read_to_end(&mut body) {
        reply
            .problems
            .push(BodyProblem::ReadFailed(crate::finding::excerpt(
                &e.to_string(),
                120,
            )));
    }
    reply.body_bytes = body.len();
    let text = body.trim_ascii();
    if text.is_empty() {
        return;
    }
    if media.as_deref() != Some("application/json") {
        reply
            .problems
            .push(BodyProblem::ContentType(reply.content_type.clone()));
    }
    let Ok(value) = serde_json::from_slice::<Value>(text) else {
        reply
            .problems
            .push(BodyProblem::NotJson(excerpt_bytes(text)));
        return;
    };
    if !is_response(&value) {
        reply
            .problems
            .push(BodyProblem::NotOneResponse(excerpt_bytes(text)));
    }
    reply.answered = answers(&value, out.awaited.as_ref());
    if !reply.answered && wrong_id(&value, out, reply) {
        return;
    }
    reply.messages.push(text.to_vec());
}

fn read_events(reader: impl std::io::BufRead, out: &Outgoing, reply: &mut Reply) {
    let mut sse = SseReader::new(reader, out.max_event_bytes);
    let mut count = 0;
    while let Some(event) = sse.next_event() {
        count += 1;
        if count == 1 {
            reply.first_event = event.event.clone();
        }
        reply.body_bytes += event.data.len();
        if count > out.max_events {
            reply
                .problems
                .push(BodyProblem::TooManyEvents(out.max_events));
            break;
        }
        if event.event.as_deref().is_some_and(|e| e != "message") {
            // Another kind of event (a legacy `endpoint`) carries no message.
            if out.awaited.is_none() {
                break;
            }
            continue;
        }
        match serde_json::from_slice::<Value>(&event.data) {
            Ok(v) => {
                let done = answers(&v, out.awaited.as_ref());
                if !done && wrong_id(&v, out, reply) {
                    continue;
                }
                reply.messages.push(event.data);
                if done {
                    reply.answered = true;
                    break;
                }
            }
            Err(_) => reply
                .problems
                .push(BodyProblem::SseDataNotJson(excerpt_bytes(&event.data))),
        }
        if out.awaited.is_none() {
            break;
        }
    }
    for p in sse.problems {
        reply.problems.push(match p {
            SseProblem::MalformedLine(l) => {
                BodyProblem::SseMalformedLine(crate::finding::excerpt(&l, 120))
            }
            SseProblem::TooLarge { limit } => BodyProblem::TooLarge(limit),
            SseProblem::ReadFailed(e) if reply.answered || out.awaited.is_none() => {
                let _ = e;
                continue;
            }
            SseProblem::ReadFailed(e) => BodyProblem::ReadFailed(crate::finding::excerpt(&e, 120)),
        });
    }
}

/// A response to another id in a request's successful answer: noted, not passed on.
fn wrong_id(v: &Value, out: &Outgoing, reply: &mut Reply) -> bool {
    let applies = out.awaited.is_some() && (200..300).contains(&reply.status) && is_response(v);
    if applies {
        let id = v.get("id").map(Value::to_string).unwrap_or_default();
        reply.wrong_ids.push(crate::finding::excerpt(&id, 60));
    }
    applies
}

pub(super) fn is_response(v: &Value) -> bool {
    v.is_object() && v.get("method").is_none() && v.get("id").is_some()
}

/// A response (or a batch holding one) to the awaited id.
fn answers(v: &Value, awaited: Option<&Value>) -> bool {
    let Some(id) = awaited else {
        return false;
    };
    match v {
        Value::Array(items) => items.iter().any(|i| answers(i, awaited)),
        _ => is_response(v) && v.get("id") == Some(id),
    }
}

pub fn excerpt_bytes(b: &[u8]) -> String {
    crate::finding::excerpt(&String::from_utf8_lossy(b), 120)
}
