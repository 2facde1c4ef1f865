//! The proxy's `--report`: the session's counts and latencies, and its distinct findings.

use crate::finding::Finding;
use crate::report::issue::issues_json;
use serde_json::{json, Value};

/// The proxy report contract (v1).
pub const SCHEMA_VERSION: u32 = 1;

pub fn json(session: &Value, findings: &[Finding]) -> Value {
    json!({
        "schemaVersion": SCHEMA_VERSION,
        "session": session,
        "issues": issues_json(findings),
    })
}
