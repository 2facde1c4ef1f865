//! The source scan's JSON report (`schemaVersion: 1`), documented in the README.

use super::json::SCHEMA_VERSION;
use super::Verdict;
use crate::source::SourceScan;
use serde_json::{json, Value};

pub fn render(scan: &SourceScan) -> Value {
    let verdict = Verdict::of(&scan.findings);
    json!({
        "schemaVersion": SCHEMA_VERSION,
        "ok": verdict.ok(),
        "summary": {
            "status": verdict.status.as_str(),
            "primaryIssueCode": verdict.primary.map(|p| p.code.as_str()),
            "issueCounts": {
                "error": verdict.errors,
                "warning": verdict.warnings,
                "note": verdict.notes,
                "total": verdict.errors + verdict.warnings + verdict.notes,
            },
            "display": verdict.display(),
        },
        "roots": scan.roots,
        "stats": scan.stats,
        "issues": scan.findings.iter().map(|f| {
            let mut v = serde_json::to_value(f).unwrap_or(Value::Null);
            v["class"] = json!(f.class().as_str());
            v
        }).collect::<Vec<_>>(),
    })
}
