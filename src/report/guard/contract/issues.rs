//! The contract's `issueClasses` and its fields of one issue.

use super::{codes_of, contract_class, status_of, CheckStatus};
use crate::catalog::Code;
use crate::finding::{Finding, IssueClass, Severity};
use crate::guard::GuardRun;
use crate::report::issue::Issue;
use crate::session::transcript::Transcript;
use schemars::JsonSchema;
use serde::Serialize;

/// One class of findings: its status, codes, and mcpcheck's counts beside them.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClassEntry {
    pub status: CheckStatus,
    pub issue_codes: Vec<&'static str>,
    pub errors: usize,
    pub warnings: usize,
}

/// The contract's `issueClasses` (its three, a static-source finding counted as a
/// stdio-transport fault), beside mcpcheck's `staticSource`, `security` and `environment`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IssueClasses {
    pub install_runtime: ClassEntry,
    pub stdio_transport: ClassEntry,
    pub mcp_protocol: ClassEntry,
    pub static_source: ClassEntry,
    pub security: ClassEntry,
    pub environment: ClassEntry,
}

/// The contract's `issueClasses`: status and codes per class, beside mcpcheck's counts.
pub fn issue_classes(findings: &[Finding]) -> IssueClasses {
    let entry = |class: IssueClass| {
        let of_class: Vec<&Finding> = findings
            .iter()
            .filter(|f| match class {
                IssueClass::StaticSource | IssueClass::Security => f.class() == class,
                _ => contract_class(f) == class,
            })
            .collect();
        let count = |s: Severity| of_class.iter().filter(|f| f.severity == s).count();
        ClassEntry {
            status: status_of(of_class.iter().copied()),
            issue_codes: codes_of(of_class.iter().copied()),
            errors: count(Severity::Error),
            warnings: count(Severity::Warning),
        }
    };
    let [install_runtime, stdio_transport, mcp_protocol, static_source, security, environment] =
        IssueClass::ALL.map(entry);
    IssueClasses {
        install_runtime,
        stdio_transport,
        mcp_protocol,
        static_source,
        security,
        environment,
    }
}

/// An issue of the guard's report: every report's issue, with the contract's class.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GuardIssue<'a> {
    #[serde(flatten)]
    pub issue: Issue<'a>,
    /// mcpcheck's own class, where the contract's `class` differs from it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mcpcheck_class: Option<IssueClass>,
    /// `spawn-failed`: the platform's short name for the error (`ENOENT`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spawn_error_code: Option<String>,
    /// With `--repeat`: the first run (1-based) that saw it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub run: Option<usize>,
}

/// The contract's fields of one issue: the contract class (mcpcheck's own kept when it
/// differs), the spawn error code, and in repeat mode the first run that saw it.
pub fn guard_issue<'a>(f: &'a Finding, run: Option<&GuardRun>, t: &Transcript) -> GuardIssue<'a> {
    let mut issue = Issue::of(f);
    let class = contract_class(f);
    let mcpcheck_class = (class != f.class()).then_some(f.class());
    issue.class = class;
    let spawn_error_code = (f.code == Code::SpawnFailed).then(|| {
        let code = t.process.spawn_error.as_ref().map(|e| e.code.clone());
        code.unwrap_or_default()
    });
    let run = run.and_then(|run| {
        let index = run.runs.iter().position(|s| {
            s.findings.iter().any(|o| {
                o.code == f.code && o.detail_code == f.detail_code && o.location == f.location
            })
        });
        index.map(|i| i + 1)
    });
    GuardIssue {
        issue,
        mcpcheck_class,
        spawn_error_code,
        run,
    }
}
