//! Adversarial probes (opt-in): what a server does with input a careless or hostile client
//! sends. Each probe gets a fresh process, so a crash is attributed to the probe that caused it.

mod conclude;
mod http;

pub(crate) use conclude::startup_noise;

use super::options::{Probe, ToolCall};
use super::GuardSettings;
use crate::catalog::Code;
use crate::finding::{excerpt, Finding, Location, Severity};
use crate::protocol::jsonrpc::{LineContent, RequestId, METHOD_NOT_FOUND};
use crate::protocol::versions;
use crate::session::transcript::{Outcome, Purpose};
use crate::session::{advertises, Session};
use serde::Serialize;
use serde_json::{json, Value};
use std::time::Duration;

/// What one probe found, for the report.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProbeOutcome {
    pub probe: String,
    /// `pass`, `finding`, `report` (observed only) or `not-applicable`.
    pub status: &'static str,
    pub observed: String,
    #[serde(skip)]
    pub findings: Vec<Finding>,
}

/// How long to watch for a reply that must not come.
const QUIET_WINDOW: Duration = Duration::from_millis(500);

/// `startup_noise`: how many lines the main session saw on stdout before the server's first
/// message ([`startup_noise`]); a probe's session is not blamed for the same lines.
pub async fn run_all(settings: &GuardSettings, startup_noise: usize) -> Vec<ProbeOutcome> {
    let mut out = Vec::new();
    for probe in &settings.probes {
        out.push(run_probe(settings, *probe, startup_noise).await);
        settings.progress.step("probe");
    }
    for call in &settings.adversarial_tool_calls {
        out.push(tool_call_probe(settings, call, startup_noise).await);
        settings.progress.step("probe");
    }
    out
}

/// A fresh session, opened unless the probe is about what happens before that.
async fn open(settings: &GuardSettings, handshake: bool) -> Option<(Session, Value)> {
    let mut plan = settings.plan.clone();
    plan.probe_lists = false;
    plan.requests.clear();
    let mut session = Session::start(&settings.command, &plan).ok()?;
    let caps = if handshake {
        session.handshake().await?
    } else {
        Value::Null
    };
    Some((session, caps))
}

fn finding(code: Code, probe: &str, message: String) -> Finding {
    Finding::new(code, message).at(Location::logical(format!("probes/{probe}")))
}

struct Verdict {
    status: &'static str,
    observed: String,
    findings: Vec<Finding>,
}

impl Verdict {
    fn pass(observed: impl Into<String>) -> Self {
        Self {
            status: "pass",
            observed: observed.into(),
            findings: Vec::new(),
        }
    }
    fn report(observed: impl Into<String>) -> Self {
        Self {
            status: "report",
            observed: observed.into(),
            findings: Vec::new(),
        }
    }
    fn fault(observed: impl Into<String>, f: Finding) -> Self {
        Self {
            status: "finding",
            observed: observed.into(),
            findings: vec![f],
        }
    }
}

async fn run_probe(settings: &GuardSettings, probe: Probe, startup_noise: usize) -> ProbeOutcome {
    let name = probe.name();
    let before_handshake = matches!(probe, Probe::PingBeforeInitialize | Probe::BogusVersion);
    let Some((mut session, caps)) = open(settings, !before_handshake).await else {
        return ProbeOutcome {
            probe: name.into(),
            status: "not-applicable",
            observed: "the server could not be started and opened for this probe".into(),
            findings: Vec::new(),
        };
    };
    let frames_before = session.transcript().frames.len();
    let verdict = match probe {
        Probe::InvalidMethod => invalid_method(&mut session).await,
        Probe::InvalidParams => invalid_params(&mut session, &caps).await,
        Probe::Notification => unknown_notification(&mut session).await,
        Probe::MalformedJson => malformed_json(&mut session).await,
        Probe::UnknownCancel => unknown_cancel(&mut session).await,
        Probe::PingBeforeInitialize => ping_before_initialize(&mut session).await,
        Probe::BogusVersion => bogus_version(&mut session, settings).await,
        Probe::DuplicateId => duplicate_id(&mut session).await,
    };
    conclude::conclude(session, name, frames_before, startup_noise, verdict).await
}

/// Timeout and crash are the same failure for every request a probe sends; over HTTP a
/// request refused without a JSON-RPC answer is left unanswered, not a crash.
fn unanswered(
    name: &str,
    what: &str,
    outcome: &Outcome,
    timeout_ms: u64,
    over_http: bool,
) -> Option<Verdict> {
    match outcome {
        Outcome::SendFailed(why) if over_http => Some(http::refused(name, what, why)),
        Outcome::Timeout => Some(Verdict::fault(
            format!("{what}: no answer within {timeout_ms} ms"),
            finding(
                Code::AdversarialProbeTimeout,
                name,
                format!("The server did not answer {what} within {timeout_ms} ms; every request needs an answer, an error at least."),
            ),
        )),
        Outcome::NoResponse | Outcome::SendFailed(_) => Some(Verdict::fault(
            format!("{what}: the server stopped"),
            finding(
                Code::AdversarialProbeCrash,
                name,
                format!("The server stopped while handling {what}; bad input must get an error, not a crash."),
            ),
        )),
        _ => None,
    }
}

async fn invalid_method(s: &mut Session) -> Verdict {
    let name = Probe::InvalidMethod.name();
    let i = s
        .request("mcpcheck/no-such-method", None, Purpose::Explicit)
        .await;
    let t = s.transcript();
    let outcome = t.exchanges[i].outcome.clone();
    if let Some(v) = unanswered(
        name,
        "an unknown method",
        &outcome,
        t.timeout_ms,
        s.over_http(),
    ) {
        return v;
    }
    match outcome {
        Outcome::Error(e) if e.code == METHOD_NOT_FOUND => Verdict::pass("error -32601"),
        Outcome::Error(e) => Verdict::fault(
            format!("error {}", e.code),
            finding(
                Code::AdversarialInvalidMethodResult,
                name,
                format!("An unknown method was answered with error {} instead of -32601 (method not found).", e.code),
            ),
        ),
        _ => Verdict::fault(
            "a result",
            finding(
                Code::AdversarialInvalidMethodResult,
                name,
                "An unknown method was answered with a result instead of error -32601 (method not found).".into(),
            ),
        ),
    }
}

async fn invalid_params(s: &mut Session, caps: &Value) -> Verdict {
    let name = Probe::InvalidParams.name();
    // A method the server implements, with params of the wrong shape.
    let (method, params) = if advertises(caps, "tools") {
        (
            "tools/call",
            json!({"name": {"not": "a string"}, "arguments": "not an object"}),
        )
    } else if advertises(caps, "prompts") {
        ("prompts/get", json!({"name": 7}))
    } else if advertises(caps, "resources") {
        ("resources/read", json!({"uri": 7}))
    } else {
        return Verdict {
            status: "not-applicable",
            observed: "no tools, prompts or resources to call".into(),
            findings: Vec::new(),
        };
    };
    let i = s.request(method, Some(params), Purpose::Explicit).await;
    let t = s.transcript();
    let outcome = t.exchanges[i].outcome.clone();
    if let Some(v) = unanswered(
        name,
        &format!("`{method}` with invalid params"),
        &outcome,
        t.timeout_ms,
        s.over_http(),
    ) {
        return v;
    }
    match outcome {
        Outcome::Error(e) => Verdict::pass(format!("`{method}`: error {}", e.code)),
        Outcome::Result(r) if r.get("isError") == Some(&Value::Bool(true)) => {
            Verdict::pass(format!("`{method}`: a tool error result"))
        }
        _ => Verdict::fault(
            format!("`{method}`: a result"),
            finding(
                Code::AdversarialInvalidParamsResult,
                name,
                format!("`{method}` with params of the wrong types was answered with a successful result instead of an error (-32602 preferred)."),
            ),
        ),
    }
}

/// Number of frames that answered with a null or missing id since `from`.
fn replies_without_id(s: &Session, from: usize) -> usize {
    use crate::session::transcript::Disposition;
    s.transcript().frames[from..]
        .iter()
        .flat_map(|f| &f.dispositions)
        .filter(|d| {
            matches!(
                d,
                Disposition::NotificationReply { .. }
                    | Disposition::Unattributed
                    | Disposition::UnknownId
            )
        })
        .count()
}

async fn unknown_notification(s: &mut Session) -> Verdict {
    let quiet = Quiet {
        name: Probe::Notification.name(),
        code: Code::AdversarialNotificationResult,
        what: "An unknown notification",
        rule: "notifications never get a reply, known or not",
        silence: "silence",
        answered_as: None,
    };
    notification_ignored(s, "notifications/mcpcheck_unknown", json!({}), quiet).await
}

/// A notification probe: how a reply is reported, and how being ignored reads (`silence`;
/// over HTTP the POST's answer, after `answered_as` if given).
struct Quiet {
    name: &'static str,
    code: Code,
    what: &'static str,
    rule: &'static str,
    silence: &'static str,
    answered_as: Option<&'static str>,
}

/// Sends a notification that must get no reply: a reply (or, over HTTP, an answer other
/// than 202 or a 4xx) is a finding; otherwise the server must still answer a ping.
async fn notification_ignored(
    s: &mut Session,
    method: &str,
    params: serde_json::Value,
    quiet: Quiet,
) -> Verdict {
    let Quiet {
        name,
        code,
        what,
        rule,
        silence,
        answered_as,
    } = quiet;
    let from = s.transcript().frames.len();
    s.notify(method, Some(params)).await;
    let over_http = http::notification_answer(s);
    s.listen(QUIET_WINDOW).await;
    if let Some(http::PostAnswer::Fault(how)) = &over_http {
        return http::notification_answered(code, name, what, how, rule);
    }
    if replies_without_id(s, from) > 0 {
        return Verdict::fault(
            "a reply",
            finding(code, name, format!("{what} was answered; {rule}.")),
        );
    }
    // Over HTTP the POST's answer (202, or a refusal) says how it was ignored.
    let observed = match (over_http, answered_as) {
        (Some(http::PostAnswer::Allowed(how)), Some(word)) => format!("{word} ({how})"),
        (Some(http::PostAnswer::Allowed(how)), None) => how,
        _ => silence.into(),
    };
    still_answers(s, name, &observed).await
}

/// After a probe that expects silence: the server must still answer a ping.
async fn still_answers(s: &mut Session, name: &str, observed: &str) -> Verdict {
    let i = s.request("ping", None, Purpose::Explicit).await;
    let t = s.transcript();
    let outcome = t.exchanges[i].outcome.clone();
    match unanswered(
        name,
        "a ping after the probe",
        &outcome,
        t.timeout_ms,
        s.over_http(),
    ) {
        Some(v) => v,
        None => Verdict::pass(format!("{observed}; ping still answered")),
    }
}

async fn malformed_json(s: &mut Session) -> Verdict {
    let name = Probe::MalformedJson.name();
    let from = s.transcript().frames.len();
    s.send_raw(b"{\"jsonrpc\": \"2.0\", \"id\": 77, \"method\": \n")
        .await;
    let over_http = http::malformed_answer(s);
    s.listen(QUIET_WINDOW).await;
    if let Some(http::PostAnswer::Fault(how)) = &over_http {
        return http::malformed_answered(name, how);
    }
    let answered_result = s.transcript().frames[from..].iter().any(|f| {
        matches!(&f.content, LineContent::Single { value, .. } if value.get("result").is_some())
    });
    if answered_result {
        return Verdict::fault(
            "a result",
            finding(
                Code::AdversarialMalformedJsonResult,
                name,
                if s.over_http() {
                    "A POST body that is not JSON was answered with a result on the event stream; answer -32700 (parse error) or ignore it.".into()
                } else {
                    "A line that is not JSON was answered with a result; answer -32700 (parse error) or ignore it.".into()
                },
            ),
        );
    }
    let observed = match over_http {
        Some(http::PostAnswer::Allowed(how)) => how,
        _ => "parse error or silence".into(),
    };
    still_answers(s, name, &observed).await
}

async fn unknown_cancel(s: &mut Session) -> Verdict {
    let quiet = Quiet {
        name: Probe::UnknownCancel.name(),
        code: Code::AdversarialUnknownCancelResult,
        what: "notifications/cancelled for an id never sent",
        rule: "it must be ignored",
        silence: "ignored",
        answered_as: Some("ignored"),
    };
    let params = json!({"requestId": 987_654, "reason": "mcpcheck probe"});
    notification_ignored(s, "notifications/cancelled", params, quiet).await
}

async fn ping_before_initialize(s: &mut Session) -> Verdict {
    let name = Probe::PingBeforeInitialize.name();
    let i = s.request("ping", None, Purpose::Explicit).await;
    let observed = match &s.transcript().exchanges[i].outcome {
        Outcome::Result(_) => "answered with a result".to_string(),
        Outcome::Error(e) => format!("answered with error {}", e.code),
        Outcome::Timeout => "no answer".to_string(),
        // Over HTTP a refusal is the transport's answer (a 4xx), not a stopped server.
        Outcome::SendFailed(why) if s.over_http() => {
            format!("refused over HTTP ({})", crate::finding::excerpt(why, 120))
        }
        _ => "the server stopped".to_string(),
    };
    // Report only: the spec allows ping at any time, but servers differ.
    let mut v = Verdict::report(observed.clone());
    v.findings.push(
        finding(
            Code::AdversarialPingBeforeInitializeResult,
            name,
            format!("A ping sent before initialize was {observed}."),
        )
        .severity(Severity::Note),
    );
    v
}

async fn bogus_version(s: &mut Session, settings: &GuardSettings) -> Verdict {
    let name = Probe::BogusVersion.name();
    let params = json!({
        "protocolVersion": "1900-01-01",
        "capabilities": {},
        "clientInfo": {"name": settings.plan.client_name, "version": settings.plan.client_version},
    });
    let i = s
        .request("initialize", Some(params), Purpose::Initialize)
        .await;
    let t = s.transcript();
    let outcome = t.exchanges[i].outcome.clone();
    if let Some(v) = unanswered(
        name,
        "initialize with version 1900-01-01",
        &outcome,
        t.timeout_ms,
        s.over_http(),
    ) {
        return v;
    }
    match outcome {
        Outcome::Result(r) => match r.get("protocolVersion").and_then(Value::as_str) {
            Some(v) if versions::is_known(v) => Verdict::pass(format!("offered {v}")),
            other => Verdict::fault(
                "an unusable version",
                finding(
                    Code::AdversarialBogusVersionResult,
                    name,
                    format!(
                        "Asked for version 1900-01-01, the server answered with {}, not a version it supports.",
                        other.map_or_else(|| "no protocolVersion".to_string(), |v| format!("{:?}", excerpt(v, 40)))
                    ),
                )
                .severity(Severity::Error),
            ),
        },
        Outcome::Error(e) => Verdict::fault(
            format!("error {}", e.code),
            finding(
                Code::AdversarialBogusVersionResult,
                name,
                format!("Asked for version 1900-01-01, the server refused with error {} instead of offering a version it supports.", e.code),
            ),
        ),
        _ => Verdict::report("malformed answer"),
    }
}

async fn duplicate_id(s: &mut Session) -> Verdict {
    let name = Probe::DuplicateId.name();
    if s.over_http() {
        return http::duplicate_id_not_applicable();
    }
    let id = RequestId::String("mcpcheck-duplicate".into());
    let a = s
        .send_request(Some(id.clone()), "ping", None, Purpose::Explicit)
        .await;
    let b = s
        .send_request(Some(id), "ping", None, Purpose::Explicit)
        .await;
    s.await_answer(a).await;
    s.await_answer(b).await;
    let t = s.transcript();
    let label = |o: &Outcome| o.label().to_string();
    let observed = format!(
        "first: {}, second: {}",
        label(&t.exchanges[a].outcome),
        label(&t.exchanges[b].outcome)
    );
    let mut v = Verdict::report(observed.clone());
    v.findings.push(
        finding(
            Code::AdversarialDuplicateIdResult,
            name,
            format!("Two requests in flight with the same id: {observed}."),
        )
        .severity(Severity::Note),
    );
    v
}

async fn tool_call_probe(
    settings: &GuardSettings,
    call: &ToolCall,
    startup_noise: usize,
) -> ProbeOutcome {
    let name = format!("tool-call:{}", excerpt(&call.name, 64));
    let Some((mut s, _)) = open(settings, true).await else {
        return ProbeOutcome {
            probe: name,
            status: "not-applicable",
            observed: "the server could not be started and opened for this probe".into(),
            findings: Vec::new(),
        };
    };
    let from = s.transcript().frames.len();
    let params = json!({"name": call.name, "arguments": call.arguments});
    let i = s
        .request("tools/call", Some(params), Purpose::Explicit)
        .await;
    let t = s.transcript();
    let outcome = t.exchanges[i].outcome.clone();
    let what = format!("tool {} with wrong arguments", excerpt(&call.name, 64));
    let verdict = match unanswered(&name, &what, &outcome, t.timeout_ms, s.over_http()) {
        Some(v) => v,
        None => match outcome {
            Outcome::Error(e) => Verdict::pass(format!("error {}", e.code)),
            Outcome::Result(r) if r.get("isError") == Some(&Value::Bool(true)) => {
                Verdict::pass("a tool error result")
            }
            _ => Verdict::fault(
                "a successful result",
                finding(
                    Code::AdversarialToolCallResult,
                    &name,
                    format!("Calling {what} succeeded; it should return a tool error (isError: true) or error -32602."),
                ),
            ),
        },
    };
    conclude::conclude(s, &name, from, startup_noise, verdict).await
}
