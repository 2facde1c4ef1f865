//! The one JSON shape of a finding and of a verdict, shared by every JSON output: a
//! consumer that reads one report reads them all.

use crate::finding::Finding;
use crate::verdict::Verdict;
use serde_json::{json, Value};

/// A finding as every JSON report carries it: its own fields, its class, a fingerprint
/// that is stable across runs, and its OWASP MCP Top 10 category where it has one.
pub fn issue_json(f: &Finding) -> Value {
    let mut v = serde_json::to_value(f).unwrap_or(Value::Null);
    v["class"] = json!(f.class().as_str());
    v["fingerprint"] = json!(f.fingerprint());
    if let Some(owasp) = f.code.meta().owasp {
        v["owasp"] = json!(owasp);
    }
    v
}

pub fn issues_json(findings: &[Finding]) -> Vec<Value> {
    findings.iter().map(issue_json).collect()
}

/// A verdict as every JSON report's `summary` starts: the status, the class and code that
/// explain it best, the counts per severity and one line to display.
pub fn summary_json(verdict: &Verdict<'_>) -> Value {
    json!({
        "status": verdict.status.as_str(),
        "issueClass": verdict.primary.map(|p| p.class().as_str()),
        "primaryIssueCode": verdict.primary.map(|p| p.code.as_str()),
        "issueCounts": {
            "error": verdict.errors,
            "warning": verdict.warnings,
            "note": verdict.notes,
            "total": verdict.errors + verdict.warnings + verdict.notes,
        },
        "display": verdict.display(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Code;

    #[test]
    fn every_issue_has_class_and_fingerprint_and_security_ones_owasp() {
        let plain = issue_json(&Finding::new(Code::StdoutNonJson, "banner"));
        assert_eq!(plain["class"], "stdioTransport");
        assert_eq!(plain["fingerprint"].as_str().map(str::len), Some(32));
        assert!(plain.get("owasp").is_none());
        let security = issue_json(&Finding::new(Code::ToolPoisoningInstructions, "x"));
        assert_eq!(security["class"], "security");
        assert!(security["owasp"]
            .as_str()
            .is_some_and(|o| o.starts_with("MCP")));
    }

    #[test]
    fn the_summary_names_the_primary_finding() {
        let findings = [
            Finding::new(Code::StdoutEmptyLine, "empty"),
            Finding::new(Code::StdoutNonJson, "banner"),
        ];
        let s = summary_json(&Verdict::of(&findings));
        assert_eq!(s["status"], "fail");
        assert_eq!(s["primaryIssueCode"], "stdout-non-json");
        assert_eq!(s["issueClass"], "stdioTransport");
        assert_eq!(s["issueCounts"]["total"], 2);
    }
}
