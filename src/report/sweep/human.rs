//! The sweep report as plain text for a terminal. Every untrusted string was excerpted
//! (bounded, control characters escaped) when the summary was built.

use crate::finding::{excerpt, plural};
use crate::sweep::changes::{Changed, Changes};
use crate::sweep::judgement::{self, Judged};
use crate::sweep::line::{LineStatus, NotJudged};
use crate::sweep::merge::Merged;
use crate::sweep::summary::Summary;
use std::fmt::Write;

pub fn render(summary: &Summary, changes: Option<&Changes>) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "mcpcheck sweep-report: {} from {}{}",
        plural(summary.servers.len(), "server"),
        plural(summary.files.len(), "file"),
        if summary.duplicates > 0 {
            format!(
                " ({} replaced)",
                plural(summary.duplicates, "older duplicate line")
            )
        } else {
            String::new()
        }
    );
    if let Some(changes) = changes {
        changes_section(&mut out, changes);
    }
    statuses_and_codes(&mut out, summary, usize::MAX);
    for class in &summary.classes {
        let _ = writeln!(
            out,
            "\n{} — {}",
            class.class,
            plural(class.servers, "server")
        );
        for row in &class.codes {
            let _ = writeln!(
                out,
                "  {:<40} {:<8} {:>5} {:<7}  e.g. {}",
                row.code,
                row.severity,
                row.servers,
                if row.servers == 1 {
                    "server"
                } else {
                    "servers"
                },
                row.examples.join(", ")
            );
        }
    }
    let t = &summary.timing;
    let _ = writeln!(
        out,
        "\ntiming: the servers' own time, install apart ({} started)",
        plural(t.count, "server")
    );
    if t.count > 0 {
        let _ = writeln!(
            out,
            "  total {} · min {} · median {} · p90 {} · p99 {} · max {}",
            secs(t.total_ms),
            secs(t.min_ms),
            secs(t.median_ms),
            secs(t.p90_ms),
            secs(t.p99_ms),
            secs(t.max_ms)
        );
        let buckets: Vec<String> = t
            .buckets
            .iter()
            .map(|b| format!("{} {}", b.label, b.servers))
            .collect();
        let _ = writeln!(out, "  {}", buckets.join(" · "));
    }
    if let Some(line) = install_line(summary) {
        let _ = writeln!(out, "  {line}");
    }
    for f in &summary.files {
        let span = f.span_ms.map_or("-".into(), secs);
        let conc = f.concurrency.map_or("-".into(), |c| format!("{c:.1}"));
        let _ = writeln!(
            out,
            "  {}: {}, {} unreadable · {span} first start to last finish · {} of server time · {conc} at once",
            f.file, plural(f.lines, "line"), f.unreadable_lines, secs(f.busy_ms)
        );
    }
    let _ = writeln!(out, "\nservers");
    // The columns are as wide as their longest cell (at least the usual width), so a long
    // registry id (`io.github.owner/server-name`) does not push the rest of its row aside.
    let id_w = summary
        .servers
        .iter()
        .map(|s| s.id.chars().count())
        .fold(40, usize::max);
    let issue_w = summary
        .servers
        .iter()
        .filter_map(|s| s.primary_issue_code.as_deref())
        .map(str::len)
        .fold(36, usize::max);
    let _ = writeln!(
        out,
        "  {:<20} {:<id_w$} {:<issue_w$} {:>9} {:>9}  DETAILS",
        "STATUS", "ID", "PRIMARY ISSUE", "INSTALL", "RUN"
    );
    for s in &summary.servers {
        // A code fits its column; the decisive line (the installer's, the server's last
        // stderr line, an error's message, why it was not started) is a sentence, so it
        // goes last, after where the line is.
        let primary = s.primary_issue_code.as_deref().unwrap_or("-");
        let cause = s
            .cause
            .as_deref()
            .filter(|_| !matches!(judgement::Judgement::of(s), judgement::Judgement::Working))
            .map(|c| format!(" · {}", excerpt(c, 200)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  {:<20} {:<id_w$} {:<issue_w$} {:>9} {:>9}  {}:{}{cause}",
            s.status,
            s.id,
            primary,
            s.install_ms.map_or("-".into(), secs),
            s.run_ms.map_or("-".into(), secs),
            s.file,
            s.line
        );
    }
    out
}

/// What changed since the baseline, before anything else: a registry sees regressions first.
fn changes_section(out: &mut String, c: &Changes) {
    let _ = writeln!(
        out,
        "  since the baseline ({}): {}",
        plural(c.baseline_servers, "server"),
        c.counts()
    );
    for list in c.lists() {
        for item in list.items {
            let shown = match item {
                Changed::Moved(m) => {
                    let was = m
                        .was_id
                        .as_deref()
                        .map(|w| format!(" (was {})", excerpt(w, 80)))
                        .unwrap_or_default();
                    format!("{}{was}: {} → {}", excerpt(&m.id, 120), m.before, m.now)
                }
                Changed::Code(code, n) => format!("{code} ({})", plural(n, "server")),
                Changed::Server(id) => excerpt(id, 120),
            };
            let _ = writeln!(out, "    {:<13} {shown}", list.label);
        }
    }
}

/// `install: 30 installed (412.3 s, longest 65.0 s) · 15 reused`, when any entry had one.
pub fn install_line(summary: &Summary) -> Option<String> {
    let i = &summary.install;
    if i.installs + i.reused == 0 {
        return None;
    }
    Some(format!(
        "install: {} installed ({}, longest {}) · {} reused",
        i.installs,
        secs(i.total_ms),
        secs(i.max_ms),
        i.reused
    ))
}

/// `could not be judged here: a (runtime too old for this host), b (upstream unreachable)`.
pub fn not_judged_line(summary: &Summary) -> Option<String> {
    let members: Vec<String> = judgement::not_judged(&summary.servers)
        .into_iter()
        .map(|(id, why)| format!("{} ({why})", excerpt(id, 80)))
        .collect();
    (!members.is_empty()).then(|| format!("could not be judged here: {}", members.join(", ")))
}

/// `9 working · 12 broken · 5 could not be judged here · 2 not asked`.
pub fn judged_line(j: &Judged) -> String {
    format!(
        "{} working · {} broken · {} could not be judged here · {} not asked",
        j.working, j.broken, j.not_judged, j.not_asked
    )
}

pub fn secs(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

/// What `mcpcheck sweep` prints when it ends: counts per status, the most common issue
/// codes and the slowest servers, over the whole results file (earlier runs of a resumed
/// sweep included).
pub fn closing(
    merged: &Merged,
    summary: &Summary,
    out_file: &str,
    elapsed: std::time::Duration,
    shard: Option<&str>,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "sweep: {} in {} ({:.1} s this run{}) · {} unreadable",
        plural(summary.servers.len(), "server"),
        out_file,
        elapsed.as_secs_f64(),
        shard.map(|s| format!(", shard {s}")).unwrap_or_default(),
        plural(
            merged.inputs.iter().map(|i| i.unreadable).sum::<usize>(),
            "line"
        )
    );
    statuses_and_codes(&mut out, summary, 5);
    let remote_off = summary
        .servers
        .iter()
        .filter(|s| s.status == LineStatus::NotJudged(NotJudged::NotAsked))
        .filter(|s| {
            s.reason
                .as_deref()
                .is_some_and(|r| r.ends_with(crate::sweep::remote::ENABLE_HINT))
        })
        .count();
    if remote_off > 0 {
        let _ = writeln!(
            out,
            "  {} not asked: add --remote to guard {} over HTTP",
            plural(remote_off, "remote server"),
            if remote_off == 1 { "it" } else { "them" }
        );
    }
    if !summary.slowest.is_empty() {
        let slow: Vec<String> = summary
            .slowest
            .iter()
            .take(5)
            .map(|(id, ms)| format!("{} {:.1} s", excerpt(id, 60), *ms as f64 / 1000.0))
            .collect();
        let _ = writeln!(out, "  slowest: {}", slow.join(", "));
    }
    out
}

/// The count per status, then the `most` commonest issue codes.
fn statuses_and_codes(out: &mut String, summary: &Summary, most: usize) {
    let statuses: Vec<String> = summary
        .statuses
        .iter()
        .map(|(s, n)| format!("{s} {n}"))
        .collect();
    let _ = writeln!(out, "  {}", statuses.join(" · "));
    let _ = writeln!(out, "  {}", judged_line(&Judged::of(&summary.servers)));
    if let Some(line) = not_judged_line(summary) {
        let _ = writeln!(out, "  {line}");
    }
    if !summary.top_codes.is_empty() {
        let codes: Vec<String> = summary
            .top_codes
            .iter()
            .take(most)
            .map(|(c, n)| format!("{c} ({n})"))
            .collect();
        let _ = writeln!(out, "  most common issues: {}", codes.join(", "));
    }
}
