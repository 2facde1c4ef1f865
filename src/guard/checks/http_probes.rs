//! Streamable HTTP probes after the session: foreign Origin, bogus MCP-Protocol-Version,
//! GET (an event stream or 405; a legacy `endpoint`; no response on the stream held open), DELETE and the ended session, and the
//! authorization metadata behind a 401 (RFC 9728, then RFC 8414 / OpenID).

use super::{Check, CheckContext};
use crate::catalog::Code;
use crate::finding::Finding;
use crate::session::http::{AuthDocument, AuthProblem};

pub struct HttpProbes;

fn ok(status: u16) -> bool {
    (200..300).contains(&status)
}

impl Check for HttpProbes {
    fn name(&self) -> &'static str {
        "httpProbes"
    }

    fn codes(&self) -> &'static [Code] {
        &[
            Code::HttpOriginNotValidated,
            Code::HttpProtocolVersionHeader,
            Code::HttpGetStream,
            Code::HttpLegacySse,
            Code::HttpSessionTermination,
            Code::HttpResourceMetadata,
            Code::HttpAuthorizationServerMetadata,
        ]
    }

    fn applies(&self, t: &crate::session::transcript::Transcript) -> bool {
        t.http.is_some()
    }

    fn run(&self, cx: &CheckContext<'_>, out: &mut Vec<Finding>) {
        let Some(http) = &cx.transcript.http else {
            return;
        };
        let p = &http.probes;
        if let Some(status) = p.foreign_origin.filter(|s| ok(*s) && http.local) {
            out.push(
                Finding::new(
                    Code::HttpOriginNotValidated,
                    format!(
                        "The server on a local address answered HTTP {status} to a request with Origin: {}; a web page could reach it by DNS rebinding.",
                        crate::session::http::FOREIGN_ORIGIN
                    ),
                )
                .detail("foreign-origin-accepted"),
            );
        }
        if let Some(status) = p.bad_version_header.filter(|s| *s != 400) {
            out.push(
                Finding::new(
                    Code::HttpProtocolVersionHeader,
                    format!(
                        "A request with MCP-Protocol-Version: {} got HTTP {status}, not 400 Bad Request.",
                        crate::session::http::BOGUS_VERSION
                    ),
                )
                .detail(if ok(status) { "bogus-version-accepted" } else { "bogus-version-status" }),
            );
        }
        if let Some((status, sse, first_event)) = &p.get {
            if *sse && first_event.as_deref() == Some("endpoint") {
                out.push(
                    Finding::new(
                        Code::HttpLegacySse,
                        "GET on the URL opened an event stream whose first event is `endpoint`: the legacy HTTP+SSE transport (2024-11-05).",
                    )
                    .detail("endpoint-event"),
                );
            } else if handshake_done(cx) && !(*status == 405 || (*status == 200 && *sse)) {
                out.push(
                    Finding::new(
                        Code::HttpGetStream,
                        format!(
                            "GET with Accept: text/event-stream got HTTP {status}{}, not an event stream or 405.",
                            if *sse { "" } else { " without an event stream" }
                        ),
                    )
                    .detail(if *status == 200 { "not-event-stream" } else { "unexpected-status" }),
                );
            }
        }
        if let Some(g) = &http.get_stream {
            if let Some(first) = g.responses.first() {
                out.push(
                    Finding::new(
                        Code::HttpGetStream,
                        format!(
                            "The standalone GET stream carried {} JSON-RPC response{} (first id {first}); a server must not send responses on it unless the client resumes a request's stream.",
                            g.responses.len(),
                            if g.responses.len() == 1 { "" } else { "s" }
                        ),
                    )
                    .detail("response-on-get-stream"),
                );
            }
        }
        if let Some(status) = p.delete.filter(|s| !ok(*s) && *s != 405) {
            out.push(
                Finding::new(
                    Code::HttpSessionTermination,
                    format!("DELETE with the session id got HTTP {status}, not 2xx or 405."),
                )
                .detail("delete-status"),
            );
        }
        if let Some(status) = p.after_delete.filter(|s| *s != 404) {
            out.push(
                Finding::new(
                    Code::HttpSessionTermination,
                    format!(
                        "After DELETE ended the session, a request with its id got HTTP {status}, not 404 Not Found."
                    ),
                )
                .detail("ended-session-status"),
            );
        }
        if let Some(m) = &p.resource_metadata {
            for problem in &m.problems {
                out.push(authorization_finding(&m.url, problem));
            }
        }
    }
}

/// One missing or invalid item of the authorization metadata, one finding.
fn authorization_finding(url: &str, problem: &AuthProblem) -> Finding {
    match &problem.document {
        AuthDocument::ProtectedResource => {
            let what = if url.is_empty() {
                String::new()
            } else {
                format!(" ({url})")
            };
            Finding::new(
                Code::HttpResourceMetadata,
                format!(
                    "The protected resource metadata{what}: {}.",
                    problem.message
                ),
            )
        }
        AuthDocument::AuthorizationServer(issuer) => Finding::new(
            Code::HttpAuthorizationServerMetadata,
            format!(
                "The metadata of authorization server {issuer}: {}.",
                problem.message
            ),
        ),
    }
    .detail(problem.detail)
}

fn handshake_done(cx: &CheckContext<'_>) -> bool {
    cx.transcript.initialize_result().is_some()
}
