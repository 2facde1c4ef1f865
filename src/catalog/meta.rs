//! What the catalog says of each code, and how a code reads.

use super::{Code, ALL, META};
use crate::finding::{IssueClass, Risk, Severity};
use serde::{Serialize, Serializer};

/// How often a finding of this code is right when it fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Precision {
    VeryHigh,
    High,
    Medium,
    Low,
}

impl Precision {
    pub fn as_str(self) -> &'static str {
        match self {
            Precision::VeryHigh => "very-high",
            Precision::High => "high",
            Precision::Medium => "medium",
            Precision::Low => "low",
        }
    }
}

/// Metadata of one code.
#[derive(Debug)]
pub struct CodeMeta {
    pub code: &'static str,
    pub title: &'static str,
    pub class: IssueClass,
    /// As written in the table; read [`CodeMeta::default_severity`], which lets a risk decide.
    pub(crate) declared_severity: Severity,
    /// Why it matters and how to fix it.
    pub help: &'static str,
    pub precision: Precision,
    /// Security rules: their default risk and OWASP MCP Top 10 (2025 v0.1) category, e.g. "MCP01".
    pub risk: Option<Risk>,
    pub owasp: Option<&'static str>,
    /// Why the rule is as it is (its risk, its place): for its docs, not for a finding's fix.
    pub rationale: Option<&'static str>,
}

impl CodeMeta {
    /// The one place a code's default severity is decided: a security rule's risk decides
    /// it, every other code declares it.
    pub fn default_severity(&self) -> Severity {
        self.risk.map_or(self.declared_severity, Risk::severity)
    }
}

impl Code {
    pub fn meta(self) -> &'static CodeMeta {
        &META[self as usize]
    }

    pub fn as_str(self) -> &'static str {
        self.meta().code
    }

    /// The severity a finding of this code has unless its engine says otherwise: a
    /// security rule's risk decides it, every other code declares it. Findings, SARIF rules,
    /// `explain`, `rules` and docs/rules all read it from here.
    pub fn severity(self) -> Severity {
        self.meta().default_severity()
    }

    pub fn from_name(name: &str) -> Option<Code> {
        ALL.iter().copied().find(|c| c.as_str() == name)
    }
}

impl Serialize for Code {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// A code in a report: lowercase words joined by hyphens (`stdout-non-json`).
impl schemars::JsonSchema for Code {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Code".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string", "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$"})
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
