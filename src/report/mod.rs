//! Renderers. They read findings and facts; they never know how a finding was made.

pub mod document;
pub mod human;
pub mod json;
pub mod markdown;
pub mod md;
pub mod output;
pub mod owasp;
mod redact;
pub mod surface;
// Scan engine renderers.
pub mod inventory;
pub mod repo;
pub mod rule_docs;
pub mod sarif;
mod sarif_rules;
#[cfg(test)]
mod sarif_tests;
pub mod scan_human;
pub mod scan_json;
pub mod source_human;
pub mod source_json;

use crate::finding::{Finding, IssueClass, Severity};
use serde::Serialize;

pub use redact::{mask_tokens, may_hold_secret, names_secret, redact_argv};

/// The verdict of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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
}

/// Which class explains a failure best when several are present.
fn class_rank(class: IssueClass) -> u8 {
    match class {
        IssueClass::StdioTransport => 0,
        IssueClass::McpProtocol => 1,
        IssueClass::Security => 2,
        IssueClass::StaticSource => 3,
        IssueClass::InstallRuntime => 4,
    }
}

impl<'a> Verdict<'a> {
    pub fn of(findings: &'a [Finding]) -> Self {
        let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
        let errors = count(Severity::Error);
        let warnings = count(Severity::Warning);
        let status = if findings
            .iter()
            .any(|f| f.severity == Severity::Error && f.class() != IssueClass::InstallRuntime)
        {
            Status::Fail
        } else if errors > 0 {
            Status::NeedsInspection
        } else if warnings > 0 {
            Status::Warning
        } else {
            Status::Pass
        };
        let primary = findings
            .iter()
            .filter(|f| f.severity >= Severity::Warning)
            .min_by_key(|f| (std::cmp::Reverse(f.severity), class_rank(f.class()), f.code));
        Self {
            status,
            primary,
            errors,
            warnings,
            notes: count(Severity::Note),
        }
    }

    pub fn ok(&self) -> bool {
        self.errors == 0
    }

    /// One line for badges and job summaries.
    pub fn display(&self) -> String {
        match self.primary {
            None => format!("{}: no issues", self.status.headline()),
            Some(p) => format!(
                "{}: {} ({}, {})",
                self.status.headline(),
                p.code,
                plural(self.errors, "error"),
                plural(self.warnings, "warning")
            ),
        }
    }
}

pub(crate) fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}
