//! The scan's JSON report (`schemaVersion: 1`): summary, configs, servers with their live
//! state, issues with fingerprints, notices and stats. Documented in the README.

use super::server::{server, ServerFacts};
use crate::finding::{excerpt, Finding, Risk};
use crate::report::issue::{Issue, SchemaVersion};
use crate::scan::live::{LiveIndex, LiveState};
use crate::scan::{risk_of, ScanReport};
use crate::verdict::Status;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

/// The config scan report contract (v1).
pub const SCHEMA_VERSION: u32 = 1;

/// The config scan's JSON report: the configs read, every server found, the findings and
/// the run's statistics.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "mcpcheck scan --format json")]
pub struct ScanJson<'a> {
    pub schema_version: SchemaVersion,
    /// True when no finding is at or above `--fail-on`.
    pub ok: bool,
    pub summary: ScanSummary,
    pub configs: Vec<ConfigFacts<'a>>,
    pub servers: Vec<ServerFacts>,
    pub issues: Vec<ScanIssue<'a>>,
    pub notices: Vec<String>,
    pub stats: Stats<'a>,
}

/// The verdict: its status, the risk that fails the run, counts per risk, one line.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScanSummary {
    pub status: Status,
    /// The risk at or above which a finding fails the run (`--fail-on`).
    pub fail_on: &'static str,
    /// Findings at or above it.
    pub failing: usize,
    /// The first finding's code (the riskiest); null when nothing was found.
    pub primary_issue_code: Option<&'static str>,
    pub issue_counts: RiskCounts,
    /// One line for job summaries.
    pub display: String,
}

/// Findings per risk.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RiskCounts {
    pub critical: usize,
    pub high: usize,
    pub medium: usize,
    pub low: usize,
    pub info: usize,
    pub total: usize,
}

/// A config file read.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ConfigFacts<'a> {
    pub path: &'a str,
    pub client: &'static str,
    pub scope: &'static str,
    pub servers: usize,
}

/// A finding with its risk. A finding of its own risk carries it in place; any other gets
/// the risk its severity implies, after the other fields.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ScanIssue<'a> {
    #[serde(flatten)]
    pub issue: Issue<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub risk: Option<Risk>,
}

/// What the run looked at and how long it took.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Stats<'a> {
    pub configs: usize,
    pub servers: usize,
    pub rules_run: usize,
    pub findings: usize,
    pub suppressed_by_baseline: usize,
    /// The baseline file, when one was used.
    pub baseline: Option<&'a str>,
    /// The lock file, when one was used.
    pub lock: Option<&'a str>,
    pub live: LiveStats,
    pub duration_ms: u64,
}

/// With `--live`: how many servers answered, could not be reached, were not asked.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LiveStats {
    pub ran: bool,
    pub answered: usize,
    pub could_not_connect: usize,
    pub not_asked: usize,
}

fn scan_issue(f: &Finding) -> ScanIssue<'_> {
    ScanIssue {
        issue: Issue::of(f),
        risk: f.risk.is_none().then(|| risk_of(f)),
    }
}

pub fn report(r: &ScanReport) -> ScanJson<'_> {
    let count = |risk: Risk| r.findings.iter().filter(|f| risk_of(f) == risk).count();
    let status = status(r);
    let live_count = |label: &str| r.live.iter().filter(|l| l.state.label() == label).count();
    let index = LiveIndex::new(&r.live);
    let mut servers = Vec::new();
    for file in &r.configs {
        for entry in &file.servers {
            let live = index.get(&file.display, &entry.pointer);
            servers.push(server(file, entry, live, false));
        }
    }
    ScanJson {
        schema_version: SchemaVersion,
        ok: r.ok(),
        summary: ScanSummary {
            status,
            fail_on: r.fail_on.as_str(),
            failing: r.failing(),
            primary_issue_code: r.findings.first().map(|f| f.code.as_str()),
            issue_counts: RiskCounts {
                critical: count(Risk::Critical),
                high: count(Risk::High),
                medium: count(Risk::Medium),
                low: count(Risk::Low),
                info: count(Risk::Info),
                total: r.findings.len(),
            },
            display: display(r),
        },
        configs: r
            .configs
            .iter()
            .map(|c| ConfigFacts {
                path: &c.display,
                client: c.client.as_str(),
                scope: c.scope.as_str(),
                servers: c.servers.len(),
            })
            .collect(),
        servers,
        issues: r.findings.iter().map(scan_issue).collect(),
        notices: r.notices.iter().map(|n| excerpt(n, 500)).collect(),
        stats: Stats {
            configs: r.configs.len(),
            servers: r.server_count(),
            rules_run: r.rules_run,
            findings: r.findings.len(),
            suppressed_by_baseline: r.suppressed,
            baseline: r.baseline.as_deref(),
            lock: r.lock.as_deref(),
            live: LiveStats {
                ran: r.live_ran,
                answered: live_count(LiveState::Answered.label()),
                could_not_connect: live_count("could-not-connect"),
                not_asked: live_count("not-asked"),
            },
            duration_ms: r.duration_ms,
        },
    }
}

pub fn render(r: &ScanReport) -> Value {
    serde_json::to_value(report(r)).unwrap_or(Value::Null)
}

/// Fail with a finding at or above `--fail-on`, warning with one above info, else pass.
pub fn status(r: &ScanReport) -> Status {
    if r.failing() > 0 {
        Status::Fail
    } else if r.findings.iter().any(|f| risk_of(f) > Risk::Info) {
        Status::Warning
    } else {
        Status::Pass
    }
}

/// One line for job summaries, headed by the status: `FAIL: hardcoded-secret (2 at or
/// above high, 5 findings)`.
pub fn display(r: &ScanReport) -> String {
    match r.findings.first() {
        None => "PASS: no findings".into(),
        Some(p) => format!(
            "{}: {} ({} at or above {}, {})",
            status(r).headline(),
            p.code,
            r.failing(),
            r.fail_on.as_str(),
            crate::finding::plural(r.findings.len(), "finding"),
        ),
    }
}
