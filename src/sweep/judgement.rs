//! What a sweep can say of each server: working, broken (a fault of the server's own), could
//! not be judged here (and why: the host, the registry, a credential, a deadline), or not
//! asked; and the decisive line behind its verdict.

use super::line::{LineStatus, NotJudged};
use super::summary::{IssueRow, ServerRow};
use crate::finding::{excerpt, IssueClass};
use crate::verdict::Status;

/// What the sweep says of one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Judgement {
    /// Passed, or only warnings.
    Working,
    /// A fault of the server's own: a protocol or transport fault, a server that did not
    /// run with nothing pointing outside it, a package or executable no client can install.
    Broken,
    /// No verdict on the server where the sweep ran, and why.
    NotJudged(&'static str),
    /// Not asked (another transport, a remote entry without --remote).
    NotAsked,
}

impl Judgement {
    pub fn of(s: &ServerRow) -> Self {
        let primary = s
            .primary_issue_code
            .as_deref()
            .and_then(|code| s.issues.iter().find(|i| i.code == code));
        let environment = s.issue_class.as_deref() == Some(IssueClass::Environment.as_str());
        let detail = primary.and_then(|i| i.detail_code.as_deref());
        match s.status {
            LineStatus::Judged(Status::Pass | Status::Warning) => Self::Working,
            LineStatus::NotJudged(NotJudged::NotAsked) => Self::NotAsked,
            LineStatus::NotJudged(NotJudged::NeedsConfiguration) => {
                Self::NotJudged("configuration not given")
            }
            LineStatus::NotJudged(NotJudged::SetupFailed) => Self::NotJudged("setup failed"),
            LineStatus::NotJudged(NotJudged::SweepError) => {
                Self::NotJudged("the sweep's own error")
            }
            LineStatus::NotJudged(NotJudged::InstallFailed) => {
                match (s.primary_issue_code.as_deref(), detail) {
                    (Some("install-timeout"), _) => Self::NotJudged("install past its deadline"),
                    (Some("install-runtime-too-old"), _) => {
                        Self::NotJudged("runtime too old for this host")
                    }
                    (Some("install-failed"), Some("installer-missing")) => {
                        Self::NotJudged("launcher not installed")
                    }
                    (_, Some("dependency")) => {
                        Self::NotJudged("a dependency missing from the registry here")
                    }
                    (_, Some("native-library")) => Self::NotJudged("native library missing"),
                    (_, Some("upstream")) => Self::NotJudged("upstream unreachable"),
                    (Some("install-failed"), _) => Self::NotJudged("install failed here"),
                    _ if environment => Self::NotJudged("the host's"),
                    _ => Self::Broken,
                }
            }
            _ if environment => Self::NotJudged(match detail {
                Some("native-library") => "native library missing",
                Some("runtime") => "runtime too old for this host",
                _ if primary.is_some_and(|i| i.message.contains("native library")) => {
                    "native library missing"
                }
                _ if primary.is_some_and(|i| i.message.contains("credential")) => {
                    "credential missing or rejected"
                }
                _ if primary.is_some_and(|i| i.message.contains("it must be given is missing")) => {
                    "configuration missing"
                }
                _ => "upstream unreachable",
            }),
            _ => Self::Broken,
        }
    }
}

/// How many servers the sweep can say each thing of.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Judged {
    pub working: usize,
    pub broken: usize,
    pub not_judged: usize,
    pub not_asked: usize,
}

impl Judged {
    /// Each count with its name and what it means, as reports explain them.
    pub fn explained(&self) -> [(usize, &'static str, &'static str); 4] {
        [
            (self.working, "working", "Passed, or only warnings."),
            (
                self.broken,
                "broken",
                "A fault of the server's own: a protocol or transport fault, a server that did not run with nothing pointing outside it, a package or executable no client can install.",
            ),
            (
                self.not_judged,
                "could not be judged here",
                "No verdict where the sweep ran, and why: the host, the registry, a credential, a deadline.",
            ),
            (
                self.not_asked,
                "not asked",
                "Not started by the sweep: another transport, or a remote entry without --remote.",
            ),
        ]
    }

    pub fn of(servers: &[ServerRow]) -> Self {
        let mut j = Self::default();
        for s in servers {
            let slot = match Judgement::of(s) {
                Judgement::Working => &mut j.working,
                Judgement::Broken => &mut j.broken,
                Judgement::NotJudged(_) => &mut j.not_judged,
                Judgement::NotAsked => &mut j.not_asked,
            };
            *slot += 1;
        }
        j
    }
}

/// The servers that could not be judged here, each with why, in report order.
pub fn not_judged(servers: &[ServerRow]) -> Vec<(&str, &'static str)> {
    servers
        .iter()
        .filter_map(|s| match Judgement::of(s) {
            Judgement::NotJudged(why) => Some((s.id.as_str(), why)),
            _ => None,
        })
        .collect()
}

/// The line that decides a server's verdict: of its primary issue, the evidence's last line
/// (the installer's line, the server's last stderr line, the error answer's message), else
/// the issue's message; of an entry with no issue, why it has its status.
pub fn cause(issues: &[IssueRow], primary: Option<&str>, reason: Option<&str>) -> Option<String> {
    let issue = primary.and_then(|code| issues.iter().find(|i| i.code == code));
    let decisive = issue.and_then(|i| {
        i.evidence
            .as_deref()
            .and_then(|e| e.lines().map(str::trim).rfind(|l| !l.is_empty()))
            .map(|l| l.strip_prefix("stderr: ").unwrap_or(l).to_string())
            .or_else(|| Some(i.message.clone()))
    });
    decisive
        .or_else(|| reason.map(str::to_string))
        .map(|c| excerpt(&c, 200))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn row(status: &str, code: Option<&str>, class: Option<&str>) -> ServerRow {
        ServerRow {
            id: "x".into(),
            registry_type: None,
            version: None,
            status: serde_json::from_value(status.into()).expect("a status"),
            primary_issue_code: code.map(str::to_string),
            issue_class: class.map(str::to_string),
            errors: 0,
            warnings: 0,
            wall_ms: None,
            install_ms: None,
            run_ms: None,
            started_at: None,
            reason: None,
            server_name: None,
            command: None,
            reproduce: None,
            cause: None,
            issues: Vec::new(),
            file: String::new(),
            line: 0,
        }
    }

    fn with_issue(mut r: ServerRow, detail: Option<&str>, message: &str) -> ServerRow {
        r.issues.push(IssueRow {
            code: r.primary_issue_code.clone().unwrap_or_default(),
            severity: "error".into(),
            class: r.issue_class.clone().unwrap_or_default(),
            message: message.into(),
            detail_code: detail.map(str::to_string),
            evidence: None,
            fix: None,
        });
        r
    }

    #[test]
    fn broken_servers_are_counted_apart_from_those_not_judged_here() {
        let rows = [
            row("pass", None, None),
            row("warning", Some("stdout-empty-line"), Some("stdioTransport")),
            row("fail", Some("stdout-non-json"), Some("stdioTransport")),
            row(
                "needs_inspection",
                Some("server-exited"),
                Some("installRuntime"),
            ),
            row(
                "install-failed",
                Some("install-package-missing"),
                Some("installRuntime"),
            ),
            row(
                "install-failed",
                Some("install-no-executable"),
                Some("installRuntime"),
            ),
            row(
                "needs_inspection",
                Some("capability-list-error"),
                Some("environment"),
            ),
            row(
                "install-failed",
                Some("install-timeout"),
                Some("installRuntime"),
            ),
            row(
                "install-failed",
                Some("install-runtime-too-old"),
                Some("installRuntime"),
            ),
            with_issue(
                row(
                    "install-failed",
                    Some("install-package-missing"),
                    Some("environment"),
                ),
                Some("dependency"),
                "",
            ),
            with_issue(
                row(
                    "needs_inspection",
                    Some("server-exited"),
                    Some("environment"),
                ),
                None,
                "Its own output says a credential it needs is missing where it ran",
            ),
            with_issue(
                row(
                    "needs_inspection",
                    Some("server-exited"),
                    Some("environment"),
                ),
                None,
                "Its own output says an argument, variable or file it must be given is missing where it ran",
            ),
            row("needs-configuration", None, None),
            row("not-asked", None, None),
        ];
        assert_eq!(
            Judged::of(&rows),
            Judged {
                working: 2,
                broken: 4,
                not_judged: 7,
                not_asked: 1
            }
        );
        let why: Vec<&str> = not_judged(&rows).into_iter().map(|(_, w)| w).collect();
        assert_eq!(
            why,
            [
                "upstream unreachable",
                "install past its deadline",
                "runtime too old for this host",
                "a dependency missing from the registry here",
                "credential missing or rejected",
                "configuration missing",
                "configuration not given"
            ]
        );
    }

    #[test]
    fn the_cause_is_the_evidence_s_last_line_else_the_message_else_the_reason() {
        let issue = |evidence: Option<&str>| IssueRow {
            code: "server-exited".into(),
            severity: "error".into(),
            class: "installRuntime".into(),
            message: "The server exited with code 1 before answering initialize.".into(),
            detail_code: None,
            evidence: evidence.map(str::to_string),
            fix: None,
        };
        let stderr = issue(Some("stderr: Traceback\n  File x\nKeyError: 'TOKEN'\n"));
        assert_eq!(
            cause(&[stderr], Some("server-exited"), None).as_deref(),
            Some("KeyError: 'TOKEN'")
        );
        assert_eq!(
            cause(&[issue(None)], Some("server-exited"), None).as_deref(),
            Some("The server exited with code 1 before answering initialize.")
        );
        assert_eq!(
            cause(&[], None, Some("needs API_KEY")).as_deref(),
            Some("needs API_KEY")
        );
    }
}
