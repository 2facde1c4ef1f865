//! The legacy HTTP+SSE transport (2024-11-05) under the session: a `GET` on the URL opens an
//! event stream whose first event, `endpoint`, names where to POST; every message the session
//! writes is a POST there, and everything the server sends (responses, its requests and
//! notifications) comes as `message` events on that one stream, matched by id. A POST is
//! accepted with any 2xx (the SDKs answer 202); its body is never read as a message, since
//! 2024-11-05 clients read server messages only from the stream. What HTTP did is recorded
//! as facts for the guard's checks; nothing here judges.

mod endpoint;
mod stream;

use super::post::{self, media_type, BodyProblem, Outgoing, Unreachable};
use super::sse::SseEvent;
use super::{client, HttpFact, HttpRecord, HttpTarget, Message, FOREIGN_ORIGIN, MAX_EVENTS};
use crate::process::{StdioLimits, StdoutEvent};
use crate::protocol::framing::RawLine;
use crate::session::transport::SendError;
pub use endpoint::resolve;
use endpoint::shown;
use serde_json::Value;
use std::collections::VecDeque;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use stream::{read_stream, StreamItem};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver};

/// The Origin probe only needs the status.
const ORIGIN_WINDOW: Duration = Duration::from_millis(1500);

/// What the legacy transport saw, beside the facts it shares with Streamable HTTP.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LegacyRecord {
    /// The endpoint the server named, resolved, without its query (a session id), redacted
    /// and cut.
    pub endpoint: Option<String>,
    /// The status of the stream's `GET`.
    pub stream_status: Option<u16>,
    /// Events read from the stream.
    pub events: u32,
    pub facts: Vec<LegacyFact>,
}

/// One thing the legacy transport did that a check may judge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LegacyFact {
    /// No usable endpoint: `detail` is no-endpoint, not-a-uri or cross-origin.
    Endpoint {
        detail: &'static str,
        message: String,
    },
    /// A POST to the endpoint answered outside 2xx.
    PostRejected { method: String, status: u16 },
    /// A request's response did not come on the stream: it ended, or the timeout passed.
    ResponseMissing { method: String, stream_ended: bool },
    /// The stream broke the SSE format or carried data that is not JSON.
    Stream(BodyProblem),
}

impl LegacyRecord {
    /// The session lost an answer to the transport: its checks say why.
    pub fn answer_lost(&self) -> bool {
        self.facts
            .iter()
            .any(|f| !matches!(f, LegacyFact::Stream(_)))
    }
}

/// What one item of the stream was, for a request waiting on its response.
enum Took {
    /// The ids of the responses it carried (a batch may carry several).
    Responses(Vec<Value>),
    ServerRequest,
    Other,
}

/// The session's client for one legacy server.
pub struct LegacyTransport {
    target: HttpTarget,
    agent: ureq::Agent,
    limits: StdioLimits,
    timeout: Duration,
    stream: Option<UnboundedReceiver<StreamItem>>,
    /// The stream's own agent: shutting it down drops only the stream's connection, so the
    /// reader's blocked read returns and its thread can be joined.
    stream_agent: Option<ureq::Agent>,
    reader: Option<JoinHandle<()>>,
    opened: bool,
    stream_ended: bool,
    endpoint: Option<String>,
    queue: VecDeque<StdoutEvent>,
    next_line: u64,
    bytes: u64,
    initialize_id: Option<Value>,
    initialized: bool,
    record: HttpRecord,
    legacy: LegacyRecord,
}

impl LegacyTransport {
    pub fn new(target: &HttpTarget, limits: StdioLimits, timeout: Duration) -> Self {
        Self {
            agent: client::agent(timeout, timeout),
            record: HttpRecord {
                url: crate::secrets::redact(&target.url),
                local: target.local,
                // Chosen only after the GET probe met `endpoint` (falls_back_to_legacy): the
                // run's probe result, whatever this session's own GET gets.
                probes: super::HttpProbes {
                    get: Some((200, true, Some("endpoint".into()))),
                    ..super::HttpProbes::default()
                },
                ..HttpRecord::default()
            },
            target: target.clone(),
            limits,
            timeout,
            stream: None,
            stream_agent: None,
            reader: None,
            opened: false,
            stream_ended: false,
            endpoint: None,
            queue: VecDeque::new(),
            next_line: 1,
            bytes: 0,
            initialize_id: None,
            initialized: false,
            legacy: LegacyRecord::default(),
        }
    }

    fn endpoint_fact(&mut self, detail: &'static str, message: String) -> SendError {
        self.legacy.facts.push(LegacyFact::Endpoint {
            detail,
            message: message.clone(),
        });
        SendError::Http(message)
    }

    /// Opens the stream and reads its `endpoint` event, within `deadline`.
    async fn open(&mut self, deadline: Instant) -> Result<(), SendError> {
        self.opened = true;
        let (tx, rx) = unbounded_channel();
        let agent = client::agent(self.timeout, self.timeout);
        let (url, headers, timeout) = (
            self.target.url.clone(),
            self.target.headers.clone(),
            self.timeout,
        );
        let limits = (
            self.limits.max_stdout_bytes,
            self.limits.max_stdout_line_bytes,
        );
        self.reader = {
            let agent = agent.clone();
            std::thread::Builder::new()
                .name("mcpcheck-legacy-stream".into())
                .spawn(move || read_stream(&agent, &url, &headers, (limits, timeout), &tx))
                .ok()
        };
        self.stream_agent = Some(agent);
        self.stream = Some(rx);
        let (status, content_type) = match self.recv(deadline).await {
            Some(StreamItem::Opened {
                status,
                content_type,
            }) => (status, content_type),
            Some(StreamItem::Failed(cause)) => {
                let message = cause.message.clone();
                self.record.facts.push(HttpFact::Unreachable {
                    method: "GET".into(),
                    cause,
                });
                return Err(SendError::Http(message));
            }
            _ => {
                return Err(self.endpoint_fact(
                    "no-endpoint",
                    "the GET that opens the stream got no answer within the timeout".into(),
                ))
            }
        };
        self.legacy.stream_status = Some(status);
        let media = media_type(content_type.as_deref());
        if status == 401 {
            self.record.facts.push(HttpFact::Unauthorized {
                www_authenticate: None,
            });
            return Err(SendError::Http("GET: HTTP 401".into()));
        }
        if status != 200 || media.as_deref() != Some("text/event-stream") {
            let what = media.map_or("no media type".to_string(), |m| {
                crate::finding::excerpt(&m, 60)
            });
            return Err(self.endpoint_fact(
                "no-endpoint",
                format!(
                    "the GET that opens the stream got HTTP {status} ({what}), not an event stream"
                ),
            ));
        }
        loop {
            match self.recv(deadline).await {
                Some(StreamItem::Event(e)) => {
                    self.legacy.events += 1;
                    return self.take_endpoint(e);
                }
                Some(StreamItem::Problem(p)) => self.legacy.facts.push(LegacyFact::Stream(p)),
                Some(StreamItem::Ended) => {
                    self.stream_ended = true;
                    return Err(self.endpoint_fact(
                        "no-endpoint",
                        "the stream ended before an `endpoint` event".into(),
                    ));
                }
                _ => {
                    return Err(self.endpoint_fact(
                        "no-endpoint",
                        "no `endpoint` event came within the timeout".into(),
                    ))
                }
            }
        }
    }

    fn take_endpoint(&mut self, e: SseEvent) -> Result<(), SendError> {
        if e.event.as_deref() != Some("endpoint") {
            let name = e.event.as_deref().unwrap_or("message");
            let message = format!(
                "the stream's first event is `{}`, not `endpoint`",
                crate::finding::excerpt(name, 40)
            );
            return Err(self.endpoint_fact("no-endpoint", message));
        }
        let reference = String::from_utf8_lossy(&e.data).into_owned();
        match resolve(&self.target.url, &reference) {
            Ok(url) => {
                self.legacy.endpoint = Some(shown(&url));
                self.endpoint = Some(url);
                Ok(())
            }
            Err((detail, why)) => {
                let message = format!("the endpoint `{}` {why}", shown(&reference));
                Err(self.endpoint_fact(detail, message))
            }
        }
    }

    /// The next item of the stream before `deadline`; `None` at the deadline or its end.
    async fn recv(&mut self, deadline: Instant) -> Option<StreamItem> {
        let rx = self.stream.as_mut()?;
        let item = tokio::time::timeout_at(deadline.into(), rx.recv())
            .await
            .ok()?;
        // The reader thread is gone: nothing more will come.
        self.stream_ended |= item.is_none();
        item
    }

    /// Sends one message as a POST to the endpoint; for a request, reads the stream until
    /// its response. `Err` when the request got no answer: the session stops waiting.
    pub async fn send(&mut self, bytes: &[u8], deadline: Instant) -> Result<(), SendError> {
        let deadline = deadline.min(Instant::now() + self.timeout);
        if !self.opened {
            self.open(deadline).await?;
        }
        let Some(endpoint) = self.endpoint.clone() else {
            return Err(SendError::Http(
                "the legacy transport has no endpoint to POST to".into(),
            ));
        };
        let Message {
            body,
            method,
            awaited,
            value,
        } = Message::of(bytes);
        if method == "initialize" {
            self.initialize_id.clone_from(&awaited);
        }
        let mut headers = vec![("Content-Type".to_string(), "application/json".to_string())];
        headers.extend(self.target.headers.iter().cloned());
        let timeout = deadline
            .saturating_duration_since(Instant::now())
            .max(Duration::from_millis(1));
        let out = Outgoing {
            method: "POST",
            url: endpoint,
            headers,
            body: Some(body),
            timeout,
            awaited: None,
            max_body_bytes: self.limits.max_stdout_bytes,
            max_event_bytes: self.limits.max_stdout_line_bytes,
            max_events: MAX_EVENTS,
        };
        self.record.posts += 1;
        let status = match self.run(out).await {
            Ok(reply) => reply.status,
            Err(cause) => {
                let message = cause.message.clone();
                self.record
                    .facts
                    .push(HttpFact::Unreachable { method, cause });
                return Err(SendError::Http(message));
            }
        };
        if !(200..300).contains(&status) {
            if value.is_some() {
                self.legacy.facts.push(LegacyFact::PostRejected {
                    method: method.clone(),
                    status,
                });
            }
            return match awaited {
                Some(_) => Err(SendError::Http(format!(
                    "{method}: HTTP {status} from the endpoint"
                ))),
                None => Ok(()),
            };
        }
        let Some(id) = awaited else {
            return Ok(());
        };
        self.await_response(&method, &id, deadline).await
    }

    /// Reads the stream into the queue until the response to `id`.
    async fn await_response(
        &mut self,
        method: &str,
        id: &Value,
        deadline: Instant,
    ) -> Result<(), SendError> {
        loop {
            if self.stream_ended {
                return Err(self.missing(method, true));
            }
            match self.recv(deadline).await {
                Some(item) => match self.take(item) {
                    Took::Responses(ids) if ids.contains(id) => return Ok(()),
                    // The server may wait for the client's answer before it answers: hand
                    // back to the session, which answers it and keeps reading the stream
                    // (a response that never comes is then the session's timeout).
                    Took::ServerRequest => return Ok(()),
                    _ => {}
                },
                None => {
                    let ended = self.stream_ended;
                    return Err(self.missing(method, ended));
                }
            }
        }
    }

    fn missing(&mut self, method: &str, stream_ended: bool) -> SendError {
        self.legacy.facts.push(LegacyFact::ResponseMissing {
            method: method.to_string(),
            stream_ended,
        });
        SendError::Http(format!(
            "{method}: no response on the event stream ({})",
            if stream_ended { "it ended" } else { "timeout" }
        ))
    }

    /// Handles one item of the stream.
    fn take(&mut self, item: StreamItem) -> Took {
        match item {
            StreamItem::Event(e) => {
                self.legacy.events += 1;
                // Only `message` events carry messages (a repeated `endpoint` carries none).
                if e.event.as_deref().is_some_and(|n| n != "message") {
                    return Took::Other;
                }
                let Ok(v) = serde_json::from_slice::<Value>(&e.data) else {
                    let problem = BodyProblem::SseDataNotJson(post::excerpt_bytes(&e.data));
                    self.legacy.facts.push(LegacyFact::Stream(problem));
                    return Took::Other;
                };
                self.note_initialize(&v);
                self.push_line(e.data);
                // A batch is judged by the session; here only its responses' ids count.
                let items = match &v {
                    Value::Array(items) => items.as_slice(),
                    one => std::slice::from_ref(one),
                };
                let mut ids = Vec::new();
                for item in items {
                    match (item.get("method"), item.get("id")) {
                        (None, Some(id)) => ids.push(id.clone()),
                        (Some(_), Some(_)) => return Took::ServerRequest,
                        _ => {}
                    }
                }
                Took::Responses(ids)
            }
            StreamItem::Problem(p) => {
                self.legacy.facts.push(LegacyFact::Stream(p));
                Took::Other
            }
            StreamItem::Ended | StreamItem::Failed(_) | StreamItem::Opened { .. } => {
                self.stream_ended = true;
                Took::Other
            }
        }
    }

    fn note_initialize(&mut self, v: &Value) {
        if self.initialize_id.is_some() && v.get("id") == self.initialize_id.as_ref() {
            self.initialized |= v.get("result").is_some_and(Value::is_object);
        }
    }

    fn push_line(&mut self, bytes: Vec<u8>) {
        self.bytes += bytes.len() as u64 + 1;
        self.queue.push_back(StdoutEvent::Line(RawLine {
            number: self.next_line,
            bytes,
            had_carriage_return: false,
        }));
        self.next_line += 1;
    }

    async fn run(&self, out: Outgoing) -> Result<post::Reply, Unreachable> {
        let agent = self.agent.clone();
        tokio::task::spawn_blocking(move || post::send(&agent, &out))
            .await
            .unwrap_or_else(|e| {
                Err(Unreachable {
                    tls: false,
                    message: format!("the HTTP client stopped: {e}"),
                    reached: false,
                })
            })
    }

    /// The next message the stream carried; pending while there is none. Cancel-safe: an
    /// item is handled as soon as it is received.
    pub async fn next_event(&mut self) -> StdoutEvent {
        loop {
            if let Some(e) = self.queue.pop_front() {
                return e;
            }
            let item = match self.stream.as_mut() {
                Some(rx) if !self.stream_ended => rx.recv().await,
                _ => std::future::pending().await,
            };
            match item {
                Some(item) => {
                    self.take(item);
                }
                None => self.stream_ended = true,
            }
        }
    }

    /// Drops the stream's connection and waits for its reader: nothing outlives the session.
    async fn close_stream(&mut self) {
        if let Some(agent) = self.stream_agent.take() {
            agent.shutdown();
        }
        if let Some(reader) = self.reader.take() {
            // A connect in progress is bounded by the connect timeout, not by the shutdown.
            let _ = tokio::task::spawn_blocking(move || reader.join()).await;
        }
        self.stream = None;
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Probes Origin (the stream's GET with a foreign Origin) when asked, closes our end of
    /// the stream and hands back the record.
    pub async fn finish(&mut self) -> HttpRecord {
        if self.initialized && self.target.transport_probes {
            let mut headers = vec![("Accept".to_string(), "text/event-stream".to_string())];
            headers.extend(self.target.headers.iter().cloned());
            headers.push(("Origin".into(), FOREIGN_ORIGIN.into()));
            let out = Outgoing {
                method: "GET",
                url: self.target.url.clone(),
                headers,
                body: None,
                timeout: ORIGIN_WINDOW.min(self.timeout),
                awaited: None,
                max_body_bytes: self.limits.max_stdout_bytes,
                max_event_bytes: self.limits.max_stdout_line_bytes,
                max_events: 1,
            };
            self.record.probes.foreign_origin = self.run(out).await.ok().map(|r| r.status);
        }
        self.close_stream().await;
        let mut record = std::mem::take(&mut self.record);
        record.legacy = Some(std::mem::take(&mut self.legacy));
        record
    }
}

impl Drop for LegacyTransport {
    /// A session dropped without `finish` still leaves no reader blocked on the stream.
    fn drop(&mut self) {
        if let Some(agent) = self.stream_agent.take() {
            agent.shutdown();
        }
    }
}
