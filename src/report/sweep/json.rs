//! The sweep report as JSON: every aggregate and every server row, for machines.

use crate::sweep::summary::Summary;
use serde_json::{json, Value};

pub const SCHEMA_VERSION: u32 = 1;

pub fn render(summary: &Summary) -> Value {
    json!({
        "schemaVersion": SCHEMA_VERSION,
        "kind": "sweep-report",
        "totals": {
            "servers": summary.servers.len(),
            "statuses": summary.statuses.iter().map(|(s, n)| (s.clone(), json!(n))).collect::<serde_json::Map<_, _>>(),
            "duplicatesReplaced": summary.duplicates,
        },
        "topIssueCodes": summary.top_codes.iter().map(|(c, n)| json!({"code": c, "servers": n})).collect::<Vec<_>>(),
        "issueClasses": summary.classes,
        "timing": summary.timing,
        "slowest": summary.slowest.iter().map(|(id, ms)| json!({"id": id, "wallMs": ms})).collect::<Vec<_>>(),
        "files": summary.files,
        "servers": summary.servers,
    })
}
