//! The source scan's JSON report (`schemaVersion: 1`), documented in the README.

use crate::report::issue::{issues_json, summary_json};
use crate::source::SourceScan;
use crate::verdict::Verdict;
use serde_json::{json, Value};

/// The source scan report contract (v1).
pub const SCHEMA_VERSION: u32 = 1;

pub fn render(scan: &SourceScan) -> Value {
    let verdict = Verdict::of(&scan.findings);
    json!({
        "schemaVersion": SCHEMA_VERSION,
        "ok": verdict.ok(),
        "summary": summary_json(&verdict),
        "roots": scan.roots,
        "stats": scan.stats,
        "issues": issues_json(&scan.findings),
    })
}
