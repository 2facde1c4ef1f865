//! What a report of a sweep reads of the verdict that follows a result line's own fields:
//! of the guard report, its summary, issues, command and server name; of an install
//! failure, its summary and issues. Every field read is required where its writer always
//! writes it, so a field renamed on one side makes the line unreadable (and counted as
//! such) instead of a blank column.

use super::line::{LineStatus, NotJudged};
use serde::{Deserialize, Deserializer};

/// What follows a line's own fields, as its status says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineVerdict {
    /// The guard ran: from its report (guard-report.v1).
    Guarded(GuardedFields),
    /// The install failed: its findings.
    InstallFailed(FindingsFields),
    /// Nothing was judged: not started, setup failed, or the sweep's own error.
    Nothing,
}

impl LineVerdict {
    /// Reads from a whole line's JSON what a line of this status carries.
    pub fn read(status: LineStatus, json: &[u8]) -> serde_json::Result<Self> {
        Ok(match status {
            LineStatus::Judged(_) => LineVerdict::Guarded(serde_json::from_slice(json)?),
            LineStatus::NotJudged(NotJudged::InstallFailed) => {
                LineVerdict::InstallFailed(serde_json::from_slice(json)?)
            }
            LineStatus::NotJudged(_) => LineVerdict::Nothing,
        })
    }

    pub fn summary(&self) -> Option<&VerdictSummary> {
        match self {
            LineVerdict::Guarded(g) => Some(&g.summary),
            LineVerdict::InstallFailed(f) => Some(&f.summary),
            LineVerdict::Nothing => None,
        }
    }

    pub fn issues(&self) -> &[IssueFields] {
        match self {
            LineVerdict::Guarded(g) => &g.issues,
            LineVerdict::InstallFailed(f) => &f.issues,
            LineVerdict::Nothing => &[],
        }
    }

    /// The server's command line, as the sweep showed it.
    pub fn command(&self) -> Option<&[String]> {
        match self {
            LineVerdict::Guarded(g) => Some(&g.command),
            _ => None,
        }
    }

    /// The name the server gave itself.
    pub fn server_name(&self) -> Option<&str> {
        match self {
            LineVerdict::Guarded(g) => g.server_info.as_ref()?.name.as_deref(),
            _ => None,
        }
    }
}

/// The guard report's fields a report of the sweep shows.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GuardedFields {
    pub summary: VerdictSummary,
    pub issues: Vec<IssueFields>,
    pub command: Vec<String>,
    /// Null when the server named none.
    #[serde(deserialize_with = "present")]
    pub server_info: Option<ServerName>,
}

/// An install failure's findings (`report::issue::FindingsFields`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct FindingsFields {
    pub summary: VerdictSummary,
    pub issues: Vec<IssueFields>,
}

/// The verdict's summary: the primary finding and the counts.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VerdictSummary {
    /// None when nothing was found (the guard writes "", other reports null).
    #[serde(deserialize_with = "present_not_empty")]
    pub issue_class: Option<String>,
    #[serde(deserialize_with = "present_not_empty")]
    pub primary_issue_code: Option<String>,
    pub issue_counts: SeverityCounts,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct SeverityCounts {
    pub error: u64,
    pub warning: u64,
}

/// One finding, as the reports of a sweep list it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct IssueFields {
    pub code: String,
    pub severity: String,
    pub class: String,
    pub message: String,
    /// Written only where a finding has one.
    #[serde(default, rename = "detailCode")]
    pub detail_code: Option<String>,
    /// The decisive text (an installer's line, the server's stderr, an error's message),
    /// written only where a finding has some.
    #[serde(default)]
    pub evidence: Option<String>,
    /// How to fix it, written only where a finding has a fix.
    #[serde(default)]
    pub fix: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ServerName {
    #[serde(deserialize_with = "present")]
    pub name: Option<String>,
}

/// A field that is always written, possibly as null: unlike a plain `Option`, its absence
/// is an error (serde fills a missing `Option` with `None` unless told otherwise).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    Option::<T>::deserialize(d)
}

/// As `present`, with the empty string meaning none too.
fn present_not_empty<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(Option::<String>::deserialize(d)?.filter(|s| !s.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::Status;
    use serde_json::json;

    fn read(line: &serde_json::Value) -> serde_json::Result<LineVerdict> {
        let bytes = serde_json::to_vec(line).expect("json");
        LineVerdict::read(LineStatus::Judged(Status::Fail), &bytes)
    }

    fn guarded() -> serde_json::Value {
        json!({
            "summary": {"issueClass": "stdioTransport", "primaryIssueCode": "stdout-non-json",
                        "issueCounts": {"error": 1, "warning": 0}},
            "issues": [{"code": "stdout-non-json", "severity": "error", "class": "stdioTransport", "message": "m"}],
            "command": ["node", "s.js"],
            "serverInfo": null,
        })
    }

    #[test]
    fn every_field_read_must_be_there_null_or_not() {
        let whole = read(&guarded()).expect("a whole line reads");
        assert_eq!(whole.server_name(), None);
        assert_eq!(
            whole
                .summary()
                .and_then(|s| s.primary_issue_code.as_deref()),
            Some("stdout-non-json")
        );
        for path in [
            "/summary",
            "/summary/issueClass",
            "/summary/primaryIssueCode",
            "/summary/issueCounts/error",
            "/issues",
            "/command",
            "/serverInfo",
        ] {
            let mut line = guarded();
            let (parent, key) = path.rsplit_once('/').expect("a path");
            line.pointer_mut(if parent.is_empty() { "" } else { parent })
                .and_then(|p| p.as_object_mut())
                .and_then(|p| p.remove(key))
                .expect("present");
            assert!(read(&line).is_err(), "{path} is missing, yet the line read");
        }
    }

    #[test]
    fn an_empty_code_or_class_is_none() {
        let mut line = guarded();
        line["summary"]["issueClass"] = json!("");
        line["summary"]["primaryIssueCode"] = json!(null);
        let read = read(&line).expect("reads");
        let summary = read.summary().expect("summary");
        assert_eq!(
            (&summary.issue_class, &summary.primary_issue_code),
            (&None, &None)
        );
    }
}
