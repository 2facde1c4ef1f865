//! The legacy HTTP+SSE transport (2024-11-05), when the session ran over it: the stream's
//! `endpoint`, the POSTs to it, the responses on the stream, and the stream's SSE format.

use super::{Check, CheckContext};
use crate::catalog::Code;
use crate::finding::{Finding, Location};
use crate::session::http::legacy::LegacyFact;
use crate::session::http::BodyProblem;

pub struct HttpLegacy;

impl Check for HttpLegacy {
    fn name(&self) -> &'static str {
        "httpLegacyTransport"
    }

    fn codes(&self) -> &'static [Code] {
        &[
            Code::HttpLegacyEndpoint,
            Code::HttpLegacyPostRejected,
            Code::HttpLegacyResponseMissing,
            Code::HttpSseMalformed,
        ]
    }

    fn applies(&self, t: &crate::session::transcript::Transcript) -> bool {
        t.http.as_ref().is_some_and(|h| h.legacy.is_some())
    }

    fn run(&self, cx: &CheckContext<'_>, out: &mut Vec<Finding>) {
        let Some(legacy) = cx.transcript.http.as_ref().and_then(|h| h.legacy.as_ref()) else {
            return;
        };
        let mut stream_details = Vec::new();
        for fact in &legacy.facts {
            // One finding per kind of format fault: a stream repeats its framing.
            if let LegacyFact::Stream(p) = fact {
                let kind = std::mem::discriminant(p);
                if stream_details.contains(&kind) {
                    continue;
                }
                stream_details.push(kind);
            }
            out.push(match fact {
                LegacyFact::Endpoint { detail, message } => Finding::new(
                    Code::HttpLegacyEndpoint,
                    format!("The legacy HTTP+SSE stream gave no usable endpoint: {message}."),
                )
                .detail(detail),
                LegacyFact::PostRejected { method, status } => Finding::new(
                    Code::HttpLegacyPostRejected,
                    format!(
                        "The POST of `{method}` to the legacy endpoint was answered with HTTP {status}, not 2xx."
                    ),
                )
                .detail(if *status >= 500 { "server-error" } else { "client-error" })
                .at(Location::request(method)),
                LegacyFact::ResponseMissing {
                    method,
                    stream_ended,
                } => Finding::new(
                    Code::HttpLegacyResponseMissing,
                    if *stream_ended {
                        format!("The legacy event stream ended before the response to `{method}` came.")
                    } else {
                        format!(
                            "The response to `{method}` did not come on the legacy event stream within {} ms.",
                            cx.transcript.timeout_ms
                        )
                    },
                )
                .detail(if *stream_ended { "stream-ended" } else { "timeout" })
                .at(Location::request(method)),
                LegacyFact::Stream(problem) => stream_finding(problem),
            });
        }
    }
}

fn stream_finding(problem: &BodyProblem) -> Finding {
    let (detail, message) = match problem {
        BodyProblem::SseMalformedLine(l) => (
            "malformed-line",
            format!("The legacy event stream has a line that is not `field: value`: `{l}`."),
        ),
        BodyProblem::SseDataNotJson(d) => (
            "data-not-json",
            format!("A `message` event on the legacy stream carries data that is not JSON: `{d}`."),
        ),
        BodyProblem::TooLarge(limit) => (
            "too-large",
            format!("An event on the legacy stream is larger than {limit} bytes; the stream was abandoned."),
        ),
        BodyProblem::TooManyEvents(n) => (
            "too-many-events",
            format!("The legacy event stream sent more than {n} events; the rest was not read."),
        ),
        other => ("malformed-line", format!("The legacy event stream broke: {other:?}.")),
    };
    Finding::new(Code::HttpSseMalformed, message).detail(detail)
}
