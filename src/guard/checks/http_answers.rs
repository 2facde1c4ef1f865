//! Streamable HTTP: how the server answered each POST of the session (reachability, TLS,
//! statuses, media types, JSON bodies, event streams, response ids, 202 for notifications,
//! session ids).

use super::{Check, CheckContext};
use crate::catalog::Code;
use crate::finding::{Finding, Location};
use crate::session::http::{BodyProblem, HttpFact};

pub struct HttpAnswers;

impl Check for HttpAnswers {
    fn name(&self) -> &'static str {
        "httpTransport"
    }

    fn codes(&self) -> &'static [Code] {
        &[
            Code::HttpUnreachable,
            Code::HttpTlsInvalid,
            Code::HttpErrorStatus,
            Code::HttpContentType,
            Code::HttpBodyInvalid,
            Code::HttpSseMalformed,
            Code::HttpResponseMissing,
            Code::HttpResponseWrongId,
            Code::HttpNotificationNotAccepted,
            Code::HttpSessionId,
            Code::HttpUnauthorized,
        ]
    }

    fn applies(&self, t: &crate::session::transcript::Transcript) -> bool {
        t.http.is_some()
    }

    fn run(&self, cx: &CheckContext<'_>, out: &mut Vec<Finding>) {
        let Some(http) = &cx.transcript.http else {
            return;
        };
        let mut body_problem_seen = false;
        // A legacy HTTP+SSE server refuses the POST; http-legacy-sse says why.
        // (Not when the session ran over that transport: then its own answers are judged.)
        let legacy = http.legacy.is_none()
            && matches!(&http.probes.get, Some((_, true, Some(e))) if e == "endpoint");
        for fact in &http.facts {
            let finding = match fact {
                HttpFact::Status { method, .. }
                | HttpFact::NoAnswer { method, .. }
                | HttpFact::Refused { method, .. }
                | HttpFact::Body { method, .. }
                    if legacy && method == "initialize" =>
                {
                    continue
                }
                HttpFact::Unreachable { method, cause } if cause.tls => Finding::new(
                    Code::HttpTlsInvalid,
                    format!("The TLS handshake for `{method}` failed: {}.", cause.message),
                )
                .detail("tls-handshake")
                .at(Location::request(method)),
                HttpFact::Unreachable { method, cause } => Finding::new(
                    Code::HttpUnreachable,
                    format!("`{method}` got no HTTP answer: {}.", cause.message),
                )
                .detail(if cause.message.contains("timeout") {
                    "timeout"
                } else {
                    "connect-failed"
                })
                .at(Location::request(method)),
                HttpFact::Status { method, status } => Finding::new(
                    Code::HttpErrorStatus,
                    format!(
                        "`{method}` was answered with HTTP {status} and no JSON-RPC answer in the body."
                    ),
                )
                .detail(if *status >= 500 { "server-error" } else { "client-error" })
                .at(Location::request(method)),
                HttpFact::Body { method, problem } => {
                    body_problem_seen = true;
                    body_finding(method, problem)
                }
                // A broken body already says why the answer is missing.
                HttpFact::NoAnswer { .. } if body_problem_seen => continue,
                HttpFact::NoAnswer { method, status, sse } => Finding::new(
                    Code::HttpResponseMissing,
                    format!(
                        "The HTTP {status} answer to `{method}` ({}) ended without its JSON-RPC response.",
                        if *sse { "an event stream" } else { "a JSON body" }
                    ),
                )
                .detail(if *sse { "stream-ended" } else { "body-without-response" })
                .at(Location::request(method)),
                HttpFact::WrongId { method, id, sse } => Finding::new(
                    Code::HttpResponseWrongId,
                    format!(
                        "The answer to `{method}` ({}) carried a response with id {id}, not the request's.",
                        if *sse { "an event stream" } else { "a JSON body" }
                    ),
                )
                .detail(if *sse { "stream-wrong-id" } else { "body-wrong-id" })
                .at(Location::request(method)),
                HttpFact::NotAccepted {
                    method,
                    status,
                    body_bytes,
                } => Finding::new(
                    Code::HttpNotificationNotAccepted,
                    format!(
                        "`{method}` was answered with HTTP {status} and {body_bytes} bytes of body, not 202 Accepted with none."
                    ),
                )
                .detail(if *status == 202 { "body-with-202" } else { "not-202" })
                .at(Location::request(method)),
                HttpFact::SessionRotated { method } => Finding::new(
                    Code::HttpSessionId,
                    format!(
                        "The answer to `{method}` carried another Mcp-Session-Id than initialize gave."
                    ),
                )
                .detail("rotated")
                .at(Location::request(method)),
                // `--protocol auto` asks server/discover first and falls back when refused.
                HttpFact::Refused { method, .. }
                    if method == "server/discover" && cx.transcript.protocol_requested == "auto" =>
                {
                    continue
                }
                HttpFact::Refused {
                    method,
                    status,
                    message,
                } => Finding::new(
                    Code::HttpErrorStatus,
                    format!("`{method}` was refused with HTTP {status}: {message}"),
                )
                .detail("refused")
                .at(Location::request(method)),
                HttpFact::Unauthorized { .. } => Finding::new(
                    Code::HttpUnauthorized,
                    "The server answered 401 Unauthorized; give a token with --header Authorization=\"Bearer ...\".",
                )
                .detail("unauthorized"),
            };
            out.push(finding);
        }
        if let Some(status) = http.probes.missing_session {
            if status != 400 && !(200..300).contains(&status) {
                out.push(
                    Finding::new(
                        Code::HttpSessionId,
                        format!(
                            "A request without the Mcp-Session-Id the server issued got HTTP {status}, not 400 Bad Request."
                        ),
                    )
                    .detail("missing-session-status"),
                );
            }
        }
    }
}

/// The standalone GET stream answers no request: its broken events are worded for it.
fn get_stream_problem(problem: &BodyProblem) -> Option<(&'static str, String)> {
    Some(match problem {
        BodyProblem::SseMalformedLine(l) => (
            "malformed-line",
            format!("The standalone GET stream has a line that is not `field: value`: `{l}`."),
        ),
        BodyProblem::SseDataNotJson(d) => (
            "data-not-json",
            format!("An event on the standalone GET stream carries data that is not JSON: `{d}`."),
        ),
        BodyProblem::TooLarge(limit) => (
            "too-large",
            format!("The standalone GET stream went past the {limit}-byte bound (one event, or the stream in all); it was dropped."),
        ),
        BodyProblem::TooManyEvents(n) => (
            "too-many-events",
            format!("The standalone GET stream sent more than {n} events; it was dropped."),
        ),
        _ => return None,
    })
}

fn body_finding(method: &str, problem: &BodyProblem) -> Finding {
    if let Some((detail, message)) = get_stream_problem(problem).filter(|_| method == "GET") {
        return Finding::new(Code::HttpSseMalformed, message)
            .detail(detail)
            .at(Location::request(method));
    }
    let (code, detail, message) = match problem {
        BodyProblem::ContentType(t) => (
            Code::HttpContentType,
            if t.is_some() { "wrong-content-type" } else { "no-content-type" },
            format!(
                "The answer to `{method}` has Content-Type {}, not application/json or text/event-stream.",
                t.as_deref()
                    .map(|t| format!("`{}`", crate::finding::excerpt(t, 60)))
                    .unwrap_or_else(|| "none".into())
            ),
        ),
        BodyProblem::NotJson(e) => (
            Code::HttpBodyInvalid,
            "not-json",
            format!("The answer to `{method}` is not JSON: `{e}`."),
        ),
        BodyProblem::NotOneResponse(e) => (
            Code::HttpBodyInvalid,
            "not-one-response",
            format!("The JSON answer to `{method}` is not one JSON-RPC response: `{e}`."),
        ),
        BodyProblem::SseMalformedLine(l) => (
            Code::HttpSseMalformed,
            "malformed-line",
            format!("The event stream answering `{method}` has a line that is not `field: value`: `{l}`."),
        ),
        BodyProblem::SseDataNotJson(d) => (
            Code::HttpSseMalformed,
            "data-not-json",
            format!("An event answering `{method}` carries data that is not JSON: `{d}`."),
        ),
        BodyProblem::TooLarge(limit) => (
            Code::HttpSseMalformed,
            "too-large",
            format!("An event answering `{method}` is larger than {limit} bytes; the stream was abandoned."),
        ),
        BodyProblem::TooManyEvents(n) => (
            Code::HttpSseMalformed,
            "too-many-events",
            format!("The event stream answering `{method}` sent more than {n} events without the response."),
        ),
        BodyProblem::ReadFailed(e) => (
            Code::HttpResponseMissing,
            "read-failed",
            format!("The answer to `{method}` could not be read to its end: {e}."),
        ),
    };
    Finding::new(code, message)
        .detail(detail)
        .at(Location::request(method))
}
