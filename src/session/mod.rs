//! Drives one MCP client session over the process layer and records the transcript.
//!
//! The session behaves like a real client (handshake, list pages, requests, answers to the
//! server's own requests, shutdown) but never judges: checks read the transcript afterwards.

pub mod transcript;

use crate::process::{ProcessEvent, ServerCommand, ServerProcess, StdioLimits, StdoutEvent};
use crate::protocol::framing::RawLine;
use crate::protocol::jsonrpc::{
    self, LineContent, Message, RequestId, ResponseId, METHOD_NOT_FOUND,
};
use crate::protocol::versions;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::time::{Duration, Instant};
use transcript::*;

/// What the session should do.
#[derive(Debug, Clone)]
pub struct SessionPlan {
    pub protocol: String,
    pub client_name: String,
    pub client_version: String,
    pub probe_lists: bool,
    pub requests: Vec<PlannedRequest>,
    pub timeout: Duration,
    pub settle: Duration,
    pub shutdown_grace: Duration,
    pub max_list_pages: usize,
    pub limits: StdioLimits,
}

#[derive(Debug, Clone)]
pub struct PlannedRequest {
    pub method: String,
    pub params: Option<Value>,
}

/// How long stdout may stay open after the process exited (a grandchild may hold it).
const EXIT_DRAIN: Duration = Duration::from_millis(250);

/// Runs one session to the end. Never fails: every problem is in the transcript.
pub async fn run(cmd: &ServerCommand, plan: &SessionPlan) -> Transcript {
    match Session::start(cmd, plan) {
        Ok(mut session) => {
            session.drive().await;
            session.finish().await
        }
        Err(transcript) => *transcript,
    }
}

/// A live client session over one server process. `run` drives the standard session;
/// engines that need other steps (adversarial probes, the version matrix) drive it themselves.
pub struct Session {
    proc: ServerProcess,
    plan: SessionPlan,
    t: Transcript,
    started: Instant,
    next_id: i64,
    phase: Phase,
    stream_end: Option<StreamEnd>,
    exited_at: Option<Instant>,
    /// Answers to the server's requests, written between pump turns.
    pending_replies: Vec<Vec<u8>>,
    /// Under 2026-07-28 every request carries its version in `_meta`.
    modern_version: Option<String>,
    /// A line that is not JSON was sent: a null-id error is then a fair parse-error answer.
    sent_malformed: bool,
}

/// What one turn of the event pump produced.
enum Pumped {
    Progress,
    Deadline,
    /// Nothing more will come from stdout.
    Ended,
}

impl Session {
    /// Spawns the server. On failure the transcript says why.
    pub fn start(cmd: &ServerCommand, plan: &SessionPlan) -> Result<Self, Box<Transcript>> {
        let started = Instant::now();
        let mut t = Transcript {
            protocol_requested: plan.protocol.clone(),
            timeout_ms: plan.timeout.as_millis() as u64,
            ..Transcript::default()
        };
        match ServerProcess::spawn(cmd, plan.limits) {
            Ok(proc) => Ok(Self {
                proc,
                plan: plan.clone(),
                t,
                started,
                next_id: 1,
                phase: Phase::Spawn,
                stream_end: None,
                exited_at: None,
                pending_replies: Vec::new(),
                modern_version: None,
                sent_malformed: false,
            }),
            Err(e) => {
                t.process.spawn_error = Some(e);
                t.duration_ms = started.elapsed().as_millis() as u64;
                Err(Box::new(t))
            }
        }
    }

    fn now_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    pub fn transcript(&self) -> &Transcript {
        &self.t
    }

    /// Whether stdout is still open and the process has not exited.
    pub fn alive(&self) -> bool {
        self.stream_end.is_none() && self.exited_at.is_none()
    }

    /// The standard session: handshake, list probes, explicit requests.
    async fn drive(&mut self) {
        let Some(capabilities) = self.handshake().await else {
            return;
        };
        if self.plan.probe_lists {
            for list in ListKind::ALL {
                if advertises(&capabilities, list.capability()) && self.stream_end.is_none() {
                    self.probe_list(list).await;
                }
            }
        }
        for planned in self.plan.requests.clone() {
            if self.stream_end.is_some() {
                break;
            }
            self.request(&planned.method, planned.params, Purpose::Explicit)
                .await;
        }
    }

    /// Opens the session the way the requested protocol says; returns the server's
    /// capabilities when the server can be used.
    pub async fn handshake(&mut self) -> Option<Value> {
        self.phase = Phase::Initialize;
        let requested = self.plan.protocol.clone();
        if requested == "auto" {
            return self.auto_handshake().await;
        }
        if requested == versions::MODERN_VERSION {
            let capabilities = self.discover(&requested).await;
            if capabilities.is_some() {
                self.t.era = Some(Era::Modern);
            }
            return capabilities;
        }
        self.initialize(&requested).await
    }

    /// The stdio backward-compatibility rule: try `server/discover`; on any error that is not
    /// a recognised modern error, fall back to `initialize`.
    async fn auto_handshake(&mut self) -> Option<Value> {
        let index = self.discover_exchange(versions::MODERN_VERSION).await;
        match self.t.exchanges[index].outcome.clone() {
            Outcome::Result(Value::Object(r)) => {
                self.t.era = Some(Era::Modern);
                self.modern_version = Some(versions::MODERN_VERSION.into());
                self.phase = Phase::Operations;
                Some(r.get("capabilities").cloned().unwrap_or(Value::Null))
            }
            Outcome::Error(e) if e.code == jsonrpc::UNSUPPORTED_PROTOCOL_VERSION => {
                // A modern server without our version: use the newest legacy one it lists.
                let supported = e.data.as_ref().and_then(|d| d.get("supported"));
                let legacy = supported
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .filter(|v| versions::INITIALIZE_VERSIONS.contains(v))
                    .max()
                    .map(str::to_string);
                self.t.era = Some(Era::Modern);
                let version = legacy?;
                self.initialize(&version).await
            }
            _ if self.stream_end.is_some() => None,
            _ => {
                self.t.era = Some(Era::Legacy);
                self.initialize(versions::DEFAULT_VERSION).await
            }
        }
    }

    async fn initialize(&mut self, version: &str) -> Option<Value> {
        if self.t.era.is_none() {
            self.t.era = Some(Era::Legacy);
        }
        let params = json!({
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": self.plan.client_name, "version": self.plan.client_version},
        });
        let init = self
            .request("initialize", Some(params), Purpose::Initialize)
            .await;
        let Outcome::Result(Value::Object(result)) = &self.t.exchanges[init].outcome else {
            return None;
        };
        let capabilities = result.get("capabilities").cloned().unwrap_or(Value::Null);
        self.phase = Phase::Operations;
        if !self.notify("notifications/initialized", None).await {
            return None;
        }
        Some(capabilities)
    }

    async fn discover_exchange(&mut self, version: &str) -> usize {
        self.modern_version = Some(version.to_string());
        let index = self
            .request("server/discover", None, Purpose::Discover)
            .await;
        self.modern_version = None;
        index
    }

    async fn discover(&mut self, version: &str) -> Option<Value> {
        let index = self.discover_exchange(version).await;
        let Outcome::Result(Value::Object(result)) = &self.t.exchanges[index].outcome else {
            return None;
        };
        let capabilities = result.get("capabilities").cloned().unwrap_or(Value::Null);
        self.modern_version = Some(version.to_string());
        self.phase = Phase::Operations;
        Some(capabilities)
    }

    /// Per-request metadata the 2026-07-28 revision requires.
    fn with_meta(&self, params: Option<Value>) -> Option<Value> {
        let Some(version) = &self.modern_version else {
            return params;
        };
        let mut params = params.unwrap_or_else(|| json!({}));
        if let Some(obj) = params.as_object_mut() {
            obj.insert(
                "_meta".into(),
                json!({
                    "io.modelcontextprotocol/protocolVersion": version,
                    "io.modelcontextprotocol/clientCapabilities": {},
                    "io.modelcontextprotocol/clientInfo": {
                        "name": self.plan.client_name, "version": self.plan.client_version},
                }),
            );
        }
        Some(params)
    }

    /// Sends a request and waits for its answer, its deadline, or the end of stdout.
    pub async fn request(
        &mut self,
        method: &str,
        params: Option<Value>,
        purpose: Purpose,
    ) -> usize {
        let index = self.send_request(None, method, params, purpose).await;
        self.await_answer(index).await;
        index
    }

    /// Sends a request without waiting (with `id` forced, for the duplicate-id probe).
    pub async fn send_request(
        &mut self,
        id: Option<RequestId>,
        method: &str,
        params: Option<Value>,
        purpose: Purpose,
    ) -> usize {
        let id = id.unwrap_or_else(|| {
            self.next_id += 1;
            RequestId::Number(self.next_id - 1)
        });
        let params = self.with_meta(params);
        let index = self.t.exchanges.len();
        self.t.exchanges.push(Exchange {
            id: id.clone(),
            method: method.to_string(),
            params: params.clone(),
            purpose,
            sent_ms: self.now_ms(),
            outcome: Outcome::Pending,
            answered_ms: None,
            answer_line: None,
            id_type_mismatch: false,
        });
        if self.stream_end.is_some() {
            self.t.exchanges[index].outcome = Outcome::NoResponse;
            return index;
        }
        let deadline = Instant::now() + self.plan.timeout;
        let bytes = jsonrpc::encode_request(&id, method, params.as_ref());
        if let Err(e) = self.proc.send(&bytes, deadline).await {
            // The server may have answered or exited already; let the pump find out which.
            self.pump_until_ended(Instant::now() + EXIT_DRAIN).await;
            self.t.exchanges[index].outcome = Outcome::SendFailed(e);
        }
        index
    }

    /// Waits for a sent request's answer, its deadline, or the end of stdout.
    pub async fn await_answer(&mut self, index: usize) {
        let deadline = Instant::now() + self.plan.timeout;
        while self.t.exchanges[index].outcome == Outcome::Pending {
            self.flush_replies().await;
            match self.pump(deadline).await {
                Pumped::Progress => {}
                Pumped::Deadline => self.t.exchanges[index].outcome = Outcome::Timeout,
                Pumped::Ended => self.t.exchanges[index].outcome = Outcome::NoResponse,
            }
        }
    }

    /// Writes bytes as they are (a malformed line); false if the server stopped reading.
    pub async fn send_raw(&mut self, bytes: &[u8]) -> bool {
        if self.stream_end.is_some() {
            return false;
        }
        self.sent_malformed = true;
        let deadline = Instant::now() + self.plan.timeout;
        self.proc.send(bytes, deadline).await.is_ok()
    }

    /// Keeps reading (and answering the server) for a while.
    pub async fn listen(&mut self, window: Duration) {
        let deadline = Instant::now() + window;
        loop {
            self.flush_replies().await;
            match self.pump(deadline).await {
                Pumped::Progress => {}
                Pumped::Deadline | Pumped::Ended => break,
            }
        }
    }

    /// Sends a notification; false if the server stopped reading.
    pub async fn notify(&mut self, method: &str, params: Option<Value>) -> bool {
        if self.stream_end.is_some() {
            return false;
        }
        let bytes = jsonrpc::encode_notification(method, params.as_ref());
        let deadline = Instant::now() + self.plan.timeout;
        self.t.notifications_sent.push(method.to_string());
        self.proc.send(&bytes, deadline).await.is_ok()
    }

    async fn probe_list(&mut self, list: ListKind) {
        let mut probe = ListProbe {
            list,
            exchanges: Vec::new(),
            items: Vec::new(),
            paging_problem: None,
        };
        let mut seen = HashSet::new();
        let mut cursor: Option<String> = None;
        for page in 0.. {
            if page == self.plan.max_list_pages {
                probe.paging_problem = Some(PagingProblem::PageCap { pages: page });
                break;
            }
            let params = cursor.as_ref().map(|c| json!({ "cursor": c }));
            let index = self
                .request(list.method(), params, Purpose::ListProbe { list, page })
                .await;
            probe.exchanges.push(index);
            let Some(result) = self.t.exchanges[index].outcome_result() else {
                break;
            };
            let items = result
                .get(list.items_key())
                .and_then(Value::as_array)
                .cloned();
            cursor = match result.get("nextCursor") {
                // Clients stop on an empty cursor as on a missing one.
                None | Some(Value::Null) => None,
                Some(Value::String(next)) if next.is_empty() => None,
                Some(Value::String(next)) => Some(next.clone()),
                Some(_) => {
                    probe.paging_problem = Some(PagingProblem::CursorNotString);
                    None
                }
            };
            if let Some(c) = cursor.as_ref().filter(|c| !seen.insert((*c).clone())) {
                // A page reached through a repeated cursor repeats items already collected.
                probe.paging_problem = Some(PagingProblem::CursorLoop { cursor: c.clone() });
                break;
            }
            probe.items.extend(items.into_iter().flatten());
            if cursor.is_none() || probe.paging_problem.is_some() {
                break;
            }
        }
        self.t.lists.push(probe);
    }

    /// Handles one event, or reports the deadline or the end of the stream.
    async fn pump(&mut self, deadline: Instant) -> Pumped {
        if self.stream_end.is_some() {
            return Pumped::Ended;
        }
        let drain_deadline = self.exited_at.map(|t| t + EXIT_DRAIN);
        tokio::select! {
            biased;
            event = self.proc.next_event() => {
                match event {
                    ProcessEvent::Stdout(e) => self.on_stdout(e),
                    ProcessEvent::Exited(_) => self.on_exit(),
                }
                if self.stream_end.is_none() {
                    return Pumped::Progress;
                }
                if self.stream_end == Some(StreamEnd::Closed) && self.exited_at.is_none() {
                    // stdout closes as a process exits; wait a moment to learn which it was.
                    let proc = &mut self.proc;
                    if tokio::time::timeout(EXIT_DRAIN, proc.wait_exit()).await.is_ok() {
                        self.on_exit();
                    }
                }
                Pumped::Ended
            }
            _ = sleep_until_opt(drain_deadline), if drain_deadline.is_some() => {
                // The process is gone but something still holds stdout open.
                self.stream_end = Some(StreamEnd::Closed);
                Pumped::Ended
            }
            _ = tokio::time::sleep_until(deadline.into()) => Pumped::Deadline,
        }
    }

    async fn pump_until_ended(&mut self, deadline: Instant) {
        while let Pumped::Progress = self.pump(deadline).await {}
    }

    fn on_exit(&mut self) {
        self.exited_at = Some(Instant::now());
        self.t.process.exited_in = Some(self.phase);
        self.t.process.exited_ms = Some(self.now_ms());
    }

    fn on_stdout(&mut self, event: StdoutEvent) {
        match event {
            StdoutEvent::Line(line) => self.on_line(line),
            StdoutEvent::LineTooLarge { number, bytes_seen } => {
                self.stream_end = Some(StreamEnd::LineTooLarge {
                    line: number,
                    bytes_seen,
                })
            }
            StdoutEvent::OutputLimitExceeded { limit } => {
                self.stream_end = Some(StreamEnd::OutputLimit { limit })
            }
            StdoutEvent::Eof => self.stream_end = Some(StreamEnd::Closed),
            StdoutEvent::ReadError(_) => self.stream_end = Some(StreamEnd::ReadError),
        }
    }

    fn on_line(&mut self, line: RawLine) {
        let content = jsonrpc::parse_line(&line.bytes);
        let messages: Vec<(Message, Value)> = match &content {
            LineContent::Single { message, value } => vec![(message.clone(), value.clone())],
            LineContent::Batch { messages } => messages.clone(),
            _ => Vec::new(),
        };
        let dispositions = messages
            .into_iter()
            .map(|(m, v)| self.dispatch(line.number, m, &v))
            .collect();
        self.t.frames.push(Frame {
            line: line.number,
            at_ms: self.now_ms(),
            bytes: line.bytes.len(),
            had_carriage_return: line.had_carriage_return,
            phase: self.phase,
            content,
            dispositions,
        });
    }

    fn dispatch(&mut self, line: u64, message: Message, value: &Value) -> Disposition {
        match message {
            Message::Response { id, outcome } => {
                let outcome = match outcome {
                    Ok(v) => Outcome::Result(v),
                    Err(e) => Outcome::Error(e),
                };
                self.on_response(line, id, outcome)
            }
            Message::Invalid {
                problem,
                id: Some(id),
            } => {
                // A broken envelope that still names one of our ids: keep the session going
                // with what it carries, so one fault does not cascade into timeouts.
                let outcome = match (value.get("result"), value.get("error")) {
                    (Some(r), _) => Outcome::Result(r.clone()),
                    _ => Outcome::Malformed(problem),
                };
                self.match_answer(line, &id, outcome)
            }
            Message::Invalid { id: None, .. } => Disposition::None,
            Message::Request { id, method, .. } => self.on_server_request(line, id, method),
            Message::Notification { .. } => Disposition::ServerNotification,
        }
    }

    fn on_response(&mut self, line: u64, id: ResponseId, outcome: Outcome) -> Disposition {
        match id {
            ResponseId::Id(id) => self.match_answer(line, &id, outcome),
            ResponseId::Null | ResponseId::Missing => Disposition::of_unidentified_reply(
                self.sent_malformed,
                self.t.notifications_sent.last().map(String::as_str),
            ),
        }
    }

    fn match_answer(&mut self, line: u64, id: &RequestId, outcome: Outcome) -> Disposition {
        // Prefer a request still waiting: ids may repeat (the duplicate-id probe sends two).
        let find = |loose: bool| {
            let matches = |e: &Exchange| {
                if loose {
                    e.id.loosely_equals(id)
                } else {
                    &e.id == id
                }
            };
            let all = self.t.exchanges.iter();
            all.clone()
                .position(|e| matches(e) && e.outcome == Outcome::Pending)
                .or_else(|| all.clone().position(matches))
        };
        let exact = find(false);
        let found = exact.or_else(|| find(true));
        let Some(index) = found else {
            return Disposition::UnknownId;
        };
        let now = self.now_ms();
        let exchange = &mut self.t.exchanges[index];
        match exchange.outcome {
            Outcome::Pending => {
                exchange.outcome = outcome;
                exchange.answered_ms = Some(now);
                exchange.answer_line = Some(line);
                exchange.id_type_mismatch = exact.is_none();
                Disposition::Answered { exchange: index }
            }
            Outcome::Timeout | Outcome::NoResponse | Outcome::SendFailed(_) => {
                Disposition::Late { exchange: index }
            }
            _ => Disposition::Duplicate { exchange: index },
        }
    }

    fn on_server_request(&mut self, line: u64, id: RequestId, method: String) -> Disposition {
        // Answer as a client with no capabilities does: ping succeeds, the rest is unknown.
        let reply = if method == "ping" {
            jsonrpc::encode_result(&id, json!({}))
        } else {
            jsonrpc::encode_error(&id, METHOD_NOT_FOUND, "Method not found")
        };
        let answered_with_error = method != "ping";
        self.t.server_requests.push(ServerRequest {
            line,
            method: crate::finding::excerpt(&method, 128),
            answered_with_error,
        });
        self.pending_replies.push(reply);
        Disposition::ServerRequest {
            answered_with_error,
        }
    }

    async fn flush_replies(&mut self) {
        for reply in std::mem::take(&mut self.pending_replies) {
            let deadline = Instant::now() + self.plan.timeout;
            // A server that stopped reading is caught by the pump; the reply is moot then.
            let _ = self.proc.send(&reply, deadline).await;
        }
    }

    /// After the last answer: listen for late output, then shut down.
    pub async fn finish(mut self) -> Transcript {
        self.flush_replies().await;
        if self.stream_end.is_none() && self.t.process.spawn_error.is_none() {
            self.phase = Phase::Settle;
            let settle_deadline = Instant::now() + self.plan.settle;
            loop {
                self.flush_replies().await;
                match self.pump(settle_deadline).await {
                    Pumped::Progress => {}
                    Pumped::Deadline | Pumped::Ended => break,
                }
            }
        }
        self.phase = Phase::Shutdown;
        let limit_hit = matches!(
            self.stream_end,
            Some(StreamEnd::LineTooLarge { .. } | StreamEnd::OutputLimit { .. })
        );
        let report = if limit_hit {
            self.t.process.killed_for_limit = true;
            self.proc.kill_now().await
        } else {
            self.proc
                .shutdown(self.plan.shutdown_grace, self.plan.shutdown_grace)
                .await
        };
        if let Some(tail) = self.proc.unterminated_stdout() {
            self.t.unterminated = Some(UnterminatedOutput {
                line: tail.number,
                bytes: tail.bytes.len(),
                is_json: serde_json::from_slice::<Value>(&tail.bytes).is_ok(),
            });
        }
        self.t.process.exit = report.exit;
        self.t.process.shutdown = Some(report);
        self.t.process.stderr = self.proc.stderr();
        self.t.process.stdout_bytes = self.proc.stdout_bytes();
        self.t.stream_end = self.stream_end;
        self.t.duration_ms = self.now_ms();
        self.t
    }
}

impl Exchange {
    pub fn outcome_result(&self) -> Option<&Value> {
        match &self.outcome {
            Outcome::Result(v) => Some(v),
            _ => None,
        }
    }
}

/// A capability is advertised when its key is present with a non-null, non-false value.
pub fn advertises(capabilities: &Value, key: &str) -> bool {
    !matches!(
        capabilities.get(key),
        None | Some(Value::Null) | Some(Value::Bool(false))
    )
}

async fn sleep_until_opt(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d.into()).await,
        None => std::future::pending().await,
    }
}
