//! Messages: requests waiting for their answers, answers matched to them (latency, unknown
//! ids, second answers, replies to notifications), and requests left unanswered too long.

use super::frames::Observed;
use super::methods::Name;
use super::surface::Listings;
use super::{Body, Direction, Entry, LineSeen, Observer, RecordKind};
use crate::catalog::Code;
use crate::finding::{excerpt, Finding, Location};
use crate::frame_findings::{self, FrameFault};
use crate::protocol::jsonrpc::{ErrorObject, Message, RequestId, ResponseId};
use crate::protocol::lean::LeanMessage;
use crate::server_traffic::{
    undeclared_capability, undeclared_capability_finding, MessageAt, Unasked,
};
use crate::session::transcript::{Disposition, Phase};
use memchr::memmem;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::{Arc, LazyLock};
use std::time::Instant;

/// Latency samples kept for percentiles.
const MAX_SAMPLES: usize = 100_000;
/// Requests awaiting an answer that are tracked per direction; a peer that never answers
/// cannot make the observer grow without bound.
pub(super) const MAX_PENDING: usize = 10_000;

pub(super) struct PendingRequest {
    method: Name,
    /// Whether the request asked for a later page (it had a cursor).
    next_page: bool,
    sent: Instant,
    /// Already reported as late, or no longer judged (its answer may have been missed).
    pub(super) settled: bool,
}

/// The client's requests the server answered most recently, so a second answer is named
/// as one; the oldest are forgotten first.
#[derive(Default)]
pub(super) struct RecentAnswers {
    methods: super::IdMap<Name>,
    order: VecDeque<RequestId>,
}

impl RecentAnswers {
    fn insert(&mut self, id: RequestId, method: &Name) {
        if self.order.len() == MAX_PENDING {
            if let Some(old) = self.order.pop_front() {
                self.methods.remove(&old);
            }
        }
        if self.methods.insert(id.clone(), method.clone()).is_none() {
            self.order.push_back(id);
        }
    }

    fn method(&self, id: &RequestId) -> Option<&Name> {
        self.methods.get(id)
    }
}

/// A message as `observe_message` reads it: its method borrowed from the line when it was
/// read lean, owned when it was parsed.
pub(super) enum Incoming<'a> {
    Request {
        id: RequestId,
        method: Cow<'a, str>,
        params: Option<Value>,
    },
    Notification {
        method: Cow<'a, str>,
    },
    Response {
        id: ResponseId,
        outcome: Result<Value, ErrorObject>,
    },
    Invalid,
}

impl From<Message> for Incoming<'_> {
    fn from(message: Message) -> Self {
        match message {
            Message::Request { id, method, params } => Incoming::Request {
                id,
                method: Cow::Owned(method),
                params,
            },
            Message::Notification { method, .. } => Incoming::Notification {
                method: Cow::Owned(method),
            },
            Message::Response { id, outcome } => Incoming::Response { id, outcome },
            Message::Invalid { .. } => Incoming::Invalid,
        }
    }
}

/// The id of the other JSON type that a lenient peer would match to `id` ("1" for 1).
fn loosely_equal_id(id: &RequestId) -> Option<RequestId> {
    let other = match id {
        RequestId::Number(n) => RequestId::String(n.to_string()),
        RequestId::String(s) => RequestId::Number(s.trim().parse().ok()?),
    };
    other.loosely_equals(id).then_some(other)
}

/// The requests that open a session.
fn is_handshake(method: &str) -> bool {
    method == "initialize" || method == "server/discover"
}

impl Observer {
    /// The message a lean reading stands for, its method borrowed from the line, with the
    /// JSON values `observe_message` reads parsed and the others left empty: a request's params only for `initialize` or when
    /// they may hold a cursor, a result only when it answers a handshake or a listing the
    /// server was asked for. `None` if one of those does not parse.
    pub(super) fn lean_message<'a>(
        &self,
        dir: Direction,
        lean: LeanMessage<'a>,
    ) -> Option<Incoming<'a>> {
        let value = |raw: &str| serde_json::from_str::<Value>(raw).ok();
        Some(match lean {
            LeanMessage::Request { id, method, params } => {
                // A finder made once: `str::contains` sets one up per call.
                static CURSOR: LazyLock<memmem::Finder<'static>> =
                    LazyLock::new(|| memmem::Finder::new("\"cursor\""));
                let read = method == "initialize"
                    || params.is_some_and(|p| CURSOR.find(p.as_bytes()).is_some());
                let params = match params {
                    Some(p) if read => Some(value(p)?),
                    _ => None,
                };
                Incoming::Request {
                    id,
                    method: Cow::Borrowed(method),
                    params,
                }
            }
            LeanMessage::Notification { method, .. } => Incoming::Notification {
                method: Cow::Borrowed(method),
            },
            LeanMessage::Result { id, result } => {
                let pending = &self.pending[dir.other().index()];
                let read = dir == Direction::ServerToClient
                    && pending
                        .get(&id)
                        .or_else(|| loosely_equal_id(&id).and_then(|l| pending.get(&l)))
                        .is_some_and(|req| {
                            let method = self.names.get(&req.method);
                            is_handshake(method) || Listings::reads_result(method)
                        });
                let result = if read { value(result)? } else { Value::Null };
                Incoming::Response {
                    id: ResponseId::Id(id),
                    outcome: Ok(result),
                }
            }
        })
    }

    /// Observes one message read at `seen`; its record goes to `out`.
    pub(super) fn observe_message(
        &mut self,
        seen: &LineSeen,
        message: Incoming<'_>,
        body: Body,
        out: &mut Observed,
    ) {
        let dir = seen.dir;
        let from_server = dir == Direction::ServerToClient;
        let other = dir.other();
        let findings = &mut out.findings;
        match message {
            Incoming::Request { id, method, params } => {
                if !from_server && self.phase == Phase::Spawn && is_handshake(&method) {
                    self.phase = Phase::Initialize;
                }
                if !from_server && method == "initialize" {
                    let declared = params.as_ref().and_then(|p| p.get("capabilities"));
                    self.client_capabilities = Some(declared.cloned().unwrap_or_default());
                }
                if from_server {
                    self.judge_server_request(&method, seen.line, findings);
                    self.meter_unasked(Unasked::Request, &method, seen, findings);
                }
                let name = self.names.count(&method);
                let pending = &mut self.pending[dir.index()];
                if pending.len() < MAX_PENDING || pending.contains_key(&id) {
                    let next_page = params.as_ref().and_then(|p| p.get("cursor")).is_some();
                    let req = PendingRequest {
                        method: name.clone(),
                        next_page,
                        sent: seen.at,
                        settled: false,
                    };
                    pending.insert(id.clone(), req);
                } else {
                    // Its answer will look unsolicited: stop judging those.
                    self.untracked[dir.index()] += 1;
                    self.blind[dir.index()] = true;
                }
                let entry = Entry {
                    method: Some(self.names.get(&name)),
                    id: Some(&id),
                    ..Entry::new(RecordKind::Request, body)
                };
                entry.add_to(seen, &mut out.batch);
            }
            Incoming::Notification { method } => {
                if !from_server {
                    self.last_notification = Some(excerpt(&method, 128));
                } else {
                    self.meter_unasked(Unasked::Notification, &method, seen, findings);
                }
                let name = self.names.count(&method);
                let entry = Entry {
                    method: Some(self.names.get(&name)),
                    ..Entry::new(RecordKind::Notification, body)
                };
                entry.add_to(seen, &mut out.batch);
            }
            Incoming::Response {
                id: ResponseId::Id(id),
                outcome,
            } => {
                let kind = if outcome.is_ok() {
                    RecordKind::Response
                } else {
                    RecordKind::Error
                };
                let Some((req, loose_id)) = self.take_pending(other, &id) else {
                    if from_server && !self.blind[other.index()] {
                        let fault = match self.answered.method(&id) {
                            Some(method) => FrameFault::DuplicateResponse {
                                method: self.names.get(method).to_string(),
                                id: id.clone(),
                            },
                            None => FrameFault::UnknownId,
                        };
                        let f = fault.finding(&[seen.line], self.phase);
                        self.report(findings, f);
                    }
                    let entry = Entry {
                        id: Some(&id),
                        ..Entry::new(kind, body)
                    };
                    return entry.add_to(seen, &mut out.batch);
                };
                let latency = seen.at.saturating_duration_since(req.sent).as_secs_f64() * 1000.0;
                if self.latencies.len() < MAX_SAMPLES {
                    self.latencies.push(latency);
                }
                if let (true, Some(sent)) = (from_server, &loose_id) {
                    let answered = [(&**self.names.get(&req.method), sent, Some(seen.line))];
                    if let Some(f) = frame_findings::id_type_mismatch(&answered) {
                        self.report(findings, f);
                    }
                }
                if from_server {
                    self.answered.insert(id.clone(), &req.method);
                    if let Ok(result) = &outcome {
                        let method = self.names.get(&req.method);
                        if is_handshake(method) {
                            self.phase = Phase::Operations;
                        }
                        let found = self.listings.after_result(method, req.next_page, result);
                        for f in found {
                            self.report(findings, f);
                        }
                    }
                }
                let entry = Entry {
                    method: Some(self.names.get(&req.method)),
                    id: Some(&id),
                    latency_ms: Some(latency),
                    ..Entry::new(kind, body)
                };
                entry.add_to(seen, &mut out.batch);
            }
            Incoming::Response { .. } => {
                if from_server {
                    let reply = Disposition::of_unidentified_reply(
                        self.client_sent_malformed,
                        self.last_notification.as_deref(),
                    );
                    if let Some(fault) = FrameFault::of_disposition(&reply) {
                        let f = fault.finding(&[seen.line], self.phase);
                        self.report(findings, f);
                    }
                }
                Entry::new(RecordKind::Response, body).add_to(seen, &mut out.batch);
            }
            Incoming::Invalid => {
                // Its envelope was judged with the rest of the line.
                self.invalid += 1;
                Entry::new(RecordKind::Invalid, body).add_to(seen, &mut out.batch);
            }
        }
    }

    /// A server request for a client capability the client's initialize did not declare:
    /// reported at the first, counted after (the count is final in `finish`).
    fn judge_server_request(&mut self, method: &str, line: u64, findings: &mut Vec<Finding>) {
        let Some(declared) = &self.client_capabilities else {
            return; // The client's handshake was not seen: nothing to judge against.
        };
        let Some(capability) = undeclared_capability(method, declared) else {
            return;
        };
        let entry = self
            .undeclared
            .entry(method.to_string())
            .or_insert((capability, 0, line));
        entry.1 += 1;
        if entry.1 == 1 {
            let f = undeclared_capability_finding(method, capability, 1, MessageAt::stdout(line));
            self.report(findings, f);
        }
    }

    /// Meters the server's notifications and requests; a flood is reported when it starts.
    fn meter_unasked(
        &mut self,
        kind: Unasked,
        method: &str,
        seen: &LineSeen,
        findings: &mut Vec<Finding>,
    ) {
        let at_ms = seen.at.saturating_duration_since(self.started).as_millis() as u64;
        if self.floods.record(kind, method, at_ms, seen.line) {
            if let Some(f) = self.floods.finding(kind, method) {
                self.report(findings, f);
            }
        }
    }

    /// Flood findings with the final counts, for the report.
    pub(super) fn count_floods(&mut self) {
        for counted in self.floods.findings() {
            if let Some(f) = self.findings.iter_mut().find(|f| {
                f.code == Code::ServerMessageFlood
                    && f.detail_code == counted.detail_code
                    && f.location.request == counted.location.request
            }) {
                f.message = counted.message;
            }
        }
    }

    /// The findings for undeclared capabilities, with the final count of each method.
    pub(super) fn count_undeclared(&mut self) {
        for (method, (capability, count, line)) in &self.undeclared {
            let counted =
                undeclared_capability_finding(method, capability, *count, MessageAt::stdout(*line));
            if let Some(f) = self.findings.iter_mut().find(|f| {
                f.code == Code::ServerRequestUndeclaredCapability
                    && f.location.request.as_deref() == Some(method.as_str())
            }) {
                f.message = counted.message;
            }
        }
    }

    /// The request sent in `dir` that an answer with `id` matches: by its id, or by the id
    /// of the other JSON type that a lenient client matches (then returned too).
    fn take_pending(
        &mut self,
        dir: Direction,
        id: &RequestId,
    ) -> Option<(PendingRequest, Option<RequestId>)> {
        let pending = &mut self.pending[dir.index()];
        if let Some(req) = pending.remove(id) {
            return Some((req, None));
        }
        let sent = loosely_equal_id(id)?;
        pending.remove(&sent).map(|req| (req, Some(sent)))
    }

    /// Requests of the client left unanswered past the timeout at `now` (each reported once).
    pub fn check_timeouts(&mut self, now: Instant) -> Vec<Finding> {
        let mut out = Vec::new();
        let timeout = self.timeout;
        let mut late = Vec::new();
        for (id, req) in self.pending[Direction::ClientToServer.index()].iter_mut() {
            if !req.settled && now.saturating_duration_since(req.sent) > timeout {
                req.settled = true;
                late.push((id.clone(), Arc::clone(self.names.get(&req.method))));
            }
        }
        for (id, method) in late {
            self.report(
                &mut out,
                Finding::new(
                    Code::OperationTimeout,
                    format!(
                        "`{}` (id {id}) has not been answered after {} ms.",
                        excerpt(&method, 80),
                        timeout.as_millis()
                    ),
                )
                .at(Location::request(&method)),
            );
        }
        out
    }
}
