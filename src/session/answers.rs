//! Reading stdout: every line becomes a frame, every answer is matched to its request, and
//! the server's own requests are answered as a client without capabilities answers them.

use super::transcript::{Disposition, Exchange, Frame, Outcome, ServerRequest, StreamEnd};
use super::Session;
use crate::process::StdoutEvent;
use crate::protocol::framing::RawLine;
use crate::protocol::jsonrpc::{
    self, LineContent, Message, RequestId, ResponseId, METHOD_NOT_FOUND,
};
use serde_json::{json, Value};
use std::time::Instant;

impl Session {
    pub(super) fn on_stdout(&mut self, event: StdoutEvent) {
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
        if content == LineContent::ContentLengthHeader {
            // Nothing after an LSP header ends in a newline a client would wait for: fail fast.
            self.stream_end = Some(StreamEnd::Unusable { line: line.number });
        }
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
        let instead = self.request_instead_of_answer(line, &id, &method);
        // Answer as a client with no capabilities does: ping succeeds, the rest is unknown.
        let reply = if method == "ping" {
            jsonrpc::encode_result(&id, json!({}))
        } else {
            jsonrpc::encode_error(&id, METHOD_NOT_FOUND, "Method not found")
        };
        let answered_with_error = method != "ping";
        self.t.server_requests.record(ServerRequest {
            line,
            method: crate::finding::excerpt(&method, 128),
            answered_with_error,
            phase: self.phase,
        });
        if !self.replies_stalled {
            self.pending_replies.push(reply);
        }
        match instead {
            Some(exchange) => Disposition::RequestInsteadOfAnswer { exchange },
            None => Disposition::ServerRequest {
                answered_with_error,
            },
        }
    }

    /// A server request with the id of one of ours still waiting and a method only servers
    /// serve (its own `initialize`, `tools/list`…) is our request turned around: that request
    /// ends there, since the server will not answer what it took for its own.
    fn request_instead_of_answer(
        &mut self,
        line: u64,
        id: &RequestId,
        method: &str,
    ) -> Option<usize> {
        // What a client may be asked; a server may reuse our id for these legitimately.
        let client_serves = method == "ping"
            || ["sampling/", "roots/", "elicitation/", "tasks/"]
                .iter()
                .any(|p| method.starts_with(p));
        if client_serves {
            return None;
        }
        let now = self.now_ms();
        let index = self
            .t
            .exchanges
            .iter()
            .position(|e| &e.id == id && e.outcome == Outcome::Pending)?;
        let exchange = &mut self.t.exchanges[index];
        exchange.outcome = Outcome::RequestInstead {
            method: crate::finding::excerpt(method, 128),
        };
        exchange.answered_ms = Some(now);
        exchange.answer_line = Some(line);
        Some(index)
    }

    pub(super) async fn flush_replies(&mut self) {
        for reply in std::mem::take(&mut self.pending_replies) {
            if self.replies_stalled {
                return;
            }
            let deadline = Instant::now() + self.plan.timeout;
            // A server that stops reading its stdin while it floods stdout would otherwise
            // hold the guard for a timeout per reply (the guard does not read while it
            // writes): after one reply that could not be written, the rest are dropped.
            if self.proc.send(&reply, deadline).await.is_err() {
                self.replies_stalled = true;
            }
        }
    }
}
