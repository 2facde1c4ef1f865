//! The sweep report as plain text for a terminal. Every untrusted string was excerpted
//! (bounded, control characters escaped) when the summary was built.

use super::summary::Summary;
use std::fmt::Write;

pub fn render(summary: &Summary) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "mcpcheck sweep-report: {} server(s) from {} file(s){}",
        summary.servers.len(),
        summary.files.len(),
        if summary.duplicates > 0 {
            format!(" ({} older duplicate line(s) replaced)", summary.duplicates)
        } else {
            String::new()
        }
    );
    let statuses: Vec<String> = summary
        .statuses
        .iter()
        .map(|(s, n)| format!("{s} {n}"))
        .collect();
    let _ = writeln!(out, "  {}", statuses.join(" · "));
    if !summary.top_codes.is_empty() {
        let codes: Vec<String> = summary
            .top_codes
            .iter()
            .map(|(c, n)| format!("{c} ({n})"))
            .collect();
        let _ = writeln!(out, "  most common issues: {}", codes.join(", "));
    }
    for class in &summary.classes {
        let _ = writeln!(out, "\n{} — {} server(s)", class.class, class.servers);
        for row in &class.codes {
            let _ = writeln!(
                out,
                "  {:<40} {:<8} {:>5} server(s)  e.g. {}",
                row.code,
                row.severity,
                row.servers,
                row.examples.join(", ")
            );
        }
    }
    let t = &summary.timing;
    let _ = writeln!(out, "\ntiming ({} servers started)", t.count);
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
    for f in &summary.files {
        let span = f.span_ms.map_or("-".into(), secs);
        let conc = f.concurrency.map_or("-".into(), |c| format!("{c:.1}"));
        let _ = writeln!(
            out,
            "  {}: {} line(s), {} unreadable · {span} first start to last finish · {} of server time · {conc} at once",
            f.file, f.lines, f.unreadable_lines, secs(f.busy_ms)
        );
    }
    let _ = writeln!(out, "\nservers");
    let _ = writeln!(
        out,
        "  {:<20} {:<40} {:<36} {:>9}  DETAILS",
        "STATUS", "ID", "PRIMARY ISSUE", "WALL"
    );
    for s in &summary.servers {
        let primary = s
            .primary_issue_code
            .clone()
            .or_else(|| s.reason.clone())
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  {:<20} {:<40} {:<36} {:>9}  {}:{}",
            s.status,
            s.id,
            primary,
            s.wall_ms.map_or("-".into(), secs),
            s.file,
            s.line
        );
    }
    out
}

pub fn secs(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}
