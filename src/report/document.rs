//! The engine-neutral report every machine renderer reads: findings plus the facts of the
//! run. Each engine has one builder here; SARIF, Markdown and the GitHub outputs never look
//! past this struct, so a new engine needs a builder and no renderer change.

use super::repo::RepoContext;
use crate::catalog::Code;
use crate::finding::{excerpt, Finding, Severity};
use crate::guard::GuardRun;
use crate::secrets::redact_argv;
use crate::verdict::Verdict;
use std::collections::BTreeSet;

pub const TOOL_NAME: &str = "mcpcheck";
pub const TOOL_VERSION: &str = env!("CARGO_PKG_VERSION");
/// The repository URL from Cargo.toml; rule help pages live under it.
pub const REPOSITORY_URL: &str = env!("CARGO_PKG_REPOSITORY");

/// The git ref this binary was built from, as its rule links name it: its release tag when
/// one is known, else the commit it was built from (`main` without git); see build.rs.
pub const SOURCE_REF: &str = env!("MCPCHECK_SOURCE_REF");
/// The commit this binary was built from (40 hex digits), or empty when unknown.
pub const SOURCE_COMMIT: &str = env!("MCPCHECK_SOURCE_COMMIT");

/// A rule's doc, as the build that produced the report describes it, at a ref that exists.
pub fn help_uri(code: Code) -> String {
    format!(
        "{REPOSITORY_URL}/blob/{SOURCE_REF}/docs/rules/{}.md",
        code.as_str()
    )
}

/// A report: what was found and the facts needed to describe and reproduce the run.
#[derive(Debug, Clone)]
pub struct Report {
    /// The engine that produced the findings: `guard`, `source`, `scan`.
    pub engine: &'static str,
    pub findings: Vec<Finding>,
    /// Status per check, in report order.
    pub checks: Vec<CheckRow>,
    /// The server command, credentials masked (empty for engines that run no server).
    pub command: Vec<String>,
    /// The mcpcheck command line that reproduces the run, credentials masked.
    pub invocation: Vec<String>,
    /// Shell lines to reproduce the run locally, in order.
    pub reproduce: Vec<String>,
    pub profile: Option<String>,
    /// The protocol revision requested, and the one the session ran under.
    pub protocol: Option<String>,
    pub negotiated: Option<String>,
    /// `name version` of the server, escaped and bounded.
    pub server: Option<String>,
    pub operations: Vec<OperationRow>,
    pub duration_ms: Option<u64>,
    /// The exit code of the command that wrote the report.
    pub exit_code: i32,
    /// SARIF `runAutomationDetails` category.
    pub category: Option<String>,
    pub repo: RepoContext,
    /// Repository-relative file that findings without a file of their own are anchored to.
    pub anchor: Option<String>,
    /// Things a reader must know about the run itself (not findings).
    pub notices: Vec<String>,
    /// The SARIF is uploaded by the Action: a file outside the repository is anchored like
    /// a runtime finding, never given a `file://` URI Code Scanning would reject.
    pub for_upload: bool,
}

/// The notice of a guard report with nothing to anchor runtime findings to.
pub const NO_ANCHOR_NOTICE: &str = "No repository file to anchor runtime findings to (no config file, project manifest, server script or workflow file inside the repository); SARIF results carry only their protocol location. Pass --anchor FILE.";

/// One check and what it found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckRow {
    pub name: String,
    pub status: CheckStatus,
    pub codes: Vec<Code>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckStatus {
    Pass,
    Warning,
    Fail,
    /// The run could not check it here (the portable process backend's leftovers).
    NotChecked,
}

impl CheckStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            CheckStatus::Pass => "pass",
            CheckStatus::Warning => "warning",
            CheckStatus::Fail => "fail",
            CheckStatus::NotChecked => "not-checked",
        }
    }

    fn of<'a>(findings: impl Iterator<Item = &'a Finding>) -> Self {
        match findings.map(|f| f.severity).max() {
            Some(Severity::Error) => CheckStatus::Fail,
            Some(Severity::Warning) => CheckStatus::Warning,
            _ => CheckStatus::Pass,
        }
    }
}

/// One request the run sent and how it went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperationRow {
    pub method: String,
    pub outcome: String,
    pub latency_ms: Option<u64>,
}

/// What a builder needs besides the engine's own result.
#[derive(Debug, Clone)]
pub struct ReportContext {
    pub repo: RepoContext,
    /// An anchor already checked with `RepoContext::explicit_anchor`.
    pub anchor: Option<String>,
    pub category: Option<String>,
    /// The mcpcheck command line to show as the way to reproduce (redacted here).
    pub invocation: Vec<String>,
    pub exit_code: i32,
}

impl Report {
    pub fn verdict(&self) -> Verdict<'_> {
        Verdict::of(&self.findings)
    }

    /// A report of a run in which no engine ran (only notices to show).
    pub fn without_engine(cx: ReportContext) -> Self {
        Self {
            engine: "action",
            findings: Vec::new(),
            checks: Vec::new(),
            command: Vec::new(),
            invocation: redact_argv(&cx.invocation),
            reproduce: Vec::new(),
            profile: None,
            protocol: None,
            negotiated: None,
            server: None,
            operations: Vec::new(),
            duration_ms: None,
            exit_code: cx.exit_code,
            category: cx.category,
            repo: cx.repo,
            anchor: cx.anchor,
            notices: Vec::new(),
            for_upload: false,
        }
    }

    /// The guard's report. Runtime findings have no file: they are anchored to the explicit
    /// anchor, the config file, the manifest in the server's directory, the server script,
    /// or the workflow file running the job.
    pub fn from_guard(run: &GuardRun, cx: ReportContext) -> Self {
        let t = run.transcript();
        let repo = cx.repo;
        let anchor = cx
            .anchor
            .or_else(|| {
                run.settings
                    .config_file
                    .as_deref()
                    .and_then(|p| repo.relative(p))
            })
            .or_else(|| {
                let dir = run
                    .command
                    .cwd
                    .clone()
                    .or_else(|| std::env::current_dir().ok())?;
                repo.manifest_in(&dir).or_else(|| {
                    // A script named in the command (`python3 server.py`), relative to the server's cwd.
                    run.command
                        .args
                        .iter()
                        .filter(|a| !a.starts_with('-'))
                        .find_map(|a| repo.relative(&dir.join(a)))
                })
            })
            .or_else(|| repo.workflow_file());
        let argv: Vec<String> = std::iter::once(run.command.program.clone())
            .chain(run.command.args.iter().cloned())
            .collect();
        let server = run.server.as_ref().map(server_label);
        let mut notices = Vec::new();
        if anchor.is_none() {
            notices.push(NO_ANCHOR_NOTICE.to_string());
        }
        let short = run.secrets.too_short();
        if short > 0 {
            notices.push(format!(
                "{short} value{} given to the server (--env, --header) {} shorter than {} characters: such a value is not removed from what the server writes, where it would rewrite ordinary words.",
                if short == 1 { "" } else { "s" },
                if short == 1 { "is" } else { "are" },
                crate::secrets::known::MIN_SECRET_CHARS
            ));
        }
        if run.leftovers_not_checked() {
            notices.push(format!(
                "Leftover processes: {}.",
                crate::process::backend::LEFTOVERS_NOT_CHECKED
            ));
        }
        // The values the run was given (`--env K=V`, `--header N=V`) are masked in the
        // command line as everywhere else, whatever their names.
        let invocation: Vec<String> = redact_argv(&cx.invocation)
            .iter()
            .map(|a| run.secrets.remove(a).into_owned())
            .collect();
        let reproduce = if invocation.is_empty() {
            Vec::new()
        } else {
            vec![crate::shell::join(&invocation)]
        };
        Self {
            engine: "guard",
            findings: run.findings.clone(),
            checks: guard_checks(run),
            command: redact_argv(&argv),
            invocation,
            reproduce,
            profile: Some(run.settings.profile.as_str().to_string()),
            protocol: Some(run.plan.protocol.clone()),
            negotiated: t.session_version().map(|v| excerpt(&v, 40)),
            server,
            operations: t
                .exchanges
                .iter()
                .map(|e| OperationRow {
                    method: excerpt(&e.method, 60),
                    outcome: e.outcome.label().to_string(),
                    latency_ms: e.answered_ms.map(|a| a.saturating_sub(e.sent_ms)),
                })
                .collect(),
            duration_ms: Some(t.duration_ms),
            exit_code: cx.exit_code,
            category: cx.category,
            repo,
            anchor,
            notices,
            for_upload: false,
        }
    }
}

/// One row per guard check, then rows for the repeat runs, the probes and anything else.
fn guard_checks(run: &GuardRun) -> Vec<CheckRow> {
    let mut claimed: BTreeSet<Code> = BTreeSet::new();
    let mut rows = Vec::new();
    let row = |name: &str, codes: &[Code], rows: &mut Vec<CheckRow>| {
        let found: Vec<&Finding> = run
            .findings
            .iter()
            .filter(|f| codes.contains(&f.code))
            .collect();
        let mut found_codes: Vec<Code> = found.iter().map(|f| f.code).collect();
        found_codes.sort_unstable();
        found_codes.dedup();
        rows.push(CheckRow {
            name: name.to_string(),
            status: CheckStatus::of(found.into_iter()),
            codes: found_codes,
        });
    };
    for check in &run.primary().checks {
        row(check.name, &check.codes, &mut rows);
        claimed.extend(check.codes.iter().copied());
    }
    if run.leftovers_not_checked() {
        rows.push(CheckRow {
            name: "leftoverProcesses".to_string(),
            status: CheckStatus::NotChecked,
            codes: Vec::new(),
        });
    }
    if run.runs.len() > 1 {
        let codes: Vec<Code> = run
            .drift
            .iter()
            .flat_map(|d| d.findings.iter().map(|f| f.code))
            .collect();
        row("repeatRuns", &codes, &mut rows);
        claimed.extend(codes);
    }
    if !run.probes.is_empty() {
        let codes: Vec<Code> = run
            .probes
            .iter()
            .flat_map(|p| p.findings.iter().map(|f| f.code))
            .collect();
        row("adversarialProbes", &codes, &mut rows);
        claimed.extend(codes);
    }
    if !run.matrix.is_empty() {
        let codes = [
            Code::ProtocolVersionMismatch,
            Code::ProtocolBogusVersion,
            Code::ProtocolVersionNotHonoured,
        ];
        row("protocolMatrix", &codes, &mut rows);
        claimed.extend(codes);
    }
    let rest: Vec<Code> = run
        .findings
        .iter()
        .map(|f| f.code)
        .filter(|c| !claimed.contains(c))
        .collect();
    if !rest.is_empty() {
        row("other", &rest, &mut rows);
    }
    rows
}

/// `name version` of the server's identity, `?` for a part it did not send, bounded.
pub fn server_label(server: &crate::guard::clean::ServerIdentity) -> String {
    let field = |f: &Option<String>| f.clone().unwrap_or_else(|| "?".into());
    // An empty version says nothing: no trailing blank where it would go.
    let label = format!("{} {}", field(&server.name), field(&server.version));
    excerpt(label.trim_end(), 100)
}
