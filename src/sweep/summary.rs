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
}

#[derive(Debug, Clone)]
pub struct ServerRow {
    pub id: String,
    pub status: LineStatus,
    pub primary_issue_code: Option<String>,
    pub issue_class: Option<String>,
    pub errors: u64,
    pub warnings: u64,
    pub wall_ms: Option<u64>,
    pub started_at: Option<String>,
    /// Why it was not started or could not be checked.
    pub reason: Option<String>,
    pub server_name: Option<String>,
    pub command: Option<String>,
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

#[derive(Debug, Clone)]
pub struct Summary {
    pub servers: Vec<ServerRow>,
    /// Servers per status, worst first.
    pub statuses: Vec<(LineStatus, usize)>,
    pub classes: Vec<ClassTable>,
    pub top_codes: Vec<(String, usize)>,
    pub slowest: Vec<(String, u64)>,
    pub timing: Timing,
    pub files: Vec<FileSpan>,
    pub duplicates: usize,
}

/// What a sweep can say of each server it was given: the number an operator needs is how
/// many are broken, beside how many could not be judged where the sweep ran.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Judged {
    /// Passed, or only warnings.
    pub working: usize,
    /// Failed: a protocol or transport fault, a server that did not run (needs
    /// inspection, nothing pointing outside it), or a package no client can install.
    pub broken: usize,
    /// An upstream or credential it needs was missing here, its configuration or setup was
    /// not given or failed, or the install ran out of time: no verdict on the server.
    pub not_judged: usize,
    /// Not asked (another transport, a remote entry without --remote).
    pub not_asked: usize,
}

impl Judged {
    pub fn of(servers: &[ServerRow]) -> Self {
        let mut j = Self::default();
        for s in servers {
            let environment = s.issue_class.as_deref() == Some(IssueClass::Environment.as_str());
            let slot = match s.status {
                LineStatus::Judged(Status::Pass | Status::Warning) => &mut j.working,
                LineStatus::NotJudged(NotJudged::NotAsked) => &mut j.not_asked,
                LineStatus::NotJudged(
                    NotJudged::NeedsConfiguration | NotJudged::SetupFailed | NotJudged::SweepError,
                ) => &mut j.not_judged,
                LineStatus::NotJudged(NotJudged::InstallFailed)
                    if matches!(
                        s.primary_issue_code.as_deref(),
                        Some("install-timeout" | "install-failed")
                    ) =>
                {
                    &mut j.not_judged
                }
                _ if environment => &mut j.not_judged,
                _ => &mut j.broken,
            };
            *slot += 1;
        }
        j
    }
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
        let started: Vec<&ServerRow> = servers.iter().filter(|s| s.status.was_started()).collect();
        let mut slowest: Vec<(String, u64)> = started
            .iter()
            .filter_map(|s| Some((s.id.clone(), s.wall_ms?)))
            .collect();
        slowest.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        slowest.truncate(10);
        let (classes, top_codes) = classes(&servers);
        Summary {
            timing: timing(started.iter().filter_map(|s| s.wall_ms).collect()),
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
        })
        .collect();
    ServerRow {
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
        for issue in &s.issues {
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
        for issue in &s.issues {
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

fn severity_rank(s: &str) -> u8 {
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

    fn row(status: &str, code: Option<&str>, class: Option<&str>) -> ServerRow {
        ServerRow {
            id: "x".into(),
            status: serde_json::from_value(status.into()).expect("a status"),
            primary_issue_code: code.map(str::to_string),
            issue_class: class.map(str::to_string),
            errors: 0,
            warnings: 0,
            wall_ms: None,
            started_at: None,
            reason: None,
            server_name: None,
            command: None,
            issues: Vec::new(),
            file: String::new(),
            line: 0,
        }
    }

    #[test]
    fn a_code_filed_under_two_classes_is_one_top_code() {
        let issue = |class: &str| IssueRow {
            code: "initialize-timeout".into(),
            severity: "error".into(),
            class: class.into(),
            message: String::new(),
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
                "needs_inspection",
                Some("capability-list-error"),
                Some("environment"),
            ),
            row(
                "install-failed",
                Some("install-timeout"),
                Some("installRuntime"),
            ),
            row("needs-configuration", None, None),
            row("not-asked", None, None),
        ];
        assert_eq!(
            Judged::of(&rows),
            Judged {
                working: 2,
                broken: 3,
                not_judged: 3,
                not_asked: 1
            }
        );
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
