//! The proxy's `--report`: the session's counts and latencies, and its distinct findings.

use crate::finding::Finding;
use crate::proxy::SessionCounts;
use crate::report::issue::{Issue, SchemaVersion};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// The proxy report contract (v1).
pub const SCHEMA_VERSION: u32 = 1;

/// What the proxy saw in one session: message counts, latencies, and findings.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "mcpcheck proxy --report FILE (json)")]
pub struct ProxyReport<'a> {
    pub schema_version: SchemaVersion,
    pub session: ProxySession<'a>,
    pub issues: Vec<Issue<'a>>,
}

/// The session's counts: messages, latencies, what was left unanswered or unchecked.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProxySession<'a> {
    pub messages: u64,
    /// Lines that were not JSON-RPC messages.
    pub invalid: u64,
    /// Messages per method name (bounded).
    pub per_method: &'a BTreeMap<String, u64>,
    pub latency_ms: Latency,
    /// Requests of the client still unanswered at the end.
    pub unanswered: usize,
    /// Requests not tracked because too many were already pending.
    pub untracked_requests: u64,
    /// Bytes forwarded unchecked because the checks fell behind.
    pub unobserved_bytes: u64,
    pub stderr_lines_dropped: u64,
    pub log_records_dropped: u64,
    /// The exit code passed on (128 + the signal when the server was killed by one).
    pub exit_code: i32,
    /// The server's name (`--name`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<&'a str>,
}

/// Answer latencies in milliseconds; the percentiles are null without samples.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Latency {
    pub p50: Option<f64>,
    pub p90: Option<f64>,
    pub p99: Option<f64>,
    pub max: Option<f64>,
    pub samples: usize,
}

pub fn report<'a>(session: &'a SessionCounts, findings: &'a [Finding]) -> ProxyReport<'a> {
    let l = &session.latency;
    ProxyReport {
        schema_version: SchemaVersion,
        session: ProxySession {
            messages: session.messages,
            invalid: session.invalid,
            per_method: &session.per_method,
            latency_ms: Latency {
                p50: l.p50,
                p90: l.p90,
                p99: l.p99,
                max: l.max,
                samples: l.samples,
            },
            unanswered: session.unanswered,
            untracked_requests: session.untracked_requests,
            unobserved_bytes: session.unobserved_bytes,
            stderr_lines_dropped: session.stderr_lines_dropped,
            log_records_dropped: session.log_records_dropped,
            exit_code: session.exit_code,
            name: session.name.as_deref(),
        },
        issues: findings.iter().map(Issue::of).collect(),
    }
}

pub fn json(session: &SessionCounts, findings: &[Finding]) -> Value {
    serde_json::to_value(report(session, findings)).unwrap_or(Value::Null)
}
