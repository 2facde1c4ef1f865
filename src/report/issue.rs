//! The one JSON shape of a finding and of a verdict, shared by every JSON output: a
//! consumer that reads one report reads them all.

use crate::finding::{Finding, IssueClass};
use crate::verdict::{Status, Verdict};
use schemars::JsonSchema;
use serde::{Serialize, Serializer};

/// `schemaVersion`: always 1 in the reports of this version; fields are only ever added.
#[derive(Debug, Clone, Copy, Default)]
pub struct SchemaVersion;

impl Serialize for SchemaVersion {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(1)
    }
}

impl JsonSchema for SchemaVersion {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SchemaVersion".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"const": 1})
    }
}

/// For `skip_serializing_if` on a field added to a v1 report after its first release: the
/// field is always written, and the schema does not require it (older reports lack it).
pub fn added_in_v1<T>(_: &T) -> bool {
    false
}

/// A finding as every JSON report carries it: its own fields, its class, a fingerprint
/// that is stable across runs, and its OWASP MCP Top 10 category where it has one.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Issue<'a> {
    #[serde(flatten)]
    pub finding: &'a Finding,
    pub class: IssueClass,
    /// Stable across runs: the same finding in the same place has the same fingerprint.
    #[schemars(regex(pattern = r"^[0-9a-f]{32}$"))]
    pub fingerprint: String,
    /// The OWASP MCP Top 10 category, where the code has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^MCP[0-9]{2}$"))]
    pub owasp: Option<&'static str>,
}

impl<'a> Issue<'a> {
    pub fn of(f: &'a Finding) -> Self {
        Issue {
            finding: f,
            class: f.class(),
            fingerprint: f.fingerprint(),
            owasp: f.code.meta().owasp,
        }
    }
}

/// The counts of findings per severity.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct IssueCounts {
    pub error: usize,
    pub warning: usize,
    pub note: usize,
    pub total: usize,
}

/// A verdict as every JSON report's `summary` starts: the status, the class and code that
/// explain it best, the counts per severity and one line to display.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub status: Status,
    /// The class of the finding that explains the verdict best; null when nothing was found.
    pub issue_class: Option<IssueClass>,
    /// The code of that finding; null when nothing was found.
    pub primary_issue_code: Option<&'static str>,
    pub issue_counts: IssueCounts,
    /// One line to display, e.g. `FAIL: stdout-non-json (1 error, 0 warnings)`.
    pub display: String,
}

impl Summary {
    pub fn of(verdict: &Verdict<'_>) -> Self {
        Summary {
            status: verdict.status,
            issue_class: verdict.primary.map(Finding::class),
            primary_issue_code: verdict.primary.map(|p| p.code.as_str()),
            issue_counts: IssueCounts {
                error: verdict.errors,
                warning: verdict.warnings,
                note: verdict.notes,
                total: verdict.errors + verdict.warnings + verdict.notes,
            },
            display: verdict.display(),
        }
    }
}

/// A verdict and its findings, as a line that holds findings but no report of its own
/// carries them (the sweep's install-failed line).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FindingsFields<'a> {
    pub summary: Summary,
    pub issues: Vec<Issue<'a>>,
}

impl<'a> FindingsFields<'a> {
    pub fn of(findings: &'a [Finding]) -> Self {
        FindingsFields {
            summary: Summary::of(&Verdict::of(findings)),
            issues: findings.iter().map(Issue::of).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Code;
    use serde_json::Value;

    fn issue_json(f: &Finding) -> Value {
        serde_json::to_value(Issue::of(f)).expect("an issue is JSON")
    }

    fn summary_json(verdict: &Verdict<'_>) -> Value {
        serde_json::to_value(Summary::of(verdict)).expect("a summary is JSON")
    }

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

    /// An install failure's line, written as the sweep writes it, reads back as
    /// `sweep-report` reads it: a renamed field fails here, not as a blank column.
    #[test]
    fn an_install_failures_line_reads_back_typed() {
        use crate::sweep::line::{Line, NotJudged};
        use crate::sweep::line_verdict::LineVerdict;
        use crate::sweep::results::ResultLine;
        let findings = [Finding::new(
            Code::InstallPackageMissing,
            "x@1 is not on npm",
        )];
        let fields = serde_json::to_value(FindingsFields::of(&findings)).expect("json");
        let clock = std::time::Instant::now();
        let line = Line::not_judged("x", NotJudged::InstallFailed, std::time::UNIX_EPOCH, clock)
            .with(fields);
        let text = serde_json::to_vec(&line.json).expect("json");
        let read = ResultLine::parse(&text, 1).expect("the line reads back");
        let LineVerdict::InstallFailed(verdict) = &read.verdict else {
            panic!("{:?}", read.verdict)
        };
        assert_eq!(
            verdict.summary.primary_issue_code.as_deref(),
            Some("install-package-missing")
        );
        assert_eq!(
            verdict.summary.issue_class.as_deref(),
            Some("installRuntime")
        );
        assert_eq!(verdict.summary.issue_counts.error, 1);
        assert_eq!(verdict.issues[0].message, "x@1 is not on npm");
        assert_eq!(verdict.issues[0].severity, "error");
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
