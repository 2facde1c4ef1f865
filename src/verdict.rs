//! The verdict of a run, from its findings alone: every output of every command computes
//! its headline, counts and exit code from this one place.

use crate::finding::{Finding, IssueClass, Severity};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The verdict of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Pass,
    Warning,
    /// Only install/runtime errors: the server may be fine once it can run.
    NeedsInspection,
    /// A transport or protocol error.
    Fail,
}

impl Status {
    pub fn headline(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Warning => "WARN",
            Status::NeedsInspection => "FAIL (needs inspection)",
            Status::Fail => "FAIL",
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Warning => "warning",
            Status::NeedsInspection => "needs_inspection",
            Status::Fail => "fail",
        }
    }
}

/// Counts and the finding that best explains the verdict.
#[derive(Debug, Clone)]
pub struct Verdict<'a> {
    pub status: Status,
    pub primary: Option<&'a Finding>,
    pub errors: usize,
    pub warnings: usize,
    pub notes: usize,
    /// Whether the run passes the default gate (no error).
    passed: bool,
}

/// Which class explains a failure best when several are present.
fn class_rank(class: IssueClass) -> u8 {
    match class {
        IssueClass::StdioTransport => 0,
        IssueClass::McpProtocol => 1,
        IssueClass::Security => 2,
        IssueClass::StaticSource => 3,
        IssueClass::InstallRuntime => 4,
        IssueClass::Environment => 5,
    }
}

/// The order in which the verdict picks its primary finding (see `Verdict::of`).
fn rank_key(f: &Finding) -> impl Ord + '_ {
    let place = f.risk.map(|_| {
        (
            f.location.file.as_deref(),
            f.location.line,
            f.location.column,
        )
    });
    (
        std::cmp::Reverse(f.severity),
        class_rank(f.class()),
        std::cmp::Reverse(f.risk),
        place,
        f.code,
    )
}

/// The findings in the verdict's order, so a list names the primary finding first; findings
/// that rank the same keep their order.
pub fn ranked(findings: &[Finding]) -> Vec<&Finding> {
    let mut ordered: Vec<&Finding> = findings.iter().collect();
    ordered.sort_by_key(|f| rank_key(f));
    ordered
}

impl<'a> Verdict<'a> {
    pub fn of(findings: &'a [Finding]) -> Self {
        let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
        let errors = count(Severity::Error);
        let warnings = count(Severity::Warning);
        let status = if findings
            .iter()
            .any(|f| f.severity == Severity::Error && !f.class().needs_inspection())
        {
            Status::Fail
        } else if errors > 0 {
            Status::NeedsInspection
        } else if warnings > 0 {
            Status::Warning
        } else {
            Status::Pass
        };
        // The most severe, then the class that explains a failure best, then risk first as
        // the scan lists findings: the riskiest, then (for risk-rated findings) the earliest
        // place, so JSON, human, Markdown and the Action's summary name the same issue.
        let primary = findings
            .iter()
            .filter(|f| f.severity >= Severity::Warning)
            .min_by_key(|f| rank_key(f));
        Self {
            status,
            primary,
            errors,
            warnings,
            notes: count(Severity::Note),
            passed: crate::gate::Gate::default().passes(findings),
        }
    }

    /// The `ok` of every report: the run passes the default gate.
    pub fn ok(&self) -> bool {
        self.passed
    }

    /// One line for badges and job summaries.
    pub fn display(&self) -> String {
        format!("{}: {}", self.status.headline(), self.counts())
    }

    /// What the verdict rests on, without its headline: `no issues`, or the primary code
    /// and the counts.
    pub fn counts(&self) -> String {
        match self.primary {
            None => "no issues".to_string(),
            Some(p) => format!(
                "{} ({}, {})",
                p.code,
                crate::finding::plural(self.errors, "error"),
                crate::finding::plural(self.warnings, "warning")
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Code;
    use crate::finding::Risk;

    #[test]
    fn a_ranked_list_starts_with_the_primary_finding() {
        // finding::sort puts these by severity then code name; the verdict prefers the
        // riskier one, and a ranked list must agree with the headline.
        let findings = vec![
            Finding::new(Code::ExfiltrationParameter, "a").risk(Risk::High),
            Finding::new(Code::ToolShadowing, "b").risk(Risk::Critical),
            Finding::new(Code::CrossServerToolCollision, "c").risk(Risk::Medium),
        ];
        let verdict = Verdict::of(&findings);
        let ranked = ranked(&findings);
        assert_eq!(verdict.primary.map(|f| f.code), Some(Code::ToolShadowing));
        assert_eq!(
            ranked.iter().map(|f| f.code).collect::<Vec<_>>(),
            [
                Code::ToolShadowing,
                Code::ExfiltrationParameter,
                Code::CrossServerToolCollision
            ]
        );
    }
}
