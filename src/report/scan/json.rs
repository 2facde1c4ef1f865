//! The scan's JSON report (`schemaVersion: 1`): summary, configs, servers with their live
//! state, issues with fingerprints, notices and stats. Documented in the README.

use crate::finding::{excerpt, Risk};
use crate::report::issue::issue_json;
use crate::scan::live::{LiveIndex, LiveState};
use crate::scan::{inventory, risk_of, ScanReport};
use serde_json::{json, Value};

/// The config scan report contract (v1).
pub const SCHEMA_VERSION: u32 = 1;

pub fn render(r: &ScanReport) -> Value {
    let count = |risk: Risk| r.findings.iter().filter(|f| risk_of(f) == risk).count();
    let primary = r.findings.first();
    let status = if r.failing() > 0 {
        "fail"
    } else if r.findings.iter().any(|f| risk_of(f) > Risk::Info) {
        "warning"
    } else {
        "pass"
    };
    let live_count = |label: &str| r.live.iter().filter(|l| l.state.label() == label).count();
    let index = LiveIndex::new(&r.live);
    let mut servers = Vec::new();
    for file in &r.configs {
        for entry in &file.servers {
            servers.push(inventory::server_json(
                file,
                entry,
                index.get(&file.display, &entry.pointer),
                false,
            ));
        }
    }
    json!({
        "schemaVersion": SCHEMA_VERSION,
        "ok": r.ok(),
        "summary": {
            "status": status,
            "failOn": r.fail_on.as_str(),
            "failing": r.failing(),
            "primaryIssueCode": primary.map(|f| f.code.as_str()),
            "issueCounts": {
                "critical": count(Risk::Critical),
                "high": count(Risk::High),
                "medium": count(Risk::Medium),
                "low": count(Risk::Low),
                "info": count(Risk::Info),
                "total": r.findings.len(),
            },
            "display": display(r),
        },
        "configs": r.configs.iter().map(|c| json!({
            "path": c.display,
            "client": c.client.as_str(),
            "scope": c.scope.as_str(),
            "servers": c.servers.len(),
        })).collect::<Vec<_>>(),
        "servers": servers,
        "issues": r.findings.iter().map(|f| {
            let mut v = issue_json(f);
            v["risk"] = json!(risk_of(f).as_str());
            v
        }).collect::<Vec<_>>(),
        "notices": r.notices.iter().map(|n| excerpt(n, 500)).collect::<Vec<_>>(),
        "stats": {
            "configs": r.configs.len(),
            "servers": r.server_count(),
            "rulesRun": r.rules_run,
            "findings": r.findings.len(),
            "suppressedByBaseline": r.suppressed,
            "baseline": r.baseline,
            "lock": r.lock,
            "live": {
                "ran": r.live_ran,
                "answered": live_count(LiveState::Answered.label()),
                "couldNotConnect": live_count("could-not-connect"),
                "notAsked": live_count("not-asked"),
            },
            "durationMs": r.duration_ms,
        },
    })
}

/// One line for job summaries: `FAIL: hardcoded-secret (2 at or above high, 5 findings)`.
pub fn display(r: &ScanReport) -> String {
    match r.findings.first() {
        None => "PASS: no findings".into(),
        Some(p) => format!(
            "{}: {} ({} at or above {}, {} finding{})",
            if r.ok() { "WARN" } else { "FAIL" },
            p.code,
            r.failing(),
            r.fail_on.as_str(),
            r.findings.len(),
            if r.findings.len() == 1 { "" } else { "s" }
        ),
    }
}
