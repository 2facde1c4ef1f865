//! Drives one MCP client session over the process layer and records the transcript.
//!
//! The session behaves like a real client (handshake, list pages, requests, answers to the
//! server's own requests, shutdown) but never judges: checks read the transcript afterwards.

mod answers;
mod handshake;
pub mod http;
mod lists;
pub mod transcript;
mod transport;
pub mod tuning;

use crate::process::{ProcessEvent, ServerCommand, StdioLimits};
use crate::protocol::jsonrpc::{self, RequestId};
use serde_json::Value;
use std::time::{Duration, Instant};
use transcript::*;
use transport::{SendError, Transport};

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
    /// Run the session against this remote server instead of spawning the command.
    pub http: Option<http::HttpTarget>,
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
    proc: Transport,
    plan: SessionPlan,
    t: Transcript,
    started: Instant,
    next_id: i64,
    phase: Phase,
    stream_end: Option<StreamEnd>,
    exited_at: Option<Instant>,
    /// Answers to the server's requests, written between pump turns.
    pending_replies: Vec<Vec<u8>>,
    /// A reply could not be written in time: the server is not reading; no more are sent.
    replies_stalled: bool,
    /// Under 2026-07-28 every request carries its version in `_meta`.
    modern_version: Option<String>,
    /// A line that is not JSON was sent: a null-id error is then a fair parse-error answer.
    sent_malformed: bool,
    /// The last line the client wrote (not an answer to the server), for a crash's evidence.
    last_sent: Vec<u8>,
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
            limits: plan.limits,
            ..Transcript::default()
        };
        let opened = Transport::open(cmd, plan.http.as_ref(), plan.limits, plan.timeout);
        t.phases.spawn_ms = started.elapsed().as_millis() as u64;
        match opened {
            Ok(proc) => Ok(Self {
                t: Transcript {
                    process: crate::session::transcript::ProcessRecord {
                        pid: proc.pid(),
                        ..t.process
                    },
                    ..t
                },
                proc,
                plan: plan.clone(),
                started,
                next_id: 1,
                phase: Phase::Spawn,
                stream_end: None,
                exited_at: None,
                pending_replies: Vec::new(),
                replies_stalled: false,
                modern_version: None,
                sent_malformed: false,
                last_sent: Vec::new(),
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

    /// The last line the client wrote to the server, without its newline.
    pub fn last_sent(&self) -> String {
        let line = self
            .last_sent
            .strip_suffix(b"\n")
            .unwrap_or(&self.last_sent);
        String::from_utf8_lossy(line).into_owned()
    }

    /// The session runs over Streamable HTTP rather than a process's stdio.
    pub fn over_http(&self) -> bool {
        self.plan.http.is_some()
    }

    /// How Streamable HTTP answered the last notification or malformed body sent.
    pub fn last_http_answer(&self) -> Option<http::UnawaitedAnswer> {
        self.proc.last_unawaited()
    }

    /// Whether stdout is still open and the process has not exited.
    pub fn alive(&self) -> bool {
        self.stream_end.is_none() && self.exited_at.is_none()
    }

    /// The standard session: handshake, list probes, explicit requests.
    async fn drive(&mut self) {
        let step = Instant::now();
        let handshake = self.handshake().await;
        self.t.phases.initialize_ms = elapsed_ms(step);
        let Some(capabilities) = handshake else {
            return;
        };
        let step = Instant::now();
        if self.plan.probe_lists {
            for list in ListKind::ALL {
                if advertises(&capabilities, list.capability()) && self.stream_end.is_none() {
                    self.probe_list(list).await;
                }
            }
        }
        self.t.phases.lists_ms = elapsed_ms(step);
        let step = Instant::now();
        self.requests().await;
        self.t.phases.requests_ms = elapsed_ms(step);
    }

    /// The plan's explicit requests, in order.
    async fn requests(&mut self) {
        for planned in self.plan.requests.clone() {
            if self.stream_end.is_some() {
                break;
            }
            if !self.skip_if_timed_out(&planned) {
                self.request(&planned.method, planned.params, Purpose::Explicit)
                    .await;
            }
        }
    }

    /// Records an explicit request as not sent when the same one (method and params) already
    /// timed out, a list probe's included: its outcome is known, and waiting twice costs a
    /// whole timeout more.
    fn skip_if_timed_out(&mut self, planned: &PlannedRequest) -> bool {
        let params = self.with_meta(planned.params.clone());
        let Some(timed_out) = self.t.exchanges.iter().position(|e| {
            e.outcome == Outcome::Timeout && e.method == planned.method && e.params == params
        }) else {
            return false;
        };
        let id = self.t.exchanges[timed_out].id.clone();
        self.t.exchanges.push(Exchange {
            id,
            method: planned.method.clone(),
            params,
            purpose: Purpose::Explicit,
            sent_ms: self.now_ms(),
            outcome: Outcome::NotSent { timed_out },
            answered_ms: None,
            answer_line: None,
            id_type_mismatch: false,
        });
        true
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
        self.last_sent.clone_from(&bytes);
        match self.proc.send(&bytes, deadline).await {
            Ok(()) => {}
            Err(SendError::TimedOut(_)) => self.t.exchanges[index].outcome = Outcome::Timeout,
            Err(e) => {
                // The server may have answered or exited already; let the pump find out which.
                self.pump_until_ended(Instant::now() + EXIT_DRAIN).await;
                self.t.exchanges[index].outcome = Outcome::SendFailed(e.to_string());
            }
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
        self.last_sent = bytes.to_vec();
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
        self.last_sent.clone_from(&bytes);
        self.proc.send(&bytes, deadline).await.is_ok()
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

    /// After the last answer: listen for late output, then shut down.
    pub async fn finish(mut self) -> Transcript {
        let step = Instant::now();
        self.flush_replies().await;
        if self.stream_end.is_none() && self.t.process.spawn_error.is_none() {
            self.phase = Phase::Settle;
            let settle_deadline = Instant::now() + self.plan.settle;
            // Ends early once the server is seen idle until the window's end: it can write
            // nothing late before then unless something reaches it from outside.
            let mut watch = self.proc.idle_watch();
            loop {
                self.flush_replies().await;
                if !self.proc.late_output_possible() {
                    break;
                }
                let slice = (Instant::now() + crate::process::idle::CONFIRM).min(settle_deadline);
                match self.pump(slice).await {
                    Pumped::Progress => watch.reset(),
                    Pumped::Ended => break,
                    Pumped::Deadline => {
                        if Instant::now() >= settle_deadline || watch.idle_until(settle_deadline) {
                            break;
                        }
                    }
                }
            }
        }
        self.t.phases.settle_ms = elapsed_ms(step);
        let step = Instant::now();
        self.phase = Phase::Shutdown;
        let limit_hit = matches!(
            self.stream_end,
            Some(StreamEnd::LineTooLarge { .. } | StreamEnd::OutputLimit { .. })
        );
        self.t.process.killed_for_limit = limit_hit;
        let ended = self
            .proc
            .shutdown(limit_hit, self.plan.shutdown_grace)
            .await;
        // Written after stdin closed (a buffer flushed at exit): recorded in the shutdown
        // phase, judged like every other line.
        for event in ended.late_stdout {
            if self.stream_end.is_none() {
                self.on_stdout(event);
            }
        }
        let report = ended.shutdown;
        self.t.http = ended.http;
        if let Some(tail) = self.proc.unterminated_stdout() {
            self.t.unterminated = Some(UnterminatedOutput {
                line: tail.number,
                bytes: tail.bytes.len(),
                is_json: serde_json::from_slice::<Value>(&tail.bytes).is_ok(),
            });
        }
        self.t.process.exit = report.as_ref().and_then(|r| r.exit);
        self.t.process.shutdown = report;
        self.t.process.stderr = self.proc.stderr();
        self.t.process.stdout_bytes = self.proc.stdout_bytes();
        self.t.stream_end = self.stream_end;
        self.t.phases.shutdown_ms = elapsed_ms(step);
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

fn elapsed_ms(since: Instant) -> u64 {
    since.elapsed().as_millis() as u64
}

async fn sleep_until_opt(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d.into()).await,
        None => std::future::pending().await,
    }
}
