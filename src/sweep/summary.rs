//! What a sweep found, aggregated from merged result lines; the renderers only read this.

use super::line::{LineStatus, NotJudged};
use super::merge::{parse_rfc3339_ms, InputFile, Merged};
use super::results::ResultLine;
use crate::catalog::Code;
use crate::finding::{excerpt, IssueClass};
use crate::verdict::Status;
use std::collections::{BTreeMap, HashMap};

/// Example server ids listed per issue code.
const EXAMPLES: usize = 3;

#[derive(Debug, Clone)]
pub struct IssueRow {
    pub code: String,
    pub severity: String,
    pub class: String,
    pub message: String,
    pub detail_code: Option<String>,
    pub evidence: Option<String>,
    /// How to fix it: the finding's own, else its code's.
    pub fix: Option<String>,
}

#[derive(Debug, Clone)]
pub struct ServerRow {
    pub id: String,
    /// Where its package comes from (`npm`, `pypi`, `oci`; `remote` for a URL), read from
    /// the command that reruns it.
    pub registry_type: Option<String>,
    /// The package version that command names.
    pub version: Option<String>,
    pub status: LineStatus,
    pub primary_issue_code: Option<String>,
    pub issue_class: Option<String>,
    pub errors: u64,
    pub warnings: u64,
    pub wall_ms: Option<u64>,
    /// Time spent installing its package (0 when an earlier install was used).
    pub install_ms: Option<u64>,
    /// The server's own time: the entry's wall time less its install.
    pub run_ms: Option<u64>,
    pub started_at: Option<String>,
    /// Why it was not started or could not be checked.
    pub reason: Option<String>,
    pub server_name: Option<String>,
    pub command: Option<String>,
    /// The shell command that reruns it alone, secrets as `${NAME}`.
    pub reproduce: Option<String>,
    /// The decisive line behind its verdict (`judgement::cause`).
    pub cause: Option<String>,
    pub issues: Vec<IssueRow>,
    /// The results file and line holding this server's full guard result.
    pub file: String,
    pub line: usize,
}

#[derive(Debug, Clone)]
pub struct CodeRow {
    pub code: String,
    pub title: String,
    pub severity: String,
    pub servers: usize,
    pub examples: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct ClassTable {
    pub class: String,
    /// Servers with at least one issue of this class.
    pub servers: usize,
    pub codes: Vec<CodeRow>,
}

#[derive(Debug, Clone, Default)]
pub struct Timing {
    /// Servers that were started.
    pub count: usize,
    pub total_ms: u64,
    pub min_ms: u64,
    pub median_ms: u64,
    pub p90_ms: u64,
    pub p99_ms: u64,
    pub max_ms: u64,
    pub mean_ms: u64,
    pub buckets: Vec<Bucket>,
}

/// The install phase's time, apart from the servers' own.
#[derive(Debug, Clone, Default)]
pub struct InstallTime {
    /// Entries whose package was installed for them.
    pub installs: usize,
    /// Entries that used an earlier install (this sweep's, npx's cache, the project's).
    pub reused: usize,
    pub total_ms: u64,
    pub max_ms: u64,
}

#[derive(Debug, Clone)]
pub struct Bucket {
    pub label: &'static str,
    pub servers: usize,
}

/// One results file's run: how long it took and how much ran at once.
#[derive(Debug, Clone)]
pub struct FileSpan {
    pub file: String,
    pub lines: usize,
    pub unreadable_lines: usize,
    /// First start to last finish.
    pub span_ms: Option<u64>,
    /// Sum of the servers' wall times.
    pub busy_ms: u64,
    /// busy / span: how many servers ran at once on average.
    pub concurrency: Option<f64>,
}

#[derive(Debug, Clone, Default)]
pub struct Summary {
    pub servers: Vec<ServerRow>,
    /// Servers per status, worst first.
    pub statuses: Vec<(LineStatus, usize)>,
    pub classes: Vec<ClassTable>,
    pub top_codes: Vec<(String, usize)>,
    pub slowest: Vec<(String, u64)>,
    /// The servers' own time (install apart), of those that started.
    pub timing: Timing,
    pub install: InstallTime,
    pub files: Vec<FileSpan>,
    pub duplicates: usize,
    /// The first server's start and the last one's finish (RFC 3339, UTC), over every file.
    pub started: Option<String>,
    pub finished: Option<String>,
}

/// Statuses from worst to best.
pub fn status_rank(status: LineStatus) -> u8 {
    match status {
        LineStatus::Judged(Status::Fail) => 0,
        LineStatus::Judged(Status::NeedsInspection) => 1,
        LineStatus::NotJudged(NotJudged::InstallFailed) => 2,
        LineStatus::NotJudged(NotJudged::SetupFailed) => 3,
        LineStatus::NotJudged(NotJudged::SweepError) => 4,
        LineStatus::Judged(Status::Warning) => 5,
        LineStatus::Judged(Status::Pass) => 6,
        LineStatus::NotJudged(NotJudged::NeedsConfiguration) => 7,
        LineStatus::NotJudged(NotJudged::NotAsked) => 8,
    }
}

impl Summary {
    pub fn of(merged: &Merged) -> Self {
        let mut servers: Vec<ServerRow> = merged
            .lines
            .iter()
            .map(|l| server_row(&l.result, &l.file))
            .collect();
        servers.sort_by(|a, b| (status_rank(a.status), &a.id).cmp(&(status_rank(b.status), &b.id)));
        let mut statuses: BTreeMap<u8, (LineStatus, usize)> = BTreeMap::new();
        for s in &servers {
            statuses
                .entry(status_rank(s.status))
                .or_insert((s.status, 0))
                .1 += 1;
        }
        // Servers that ran: an entry whose install or setup failed never started one.
        let started: Vec<&ServerRow> = servers
            .iter()
            .filter(|s| matches!(s.status, LineStatus::Judged(_)))
            .collect();
        let mut slowest: Vec<(String, u64)> = started
            .iter()
            .filter_map(|s| Some((s.id.clone(), s.wall_ms?)))
            .collect();
        slowest.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        slowest.truncate(10);
        let (classes, top_codes) = classes(&servers);
        let (first_start, last_finish) = run_span(merged);
        Summary {
            started: first_start,
            finished: last_finish,
            timing: timing(started.iter().filter_map(|s| s.run_ms).collect()),
            install: install_time(&servers),
            statuses: statuses.into_values().collect(),
            classes,
            top_codes,
            slowest,
            files: merged.inputs.iter().map(file_span).collect(),
            duplicates: merged.duplicates,
            servers,
        }
    }
}

fn server_row(r: &ResultLine, file: &str) -> ServerRow {
    let l = &r.fields;
    let summary = r.verdict.summary();
    let issues = r
        .verdict
        .issues()
        .iter()
        .map(|i| IssueRow {
            code: excerpt(&i.code, 80),
            severity: excerpt(&i.severity, 20),
            class: excerpt(&i.class, 40),
            message: excerpt(&i.message, 300),
            detail_code: i.detail_code.as_deref().map(|d| excerpt(d, 60)),
            evidence: i.evidence.as_deref().map(|e| excerpt(e, 2000)),
            // A finding whose fix is its code's own carries none: the catalog has it.
            fix: i
                .fix
                .as_deref()
                .or_else(|| Code::from_name(&i.code).map(|c| c.meta().help))
                .map(|f| excerpt(f, 2000)),
        })
        .collect::<Vec<IssueRow>>();
    let started = l.status.was_started();
    let install_ms = l.install.as_ref().map(|i| i.duration_ms());
    let primary = summary.and_then(|s| s.primary_issue_code.as_deref());
    let (registry_type, version) = l
        .reproduce
        .as_deref()
        .map(super::reproduce_package::package_of)
        .unwrap_or_default();
    ServerRow {
        registry_type,
        version,
        cause: super::judgement::cause(&issues, primary, l.reason.as_deref()),
        install_ms,
        run_ms: started.then(|| l.wall_ms.saturating_sub(install_ms.unwrap_or(0))),
        reproduce: l.reproduce.as_deref().map(|r| excerpt(r, 2000)),
        id: excerpt(&l.id, 200),
        status: l.status,
        primary_issue_code: summary
            .and_then(|s| s.primary_issue_code.as_deref())
            .map(|c| excerpt(c, 80)),
        issue_class: summary
            .and_then(|s| s.issue_class.as_deref())
            .map(|c| excerpt(c, 40)),
        errors: summary.map_or(0, |s| s.issue_counts.error),
        warnings: summary.map_or(0, |s| s.issue_counts.warning),
        // An entry never started has no wall time worth showing.
        wall_ms: l.status.was_started().then_some(l.wall_ms),
        started_at: Some(excerpt(&l.started_at, 40)),
        reason: l.reason.as_deref().map(|r| excerpt(r, 300)),
        server_name: r.verdict.server_name().map(|n| excerpt(n, 128)),
        command: r
            .verdict
            .command()
            .map(|argv| excerpt(&argv.join(" "), 200)),
        issues,
        file: file.to_string(),
        line: r.line,
    }
}

/// Tables per issue class (codes by how many servers have them) and the most common codes.
fn classes(servers: &[ServerRow]) -> (Vec<ClassTable>, Vec<(String, usize)>) {
    // class -> code -> (worst severity, server ids)
    let mut by_class: BTreeMap<String, BTreeMap<String, (String, Vec<String>)>> = BTreeMap::new();
    let mut servers_in_class: HashMap<String, usize> = HashMap::new();
    for s in servers {
        let mut seen_classes: Vec<&str> = Vec::new();
        // A note is not an issue: it counts no server, here or in the top codes.
        for issue in s.issues.iter().filter(|i| i.severity != "note") {
            let entry = by_class
                .entry(issue.class.clone())
                .or_default()
                .entry(issue.code.clone())
                .or_insert_with(|| (issue.severity.clone(), Vec::new()));
            if severity_rank(&issue.severity) < severity_rank(&entry.0) {
                entry.0 = issue.severity.clone();
            }
            if entry.1.last() != Some(&s.id) {
                entry.1.push(s.id.clone());
            }
            if !seen_classes.contains(&issue.class.as_str()) {
                seen_classes.push(&issue.class);
                *servers_in_class.entry(issue.class.clone()).or_default() += 1;
            }
        }
    }
    let known: Vec<&str> = IssueClass::ALL.iter().map(|c| c.as_str()).collect();
    let mut order: Vec<String> = known.iter().map(|c| c.to_string()).collect();
    order.extend(
        by_class
            .keys()
            .filter(|k| !known.contains(&k.as_str()))
            .cloned(),
    );
    let mut top: Vec<(String, usize)> = Vec::new();
    let mut tables = Vec::new();
    for class in order {
        let Some(codes) = by_class.remove(&class) else {
            continue;
        };
        let mut rows: Vec<CodeRow> = codes
            .into_iter()
            .map(|(code, (severity, ids))| CodeRow {
                title: Code::from_name(&code)
                    .map(|c| c.meta().title.to_string())
                    .unwrap_or_default(),
                servers: ids.len(),
                examples: ids.into_iter().take(EXAMPLES).collect(),
                severity,
                code,
            })
            .collect();
        rows.sort_by(|a, b| b.servers.cmp(&a.servers).then_with(|| a.code.cmp(&b.code)));
        tables.push(ClassTable {
            servers: servers_in_class.get(&class).copied().unwrap_or(0),
            class,
            codes: rows,
        });
    }
    // A code counts each server once, whatever class its issues were filed under (an
    // initialize-timeout is environment's on one server, installRuntime on another).
    let mut by_code: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for s in servers {
        for issue in s.issues.iter().filter(|i| i.severity != "note") {
            let ids = by_code.entry(issue.code.as_str()).or_default();
            if ids.last() != Some(&s.id.as_str()) {
                ids.push(s.id.as_str());
            }
        }
    }
    top.extend(
        by_code
            .into_iter()
            .map(|(c, ids)| (c.to_string(), ids.len())),
    );
    top.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    top.truncate(10);
    (tables, top)
}

/// Severities from worst: error, warning, note, anything else.
pub fn severity_rank(s: &str) -> u8 {
    match s {
        "error" => 0,
        "warning" => 1,
        "note" => 2,
        _ => 3,
    }
}

const BUCKETS: &[(&str, u64)] = &[
    ("< 1 s", 1_000),
    ("1–5 s", 5_000),
    ("5–10 s", 10_000),
    ("10–30 s", 30_000),
    ("30–60 s", 60_000),
    ("≥ 60 s", u64::MAX),
];

fn timing(mut walls: Vec<u64>) -> Timing {
    walls.sort_unstable();
    let mut buckets: Vec<Bucket> = BUCKETS
        .iter()
        .map(|(label, _)| Bucket { label, servers: 0 })
        .collect();
    for &w in &walls {
        let i = BUCKETS
            .iter()
            .position(|(_, upper)| w < *upper)
            .unwrap_or(BUCKETS.len() - 1);
        buckets[i].servers += 1;
    }
    let Some(&max_ms) = walls.last() else {
        return Timing {
            buckets,
            ..Timing::default()
        };
    };
    let total_ms: u64 = walls.iter().sum();
    // Nearest-rank percentile.
    let pct = |p: usize| walls[(walls.len() * p).div_ceil(100).clamp(1, walls.len()) - 1];
    Timing {
        count: walls.len(),
        total_ms,
        min_ms: walls[0],
        median_ms: pct(50),
        p90_ms: pct(90),
        p99_ms: pct(99),
        max_ms,
        mean_ms: total_ms / walls.len() as u64,
        buckets,
    }
}

fn install_time(servers: &[ServerRow]) -> InstallTime {
    let mut t = InstallTime::default();
    for ms in servers.iter().filter_map(|s| s.install_ms) {
        if ms == 0 {
            t.reused += 1;
        } else {
            t.installs += 1;
        }
        t.total_ms += ms;
        t.max_ms = t.max_ms.max(ms);
    }
    t
}

/// When the sweep's first entry started and its last one finished.
fn run_span(merged: &Merged) -> (Option<String>, Option<String>) {
    let spans = merged.inputs.iter().flat_map(|i| &i.lines).filter_map(|l| {
        let start = parse_rfc3339_ms(&l.fields.started_at)?;
        Some((start, start + l.fields.wall_ms as i64))
    });
    let (first, last) = spans.fold(
        (None, None),
        |(f, l): (Option<i64>, Option<i64>), (s, e)| {
            (
                Some(f.map_or(s, |f| f.min(s))),
                Some(l.map_or(e, |l| l.max(e))),
            )
        },
    );
    let shown = |ms: i64| {
        let at = std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms.max(0) as u64);
        super::results::rfc3339(at)
    };
    (first.map(shown), last.map(shown))
}

fn file_span(input: &InputFile) -> FileSpan {
    let mut first: Option<i64> = None;
    let mut last: Option<i64> = None;
    let mut busy_ms = 0u64;
    for l in &input.lines {
        let wall = l.fields.wall_ms;
        let Some(start) = parse_rfc3339_ms(&l.fields.started_at) else {
            continue;
        };
        if !l.fields.status.was_started() {
            continue;
        }
        busy_ms += wall;
        first = Some(first.map_or(start, |f| f.min(start)));
        let end = start + wall as i64;
        last = Some(last.map_or(end, |l| l.max(end)));
    }
    let span_ms = match (first, last) {
        (Some(f), Some(l)) if l >= f => Some((l - f) as u64),
        _ => None,
    };
    FileSpan {
        file: input.path.clone(),
        lines: input.lines.len(),
        unreadable_lines: input.unreadable,
        span_ms,
        busy_ms,
        concurrency: span_ms
            .filter(|&s| s > 0)
            .map(|s| (busy_ms as f64 / s as f64 * 10.0).round() / 10.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::judgement::tests::row;

    #[test]
    fn a_code_filed_under_two_classes_is_one_top_code() {
        let issue = |class: &str| IssueRow {
            code: "initialize-timeout".into(),
            severity: "error".into(),
            class: class.into(),
            message: String::new(),
            detail_code: None,
            evidence: None,
            fix: None,
        };
        let mut a = row(
            "needs_inspection",
            Some("initialize-timeout"),
            Some("environment"),
        );
        a.issues.push(issue("environment"));
        let mut b = row(
            "needs_inspection",
            Some("initialize-timeout"),
            Some("installRuntime"),
        );
        b.id = "y".into();
        b.issues.push(issue("installRuntime"));
        let (tables, top) = classes(&[a, b]);
        assert_eq!(top, [("initialize-timeout".to_string(), 2)]);
        assert_eq!(tables.len(), 2);
    }

    #[test]
    fn percentiles_use_the_nearest_rank() {
        let t = timing((1..=100).map(|n| n * 100).collect());
        assert_eq!(
            (t.min_ms, t.median_ms, t.p90_ms, t.p99_ms, t.max_ms),
            (100, 5000, 9000, 9900, 10000)
        );
        assert_eq!(t.count, 100);
        assert_eq!(
            t.buckets.iter().map(|b| b.servers).collect::<Vec<_>>(),
            [9, 40, 50, 1, 0, 0]
        );
        let one = timing(vec![700]);
        assert_eq!((one.median_ms, one.p99_ms, one.mean_ms), (700, 700, 700));
        assert_eq!(timing(Vec::new()).count, 0);
    }
}
