//! The Streamable HTTP transport under the session: each message the session writes is a
//! POST; what the answers carry becomes the frames the session reads, numbered in order.
//! What HTTP itself did (statuses, media types, session ids, probes) is recorded as facts
//! for the guard's transport checks; nothing here judges.

mod auth;
pub mod client;
mod get_stream;
pub mod legacy;
mod post;
mod probes;
pub mod sse;

use crate::process::{StdioLimits, StdoutEvent};
use crate::protocol::framing::RawLine;
use crate::session::transport::SendError;
pub use get_stream::GetStreamRecord;
use post::Outgoing;
pub use post::{BodyProblem, Unreachable};
pub use probes::{BOGUS_VERSION, FOREIGN_ORIGIN};
use serde_json::Value;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// The first revision whose later requests carry `MCP-Protocol-Version`.
pub const VERSION_HEADER_FROM: &str = "2025-06-18";
/// Most events read from one event stream.
pub const MAX_EVENTS: usize = 1000;

/// A remote server to run the session against.
#[derive(Clone)]
pub struct HttpTarget {
    pub url: String,
    /// Sent as given on every request; never printed.
    pub headers: Vec<(String, String)>,
    /// The host is a loopback or private address: a foreign Origin should be refused.
    pub local: bool,
    /// Whether a URL on another origin (authorization metadata) may be dialled; `None`
    /// dials only the server's own origin.
    pub dial_policy: Option<DialPolicy>,
    /// Speak the legacy HTTP+SSE transport (2024-11-05) instead of Streamable HTTP.
    pub legacy_sse: bool,
    /// After the session, run the transport probes the guard's checks read (a foreign
    /// Origin, a bogus version, GET, DELETE…); off, the session only ends (a listing).
    pub transport_probes: bool,
}

/// Why a URL must not be dialled, or `None` to allow it.
pub type Refusal = dyn Fn(&str) -> Option<String> + Send + Sync;

/// The caller's connect policy.
#[derive(Clone)]
pub struct DialPolicy(pub std::sync::Arc<Refusal>);

impl DialPolicy {
    pub fn refusal(&self, url: &str) -> Option<String> {
        (self.0)(url)
    }
}

impl std::fmt::Debug for HttpTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("HttpTarget")
            .field("url", &crate::secrets::redact(&self.url))
            .field("headers", &names)
            .field("local", &self.local)
            .field("dial_policy", &self.dial_policy.is_some())
            .field("legacy_sse", &self.legacy_sse)
            .field("transport_probes", &self.transport_probes)
            .finish()
    }
}

/// One thing HTTP did that a check may judge; `method` names the JSON-RPC message sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HttpFact {
    /// No HTTP answer at all (refused, TLS, timeout).
    Unreachable { method: String, cause: Unreachable },
    /// A request answered with a status and no JSON-RPC answer in the body.
    Status { method: String, status: u16 },
    Body {
        method: String,
        problem: BodyProblem,
    },
    /// The awaited response was not in the answer (other messages may have been).
    NoAnswer {
        method: String,
        status: u16,
        sse: bool,
    },
    /// A request's answer carried a response with another id (`id` as JSON text).
    WrongId {
        method: String,
        id: String,
        sse: bool,
    },
    /// A client notification or response not answered 202 with an empty body.
    NotAccepted {
        method: String,
        status: u16,
        body_bytes: usize,
    },
    /// A later answer carried another `Mcp-Session-Id` than initialize gave.
    SessionRotated { method: String },
    /// A 4xx whose body is a JSON-RPC error with no id: HTTP's way to refuse this request.
    Refused {
        method: String,
        status: u16,
        message: String,
    },
    /// 401, with the `WWW-Authenticate` value if any (never a token of ours).
    Unauthorized { www_authenticate: Option<String> },
}

/// The status a probe got, when it ran.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpProbes {
    /// POST with a foreign `Origin`.
    pub foreign_origin: Option<u16>,
    /// POST with `MCP-Protocol-Version: 1999-01-01`.
    pub bad_version_header: Option<u16>,
    /// POST without the `Mcp-Session-Id` the server issued.
    pub missing_session: Option<u16>,
    /// GET: status, whether it was an event stream, its first event's name.
    pub get: Option<(u16, bool, Option<String>)>,
    pub delete: Option<u16>,
    /// POST with the session id after a successful DELETE.
    pub after_delete: Option<u16>,
    /// The RFC 9728 document named by `resource_metadata`, the authorization servers'
    /// metadata behind it, and what is wrong with them.
    pub resource_metadata: Option<MetadataCheck>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetadataCheck {
    /// The protected resource metadata URL, redacted and cut; empty when the 401 named none.
    pub url: String,
    /// Empty when every document is complete.
    pub problems: Vec<AuthProblem>,
}

/// Which document a problem is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthDocument {
    /// RFC 9728 protected resource metadata.
    ProtectedResource,
    /// RFC 8414 (or OpenID) metadata of this authorization server, redacted and cut.
    AuthorizationServer(String),
}

/// One missing or invalid item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthProblem {
    pub document: AuthDocument,
    pub detail: &'static str,
    pub message: String,
}

/// What the transport saw, for the checks and the report.
#[derive(Debug, Clone, Default)]
pub struct HttpRecord {
    pub url: String,
    pub local: bool,
    pub facts: Vec<HttpFact>,
    pub session_id_issued: bool,
    pub version_header: Option<String>,
    pub probes: HttpProbes,
    pub posts: u32,
    /// The standalone GET stream, when it was opened during the session.
    pub get_stream: Option<GetStreamRecord>,
    /// What the legacy HTTP+SSE transport saw, when the session ran over it.
    pub legacy: Option<legacy::LegacyRecord>,
}

impl HttpRecord {
    /// The session got no answer through HTTP itself: the HTTP checks say why, so the
    /// stdio-worded "stdout closed" findings stay silent.
    pub fn answer_lost(&self) -> bool {
        self.facts.iter().any(|f| {
            matches!(
                f,
                HttpFact::Unreachable { .. }
                    | HttpFact::NoAnswer { .. }
                    | HttpFact::WrongId { .. }
                    | HttpFact::Status { .. }
                    | HttpFact::Refused { .. }
                    | HttpFact::Unauthorized { .. }
            )
        }) || self
            .legacy
            .as_ref()
            .is_some_and(legacy::LegacyRecord::answer_lost)
    }
}

/// How HTTP answered a message that awaits no response (a notification, a response, a
/// body that is not JSON): 202 with no body accepts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnawaitedAnswer {
    pub status: u16,
    pub body_bytes: usize,
    /// The body carried a JSON-RPC result.
    pub result: bool,
}

/// The session's HTTP client for one server.
pub struct HttpTransport {
    target: HttpTarget,
    agent: ureq::Agent,
    limits: StdioLimits,
    timeout: Duration,
    queue: VecDeque<StdoutEvent>,
    next_line: u64,
    bytes: u64,
    session_id: Option<String>,
    initialize_id: Option<Value>,
    /// initialize was answered with a result.
    initialized: bool,
    record: HttpRecord,
    get: Option<get_stream::GetStream>,
    last_unawaited: Option<UnawaitedAnswer>,
}

impl HttpTransport {
    pub fn new(target: &HttpTarget, limits: StdioLimits, timeout: Duration) -> Self {
        Self {
            agent: client::agent(timeout, timeout),
            record: HttpRecord {
                url: crate::secrets::redact(&target.url),
                local: target.local,
                ..HttpRecord::default()
            },
            target: target.clone(),
            limits,
            timeout,
            queue: VecDeque::new(),
            next_line: 1,
            bytes: 0,
            session_id: None,
            initialize_id: None,
            initialized: false,
            get: None,
            last_unawaited: None,
        }
    }

    fn outgoing(
        &self,
        body: Option<Vec<u8>>,
        awaited: Option<Value>,
        timeout: Duration,
    ) -> Outgoing {
        let mut headers = vec![
            ("Content-Type".to_string(), "application/json".to_string()),
            (
                "Accept".to_string(),
                "application/json, text/event-stream".to_string(),
            ),
        ];
        headers.extend(self.target.headers.iter().cloned());
        if let Some(s) = &self.session_id {
            headers.push(("Mcp-Session-Id".into(), s.clone()));
        }
        if let Some(v) = &self.record.version_header {
            headers.push(("MCP-Protocol-Version".into(), v.clone()));
        }
        Outgoing {
            method: "POST",
            url: self.target.url.clone(),
            headers,
            body,
            timeout,
            awaited,
            max_body_bytes: self.limits.max_stdout_bytes,
            max_event_bytes: self.limits.max_stdout_line_bytes,
            max_events: MAX_EVENTS,
        }
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

    /// Sends one JSON-RPC message (or raw bytes) as a POST. `Err` when a request got no
    /// answer: the session then stops waiting for it at once.
    pub async fn send(&mut self, bytes: &[u8], deadline: Instant) -> Result<(), SendError> {
        let Message {
            body,
            method,
            awaited,
            value,
        } = Message::of(bytes);
        if method == "initialize" {
            self.initialize_id.clone_from(&awaited);
        }
        let timeout = deadline
            .saturating_duration_since(Instant::now())
            .min(self.timeout)
            .max(Duration::from_millis(1));
        let out = self.outgoing(Some(body), awaited.clone(), timeout);
        self.record.posts += 1;
        self.last_unawaited = None;
        let reply = match self.run(out).await {
            Ok(r) => r,
            // Reached and not answered in time: a timeout, as over stdio.
            Err(cause) if cause.reached && awaited.is_some() => {
                return Err(SendError::TimedOut(cause.message))
            }
            Err(cause) => {
                let message = cause.message.clone();
                self.record
                    .facts
                    .push(HttpFact::Unreachable { method, cause });
                return Err(SendError::Http(message));
            }
        };
        self.note_session(&method, reply.session_id.as_deref());
        if method == "notifications/initialized" && self.initialized && self.get.is_none() {
            self.open_get_stream();
        }
        if awaited.is_none() {
            self.last_unawaited = Some(UnawaitedAnswer {
                status: reply.status,
                body_bytes: reply.body_bytes,
                result: reply.messages.iter().any(|m| {
                    serde_json::from_slice::<Value>(m).is_ok_and(|v| v.get("result").is_some())
                }),
            });
            // A notification, a response or a malformed line: 202 and no body.
            let accepted = reply.status == 202 && reply.body_bytes == 0;
            let error_answer = (400..500).contains(&reply.status);
            if !accepted && !error_answer && value.is_some() {
                self.record.facts.push(HttpFact::NotAccepted {
                    method,
                    status: reply.status,
                    body_bytes: reply.body_bytes,
                });
            }
            return Ok(());
        }
        // The body of an HTTP error is not judged as an answer; its status is.
        let success = (200..300).contains(&reply.status);
        for problem in reply.problems.iter().filter(|_| success) {
            self.record.facts.push(HttpFact::Body {
                method: method.clone(),
                problem: problem.clone(),
            });
        }
        if let Some(message) = awaited
            .as_ref()
            .and_then(|_| refusal(&reply))
            .filter(|_| !reply.answered)
        {
            let status = reply.status;
            self.record.facts.push(HttpFact::Refused {
                method: method.clone(),
                status,
                message: message.clone(),
            });
            return Err(SendError::Http(format!(
                "{method}: HTTP {status}: {message}"
            )));
        }
        for id in &reply.wrong_ids {
            self.record.facts.push(HttpFact::WrongId {
                method: method.clone(),
                id: id.clone(),
                sse: reply.sse,
            });
        }
        for m in &reply.messages {
            self.note_version(m);
            self.push_line(m.clone());
        }
        if reply.status == 401 {
            self.record.facts.push(HttpFact::Unauthorized {
                www_authenticate: reply.www_authenticate.clone(),
            });
        }
        if reply.answered {
            return Ok(());
        }
        let fact = if reply.messages.is_empty() && !(200..300).contains(&reply.status) {
            HttpFact::Status {
                method: method.clone(),
                status: reply.status,
            }
        } else {
            HttpFact::NoAnswer {
                method: method.clone(),
                status: reply.status,
                sse: reply.sse,
            }
        };
        // A response with another id already says why this one's is missing.
        if reply.status != 401 && reply.wrong_ids.is_empty() {
            self.record.facts.push(fact);
        }
        Err(SendError::Http(format!(
            "{method}: HTTP {} without the answer",
            reply.status
        )))
    }

    /// How HTTP answered the last message that awaited no response, if it was answered.
    pub fn last_unawaited(&self) -> Option<UnawaitedAnswer> {
        self.last_unawaited
    }

    fn note_session(&mut self, method: &str, given: Option<&str>) {
        let Some(given) = given else {
            return;
        };
        if method == "initialize" {
            self.session_id = Some(given.to_string());
            self.record.session_id_issued = true;
        } else if self.session_id.as_deref().is_some_and(|s| s != given) {
            self.record.facts.push(HttpFact::SessionRotated {
                method: method.to_string(),
            });
        }
    }

    /// From 2025-06-18 on, requests after initialize carry the negotiated version.
    fn note_version(&mut self, message: &[u8]) {
        let Ok(v) = serde_json::from_slice::<Value>(message) else {
            return;
        };
        if self.initialize_id.is_none() || v.get("id") != self.initialize_id.as_ref() {
            return;
        }
        self.initialized |= v.get("result").is_some_and(Value::is_object);
        if let Some(version) = v.pointer("/result/protocolVersion").and_then(Value::as_str) {
            if version >= VERSION_HEADER_FROM {
                self.record.version_header = Some(version.to_string());
            }
        }
    }

    fn push_line(&mut self, bytes: Vec<u8>) {
        let line = self.line(bytes);
        self.queue.push_back(line);
    }

    fn line(&mut self, bytes: Vec<u8>) -> StdoutEvent {
        self.bytes += bytes.len() as u64 + 1;
        self.next_line += 1;
        StdoutEvent::Line(RawLine {
            number: self.next_line - 1,
            bytes,
            had_carriage_return: false,
        })
    }

    /// The next message an answer or the GET stream carried; pending while there is none.
    /// Cancel-safe.
    pub async fn next_event(&mut self) -> StdoutEvent {
        if let Some(e) = self.queue.pop_front() {
            return e;
        }
        let message = match self.get.as_mut() {
            Some(get) => get.next_message().await,
            None => None,
        };
        match message {
            Some(bytes) => self.line(bytes),
            None => std::future::pending().await,
        }
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Whether a message can still arrive without a request: one queued, or the standalone
    /// GET stream open. Without either, nothing comes late over Streamable HTTP.
    pub fn may_deliver_unasked(&self) -> bool {
        !self.queue.is_empty() || self.get.is_some()
    }

    /// Runs the transport probes (when asked), ends the session (DELETE) and hands back the
    /// record.
    pub async fn finish(&mut self) -> HttpRecord {
        self.close_get_stream().await;
        if self.target.transport_probes {
            probes::run(self).await;
        } else {
            probes::end_session(self).await;
        }
        std::mem::take(&mut self.record)
    }
}

/// The error message of a 4xx answer that is one JSON-RPC error without an id.
fn refusal(reply: &post::Reply) -> Option<String> {
    if !(400..500).contains(&reply.status) || reply.messages.len() != 1 {
        return None;
    }
    let v: Value = serde_json::from_slice(&reply.messages[0]).ok()?;
    if !matches!(v.get("id"), None | Some(Value::Null)) {
        return None;
    }
    let message = v.pointer("/error/message")?.as_str()?;
    Some(crate::finding::excerpt(message, 160))
}

/// One message the client sends, as a POST carries it: the body (without the line's end),
/// the method (`response` or `malformed` for what is not a request or a notification), the
/// id awaited (a request's) and the value, if it is JSON.
pub(super) struct Message {
    pub body: Vec<u8>,
    pub method: String,
    pub awaited: Option<Value>,
    pub value: Option<Value>,
}

impl Message {
    pub(super) fn of(bytes: &[u8]) -> Self {
        let body = bytes.strip_suffix(b"\n").unwrap_or(bytes).to_vec();
        let value = serde_json::from_slice::<Value>(&body).ok();
        let method = value
            .as_ref()
            .and_then(|v| v.get("method"))
            .and_then(Value::as_str)
            .unwrap_or(if value.is_some() {
                "response"
            } else {
                "malformed"
            })
            .to_string();
        let awaited = value
            .as_ref()
            .filter(|v| v.get("method").is_some())
            .and_then(|v| v.get("id"))
            .cloned();
        Self {
            body,
            method,
            awaited,
            value,
        }
    }
}
