//! The sweep report as JSON: every aggregate and every server row, for machines.

use crate::report::issue::SchemaVersion;
use crate::report::named::NamedMap;
use crate::sweep::changes;
use crate::sweep::summary::Summary;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

pub const SCHEMA_VERSION: u32 = 1;

/// The summary of one or more sweep results files.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "mcpcheck sweep-report --format json")]
pub struct SweepReport<'a> {
    pub schema_version: SchemaVersion,
    pub kind: Kind,
    pub totals: Totals,
    /// What the sweep can say of the servers: working, broken, could not be judged here
    /// (each with why), not asked.
    pub judged: JudgedCounts<'a>,
    /// The codes found on the most servers.
    pub top_issue_codes: Vec<CodeCount<'a>>,
    /// Per issue class, the servers with such an issue and each code's count.
    pub issue_classes: Vec<ClassTable<'a>>,
    /// The servers' own time, install apart.
    pub timing: Timing<'a>,
    pub install: InstallTime,
    /// The servers that took longest.
    pub slowest: Vec<WallTime<'a>>,
    /// Each results file read: its lines, and how long its run took.
    pub files: Vec<FileSpan<'a>>,
    /// One row per server, worst first.
    pub servers: Vec<ServerRow<'a>>,
    /// With `--baseline`: what changed since that earlier sweep. Added in v1 without
    /// breaking it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changes: Option<Changes<'a>>,
}

/// What changed since the baseline sweep.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Changes<'a> {
    /// Servers in the baseline.
    pub baseline_servers: usize,
    /// Broken now, not broken in the baseline.
    pub newly_broken: Vec<Moved<'a>>,
    /// Broken in the baseline, working now.
    pub fixed: Vec<Moved<'a>>,
    /// Codes found now that no baseline server had.
    pub new_codes: Vec<CodeCount<'a>>,
    /// Servers not in the baseline.
    pub added: &'a [String],
    /// Baseline servers not in this sweep.
    pub gone: &'a [String],
}

/// A server whose verdict moved.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Moved<'a> {
    pub id: &'a str,
    /// The baseline's id, when it differs (another version of the same server).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub was_id: Option<&'a str>,
    /// What the baseline said, with its status and primary code: `working (pass)`,
    /// `broken (fail stdout-non-json)`, `not judged, upstream unreachable (…)`.
    pub before: &'a str,
    /// What this sweep says, alike.
    pub now: &'a str,
}

/// What kind of document this is: always `sweep-report`.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
pub enum Kind {
    #[serde(rename = "sweep-report")]
    SweepReport,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    pub servers: usize,
    /// Servers per status, worst first.
    pub statuses: NamedMap<usize>,
    /// Lines of a server that a later line of the same server replaced.
    pub duplicates_replaced: usize,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JudgedCounts<'a> {
    /// Passed, or only warnings.
    pub working: usize,
    /// A fault of the server's own.
    pub broken: usize,
    /// No verdict where the sweep ran: the host, the registry, a credential, a deadline.
    pub not_judged: usize,
    /// Not started by the sweep (another transport, a remote entry without --remote).
    pub not_asked: usize,
    /// The servers counted in `notJudged`, each with why.
    pub not_judged_servers: Vec<NotJudgedServer<'a>>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct NotJudgedServer<'a> {
    pub id: &'a str,
    /// `runtime too old for this host`, `upstream unreachable`, `credential missing or
    /// rejected`, `native library missing`, `launcher not installed`, …
    pub reason: &'a str,
}

/// The install phase's time, apart from the servers' own.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InstallTime {
    /// Entries whose package was installed for them.
    pub installs: usize,
    /// Entries that used an earlier install.
    pub reused: usize,
    pub total_ms: u64,
    pub max_ms: u64,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CodeCount<'a> {
    pub code: &'a str,
    pub servers: usize,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ClassTable<'a> {
    pub class: &'a str,
    /// Servers with at least one issue of this class.
    pub servers: usize,
    pub codes: Vec<CodeRow<'a>>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CodeRow<'a> {
    pub code: &'a str,
    pub title: &'a str,
    pub severity: &'a str,
    pub servers: usize,
    /// A few of the servers with it.
    pub examples: &'a [String],
}

/// The started servers' wall times.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Timing<'a> {
    /// Servers that were started.
    pub count: usize,
    pub total_ms: u64,
    pub min_ms: u64,
    pub median_ms: u64,
    pub p90_ms: u64,
    pub p99_ms: u64,
    pub max_ms: u64,
    pub mean_ms: u64,
    pub buckets: Vec<Bucket<'a>>,
}

/// How many servers took a time in this range.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Bucket<'a> {
    pub label: &'a str,
    pub servers: usize,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WallTime<'a> {
    pub id: &'a str,
    pub wall_ms: u64,
}

/// One results file's run: how long it took and how much ran at once.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileSpan<'a> {
    pub file: &'a str,
    pub lines: usize,
    pub unreadable_lines: usize,
    /// First start to last finish.
    pub span_ms: Option<u64>,
    /// Sum of the servers' wall times.
    pub busy_ms: u64,
    /// busy / span: how many servers ran at once on average.
    pub concurrency: Option<f64>,
}

/// One server of the sweep.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServerRow<'a> {
    pub id: &'a str,
    /// Where its package comes from (`npm`, `pypi`, `oci`; `command` for a plain command,
    /// `remote` for a URL), read from its `reproduce` command. Added in v1 without breaking it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub registry_type: Option<&'a str>,
    /// The package version its `reproduce` command names. Added in v1 without breaking it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<&'a str>,
    pub status: &'a str,
    pub primary_issue_code: Option<&'a str>,
    pub issue_class: Option<&'a str>,
    pub errors: u64,
    pub warnings: u64,
    pub wall_ms: Option<u64>,
    /// Time spent installing its package; 0 when an earlier install was used.
    pub install_ms: Option<u64>,
    /// The entry's wall time less its install, when it was started.
    pub run_ms: Option<u64>,
    pub started_at: Option<&'a str>,
    /// Why it was not started or could not be checked.
    pub reason: Option<&'a str>,
    /// The decisive line behind the verdict: the installer's line, the server's last
    /// stderr line, an error answer's message, or why it was not started.
    pub cause: Option<&'a str>,
    pub server_name: Option<&'a str>,
    pub command: Option<&'a str>,
    /// The shell command that reruns this server alone.
    pub reproduce: Option<&'a str>,
    pub issues: Vec<IssueRow<'a>>,
    /// The results file and line holding this server's full guard result.
    pub file: &'a str,
    pub line: usize,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct IssueRow<'a> {
    pub code: &'a str,
    pub severity: &'a str,
    pub class: &'a str,
    pub message: &'a str,
}

pub fn report<'a>(summary: &'a Summary, changes: Option<&'a changes::Changes>) -> SweepReport<'a> {
    let t = &summary.timing;
    let judged = crate::sweep::judgement::Judged::of(&summary.servers);
    SweepReport {
        schema_version: SchemaVersion,
        kind: Kind::SweepReport,
        judged: JudgedCounts {
            working: judged.working,
            broken: judged.broken,
            not_judged: judged.not_judged,
            not_asked: judged.not_asked,
            not_judged_servers: crate::sweep::judgement::not_judged(&summary.servers)
                .into_iter()
                .map(|(id, reason)| NotJudgedServer { id, reason })
                .collect(),
        },
        install: InstallTime {
            installs: summary.install.installs,
            reused: summary.install.reused,
            total_ms: summary.install.total_ms,
            max_ms: summary.install.max_ms,
        },
        totals: Totals {
            servers: summary.servers.len(),
            statuses: summary
                .statuses
                .iter()
                .map(|(s, n)| (s.as_str().to_string(), *n))
                .collect(),
            duplicates_replaced: summary.duplicates,
        },
        top_issue_codes: summary
            .top_codes
            .iter()
            .map(|(code, servers)| CodeCount {
                code,
                servers: *servers,
            })
            .collect(),
        issue_classes: summary
            .classes
            .iter()
            .map(|c| ClassTable {
                class: &c.class,
                servers: c.servers,
                codes: c
                    .codes
                    .iter()
                    .map(|r| CodeRow {
                        code: &r.code,
                        title: &r.title,
                        severity: &r.severity,
                        servers: r.servers,
                        examples: &r.examples,
                    })
                    .collect(),
            })
            .collect(),
        timing: Timing {
            count: t.count,
            total_ms: t.total_ms,
            min_ms: t.min_ms,
            median_ms: t.median_ms,
            p90_ms: t.p90_ms,
            p99_ms: t.p99_ms,
            max_ms: t.max_ms,
            mean_ms: t.mean_ms,
            buckets: t
                .buckets
                .iter()
                .map(|b| Bucket {
                    label: b.label,
                    servers: b.servers,
                })
                .collect(),
        },
        slowest: summary
            .slowest
            .iter()
            .map(|(id, ms)| WallTime { id, wall_ms: *ms })
            .collect(),
        files: summary
            .files
            .iter()
            .map(|f| FileSpan {
                file: &f.file,
                lines: f.lines,
                unreadable_lines: f.unreadable_lines,
                span_ms: f.span_ms,
                busy_ms: f.busy_ms,
                concurrency: f.concurrency,
            })
            .collect(),
        servers: summary.servers.iter().map(server_row).collect(),
        changes: changes.map(|c| {
            let moved = |m: &'a changes::Moved| Moved {
                id: &m.id,
                was_id: m.was_id.as_deref(),
                before: &m.before,
                now: &m.now,
            };
            Changes {
                baseline_servers: c.baseline_servers,
                newly_broken: c.newly_broken.iter().map(moved).collect(),
                fixed: c.fixed.iter().map(moved).collect(),
                new_codes: c
                    .new_codes
                    .iter()
                    .map(|(code, servers)| CodeCount {
                        code,
                        servers: *servers,
                    })
                    .collect(),
                added: &c.added,
                gone: &c.gone,
            }
        }),
    }
}

fn server_row(s: &crate::sweep::summary::ServerRow) -> ServerRow<'_> {
    ServerRow {
        id: &s.id,
        registry_type: s.registry_type.as_deref(),
        version: s.version.as_deref(),
        status: s.status.as_str(),
        primary_issue_code: s.primary_issue_code.as_deref(),
        issue_class: s.issue_class.as_deref(),
        errors: s.errors,
        warnings: s.warnings,
        wall_ms: s.wall_ms,
        install_ms: s.install_ms,
        run_ms: s.run_ms,
        started_at: s.started_at.as_deref(),
        reason: s.reason.as_deref(),
        cause: s.cause.as_deref(),
        server_name: s.server_name.as_deref(),
        command: s.command.as_deref(),
        reproduce: s.reproduce.as_deref(),
        issues: s
            .issues
            .iter()
            .map(|i| IssueRow {
                code: &i.code,
                severity: &i.severity,
                class: &i.class,
                message: &i.message,
            })
            .collect(),
        file: &s.file,
        line: s.line,
    }
}

pub fn render(summary: &Summary, changes: Option<&changes::Changes>) -> Value {
    serde_json::to_value(report(summary, changes)).unwrap_or(Value::Null)
}
