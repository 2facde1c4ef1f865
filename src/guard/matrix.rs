//! `--protocol-matrix`: one short session per known revision plus a bogus one, and what the
//! server negotiated in each.

use super::GuardSettings;
use crate::catalog::Code;
use crate::finding::{excerpt, Finding, Location, Severity};
use crate::protocol::schema::WireSchemas;
use crate::protocol::versions;
use crate::session;
use crate::session::transcript::{Outcome, Transcript};
use serde_json::Value;

/// A version no server supports: how it is refused tells how negotiation is implemented.
pub const BOGUS_VERSION: &str = "1900-01-01";

#[derive(Debug, Clone)]
pub struct MatrixEntry {
    pub requested: String,
    pub method: String,
    /// `result`, `error`, `timeout`, `no-response`…
    pub outcome: &'static str,
    pub negotiated: Option<String>,
    pub error_code: Option<i64>,
}

pub struct Matrix {
    pub entries: Vec<MatrixEntry>,
    pub findings: Vec<Finding>,
}

/// Sessions the matrix runs: every known version and one bogus one.
pub const SESSIONS: usize = versions::KNOWN_VERSIONS.len() + 1;

pub async fn run(settings: &GuardSettings) -> Matrix {
    let mut transcripts = Vec::new();
    for version in versions::KNOWN_VERSIONS
        .iter()
        .copied()
        .chain([BOGUS_VERSION])
    {
        let mut plan = settings.plan.clone();
        plan.protocol = version.to_string();
        plan.probe_lists = false;
        plan.requests.clear();
        plan.settle = std::time::Duration::ZERO;
        transcripts.push((version, session::run(&settings.command, &plan).await));
        settings.progress.step("protocol matrix");
    }
    let entries: Vec<MatrixEntry> = transcripts.iter().map(|(v, t)| entry(v, t)).collect();
    // What the server says it supports: server/discover's list, or -32022's data.supported.
    let supported: Vec<String> = transcripts
        .iter()
        .filter_map(|(_, t)| {
            let listed = match &t.discover()?.outcome {
                Outcome::Result(r) => r.get("supportedVersions"),
                Outcome::Error(e) => e.data.as_ref()?.get("supported"),
                _ => None,
            };
            listed?.as_array().cloned()
        })
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    let mut findings = Vec::new();
    for ((version, t), e) in transcripts.iter().zip(&entries) {
        let location = Location::logical(format!("protocolMatrix/{version}"));
        if *version == BOGUS_VERSION {
            if let Some(f) = bogus(t, e) {
                findings.push(f.at(location));
            }
            continue;
        }
        if let Some(negotiated) = &e.negotiated {
            if negotiated != version && supported.iter().any(|s| s == version) {
                findings.push(
                    Finding::new(
                        Code::ProtocolVersionMismatch,
                        format!(
                            "Asked for {version}, which the server lists as supported, it negotiated {negotiated}."
                        ),
                    )
                    .at(location.clone()),
                );
            }
            if let Some(v) = not_honoured(t, negotiated) {
                findings.push(
                    Finding::new(
                        Code::ProtocolVersionNotHonoured,
                        format!(
                            "Asked for {version}, the server negotiated {negotiated} but its answer breaks the {negotiated} schema: {v}."
                        ),
                    )
                    .at(location),
                );
            }
        }
    }
    Matrix { entries, findings }
}

fn entry(version: &str, t: &Transcript) -> MatrixEntry {
    let handshake = t.handshake();
    MatrixEntry {
        requested: version.to_string(),
        method: handshake.map_or_else(|| "initialize".into(), |h| h.method.clone()),
        outcome: handshake.map_or("spawn-failed", |h| h.outcome.label()),
        negotiated: t.session_version().map(|v| excerpt(&v, 40)),
        error_code: match handshake.map(|h| &h.outcome) {
            Some(Outcome::Error(e)) => Some(e.code),
            _ => None,
        },
    }
}

/// The first wire-schema violation of the handshake answer under the negotiated version.
fn not_honoured(t: &Transcript, negotiated: &str) -> Option<String> {
    let handshake = t.handshake()?;
    let line = handshake.answer_line?;
    let mut schemas = WireSchemas::for_version(negotiated)?;
    let frame = t.frames.iter().find(|f| f.line == line)?;
    let crate::protocol::jsonrpc::LineContent::Single { value, .. } = &frame.content else {
        return None;
    };
    schemas
        .check_result(&handshake.method, value)
        .first()
        .map(|v| v.to_string())
}

/// A bogus version must be answered with a version the server supports (legacy), or with
/// -32022 listing them (modern). An error is a warning; echoing it back, a crash or a hang
/// is an error.
fn bogus(t: &Transcript, e: &MatrixEntry) -> Option<Finding> {
    let (severity, what) = match t.handshake().map(|h| &h.outcome) {
        Some(Outcome::Result(r)) => match r.get("protocolVersion").and_then(Value::as_str) {
            Some(v) if versions::is_known(v) => return None,
            Some(v) => (
                Severity::Error,
                format!(
                    "answered with {:?}, which is not a version it can speak",
                    excerpt(v, 40)
                ),
            ),
            None => (
                Severity::Error,
                "answered without a protocolVersion".to_string(),
            ),
        },
        Some(Outcome::Error(err)) => (
            Severity::Warning,
            format!(
                "refused with error {} instead of offering a version it supports",
                err.code
            ),
        ),
        Some(Outcome::Timeout) => (Severity::Error, "did not answer".to_string()),
        _ => (Severity::Error, format!("stopped ({})", e.outcome)),
    };
    Some(
        Finding::new(
            Code::ProtocolBogusVersion,
            format!("Asked for the unknown version {BOGUS_VERSION}, the server {what}."),
        )
        .severity(severity),
    )
}
