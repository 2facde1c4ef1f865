//! The adversarial probes over HTTP: a request refused without a JSON-RPC answer, and the
//! status Streamable HTTP gives a notification or a body that is not JSON.

use super::{finding, Verdict};
use crate::catalog::Code;
use crate::finding::{excerpt, Finding, Severity};
use crate::session::http::{BodyProblem, HttpFact};
use crate::session::transcript::Transcript;
use crate::session::Session;

/// A request the server answered over HTTP without a JSON-RPC answer: it was left unanswered
/// (an HTTP error status may carry a JSON-RPC error, and that is an answer).
pub(super) fn refused(name: &str, what: &str, why: &str) -> Verdict {
    let why = excerpt(why, 120);
    Verdict::fault(
        format!("{what}: refused over HTTP ({why})"),
        finding(
            Code::AdversarialProbeTimeout,
            name,
            format!("The server answered {what} over HTTP without a JSON-RPC answer ({why}); every request needs an answer, an error at least (an HTTP error status may carry it)."),
        ),
    )
}

/// What the POST of a probe got over Streamable HTTP, described.
pub(super) enum PostAnswer {
    /// An answer the transport allows.
    Allowed(String),
    /// An answer that is a fault of its own.
    Fault(String),
}

/// Over Streamable HTTP, what the POST of the last notification got: `Ok` for 202 with no
/// body (silence) or a 4xx (a refusal the spec allows), a fault for anything that answered it.
/// `None` on other transports, where a reply would come as a message.
pub(super) fn notification_answer(s: &Session) -> Option<PostAnswer> {
    let a = s.last_http_answer()?;
    Some(if a.status == 202 && a.body_bytes == 0 {
        PostAnswer::Allowed("HTTP 202, no body".into())
    } else if (400..500).contains(&a.status) {
        PostAnswer::Allowed(format!("refused with HTTP {}", a.status))
    } else {
        PostAnswer::Fault(format!(
            "HTTP {} with a {}-byte body",
            a.status, a.body_bytes
        ))
    })
}

/// A notification the server answered over HTTP (`how`): a warning, as
/// http-notification-not-accepted judges the same answer.
pub(super) fn notification_answered(
    code: Code,
    name: &str,
    what: &str,
    how: &str,
    rule: &str,
) -> Verdict {
    Verdict::fault(
        format!("answered over HTTP: {how}"),
        finding(
            code,
            name,
            format!(
                "{what} was answered over HTTP ({how}); {rule}: answer 202 Accepted with no body."
            ),
        )
        .severity(Severity::Warning),
    )
}

/// Over Streamable HTTP, the answer to a body that is not JSON: a fault when it carried a
/// result, else what it got.
pub(super) fn malformed_answer(s: &Session) -> Option<PostAnswer> {
    let a = s.last_http_answer()?;
    Some(if a.result {
        PostAnswer::Fault(format!("HTTP {} with a result", a.status))
    } else {
        PostAnswer::Allowed(format!("HTTP {}", a.status))
    })
}

pub(super) fn malformed_answered(name: &str, how: &str) -> Verdict {
    Verdict::fault(
        "a result",
        finding(
            Code::AdversarialMalformedJsonResult,
            name,
            format!("A POST body that is not JSON was answered over HTTP with a result ({how}); answer 400, with a -32700 parse error preferred."),
        ),
    )
}

/// Each request over HTTP is a POST the session waits on, so two never share the wire.
pub(super) fn duplicate_id_not_applicable() -> Verdict {
    Verdict {
        status: "not-applicable",
        observed: "over HTTP each request is a POST the guard waits on, so two requests with one id are never in flight at once".into(),
        findings: Vec::new(),
    }
}

/// Over Streamable HTTP, the first answer to the probe that is not JSON-RPC: the HTTP
/// counterpart of garbage on stdout. The handshake's answers and the GET stream are the
/// session checks' to judge; the legacy stream cannot tell the probe's part from the rest.
pub(super) fn not_json_rpc(t: &Transcript, name: &str, after_handshake: bool) -> Option<Finding> {
    let skip: &[&str] = if after_handshake {
        &["initialize", "notifications/initialized", "GET"]
    } else {
        &["GET"]
    };
    let what = t.http.as_ref()?.facts.iter().find_map(|f| match f {
        HttpFact::Body { method, problem } if !skip.contains(&method.as_str()) => {
            Some(format!("`{}` ({})", excerpt(method, 60), describe(problem)))
        }
        _ => None,
    })?;
    Some(finding(
        Code::AdversarialProbeInvalidStdout,
        name,
        format!("After the {name} probe the server's HTTP answer to {what} is not JSON-RPC."),
    ))
}

fn describe(p: &BodyProblem) -> String {
    match p {
        BodyProblem::ContentType(None) => "no Content-Type".into(),
        BodyProblem::ContentType(Some(t)) => format!("Content-Type {}", excerpt(t, 60)),
        BodyProblem::NotJson(e) => format!("a body that is not JSON: {e}"),
        BodyProblem::NotOneResponse(e) => format!("a JSON body that is not one response: {e}"),
        BodyProblem::SseMalformedLine(l) => {
            format!("an event-stream line that is not `field: value`: {l}")
        }
        BodyProblem::SseDataNotJson(d) => format!("event data that is not JSON: {d}"),
        BodyProblem::TooLarge(n) => format!("a body past the limit of {n} bytes"),
        BodyProblem::TooManyEvents(n) => format!("more than {n} events"),
        BodyProblem::ReadFailed(e) => format!("a body that broke off: {e}"),
    }
}
